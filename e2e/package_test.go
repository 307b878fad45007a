package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/js/serve"
)

// packagePage includes the runtime from the installed package and
// registers a tool with a secret.
const packagePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>the npm package</title>
<link rel="icon" href="data:,">
<script src="/veil/webmcp.js"></script>
<script>
  window.registered = document.modelContext.registerTool({
    name: "generate_api_key",
    description: "Create an API key",
    outputSchema: {type: "object", properties: {id: {type: "string"}, secret: {type: "string", "x-sensitive": true}}},
    execute: () => ({id: "key_pkg", secret: "sk-from-the-package-91"}),
  });
</script>
</head>
<body></body>
</html>
`

// npmRun runs npm with args in dir and returns its standard output.
func npmRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("npm", append(args, "--no-audit", "--no-fund")...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "npm %s in %s:\n%s", strings.Join(args, " "), dir, stderr.String())
	return string(out)
}

// TestPackage packs the module's package.json with the built runtime as
// dist/ (what `npm pack` after `make build` packs), installs the tarball
// into a scratch directory with `npm install ./veil-*.tgz`, and serves a
// page from what was installed.
func TestPackage(t *testing.T) {
	if os.Getenv(envSkipNPM) == "1" {
		t.Skipf("%s=1: npm is not used", envSkipNPM)
	}
	_, err := exec.LookPath("npm")
	require.NoError(t, err, "npm is needed (make test installs it), or set %s=1 to skip", envSkipNPM)

	src := t.TempDir()
	require.NoError(t, copyFile(filepath.Join("..", "package.json"), filepath.Join(src, "package.json")))
	require.NoError(t, os.Mkdir(filepath.Join(src, "dist"), 0o755))
	entries, err := os.ReadDir(distDir)
	require.NoError(t, err)
	for _, e := range entries {
		require.NoError(t, copyFile(filepath.Join(distDir, e.Name()), filepath.Join(src, "dist", e.Name())))
	}
	npmRun(t, src, "pack", "--silent")
	tarballs, err := filepath.Glob(filepath.Join(src, "veil-*.tgz"))
	require.NoError(t, err)
	require.Len(t, tarballs, 1, "npm pack writes one veil-*.tgz")

	scratch := t.TempDir()
	name := filepath.Base(tarballs[0])
	require.NoError(t, copyFile(tarballs[0], filepath.Join(scratch, name)))
	npmRun(t, scratch, "install", "--offline", "./"+name)
	installed := filepath.Join(scratch, "node_modules", "veil")

	for _, f := range []string{"webmcp.js", "worker.js", "wasm_exec.js", "veil.wasm", "veil-secrets.js", "veil-confirm.js", "veil-mcp.js", "webmcp.d.ts", "webmcp.js.br", "veil.wasm.gz"} {
		assert.FileExists(t, filepath.Join(installed, "dist", f))
	}
	// The exports: the script, the reveal element and the types.
	resolve := exec.Command("node", "-e", `for (const s of ["veil", "veil/webmcp.js", "veil/veil-secrets.js", "veil/webmcp.d.ts", "veil/dist/veil-mcp.js"]) console.log(require.resolve(s))`)
	resolve.Dir = scratch
	out, err := resolve.CombinedOutput()
	require.NoError(t, err, "resolving the exports: %s", out)
	dist, err := filepath.EvalSymlinks(filepath.Join(installed, "dist"))
	require.NoError(t, err)
	assert.Equal(t, []string{"webmcp.js", "webmcp.js", "veil-secrets.js", "webmcp.d.ts", "veil-mcp.js"}, func() (names []string) {
		for _, p := range strings.Fields(string(out)) {
			real, err := filepath.EvalSymlinks(p)
			require.NoError(t, err)
			assert.Equal(t, dist, filepath.Dir(real), "%s is in the package's dist/", p)
			names = append(names, filepath.Base(real))
		}
		return
	}())

	mux := http.NewServeMux()
	mux.Handle("/veil/", http.StripPrefix("/veil", serve.Handler(os.DirFS(filepath.Join(installed, "dist")))))
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(packagePage))
	})
	site := httptest.NewServer(mux)
	defer site.Close()

	tb := openTab(t, plain)
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(site.URL+"/")))
	require.True(t, eval[bool](tb, `window.registered.then(() => true)`), "registerTool")
	view := eval[string](tb, `document.modelContext.getTools().then(([t]) => document.modelContext.executeTool(t, {}))`)
	assert.Contains(t, view, "key_pkg")
	assertWithheld(t, view, "sk-from-the-package-91", "generate_api_key")
}
