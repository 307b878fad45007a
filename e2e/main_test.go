// Package e2e drives the runtime in headless Chromium through the DevTools
// protocol.
//
// TestMain builds what the suite needs, serves it from an in-process server
// on 127.0.0.1, and starts each browser once; every test opens its own tab.
// Two browsers run side by side: Chromium as shipped, where the runtime is
// the only WebMCP implementation, and Chromium with its native WebMCP turned
// on (--enable-features=WebMCP), where the runtime must layer in front of it.
//
// Environment:
//
//	CHROME_PATH        the browser binary; else chromium, chromium-browser or
//	                   google-chrome on PATH
//	VEIL_SKIP_BROWSER  set to 1 to skip the suite when no browser is found;
//	                   without it a missing browser fails the suite
//	VEIL_HEADFUL       set to 1 to watch the browsers in windows
//	VEIL_SKIP_NPM      set to 1 to skip the tests that need npm and the
//	                   packages npm ci installs (the MCP client, npm pack
//	                   and the Vite recipes)
//	VEIL_TEST_FULL     set to 1 to run the generated matrices in full
//	                   (make conformance); else every pair of values
//	                   (envFull)
//	VEIL_TEST_TIMEOUT_SCALE
//	                   a positive number that multiplies every bound of
//	                   the suite (package bound); default 1
//	VEIL_CONFORMANCE_TARGET
//	                   another implementation's script (a URL or a file)
//	                   to run the data cases against; see
//	                   envConformanceTarget
//
// The runtime is built into a directory in the user's cache, so that a warm
// run skips compressing the engine again; the build rewrites only what
// changed.
package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/veilmcp/veil/e2e/wpt"
	"github.com/veilmcp/veil/js/serve"

	"github.com/veilmcp/veil/e2e/bound"
)

// Environment variables that configure the suite.
const (
	envChromePath  = "CHROME_PATH"
	envSkipBrowser = "VEIL_SKIP_BROWSER"
	envHeadful     = "VEIL_HEADFUL"
)

// browserNames are the binaries looked up on PATH when CHROME_PATH is unset.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome"}

// startTimeout bounds the start of one browser, scaled by bound.Of: on
// two shared cores, beside the runtime's first build and the other
// packages' browsers, a start has taken more than thirty seconds.
const startTimeout = 2 * time.Minute

var (
	// plain is Chromium as shipped, without native WebMCP.
	plain *browser
	// native is Chromium with --enable-features=WebMCP.
	native *browser
	// server serves the fixture pages and, under /dist/, the runtime.
	server *httptest.Server
	// distDir holds the runtime as the build writes it.
	distDir string
	// skipReason, when set, makes every test that needs a browser skip.
	skipReason string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if _, err := bound.Factor(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	execPath, err := findBrowser()
	if err != nil {
		if os.Getenv(envSkipBrowser) == "1" {
			skipReason = fmt.Sprintf("skipping browser tests: %v (%s=1)", err, envSkipBrowser)
			fmt.Fprintln(os.Stderr, "e2e:", skipReason)
			return m.Run()
		}
		fmt.Fprintf(os.Stderr, "e2e: %v; set %s, or %s=1 to skip the browser tests\n", err, envChromePath, envSkipBrowser)
		return 1
	}

	// The browsers start while the runtime builds: neither needs the
	// other, and on a fresh clone the build compresses the engine.
	var wg sync.WaitGroup
	var plainErr, nativeErr error
	wg.Go(func() { plain, plainErr = startBrowser(execPath, false) })
	wg.Go(func() { native, nativeErr = startBrowser(execPath, true) })
	defer func() {
		wg.Wait()
		plain.close()
		native.close()
	}()

	dir, err := os.MkdirTemp("", "veil-e2e-dist-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := wpt.BuildDist(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building the runtime:", err)
		return 1
	}
	distDir = dir

	mux, err := newMux()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	server = httptest.NewServer(mux)
	defer server.Close()
	defer removeFloor()

	wg.Wait()
	if err := errors.Join(plainErr, nativeErr); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: starting %s: %v\n", execPath, err)
		return 1
	}
	if err := checkVersion(native); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %s: %v; make deps installs a newer one\n", execPath, err)
		return 1
	}
	return m.Run()
}

