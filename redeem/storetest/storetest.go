// Package storetest is the conformance suite for implementations of
// [redeem.Store]. Every store the redeem package ships passes it, and so
// must any other:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) redeem.Store { return newMyStore(t) })
//	}
package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/redeem"
)

// Rounds and Concurrency size the single-winner test: Concurrency
// simultaneous redemptions of one id, repeated Rounds times.
const (
	Rounds      = 100
	Concurrency = 64
)

// Run runs the suite. newStore is called once per subtest and must return
// a store that holds nothing yet (for a shared server, a fresh key prefix
// is enough). Subtests run in parallel and some wait for real time to
// pass, around a second and a half in all.
func Run(t *testing.T, newStore func(t *testing.T) redeem.Store) {
	t.Helper()
	run(t, func(t *testing.T, fn func(*testing.T, redeem.Store)) { fn(t, newStore(t)) })
}

// RunVirtualTime runs the suite as Run does, each subtest in a bubble of
// its own (testing/synctest), where the waits for a TTL or a retention
// take no real time. It suits a store that keeps time with package time in
// this process, as [redeem.MemoryStore] does, not one whose clock is a
// server's. newStore is called inside the bubble, so the store's clock and
// timers are the bubble's.
func RunVirtualTime(t *testing.T, newStore func(t *testing.T) redeem.Store) {
	t.Helper()
	run(t, func(t *testing.T, fn func(*testing.T, redeem.Store)) {
		synctest.Test(t, func(t *testing.T) { fn(t, newStore(t)) })
	})
}

func run(t *testing.T, each func(*testing.T, func(*testing.T, redeem.Store))) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(*testing.T, redeem.Store)
	}{
		{"take returns what put stored", testRoundTrip},
		{"unknown key is not found", testUnknown},
		{"other owner consumes nothing", testOtherOwner},
		{"second take is gone", testSecondTake},
		{"keys are independent", testIndependentKeys},
		{"expired secret is gone, then not found", testExpiry},
		{"tombstone of a taken secret lasts for the retention", testTombstoneRetention},
		{"concurrent takes have one winner", testConcurrentTakes},
		{"handler redeems once", testHandler},
		{"handler: concurrent redemptions have one winner", testHandlerConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			each(t, tt.fn)
		})
	}
}

const (
	alice = "owner-tag-alice"
	bob   = "owner-tag-bob"
	long  = time.Hour
)

func key(t *testing.T) redeem.Key {
	t.Helper()
	var k redeem.Key
	rand.Read(k[:])
	return k
}

func put(t *testing.T, s redeem.Store, k redeem.Key, owner string, sealed []byte, ttl, retention time.Duration) {
	t.Helper()
	require.NoError(t, s.Put(context.Background(), k, owner, sealed, ttl, retention), "Put")
}

func take(s redeem.Store, k redeem.Key, owner string, retention time.Duration) ([]byte, error) {
	return s.Take(context.Background(), k, owner, retention)
}

func testRoundTrip(t *testing.T, s redeem.Store) {
	for _, size := range []int{28, 1000, redeem.DefaultMaxValueBytes + 28} {
		want := make([]byte, size)
		rand.Read(want)
		want[0], want[size-1] = 0, 0 // binary-safe, NULs included
		k := key(t)
		put(t, s, k, alice, bytes.Clone(want), long, long)
		got, err := take(s, k, alice, long)
		require.NoError(t, err, "Take of a %d-byte value", size)
		assert.Equal(t, want, got, "Take of a %d-byte value", size)
	}
}

func testUnknown(t *testing.T, s redeem.Store) {
	_, err := take(s, key(t), alice, long)
	assert.ErrorIs(t, err, redeem.ErrNotFound, "Take of a key never put")
}

func testOtherOwner(t *testing.T, s redeem.Store) {
	k := key(t)
	put(t, s, k, alice, []byte("sealed"), long, long)
	_, err := take(s, k, bob, long)
	require.ErrorIs(t, err, redeem.ErrNotOwner, "Take by another owner")
	got, err := take(s, k, alice, long)
	require.NoError(t, err, "Take by the owner after another owner tried")
	assert.Equal(t, []byte("sealed"), got)
}

func testSecondTake(t *testing.T, s redeem.Store) {
	k := key(t)
	put(t, s, k, alice, []byte("sealed"), long, long)
	_, err := take(s, k, alice, long)
	require.NoError(t, err, "first Take")
	_, err = take(s, k, alice, long)
	assert.ErrorIs(t, err, redeem.ErrGone, "second Take by the owner")
	_, err = take(s, k, bob, long)
	assert.ErrorIs(t, err, redeem.ErrNotOwner, "Take of a tombstone by another owner")
}

func testIndependentKeys(t *testing.T, s redeem.Store) {
	k1, k2 := key(t), key(t)
	put(t, s, k1, alice, []byte("one"), long, long)
	put(t, s, k2, alice, []byte("two"), long, long)
	got, err := take(s, k2, alice, long)
	require.NoError(t, err, "Take k2")
	assert.Equal(t, []byte("two"), got)
	got, err = take(s, k1, alice, long)
	require.NoError(t, err, "Take k1 after k2 was taken")
	assert.Equal(t, []byte("one"), got)
}

