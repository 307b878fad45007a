package wpt

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/veilmcp/veil/js/serve"
)

// Options configure a Server. The zero value of each field is documented
// with it.
type Options struct {
	// Dir is the root of the WPT-style tree to serve. Empty means the
	// current directory.
	Dir string

	// Mode is what the pages get injected: in ModeRuntime and
	// ModeRuntimeMain, Veil's runtime. Empty means ModeRuntime.
	Mode Mode

	// Dist is the directory the runtime is served from under /dist/, as
	// BuildDist writes it. The runtime's modes require it; the others
	// ignore it.
	Dist string

	// Testharness is the path of testharness.js. Empty means
	// TestharnessPath of the module root that holds the current
	// directory.
	Testharness string

	// TimeoutMultiplier multiplies testharness.js's timeouts (the
	// file's 10 s, or 60 s when marked long, and each test's own), as
	// wptrunner's --timeout-multiplier does, for a machine slower than
	// the tests expect. Zero means 1; a negative one is an error.
	TimeoutMultiplier float64

	// OnResult, when set, is called with each page's results as they
	// arrive, whether or not a run waits for them.
	OnResult func(FileResult)
}

// Server serves a WPT-style tree on two origins with the implementation
// under test injected into its pages, plus the resources and fixtures
// listed in the package documentation, and collects the results that
// pages post. It is an http.Handler; Listen serves it on loopback.
type Server struct {
	opts     Options
	mux      *http.ServeMux
	redeem   *redeemFixture
	tree     http.FileSystem
	harness  []byte
	listened []*http.Server

	mu      sync.Mutex
	same    string
	remote  string
	other   string
	waiting map[string]chan FileResult
}

// NewServer checks opts and returns a Server that is not listening yet.
// It fails, naming the option, when the tree, the runtime's dist/ or
// testharness.js is missing or the mode is unknown.
func NewServer(opts *Options) (*Server, error) {
	s := &Server{waiting: map[string]chan FileResult{}}
	if opts != nil {
		s.opts = *opts
	}
	o := &s.opts
	if o.Dir == "" {
		o.Dir = "."
	}
	if fi, err := os.Stat(o.Dir); err != nil {
		return nil, fmt.Errorf("test tree: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("test tree %s is not a directory", o.Dir)
	}
	if o.Mode == "" {
		o.Mode = ModeRuntime
	}
	if o.TimeoutMultiplier < 0 {
		return nil, fmt.Errorf("timeout multiplier %v: want a positive number", o.TimeoutMultiplier)
	}
	if !o.Mode.valid() {
		return nil, fmt.Errorf("unknown mode %q (want %s)", o.Mode, join(Modes))
	}
	if o.Mode.Runtime() {
		if o.Dist == "" {
			return nil, errors.New("runtime mode needs Options.Dist, the runtime's dist/ directory")
		}
		if _, err := os.Stat(filepath.Join(o.Dist, "webmcp.js")); err != nil {
			return nil, fmt.Errorf("runtime mode: dist/ lacks webmcp.js: %w", err)
		}
	}
	if o.Testharness == "" {
		root, err := ModuleRoot()
		if err != nil {
			return nil, fmt.Errorf("finding testharness.js: %w", err)
		}
		o.Testharness = TestharnessPath(root)
	}
	harness, err := os.ReadFile(o.Testharness)
	if err != nil {
		return nil, fmt.Errorf("reading testharness.js (npm ci installs it with the package wpt-runner): %w", err)
	}
	s.harness = harness
	s.redeem, err = newRedeemFixture(s)
	if err != nil {
		return nil, err
	}
	s.tree = http.Dir(o.Dir)
	s.mux = http.NewServeMux()
	s.routes()
	return s, nil
}

// TestharnessPath is where testharness.js is in a checkout of Veil at
// root once npm ci has run: the copy the npm package wpt-runner, pinned
// in package.json, carries.
func TestharnessPath(root string) string {
	return filepath.Join(root, "node_modules", "wpt-runner", "testharness", "testharness.js")
}

//go:embed harness/testharnessreport.js
var reportJS []byte

//go:embed harness/testdriver.js
var testdriverJS []byte

//go:embed harness/get-host-info.js
var hostInfoJS string

//go:embed harness/blank.html
var blankHTML []byte

//go:embed harness/iframe-caller.html
var iframeCallerHTML []byte

// standIns are the pages the server serves where the tree has none: WPT's
// empty page, and the frame through which Chromium's copy of WPT's
// webmcp/ tests call the parent's tools, which that copy lacks.
var standIns = map[string][]byte{
	"/common/blank.html":                              blankHTML,
	"/webmcp/imperative/resources/iframe-caller.html": iframeCallerHTML,
}

func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("GET /resources/testharness.js", script(s.harness))
	report := reportJS
	if t := s.opts.TimeoutMultiplier; t != 0 && t != 1 {
		// After the script, whose "use strict" must stay its first line.
		report = fmt.Appendf(slices.Clip(reportJS), "setup({ timeout_multiplier: %g });\n", t)
	}
	m.HandleFunc("GET /resources/testharnessreport.js", script(report))
	m.HandleFunc("GET /resources/testdriver.js", script(testdriverJS))
	m.HandleFunc("GET /resources/testdriver-vendor.js", script(nil))
	m.HandleFunc("GET /resources/testdriver-actions.js", script(nil))
	m.HandleFunc("GET /common/get-host-info.sub.js", s.serveHostInfo)
	if s.opts.Mode.Runtime() {
		m.Handle("/dist/", http.StripPrefix("/dist", serve.Handler(os.DirFS(s.opts.Dist))))
	}
	s.redeem.routes(m)
	m.HandleFunc("POST /wpt/results", s.serveResults)
	m.HandleFunc("/", s.serveTree)
}

