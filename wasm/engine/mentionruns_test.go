package engine

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

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

// decodedMayMentionHolds checks decodedMayMention on b against the tests
// it stands in for: mayMention of b, and of b read as Latin-1 when b is
// not UTF-8.
func decodedMayMentionHolds(t *testing.T, b []byte) {
	t.Helper()
	asText, asLatin1 := decodedMayMention(b)
	if mayMention(string(b)) && !asText {
		t.Fatalf("decodedMayMention(%q): mayMention is true, asText false", b)
	}
	if !utf8.Valid(b) && mayMention(string(appendLatin1(nil, b))) && !asLatin1 {
		t.Fatalf("decodedMayMention(%q): mayMention of its Latin-1 is true, asLatin1 false", b)
	}
}

// TestDecodedMayMention: the one-pass test of decoded bytes is true
// wherever the tests it replaces are: escapes, the word in either case, in
// fullwidth or accented letters, in Latin-1, a character of three bytes,
// an encoding inside.
func TestDecodedMayMention(t *testing.T) {
	for _, s := range []string{
		"secret_reference", "SECRET_REFERENCE", "%73ecret_reference", `\u0073ecret`, "&#115;ecret", "=73ecret",
		"ｓｅｃｒｅｔ＿ｒｅｆｅｒｅｎｃｅ", "sécret_réfèrence", "s\xe9cret_r\xe9f\xe9rence", "\xff\xfe\x00r\x00e",
		"c2VjcmV0X3JlZmVyZW5jZQ==", "=?utf-8?B?c2VjcmV0?=", "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c",
		"\xc3\xa9\xc3\xa8\xe2\x82\xac\xf0\x9f\x98\x80", "r\xe9f\xe9r\xe9nc\xe9 \xe9", "ref\xc9ren\xc7e",
	} {
		decodedMayMentionHolds(t, []byte(s))
	}
}

// FuzzDecodedMayMention is TestDecodedMayMention on any bytes.
func FuzzDecodedMayMention(f *testing.F) {
	for _, s := range []string{"secret_reference", "\xff\xfe\x00r\x00e", "r\xe9f\xe9r\xe9nc\xe9", "=3D", "c2VjcmV0X3JlZmVyZW5jZQ=="} {
		f.Add([]byte(s))
	}
	f.Fuzz(decodedMayMentionHolds)
}
