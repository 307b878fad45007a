package redeem_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/redeem"
)

var discard = slog.New(slog.DiscardHandler)

// authenticate reads the principal from the X-Principal header, standing
// in for a session cookie. Two values simulate authenticator failures.
func authenticate(r *http.Request) (string, error) {
	switch p := r.Header.Get("X-Principal"); p {
	case "!error":
		return "", errors.New("session expired")
	case "!unavailable":
		return "", fmt.Errorf("session store: %w", redeem.ErrUnavailable)
	default:
		return p, nil
	}
}

// newHandler returns a Handler with rate limits off unless set tweaks
// them.
func newHandler(t testing.TB, set func(*redeem.Options)) *redeem.Handler {
	t.Helper()
	o := &redeem.Options{PrincipalPerSecond: redeem.Unlimited, AddressPerSecond: redeem.Unlimited, Logger: discard}
	if set != nil {
		set(o)
	}
	h, err := redeem.New(authenticate, o)
	require.NoError(t, err, "redeem.New")
	return h
}

func issue(t testing.TB, h *redeem.Handler, owner, value string) *redeem.Reference {
	t.Helper()
	ref, err := h.Issue(context.Background(), owner, redeem.Secret{Value: value, Label: "API key"})
	require.NoError(t, err, "Issue")
	return ref
}

// fetch returns what a page's fetch(path, {credentials: "same-origin"})
// sends, signed in as principal.
func fetch(method, path, principal string) *http.Request {
	r := httptest.NewRequest(method, path, nil)
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.Header.Set("Sec-Fetch-Mode", "cors")
	r.Header.Set("Sec-Fetch-Dest", "empty")
	if principal != "" {
		r.Header.Set("X-Principal", principal)
	}
	return r
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// checkResponse asserts what every response carries, and that an error
// response has the body {"error": code} and a success the value.
func checkResponse(t *testing.T, w *httptest.ResponseRecorder, status int, code, value string) {
	t.Helper()
	require.Equal(t, status, w.Code, "status (body %s)", w.Body)
	for name, want := range map[string]string{
		"Cache-Control":          "no-store",
		"Content-Type":           "application/json",
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
	} {
		assert.Equal(t, []string{want}, w.Header().Values(name), "header %s", name)
	}
	assert.Empty(t, w.Header().Get("Location"), "Location header")
	var body map[string]string
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body), "body %q is not a JSON object of strings", w.Body)
	if status == http.StatusOK {
		assert.Equal(t, map[string]string{"value": value}, body, "body")
	} else {
		assert.Equal(t, map[string]string{"error": code}, body, "body")
	}
}

func unknownID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func TestStatuses(t *testing.T) {
	const value = "sk_live_abc"
	type ref = *redeem.Reference
	tests := []struct {
		name      string
		method    string
		principal string
		path      func(ref) string
		before    func(*redeem.Handler, ref)
		status    int
		code      string
		// after is the status the owner gets when redeeming afterwards:
		// 200 when the request consumed nothing.
		after int
	}{
		{"owner redeems", "GET", "alice", nil, nil, 200, "", 410},
		{"already redeemed", "GET", "alice", nil, redeemOnce, 410, "gone", 410},
		{"not signed in", "GET", "", nil, nil, 401, "unauthenticated", 200},
		{"authenticator error", "GET", "!error", nil, nil, 401, "unauthenticated", 200},
		{"authenticator unavailable", "GET", "!unavailable", nil, nil, 503, "unavailable", 200},
		{"someone else", "GET", "bob", nil, nil, 403, "forbidden", 200},
		{"someone else after redemption", "GET", "bob", nil, redeemOnce, 403, "forbidden", 410},
		{"unknown id", "GET", "alice", func(ref) string { return "/redeem/" + unknownID() }, nil, 404, "not_found", 200},
		{"malformed id", "GET", "alice", func(ref) string { return "/redeem/not-an-id" }, nil, 404, "not_found", 200},
		{"id too long", "GET", "alice", func(r ref) string { return r.RedeemURL + "A" }, nil, 404, "not_found", 200},
		{"id with padding", "GET", "alice", func(r ref) string { return r.RedeemURL + "==" }, nil, 404, "not_found", 200},
		{"no id", "GET", "alice", func(ref) string { return "/redeem/" }, nil, 404, "not_found", 200},
		{"base path without its slash", "GET", "alice", func(ref) string { return "/redeem" }, nil, 404, "not_found", 200},
		{"segment after the id", "GET", "alice", func(r ref) string { return r.RedeemURL + "/x" }, nil, 404, "not_found", 200},
		{"id in the query", "GET", "alice", func(r ref) string { return "/redeem/?id=" + r.ID }, nil, 404, "not_found", 200},
		{"HEAD", "HEAD", "alice", nil, nil, 405, "method_not_allowed", 200},
		{"POST", "POST", "alice", nil, nil, 405, "method_not_allowed", 200},
		{"PUT", "PUT", "alice", nil, nil, 405, "method_not_allowed", 200},
		{"DELETE", "DELETE", "alice", nil, nil, 405, "method_not_allowed", 200},
		{"OPTIONS", "OPTIONS", "alice", nil, nil, 405, "method_not_allowed", 200},
		{"PATCH", "PATCH", "alice", nil, nil, 405, "method_not_allowed", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHandler(t, nil)
			r := issue(t, h, "alice", value)
			if tt.before != nil {
				tt.before(h, r)
			}
			path := r.RedeemURL
			if tt.path != nil {
				path = tt.path(r)
			}
			w := serve(h, fetch(tt.method, path, tt.principal))
			if tt.method == http.MethodHead {
				// A recorder keeps the body a HEAD response must not
				// have; net/http drops it on the wire.
				require.Equal(t, tt.status, w.Code, "HEAD: status")
			} else {
				checkResponse(t, w, tt.status, tt.code, value)
			}
			if tt.status == http.StatusMethodNotAllowed {
				assert.Equal(t, "GET", w.Header().Get("Allow"), "Allow header")
			}
			after := serve(h, fetch("GET", r.RedeemURL, "alice"))
			assert.Equal(t, tt.after, after.Code, "owner's redemption afterwards: status")
		})
	}
}

