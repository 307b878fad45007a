package e2e

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/js/serve"

	"github.com/veilmcp/veil/e2e/bound"
)

// docs/serving.md gives an nginx configuration for dist/; TestNginx serves
// the runtime with it, as the page shows it, and holds it to what js/serve,
// the reference, answers.

// envSkipNginx, set to 1, skips TestNginx when nginx or its brotli_static
// module is missing; without it a missing nginx fails the test, since a run
// that skipped it would prove nothing about the configuration.
const envSkipNginx = "VEIL_SKIP_NGINX"

// servingDoc is the document whose ```nginx block is tested, relative to
// the module root.
const servingDoc = "docs/serving.md"

// brotliModule is the file of the module that serves the .br files, in
// Debian's libnginx-mod-http-brotli-static.
const brotliModule = "ngx_http_brotli_static_module.so"

// nginxStartTimeout bounds the start of nginx, scaled by bound.Of.
const nginxStartTimeout = 10 * time.Second

// nginxSecret is what the page's tool returns as the sensitive value.
const nginxSecret = "sk-live-nginx-0f3b6a9d2c1e"

func TestNginx(t *testing.T) {
	t.Parallel() // in a tab of its own
	if skipReason != "" {
		t.Skip(skipReason)
	}
	bin, module := findNginx(t)
	block := nginxBlock(t)

	// Files of every type of js/serve's table, and what it hides.
	types := serveTypes(t)
	samples := t.TempDir()
	for ext := range types {
		writeTestFile(t, filepath.Join(samples, "sample"+ext), "sample "+ext+"\n")
	}
	writeTestFile(t, filepath.Join(samples, "README"), "no extension\n")
	writeTestFile(t, filepath.Join(samples, ".partial.js"), "a build's temporary file\n")
	writeTestFile(t, filepath.Join(samples, "sub", "a.js"), "nested\n")

	site := t.TempDir()
	writeTestFile(t, filepath.Join(site, "page.html"), nginxPage)

	base := startNginx(t, bin, module, nginxServer(t, block, site, samples))

	// The reference: the same files through js/serve.
	mux := http.NewServeMux()
	mux.Handle("/veil/", http.StripPrefix("/veil", serve.Handler(os.DirFS(distDir))))
	mux.Handle("/types/", http.StripPrefix("/types", serve.Handler(os.DirFS(samples))))
	ref := httptest.NewServer(mux)
	t.Cleanup(ref.Close)

	t.Run("dist", func(t *testing.T) { testNginxDist(t, base, ref.URL) })
	t.Run("types", func(t *testing.T) { testNginxTypes(t, base, ref.URL, types) })
	t.Run("browser", func(t *testing.T) { testNginxBrowser(t, base) })
}

// acceptEncodings are the Accept-Encoding values a client sends, and the
// precompressed files each allows, the preferred first.
var acceptEncodings = []struct {
	header string
	allows []string
}{
	{"", nil},
	{"identity", nil},
	{"gzip", []string{".gz"}},
	{"br", []string{".br"}},
	{"gzip, deflate, br, zstd", []string{".br", ".gz"}}, // Chromium's, over HTTPS
	{"br;q=0, gzip", []string{".gz"}},
}

