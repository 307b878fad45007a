package wpt

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/bound"
)

// fakeHarness is what the tests' testharness.js holds.
const fakeHarness = "/* testharness.js */"

// newTree writes a small tree, a dist/ and a testharness.js, and returns
// Options that serve them in mode.
func newTree(t *testing.T, mode Mode) *Options {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"tree/a/page.html":         "<!DOCTYPE html><title>p</title>",
		"tree/a/page.html.headers": "X-Test: yes\nPermissions-Policy: tools=*\n",
		"tree/a/x y.html":          "<!DOCTYPE html>",
		"tree/a/data.json":         `{"a":1}`,
		"dist/webmcp.js":           "/* webmcp.js */",
		"testharness.js":           fakeHarness,
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return &Options{Dir: filepath.Join(dir, "tree"), Mode: mode, Dist: filepath.Join(dir, "dist"), Testharness: filepath.Join(dir, "testharness.js")}
}

func TestNewServerFails(t *testing.T) {
	tests := []struct {
		name    string
		change  func(o *Options)
		wantErr string
	}{
		{"no tree", func(o *Options) { o.Dir = filepath.Join(o.Dir, "missing") }, "test tree: "},
		{"tree is a file", func(o *Options) { o.Dir = filepath.Join(o.Dir, "a", "page.html") }, "is not a directory"},
		{"unknown mode", func(o *Options) { o.Mode = "native-ish" }, `unknown mode "native-ish"`},
		{"runtime without dist", func(o *Options) { o.Dist = "" }, "runtime mode needs Options.Dist"},
		{"dist without webmcp.js", func(o *Options) { o.Dist = o.Dir }, "dist/ lacks webmcp.js"},
		{"no testharness.js", func(o *Options) { o.Testharness += ".missing" }, "npm ci installs it"},
		{"negative timeout multiplier", func(o *Options) { o.TimeoutMultiplier = -1 }, "timeout multiplier -1: want a positive number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newTree(t, ModeRuntime)
			tt.change(o)
			_, err := NewServer(o)
			assert.ErrorContains(t, err, tt.wantErr, "NewServer")
		})
	}
}

func TestServerFiles(t *testing.T) {
	tests := []struct {
		name       string
		mode       Mode
		path       string
		wantStatus int
		wantBody   string // contained in the body
		wantHeader string // "Name: value"
		notInBody  string
	}{
		{"testharness.js from npm", ModeNone, "/resources/testharness.js", 200, fakeHarness, "Content-Type: text/javascript; charset=utf-8", ""},
		{"our testharnessreport.js", ModeNone, "/resources/testharnessreport.js", 200, "add_completion_callback", "", ""},
		{"testdriver.js stand-in", ModeNone, "/resources/testdriver.js", 200, "is not supported", "", ""},
		{"get-host-info stand-in", ModeNone, "/common/get-host-info.sub.js", 200, "HTTPS_REMOTE_ORIGIN", "", "{{"},
		{"blank.html stand-in", ModeNone, "/common/blank.html", 200, "<title>blank</title>", "", "webmcp.js"},
		{"blank.html stand-in, injected", ModeRuntime, "/common/blank.html", 200, "<!DOCTYPE html>" + runtimeTag(ModeRuntime) + "\n", "", ""},
		{"iframe-caller.html stand-in, injected", ModeRuntime, "/webmcp/imperative/resources/iframe-caller.html", 200, "<!DOCTYPE html>" + runtimeTag(ModeRuntime) + "\n", "", ""},
		{"iframe-caller.html stand-in calls the parent's tools", ModeNone, "/webmcp/imperative/resources/iframe-caller.html", 200, "invoke_with_abort", "", "webmcp.js"},
		{"runtime injected", ModeRuntime, "/a/page.html", 200, `<!DOCTYPE html>` + runtimeTag(ModeRuntime) + `<title>p</title>`, "X-Test: yes", ""},
		{"main-thread engine", ModeRuntimeMain, "/a/page.html", 200, `<!DOCTYPE html><script src="/dist/webmcp.js" data-veil-mode="main"></script><title>p</title>`, "", ""},
		{"dist in runtime-main mode", ModeRuntimeMain, "/dist/webmcp.js", 200, "/* webmcp.js */", "", ""},
		{"escaped name", ModeRuntime, "/a/x%20y.html", 200, runtimeTag(ModeRuntime), "", ""},
		{"nothing injected in none mode", ModeNone, "/a/page.html", 200, "<title>p</title>", "Permissions-Policy: tools=*", "webmcp.js"},
		{"nothing injected in native mode", ModeNative, "/a/page.html", 200, "<title>p</title>", "", "webmcp.js"},
		{"not into other files", ModeRuntime, "/a/data.json", 200, `{"a":1}`, "", "webmcp.js"},
		{"dist in runtime mode", ModeRuntime, "/dist/webmcp.js", 200, "/* webmcp.js */", "", ""},
		{"no dist in none mode", ModeNone, "/dist/webmcp.js", 404, "", "", ""},
		{"missing file", ModeRuntime, "/a/missing.html", 404, "", "", ""},
		{"nothing above the tree: redirected into it", ModeRuntime, "/../testharness.js", 307, "", "Location: /testharness.js", fakeHarness},
		{"no store", ModeRuntime, "/a/page.html", 200, "", "Cache-Control: no-store", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := NewServer(newTree(t, tt.mode))
			require.NoError(t, err, "NewServer")
			w := httptest.NewRecorder()
			r := httptest.NewRequest("GET", "http://127.0.0.1"+tt.path, nil)
			r.URL.Path = strings.ReplaceAll(r.URL.Path, "%20", " ")
			srv.ServeHTTP(w, r)
			assert.Equal(t, tt.wantStatus, w.Code, "GET %s: status", tt.path)
			assert.Contains(t, w.Body.String(), tt.wantBody, "GET %s: body", tt.path)
			if tt.notInBody != "" {
				assert.NotContains(t, w.Body.String(), tt.notInBody, "GET %s: body", tt.path)
			}
			if name, value, ok := strings.Cut(tt.wantHeader, ": "); ok {
				assert.Equal(t, value, w.Header().Get(name), "GET %s: header %s", tt.path, name)
			}
		})
	}
}