func redeemOnce(h *redeem.Handler, r *redeem.Reference) {
	serve(h, fetch("GET", r.RedeemURL, "alice"))
}

func TestFetchMetadata(t *testing.T) {
	tests := []struct {
		name             string
		site, mode, dest string
		insecure         bool // InsecureAllowMissingFetchMetadata
		status           int
		code             string
	}{
		{"same-origin fetch", "same-origin", "cors", "empty", false, 200, ""},
		{"same-origin fetch, mode same-origin", "same-origin", "same-origin", "empty", false, 200, ""},
		{"same-site fetch", "same-site", "cors", "empty", false, 403, "cross_origin"},
		{"cross-site fetch", "cross-site", "cors", "empty", false, 403, "cross_origin"},
		{"cross-site no-cors fetch", "cross-site", "no-cors", "empty", false, 403, "cross_origin"},
		{"same-origin no-cors fetch", "same-origin", "no-cors", "empty", false, 403, "cross_origin"},
		{"none (typed in the address bar)", "none", "navigate", "document", false, 403, "cross_origin"},
		{"navigation to a document", "same-origin", "navigate", "document", false, 403, "cross_origin"},
		{"cross-site navigation", "cross-site", "navigate", "document", false, 403, "cross_origin"},
		{"iframe navigation", "same-origin", "navigate", "iframe", false, 403, "cross_origin"},
		{"same-origin no-cors image", "same-origin", "no-cors", "image", false, 403, "cross_origin"},
		{"cross-site no-cors image", "cross-site", "no-cors", "image", false, 403, "cross_origin"},
		{"same-origin cors image", "same-origin", "cors", "image", false, 403, "cross_origin"},
		{"same-origin script", "same-origin", "no-cors", "script", false, 403, "cross_origin"},
		{"mode missing", "same-origin", "", "empty", false, 403, "cross_origin"},
		{"dest missing", "same-origin", "cors", "", false, 403, "cross_origin"},
		{"upper case", "Same-Origin", "cors", "empty", false, 403, "cross_origin"},
		{"missing", "", "", "", false, 403, "no_fetch_metadata"},
		{"site missing, mode and dest sent", "", "cors", "empty", false, 403, "no_fetch_metadata"},
		{"missing, insecure option", "", "", "", true, 200, ""},
		{"cross-site, insecure option", "cross-site", "no-cors", "image", true, 403, "cross_origin"},
		{"same-origin, insecure option", "same-origin", "cors", "empty", true, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHandler(t, func(o *redeem.Options) { o.InsecureAllowMissingFetchMetadata = tt.insecure })
			ref := issue(t, h, "alice", "v")
			r := httptest.NewRequest("GET", ref.RedeemURL, nil)
			r.Header.Set("X-Principal", "alice")
			for name, v := range map[string]string{"Sec-Fetch-Site": tt.site, "Sec-Fetch-Mode": tt.mode, "Sec-Fetch-Dest": tt.dest} {
				if v != "" {
					r.Header.Set(name, v)
				}
			}
			w := serve(h, r)
			checkResponse(t, w, tt.status, tt.code, "v")
			if tt.status != http.StatusOK {
				after := serve(h, fetch("GET", ref.RedeemURL, "alice"))
				assert.Equal(t, http.StatusOK, after.Code, "a refused request must consume nothing")
			}
		})
	}

	// A header sent twice is there, so not missing, but no browser sends
	// it: a refusal as cross_origin, even with the insecure option.
	for _, insecure := range []bool{false, true} {
		t.Run(fmt.Sprintf("repeated header, insecure option %v", insecure), func(t *testing.T) {
			h := newHandler(t, func(o *redeem.Options) { o.InsecureAllowMissingFetchMetadata = insecure })
			ref := issue(t, h, "alice", "v")
			r := fetch("GET", ref.RedeemURL, "alice")
			r.Header.Add("Sec-Fetch-Site", "same-origin")
			checkResponse(t, serve(h, r), 403, "cross_origin", "")
		})
	}
	t.Run("no Origin header needed", func(t *testing.T) {
		h := newHandler(t, nil)
		ref := issue(t, h, "alice", "v")
		r := fetch("GET", ref.RedeemURL, "alice")
		require.Empty(t, r.Header.Get("Origin"))
		checkResponse(t, serve(h, r), 200, "", "v")
	})
}

