package engine

import (
	"encoding/base64"
	"io"
	mrand "math/rand/v2"
	"sync"
)

// ids makes the engine's identifiers: call ids, which the handles of a
// call's held items extend, and spotlight markers. ChaCha8, seeded once
// from Options.Rand, is a cryptographically strong generator and costs no
// call into JavaScript per id. Its lock is a leaf: nothing else is
// locked while it is held.
type ids struct {
	mu  sync.Mutex
	rng *mrand.ChaCha8
}

// init seeds the generator from r.
func (g *ids) init(r io.Reader) {
	var s [32]byte
	if _, err := io.ReadFull(r, s[:]); err != nil {
		panic("engine: no randomness for ids: " + err.Error())
	}
	g.rng = mrand.NewChaCha8(s)
}

// next returns 128 random bits, base64url-encoded.
func (g *ids) next() string {
	var b [16]byte
	g.mu.Lock()
	_, _ = g.rng.Read(b[:])
	g.mu.Unlock()
	return base64.RawURLEncoding.EncodeToString(b[:])
}
