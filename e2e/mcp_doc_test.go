package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/js/serve"
)

// mcpDoc is the document whose MCP client TestMCPClientDoc runs.
const mcpDoc = "docs/mcp-b.md"

// mcpDocSecret is what the page's tool returns as its secret.
const mcpDocSecret = "sk-over-the-tab-71c2"

// mcpDocPage serves MCP over the tab transport, with a tool whose output
// marks its secret, and loads the document's client as a module.
const mcpDocPage = `<!doctype html>
<meta charset="utf-8">
<title>An MCP client of the page</title>
<script src="/veil/webmcp.js" data-veil-mcp="tab" data-veil-mcp-origins="self"></script>
<script>
  document.modelContext.registerTool({
    name: "generate_api_key",
    description: "Create an API key for the signed-in user",
    inputSchema: { type: "object", properties: { name: { type: "string" } } },
    outputSchema: {
      type: "object",
      properties: { id: { type: "string" }, name: { type: "string" }, secret: { type: "string", "x-sensitive": true } },
    },
    execute: ({ name }) => ({ id: "key_tab", name, secret: "` + mcpDocSecret + `" }),
  });
</script>
<script type="module" src="/client.js"></script>
<veil-secrets></veil-secrets>
`

// TestMCPClientDoc: docs/mcp-b.md's client, bundled with the pinned
// esbuild from the packages the document names at the versions
// package.json pins, connects to a page serving MCP, lists its tool and
// calls it; it gets the agent view, without the secret.
func TestMCPClientDoc(t *testing.T) {
	t.Parallel() // a tab of its own; nothing waits on the clock
	needNPM(t)
	files := recipeFiles(t, mcpDoc)["mcp-client"]
	require.Contains(t, files, "client.js", "%s: the client, a block with file=mcp-client/client.js", mcpDoc)

	// The versions the document names are those package.json pins.
	pkg, err := os.ReadFile(filepath.Join(moduleRoot, "package.json"))
	require.NoError(t, err)
	var deps struct {
		DevDependencies map[string]string `json:"devDependencies"`
	}
	require.NoError(t, json.Unmarshal(pkg, &deps))
	doc, err := os.ReadFile(filepath.Join(moduleRoot, mcpDoc))
	require.NoError(t, err)
	for _, p := range []string{"@modelcontextprotocol/sdk", "@mcp-b/transports"} {
		require.NotEmpty(t, deps.DevDependencies[p], "package.json pins %s", p)
		assert.Contains(t, string(doc), "`"+p+"` "+deps.DevDependencies[p], "%s names the version of %s package.json pins", mcpDoc, p)
	}

	// Bundled as a site or an extension would, from the module's node_modules.
	dir, err := os.MkdirTemp(filepath.Join(moduleRoot, "e2e", "testdata"), "mcp-doc-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	writeTestFile(t, filepath.Join(dir, "client.js"), files["client.js"])
	esbuild, err := filepath.Abs(filepath.Join(moduleRoot, "node_modules", ".bin", "esbuild"))
	require.NoError(t, err)
	bundle := filepath.Join(t.TempDir(), "client.bundle.js")
	out, err := exec.Command(esbuild, filepath.Join(dir, "client.js"), "--bundle", "--format=esm", "--platform=browser",
		"--target=chrome120", "--log-level=warning", "--outfile="+bundle).CombinedOutput()
	require.NoError(t, err, "bundling %s's client:\n%s", mcpDoc, out)
	code, err := os.ReadFile(bundle)
	require.NoError(t, err)

	mux := http.NewServeMux()
	mux.Handle("/veil/", http.StripPrefix("/veil", serve.Handler(os.DirFS(distDir))))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, mcpDocPage)
	})
	mux.HandleFunc("GET /client.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Write(code)
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)

	tb := openTab(t, plain)
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(site.URL+"/")))
	var result string
	deadline := time.Now().Add(tabTimeout / 2)
	for result == "" {
		require.True(t, time.Now().Before(deadline), "the client logged no result: %v", tb.consoleTexts())
		tb.flushConsole()
		for _, m := range tb.consoleTexts() {
			if r, ok := strings.CutPrefix(m, "log: result: "); ok {
				result = r
			}
		}
		if result == "" {
			tb.poll(`new Promise((r) => setTimeout(() => r(true), 50))`)
		}
	}
	assert.Contains(t, tb.consoleTexts(), "log: tools: generate_api_key", "the client lists the page's tool")
	var res struct {
		Content []struct {
			Type, Text string
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	require.NoError(t, json.Unmarshal([]byte(result), &res), "the client's result: %s", result)
	assert.False(t, res.IsError, "isError of %s", result)
	assert.Contains(t, result, "key_tab", "the result names the key")
	assertWithheld(t, result, mcpDocSecret, "generate_api_key over the tab transport")
}