func TestServerTimeoutMultiplier(t *testing.T) {
	for _, m := range []float64{0, 1, 2.5} {
		o := newTree(t, ModeNone)
		o.TimeoutMultiplier = m
		srv, err := NewServer(o)
		require.NoError(t, err, "NewServer")
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest("GET", "/resources/testharnessreport.js", nil))
		body := w.Body.String()
		assert.True(t, strings.HasPrefix(body, "//"), "multiplier %v: the script's own text comes first", m)
		if m == 2.5 {
			assert.True(t, strings.HasSuffix(body, "\nsetup({ timeout_multiplier: 2.5 });\n"), "multiplier %v: setup at the end, got …%s", m, body[len(body)-60:])
		} else {
			assert.NotContains(t, body, "timeout_multiplier", "multiplier %v", m)
		}
	}
}

// call sends a request to a listening server, with the Fetch Metadata
// of a same-origin fetch() and the cookie wpt_user=user when user is set.
func call(t *testing.T, method, url, body, user string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Sec-Fetch-Mode", "cors")
	req.Header.Set("Sec-Fetch-Dest", "empty")
	if user != "" {
		req.AddCookie(&http.Cookie{Name: UserCookie, Value: user})
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err, "%s %s", method, url)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var v map[string]any
	json.Unmarshal(b, &v)
	return resp.StatusCode, v
}

