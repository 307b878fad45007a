package serve_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing/fstest"

	"github.com/veilmcp/veil/js/serve"
)

// The runtime is served under /veil/; a page includes
// <script src="/veil/webmcp.js"></script>. A real server passes
// os.DirFS("dist"), the directory `make build` writes.
func ExampleHandler() {
	dist := fstest.MapFS{
		"webmcp.js":    {Data: []byte("/* the runtime */")},
		"webmcp.js.br": {Data: []byte("/* the runtime, brotli */")},
		"veil.wasm":    {Data: []byte("\x00asm")},
	}
	mux := http.NewServeMux()
	mux.Handle("/veil/", http.StripPrefix("/veil", serve.Handler(dist)))

	for _, c := range []struct{ path, accept string }{
		{"/veil/webmcp.js", "gzip, deflate, br"},
		{"/veil/webmcp.js", ""},
		{"/veil/veil.wasm", "br"},
	} {
		r := httptest.NewRequest("GET", c.path, nil)
		r.Header.Set("Accept-Encoding", c.accept)
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		h := w.Result().Header
		fmt.Printf("%s %q: %d %s encoding=%q vary=%q\n", c.path, c.accept, w.Code,
			h.Get("Content-Type"), h.Get("Content-Encoding"), h.Get("Vary"))
	}
	// Output:
	// /veil/webmcp.js "gzip, deflate, br": 200 text/javascript; charset=utf-8 encoding="br" vary="Accept-Encoding"
	// /veil/webmcp.js "": 200 text/javascript; charset=utf-8 encoding="" vary="Accept-Encoding"
	// /veil/veil.wasm "br": 200 application/wasm encoding="" vary=""
}