// testNginxDist fetches every file of dist/ from nginx with each
// Accept-Encoding, checks the answer, and compares it with js/serve's.
func testNginxDist(t *testing.T, nginx, ref string) {
	entries, err := os.ReadDir(distDir)
	require.NoError(t, err)
	var files []string
	for _, e := range entries {
		name := e.Name()
		if e.Type().IsRegular() && !strings.HasPrefix(name, ".") && !strings.HasSuffix(name, ".br") && !strings.HasSuffix(name, ".gz") {
			files = append(files, name)
		}
	}
	// The engine and the scripts are precompressed; a file that is not
	// (THIRD_PARTY_NOTICES) is served as it is, without Vary.
	for _, name := range []string{"veil.wasm", "webmcp.js", "worker.js", "wasm_exec.js"} {
		for _, ext := range []string{".br", ".gz"} {
			require.FileExists(t, filepath.Join(distDir, name+ext))
		}
	}
	for _, name := range files {
		variants := map[string]bool{}
		for _, ext := range []string{".br", ".gz"} {
			variants[ext] = isRegularFile(filepath.Join(distDir, name+ext))
		}
		for _, ae := range acceptEncodings {
			what := fmt.Sprintf("%s with Accept-Encoding %q", name, ae.header)
			variant := ""
			for _, ext := range ae.allows {
				if variants[ext] {
					variant = ext
					break
				}
			}
			want, err := os.ReadFile(filepath.Join(distDir, name+variant))
			require.NoError(t, err)

			req := servedRequest{method: "GET", path: "/veil/" + name, accept: ae.header}
			got := fetchServed(t, nginx, req)
			require.Equal(t, 200, got.status, what)
			assert.Equal(t, bodySum(want), got.body, "%s: the bytes of %s", what, name+variant)
			assert.Equal(t, map[string]string{"": "", ".br": "br", ".gz": "gzip"}[variant], got.header.Get("Content-Encoding"), "%s: Content-Encoding", what)
			if variants[".br"] || variants[".gz"] {
				assert.Equal(t, []string{"Accept-Encoding"}, got.header.Values("Vary"), "%s: Vary", what)
			} else {
				assert.Empty(t, got.header.Values("Vary"), "%s: Vary", what)
			}
			switch filepath.Ext(name) {
			case ".js":
				assert.Equal(t, "text/javascript; charset=utf-8", got.header.Get("Content-Type"), what)
			case ".wasm":
				assert.Equal(t, "application/wasm", got.header.Get("Content-Type"), what)
			}
			assert.Equal(t, "no-cache", got.header.Get("Cache-Control"), what)
			assert.Equal(t, "nosniff", got.header.Get("X-Content-Type-Options"), what)
			assertServedSame(t, what, got, fetchServed(t, ref, req))

			// Revalidation: each side's ETag gets its 304.
			etag := got.header.Get("ETag")
			require.NotEmpty(t, etag, "%s: ETag", what)
			req.header = http.Header{"If-None-Match": {etag}}
			again := fetchServed(t, nginx, req)
			assert.Equal(t, 304, again.status, "%s: If-None-Match with its ETag", what)
			req.header = http.Header{"If-None-Match": {fetchServed(t, ref, servedRequest{method: "GET", path: req.path, accept: ae.header}).header.Get("ETag")}}
			assertServedSame(t, what+", revalidated", again, fetchServed(t, ref, req))
		}
	}

	// Each encoding has its own ETag.
	etags := map[string]string{}
	for _, ae := range []string{"identity", "gzip", "br"} {
		etag := fetchServed(t, nginx, servedRequest{method: "GET", path: "/veil/veil.wasm", accept: ae}).header.Get("ETag")
		assert.NotContains(t, etags, etag, "veil.wasm with %s has the ETag of another encoding", ae)
		etags[etag] = ae
	}

	// HEAD, what a CDN or proxy in front asks, and files that are not
	// there: the same answers as js/serve's.
	for _, req := range []servedRequest{
		{method: "HEAD", path: "/veil/webmcp.js", accept: "br"},
		{method: "GET", path: "/veil/veil.wasm", accept: "gzip", header: http.Header{"Via": {"1.1 cdn.example"}}},
		{method: "GET", path: "/veil/worker.js", accept: "gzip", http10: true},
		{method: "GET", path: "/veil/worker.js", accept: "br", http10: true},
		{method: "GET", path: "/veil/", accept: "br"},
		{method: "GET", path: "/veil/nope.js", accept: "br"},
	} {
		what := fmt.Sprintf("%s %s with Accept-Encoding %q, Via %q, HTTP/1.0 %v", req.method, req.path, req.accept, req.header.Get("Via"), req.http10)
		assertServedSame(t, what, fetchServed(t, nginx, req), fetchServed(t, ref, req))
	}
}

