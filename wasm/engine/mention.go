package engine

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// This file finds where a string names secret_reference, in any decoding
// of it (decode.go): rule (c) holds a text that does so to account for
// every mention with a valid reference, and withholds it otherwise.

// referenceType is the type of a secret_reference.
const referenceType = "secret_reference"

// mentions returns the spans of str where some decoding of it names
// secret_reference: in any case, and not inside a longer identifier, so
// that "secret_references" and "my_secret_reference_id" are not mentions.
// Overlapping spans count once. A window of str with more decodings than
// the bounds allow, and every window once decoding str has cost its
// budget, is searched in decodeAll's decodings instead, whose cost is
// linear. A run of base64 or hex that decodes to a text naming
// secret_reference is a mention too, to maxBinaryDepth encodings deep
// (mentionruns.go); ok is false when decoding the runs would cost more
// than their budget. extraDepth allows more decodings than a string gets,
// for a JSON text whose strings are themselves encoded once.
func mentions(str string, extraDepth int) (spans [][2]int, ok bool) {
	return mentionsAt(str, extraDepth, 0)
}

// mentionsAt is mentions for a text that depth encoded runs were decoded
// to reach.
func mentionsAt(str string, extraDepth, depth int) (spans [][2]int, ok bool) {
	eachMention(str, func(a, b int) { spans = append(spans, [2]int{a, b}) })
	ok = encodedMentions(str, extraDepth, depth, &spans)
	if !hasEscapes(str, false) {
		return mergeSpans(spans), ok
	}
	budget := decodeBudget(str)
	for _, w := range windows(str, false, len(referenceType)+maxEscapeLength) {
		var decoded []*layer
		if layers, ok := decodings(str[w[0]:w[1]], false, extraDepth, &budget); ok {
			decoded = layers[1:]
		} else {
			// Past the bounds: every decoding decodeAll passes through,
			// mapped back only when one names secret_reference.
			found := false
			for l := decodeAll(str[w[0]:w[1]], false, false); l.parent != nil && !found; l = l.parent {
				eachMention(l.text, func(int, int) { found = true })
			}
			if found {
				for l := decodeAll(str[w[0]:w[1]], false, true); l.parent != nil; l = l.parent {
					decoded = append(decoded, l)
				}
			}
		}
		for _, l := range decoded {
			eachMention(l.text, func(a, b int) {
				a, b = l.origin(a, b)
				spans = append(spans, [2]int{w[0] + a, w[0] + b})
			})
		}
	}
	return mergeSpans(spans), ok
}

// mayMention is a fast, sound test for mentions: a string without
// "reference" in some case, without an escape, and without a run of
// base64 or hex long enough to encode the name, names no
// secret_reference.
func mayMention(str string) bool {
	return hasEscapes(str, false) || indexReference(str, 0) >= 0 || !isASCII(str) && mayFoldToReference(str) && foldedIndex(str, "reference") || mayEncodeMention(str)
}

// mayFoldToReference is a fast, sound test for foldedIndex(s,
// "reference"): the skeleton of s has the letters of "reference" (two r,
// four e, an f, an n and a c), or s has a character of three bytes or more,
// which it does not count. Decoded binary, which a base64 run of a key
// decodes to, seldom has them: it is counted, not folded.
func mayFoldToReference(s string) bool {
	t := foldTables()
	var n refCounts
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n[t.ascii[c]]++
			i++
			continue
		}
		if c >= 0xc2 && c <= 0xdf && i+1 < len(s) && s[i+1]&0xc0 == 0x80 {
			// A character of two bytes, decoded by hand.
			n.add(&t.two[rune(c&0x1f)<<6|rune(s[i+1]&0x3f)-utf8.RuneSelf])
			i += 2
			continue
		}
		if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size > 1 {
			return true
		}
		i++ // a byte that is no character has no skeleton
	}
	return n.all()
}

// latin1MayFoldToReference is mayFoldToReference for bytes read as
// ISO 8859-1, each the character of its value, without writing them so.
func latin1MayFoldToReference(b []byte) bool {
	t := foldTables()
	var n refCounts
	for _, c := range b {
		if c < utf8.RuneSelf {
			n[t.ascii[c]]++
		} else {
			n.add(&t.two[rune(c)-utf8.RuneSelf])
		}
	}
	return n.all()
}

// refCounts counts, in a skeleton, the letters "reference" is made of, by
// their place in refLetters (1 to 5; 0 counts the rest).
type refCounts [6]int

// refLetters are the letters of "reference", each once, after a place
// for none.
const refLetters = "\x00refnc"

// refNeeds is how many of each letter "reference" has.
var refNeeds = refCounts{0, 2, 4, 1, 1, 1}

// add adds the letters of one character's skeleton.
func (n *refCounts) add(m *[6]uint8) {
	for k := 1; k < len(n); k++ {
		n[k] += int(m[k])
	}
}

