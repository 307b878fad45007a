package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// misread returns s's UTF-8 read as Windows-1252 (Latin-1 where it has
// no character), n times over.
func misread(s string, n int) string {
	for range n {
		var b []rune
		for i := 0; i < len(s); i++ {
			r := rune(s[i])
			for c, x := range cp1252 {
				if x == s[i] {
					r = c
				}
			}
			b = append(b, r)
		}
		s = string(b)
	}
	return s
}

// utf16LE returns s's bytes read as UTF-16LE code units, an odd last byte
// dropped, as Node's buf.toString("utf16le") reads them.
func utf16LE(s string) string {
	var b []rune
	for i := 0; i+1 < len(s); i += 2 {
		b = append(b, rune(s[i])|rune(s[i+1])<<8)
	}
	return string(b)
}

// TestReadingsComposeWithinTheirBounds: a withheld value is found through
// readings applied one after another up to their bounds; past them the
// search fails closed, and an ordinary text is neither found nor past a
// bound.
func TestReadingsComposeWithinTheirBounds(t *testing.T) {
	set := &scrubSet{}
	set.addString("Jürgen Müller")
	set.addString("sk_live_51HqLyjWDarjtT1zdp7dc")
	set.addString("müller@bücher.de")
	s := newScrubber(set)
	tests := []struct {
		name  string
		text  string
		found bool // a match was reported
		ok    bool // within the bounds
	}{
		{"misread once", "Kunde: " + misread("Jürgen Müller", 1), true, true},
		{"misread twice", "Kunde: " + misread("Jürgen Müller", 2), true, true},
		{"misread three times", "Kunde: " + misread("Jürgen Müller", 3), true, true},
		{"another name misread three times", misread("Größe", 3), false, true},
		{"another name misread four times", misread("Größe", 4), false, false},
		{"misread after <wbr>", misread("Jür<wbr>gen Müller", 1), true, true},
		{"a <wbr> that removing one makes", "x <wb<wbr>r> y", false, false},
		{"an ordinary <wbr>", "inter<wbr>national", false, true},
		{"an xn-- address beside a misread name", misread("Zoë", 1) + " müller@xn--bcher-kva.de", true, true},
		{"an xn-- address whose name was misread", misread("müller", 1) + "@xn--bcher-kva.de", true, true},
		{"an xn-- label that is no Punycode inside one", "ada@xn--xn--abc-pxa.de", false, true},
		{"an xn-- label that a label reads to", "ada@xn--xn--bcher-kva-nhb.de", false, false},
		{"UTF-16, an odd last byte lost", "file: " + utf16LE("KEY=sk_live_51HqLyjWDarjtT1zdp7dc"), true, true},
		{"UTF-16, an odd last byte lost, at a run's end", utf16LE("KEY=sk_live_51HqLyjWDarjtT1zdp7dc") + " next", true, true},
		{"UTF-16, the value's first seven bytes alone", utf16LE("KEY=sk_live_x"), false, true},
		{"kana read as printable UTF-16", "ぁぃぅぇぉ こんにちは", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			found := false
			ok := s.eachReadingMatch(tc.text, func(int, int) bool { found = true; return true })
			assert.Equal(t, tc.found, found, "found")
			assert.Equal(t, tc.ok, ok, "within the bounds")
		})
	}
}