// findBrowser returns the browser binary named by CHROME_PATH, or the first
// of browserNames found on PATH.
func findBrowser() (string, error) {
	if p := os.Getenv(envChromePath); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s: %w", envChromePath, err)
		}
		return p, nil
	}
	for _, name := range browserNames {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium found (looked for %v on PATH)", browserNames)
}

// newMux serves the fixture pages of testdata at the root, the runtime
// under /dist/, the conformance page and, when the conformance target is a
// local file, its directory under /target/.
func newMux() (*http.ServeMux, error) {
	src, targetDir, err := targetScript()
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/", withMode(http.FileServer(http.Dir("testdata"))))
	// As a site serves it: precompressed, with the types browsers need.
	mux.Handle("/dist/", http.StripPrefix("/dist", serve.Handler(os.DirFS(distDir))))
	mux.Handle("/conformance.html", handleConformance(src))
	mux.HandleFunc("/bench.html", handleBench)
	mux.HandleFunc("/frames.html", handleFrames)
	mux.HandleFunc("/floor/", handleFloor)
	mux.HandleFunc("/mcp/page.html", handleMCPPage)
	mux.HandleFunc("/mcp/client.bundle.js", handleMCPBundle)
	mux.HandleFunc("/mcp/global.html", handleMCPGlobal)
	mux.HandleFunc("/mcp/global.iife.js", handleMCPGlobal)
	if targetDir != "" {
		mux.Handle("/target/", http.StripPrefix("/target/", http.FileServer(http.Dir(targetDir))))
	}
	return mux, nil
}

// withMode serves a fixture page with ?mode=main with its engine on the
// main thread: the runtime's script tag gets data-veil-mode="main", so
// that one page serves both engine modes.
func withMode(files http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("mode") != "main" || !strings.HasSuffix(r.URL.Path, ".html") {
			files.ServeHTTP(w, r)
			return
		}
		b, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(path.Clean(r.URL.Path))))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		const tag = `<script src="/dist/webmcp.js"`
		page := strings.Replace(strings.Replace(string(b), tag+` data-veil-mode="worker"`, tag, 1), tag, tag+` data-veil-mode="main"`, 1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	})
}

// browser is one running Chromium. Tabs are children of ctx.
type browser struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// startBrowser starts Chromium with the suite's flags and, when
// nativeWebMCP is set, with the browser's own WebMCP turned on.
func startBrowser(execPath string, nativeWebMCP bool) (*browser, error) {
	opts := wpt.ChromiumOptions(execPath, nativeWebMCP)
	if os.Getenv(envHeadful) == "1" {
		opts = append(opts, chromedp.VisibleWindow)
	}

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	b := &browser{ctx: ctx, cancel: func() { cancelCtx(); cancelAlloc() }}

	// The first Run starts the browser; it must not carry a timeout, so
	// the timeout only watches it.
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(ctx) }()
	select {
	case err := <-done:
		if err != nil {
			b.cancel()
			return nil, err
		}
	case <-time.After(bound.Of(startTimeout)):
		b.cancel()
		return nil, fmt.Errorf("browser did not start within %v", bound.Of(startTimeout))
	}
	return b, nil
}

// minMajor is the oldest Chromium the suite runs on: the native tests pin
// down the own WebMCP of Chromium 156 (getTools and executeTool on the
// document's ModelContext), which the runtime layers in front of.
const minMajor = 156

// checkVersion fails when b is older than minMajor.
func checkVersion(b *browser) error {
	version, err := chromedp.CallBrowser(b.ctx, cdpbrowser.GetVersion, struct{}{})
	if err != nil {
		return err
	}
	product := version.Product
	// "HeadlessChrome/156.0.8078.108"
	_, v, _ := strings.Cut(product, "/")
	major, _, _ := strings.Cut(v, ".")
	if n, err := strconv.Atoi(major); err != nil || n < minMajor {
		return fmt.Errorf("the tests need Chromium %d or newer, and this is %q", minMajor, product)
	}
	return nil
}

// close stops the browser. It accepts a nil browser.
func (b *browser) close() {
	if b != nil {
		b.cancel()
	}
}