// TestExpiry runs in a bubble (testing/synctest), whose clock the sleeps
// advance: a secret redeems until its TTL, answers gone from then until the
// retention has passed, and not found after.
func TestExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl, retention = 5 * time.Minute, time.Hour
		h := newHandler(t, func(o *redeem.Options) { o.Retention = retention })
		secret := redeem.Secret{Value: "v", TTL: ttl}
		early, err := h.Issue(context.Background(), "alice", secret)
		require.NoError(t, err, "Issue")
		late, err := h.Issue(context.Background(), "alice", secret)
		require.NoError(t, err, "Issue")

		time.Sleep(ttl - time.Second)
		checkResponse(t, serve(h, fetch("GET", early.RedeemURL, "alice")), 200, "", "v")
		time.Sleep(time.Second)
		checkResponse(t, serve(h, fetch("GET", late.RedeemURL, "alice")), 410, "gone", "")
		checkResponse(t, serve(h, fetch("GET", late.RedeemURL, "bob")), 403, "forbidden", "")
		// Each tombstone lasts for the retention from when the secret was
		// redeemed or expired: early's a second less than late's.
		time.Sleep(retention - 2*time.Second)
		checkResponse(t, serve(h, fetch("GET", early.RedeemURL, "alice")), 410, "gone", "")
		checkResponse(t, serve(h, fetch("GET", late.RedeemURL, "alice")), 410, "gone", "")
		time.Sleep(time.Second)
		checkResponse(t, serve(h, fetch("GET", early.RedeemURL, "alice")), 404, "not_found", "")
		checkResponse(t, serve(h, fetch("GET", late.RedeemURL, "alice")), 410, "gone", "")
		time.Sleep(time.Second)
		checkResponse(t, serve(h, fetch("GET", late.RedeemURL, "alice")), 404, "not_found", "")
	})
}

func TestRateLimit(t *testing.T) {
	const hour = 1.0 / 3600 // one request an hour
	retryAfter := func(t *testing.T, w *httptest.ResponseRecorder) int {
		t.Helper()
		checkResponse(t, w, 429, "rate_limited", "")
		n, err := strconv.Atoi(w.Header().Get("Retry-After"))
		require.NoError(t, err, "Retry-After %q is not an integer", w.Header().Get("Retry-After"))
		return n
	}

	t.Run("per principal, 404s count", func(t *testing.T) {
		h := newHandler(t, func(o *redeem.Options) { o.PrincipalPerSecond, o.PrincipalBurst = hour, 2 })
		ref := issue(t, h, "alice", "v")
		for range 2 {
			checkResponse(t, serve(h, fetch("GET", "/redeem/"+unknownID(), "alice")), 404, "not_found", "")
		}
		n := retryAfter(t, serve(h, fetch("GET", ref.RedeemURL, "alice")))
		assert.InDelta(t, 3600, n, 1, "Retry-After")
		// Another principal at the same address is not affected.
		checkResponse(t, serve(h, fetch("GET", ref.RedeemURL, "bob")), 403, "forbidden", "")
	})

	t.Run("a token comes back after Retry-After", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			// One a minute, well within the secret's TTL.
			h := newHandler(t, func(o *redeem.Options) { o.PrincipalPerSecond, o.PrincipalBurst = 1.0/60, 1 })
			ref := issue(t, h, "alice", "v")
			checkResponse(t, serve(h, fetch("GET", "/redeem/"+unknownID(), "alice")), 404, "not_found", "")
			n := retryAfter(t, serve(h, fetch("GET", ref.RedeemURL, "alice")))
			require.Equal(t, 60, n, "Retry-After")
			time.Sleep(time.Duration(n)*time.Second - time.Millisecond)
			retryAfter(t, serve(h, fetch("GET", ref.RedeemURL, "alice")))
			time.Sleep(time.Millisecond)
			checkResponse(t, serve(h, fetch("GET", ref.RedeemURL, "alice")), 200, "", "v")
		})
	})

	t.Run("per address, signed in or not", func(t *testing.T) {
		h := newHandler(t, func(o *redeem.Options) { o.AddressPerSecond, o.AddressBurst = hour, 2 })
		ref := issue(t, h, "alice", "v")
		from := func(addr, principal string) *http.Request {
			r := fetch("GET", ref.RedeemURL, principal)
			r.RemoteAddr = addr
			return r
		}
		checkResponse(t, serve(h, from("192.0.2.1:1000", "")), 401, "unauthenticated", "")
		checkResponse(t, serve(h, from("192.0.2.1:1001", "bob")), 403, "forbidden", "")
		retryAfter(t, serve(h, from("192.0.2.1:1002", "alice")))
		checkResponse(t, serve(h, from("192.0.2.2:1000", "alice")), 200, "", "v")
	})

	t.Run("IPv6 clients share their /64", func(t *testing.T) {
		h := newHandler(t, func(o *redeem.Options) { o.AddressPerSecond, o.AddressBurst = hour, 1 })
		r := fetch("GET", "/redeem/"+unknownID(), "alice")
		r.RemoteAddr = "[2001:db8:1:2::1]:443"
		checkResponse(t, serve(h, r), 404, "not_found", "")
		r.RemoteAddr = "[2001:db8:1:2:ffff::9]:443"
		retryAfter(t, serve(h, r))
		r.RemoteAddr = "[2001:db8:1:3::1]:443"
		checkResponse(t, serve(h, r), 404, "not_found", "")
	})

	t.Run("refused cross-site requests spend no tokens", func(t *testing.T) {
		h := newHandler(t, func(o *redeem.Options) {
			o.PrincipalPerSecond, o.PrincipalBurst = hour, 1
			o.AddressPerSecond, o.AddressBurst = hour, 1
		})
		ref := issue(t, h, "alice", "v")
		for range 5 {
			r := fetch("GET", ref.RedeemURL, "alice")
			r.Header.Set("Sec-Fetch-Site", "cross-site")
			checkResponse(t, serve(h, r), 403, "cross_origin", "")
			r.Header.Del("Sec-Fetch-Site")
			checkResponse(t, serve(h, r), 403, "no_fetch_metadata", "")
		}
		checkResponse(t, serve(h, fetch("GET", ref.RedeemURL, "alice")), 200, "", "v")
	})

	t.Run("Unlimited", func(t *testing.T) {
		h := newHandler(t, func(o *redeem.Options) {
			o.PrincipalPerSecond, o.PrincipalBurst = redeem.Unlimited, 1
			o.AddressPerSecond, o.AddressBurst = math.Inf(1), 1
		})
		for i := range 100 {
			w := serve(h, fetch("GET", "/redeem/"+unknownID(), "alice"))
			require.Equal(t, 404, w.Code, "request #%d", i)
		}
	})

	t.Run("defaults", func(t *testing.T) {
		// Zero values mean DefaultPrincipalBurst requests at once: the
		// next, in the same second, is refused and waits about a second.
		h := newHandler(t, func(o *redeem.Options) { o.PrincipalPerSecond, o.AddressPerSecond = 0, 0 })
		for i := range redeem.DefaultPrincipalBurst {
			w := serve(h, fetch("GET", "/redeem/"+unknownID(), "alice"))
			require.Equal(t, 404, w.Code, "request #%d", i)
		}
		n := retryAfter(t, serve(h, fetch("GET", "/redeem/"+unknownID(), "alice")))
		assert.Equal(t, 1, n, "Retry-After at DefaultPrincipalPerSecond")
	})

	t.Run("client address option", func(t *testing.T) {
		h := newHandler(t, func(o *redeem.Options) {
			o.AddressPerSecond, o.AddressBurst = hour, 1
			o.ClientAddress = func(r *http.Request) string { return r.Header.Get("X-Forwarded-For") }
		})
		r := fetch("GET", "/redeem/"+unknownID(), "alice")
		r.Header.Set("X-Forwarded-For", "198.51.100.7")
		checkResponse(t, serve(h, r), 404, "not_found", "")
		retryAfter(t, serve(h, r))
		r.Header.Set("X-Forwarded-For", "198.51.100.8")
		checkResponse(t, serve(h, r), 404, "not_found", "")
	})
}

