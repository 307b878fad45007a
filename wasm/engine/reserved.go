package engine

import (
	"strings"
	"unicode/utf8"
)

// This file keeps the runtime's own _meta keys its own.

// ReservedPrefix starts the _meta keys only the runtime writes
// (MetaKey, PolicyMetaKey, RiskMetaKey): a tool's result that carries one
// has it removed, so that no tool can forge what the runtime says.
const ReservedPrefix = "dev.veil/"

// dropReserved leaves out every member, at any depth, whose name starts
// with ReservedPrefix in any case, and returns how many there were.
func (w *walker) dropReserved() int {
	tr := w.tr
	n := 0
	for i := 1; i < len(tr.nodes); {
		if tr.nodes[tr.nodes[i].parent].kind == kObject && isReserved(tr.key(i)) {
			w.act[i] = drop
			n++
			i = int(tr.nodes[i].next)
			continue
		}
		i++
	}
	return n
}

// isReserved reports whether key names a member under ReservedPrefix as a
// reader may take it: after decoding its escapes, in any case, in any
// Unicode form, with anything but letters and digits (a look-alike slash
// such as U+2215, a fullwidth dot, a zero-width space) read as the
// prefix's dot and slash. It is: "dev", "veil", then at least one
// character that is neither letter nor digit, with nothing but such
// characters before and between them.
func isReserved(key string) bool {
	if key == "" {
		return false
	}
	if c := key[0]; c < utf8.RuneSelf && foldASCII[c] != 0 && foldASCII[c] != 'd' {
		return false // the common case: a name that starts otherwise
	}
	if hasEscapes(key, false) {
		key = decodeAll(key, false, false).text
	}
	const want = "devveil"
	fs := foldStream{s: key}
	for k := 0; k < len(want); k++ {
		b, ok := fs.next()
		if !ok || b != want[k] {
			return false
		}
	}
	if len(fs.pend) > 0 || fs.i >= len(key) {
		return false
	}
	var buf [32]byte
	sk, _ := appendFoldAt(buf[:0], key, fs.i)
	return len(sk) == 0
}

// mayHaveReserved is a fast, sound test for a member isReserved names in
// a JSON text: one needs "veil" in its skeleton, in some decoding.
func mayHaveReserved(s string) bool {
	if indexFold(s, "veil") >= 0 {
		return true
	}
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	escaped := hasEscapes(s, false)
	if ascii && !escaped {
		return false
	}
	if escaped {
		s = decodeAll(s, false, false).text
	}
	fs := foldStream{s: s}
	var w uint32
	const veil = uint32('v') | uint32('e')<<8 | uint32('i')<<16 | uint32('l')<<24
	for n := 0; ; n++ {
		b, ok := fs.next()
		if !ok {
			return false
		}
		if w = w>>8 | uint32(b)<<24; n >= 3 && w == veil {
			return true
		}
	}
}

// indexFold returns where word, lower-case ASCII, starts in s in any
// case, or -1.
func indexFold(s, word string) int {
	c := newCaseCursor(s, word[0])
	for i := 0; i+len(word) <= len(s); i++ {
		if i = c.next(i); i < 0 || i+len(word) > len(s) {
			return -1
		}
		if strings.EqualFold(s[i:i+len(word)], word) {
			return i
		}
	}
	return -1
}

// caseCursor finds, left to right, each place where an ASCII letter is
// in a text in either case. It keeps where it found each case, so that
// the text is read once for each, not once for every occurrence of the
// other: a text of many f's and no F would otherwise be read to its end
// for each f.
type caseCursor struct {
	s            string
	lower, upper byte
	// lo and up are where each case is next at or after the last place
	// asked for, -1 when it is not in the rest of s, -2 before the first
	// search.
	lo, up int
}

// newCaseCursor returns a cursor for the ASCII letter c in s.
func newCaseCursor(s string, c byte) caseCursor {
	lower := c | 0x20
	return caseCursor{s: s, lower: lower, upper: lower - 'a' + 'A', lo: -2, up: -2}
}

// next returns where the letter is first in s, in either case, at or
// after i, or -1. Each call's i is at least the one before.
func (c *caseCursor) next(i int) int {
	c.lo = nextByte(c.s, c.lower, i, c.lo)
	c.up = nextByte(c.s, c.upper, i, c.up)
	switch {
	case c.lo < 0:
		return c.up
	case c.up < 0:
		return c.lo
	}
	return min(c.lo, c.up)
}

// nextByte returns where b is first in s at or after i, given last, where
// it was found before (-1: nowhere after; -2: not looked for).
func nextByte(s string, b byte, i, last int) int {
	if last == -1 || last >= i {
		return last
	}
	if i >= len(s) {
		return -1
	}
	j := strings.IndexByte(s[i:], b)
	if j < 0 {
		return -1
	}
	return i + j
}
