package redeem

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func principalHeader(r *http.Request) (string, error) { return r.Header.Get("X-Principal"), nil }

func newTestHandler(t testing.TB, store Store) *Handler {
	t.Helper()
	h, err := New(principalHeader, &Options{
		Key:                bytes.Repeat([]byte{7}, KeySize),
		Store:              store,
		PrincipalPerSecond: Unlimited,
		AddressPerSecond:   Unlimited,
		Logger:             discardLogger,
	})
	require.NoError(t, err)
	return h
}

func get(path, principal string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	r.Header.Set("Sec-Fetch-Mode", "cors")
	r.Header.Set("Sec-Fetch-Dest", "empty")
	r.Header.Set("X-Principal", principal)
	return r
}

// TestStoreHoldsNoSecrets dumps the memory store and looks for anything
// that would let the dump be redeemed or read.
func TestStoreHoldsNoSecrets(t *testing.T) {
	s := NewMemoryStore(nil)
	h := newTestHandler(t, s)
	const value = "sk_live_plaintext_value"
	ref, err := h.Issue(context.Background(), "alice@example.com", Secret{Value: value})
	require.NoError(t, err)

	id, ok := parseID(ref.ID)
	require.True(t, ok)
	s.mu.Lock()
	defer s.mu.Unlock()
	require.Len(t, s.m, 1)
	for k, e := range s.m {
		dump := string(k[:]) + k.String() + e.owner + string(e.sealed)
		for _, secret := range []string{value, ref.ID, string(id), "alice@example.com"} {
			assert.NotContains(t, dump, secret, "store entry")
		}
		assert.Len(t, e.sealed, len(value)+28, "sealed value: nonce, ciphertext, tag")
	}
}

// TestSealBindsID moves one secret's sealed value under another id's key:
// the value must not open there, and the request fails closed.
func TestSealBindsID(t *testing.T) {
	s := NewMemoryStore(nil)
	h := newTestHandler(t, s)
	ctx := context.Background()
	a, err := h.Issue(ctx, "alice", Secret{Value: "value of a"})
	require.NoError(t, err)
	b, err := h.Issue(ctx, "alice", Secret{Value: "value of b"})
	require.NoError(t, err)

	idA, _ := parseID(a.ID)
	idB, _ := parseID(b.ID)
	ka, kb := h.keys.index(idA), h.keys.index(idB)
	s.mu.Lock()
	ea, eb := s.m[ka], s.m[kb]
	ea.sealed, eb.sealed = eb.sealed, ea.sealed
	s.m[ka], s.m[kb] = ea, eb
	s.mu.Unlock()

	w := httptest.NewRecorder()
	h.ServeHTTP(w, get(a.RedeemURL, "alice"))
	assert.Equal(t, http.StatusServiceUnavailable, w.Code, "redeeming a with b's sealed value: status")
	assert.NotContains(t, w.Body.String(), "value of", "redeeming a with b's sealed value: body")
}

func TestKeysDiffer(t *testing.T) {
	k1, err := newKeys(bytes.Repeat([]byte{1}, KeySize))
	require.NoError(t, err)
	k2, err := newKeys(bytes.Repeat([]byte{2}, KeySize))
	require.NoError(t, err)
	id := []byte("0123456789abcdef")
	assert.NotEqual(t, k1.index(id), k2.index(id), "index under two keys")
	assert.NotEqual(t, k1.ownerTag("alice"), k2.ownerTag("alice"), "owner tag under two keys")
	assert.NotEqual(t, k1.ownerTag("alice"), k1.ownerTag("bob"), "owner tags of two principals")
	// The id and the principal are hashed in separate domains.
	assert.NotEqual(t, k1.index(id).String()[:22], k1.ownerTag(string(id)), "index and owner tag of the same bytes")
	_, err = k2.open(id, k1.seal(id, "v"))
	assert.Error(t, err, "opening with another key")
}

func TestParseID(t *testing.T) {
	good, text := newID()
	got, ok := parseID(text)
	require.True(t, ok, "parseID(%q)", text)
	assert.Equal(t, good, got)
	for _, bad := range []string{
		"", "short", text + "A", text[:21], text + "==",
		strings.Repeat("!", 22), strings.Repeat("+", 22), strings.Repeat("/", 22),
		text[:21] + "B", // non-zero padding bits: not canonical
	} {
		_, ok := parseID(bad)
		assert.False(t, ok, "parseID(%q)", bad)
	}
}

var discardLogger = slog.New(slog.DiscardHandler)