// failingStore fails every call, as a store whose server is down does.
type failingStore struct{ err error }

func (s failingStore) Put(context.Context, redeem.Key, string, []byte, time.Duration, time.Duration) error {
	return s.err
}

func (s failingStore) Take(context.Context, redeem.Key, string, time.Duration) ([]byte, error) {
	return nil, s.err
}

// garbageStore accepts everything and returns bytes that aren't sealed.
type garbageStore struct{}

func (garbageStore) Put(context.Context, redeem.Key, string, []byte, time.Duration, time.Duration) error {
	return nil
}

func (garbageStore) Take(context.Context, redeem.Key, string, time.Duration) ([]byte, error) {
	return []byte("not sealed by this key, 28 bytes at least"), nil
}

func TestStoreFailure(t *testing.T) {
	key := make([]byte, redeem.KeySize)
	down := errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")
	for _, tt := range []struct {
		name  string
		store redeem.Store
	}{
		{"store down", failingStore{down}},
		{"store answers garbage", garbageStore{}},
		{"context cancelled", failingStore{context.Canceled}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHandler(t, func(o *redeem.Options) { o.Key, o.Store = key, tt.store })
			w := serve(h, fetch("GET", "/redeem/"+unknownID(), "alice"))
			checkResponse(t, w, 503, "unavailable", "")
		})
	}

	h := newHandler(t, func(o *redeem.Options) { o.Key, o.Store = key, failingStore{down} })
	_, err := h.Issue(context.Background(), "alice", redeem.Secret{Value: "v"})
	require.ErrorIs(t, err, down, "Issue with the store down")
	assert.Contains(t, err.Error(), "issuing a secret", "Issue error")
}

