package engine

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMayEncodeMention: the fast test says yes wherever eachEncoded
// decodes a run to enough bytes to name secret_reference, and no for
// words, paths, dates and short identifiers.
func TestMayEncodeMention(t *testing.T) {
	long := func(s string) bool {
		found := false
		budget := decodeBudget(s)
		eachEncoded(s, &budget, func(_, _ int, decoded []byte) bool {
			found = found || len(decoded) >= minEncodedMention
			return !found
		})
		return found
	}
	rng := rand.New(rand.NewPCG(19, 2))
	pieces := []string{"a", "B", "3", "f", "e0", "DE", "9", ":", "-", " ", "\n", "\r\n", "  ", "> ", "=", "?", "=?", "+", "/", "_", "x", "0x", ".", `"`, "ab:", "c4-", "7f "}
	for range 20000 {
		var b strings.Builder
		for n := rng.IntN(60); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		if long(s) {
			require.True(t, mayEncodeMention(s), "mayEncodeMention(%q)", s)
		}
	}
	wrapped := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("the quick brown fox ", 8)))
	for _, s := range []string{
		wrapped,
		wrapped[:16] + "\n" + wrapped[16:40],
		"de:ad:be:ef:de:ad:be:ef:de:ad:be:ef",
		"0xdead beef dead beef dead beef",
		"=?utf-8?b?c2VjcmV0X3JlZmVyZW5jZQ==?=",
	} {
		assert.True(t, mayEncodeMention(s), "mayEncodeMention(%q)", s)
	}
	for _, s := range []string{
		"Seen on visit 12; follow-up in two weeks.",
		"/api/users/orders",
		"1990-01-10 000-00-0000",
		"created_at_utc",
		"we need a face bead cafe",
	} {
		assert.False(t, mayEncodeMention(s), "mayEncodeMention(%q)", s)
	}
}

// TestBinaryMayMention: the one-pass test of decoded bytes says yes
// wherever the tests it stands for do (mayMention of the bytes, or
// latin1MayFoldToReference of them), for random bytes, bytes made of the
// pieces that trip each, and every spelling of the name that folding
// finds; and it says no for the bytes a key's base64 decodes to, which is
// what makes it worth having.
func TestBinaryMayMention(t *testing.T) {
	stands := func(b []byte) bool { return mayMention(string(b)) || latin1MayFoldToReference(b) }
	// What folding finds: case, Latin-1 accents, fullwidth letters, a
	// character of three bytes, and escapes, runs and encoded-words.
	named := []string{
		"secret_reference", "SECRET REFERENCE", "secretReference", "reference",
		"r\u00e9f\u00e9rence", "R\u00c9F\u00c9RENCE", "\uff52\uff45\uff46\uff45\uff52\uff45\uff4e\uff43\uff45",
		`secret\u005freference`, "secret%5Freference", "secret&#95;reference", "secret=5Freference",
		"c2VjcmV0X3JlZmVyZW5jZQ", "7365637265745f7265666572656e6365", "=?utf-8?B?c2VjcmV0?=",
	}
	for _, s := range named {
		require.True(t, stands([]byte(s)), "%q", s)
		assert.True(t, binaryMayMention([]byte(s)), "%q", s)
		// And in Latin-1: each character of two bytes written as one.
		var latin []byte
		for _, r := range s {
			if r < 256 {
				latin = append(latin, byte(r))
			}
		}
		if stands(latin) {
			assert.True(t, binaryMayMention(latin), "Latin-1 %q", s)
		}
	}
	rng := rand.New(rand.NewPCG(31, 7))
	pieces := []string{"r", "E", "f", "N", "c", "e", "\u00e9", "\u00c9", "\xe9", "\xc9", "\xc3", "\xa9", "\xef\xbd\x85", "\xe0", "\x80", "\\", "&", "%", "=", "?", "\n", "3", "A", "z", ":", " ", "\xff", "\xd0\xb5"}
	for range 50000 {
		var b []byte
		if rng.IntN(2) == 0 {
			b = make([]byte, 12+rng.IntN(40))
			for k := range b {
				b[k] = byte(rng.UintN(256))
			}
		} else {
			for n := 12 + rng.IntN(30); n > 0; n-- {
				b = append(b, pieces[rng.IntN(len(pieces))]...)
			}
		}
		if stands(b) && !binaryMayMention(b) {
			t.Fatalf("binaryMayMention(%q) is false, and the tests it stands for are not", b)
		}
	}
	// A decoding longer than it reads takes the tests it stands for.
	assert.True(t, binaryMayMention(make([]byte, maxBinaryTest+1)))
	// bench.js's keys, decoded in each of the four phases eachEncoded
	// reads them in: binary with none of the name's letters to spare.
	rejected := 0
	for i := range 200 {
		key := strings.TrimRight(fmt.Sprintf("sk-bench-%d-%s", i, strings.Repeat("x", 24)), "=")
		for phase := range 4 {
			if b := decodeBase64(nil, key[phase:]); !binaryMayMention(b) {
				rejected++
			}
		}
	}
	assert.Greater(t, rejected, 600, "of 800 decodings of keys")
}
