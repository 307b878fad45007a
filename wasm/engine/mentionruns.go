package engine

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/veilmcp/veil/wasm/engine/internal/jsontree"
)

// This file finds secret_reference named inside a run of base64 or hex
// (binary.go): a reference's JSON in base64, base64url, a JWT's payload
// or hex is a mention, as the same JSON escaped is, and rule (c′)
// withholds it, since no valid reference can be read there.

// minEncodedMention is the fewest bytes a run must decode to to name
// secret_reference: "secretreference" takes fifteen in ASCII, and a few
// less only where a character of another script folds to several letters.
const minEncodedMention = 12

// Runs long enough to decode to minEncodedMention bytes: base64 characters
// that look like an encoding, and any run of them or of hex digits.
const (
	minMentionBase64 = (minEncodedMention*4 + 2) / 3
	minMentionRun    = 2 * minEncodedMention
)

// mayEncodeMention is a fast, sound test for a run that eachEncoded
// decodes to enough bytes to name secret_reference: a base64 run of
// minMentionBase64 characters that looks like one (or of minMentionRun,
// or wrapped onto another line), hex of minEncodedMention bytes (with
// separators between them), or a mail header's encoded-word. Each run it
// looks for is minMentionBase64 characters long or more, so it looks only
// at every minMentionBase64th byte, and around it where that byte may be
// in one.
func mayEncodeMention(s string) bool {
	if strings.Contains(s, "=?") {
		return true
	}
	runDone, hexDone := 0, 0 // where the run and the hex looked at last end
	for p := minMentionBase64 - 1; p < len(s); p += minMentionBase64 {
		c := s[p]
		if p >= runDone && b64[c] >= 0 {
			a, b := p, p+1
			for a > 0 && b64[s[a-1]] >= 0 {
				a--
			}
			for b < len(s) && b64[s[b]] >= 0 {
				b++
			}
			if encodedRun(s, a, b) {
				return true
			}
			runDone = b
		}
		if p >= hexDone && hexOrSeparator[c] != 0 {
			// Hex digits and the separators decodeHex reads between
			// pairs: it reads at most half the digits.
			a, b := p, p+1
			digits := int(hexOrSeparator[c] >> 1)
			for a > 0 && hexOrSeparator[s[a-1]] != 0 {
				a--
				digits += int(hexOrSeparator[s[a]] >> 1)
			}
			for b < len(s) && hexOrSeparator[s[b]] != 0 {
				digits += int(hexOrSeparator[s[b]] >> 1)
				b++
			}
			if digits >= minMentionRun {
				return true
			}
			hexDone = b
		}
	}
	return false
}