func TestIssue(t *testing.T) {
	ctx := context.Background()
	h := newHandler(t, nil)

	ref, err := h.Issue(ctx, "alice", redeem.Secret{Value: "v", Label: "Recovery codes"})
	require.NoError(t, err, "Issue")
	raw, err := base64.RawURLEncoding.Strict().DecodeString(ref.ID)
	require.NoError(t, err, "id %q is not base64url", ref.ID)
	assert.Len(t, raw, 16, "id bytes")
	got, err := json.Marshal(ref)
	require.NoError(t, err)
	assert.JSONEq(t, fmt.Sprintf(`{"type":"secret_reference","id":%q,"label":"Recovery codes","redeemUrl":"/redeem/%s","ttl":300}`, ref.ID, ref.ID), string(got), "reference JSON")

	seen := map[string]bool{}
	for range 1000 {
		r := issue(t, h, "alice", "v")
		require.False(t, seen[r.ID], "id %s issued twice", r.ID)
		seen[r.ID] = true
	}

	for _, tt := range []struct {
		name string
		opts func(*redeem.Options)
		ttl  time.Duration
		want int64
	}{
		{"default", nil, 0, 300},
		{"own ttl", nil, 90 * time.Second, 90},
		{"rounded up", nil, 1500 * time.Millisecond, 2},
		{"sub-second", nil, time.Millisecond, 1},
		{"clamped to the default max", nil, 2 * time.Hour, 3600},
		{"clamped to MaxTTL", func(o *redeem.Options) { o.MaxTTL = time.Minute }, 2 * time.Minute, 60},
		{"default clamped to MaxTTL", func(o *redeem.Options) { o.MaxTTL = time.Minute }, 0, 60},
		{"Options.TTL", func(o *redeem.Options) { o.TTL = 10 * time.Second }, 0, 10},
	} {
		t.Run("ttl "+tt.name, func(t *testing.T) {
			ref, err := newHandler(t, tt.opts).Issue(ctx, "alice", redeem.Secret{Value: "v", TTL: tt.ttl})
			require.NoError(t, err, "Issue")
			assert.Equal(t, tt.want, ref.TTL, "Issue with TTL %v: ttl", tt.ttl)
		})
	}

	t.Run("base path", func(t *testing.T) {
		for _, base := range []string{"/api/secrets", "/api/secrets/"} {
			h := newHandler(t, func(o *redeem.Options) { o.BasePath = base })
			ref := issue(t, h, "alice", "v")
			assert.Equal(t, "/api/secrets/"+ref.ID, ref.RedeemURL, "redeemUrl with BasePath %q", base)
		}
	})

	for _, tt := range []struct {
		name, owner string
		s           redeem.Secret
		want        string
	}{
		{"no owner", "", redeem.Secret{Value: "v"}, "owner is empty"},
		{"negative ttl", "alice", redeem.Secret{Value: "v", TTL: -time.Second}, "negative ttl"},
		{"value too large", "alice", redeem.Secret{Value: strings.Repeat("x", redeem.DefaultMaxValueBytes+1)}, "more than the 16384 allowed"},
	} {
		t.Run("error "+tt.name, func(t *testing.T) {
			_, err := h.Issue(ctx, tt.owner, tt.s)
			require.Error(t, err, "Issue")
			assert.Contains(t, err.Error(), tt.want, "Issue error")
		})
	}
	t.Run("store full", func(t *testing.T) {
		h := newHandler(t, func(o *redeem.Options) {
			o.Store = redeem.NewMemoryStore(&redeem.MemoryStoreOptions{MaxBytes: 1000})
			o.Key = make([]byte, redeem.KeySize)
		})
		var err error
		for range 10 {
			if _, err = h.Issue(ctx, "alice", redeem.Secret{Value: strings.Repeat("x", 300)}); err != nil {
				break
			}
		}
		assert.ErrorIs(t, err, redeem.ErrStoreFull, "Issue into a full store")
	})
}

func TestNew(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts redeem.Options
		want string
	}{
		{"short key", redeem.Options{Key: make([]byte, 16)}, "Options.Key is 16 bytes long, want 32"},
		{"empty key", redeem.Options{Key: []byte{}}, "Options.Key is 0 bytes long, want 32"},
		{"store without key", redeem.Options{Store: redeem.NewMemoryStore(nil)}, "Options.Key is required when Options.Store is set"},
		{"relative base path", redeem.Options{BasePath: "redeem/"}, `Options.BasePath "redeem/" must start with "/"`},
		{"base path with a wildcard", redeem.Options{BasePath: "/redeem/{id}"}, `Options.BasePath "/redeem/{id}/" holds characters a URL path must escape (it would be "/redeem/%7Bid%7D/")`},
		{"base path with a query", redeem.Options{BasePath: "/redeem?x=1"}, `Options.BasePath "/redeem?x=1/" holds characters a URL path must escape`},
		{"base path with a space", redeem.Options{BasePath: "/my secrets/"}, `Options.BasePath "/my secrets/" holds characters a URL path must escape`},
		{"base path escaped", redeem.Options{BasePath: "/my%20secrets/"}, `Options.BasePath "/my%20secrets/" holds characters a URL path must escape`},
		{"base path with an empty segment", redeem.Options{BasePath: "/api//redeem/"}, `Options.BasePath "/api//redeem/" is not a clean path (want "/api/redeem/")`},
		{"base path with ..", redeem.Options{BasePath: "/api/../redeem"}, `Options.BasePath "/api/../redeem/" is not a clean path (want "/redeem/")`},
		{"base path with .", redeem.Options{BasePath: "/./redeem/"}, `Options.BasePath "/./redeem/" is not a clean path (want "/redeem/")`},
		{"stripped prefix elsewhere", redeem.Options{BasePath: "/api/redeem/", StrippedPrefix: "/app"}, `Options.StrippedPrefix "/app" is not one or more whole leading segments of Options.BasePath "/api/redeem/"`},
		{"stripped prefix mid-segment", redeem.Options{BasePath: "/api/redeem/", StrippedPrefix: "/ap"}, `Options.StrippedPrefix "/ap" is not one or more whole leading segments`},
		{"stripped prefix relative", redeem.Options{BasePath: "/api/redeem/", StrippedPrefix: "api"}, `Options.StrippedPrefix "api" is not one or more whole leading segments`},
		{"stripped prefix /", redeem.Options{BasePath: "/api/redeem/", StrippedPrefix: "/"}, `Options.StrippedPrefix "/" is not one or more whole leading segments`},
		{"stripped prefix with the default base path", redeem.Options{StrippedPrefix: "/api"}, `Options.StrippedPrefix "/api" is not one or more whole leading segments of Options.BasePath "/redeem/"`},
		{"negative ttl", redeem.Options{TTL: -1}, "Options.TTL is negative"},
		{"negative max ttl", redeem.Options{MaxTTL: -1}, "Options.MaxTTL is negative"},
		{"negative retention", redeem.Options{Retention: -1}, "Options.Retention is negative"},
		{"negative max value", redeem.Options{MaxValueBytes: -1}, "Options.MaxValueBytes is negative"},
		{"negative principal rate", redeem.Options{PrincipalPerSecond: -1}, "Options.PrincipalPerSecond is -1: want a positive rate, 0 for the default or redeem.Unlimited"},
		{"negative address rate", redeem.Options{AddressPerSecond: math.Inf(-1)}, "Options.AddressPerSecond is -Inf"},
		{"NaN rate", redeem.Options{AddressPerSecond: math.NaN()}, "Options.AddressPerSecond is NaN"},
		{"negative principal burst", redeem.Options{PrincipalBurst: -1}, "Options.PrincipalBurst is negative (-1)"},
		{"negative address burst", redeem.Options{AddressBurst: -2}, "Options.AddressBurst is negative (-2)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := redeem.New(authenticate, &tt.opts)
			require.Error(t, err, "New")
			assert.Contains(t, err.Error(), tt.want, "New error")
		})
	}
	t.Run("nil authenticator", func(t *testing.T) {
		assert.PanicsWithValue(t,
			"redeem: New needs an Authenticator: the owner check is what makes a secret reference safe to hand out",
			func() { redeem.New(nil, nil) })
	})
	t.Run("nil options", func(t *testing.T) {
		h, err := redeem.New(authenticate, nil)
		require.NoError(t, err, "New with nil options")
		ref, err := h.Issue(context.Background(), "alice", redeem.Secret{Value: "v"})
		require.NoError(t, err, "Issue")
		assert.Equal(t, int64(300), ref.TTL)
	})
}

