package redisstore_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/redeem"
	"github.com/veilmcp/veil/redeem/redisstore"
	"github.com/veilmcp/veil/redeem/storetest"
)

var prefixes atomic.Int64

// freshPrefix isolates a test's keys on the shared server.
func freshPrefix() string {
	return "test" + base64.RawURLEncoding.EncodeToString([]byte{byte(prefixes.Add(1))}) + time.Now().Format("150405.000000") + ":"
}

func TestConformance(t *testing.T) {
	c := sharedServer(t)
	storetest.Run(t, func(t *testing.T) redeem.Store {
		return redisstore.New(c, &redisstore.Options{Prefix: freshPrefix()})
	})
}

var (
	discard = slog.New(slog.DiscardHandler)
	testKey = make([]byte, redeem.KeySize)
)

func newHandler(t testing.TB, store redeem.Store, set func(*redeem.Options)) *redeem.Handler {
	t.Helper()
	o := &redeem.Options{
		Key:                testKey,
		Store:              store,
		PrincipalPerSecond: redeem.Unlimited,
		AddressPerSecond:   redeem.Unlimited,
		Logger:             discard,
	}
	if set != nil {
		set(o)
	}
	h, err := redeem.New(func(r *http.Request) (string, error) {
		return r.Header.Get("X-Principal"), nil
	}, o)
	require.NoError(t, err, "redeem.New")
	return h
}

