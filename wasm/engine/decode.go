package engine

import (
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// This file decodes a string the way a reader of the agent view would:
// the backslash escapes of JSON and of other languages' string literals,
// HTML character references and percent-encoding, in any order and
// nested. Rule (d) looks for withheld values, and rule (c) for
// secret_reference, in every decoding of a string, and a match in a
// decoding maps back to the bytes it was written in.

// decoding is one way of reading escapes.
type decoding uint8

const (
	// backslashes reads \uXXXX (with surrogate pairs), \u{X…}, \xXX,
	// \UXXXXXXXX, the short escapes and a backslash before any other
	// character: JSON, JavaScript and Python string literals.
	backslashes decoding = iota
	// charRefs reads HTML character references: named, decimal and hex.
	charRefs
	// percents reads %XX and %uXXXX.
	percents
	// formPercents reads what percents reads, and + as a space, as in a
	// query string.
	formPercents
	// quotedPrintable reads =XX and the soft line break of raw e-mail
	// (RFC 2045).
	quotedPrintable
	// strictCharRefs reads what charRefs reads, but only references that
	// end in a semicolon.
	strictCharRefs
	// cssEscapes reads CSS's \HHHHHH, one to six hex digits and a space
	// that may end them, as html/template writes in style attributes.
	cssEscapes
)

// Bounds on decoding one window of a string (see windows). Past them the
// caller fails closed: the string is withheld, or emptied.
const (
	// maxDecodeDepth is how many decodings may be applied one after the
	// other: JSON text nested four deep, then HTML and a URL, and as many
	// again for independent escapes in one window, whose depths add up.
	maxDecodeDepth = 12
	// maxLayers is how many distinct decodings of one window are kept:
	// three kinds of escape, each nested three deep, make 64.
	maxLayers = 128
	// maxLayerBytes and maxLayerSlack bound their total size: a multiple
	// of the window's, and some.
	maxLayerBytes = 16
	maxLayerSlack = 256 << 10
)

// layer is one decoding of a string. Layer 0 is the string itself.
type layer struct {
	text   string
	parent *layer
	// segs lists, in order, what this decoding replaced: text[at:at+n]
	// was written parent.text[from:from+m]. Between two segments the
	// bytes are the parent's.
	segs  []segment
	depth int
}

type segment struct{ at, n, from, m int32 }

// hasEscapes reports whether s holds a byte that starts an escape of
// some decoding: a backslash, an ampersand or a percent sign, or a plus
// when plus is set. A string without one is its only decoding.
func hasEscapes(s string, plus bool) bool {
	if len(s) < 64 {
		// A table is cheaper than a search per byte for short strings.
		for i := 0; i < len(s); i++ {
			switch escapeLead[s[i]] {
			case 0:
			case leadEscape:
				return true
			case leadPlus:
				if plus {
					return true
				}
			case leadEquals:
				if isQPEscape(s, i) {
					return true
				}
			}
		}
		return false
	}
	return strings.IndexByte(s, '\\') >= 0 || strings.IndexByte(s, '&') >= 0 || strings.IndexByte(s, '%') >= 0 ||
		plus && strings.IndexByte(s, '+') >= 0 || hasQPEscape(s)
}

// isQPEscape reports whether s[i], an equals sign, starts an escape of
// quoted-printable: two hex digits, or a line break.
func isQPEscape(s string, i int) bool {
	if i+1 >= len(s) {
		return false
	}
	switch c := s[i+1]; {
	case c == '\n':
		return true
	case c == '\r':
		return i+2 < len(s) && s[i+2] == '\n'
	}
	return i+2 < len(s) && hexDigit(s[i+1]) >= 0 && hexDigit(s[i+2]) >= 0
}

// hasQPEscape reports whether s holds an escape of quoted-printable.
func hasQPEscape(s string) bool {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '=')
		if j < 0 {
			return false
		}
		if isQPEscape(s, i+j) {
			return true
		}
		i += j + 1
	}
}

// escapeStart marks the bytes that start an escape of some decoding.
var escapeStart = [256]bool{'\\': true, '&': true, '%': true}

// escapeLead says of each byte whether it may start an escape: always
// (leadEscape), in a query (leadPlus), or before two hex digits or a line
// break (leadEquals, quoted-printable).
var escapeLead = [256]uint8{'\\': leadEscape, '&': leadEscape, '%': leadEscape, '+': leadPlus, '=': leadEquals}