func testExpiry(t *testing.T, s redeem.Store) {
	const ttl, retention = 50 * time.Millisecond, time.Second
	k := key(t)
	start := time.Now()
	put(t, s, k, alice, []byte("sealed"), ttl, retention)
	time.Sleep(ttl + 100*time.Millisecond)
	_, err := take(s, k, alice, long)
	require.ErrorIs(t, err, redeem.ErrGone, "Take after the ttl")
	_, err = take(s, k, bob, long)
	require.ErrorIs(t, err, redeem.ErrNotOwner, "Take after the ttl by another owner")
	time.Sleep(time.Until(start.Add(ttl + retention + 200*time.Millisecond)))
	_, err = take(s, k, alice, long)
	assert.ErrorIs(t, err, redeem.ErrNotFound, "Take after ttl and retention")
}

func testTombstoneRetention(t *testing.T, s redeem.Store) {
	const retention = 500 * time.Millisecond
	k := key(t)
	put(t, s, k, alice, []byte("sealed"), long, long)
	_, err := take(s, k, alice, retention)
	require.NoError(t, err, "first Take")
	_, err = take(s, k, alice, retention)
	require.ErrorIs(t, err, redeem.ErrGone, "Take right after")
	time.Sleep(retention + 200*time.Millisecond)
	_, err = take(s, k, alice, retention)
	assert.ErrorIs(t, err, redeem.ErrNotFound, "Take after the retention")
}

// race runs fn Concurrency times at once and returns how many returned
// true.
func race(fn func() bool) int {
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		mu    sync.Mutex
		wins  int
	)
	for range Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if fn() {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		}()
	}
	close(start)
	wg.Wait()
	return wins
}

func testConcurrentTakes(t *testing.T, s redeem.Store) {
	for round := range Rounds {
		k := key(t)
		put(t, s, k, alice, []byte("sealed"), long, long)
		wins := race(func() bool {
			_, err := take(s, k, alice, long)
			if err != nil && !errors.Is(err, redeem.ErrGone) {
				t.Errorf("round %d: Take: got %v, want nil or ErrGone", round, err)
			}
			return err == nil
		})
		require.Equal(t, 1, wins, "round %d: successful Takes", round)
	}
}

// newHandler returns a Handler over s whose Authenticator reads the
// principal from the X-Principal header, with rate limits off.
func newHandler(t *testing.T, s redeem.Store) *redeem.Handler {
	t.Helper()
	k := make([]byte, redeem.KeySize)
	rand.Read(k)
	h, err := redeem.New(func(r *http.Request) (string, error) {
		return r.Header.Get("X-Principal"), nil
	}, &redeem.Options{
		Key:                k,
		Store:              s,
		PrincipalPerSecond: redeem.Unlimited,
		AddressPerSecond:   redeem.Unlimited,
		Logger:             discard,
	})
	require.NoError(t, err, "redeem.New")
	return h
}

var discard = slog.New(slog.DiscardHandler)

// get returns a same-origin fetch of path by principal, as a browser's
// fetch(path, {credentials: "same-origin"}) sends it.
func get(path, principal string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, path, nil)
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

func testHandler(t *testing.T, s redeem.Store) {
	h := newHandler(t, s)
	ref, err := h.Issue(context.Background(), "alice", redeem.Secret{Value: "sk_live_1", Label: "API key"})
	require.NoError(t, err, "Issue")

	w := serve(h, get(ref.RedeemURL, "bob"))
	assert.Equal(t, http.StatusForbidden, w.Code, "GET by bob: status")
	w = serve(h, get(ref.RedeemURL, "alice"))
	assert.Equal(t, http.StatusOK, w.Code, "GET by alice: status")
	assert.JSONEq(t, `{"value":"sk_live_1"}`, w.Body.String(), "GET by alice: body")
	w = serve(h, get(ref.RedeemURL, "alice"))
	assert.Equal(t, http.StatusGone, w.Code, "second GET by alice: status")
	other := make([]byte, 16)
	rand.Read(other)
	w = serve(h, get(strings.TrimSuffix(ref.RedeemURL, ref.ID)+base64.RawURLEncoding.EncodeToString(other), "alice"))
	assert.Equal(t, http.StatusNotFound, w.Code, "GET of another id: status")
}

func testHandlerConcurrent(t *testing.T, s redeem.Store) {
	h := newHandler(t, s)
	for round := range Rounds {
		value := fmt.Sprintf("value %d", round)
		ref, err := h.Issue(context.Background(), "alice", redeem.Secret{Value: value})
		require.NoError(t, err, "Issue")
		var mu sync.Mutex
		codes := map[int]int{}
		wins := race(func() bool {
			w := serve(h, get(ref.RedeemURL, "alice"))
			mu.Lock()
			codes[w.Code]++
			mu.Unlock()
			if w.Code == http.StatusOK && w.Body.String() != `{"value":"`+value+`"}` {
				t.Errorf("round %d: body: got %s", round, w.Body)
			}
			return w.Code == http.StatusOK
		})
		require.Equal(t, 1, wins, "round %d: 200 responses (statuses: %v)", round, codes)
		require.Equal(t, Concurrency-1, codes[http.StatusGone], "round %d: 410 responses (statuses: %v)", round, codes)
	}
}
