// Command mkdist writes Veil's distribution directory (see
// [github.com/veilmcp/veil/js/build]) and prints each file's size, raw and
// compressed.
//
//	go run ./js/cmd/mkdist -out dist
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/veilmcp/veil/js/build"
)

func main() {
	out := flag.String("out", "dist", "directory to write")
	flag.Parse()
	log.SetFlags(0)
	if err := build.Dist(*out); err != nil {
		log.Fatalf("mkdist: %v", err)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "file\traw\tgzip\tbrotli\t")
	for _, name := range build.Files {
		p := filepath.Join(*out, name)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", name, size(p), size(p+".gz"), size(p+".br"))
	}
	tw.Flush()
}

func size(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}
