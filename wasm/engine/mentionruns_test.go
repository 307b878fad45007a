package engine

import (
	"encoding/base64"
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
