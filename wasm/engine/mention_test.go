package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The quick tests of the search for secret_reference never say no where
// the slow ones they stand in for would say yes.

func TestMayFoldToReferenceNeverMissesOne(t *testing.T) {
	// Whatever it says no to, foldedIndex finds nothing in.
	tests := []struct {
		s    string
		want bool
	}{
		{"reference", true},
		{"ＲＥＦＥＲＥＮＣＥ", true},                     // fullwidth: three bytes a character
		{"r\u00e9f\u00e9r\u00e9nc\u00e9", true}, // é folds to e
		{"\xff\xfer\u00e8fe\u0301rence", true},
		{"refer", false},
		{"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9rrfnc", true},
		{"\x80\x81\xc3\x28zzzz", false},
	}
	for _, tt := range tests {
		got := mayFoldToReference(tt.s)
		assert.Equal(t, tt.want, got, "mayFoldToReference(%q)", tt.s)
		if !got {
			assert.False(t, foldedIndex(tt.s, "reference"), "foldedIndex(%q)", tt.s)
		}
	}
}

func FuzzMayFoldToReference(f *testing.F) {
	for _, s := range []string{"reference", "r\u00e9f\u00e9r\u00e9nc\u00e9", "\xff\xfe\u0280e"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if s := string(b); foldedIndex(s, "reference") && !mayFoldToReference(s) {
			t.Fatalf("mayFoldToReference(%q) is false, but its skeleton holds reference", s)
		}
	})
}

func FuzzLatin1MayFoldToReference(f *testing.F) {
	for _, s := range []string{"reference", "r\xe9f\xe9r\xe9nc\xe9", "\xff\xfe", "REFERENCE\x80"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		latin := string(appendLatin1(nil, b))
		if got, want := latin1MayFoldToReference(b), mayFoldToReference(latin); got != want {
			t.Fatalf("latin1MayFoldToReference(%q) = %v, mayFoldToReference of it as Latin-1 = %v", b, got, want)
		}
		if foldedIndex(latin, "reference") && !latin1MayFoldToReference(b) {
			t.Fatalf("latin1MayFoldToReference(%q) is false, but its skeleton holds reference", b)
		}
	})
}

// escapeInRunByteByByte is escapeInRun as a look at every byte, which the
// search by lead must agree with.
func escapeInRunByteByByte(s string) bool {
	for i := 1; i+1 < len(s); i++ {
		c, next := s[i], s[i+1]
		if b64[s[i-1]] < 0 {
			continue
		}
		switch {
		case c == '\\' && (next == '/' || next == 'u' || next == 'U' || next == 'x'),
			c == '%' && hexDigit(next) >= 0,
			c == '&' && (next == '#' || isAlnum(next)):
			return true
		}
	}
	return false
}

func FuzzEscapeInRun(f *testing.F) {
	for _, s := range []string{`ab\/cd`, `a%2Fb`, `x&#47;y`, `&amp;`, `\u0041`, `a\`, `%`, ` %41`, `ab&c`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := escapeInRun(s), escapeInRunByteByByte(s); got != want {
			t.Fatalf("escapeInRun(%q) = %v, want %v", s, got, want)
		}
	})
}
