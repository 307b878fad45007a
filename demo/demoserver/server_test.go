package demoserver_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/demo/demoserver"
)

// fakeDist stands in for the built runtime.
func fakeDist() fstest.MapFS {
	fsys := fstest.MapFS{}
	for _, name := range demoserver.RuntimeFiles {
		fsys[name] = &fstest.MapFile{Data: []byte("/* " + name + " */")}
	}
	return fsys
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestNewErrors(t *testing.T) {
	_, err := demoserver.New(nil)
	assert.ErrorContains(t, err, "Options.Dist", "New(nil)")

	dist := fakeDist()
	delete(dist, "veil.wasm")
	delete(dist, "veil-secrets.js")
	_, err = demoserver.New(&demoserver.Options{Dist: dist, Logger: quiet()})
	assert.ErrorContains(t, err, "lacks veil.wasm, veil-secrets.js", "New without the engine")
}

// client is a browser stand-in: it keeps cookies and sends the Fetch
// Metadata of a same-origin fetch().
type client struct {
	t    *testing.T
	base string
	http *http.Client
}

func newClient(t *testing.T) *client {
	t.Helper()
	h, err := demoserver.New(&demoserver.Options{Dist: fakeDist(), Logger: quiet()})
	require.NoError(t, err, "New")
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	return &client{t: t, base: srv.URL, http: &http.Client{Jar: jar}}
}

func (c *client) do(method, path, body string, header ...string) (*http.Response, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	require.NoError(c.t, err)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("Sec-Fetch-Mode", "cors")
	req.Header.Set("Sec-Fetch-Dest", "empty")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.http.Do(req)
	require.NoError(c.t, err, "%s %s", method, path)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	return res, string(b)
}

func TestRoutes(t *testing.T) {
	c := newClient(t)
	tests := []struct {
		name, method, path string
		status             int
		contentType        string
	}{
		{"page", "GET", "/", 200, "text/html; charset=utf-8"},
		{"page by name", "GET", "/index.html", 200, "text/html; charset=utf-8"},
		{"script", "GET", "/demo.js", 200, "text/javascript; charset=utf-8"},
		{"style", "GET", "/demo.css", 200, "text/css; charset=utf-8"},
		{"icon", "GET", "/favicon.svg", 200, "image/svg+xml"},
		{"runtime", "GET", "/veil/webmcp.js", 200, "text/javascript; charset=utf-8"},
		{"engine", "GET", "/veil/veil.wasm", 200, "application/wasm"},
		{"tray", "GET", "/veil/veil-secrets.js", 200, "text/javascript; charset=utf-8"},
		{"missing file", "GET", "/nope.js", 404, ""},
		{"missing endpoint", "GET", "/api/nope", 404, "application/json"},
		{"session, signed out", "GET", "/api/session", 200, "application/json"},
		{"profile, signed out", "GET", "/api/profile", 401, "application/json"},
		{"key, signed out", "POST", "/api/keys", 401, "application/json"},
		{"redeem, signed out", "GET", "/redeem/AAAAAAAAAAAAAAAAAAAAAA", 401, "application/json"},
		{"page, POST", "POST", "/", 405, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := c.do(tt.method, tt.path, "")
			assert.Equal(t, tt.status, res.StatusCode, "%s %s", tt.method, tt.path)
			if tt.contentType != "" {
				assert.Equal(t, tt.contentType, res.Header.Get("Content-Type"), "Content-Type")
			}
			assert.Equal(t, demoserver.ContentSecurityPolicy, res.Header.Get("Content-Security-Policy"), "CSP")
			assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
			assert.Equal(t, "DENY", res.Header.Get("X-Frame-Options"))
			assert.Equal(t, "no-referrer", res.Header.Get("Referrer-Policy"))
		})
	}
}

func TestCSP(t *testing.T) {
	csp := demoserver.ContentSecurityPolicy
	for _, want := range []string{"worker-src 'self'", "'wasm-unsafe-eval'", "default-src 'none'"} {
		assert.Contains(t, csp, want)
	}
	for _, bad := range []string{"'unsafe-inline'", "'unsafe-eval'", "*"} {
		assert.NotContains(t, strings.ReplaceAll(csp, "'wasm-unsafe-eval'", ""), bad)
	}
}