// TestMounting mounts the Handler the ways the package documentation shows
// and redeems through each.
func TestMounting(t *testing.T) {
	pattern := func(method string) func(h *redeem.Handler) http.Handler {
		return func(h *redeem.Handler) http.Handler { return mux(method + h.Pattern())(h) }
	}
	// stripAPI is a reverse proxy in front of the server that strips
	// /api from the path.
	stripAPI := func(p string) string { return strings.TrimPrefix(p, "/api") }
	tests := []struct {
		name, base, stripped string
		mount                func(h *redeem.Handler) http.Handler
		proxy                func(string) string // nil: the server gets the redeemUrl as it is
	}{
		{"Pattern", "", "", pattern(""), nil},
		{"Pattern with GET", "", "", pattern("GET "), nil},
		{"Pattern of another base path", "/api/v1/secrets", "", pattern(""), nil},
		{"Pattern of the root", "/", "", pattern(""), nil},
		{"ServeMux GET pattern", "/redeem/", "", mux("GET /redeem/{id}"), nil},
		{"ServeMux subtree", "/redeem/", "", mux("/redeem/"), nil},
		{"wildcard with another name", "/s/", "", mux("GET /s/{secret}"), nil},
		{"StripPrefix", "/api/v1/redeem/", "", func(h *redeem.Handler) http.Handler {
			return http.StripPrefix("/api/v1", h)
		}, nil},
		{"StripPrefix to a mux", "/api/v1/redeem/", "", func(h *redeem.Handler) http.Handler {
			return http.StripPrefix("/api/v1", mux("/redeem/{id}")(h))
		}, nil},
		{"another router", "/secrets/", "", func(h *redeem.Handler) http.Handler {
			// A router that knows nothing of ServeMux patterns, as
			// third-party ones don't, and sets no path value.
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/secrets/") {
					h.ServeHTTP(w, r)
					return
				}
				http.NotFound(w, r)
			})
		}, nil},
		{"proxy strips a prefix", "/api/redeem/", "/api", pattern(""), stripAPI},
		{"proxy strips a prefix, written with a slash", "/api/redeem", "/api/", mux("/redeem/{id}"), stripAPI},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHandler(t, func(o *redeem.Options) { o.BasePath, o.StrippedPrefix = tt.base, tt.stripped })
			ref := issue(t, h, "alice", "v")
			require.True(t, strings.HasPrefix(ref.RedeemURL, h.BasePath()), "redeemUrl %s under BasePath %s", ref.RedeemURL, h.BasePath())
			require.Equal(t, h.BasePath()+ref.ID, ref.RedeemURL, "redeemUrl")
			path := ref.RedeemURL
			if tt.proxy != nil {
				path = tt.proxy(path)
			}
			srv := tt.mount(h)
			checkResponse(t, serve(srv, fetch("HEAD", path, "alice")), 405, "method_not_allowed", "")
			checkResponse(t, serve(srv, fetch("GET", path, "alice")), 200, "", "v")
			checkResponse(t, serve(srv, fetch("GET", path, "alice")), 410, "gone", "")
		})
	}
}

