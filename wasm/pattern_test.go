//go:build js && wasm

package main

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"syscall/js"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/pattern"
)

// newRegExp compiles p with the "u" flag, as compileRegexp does.
func newRegExp(p string) (re js.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return jsRegExp.New(p, "u"), nil
}

// TestTranslateAgreesWithRegExp holds package pattern's translation to
// RE2 to the JavaScript RegExp it stands in for: random patterns of the
// ECMA-262 syntax it translates, on random strings of the characters
// where the two could read differently (white space, line terminators,
// non-ASCII, astral characters), must match alike.
func TestTranslateAgreesWithRegExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	atoms := []string{`a`, `b`, `\d`, `\w`, `\s`, `\S`, `\D`, `.`, `[ab]`, `[^a]`, `[\s\d]`, `[a-c]`, `é`, `\u00e9`, `\x41`, `\u{1F600}`, `\p{L}`, `\n`, `\t`, `\/`, `\.`, `\b`}
	quants := []string{``, ``, `*`, `+`, `?`, `{2}`, `{1,3}`, `{0,}`, `*?`}
	var gen func(depth int) string
	gen = func(depth int) string {
		var b strings.Builder
		for n := 1 + rng.IntN(4); n > 0; n-- {
			if depth < 2 && rng.IntN(5) == 0 {
				b.WriteString("(?:" + gen(depth+1))
				if rng.IntN(2) == 0 {
					b.WriteString("|" + gen(depth+1))
				}
				b.WriteString(")")
			} else {
				b.WriteString(atoms[rng.IntN(len(atoms))])
			}
			b.WriteString(quants[rng.IntN(len(quants))])
		}
		return b.String()
	}
	chars := []string{"a", "b", "c", "A", "1", "_", " ", "\t", "\n", "\r", "\u00a0", "\u2028", "\ufeff", "é", "😀", "\u000b", ".", "/"}
	word := func() string {
		var b strings.Builder
		for n := rng.IntN(6); n > 0; n-- {
			b.WriteString(chars[rng.IntN(len(chars))])
		}
		return b.String()
	}
	checked := 0
	for range 3000 {
		p := gen(0)
		if rng.IntN(2) == 0 {
			p = "^" + p
		}
		if rng.IntN(2) == 0 {
			p += "$"
		}
		re2, ok := pattern.Translate(p)
		if !ok {
			continue
		}
		re, err := regexp.Compile(re2)
		require.NoError(t, err, "Translate(%q) = %q", p, re2)
		js, err := newRegExp(p)
		require.NoError(t, err, "Translate accepted %q, which RegExp refuses", p)
		for range 8 {
			s := word()
			if strings.HasPrefix(s, "\ufeff") {
				// The bridge to JavaScript decodes UTF-8 with a
				// TextDecoder, which drops a leading BOM.
				continue
			}
			require.Equal(t, js.Call("test", s).Bool(), re.MatchString(s), "%q (RE2 %q) on %q", p, re2, s)
			checked++
		}
	}
	require.Greater(t, checked, 10000)
}
