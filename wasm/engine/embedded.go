package engine

import (
	"strings"
	"unicode/utf8"

	"github.com/veilmcp/veil/wasm/engine/internal/schema"
)

// This file reads JSON text written in a string (a text item holding the
// result's JSON, JSON Lines, JSON quoted in a sentence) as the value the
// tool's outputSchema describes, so that what the schema makes sensitive
// there is removed from the string too.

// embeddedValues reads the JSON text in each string of the output (the
// MCP convention of a text item holding the result's JSON, a resource's
// text, a payload member, JSON Lines, JSON quoted in prose, JSON text
// stringified twice) as the value outputSchema describes, and adds what
// the schema makes sensitive there to what rule (d) removes: from a
// string the view keeps, which is rewritten without it, and from every
// later output, also when the string itself is withheld (an undeclared
// member in an allowlist). It reports whether a string the view keeps
// held any.
func (w *walker) embeddedValues(start *schema.State) bool {
	tr := w.tr
	found := false
	withheldUntil := 0 // the end of the withheld subtree the walk is in
	for i := 0; i < len(tr.nodes); i++ {
		switch w.act[i] {
		case drop:
			i = int(tr.nodes[i].next) - 1
			continue
		case withhold:
			withheldUntil = max(withheldUntil, int(tr.nodes[i].next))
		}
		if tr.nodes[i].kind != kString {
			continue
		}
		var left leftovers
		if w.jsonTextValues(tr.str(i), start, 0, &left) && i >= withheldUntil {
			found = true
			switch {
			case left.whole:
				// true, false or null, which no search of the string can
				// take out of it alone, or JSON text past the bounds of
				// reading it, which might hold anything.
				w.withhold(i)
			case len(left.short) > 0:
				w.localSet(i).addShort(left.short)
			}
		}
	}
	return found
}

// mayHoldJSON reports whether str has a byte that JSON text in it starts
// with or is quoted by: a brace, a bracket or a quote. Most strings have
// none, and every string of a view is asked.
func mayHoldJSON(str string) bool {
	for i := 0; i < len(str); i++ {
		if c := str[i]; c == '{' || c == '[' || c == '"' {
			return true
		}
	}
	return false
}

// jsonTextValues reads each JSON value written in str against the schema
// (embeddedValues), at depth of JSON text in JSON text, and reports
// whether the schema makes any of it sensitive.
// What the session's set cannot take is noted in left.
func (w *walker) jsonTextValues(str string, start *schema.State, depth int, left *leftovers) bool {
	if !mayHoldJSON(str) {
		return false
	}
	if depth > maxEmbeddedDepth {
		// JSON text nested deeper than it is read: it might hold what
		// the schema makes sensitive.
		left.whole = true
		return true
	}
	found := false
	if quotesEscaped(str) && w.jsonTextValues(htmlText(str), start, depth+1, left) {
		// JSON text in an HTML attribute (data-record="{&quot;key&quot;:
		// …}"), as html.escape and template engines write it.
		found = true
	}
	if t := strings.TrimSpace(str); strings.HasPrefix(t, `"`) {
		// JSON text stringified again.
		if sub, err := parseTree(t); err == nil && sub.nodes[0].kind == kString {
			return w.jsonTextValues(sub.str(0), start, depth+1, left)
		}
	}
	read, failed := 0, 0
	for pos := 0; pos < len(str); {
		j := strings.IndexAny(str[pos:], "{[")
		if j < 0 {
			break
		}
		begin := pos + j
		sub, end, err := parsePrefix(str[begin:])
		if read += end; read > maxEmbeddedRead*len(str)+maxEmbeddedSlack {
			// Past the bounds of reading: what is left might hold it.
			left.whole = true
			return true
		}
		if err != nil || sub.nodes[0].kind < kArray {
			if failed++; failed > maxEmbeddedTries {
				left.whole = true
				return true
			}
			pos = begin + 1
			continue
		}
		sw := &walker{e: w.e, t: w.t, tr: sub, act: make([]action, len(sub.nodes)), set: w.set, viewOnly: w.viewOnlySet(), mode: denyMode}
		sw.walk(0, start, true)
		found = found || len(sw.held) > 0
		left.note(sw)
		for k := range sub.nodes {
			if sub.nodes[k].kind == kString && sw.act[k] == keep && w.jsonTextValues(sub.str(k), start, depth+1, left) {
				found = true
			}
		}
		pos = begin + max(end, 1)
	}
	return found
}

// leftovers is what the schema makes sensitive in a string's JSON text
// that the session's set does not take, so that no search of the string
// would remove it: strings and numbers shorter than minScrubLength, which
// go from this string alone (short, each with its kind); and true, false
// and null, or JSON text past the bounds of reading it (whole), which
// make the string withheld whole.
type leftovers struct {
	short []leftover
	whole bool
}

type leftover struct {
	v      string
	number bool
}

// note adds the leaves of the withheld nodes of sw's tree that the
// session's set does not take.
func (l *leftovers) note(sw *walker) {
	tr := sw.tr
	for _, k := range sw.held {
		for m := k; m < int(tr.nodes[k].next); m++ {
			var v string
			switch tr.nodes[m].kind {
			case kNull, kBool:
				l.whole = true
				continue
			case kString:
				v = strings.TrimSpace(tr.str(m))
			case kNumber:
				v = tr.text(m)
			default:
				continue
			}
			if v != "" && (len(v) < minScrubLength || utf8.RuneCountInString(v) < minScrubLength) {
				l.short = append(l.short, leftover{v, tr.nodes[m].kind == kNumber})
			}
		}
	}
}

// localSet returns the set of what goes from string node i alone,
// whatever its length, made when first asked.
func (w *walker) localSet(i int) *scrubSet {
	if w.local == nil {
		w.local = map[int]*scrubSet{}
	}
	l := w.local[i]
	if l == nil {
		l = &scrubSet{noMin: true}
		w.local[i] = l
	}
	return l
}

// addShort adds short values to a set for one string (noMin).
func (s *scrubSet) addShort(vs []leftover) {
	for _, x := range vs {
		if x.number {
			s.addNumber(x.v)
		} else {
			s.addString(x.v)
		}
	}
}

// quotesEscaped reports whether str writes a quote as an HTML character
// reference, as JSON text in an HTML attribute has it.
func quotesEscaped(str string) bool {
	for i := strings.IndexByte(str, '&'); i >= 0; i = indexByteFrom(str, '&', i+1) {
		if r, n := decodeCharRef(str, i, nil); n > 0 && string(r) == `"` {
			return true
		}
	}
	return false
}

// indexByteFrom is strings.IndexByte from str[from:], as an index of str.
func indexByteFrom(str string, c byte, from int) int {
	if j := strings.IndexByte(str[from:], c); j >= 0 {
		return from + j
	}
	return -1
}

// htmlText decodes the HTML character references of str.
func htmlText(str string) string {
	b := make([]byte, 0, len(str))
	for i := 0; i < len(str); {
		if str[i] == '&' {
			if out, n := decodeCharRef(str, i, b); n > 0 {
				b, i = out, i+n
				continue
			}
		}
		b = append(b, str[i])
		i++
	}
	return string(b)
}
