package demoserver_test

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing/fstest"

	"github.com/veilmcp/veil/demo/demoserver"
)

// A test or another command serves the demo in-process. Dist is the built
// runtime: os.DirFS("dist") after `make build`, or a directory that
// js/build.Dist wrote.
func ExampleNew() {
	dist := fstest.MapFS{}
	for _, name := range demoserver.RuntimeFiles {
		dist[name] = &fstest.MapFile{Data: []byte("…")}
	}
	h, err := demoserver.New(&demoserver.Options{Dist: dist, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	res, err := srv.Client().Get(srv.URL + "/")
	if err != nil {
		panic(err)
	}
	res.Body.Close()
	csp := res.Header.Get("Content-Security-Policy")
	fmt.Println(res.StatusCode, res.Header.Get("Content-Type"))
	fmt.Println(strings.Contains(csp, "worker-src 'self'"), strings.Contains(csp, "'wasm-unsafe-eval'"))
	// Output:
	// 200 text/html; charset=utf-8
	// true true
}
