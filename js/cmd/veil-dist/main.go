// Command veil-dist writes Veil's distribution directory, the files a site
// serves and a page includes webmcp.js from (see
// [github.com/veilmcp/veil/js/build]), and prints each file's size, raw and
// compressed. From any module, with Go 1.25 or newer:
//
//	go run github.com/veilmcp/veil/js/cmd/veil-dist@latest -out dist
//
// and in a checkout of Veil, `make build`.
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
		log.Fatalf("veil-dist: %v", err)
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