// ServeHTTP serves the tree, the resources and the fixtures.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	s.mux.ServeHTTP(w, r)
}

func script(src []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Write(src)
	}
}

// serveHostInfo serves a stand-in for WPT's get-host-info.sub.js: the
// same names, filled with this server's origins. They are secure
// contexts, so the HTTPS_ names carry the same origins; the
// OTHER_NOTSAMESITE names carry OtherOrigin, the other OTHER names the
// remote one.
func (s *Server) serveHostInfo(w http.ResponseWriter, r *http.Request) {
	same, remote := s.Origins()
	other := s.OtherOrigin()
	if other == "" {
		other = remote
	}
	js := strings.NewReplacer("{{same}}", same, "{{remote}}", remote, "{{other}}", other).Replace(hostInfoJS)
	script([]byte(js))(w, r)
}

// serveTree serves the tree's files, with the implementation injected
// into pages in runtime mode and headers from a file's .headers file
// beside it, as wptserve does; and the stand-in pages (standIns) the
// tree has not.
func (s *Server) serveTree(w http.ResponseWriter, r *http.Request) {
	name := path.Clean("/" + r.URL.Path)
	f, err := s.tree.Open(name)
	if page, ok := standIns[name]; ok && errors.Is(err, fs.ErrNotExist) {
		s.servePage(w, r, name, time.Time{}, page)
		return
	}
	if err != nil {
		http.FileServer(s.tree).ServeHTTP(w, r)
		return
	}
	fi, err := f.Stat()
	f.Close()
	if err != nil || fi.IsDir() {
		http.FileServer(s.tree).ServeHTTP(w, r)
		return
	}
	if err := s.addHeaders(w, name); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if !s.opts.Mode.Runtime() || !isPage(name) {
		http.FileServer(s.tree).ServeHTTP(w, r)
		return
	}
	page, err := readAll(s.tree, name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.servePage(w, r, name, fi.ModTime(), page)
}

// servePage serves an HTML page, with the implementation injected in
// runtime mode.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request, name string, mod time.Time, page []byte) {
	if tag := runtimeTag(s.opts.Mode); tag != "" {
		page = inject(page, tag)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	http.ServeContent(w, r, name, mod, bytes.NewReader(page))
}

// addHeaders sets the headers that name's .headers file lists, one
// "Name: value" a line.
func (s *Server) addHeaders(w http.ResponseWriter, name string) error {
	b, err := readAll(s.tree, name+".headers")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.TrimSpace(k) == "" {
			continue
		}
		w.Header().Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return sc.Err()
}

func readAll(fsys http.FileSystem, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// maxResultBytes bounds a page's posted results.
const maxResultBytes = 8 << 20

// serveResults takes a page's results from testharnessreport.js and
// hands them to whoever waits for that file.
func (s *Server) serveResults(w http.ResponseWriter, r *http.Request) {
	var posted struct {
		Path    string `json:"path"`
		Harness struct {
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"harness"`
		Tests []Subtest `json:"tests"`
	}
	if err := decodeJSON(w, r, maxResultBytes, &posted); err != nil {
		return
	}
	// The page posts location.pathname, which is escaped.
	p, err := url.PathUnescape(posted.Path)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "path: " + err.Error()})
		return
	}
	res := FileResult{
		File:     strings.TrimPrefix(path.Clean("/"+p), "/"),
		Harness:  posted.Harness.Status,
		Message:  posted.Harness.Message,
		Subtests: posted.Tests,
	}
	if res.Subtests == nil {
		res.Subtests = []Subtest{}
	}
	s.mu.Lock()
	ch := s.waiting[res.File]
	delete(s.waiting, res.File)
	s.mu.Unlock()
	if ch != nil {
		ch <- res
	}
	if s.opts.OnResult != nil {
		s.opts.OnResult(res)
	}
	w.WriteHeader(http.StatusNoContent)
}

// await returns the channel that the next results posted for file go to,
// and the function that stops waiting.
func (s *Server) await(file string) (<-chan FileResult, func()) {
	ch := make(chan FileResult, 1)
	s.mu.Lock()
	s.waiting[file] = ch
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		if s.waiting[file] == ch {
			delete(s.waiting, file)
		}
		s.mu.Unlock()
	}
}

// Listen serves s on two loopback origins: the same-origin one at addr
// (empty means 127.0.0.1 on a free port), named by its address, and a
// cross-site one on a free port, named localhost. Both are secure
// contexts for every browser.
func (s *Server) Listen(addr string) error {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	same, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	remote, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		same.Close()
		return fmt.Errorf("listening on 127.0.0.1: %w", err)
	}
	port := remote.Addr().(*net.TCPAddr).Port
	lns := []net.Listener{same, remote}
	// A browser may try localhost's IPv6 address first.
	if l6, err := net.Listen("tcp", fmt.Sprintf("[::1]:%d", port)); err == nil {
		lns = append(lns, l6)
	}
	// A third origin, cross-site to both, where the system has the
	// loopback address (Linux has all of 127.0.0.0/8); else the remote
	// origin stands in for it.
	other := fmt.Sprintf("http://localhost:%d", port)
	if l, err := net.Listen("tcp", "127.0.0.2:0"); err == nil {
		lns = append(lns, l)
		other = "http://" + l.Addr().String()
	}
	s.mu.Lock()
	s.same = "http://" + same.Addr().String()
	s.remote = fmt.Sprintf("http://localhost:%d", port)
	s.other = other
	s.mu.Unlock()
	for _, l := range lns {
		srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
		s.listened = append(s.listened, srv)
		go srv.Serve(l)
	}
	return nil
}

// OtherOrigin returns a third origin Listen serves, cross-site to both
// of Origins' where the system has the loopback address 127.0.0.2 (it is
// a secure context in Chromium; Firefox and WebKit may not take it for
// one), else Origins' remote one. WPT's get-host-info names it
// HTTPS_OTHER_NOTSAMESITE_ORIGIN.
func (s *Server) OtherOrigin() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.other
}

// Origins returns the two origins Listen serves: same, where test files
// open, and remote, cross-site to it.
func (s *Server) Origins() (same, remote string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.same, s.remote
}

// URL returns the address of a test file, a path under the tree's root
// with slashes, on the same origin.
func (s *Server) URL(file string) string {
	same, _ := s.Origins()
	return same + (&url.URL{Path: "/" + strings.TrimPrefix(file, "/")}).EscapedPath()
}

// Close stops serving.
func (s *Server) Close() error {
	var errs []error
	for _, srv := range s.listened {
		errs = append(errs, srv.Close())
	}
	return errors.Join(errs...)
}
