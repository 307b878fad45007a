package e2e

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/js/build"
	"github.com/veilmcp/veil/js/serve"
)

// The runtime as a newcomer gets it: TestServeCopies installs the packed
// tarball with npm, copies it as docs/install.md's Vite recipe does, and
// serves each copy with js/serve, with docs/serving.md's nginx block and
// with its Node program. A copy keeps the bytes and not the times (npm
// writes each .br before its file), and each server must still send the
// engine compressed.

// servedCopy is a folder of the runtime a server is given.
type servedCopy struct{ name, dir string }

// startNodeRecipe runs docs/serving.md's Node program on dir and returns
// its URL and what it writes; it stops when the test ends.
func startNodeRecipe(t *testing.T, program, dir string) (string, *output) {
	t.Helper()
	port, err := freeLoopbackPort()
	require.NoError(t, err)
	cmd := exec.Command("node", program, dir, fmt.Sprint(port))
	out := &output{}
	cmd.Stdout, cmd.Stderr = out, out
	dieWithTest(cmd)
	require.NoError(t, cmd.Start(), "node %s", program)
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return "http://" + addr, out
		}
		require.True(t, time.Now().Before(deadline), "node %s does not listen on %s: %s", program, addr, out.String())
		time.Sleep(20 * time.Millisecond)
	}
}

// decoded returns body decoded by the Content-Encoding it came with.
func decoded(t *testing.T, encoding string, body []byte) []byte {
	t.Helper()
	var r io.Reader
	switch encoding {
	case "":
		return body
	case "br":
		r = brotli.NewReader(bytes.NewReader(body))
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		require.NoError(t, err, "gunzip")
		r = zr
	default:
		t.Fatalf("unexpected Content-Encoding %q", encoding)
	}
	b, err := io.ReadAll(r)
	require.NoError(t, err, "decoding %s", encoding)
	return b
}

// getRaw fetches url with Accept-Encoding accept and returns the answer
// with its body as sent.
func getRaw(t *testing.T, url, accept string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept-Encoding", accept)
	res, err := rawClient.Do(req)
	require.NoError(t, err, "GET %s", url)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, body
}