// encodedRun reports whether the run of base64 characters s[a:b] is
// decoded to enough bytes to name secret_reference: it is long and looks
// like an encoding (base64Run), very long, or wrapped onto the next line.
func encodedRun(s string, a, b int) bool {
	n := b - a
	switch {
	case n >= minMentionRun:
		return true
	case n < minMentionBase64:
		return false
	case b < len(s) && (s[b] == '\n' || s[b] == '\r'):
		return true
	}
	digit, letter := false, false
	for k := a; k < b; k++ {
		switch c := s[k]; {
		case c >= 'A' && c <= 'Z':
			if k > a {
				return true
			}
			letter = true
		case c >= 'a' && c <= 'z':
			letter = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	return digit && letter
}

// hexOrSeparator is 2 for a hex digit, 1 for a separator decodeHex reads
// between pairs, and 0 for any other byte.
var hexOrSeparator = func() (t [256]uint8) {
	for c := range 256 {
		if hexDigit(byte(c)) >= 0 {
			t[c] = 2
		}
	}
	t[':'], t['-'], t[' '] = 1, 1, 1
	return t
}()

// encodedMentions appends to spans each run of str that is an encoding
// (base64, hex, encoded-words) of a text that names secret_reference in
// any decoding, as UTF-8 or Latin-1. A run that escapes split or wrote
// (base64 in JSON text written by PHP, "\/"; a query parameter's "%2F",
// "%3D") is read in the decodings of every escape too. It reports false
// when decoding the runs would cost more than their budget.
func encodedMentions(str string, extraDepth, depth int, spans *[][2]int) bool {
	if depth >= maxBinaryDepth {
		return true
	}
	if mayEncodeMention(str) {
		n := len(*spans)
		if !eachEncodedMention(str, extraDepth, depth, func(a, b int) { *spans = append(*spans, [2]int{a, b}) }) {
			return false
		}
		if len(*spans) > n {
			return true
		}
	}
	if !escapeInRun(str) {
		return true
	}
	// Every decoding decodeAll passes through, mapped back only when a
	// run in one names secret_reference.
	found, ok := false, true
	for l := decodeAll(str, false, false); l.parent != nil && !found && ok; l = l.parent {
		if mayEncodeMention(l.text) {
			ok = eachEncodedMention(l.text, extraDepth, depth, func(int, int) { found = true })
		}
	}
	if !ok {
		return false
	}
	if found {
		for l := decodeAll(str, false, true); l.parent != nil; l = l.parent {
			if !mayEncodeMention(l.text) {
				continue
			}
			eachEncodedMention(l.text, extraDepth, depth, func(a, b int) {
				a, b = l.origin(a, b)
				*spans = append(*spans, [2]int{a, b})
			})
		}
	}
	return true
}

// eachEncodedMention calls f with each run of str whose decoding names
// secret_reference; it reports false past the budget of decoding them.
func eachEncodedMention(str string, extraDepth, depth int, f func(a, b int)) bool {
	budget := decodeBudget(str)
	var latin []byte
	over := false
	ok := eachEncoded(str, &budget, func(a, b int, decoded []byte) bool {
		if len(decoded) < minEncodedMention || !binaryMayMention(decoded) {
			return true
		}
		// Read in place: mayMention keeps nothing of it.
		s := unsafe.String(unsafe.SliceData(decoded), len(decoded))
		found := false
		may := mayMention(s)
		if may {
			spans, ok := mentionsAt(string(decoded), extraDepth, depth+1)
			found, over = len(spans) > 0, over || !ok
		}
		// Read as Latin-1 the bytes have the same escapes, words and runs
		// of base64 as in UTF-8 (they are ASCII, in the same order): only
		// their skeleton can differ.
		if !found && !utf8.Valid(decoded) && (may || latin1MayFoldToReference(decoded)) {
			// Bytes that are no UTF-8 may be Latin-1 (btoa).
			latin = appendLatin1(latin[:0], decoded)
			if s := unsafe.String(unsafe.SliceData(latin), len(latin)); mayMention(s) {
				spans, ok := mentionsAt(string(latin), extraDepth, depth+1)
				found, over = len(spans) > 0, over || !ok
			}
		}
		if found {
			f(a, b)
		}
		return !over
	})
	return ok && !over
}

// appendLatin1 appends bytes read as ISO 8859-1, in UTF-8.
func appendLatin1(b, latin []byte) []byte {
	for _, c := range latin {
		b = utf8.AppendRune(b, rune(c))
	}
	return b
}

// escapeInRun reports whether an escape stands right after a base64
// character in s with what may decode to one (a backslash before a slash
// or a code point, a percent sign before hex, a character reference): an
// escape that may split or write a run.
func escapeInRun(s string) bool {
	// Each lead is looked for on its own (strings.IndexByte reads many
	// bytes at a time): most texts have none of them.
	for _, lead := range [...]byte{'\\', '%', '&'} {
		for i := strings.IndexByte(s, lead); i >= 0; i = indexByteFrom(s, lead, i+1) {
			if i < 1 || i+1 >= len(s) || b64[s[i-1]] < 0 {
				continue
			}
			switch next := s[i+1]; lead {
			case '\\':
				if next == '/' || next == 'u' || next == 'U' || next == 'x' {
					return true
				}
			case '%':
				if hexDigit(next) >= 0 {
					return true
				}
			case '&':
				if next == '#' || isAlnum(next) {
					return true
				}
			}
		}
	}
	return false
}

// mentionLines withholds, as invalid references, the runs of consecutive
// strings of one object or array the view keeps that are an encoding cut
// into lines (encodedRuns) whose joined text names secret_reference: no
// one line of them does, and together they may be a reference.
func (w *walker) mentionLines() {
	tr := w.tr
	var strs []string
	var nodes []int
	flush := func() {
		for _, r := range encodedRuns(strs) {
			if spans, ok := mentions(strings.Join(strs[r[0]:r[1]], ""), 0); ok && len(spans) == 0 {
				continue
			}
			w.invalid = append(w.invalid, fmt.Sprintf("tool %q: the strings from %s on name secret_reference in an encoding cut into lines, so they were withheld", w.t.name, jsontree.OrRoot(tr.pointer(nodes[r[0]]))))
			for k := r[0]; k < r[1]; k++ {
				if u := w.mentionUnit(nodes[k]); w.act[u] == keep {
					w.withhold(u)
				}
			}
		}
		strs, nodes = strs[:0], nodes[:0]
	}
	for i := range tr.nodes {
		n := &tr.nodes[i]
		if n.kind < kArray || w.act[i] != keep {
			continue
		}
		for j := i + 1; j < int(n.next); j = int(tr.nodes[j].next) {
			// A line withheld already (it names the type alone) still
			// joins its run: the lines after it hold the rest.
			if (w.act[j] == keep || w.act[j] == withhold) && tr.nodes[j].kind == kString {
				strs = append(strs, tr.str(j))
				nodes = append(nodes, j)
				continue
			}
			flush()
		}
		flush()
	}
}

// maxBinaryTest is the longest decoding binaryMayMention reads; a longer
// one takes the tests it stands for. Its counts cannot overflow: a
// character's skeleton has at most maxRefLetters of one letter.
const (
	maxBinaryTest = 512
	maxRefLetters = 7
)

// binaryMayMention is a fast, sound test, in one pass over the bytes a
// run decodes to, for what eachEncodedMention asks of them before it
// searches them: mayMention of the bytes read as UTF-8, or
// latin1MayFoldToReference of them read as Latin-1. When it is false,
// both are. Decoded binary (a key's base64 decodes to bytes of every
// value) seldom has an escape, a long run of base64 or hex, or the
// letters of "reference" in either reading; each of these tests read all
// of it again, and the UTF-8 one decoded every byte that is no character.
// It counts the letters as mayFoldToReference and latin1MayFoldToReference
// do, from the same tables, and leaves a character of three bytes or more
// to them.
func binaryMayMention(b []byte) bool {
	if len(b) > maxBinaryTest {
		return true
	}
	t := binaryTables()
	var asUTF8, asLatin uint64 // the letters of "reference" in each reading's skeleton
	run, hex := 0, 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		// mayEncodeMention: a run of base64 or of hex (with separators)
		// long enough to encode the name.
		if b64[c] >= 0 {
			if run++; run >= minMentionBase64 {
				return true
			}
		} else {
			run = 0
		}
		if h := hexOrSeparator[c]; h != 0 {
			if hex += int(h >> 1); hex >= minMentionRun {
				return true
			}
		} else {
			hex = 0
		}
		switch c {
		case '\\', '&', '%':
			return true // hasEscapes
		case '=':
			// A quoted-printable escape (hasEscapes) or an encoded-word
			// (mayEncodeMention).
			if i+1 < len(b) {
				if n := b[i+1]; n == '?' || n == '\n' || n == '\r' || hexDigit(n) >= 0 {
					return true
				}
			}
		}
		asLatin += t.latin[c]
		if c < utf8.RuneSelf {
			asUTF8 += t.latin[c]
			continue
		}
		switch {
		case c >= 0xc2 && c <= 0xdf && i+1 < len(b) && b[i+1]&0xc0 == 0x80:
			asUTF8 += t.two[rune(c&0x1f)<<6|rune(b[i+1]&0x3f)-utf8.RuneSelf]
			i++
			// The continuation byte is read as Latin-1 too.
			asLatin += t.latin[b[i]]
			run, hex = 0, 0
		case c >= 0xe0 && i+1 < len(b) && b[i+1]&0xc0 == 0x80:
			if r, size := utf8.DecodeRune(b[i:]); r != utf8.RuneError || size > 1 {
				return true // a character mayFoldToReference does not count
			}
		}
	}
	return hasReferenceLetters(asUTF8) || hasReferenceLetters(asLatin)
}

// refShift is the width of each letter's count in binaryTables' packed
// counts, five of them in 64 bits: maxBinaryTest bytes cannot fill it.
const refShift = 12

// hasReferenceLetters reports whether packed counts (binaryTables) hold
// the letters of "reference" (refNeeds).
func hasReferenceLetters(n uint64) bool {
	for k := 1; k < len(refNeeds); k++ {
		if int(n>>(refShift*(k-1))&(1<<refShift-1)) < refNeeds[k] {
			return false
		}
	}
	return true
}

// binaryTables are foldTables' counts packed, refShift bits a letter of
// "reference" (refLetters, from its second place): latin for each byte
// read as Latin-1 (ASCII as itself), two for each character UTF-8 writes
// in two bytes.
var binaryTables = sync.OnceValue(func() *struct {
	latin [256]uint64
	two   [twoByteEnd - utf8.RuneSelf]uint64
} {
	f := foldTables()
	pack := func(m *[6]uint8) (n uint64) {
		for k := 1; k < len(m); k++ {
			if m[k] > maxRefLetters {
				panic("engine: a skeleton with more letters of reference than binaryMayMention counts")
			}
			n += uint64(m[k]) << (refShift * (k - 1))
		}
		return n
	}
	t := new(struct {
		latin [256]uint64
		two   [twoByteEnd - utf8.RuneSelf]uint64
	})
	for c := range utf8.RuneSelf {
		if at := f.ascii[c]; at > 0 {
			t.latin[c] = 1 << (refShift * (at - 1))
		}
	}
	for k := range t.two {
		t.two[k] = pack(&f.two[k])
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t.latin[c] = t.two[c-utf8.RuneSelf]
	}
	return t
})