// mux mounts a Handler on a ServeMux with pattern.
func mux(pattern string) func(h *redeem.Handler) http.Handler {
	return func(h *redeem.Handler) http.Handler {
		m := http.NewServeMux()
		m.Handle(pattern, h)
		return m
	}
}

func TestBasePathAndPattern(t *testing.T) {
	for _, tt := range []struct{ base, stripped, wantBase, wantPattern string }{
		{"", "", "/redeem/", "/redeem/{id}"},
		{"/redeem", "", "/redeem/", "/redeem/{id}"},
		{"/api/v1/secrets/", "", "/api/v1/secrets/", "/api/v1/secrets/{id}"},
		{"/", "", "/", "/{id}"},
		{"/api/redeem/", "/api", "/api/redeem/", "/redeem/{id}"},
		{"/api/redeem", "/api/", "/api/redeem/", "/redeem/{id}"},
		{"/a/b/redeem/", "/a/b", "/a/b/redeem/", "/redeem/{id}"},
		{"/api/redeem/", "/api/redeem", "/api/redeem/", "/{id}"},
	} {
		h := newHandler(t, func(o *redeem.Options) { o.BasePath, o.StrippedPrefix = tt.base, tt.stripped })
		assert.Equal(t, tt.wantBase, h.BasePath(), "BasePath() of BasePath %q, StrippedPrefix %q", tt.base, tt.stripped)
		assert.Equal(t, tt.wantPattern, h.Pattern(), "Pattern() of BasePath %q, StrippedPrefix %q", tt.base, tt.stripped)
	}
}