func (n *refCounts) all() bool {
	for k := 1; k < len(n); k++ {
		if n[k] < refNeeds[k] {
			return false
		}
	}
	return true
}

// foldTables say, for mayFoldToReference, which letter of "reference"
// each ASCII byte's skeleton is (its place in refLetters, 0 for none),
// and how many of each the skeleton of each character of two bytes has;
// made when first needed.
var foldTables = sync.OnceValue(func() *struct {
	ascii [utf8.RuneSelf]uint8
	two   [twoByteEnd - utf8.RuneSelf][6]uint8
} {
	t := new(struct {
		ascii [utf8.RuneSelf]uint8
		two   [twoByteEnd - utf8.RuneSelf][6]uint8
	})
	for c := range t.ascii {
		if f := foldASCII[c]; f != 0 {
			t.ascii[c] = uint8(max(strings.IndexByte(refLetters, f), 0))
		}
	}
	for k, sk := range twoByteSkeletons() {
		for p := 0; p < len(sk); p++ {
			if at := strings.IndexByte(refLetters, sk[p]); at > 0 {
				t.two[k][at]++
			}
		}
	}
	return t
})

// isASCII reports whether s is all ASCII, eight bytes at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64([]byte(s[i:i+8]))&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldedIndex reports whether word, lower-case ASCII, is in the skeleton
// of s (fold.go).
func foldedIndex(s, word string) bool {
	fs := foldStream{s: s}
	k := 0
	for {
		b, ok := fs.next()
		if !ok {
			return false
		}
		switch {
		case b == word[k]:
			if k++; k == len(word) {
				return true
			}
		case b == word[0]:
			k = 1
		default:
			k = 0
		}
	}
}

// indexReference returns where "reference", in any case, starts in text
// at or after from, or -1.
func indexReference(text string, from int) int {
	const word = "reference"
	c := newCaseCursor(text, 'f')
	for i := from; i+len(word) <= len(text); {
		f := c.next(i + 2)
		if f < 0 {
			return -1
		}
		at := f - 2 // the f is word[2]
		if at+len(word) <= len(text) && strings.EqualFold(text[at:at+len(word)], word) {
			return at
		}
		i = at + 1
	}
	return -1
}

// eachMention calls f with the span of each mention of secret_reference
// in text as it is: "secret" and "reference" in any case, with nothing
// between them or up to two of _ - . and space (secret_reference,
// secretReference, secret-reference, "Secret Reference"), not inside a
// longer identifier.
func eachMention(text string, f func(a, b int)) {
	if !isASCII(text) {
		eachFoldedMention(text, f)
	}
	for j := indexReference(text, 0); j >= 0; j = indexReference(text, j+1) {
		b := j + len("reference")
		k := j
		for n := 0; n < 3 && k > 0 && isMentionSeparator(text[k-1]); n++ {
			k--
		}
		a := k - len("secret")
		if a < 0 || !strings.EqualFold(text[a:k], "secret") {
			continue
		}
		if a > 0 && isIdentByte(text[a-1]) || b < len(text) && isIdentByte(text[b]) {
			continue
		}
		f(a, b)
	}
}

// eachFoldedMention calls f with the span of each mention of
// secret_reference in text's skeleton: written in another Unicode form,
// fullwidth, with a no-break space, a zero-width space or a mark inside,
// not inside a longer identifier.
func eachFoldedMention(text string, f func(a, b int)) {
	const word = "secretreference"
	var sk []byte
	var starts, ends []int32
	var buf [32]byte
	for i := 0; i < len(text); {
		fb, next := appendFoldAt(buf[:0], text, i)
		for range fb {
			starts, ends = append(starts, int32(i)), append(ends, int32(next))
		}
		sk = append(sk, fb...)
		i = next
	}
	for k := 0; ; {
		j := strings.Index(string(sk[k:]), word)
		if j < 0 {
			return
		}
		k += j
		a, b := int(starts[k]), int(ends[k+len(word)-1])
		k++
		if identBefore(text, a) || identAfter(text, b) {
			continue
		}
		f(a, b)
	}
}

// identBefore and identAfter report whether a letter, a digit or an
// underscore stands just before s[i], or at s[i].
func identBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func identAfter(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isMentionSeparator(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isIdentByte(c byte) bool { return isAlnum(c) || c == '_' }

// mergeSpans sorts spans and joins those that overlap.
func mergeSpans(spans [][2]int) [][2]int {
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(x, y [2]int) int { return cmp.Compare(x[0], y[0]) })
	out := spans[:1]
	for _, s := range spans[1:] {
		if last := &out[len(out)-1]; s[0] < last[1] {
			last[1] = max(last[1], s[1])
			continue
		}
		out = append(out, s)
	}
	return out
}