// testNginxTypes checks that nginx gives each type of js/serve's table
// as js/serve does, and hides what it hides.
func testNginxTypes(t *testing.T, nginx, ref string, types map[string]string) {
	for ext, typ := range types {
		// A file without a .gz, to a client that takes gzip: as it is.
		req := servedRequest{method: "GET", path: "/types/sample" + ext, accept: "gzip, deflate, br, zstd"}
		got := fetchServed(t, nginx, req)
		assert.Equal(t, typ, got.header.Get("Content-Type"), "the type of %s", ext)
		assertServedSame(t, ext, got, fetchServed(t, ref, req))
	}
	for _, path := range []string{"/types/README", "/types/sub/a.js", "/types/.partial.js", "/types/sub", "/types/sub/", "/types/"} {
		req := servedRequest{method: "GET", path: path}
		assertServedSame(t, path, fetchServed(t, nginx, req), fetchServed(t, ref, req))
	}
}

// testNginxBrowser loads a page through nginx in Chromium: the engine
// starts in its worker, a tool's sensitive output is withheld from the
// agent, and the scripts and the engine arrive compressed and typed.
func testNginxBrowser(t *testing.T, base string) {
	tb := openTab(t, plain)
	require.NoError(t, chromedp.Do(tb.ctx, chromedp.Navigate(base+"/page.html")), "opening the page through nginx")
	require.Equal(t, "worker", eval[string](tb, `veil.ready.then(() => veil.mode)`), "veil.mode")

	got := eval[settled](tb, `(async () => {
		const tool = (await document.modelContext.getTools()).find((t) => t.name === "generate_api_key");
		try {
			const value = await document.modelContext.executeTool(tool, {name: "ci"});
			return {ok: true, value, type: typeof value};
		} catch (e) {
			return {ok: false, error: {name: e.name, message: e.message}};
		}
	})()`)
	require.True(t, got.OK, "executeTool: %+v", got.Error)
	var view string // the view is JSON text
	require.NoError(t, json.Unmarshal(got.Value, &view), "the agent view: %s", got.Value)
	assert.NotContains(t, view, nginxSecret, "the agent view")
	var result struct {
		StructuredContent map[string]any `json:"structuredContent"`
		Meta              struct {
			Withheld struct {
				Withheld []string `json:"withheld"`
			} `json:"dev.veil/withheld"`
		} `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal([]byte(view), &result), "the agent view: %s", view)
	assert.Equal(t, map[string]any{"id": "key_7Hq2", "name": "ci"}, result.StructuredContent, "structuredContent")
	assert.Equal(t, []string{"/secret"}, result.Meta.Withheld.Withheld, "_meta withheld")

	// What the browser received: the .br of webmcp.js and of the engine
	// (Chromium asks for br on a loopback address as over HTTPS), and an
	// engine it compiles as it streams, which it does only under
	// application/wasm.
	sizes := eval[map[string]float64](tb, `(async () => {
		await WebAssembly.compileStreaming(fetch("/veil/veil.wasm"));
		const size = (name) => performance.getEntriesByName(new URL("/veil/" + name, location.href).href).at(-1);
		const js = size("webmcp.js"), wasm = size("veil.wasm");
		return {js: js.encodedBodySize, jsDecoded: js.decodedBodySize, wasm: wasm.encodedBodySize, wasmDecoded: wasm.decodedBodySize};
	})()`)
	t.Logf("received through nginx: %v", sizes)
	for _, f := range []struct{ name, key string }{{"webmcp.js", "js"}, {"veil.wasm", "wasm"}} {
		plainSize := distFileSize(t, f.name)
		assert.Equal(t, float64(plainSize), sizes[f.key+"Decoded"], "%s: the decoded size", f.name)
		assert.Equal(t, float64(distFileSize(t, f.name+".br")), sizes[f.key], "%s: the bytes received, want those of its .br", f.name)
	}
}

// nginxPage is the page nginx serves beside the runtime: the README's
// tool, returning its secret.
const nginxPage = `<!doctype html>
<meta charset="utf-8">
<title>served by nginx</title>
<link rel="icon" href="data:,">
<script src="/veil/webmcp.js"></script>
<script>
  document.modelContext.registerTool({
    name: "generate_api_key",
    description: "Create an API key for the signed-in user",
    inputSchema: { type: "object", properties: { name: { type: "string" } } },
    outputSchema: {
      type: "object",
      properties: { id: { type: "string" }, name: { type: "string" }, secret: { type: "string", "x-sensitive": true } },
    },
    async execute({ name }) {
      return { id: "key_7Hq2", name, secret: "` + nginxSecret + `" };
    },
  });
</script>
`

// findNginx returns the nginx binary and the brotli_static module to load,
// or "" when nginx has it built in. It fails the test when either is
// missing, or skips it with VEIL_SKIP_NGINX=1.
func findNginx(t *testing.T) (bin, module string) {
	t.Helper()
	bin, module, err := lookNginx()
	if err != nil {
		if os.Getenv(envSkipNginx) == "1" {
			t.Skipf("%v (%s=1)", err, envSkipNginx)
		}
		t.Fatalf("%v: install nginx and libnginx-mod-http-brotli-static (make deps), or set %s=1 to skip", err, envSkipNginx)
	}
	return bin, module
}

func lookNginx() (bin, module string, err error) {
	bin, err = exec.LookPath("nginx")
	if err != nil {
		// Debian's, on a user's PATH without /usr/sbin.
		bin = "/usr/sbin/nginx"
		if _, serr := os.Stat(bin); serr != nil {
			return "", "", fmt.Errorf("nginx is not on PATH")
		}
	}
	out, err := exec.Command(bin, "-V").CombinedOutput()
	if err != nil {
		return "", "", fmt.Errorf("%s -V: %v\n%s", bin, err, out)
	}
	// nginx built with ngx_brotli needs no module.
	if strings.Contains(string(out), "brotli") {
		return bin, "", nil
	}
	// Where nginx was built to look, and where Debian puts the module.
	var dirs []string
	if m := regexp.MustCompile(`--modules-path=(\S+)`).FindSubmatch(out); m != nil {
		dirs = append(dirs, string(m[1]))
	}
	for _, d := range []string{"/usr/lib/nginx/modules", "/usr/share/nginx/modules"} {
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, dir := range dirs {
		if p := filepath.Join(dir, brotliModule); isRegularFile(p) {
			return bin, p, nil
		}
	}
	return "", "", fmt.Errorf("nginx has no brotli_static module (%s in none of %v)", brotliModule, dirs)
}

func isRegularFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// nginxBlock returns the ```nginx block of the serving document: there is
// exactly one.
func nginxBlock(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(moduleRoot, servingDoc))
	require.NoError(t, err)
	snippets, err := parseSnippets(servingDoc, data)
	require.NoError(t, err)
	var blocks []snippet
	for _, s := range snippets {
		if s.lang == "nginx" {
			blocks = append(blocks, s)
		}
	}
	require.Len(t, blocks, 1, "%s has one ```nginx block", servingDoc)
	return blocks[0].code
}

// The lines of the block that the test adapts: where the files are, and,
// for the type samples, the prefix.
var (
	nginxLocation = regexp.MustCompile(`(?m)^location (\^~ )?/veil/ \{$`)
	nginxAlias    = regexp.MustCompile(`(?m)^(\s*alias\s+)\S+/;$`)
)

// nginxServer returns the block twice, for dist/ under /veil/ and for the
// samples under /types/, in a server whose pages are in site.
func nginxServer(t *testing.T, block, site, samples string) string {
	t.Helper()
	require.Len(t, nginxLocation.FindAllString(block, -1), 1, "the block is one location /veil/")
	require.Len(t, nginxAlias.FindAllString(block, -1), 1, "the block has one alias, to a directory")
	at := func(prefix, dir string) string {
		b := nginxLocation.ReplaceAllString(block, "location ${1}"+prefix+" {")
		return nginxAlias.ReplaceAllString(b, "${1}"+nginxQuote(dir+"/")+";")
	}
	return fmt.Sprintf(`
    # What a site's server often has, and the block must not be hurt by:
    # a default charset, far expiry, and a regex location for scripts.
    charset utf-8;
    expires 7d;
    location ~* \.(?:js|wasm)$ {
        expires max;
    }

    root %s;

%s
%s`, nginxQuote(site), at("/veil/", distDir), at("/types/", samples))
}

// nginxQuote quotes a path for nginx's configuration.
func nginxQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// startNginx runs nginx in the foreground, as the test's own process, with
// a temporary prefix and the server given, on a free loopback port. It
// returns the server's URL; nginx stops when the test ends.
func startNginx(t *testing.T, bin, module, server string) string {
	t.Helper()
	var last error
	for range 3 { // another process may take the port between probe and bind
		port, err := freeLoopbackPort()
		require.NoError(t, err)
		prefix := t.TempDir()
		conf := filepath.Join(prefix, "nginx.conf")
		writeTestFile(t, conf, nginxConf(module, prefix, port, server))
		base, err := runNginx(t, bin, prefix, conf, port)
		if err == nil {
			return base
		}
		last = err
	}
	t.Fatalf("starting nginx: %v", last)
	return ""
}

// nginxConf is the whole configuration: the test's paths, and http as a
// Debian nginx.conf has it (mime.types' types, gzip on), with every type
// compressed on the fly, around server.
func nginxConf(module, prefix string, port int, server string) string {
	var b strings.Builder
	if module != "" {
		fmt.Fprintf(&b, "load_module %s;\n", nginxQuote(module))
	}
	p := func(name string) string { return nginxQuote(filepath.Join(prefix, name)) }
	fmt.Fprintf(&b, `pid %s;
error_log stderr warn;
events {
    worker_connections 64;
}
http {
    access_log off;
    client_body_temp_path %s;
    proxy_temp_path %s;
    fastcgi_temp_path %s;
    uwsgi_temp_path %s;
    scgi_temp_path %s;

    types {
        text/html              html;
        application/javascript js;
        application/wasm       wasm;
        video/mp2t             ts;
    }
    default_type application/octet-stream;
    gzip on;
    gzip_types *;

    server {
        listen 127.0.0.1:%d;
%s
    }
}
`, p("nginx.pid"), p("client_body"), p("proxy"), p("fastcgi"), p("uwsgi"), p("scgi"), port, server)
	return b.String()
}

// runNginx starts nginx and waits until it accepts connections.
func runNginx(t *testing.T, bin, prefix, conf string, port int) (string, error) {
	t.Helper()
	var log output
	// One process, in the foreground: it stops with the test, and, run as
	// root, reads the test's files itself instead of as a worker of
	// another user.
	cmd := exec.Command(bin, "-p", prefix+string(filepath.Separator), "-c", conf, "-e", "stderr",
		"-g", "daemon off; master_process off;")
	cmd.Stdout, cmd.Stderr = &log, &log
	dieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	stop := func() {
		cmd.Process.Kill()
		<-exited
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(bound.Of(nginxStartTimeout))
	for {
		select {
		case <-exited:
			return "", fmt.Errorf("nginx exited: %s", log.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			stop()
			return "", fmt.Errorf("nginx did not listen on %s within %v: %s", addr, bound.Of(nginxStartTimeout), log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() {
		stop()
		if s := log.String(); strings.Contains(s, "[emerg]") || strings.Contains(s, "[alert]") || strings.Contains(s, "[crit]") {
			t.Errorf("nginx's log: %s", s)
		}
	})
	return "http://" + addr, nil
}

// output is a buffer a program (nginx, the Node server) writes to while
// the test reads it.
type output struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *output) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *output) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// freeLoopbackPort returns a loopback port that was free a moment ago.
func freeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// serveTypes returns js/serve's table of types, read from its source.
func serveTypes(t *testing.T) map[string]string {
	t.Helper()
	src := filepath.Join(moduleRoot, "js", "serve", "serve.go")
	f, err := parser.ParseFile(token.NewFileSet(), src, nil, 0)
	require.NoError(t, err)
	types := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok || len(spec.Names) != 1 || spec.Names[0].Name != "types" || len(spec.Values) != 1 {
			return true
		}
		lit, ok := spec.Values[0].(*ast.CompositeLit)
		require.True(t, ok, "%s: types is a map literal", src)
		for _, e := range lit.Elts {
			kv := e.(*ast.KeyValueExpr)
			k, err1 := strconv.Unquote(kv.Key.(*ast.BasicLit).Value)
			v, err2 := strconv.Unquote(kv.Value.(*ast.BasicLit).Value)
			require.NoError(t, errors.Join(err1, err2))
			types[k] = v
		}
		return false
	})
	require.Contains(t, types, ".wasm", "%s: the table of types", src)
	return types
}

// A servedRequest is what a client asks of the servers.
type servedRequest struct {
	method, path, accept string
	header               http.Header
	// http10 sends the request as HTTP/1.0, as a proxy may.
	http10 bool
}

// A servedResponse is what a server answered: the body as its hash.
type servedResponse struct {
	status int
	header http.Header
	body   string
}

// rawClient is a client that returns the bytes as sent.
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

// fetchServed sends req to the server at base.
func fetchServed(t *testing.T, base string, req servedRequest) servedResponse {
	t.Helper()
	r, err := http.NewRequest(req.method, base+req.path, nil)
	require.NoError(t, err)
	for k, v := range req.header {
		r.Header[k] = v
	}
	if req.accept != "" {
		r.Header.Set("Accept-Encoding", req.accept)
	}
	var res *http.Response
	if req.http10 {
		c, err := net.Dial("tcp", r.URL.Host)
		require.NoError(t, err)
		defer c.Close()
		r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.0", 1, 0
		fmt.Fprintf(c, "%s %s HTTP/1.0\r\nHost: %s\r\n", r.Method, r.URL.RequestURI(), r.URL.Host)
		require.NoError(t, r.Header.Write(c))
		fmt.Fprint(c, "\r\n")
		res, err = http.ReadResponse(bufio.NewReader(c), r)
		require.NoError(t, err, "%s %s as HTTP/1.0", req.method, req.path)
	} else {
		res, err = rawClient.Do(r)
		require.NoError(t, err, "%s %s", req.method, req.path)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return servedResponse{status: res.StatusCode, header: res.Header, body: bodySum(body)}
}

// assertServedSame checks that nginx answered as js/serve did, in what the
// runtime and the caches between depend on.
func assertServedSame(t *testing.T, what string, nginx, ref servedResponse) {
	t.Helper()
	if !assert.Equal(t, ref.status, nginx.status, "%s: status, nginx against js/serve", what) {
		return
	}
	keys := []string{"X-Content-Type-Options"}
	if ref.status == 200 || ref.status == 304 {
		// Not Content-Length: js/serve leaves it out of a compressed
		// answer, as http.ServeContent does, and the bodies are compared.
		keys = append(keys, "Content-Type", "Content-Encoding", "Vary", "Cache-Control")
		assert.Equal(t, ref.header.Get("ETag") != "", nginx.header.Get("ETag") != "", "%s: an ETag, nginx against js/serve", what)
	}
	if ref.status == 200 {
		keys = append(keys, "Last-Modified")
		assert.Equal(t, ref.body, nginx.body, "%s: the body, nginx against js/serve", what)
	}
	for _, k := range keys {
		assert.Equal(t, ref.header.Values(k), nginx.header.Values(k), "%s: %s, nginx against js/serve", what, k)
	}
}

func bodySum(b []byte) string {
	s := sha256.Sum256(b)
	return fmt.Sprintf("%d bytes, sha256 %s", len(b), hex.EncodeToString(s[:8]))
}

func distFileSize(t *testing.T, name string) int64 {
	t.Helper()
	fi, err := os.Stat(filepath.Join(distDir, name))
	require.NoError(t, err)
	return fi.Size()
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}