func redeemAs(h http.Handler, path, principal string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.Header.Set("Sec-Fetch-Mode", "cors")
	r.Header.Set("Sec-Fetch-Dest", "empty")
	r.Header.Set("X-Principal", principal)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func issue(t testing.TB, h *redeem.Handler, s redeem.Secret) *redeem.Reference {
	t.Helper()
	ref, err := h.Issue(context.Background(), "alice", s)
	require.NoError(t, err, "Issue")
	return ref
}

func keysUnder(t *testing.T, c *redis.Client, prefix string) []string {
	t.Helper()
	keys, err := c.Keys(context.Background(), prefix+"*").Result()
	require.NoError(t, err, "KEYS")
	return keys
}

// TestKeys checks the key layout: the prefix, one hash tag shared by a
// secret's keys, and nothing in Redis that names the id, the value or the
// owner.
func TestKeys(t *testing.T) {
	c := sharedServer(t)
	prefix := freshPrefix()
	h := newHandler(t, redisstore.New(c, &redisstore.Options{Prefix: prefix}), nil)
	const value = "sk_live_in_redis"
	ref := issue(t, h, redeem.Secret{Value: value})

	keys := keysUnder(t, c, prefix)
	require.Len(t, keys, 2, "keys of one secret")
	tag := func(k string) string { return k[strings.IndexByte(k, '{') : strings.IndexByte(k, '}')+1] }
	assert.Equal(t, tag(keys[0]), tag(keys[1]), "hash tags of %v", keys)
	assert.Len(t, tag(keys[0]), 45, "hash tag: braces around a base64url SHA-256")

	ctx := context.Background()
	var dump strings.Builder
	for _, k := range keys {
		dump.WriteString(k)
		switch typ := c.Type(ctx, k).Val(); typ {
		case "hash":
			for f, v := range c.HGetAll(ctx, k).Val() {
				dump.WriteString(f + v)
			}
		case "string":
			dump.WriteString(c.Get(ctx, k).Val())
		default:
			t.Fatalf("key %s has type %s", k, typ)
		}
	}
	for _, secret := range []string{value, ref.ID, "alice"} {
		assert.NotContains(t, dump.String(), secret, "Redis contents")
	}

	require.Equal(t, http.StatusOK, redeemAs(h, ref.RedeemURL, "alice").Code, "redeem")
	keys = keysUnder(t, c, prefix)
	require.Len(t, keys, 1, "keys after redemption: the tombstone only")
	assert.True(t, strings.HasSuffix(keys[0], ":t"), "remaining key %s", keys[0])

	assert.Equal(t, redisstore.DefaultPrefix, "veil:redeem:")
	assert.PanicsWithValue(t, `redisstore: prefix "app{1}:" holds a brace, which would change the keys' hash tag`,
		func() { redisstore.New(c, &redisstore.Options{Prefix: "app{1}:"}) })
	assert.Panics(t, func() { redisstore.New(nil, nil) }, "New(nil, nil)")
}

// TestRealExpiry lets Redis expire a secret and then its tombstone.
func TestRealExpiry(t *testing.T) {
	t.Parallel()
	c := sharedServer(t)
	prefix := freshPrefix()
	h := newHandler(t, redisstore.New(c, &redisstore.Options{Prefix: prefix}),
		func(o *redeem.Options) { o.Retention = 700 * time.Millisecond })
	ref := issue(t, h, redeem.Secret{Value: "v", TTL: 300 * time.Millisecond})
	ctx := context.Background()

	var valueKey string
	for _, k := range keysUnder(t, c, prefix) {
		if strings.HasSuffix(k, ":s") {
			valueKey = k
		}
	}
	require.NotEmpty(t, valueKey, "the value's key")
	pttl := c.PTTL(ctx, valueKey).Val()
	assert.True(t, pttl > 0 && pttl <= 300*time.Millisecond, "PTTL of the value: %v", pttl)

	require.Eventually(t, func() bool { return c.Exists(ctx, valueKey).Val() == 0 },
		2*time.Second, 10*time.Millisecond, "Redis should drop the value at its ttl")
	assert.Equal(t, http.StatusGone, redeemAs(h, ref.RedeemURL, "alice").Code, "redeem after the ttl")
	require.Eventually(t, func() bool { return len(keysUnder(t, c, prefix)) == 0 },
		3*time.Second, 10*time.Millisecond, "Redis should drop the tombstone after the retention")
	assert.Equal(t, http.StatusNotFound, redeemAs(h, ref.RedeemURL, "alice").Code, "redeem after the retention")
}

// TestServerStopped stops Redis under a running handler: every redemption
// and every Issue fails closed, without a panic.
func TestServerStopped(t *testing.T) {
	t.Parallel()
	srv, c := needServer(t)
	h := newHandler(t, redisstore.New(c, nil), nil)
	redeemed := issue(t, h, redeem.Secret{Value: "one"})
	pending := issue(t, h, redeem.Secret{Value: "two"})
	require.Equal(t, http.StatusOK, redeemAs(h, redeemed.RedeemURL, "alice").Code, "redeem before the stop")

	require.NoError(t, srv.stop(false), "stopping redis-server")
	for _, ref := range []*redeem.Reference{redeemed, pending} {
		w := redeemAs(h, ref.RedeemURL, "alice")
		assert.Equal(t, http.StatusServiceUnavailable, w.Code, "redeem with Redis stopped: status")
		assert.JSONEq(t, `{"error":"unavailable"}`, w.Body.String(), "redeem with Redis stopped: body")
	}
	w := redeemAs(h, "/redeem/"+randomID(), "alice")
	assert.Equal(t, http.StatusServiceUnavailable, w.Code, "unknown id with Redis stopped: a store failure is never a 404")
	_, err := h.Issue(context.Background(), "alice", redeem.Secret{Value: "three"})
	assert.ErrorContains(t, err, "redisstore: storing a secret", "Issue with Redis stopped")
}

func randomID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// TestRestartWithPersistence restarts Redis configured as the package doc
// says: pending secrets stay redeemable, spent ones stay spent, whether
// Redis shut down cleanly or was killed.
func TestRestartWithPersistence(t *testing.T) {
	for _, crash := range []bool{false, true} {
		name := "shutdown"
		if crash {
			name = "crash"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, c := needServer(t, "--appendonly", "yes", "--appendfsync", "always")
			h := newHandler(t, redisstore.New(c, nil), nil)
			spent := issue(t, h, redeem.Secret{Value: "spent"})
			pending := issue(t, h, redeem.Secret{Value: "pending"})
			require.Equal(t, http.StatusOK, redeemAs(h, spent.RedeemURL, "alice").Code, "redeem before the restart")

			require.NoError(t, srv.stop(crash), "stopping redis-server")
			require.NoError(t, srv.start(), "restarting redis-server")

			// The restarted server may take a moment to load the AOF; the
			// handler answers 503 until it has.
			var w *httptest.ResponseRecorder
			require.Eventually(t, func() bool {
				w = redeemAs(h, spent.RedeemURL, "alice")
				return w.Code != http.StatusServiceUnavailable
			}, 5*time.Second, 20*time.Millisecond, "Redis should answer after the restart")
			assert.Equal(t, http.StatusGone, w.Code, "spent secret after the restart")
			w = redeemAs(h, pending.RedeemURL, "bob")
			assert.Equal(t, http.StatusForbidden, w.Code, "pending secret, someone else, after the restart")
			w = redeemAs(h, pending.RedeemURL, "alice")
			assert.Equal(t, http.StatusOK, w.Code, "pending secret after the restart")
			assert.JSONEq(t, `{"value":"pending"}`, w.Body.String())
		})
	}
}