const (
	leadEscape = 1 + iota
	leadPlus
	leadEquals
)

// decodings returns s and its distinct decodings, each applied where it
// changes something, to maxDecodeDepth. With plus, a plus sign is also
// read as a space. Every decoding made, kept or not, is charged to budget
// (its text and what maps it back); ok is false when s has more decodings
// than maxLayers, or their cost runs past the budget, and the caller must
// then fail closed.
//
// Decodings of independent escapes multiply (a text with HTML, a URL and
// JSON escapes, each nested twice, has 27), so callers decode a string
// window by window (windows), not whole.
func decodings(s string, plus bool, extraDepth int, budget *int) (layers []*layer, ok bool) {
	root := &layer{text: s}
	layers = []*layer{root}
	if !hasEscapes(s, plus) {
		return layers, true
	}
	var seen map[string]bool
	for k := 0; k < len(layers); k++ {
		l := layers[k]
		for d := backslashes; d <= cssEscapes; d++ {
			if !d.applies(l.text, plus) {
				continue
			}
			// What the decoding would cost at most, before it is made.
			starts := d.starts(l.text)
			if len(l.text)+segmentSize*starts > *budget {
				return layers, false
			}
			text, segs := d.decode(l.text, starts)
			if segs == nil {
				continue
			}
			*budget -= len(text) + segmentSize*len(segs)
			if seen == nil {
				seen = map[string]bool{s: true}
			}
			if seen[text] {
				continue
			}
			if l.depth >= maxDecodeDepth+extraDepth || len(layers) >= maxLayers {
				return layers, false
			}
			seen[text] = true
			layers = append(layers, &layer{text: text, parent: l, segs: segs, depth: l.depth + 1})
		}
	}
	return layers, true
}

// decodeBudget is what decoding one string may cost, in bytes of decoded
// text and of what maps it back, across all its windows.
func decodeBudget(s string) int { return maxLayerBytes*len(s) + maxLayerSlack }

// segmentSize is what one segment takes.
const segmentSize = 16

// applies reports whether text holds what d decodes.
func (d decoding) applies(text string, plus bool) bool {
	switch d {
	case backslashes:
		return strings.IndexByte(text, '\\') >= 0
	case charRefs:
		return strings.IndexByte(text, '&') >= 0
	case percents:
		return strings.IndexByte(text, '%') >= 0
	case quotedPrintable:
		return hasQPEscape(text)
	case cssEscapes:
		return hasCSSEscape(text)
	case strictCharRefs:
		return strings.IndexByte(text, '&') >= 0
	default:
		return plus && strings.IndexByte(text, '+') >= 0
	}
}

// hasCSSEscape reports whether text holds a backslash before a hex digit.
func hasCSSEscape(text string) bool {
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '\\')
		if j < 0 || i+j+1 >= len(text) {
			return false
		}
		if hexDigit(text[i+j+1]) >= 0 {
			return true
		}
		i += j + 1
	}
}

