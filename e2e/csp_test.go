package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/js/serve"
)

// docs/serving.md gives the Content-Security-Policy a page needs in each
// mode, and the one the runtime's files need when the server sends them
// one; TestCSP loads the document's example page under them, read from the
// document, in Chromium.

// The modes and targets of a ```csp block.
var (
	cspModes = []string{"worker", "main"}
	cspFor   = []string{"page", "veil"}
)

// cspSecret is what the example's backend gives the tool as the secret.
const cspSecret = "sk-under-csp-4e1b9a"

// cspPolicies returns the ```csp blocks of the serving document, by
// "MODE/FOR", each a policy on one line.
func cspPolicies(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(moduleRoot + "/" + servingDoc)
	require.NoError(t, err)
	blocks, err := parseSnippets(servingDoc, data)
	require.NoError(t, err)
	policies := map[string]string{}
	for _, s := range blocks {
		if s.lang != "csp" {
			continue
		}
		k := s.attrs["mode"] + "/" + s.attrs["for"]
		require.NotContains(t, policies, k, "%s: two csp blocks for %s", s, k)
		policies[k] = strings.Join(strings.Fields(s.code), " ")
	}
	return policies
}

// cspSite serves the example page with the policy page, the runtime under
// /veil/ with the policy veil (none when empty), and the tool's backend.
func cspSite(t *testing.T, files map[string]string, page, veil string) string {
	t.Helper()
	mux := http.NewServeMux()
	runtime := http.StripPrefix("/veil", serve.Handler(os.DirFS(distDir)))
	mux.HandleFunc("/veil/", func(w http.ResponseWriter, r *http.Request) {
		if veil != "" {
			w.Header().Set("Content-Security-Policy", veil)
		}
		runtime.ServeHTTP(w, r)
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", page)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, files["index.html"])
	})
	mux.HandleFunc("GET /app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		io.WriteString(w, files["app.js"])
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /api/keys", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"key_csp","name":"ci","secret":"`+cspSecret+`"}`)
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	return site.URL
}

// TestCSP: under each mode's policies, the example page's engine starts
// where the document says, its tool's secret reaches no agent, and the
// tray loads; with the page's worker policy repeated on the runtime's
// files (no 'wasm-unsafe-eval' there), the engine cannot start, as the
// document warns.
func TestCSP(t *testing.T) {
	t.Parallel() // in tabs of its own
	policies := cspPolicies(t)
	for _, k := range []string{"worker/page", "worker/veil", "main/page"} {
		require.Contains(t, policies, k, "%s: a ```csp block with mode and for of %s", servingDoc, k)
	}
	files := recipeFiles(t, servingDoc)["csp"]
	require.Contains(t, files, "index.html", "%s: the example page, file=csp/index.html", servingDoc)
	require.Contains(t, files, "app.js", "%s: the example's script, file=csp/app.js", servingDoc)

	tests := []struct {
		name, page, veil, mode string
	}{
		{"worker", policies["worker/page"], policies["worker/veil"], "worker"},
		{"worker, no policy on the runtime's files", policies["worker/page"], "", "worker"},
		{"main", policies["main/page"], "", "main"},
		{"main, the runtime's files with the worker's policy", policies["main/page"], policies["worker/veil"], "main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // a site and a tab of its own
			site := cspSite(t, files, tt.page, tt.veil)
			tb := openTab(t, plain)
			// What the browser says when the policy forbids the Worker.
			tb.allowConsole(`Creating a worker from .* violates the following Content Security Policy directive: "worker-src 'none'"`)
			require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(site+"/")))
			tb.poll(`window.veil`)
			require.Empty(t, eval[string](tb, `veil.ready.then(() => "", (e) => e.message)`), "veil.ready")
			assert.Equal(t, tt.mode, eval[string](tb, `veil.mode`), "veil.mode")
			view := eval[string](tb, `(async () => {
				for (;;) {
					const t = (await document.modelContext.getTools()).find((t) => t.name === "generate_api_key");
					if (t) return document.modelContext.executeTool(t, {name: "ci"});
					await new Promise((r) => setTimeout(r, 10));
				}
			})()`)
			assert.Contains(t, view, "key_csp")
			assertWithheld(t, view, cspSecret, "generate_api_key")
			tb.poll(`customElements.get("veil-secrets") !== undefined`)
			tb.flushConsole()
			for _, m := range tb.consoleTexts() {
				if !strings.Contains(m, "Creating a worker from") {
					assert.NotContains(t, m, "Content Security Policy", "the console: nothing else is refused")
				}
			}
		})
	}

	t.Run("the page's policy repeated on the runtime's files", func(t *testing.T) {
		t.Parallel() // a site and a tab of its own
		site := cspSite(t, files, policies["worker/page"], policies["worker/page"])
		tb := openTab(t, plain)
		tb.allowConsole(`veil: the engine is unavailable`)
		tb.allowConsole(`Content Security Policy`)
		// The runtime's first op, left unanswered when the engine cannot
		// start, rejects unhandled (js/webmcp/engine.js's init).
		tb.allowConsole(`Uncaught \(in promise\) OperationError: engine failure`)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(site+"/")))
		tb.poll(`window.veil`)
		assert.NotEmpty(t, eval[string](tb, `veil.ready.then(() => "", (e) => e.message || "rejected")`), "veil.ready rejects")
	})
}