// TestMisrouted mounts the Handler where it issues no redeemUrl: every
// request it gets there is answered with 500 and a body naming its base
// path, and consumes nothing.
func TestMisrouted(t *testing.T) {
	stripAPI := func(h *redeem.Handler) http.Handler {
		m := http.NewServeMux()
		m.Handle("/api/", http.StripPrefix("/api", h))
		return m
	}
	tests := []struct {
		name, base, stripped string
		mount                func(h *redeem.Handler) http.Handler
		path                 func(id string) string
		body                 string
	}{
		{"mounted elsewhere than the default", "", "", mux("/secrets/{id}"),
			func(id string) string { return "/secrets/" + id }, `{"error":"misrouted","basePath":"/redeem/"}`},
		{"mounted under a prefix BasePath lacks", "", "", mux("/api/redeem/{id}"),
			func(id string) string { return "/api/redeem/" + id }, `{"error":"misrouted","basePath":"/redeem/"}`},
		{"BasePath longer than the mount", "/api/redeem/", "", mux("/redeem/{id}"),
			func(id string) string { return "/redeem/" + id }, `{"error":"misrouted","basePath":"/api/redeem/"}`},
		{"StrippedPrefix that nothing strips", "/api/redeem/", "/api", mux("/api/redeem/{id}"),
			func(id string) string { return "/api/redeem/" + id }, `{"error":"misrouted","basePath":"/api/redeem/","strippedPrefix":"/api"}`},
		{"a segment that starts like BasePath", "", "", mux("/"),
			func(id string) string { return "/redeemer/" + id }, `{"error":"misrouted","basePath":"/redeem/"}`},
		{"the whole site", "", "", mux("/"),
			func(string) string { return "/" }, `{"error":"misrouted","basePath":"/redeem/"}`},
		{"StripPrefix that BasePath does not know of", "", "", stripAPI,
			func(id string) string { return "/api/redeem/" + id }, `{"error":"misrouted","basePath":"/redeem/"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			h := newHandler(t, func(o *redeem.Options) {
				o.BasePath, o.StrippedPrefix = tt.base, tt.stripped
				o.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
			})
			ref := issue(t, h, "alice", "v")
			m := tt.mount(h)
			path := tt.path(ref.ID)
			for _, r := range []*http.Request{
				fetch("GET", path, "alice"),
				httptest.NewRequest("GET", path, nil), // not signed in, no Fetch Metadata
			} {
				w := serve(m, r)
				require.Equal(t, 500, w.Code, "GET %s: status (body %s)", path, w.Body)
				assert.JSONEq(t, tt.body, w.Body.String(), "GET %s: body", path)
				assert.Equal(t, "no-store", w.Header().Get("Cache-Control"), "Cache-Control")
				assert.Equal(t, "application/json", w.Header().Get("Content-Type"), "Content-Type")
			}
			// Methods are checked first.
			checkResponse(t, serve(m, fetch("POST", path, "alice")), 405, "method_not_allowed", "")

			// Nothing was consumed: the redeemUrl itself, served to the
			// Handler as the server would get it, still redeems.
			redeemURL := ref.RedeemURL
			if tt.stripped != "" {
				redeemURL = strings.TrimPrefix(redeemURL, tt.stripped)
			}
			checkResponse(t, serve(h, fetch("GET", redeemURL, "alice")), 200, "", "v")

			assert.Contains(t, logs.String(), `"level":"ERROR"`, "logs")
			assert.Contains(t, logs.String(), `"basePath":"`+h.BasePath()+`"`, "logs")
			assert.NotContains(t, logs.String(), ref.ID, "logs")
		})
	}
}

// TestOverHTTP redeems through a real server and client, which must see no
// redirect.
func TestOverHTTP(t *testing.T) {
	h := newHandler(t, nil)
	mux := http.NewServeMux()
	mux.Handle("GET /redeem/{id}", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error {
		return errors.New("redirected")
	}

	ref := issue(t, h, "alice", "over the wire")
	get := func(site string) (int, string, http.Header) {
		req, err := http.NewRequest("GET", srv.URL+ref.RedeemURL, nil)
		require.NoError(t, err)
		req.Header.Set("Sec-Fetch-Site", site)
		req.Header.Set("Sec-Fetch-Mode", "cors")
		req.Header.Set("Sec-Fetch-Dest", "empty")
		req.Header.Set("X-Principal", "alice")
		resp, err := client.Do(req)
		require.NoError(t, err, "GET %s", ref.RedeemURL)
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String(), resp.Header
	}
	status, body, _ := get("cross-site")
	assert.Equal(t, 403, status, "cross-site GET: status (body %s)", body)
	status, body, hdr := get("same-origin")
	assert.Equal(t, 200, status, "GET: status")
	assert.JSONEq(t, `{"value":"over the wire"}`, body, "GET: body")
	assert.Equal(t, "no-store", hdr.Get("Cache-Control"), "GET: Cache-Control")
	status, _, _ = get("same-origin")
	assert.Equal(t, 410, status, "second GET: status")
}

// TestStripPrefixOverHTTP serves the Handler behind http.StripPrefix
// through a real server, whose requests carry the RequestURI the client
// sent: with the whole path as BasePath it redeems, without it the answer
// is misrouted.
func TestStripPrefixOverHTTP(t *testing.T) {
	for _, tt := range []struct {
		base   string
		status int
		body   string
	}{
		{"/api/redeem/", 200, `{"value":"v"}`},
		{"/redeem/", 500, `{"error":"misrouted","basePath":"/redeem/"}`},
	} {
		h := newHandler(t, func(o *redeem.Options) { o.BasePath = tt.base })
		mux := http.NewServeMux()
		mux.Handle("/api/", http.StripPrefix("/api", h))
		srv := httptest.NewServer(mux)
		ref := issue(t, h, "alice", "v")
		req, err := http.NewRequest("GET", srv.URL+"/api/redeem/"+ref.ID, nil)
		require.NoError(t, err)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("Sec-Fetch-Mode", "cors")
		req.Header.Set("Sec-Fetch-Dest", "empty")
		req.Header.Set("X-Principal", "alice")
		resp, err := srv.Client().Do(req)
		require.NoError(t, err, "GET")
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		resp.Body.Close()
		srv.Close()
		assert.Equal(t, tt.status, resp.StatusCode, "BasePath %s: status", tt.base)
		assert.JSONEq(t, tt.body, b.String(), "BasePath %s: body", tt.base)
	}
}

// TestLogging checks that every answered request logs a line at info
// level or above, refusals (404, 410) included, and that log lines name
// secrets by keyed hash only.
func TestLogging(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	h := newHandler(t, func(o *redeem.Options) { o.Logger = logger })
	const value = "sk_live_never_logged"

	ref := issue(t, h, "alice", value)
	other := issue(t, h, "alice", value)
	serve(h, fetch("GET", ref.RedeemURL, "bob"))
	serve(h, fetch("GET", ref.RedeemURL, "alice"))
	serve(h, fetch("GET", ref.RedeemURL, "alice"))
	serve(h, fetch("GET", "/redeem/"+unknownID(), "alice"))
	r := fetch("GET", other.RedeemURL, "alice")
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	serve(h, r)
	serve(h, fetch("GET", "/elsewhere/"+other.ID, "alice"))

	logs := buf.String()
	require.NotEmpty(t, logs)
	for _, secret := range []string{value, ref.ID, other.ID, "alice", "bob"} {
		assert.NotContains(t, logs, secret, "logs")
	}
	keys := map[string]int{}
	statuses := map[int]int{}
	for line := range strings.Lines(logs) {
		var rec struct {
			Msg, Key, Level string
			Status          int
		}
		require.NoError(t, json.Unmarshal([]byte(line), &rec), "log line %s", line)
		if rec.Key != "" {
			assert.Len(t, rec.Key, 43, "key in log line %s", line)
			keys[rec.Key]++
		}
		if rec.Msg == "redeem: refused" {
			statuses[rec.Status]++
			if rec.Status == http.StatusNotFound || rec.Status == http.StatusGone {
				assert.Equal(t, "INFO", rec.Level, "the level of %s", line)
			}
		}
	}
	// One line per refused request: 403 twice (bob's, the cross-site
	// one), 410 and 404; the misrouted path has its own error line.
	assert.Equal(t, map[int]int{http.StatusForbidden: 2, http.StatusGone: 1, http.StatusNotFound: 1}, statuses, "refusals logged, by status")
	assert.Contains(t, logs, "redeem: misrouted")
	// ref: issued, 403, 200, 410; other: issued; the unknown id: 404.
	assert.Len(t, keys, 3, "distinct keys in the logs")
	assert.Contains(t, keys, keyOf(t, logs, "redeem: secret redeemed"))
}

func keyOf(t *testing.T, logs, msg string) string {
	for line := range strings.Lines(logs) {
		var rec struct{ Msg, Key string }
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		if rec.Msg == msg {
			return rec.Key
		}
	}
	t.Fatalf("no log line %q in %s", msg, logs)
	return ""
}