// starts counts the bytes of text where an escape of d may start.
func (d decoding) starts(text string) int {
	switch d {
	case backslashes:
		return strings.Count(text, `\`)
	case charRefs:
		return strings.Count(text, "&")
	case percents:
		return strings.Count(text, "%")
	case quotedPrintable:
		return strings.Count(text, "=")
	case cssEscapes:
		return strings.Count(text, `\`)
	case strictCharRefs:
		return strings.Count(text, "&")
	default:
		return strings.Count(text, "%") + strings.Count(text, "+")
	}
}

// decode returns text decoded and what it replaced; segs is nil when
// nothing was. starts is how many escapes there may be.
func (d decoding) decode(text string, starts int) (string, []segment) {
	var dec decoder
	switch d {
	case backslashes:
		dec = decodeBackslash
	case charRefs:
		dec = decodeCharRef
	case percents:
		dec = func(s string, i int, b []byte) ([]byte, int) { return decodePercent(s, i, b, false) }
	case quotedPrintable:
		dec = decodeQP
	case cssEscapes:
		dec = decodeCSS
	case strictCharRefs:
		dec = decodeStrictCharRef
	default:
		dec = func(s string, i int, b []byte) ([]byte, int) { return decodePercent(s, i, b, true) }
	}
	var (
		b    []byte
		segs []segment
		last int
	)
	for i := 0; i < len(text); {
		j := indexEscape(d, text, i)
		if j < 0 {
			break
		}
		out, m := dec(text, j, nil)
		if m == 0 {
			i = j + 1
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(text))
			segs = make([]segment, 0, starts)
		}
		b = append(b, text[last:j]...)
		segs = append(segs, segment{at: int32(len(b)), n: int32(len(out)), from: int32(j), m: int32(m)})
		b = append(b, out...)
		i, last = j+m, j+m
	}
	if segs == nil {
		return text, nil
	}
	b = append(b, text[last:]...)
	return string(b), segs
}

// indexEscape returns where the next escape d may start at or after i.
func indexEscape(d decoding, s string, i int) int {
	var j int
	switch d {
	case backslashes:
		j = strings.IndexByte(s[i:], '\\')
	case charRefs:
		j = strings.IndexByte(s[i:], '&')
	case percents:
		j = strings.IndexByte(s[i:], '%')
	case quotedPrintable:
		j = strings.IndexByte(s[i:], '=')
	case cssEscapes:
		j = strings.IndexByte(s[i:], '\\')
	case strictCharRefs:
		j = strings.IndexByte(s[i:], '&')
	default:
		j = strings.IndexAny(s[i:], "%+")
	}
	if j < 0 {
		return -1
	}
	return i + j
}

// A decoder reads the escape at s[i], appends what it stands for to b,
// and returns how many bytes it took: 0 when s[i] starts none.
type decoder func(s string, i int, b []byte) ([]byte, int)

// decodeBackslash reads a string literal's escape.
func decodeBackslash(s string, i int, b []byte) ([]byte, int) {
	if i+1 >= len(s) {
		return b, 0
	}
	switch c := s[i+1]; c {
	case 'u':
		if i+2 < len(s) && s[i+2] == '{' {
			// JavaScript's \u{1F600}.
			return braced(s, i, b)
		}
		r, ok := hexAt(s, i+2, 4)
		if !ok {
			return b, 0
		}
		if utf16.IsSurrogate(r) {
			if r < 0xdc00 && i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
				if r2, ok := hexAt(s, i+8, 4); ok {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						return utf8.AppendRune(b, d), 12
					}
				}
			}
			r = utf8.RuneError
		}
		return utf8.AppendRune(b, r), 6
	case 'U':
		r, ok := hexAt(s, i+2, 8)
		if !ok {
			return b, 0
		}
		return appendCodePoint(b, r), 10
	case 'x':
		if i+2 < len(s) && s[i+2] == '{' {
			// Perl's and PHP's \x{fc}.
			return braced(s, i, b)
		}
		return decodeBytes(s, i, b, hexByte)
	case '0', '1', '2', '3', '4', '5', '6', '7':
		// Octal, as C, Python, bash and git write bytes: \303\274.
		return decodeBytes(s, i, b, octalByte)
	case 'n':
		return append(b, '\n'), 2
	case 't':
		return append(b, '\t'), 2
	case 'r':
		return append(b, '\r'), 2
	case 'b':
		return append(b, '\b'), 2
	case 'f':
		return append(b, '\f'), 2
	case 'v':
		return append(b, '\v'), 2
	case 'a':
		return append(b, '\a'), 2
	case '\n':
		// A line continuation stands for nothing.
		return b, 2
	case '\r':
		if i+2 < len(s) && s[i+2] == '\n' {
			return b, 3
		}
		return b, 2
	default:
		// \" \' \\ \/ and, as JavaScript reads them, any other character.
		_, n := utf8.DecodeRuneInString(s[i+1:])
		return append(b, s[i+1:i+1+n]...), 1 + n
	}
}

// braced reads \u{…} or \x{…} at s[i]: hex digits, any number of leading
// zeros (as JavaScript and Perl take them), and at most six others.
func braced(s string, i int, b []byte) ([]byte, int) {
	j := i + 3
	for j < len(s) && s[j] == '0' {
		j++
	}
	start := j
	for j < len(s) && j-start <= 6 && hexDigit(s[j]) >= 0 {
		j++
	}
	if j >= len(s) || s[j] != '}' || j-start > 6 || j == i+3 {
		return b, 0
	}
	r := rune(0)
	if j > start {
		r, _ = parseHex(s[start:j])
	}
	return appendCodePoint(b, r), j + 1 - i
}

// decodeBytes reads a run of escapes that each stand for one byte (\xXX,
// \ooo, %XX), read by byteAt. A run that spells a UTF-8 sequence is that
// character, read as one escape so that a removal never splits it; a lone
// byte of 0x80 or more is the character of that code point, as Python's
// \xfc and JavaScript's escape() %FC are ü.
func decodeBytes(s string, i int, b []byte, byteAt func(string, int) (byte, int)) ([]byte, int) {
	c, n := byteAt(s, i)
	if n == 0 {
		return b, 0
	}
	if c < 0x80 {
		return append(b, c), n
	}
	var seq [utf8.UTFMax]byte
	seq[0] = c
	size, end := 1, i+n
	for size < utf8.UTFMax {
		c2, n2 := byteAt(s, end)
		if n2 == 0 || c2&0xc0 != 0x80 {
			break
		}
		seq[size] = c2
		size++
		end += n2
		if r, w := utf8.DecodeRune(seq[:size]); r != utf8.RuneError && w == size {
			return append(b, seq[:size]...), end - i
		}
	}
	return utf8.AppendRune(b, rune(c)), n
}

// hexByte reads \xXX at s[i]; 0 bytes when there is none.
func hexByte(s string, i int) (byte, int) {
	if i+4 > len(s) || s[i] != '\\' || s[i+1] != 'x' {
		return 0, 0
	}
	c, ok := hexAt(s, i+2, 2)
	if !ok {
		return 0, 0
	}
	return byte(c), 4
}

// octalByte reads \o, \oo or \ooo (to \377) at s[i].
func octalByte(s string, i int) (byte, int) {
	if i+2 > len(s) || s[i] != '\\' {
		return 0, 0
	}
	v, j := 0, i+1
	for j < len(s) && j < i+4 && s[j] >= '0' && s[j] <= '7' && v*8+int(s[j]-'0') <= 0o377 {
		v = v*8 + int(s[j]-'0')
		j++
	}
	if j == i+1 {
		return 0, 0
	}
	return byte(v), j - i
}

// percentByte reads %XX at s[i].
func percentByte(s string, i int) (byte, int) {
	if i+3 > len(s) || s[i] != '%' {
		return 0, 0
	}
	c, ok := hexAt(s, i+1, 2)
	if !ok {
		return 0, 0
	}
	return byte(c), 3
}

// decodePercent reads %XX (a run of them spelling UTF-8 as one, a lone
// one past ASCII as that code point), %uXXXX, and with plus, + as a
// space.
func decodePercent(s string, i int, b []byte, plus bool) ([]byte, int) {
	if s[i] == '+' {
		if plus {
			return append(b, ' '), 1
		}
		return b, 0
	}
	if i+1 < len(s) && (s[i+1] == 'u' || s[i+1] == 'U') {
		if r, ok := hexAt(s, i+2, 4); ok {
			if utf16.IsSurrogate(r) {
				if r < 0xdc00 && i+12 <= len(s) && s[i+6] == '%' && (s[i+7] == 'u' || s[i+7] == 'U') {
					if r2, ok := hexAt(s, i+8, 4); ok {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							return utf8.AppendRune(b, d), 12
						}
					}
				}
				r = utf8.RuneError
			}
			return utf8.AppendRune(b, r), 6
		}
	}
	return decodeBytes(s, i, b, percentByte)
}

// decodeCSS reads a CSS escape: a backslash, one to six hex digits, and
// one white space that ends them.
func decodeCSS(s string, i int, b []byte) ([]byte, int) {
	j := i + 1
	for j < len(s) && j-i <= 6 && hexDigit(s[j]) >= 0 {
		j++
	}
	if j == i+1 {
		return b, 0
	}
	r, _ := parseHex(s[i+1 : j])
	switch {
	case strings.HasPrefix(s[j:], "\r\n"):
		j += 2
	case j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r' || s[j] == '\f'):
		j++
	}
	return appendCodePoint(b, r), j - i
}

// decodeQP reads quoted-printable's =XX (a run spelling UTF-8 as one,
// as percent-encoding's) and its soft line break, which stands for
// nothing.
func decodeQP(s string, i int, b []byte) ([]byte, int) {
	switch {
	case !isQPEscape(s, i):
		return b, 0
	case s[i+1] == '\n':
		return b, 2
	case s[i+1] == '\r':
		return b, 3
	}
	return decodeBytes(s, i, b, qpByte)
}

// qpByte reads =XX at s[i], and a soft line break before it: a writer
// that wraps at 76 columns may break a character's bytes apart.
func qpByte(s string, i int) (byte, int) {
	skip := 0
	switch {
	case strings.HasPrefix(s[i:], "=\r\n="):
		skip = 3
	case strings.HasPrefix(s[i:], "=\n="):
		skip = 2
	}
	j := i + skip
	if j+3 > len(s) || s[j] != '=' {
		return 0, 0
	}
	c, ok := hexAt(s, j+1, 2)
	if !ok {
		return 0, 0
	}
	return byte(c), skip + 3
}

// decodeCharRef reads an HTML character reference: &#DDD; &#xHHH; (the
// semicolon optional, as browsers read them) and the named references
// of entities.go.
func decodeCharRef(s string, i int, b []byte) ([]byte, int) {
	return charRef(s, i, b, false)
}

// decodeStrictCharRef reads only the character references that end in a
// semicolon: a value that holds "&#8" of its own keeps it, where the
// lenient reading would take it for a reference.
func decodeStrictCharRef(s string, i int, b []byte) ([]byte, int) {
	return charRef(s, i, b, true)
}

// charRef reads the character reference at s[i]; strict, only one that
// ends in a semicolon.
func charRef(s string, i int, b []byte, strict bool) ([]byte, int) {
	j := i + 1
	if j < len(s) && s[j] == '#' {
		j++
		base := 10
		if j < len(s) && (s[j] == 'x' || s[j] == 'X') {
			base = 16
			j++
		}
		start := j
		var r rune
		for j < len(s) && hexDigit(s[j]) >= 0 && (base == 16 || s[j] <= '9') {
			if r <= utf8.MaxRune {
				r = r*rune(base) + rune(hexDigit(s[j]))
			}
			j++
		}
		if j == start {
			return b, 0
		}
		if j < len(s) && s[j] == ';' {
			j++
		} else if strict {
			return b, 0
		}
		switch {
		case r >= 0x80 && r <= 0x9f:
			// Browsers read these as windows-1252.
			if c := windows1252[r-0x80]; c != 0 {
				r = c
			}
		case r == 0 || r > utf8.MaxRune || utf16.IsSurrogate(r):
			r = utf8.RuneError
		}
		return utf8.AppendRune(b, r), j - i
	}
	for j < len(s) && j-i <= maxEntityName && isAlnum(s[j]) {
		j++
	}
	name := s[i+1 : j]
	if j < len(s) && s[j] == ';' {
		if r, ok := entities[name]; ok {
			return utf8.AppendRune(b, r), j + 1 - i
		}
	}
	// The legacy names read without a semicolon, longest first.
	for k := len(name); k >= 2 && !strict; k-- {
		if r, ok := legacyEntities[name[:k]]; ok {
			return utf8.AppendRune(b, r), 1 + k
		}
	}
	return b, 0
}

// windows1252 maps the C1 code points of numeric references as browsers
// do (the HTML standard's replacement table); 0 means unchanged.
var windows1252 = [32]rune{
	0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0,
	0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// hexAt reads n hex digits at s[i].
func hexAt(s string, i, n int) (rune, bool) {
	if i < 0 || i+n > len(s) {
		return 0, false
	}
	return parseHex(s[i : i+n])
}

func parseHex(h string) (rune, bool) {
	var r rune
	for k := 0; k < len(h); k++ {
		d := hexDigit(h[k])
		if d < 0 {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, len(h) > 0
}

// appendCodePoint appends r, or U+FFFD where r is no character.
func appendCodePoint(b []byte, r rune) []byte {
	if r > utf8.MaxRune || utf16.IsSurrogate(r) {
		r = utf8.RuneError
	}
	return utf8.AppendRune(b, r)
}

// windows returns the spans of s that hold its escapes: runs of escapes
// no more than gap apart, widened by gap and the longest escape on either
// side. An escape reaches to the end of the letters, digits, #, ; and
// braces after the byte that starts it, however many (&#000…0252; is one
// escape). A value whose echo is gap bytes or shorter, decoded, lies whole
// in one window: its literal characters are at most gap bytes between two
// of its escapes or beside them. Escapes far apart decode independently,
// and their decodings do not multiply.
func windows(s string, plus bool, gap int) [][2]int {
	margin := gap + maxEscapeLength
	var out [][2]int
	first, last := -1, -1
	flush := func() {
		if first < 0 {
			return
		}
		out = append(out, [2]int{max(0, first-margin), min(len(s), last+margin)})
	}
	for i := 0; i < len(s); i++ {
		if !escapeStart[s[i]] && !(plus && s[i] == '+') && !(s[i] == '=' && isQPEscape(s, i)) {
			continue
		}
		if first >= 0 && i-last > gap {
			flush()
			first = -1
		}
		if first < 0 {
			first = i
		}
		j := i + 1
		for j < len(s) && escapeBody(s[j]) {
			j++
		}
		last = j
		i = j - 1
	}
	flush()
	return out
}

// escapeBody reports whether c can follow the byte that starts an escape,
// within it.
func escapeBody(c byte) bool {
	return isAlnum(c) || c == '#' || c == ';' || c == '{' || c == '}'
}

// maxEscapeLength is the longest escape any decoding reads, after the byte
// that starts it: \UXXXXXXXX, a surrogate pair, a named reference.
const maxEscapeLength = 24

// decodeAll decodes every escape of every kind in s, left to right, and
// again on what that gives, until nothing changes or maxDecodeDepth
// passes; with plus, a plus sign is a space. Its cost is linear. Unlike
// decodings it can read a value's own escape-like characters (a withheld
// "%41") as escapes, so it finds only values that have none: it is the
// fallback, past the bounds, that finds secret_reference, and withheld
// values without a backslash, ampersand, percent or plus sign. Without keepSegs its layers cannot map back (origin),
// and cost only their text.
func decodeAll(s string, plus, keepSegs bool) *layer {
	l := &layer{text: s}
	for range maxDecodeDepth {
		var (
			b    []byte
			segs []segment
			last int
		)
		text := l.text
		for i := 0; i < len(text); i++ {
			var out []byte
			m := 0
			switch text[i] {
			case '\\':
				out, m = decodeBackslash(text, i, nil)
			case '&':
				out, m = decodeCharRef(text, i, nil)
			case '%', '+':
				out, m = decodePercent(text, i, nil, plus)
			case '=':
				out, m = decodeQP(text, i, nil)
			}
			if m == 0 {
				continue
			}
			b = append(b, text[last:i]...)
			if keepSegs || segs == nil {
				segs = append(segs, segment{at: int32(len(b)), n: int32(len(out)), from: int32(i), m: int32(m)})
			}
			b = append(b, out...)
			last = i + m
			i += m - 1
		}
		if segs == nil {
			return l
		}
		if !keepSegs {
			segs = nil
		}
		b = append(b, text[last:]...)
		l = &layer{text: string(b), parent: l, segs: segs, depth: l.depth + 1}
	}
	return l
}

// origin maps text[a:b] of l back to the span of layer 0 it was written
// in: an escape that a match touches is taken whole.
func (l *layer) origin(a, b int) (int, int) {
	for ; l.parent != nil; l = l.parent {
		a, b = l.upStart(a), l.upEnd(b)
	}
	return a, b
}

// upStart maps the offset p of l's text to its parent's.
func (l *layer) upStart(p int) int {
	k := sort.Search(len(l.segs), func(k int) bool { return int(l.segs[k].at) > p }) - 1
	if k < 0 {
		return p
	}
	s := l.segs[k]
	if p < int(s.at+s.n) {
		return int(s.from)
	}
	return int(s.from+s.m) + p - int(s.at+s.n)
}

// upEnd maps the end offset p (exclusive) of a non-empty span of l's
// text to its parent's.
func (l *layer) upEnd(p int) int {
	q := p - 1
	k := sort.Search(len(l.segs), func(k int) bool { return int(l.segs[k].at) > q }) - 1
	if k < 0 {
		return p
	}
	s := l.segs[k]
	if q < int(s.at+s.n) {
		return int(s.from + s.m)
	}
	return int(s.from+s.m) + p - int(s.at+s.n)
}
