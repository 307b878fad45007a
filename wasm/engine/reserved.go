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
	lower, upper := word[0], word[0]-'a'+'A'
	for i := 0; i+len(word) <= len(s); {
		j := strings.IndexByte(s[i:], lower)
		if k := strings.IndexByte(s[i:], upper); k >= 0 && (j < 0 || k < j) {
			j = k
		}
		if j < 0 {
			return -1
		}
		i += j
		if i+len(word) <= len(s) && strings.EqualFold(s[i:i+len(word)], word) {
			return i
		}
		i++
	}
	return -1
}