func TestServerFixtures(t *testing.T) {
	srv, err := NewServer(newTree(t, ModeNone))
	require.NoError(t, err, "NewServer")
	require.NoError(t, srv.Listen(""), "Listen")
	defer srv.Close()
	same, remote := srv.Origins()
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, same, "same origin")
	assert.Regexp(t, `^http://localhost:\d+$`, remote, "remote origin")
	remoteLoopback := strings.Replace(remote, "localhost", "127.0.0.1", 1)
	other := srv.OtherOrigin()
	assert.Regexp(t, `^http://(127\.0\.0\.2|localhost):\d+$`, other, "OtherOrigin")
	assert.NotEqual(t, same, other, "OtherOrigin")
	if strings.HasPrefix(other, "http://127.0.0.2:") {
		status, _ := call(t, "GET", other+"/wpt/origins", "", "")
		assert.Equal(t, 200, status, "GET /wpt/origins on the third origin")
	}
	resp, err := http.Get(same + "/common/get-host-info.sub.js")
	require.NoError(t, err, "GET get-host-info.sub.js")
	hostInfo, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err, "GET get-host-info.sub.js")
	assert.Contains(t, string(hostInfo), "new URL('"+other+"')", "get-host-info names the third origin")

	status, origins := call(t, "GET", same+"/wpt/origins", "", "")
	assert.Equal(t, 200, status, "GET /wpt/origins")
	assert.Equal(t, map[string]any{"same": same, "remote": remote}, origins, "GET /wpt/origins")

	t.Run("issue refuses", func(t *testing.T) {
		for _, body := range []string{`{`, `{"value":"v"}`, `{"owner":"alice","ttl":-1}`, `{"owner":"a"} {}`} {
			status, got := call(t, "POST", same+"/wpt/issue", body, "")
			assert.Equal(t, 400, status, "POST /wpt/issue %s", body)
			assert.NotEmpty(t, got["error"], "POST /wpt/issue %s", body)
		}
	})

	status, ref := call(t, "POST", same+"/wpt/issue", `{"owner":"alice","value":"s3cret","label":"API key","ttl":60}`, "")
	require.Equal(t, 200, status, "POST /wpt/issue")
	assert.Equal(t, "secret_reference", ref["type"])
	assert.Equal(t, "API key", ref["label"])
	assert.Equal(t, float64(60), ref["ttl"])
	redeemURL, _ := ref["redeemUrl"].(string)
	require.True(t, strings.HasPrefix(redeemURL, "/redeem/"), "redeemUrl %q", redeemURL)

	steps := []struct {
		name, origin, user string
		wantStatus         int
	}{
		{"signed out", same, "", 401},
		{"someone else", same, "bob", 403},
		{"the owner on the remote origin: one store", remoteLoopback, "alice", 200},
		{"the owner again", same, "alice", 410},
	}
	for _, s := range steps {
		status, body := call(t, "GET", s.origin+redeemURL, "", s.user)
		assert.Equal(t, s.wantStatus, status, "%s: GET %s", s.name, redeemURL)
		if s.wantStatus == 200 {
			assert.Equal(t, "s3cret", body["value"], "%s: value", s.name)
		}
	}

	t.Run("many redemptions are not rate limited", func(t *testing.T) {
		for range 60 {
			status, _ := call(t, "GET", same+"/redeem/AAAAAAAAAAAAAAAAAAAAAA", "", "alice")
			require.Equal(t, 404, status, "GET an unknown id")
		}
	})
}

func TestServerResults(t *testing.T) {
	srv, err := NewServer(newTree(t, ModeNone))
	require.NoError(t, err, "NewServer")
	require.NoError(t, srv.Listen(""), "Listen")
	defer srv.Close()
	same, _ := srv.Origins()
	assert.Equal(t, same+"/a/x%20y.html", srv.URL("a/x y.html"), "URL")

	results, stop := srv.await("a/x y.html")
	defer stop()
	status, _ := call(t, "POST", same+"/wpt/results", `{"path":"/other.html","harness":{"status":"OK"},"tests":[]}`, "")
	assert.Equal(t, 204, status, "POST /wpt/results for a file no one waits for")
	status, _ = call(t, "POST", same+"/wpt/results", `{"path":"/a/x%20y.html","harness":{"status":"ERROR","message":"boom"},"tests":[{"name":"t","status":"PASS","message":""}]}`, "")
	assert.Equal(t, 204, status, "POST /wpt/results")
	select {
	case res := <-results:
		assert.Equal(t, FileResult{File: "a/x y.html", Harness: HarnessError, Message: "boom", Subtests: []Subtest{{Name: "t", Status: StatusPass}}}, res)
	case <-time.After(bound.Of(5 * time.Second)):
		t.Fatal("await: no results")
	}
	status, _ = call(t, "POST", same+"/wpt/results", `not json`, "")
	assert.Equal(t, 400, status, "POST /wpt/results with no JSON")
}

func TestDiscover(t *testing.T) {
	dir := t.TempDir()
	test := `<script src="/resources/testharness.js"></script>`
	for name, body := range map[string]string{
		"b/two.html":            test,
		"a/one.https.html":      test,
		"a/not-a-test.html":     "<p>",
		"a/resources/help.html": test,
		"support/x.html":        test,
		"testdata/x.html":       test,
		".git/x.html":           test,
		"a/_draft.html":         test,
		"a/script.js":           test,
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	got, err := Discover(dir, nil)
	require.NoError(t, err, "Discover")
	assert.Equal(t, []string{"a/one.https.html", "b/two.html"}, got, "Discover")

	_, err = Discover(filepath.Join(dir, "missing"), nil)
	assert.ErrorContains(t, err, "finding the test files under", "Discover of a missing tree")
}