func TestKeyFlow(t *testing.T) {
	c := newClient(t)
	res, body := c.do("POST", "/api/signin", "")
	require.Equal(t, 200, res.StatusCode, "sign in: %s", body)
	_, body = c.do("GET", "/api/session", "")
	assert.JSONEq(t, `{"user":{"id":"ada","name":"Ada Lovelace","email":"ada@example.com"}}`, body)

	res, body = c.do("POST", "/api/keys", `{"name":"ci","ttl":120}`)
	require.Equal(t, 201, res.StatusCode, "create: %s", body)
	assert.NotContains(t, body, "nwk_live_", "the key is not in the answer")
	var key struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		Reference struct {
			Type, ID, Label, RedeemURL string
			TTL                        int
		} `json:"reference"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &key))
	assert.Equal(t, "ci", key.Name)
	assert.Equal(t, "secret_reference", key.Reference.Type)
	assert.Equal(t, "API key “ci”", key.Reference.Label)
	assert.Equal(t, 120, key.Reference.TTL)
	require.True(t, strings.HasPrefix(key.Reference.RedeemURL, "/redeem/"), "redeemUrl %q", key.Reference.RedeemURL)

	// Another site cannot redeem it, not even with the user's cookie.
	res, _ = c.do("GET", key.Reference.RedeemURL, "", "Sec-Fetch-Site", "cross-site")
	assert.Equal(t, 403, res.StatusCode, "cross-site redemption")

	res, body = c.do("GET", key.Reference.RedeemURL, "")
	require.Equal(t, 200, res.StatusCode, "redeem: %s", body)
	assert.Regexp(t, `^\{"value":"nwk_live_[A-Z2-7]{26}"\}$`, body)
	res, _ = c.do("GET", key.Reference.RedeemURL, "")
	assert.Equal(t, 410, res.StatusCode, "second redemption")

	// Signed out, a pending key asks for a sign-in.
	_, body = c.do("POST", "/api/keys", `{"name":"later"}`)
	require.NoError(t, json.Unmarshal([]byte(body), &key))
	assert.Equal(t, 300, key.Reference.TTL, "default ttl")
	res, _ = c.do("POST", "/api/signout", "")
	assert.Equal(t, 204, res.StatusCode, "sign out")
	res, _ = c.do("GET", key.Reference.RedeemURL, "")
	assert.Equal(t, 401, res.StatusCode, "redemption signed out")
}

func TestKeyInput(t *testing.T) {
	c := newClient(t)
	c.do("POST", "/api/signin", "")
	tests := []struct {
		name, body string
		status     int
	}{
		{"name and ttl", `{"name":"a","ttl":1}`, 201},
		{"no name", `{}`, 201},
		{"ttl under a second", `{"name":"a","ttl":0.5}`, 400},
		{"ttl over an hour", `{"name":"a","ttl":3601}`, 400},
		{"negative ttl", `{"name":"a","ttl":-1}`, 400},
		{"long name", `{"name":"` + strings.Repeat("n", 65) + `"}`, 400},
		{"not JSON", `name=a`, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := c.do("POST", "/api/keys", tt.body)
			assert.Equal(t, tt.status, res.StatusCode, "POST /api/keys %s: %s", tt.body, body)
		})
	}
	res, _ := c.do("POST", "/api/keys", `{"name":"a"}`, "Sec-Fetch-Site", "cross-site")
	assert.Equal(t, 403, res.StatusCode, "a cross-site POST")
}

func TestData(t *testing.T) {
	c := newClient(t)
	c.do("POST", "/api/signin", "")

	_, body := c.do("GET", "/api/profile", "")
	assert.Contains(t, body, `"idNumber":"QQ 12 34 56 C"`)
	assert.Contains(t, body, `"dateOfBirth":"1815-12-10"`)

	_, body = c.do("GET", "/api/medical-record", "")
	var rec struct{ Text string }
	require.NoError(t, json.Unmarshal([]byte(body), &rec))
	assert.Equal(t, demoserver.MedicalRecord, rec.Text)

	res, body := c.do("POST", "/api/recovery-codes", "{}")
	require.Equal(t, 200, res.StatusCode)
	var codes struct {
		Codes []string
		Count int
	}
	require.NoError(t, json.Unmarshal([]byte(body), &codes))
	assert.Len(t, codes.Codes, 10)
	assert.Equal(t, 10, codes.Count)
	for _, code := range codes.Codes {
		assert.Regexp(t, `^[a-z2-7]{5}-[a-z2-7]{5}$`, code)
	}

	_, body = c.do("GET", "/api/orders?status=pending", "")
	var orders []demoserver.Order
	require.NoError(t, json.Unmarshal([]byte(body), &orders))
	require.Len(t, orders, 1)
	assert.Equal(t, "ord_1063", orders[0].ID)
	_, body = c.do("GET", "/api/orders", "")
	require.NoError(t, json.Unmarshal([]byte(body), &orders))
	assert.Len(t, orders, len(demoserver.Orders))
}
