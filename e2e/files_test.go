package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/js/serve"
)

// filesSite serves the runtime as sites get it wrong and right, and keeps
// the path of every request:
//
//	/veil/      the runtime, whole
//	/missing/   the runtime without veil.wasm (404)
//	/spa/       webmcp.js, and for any other path the site's index page
//	            (200, text/html), as a single-page app's fallback answers
//	/octet/     the runtime, veil.wasm as application/octet-stream
//	/elsewhere/ webmcp.js alone, away from its files
//	/page       a page whose head is the query's head, as it is
type filesSite struct {
	*httptest.Server
	mu       sync.Mutex
	requests []string
}

func newFilesSite(t *testing.T) *filesSite {
	t.Helper()
	s := &filesSite{}
	files := serve.Handler(os.DirFS(distDir))
	file := func(name, typ string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			b, err := os.ReadFile(filepath.Join(distDir, name))
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", typ)
			w.Write(b)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/veil/", http.StripPrefix("/veil", files))
	mux.HandleFunc("/missing/veil.wasm", http.NotFound)
	mux.Handle("/missing/", http.StripPrefix("/missing", files))
	mux.HandleFunc("/spa/", func(w http.ResponseWriter, r *http.Request) {
		if path.Base(r.URL.Path) == "webmcp.js" {
			http.StripPrefix("/spa", files).ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html>\n<title>the app</title>\n<div id=app></div>\n")
	})
	mux.HandleFunc("/octet/veil.wasm", file("veil.wasm", "application/octet-stream"))
	mux.Handle("/octet/", http.StripPrefix("/octet", files))
	mux.HandleFunc("/elsewhere/webmcp.js", file("webmcp.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>the runtime's files</title>\n<link rel=\"icon\" href=\"data:,\">\n"+
			r.URL.Query().Get("head")+"\n</head>\n<body>\n<veil-secrets></veil-secrets>\n</body>\n</html>\n")
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.URL.Path)
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// requested reports whether the site was asked for p.
func (s *filesSite) requested(p string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.requests, p)
}

// TestRuntimeFiles: the runtime finds its files beside its script, or in
// the folder <meta name="veil-base"> names; a file that does not load
// keeps the engine from starting with an error that names each URL that
// failed and why, as veil.ready's rejection and on the console, whatever
// the file the engine happened to fail on.
func TestRuntimeFiles(t *testing.T) {
	t.Parallel() // in a tab of its own
	site := newFilesSite(t)
	u := site.URL
	for _, c := range []struct {
		name, head string
		// want are what the error says; nil when the engine starts.
		want []string
		// wantNot are URLs the error must not name: those files loaded.
		wantNot []string
		// loaded are paths the page or its engine must have asked for.
		loaded []string
	}{
		{
			name:    "a missing veil.wasm",
			head:    `<script src="/missing/webmcp.js"></script>`,
			want:    []string{"a file of the runtime does not load: " + u + "/missing/veil.wasm (404 Not Found). They are looked for in " + u + "/missing/ (beside webmcp.js)"},
			wantNot: []string{u + "/missing/worker.js", u + "/missing/wasm_exec.js"},
		},
		{
			name:    "a missing veil.wasm, on the main thread",
			head:    `<script src="/missing/webmcp.js" data-veil-mode="main"></script>`,
			want:    []string{u + "/missing/veil.wasm (404 Not Found)"},
			wantNot: []string{u + "/missing/worker.js", u + "/missing/wasm_exec.js"},
		},
		{
			name: "the index page for every file",
			head: `<script src="/spa/webmcp.js"></script>`,
			want: []string{
				"files of the runtime do not load: ",
				u + "/spa/worker.js (served as text/html, not as JavaScript)",
				u + "/spa/wasm_exec.js (served as text/html, not as JavaScript)",
				u + "/spa/veil.wasm (served as text/html, and not WebAssembly)",
			},
		},
		{
			name: "a module without the meta",
			head: `<script type="module" src="/veil/webmcp.js"></script>`,
			want: []string{
				u + "/worker.js (404 Not Found)",
				u + "/veil.wasm (404 Not Found)",
				`They are looked for in ` + u + `/ (the page's folder, since webmcp.js was bundled or loaded as a module: name the folder of its files with <meta name="veil-base">)`,
			},
		},
		{
			name:   "veil.wasm as another type",
			head:   `<script src="/octet/webmcp.js"></script>`,
			loaded: []string{"/octet/veil.wasm"},
		},
		{
			name:   "the meta, for a script away from its files",
			head:   `<meta name="veil-base" content="/veil"><script src="/elsewhere/webmcp.js"></script>`,
			loaded: []string{"/veil/worker.js", "/veil/wasm_exec.js", "/veil/veil.wasm", "/veil/veil-secrets.js"},
		},
		{
			name:   "the meta, for a module",
			head:   `<meta name="veil-base" content="/veil/"><script type="module" src="/veil/webmcp.js"></script>`,
			loaded: []string{"/veil/worker.js", "/veil/veil-secrets.js"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := openTab(t, plain)
			tb.allowConsole(`^veil: the engine is unavailable`)
			tb.allowConsole(`^Failed to load resource`)
			tb.allowConsole(`Unexpected token '<'`)
			tb.allowConsole(`^Refused to execute script from`)
			tb.allowConsole(`^veil: cannot load \S+/veil-secrets\.js, so <veil-secrets> is not defined$`)
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(u+"/page?head="+urlQuery(c.head))))
			tb.poll(`window.veil`)
			got := eval[string](tb, `veil.ready.then(() => "", (e) => "rejected: " + e.message)`)
			if c.want == nil {
				assert.Empty(t, got, "veil.ready")
				tb.poll(`customElements.get("veil-secrets") !== undefined`)
				for _, p := range c.loaded {
					assert.True(t, site.requested(p), "%s was loaded", p)
				}
				return
			}
			require.True(t, strings.HasPrefix(got, "rejected: veil: the engine cannot start: "), "veil.ready: %s", got)
			for _, w := range c.want {
				assert.Contains(t, got, w, "veil.ready's error")
			}
			for _, w := range c.wantNot {
				assert.NotContains(t, got, w, "veil.ready's error names a file that loaded")
			}
			tb.flushConsole()
			var said []string
			for _, m := range tb.consoleTexts() {
				if strings.Contains(m, "veil: the engine is unavailable") {
					said = append(said, m)
				}
			}
			require.Len(t, said, 1, "the console: %v", tb.consoleTexts())
			assert.Contains(t, said[0], strings.TrimPrefix(got, "rejected: "), "the console says what veil.ready's error says")
		})
	}
}