// TestServeCopies: the runtime installed from the tarball, and the Vite
// recipe's copy of it, are sent compressed by js/serve, nginx and the
// Node program, each file decoding to the build's bytes; js/serve and
// the Node program send a file whose variant compresses other bytes
// uncompressed.
func TestServeCopies(t *testing.T) {
	t.Parallel() // servers of its own; nothing waits on the clock
	if skipReason != "" {
		t.Skip(skipReason)
	}
	if os.Getenv(envSkipNPM) == "1" {
		t.Skipf("%s=1: npm is not used", envSkipNPM)
	}
	nginxBin, nginxModule := findNginx(t)

	tarball, _ := pack(t)
	recipes := recipeFiles(t, installDoc)
	require.Contains(t, recipes, "vite", "%s: the Vite recipe", installDoc)
	app := recipeProject(t, recipes["vite"], tarball)
	// The recipe's own copy step, without Vite.
	npmRun(t, app, nil, "run", "veil")
	node := recipeFiles(t, servingDoc)["node"]["serve-veil.mjs"]
	require.NotEmpty(t, node, "%s: the Node program, a block with file=node/serve-veil.mjs", servingDoc)
	program := filepath.Join(t.TempDir(), "serve-veil.mjs")
	writeTestFile(t, program, node)

	installed := filepath.Join(app, "node_modules", "@veilmcp", "veil", "dist")
	if plain, err := os.Stat(filepath.Join(installed, "veil.wasm")); err == nil {
		if br, err := os.Stat(filepath.Join(installed, "veil.wasm.br")); err == nil {
			t.Logf("npm install wrote veil.wasm.br %v before veil.wasm", plain.ModTime().Sub(br.ModTime()))
		}
	}
	// Whatever order npm wrote them in this time: every variant older
	// than its file, as npm install left them when the issue was filed.
	aged := t.TempDir()
	copyTree(t, installed, aged)
	entries, err := os.ReadDir(aged)
	require.NoError(t, err)
	now := time.Now()
	for _, e := range entries {
		mod := now
		if strings.HasSuffix(e.Name(), ".br") || strings.HasSuffix(e.Name(), ".gz") {
			mod = now.Add(-time.Hour)
		}
		require.NoError(t, os.Chtimes(filepath.Join(aged, e.Name()), mod, mod))
	}
	copies := []servedCopy{
		{"npm-install", installed},
		{"vite-copy", filepath.Join(app, "public", "veil")},
		{"variants-older", aged},
	}
	// A runtime whose webmcp.js changed after the build: its variants,
	// newer, compress other bytes.
	changed := t.TempDir()
	copyTree(t, installed, changed)
	require.NoError(t, os.WriteFile(filepath.Join(changed, "webmcp.js"), []byte("/* edited */\n"), 0o644))
	later := now.Add(time.Hour)
	for _, ext := range []string{".br", ".gz"} {
		require.NoError(t, os.Chtimes(filepath.Join(changed, "webmcp.js"+ext), later, later))
	}

	// Each server serves every folder, under /NAME/.
	mux := http.NewServeMux()
	var locations []string
	block := nginxBlock(t)
	for _, c := range append(copies, servedCopy{"changed", changed}) {
		mux.Handle("/"+c.name+"/", http.StripPrefix("/"+c.name, serve.Handler(os.DirFS(c.dir))))
		b := nginxLocation.ReplaceAllString(block, "location ${1}/"+c.name+"/ {")
		locations = append(locations, nginxAlias.ReplaceAllString(b, "${1}"+nginxQuote(c.dir+"/")+";"))
	}
	ref := httptest.NewServer(mux)
	t.Cleanup(ref.Close)
	nginx := startNginx(t, nginxBin, nginxModule, fmt.Sprintf("root %s;\n%s", nginxQuote(t.TempDir()), strings.Join(locations, "\n")))
	// The Node program serves one folder under /veil/.
	nodeAt := map[string]string{}
	for _, c := range append(copies, servedCopy{"changed", changed}) {
		nodeAt[c.name], _ = startNodeRecipe(t, program, c.dir)
	}
	servers := []struct {
		name string
		url  func(folder, file string) string
	}{
		{"js-serve", func(folder, file string) string { return ref.URL + "/" + folder + "/" + file }},
		{"nginx", func(folder, file string) string { return nginx + "/" + folder + "/" + file }},
		{"node", func(folder, file string) string { return nodeAt[folder] + "/veil/" + file }},
	}

	for _, c := range copies {
		for _, srv := range servers {
			t.Run(c.name+"/"+srv.name, func(t *testing.T) {
				for _, name := range build.Files {
					if name == "webmcp.d.ts" {
						continue // its variants stay out of the package
					}
					want, err := os.ReadFile(filepath.Join(distDir, name))
					require.NoError(t, err)
					for _, accept := range []string{"br", "gzip, deflate, br, zstd", "gzip"} {
						res, body := getRaw(t, srv.url(c.name, name), accept)
						require.Equal(t, 200, res.StatusCode, "GET %s with Accept-Encoding %q", name, accept)
						wantEnc := "br"
						if accept == "gzip" {
							wantEnc = "gzip"
						}
						assert.Equal(t, wantEnc, res.Header.Get("Content-Encoding"), "Content-Encoding of %s with Accept-Encoding %q", name, accept)
						assert.Equal(t, []string{"Accept-Encoding"}, res.Header.Values("Vary"), "Vary of %s", name)
						assert.True(t, bytes.Equal(want, decoded(t, res.Header.Get("Content-Encoding"), body)),
							"%s with Accept-Encoding %q decodes to the build's bytes", name, accept)
					}
				}
			})
		}
	}

	t.Run("changed", func(t *testing.T) {
		for _, srv := range servers {
			res, body := getRaw(t, srv.url("changed", "webmcp.js"), "br, gzip")
			require.Equal(t, 200, res.StatusCode, "%s: GET webmcp.js", srv.name)
			if srv.name == "nginx" {
				// docs/serving.md says so: nginx sends whatever .br is there.
				assert.Equal(t, "br", res.Header.Get("Content-Encoding"), "%s: Content-Encoding", srv.name)
				continue
			}
			assert.Empty(t, res.Header.Get("Content-Encoding"), "%s: a variant of other bytes is not sent", srv.name)
			assert.Equal(t, "/* edited */\n", string(body), "%s: the file as it is", srv.name)
			// The engine, unchanged, is still sent compressed.
			res, _ = getRaw(t, srv.url("changed", "veil.wasm"), "br")
			assert.Equal(t, "br", res.Header.Get("Content-Encoding"), "%s: Content-Encoding of veil.wasm", srv.name)
		}
	})

	t.Run("broken-sums", func(t *testing.T) {
		// A SHA256SUMS that does not parse lets no variant through, and
		// the Node program says so once, naming the line (js/serve's log
		// line is its own package's test).
		broken := t.TempDir()
		copyTree(t, installed, broken)
		f, err := os.OpenFile(filepath.Join(broken, serve.SumsFile), os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteString("not a sum\n")
		require.NoError(t, err)
		require.NoError(t, f.Close())
		lines, err := os.ReadFile(filepath.Join(broken, serve.SumsFile))
		require.NoError(t, err)
		line := strings.Count(string(lines), "\n")
		url, out := startNodeRecipe(t, program, broken)
		for range 2 {
			res, _ := getRaw(t, url+"/veil/veil.wasm", "br")
			require.Equal(t, 200, res.StatusCode, "GET veil.wasm")
			assert.Empty(t, res.Header.Get("Content-Encoding"), "Content-Encoding with a SHA256SUMS that does not parse")
		}
		warning := fmt.Sprintf("SHA256SUMS cannot be used (line %d is not HEX  NAME)", line)
		assert.Equal(t, 1, strings.Count(out.String(), warning), "the Node program's output: %s", out.String())
	})

	t.Run("etag", func(t *testing.T) {
		// The Node program's ETag is js/serve's: a hash of the bytes sent.
		for _, accept := range []string{"br", "gzip", ""} {
			a, _ := getRaw(t, servers[0].url("vite-copy", "veil.wasm"), accept)
			b, _ := getRaw(t, servers[2].url("vite-copy", "veil.wasm"), accept)
			assert.Equal(t, a.Header.Get("ETag"), b.Header.Get("ETag"), "ETag of veil.wasm with Accept-Encoding %q, node against js/serve", accept)
		}
	})
}
