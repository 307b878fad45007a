package engine

import (
	"sort"
	"strings"
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
// that starts it: \UXXXXXXXX, a surrogate pair, a named reference (HTML's
// longest, &CounterClockwiseContourIntegral;, is 32).
const maxEscapeLength = 32

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
