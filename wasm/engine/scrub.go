package engine

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/veilmcp/veil/wasm/engine/internal/jsontree"
	"github.com/veilmcp/veil/wasm/internal/jsonx"
)

// This file holds rule (d): what the view withholds is removed from every
// other string the agent gets, in whatever form a reader would decode it
// from (decode.go): escaped, HTML-encoded, percent-encoded, a number
// written as a string or a string as a number (number.go).

// minScrubLength is the fewest characters a withheld string or number
// needs to be removed elsewhere: shorter values are not specific, and
// removing every "42" or "yes" would mangle the view. A number counts the
// characters of its text, sign aside. One whose value written plainly is
// shorter (a PIN 0420, whose value is 420) is found as written only.
const minScrubLength = 4

// maxScrubRounds bounds how often a string is scrubbed again because a
// removal joined the halves of another withheld value. A string that
// still holds one after that many is emptied.
const maxScrubRounds = 8

// scrubber removes the values of one or more scrubSets (the view's own,
// and the session's) from the strings the agent gets.
type scrubber struct {
	sets []*scrubSet // those with needles
	// exacts and skels are the sets' tables that hold needles.
	exacts, skels []*needleTable
	// any: some set has needles; numbers: some set has numbers.
	any, numbers bool
	// plus: a value holds a space, so a plus sign in a query string can
	// stand for it.
	plus bool
	// gap is the widest window of escapes a match can lie in (windows).
	gap int
	// escapy: a value holds a byte that starts an escape, so decodeAll
	// cannot stand in for decodings past their bounds.
	escapy bool
	// short is every set's short values (shorter than four bytes), each
	// once; shortAt, made when there are more than a few, finds each by
	// its bytes so that a text is read once for all of them (eachShort).
	short   []string
	shortAt map[string]int
}

// newScrubber returns a scrubber of the sets given; nil ones are none.
func newScrubber(sets ...*scrubSet) *scrubber {
	s := &scrubber{gap: 64 + maxEscapeLength}
	for _, set := range sets {
		if set.empty() {
			continue
		}
		s.sets = append(s.sets, set)
		s.any = true
		if set.exact.n > 0 {
			s.exacts = append(s.exacts, &set.exact)
		}
		if set.skel.n > 0 {
			s.skels = append(s.skels, &set.skel)
		}
		s.numbers = s.numbers || len(set.numbers) > 0 || len(set.digits) > 0
		s.plus = s.plus || set.plus
		s.escapy = s.escapy || set.escapy
		// A skeleton match may take six bytes a skeleton byte: a
		// fullwidth character, or one with a zero-width space after it.
		s.gap = max(s.gap, set.exact.longest+maxEscapeLength, 6*set.skel.longest+maxEscapeLength)
		for _, x := range set.short {
			s.plus = s.plus || strings.IndexByte(x, ' ') >= 0
			if _, dup := s.shortAt[x]; dup {
				continue
			}
			if s.shortAt == nil {
				s.shortAt = map[string]int{}
			}
			s.shortAt[x] = len(s.short)
			s.short = append(s.short, x)
		}
	}
	if len(s.short) <= maxShortScans {
		s.shortAt = nil
	}
	return s
}

// contains reports whether str holds a withheld value in any decoding,
// or has more decodings than can be searched.
func (s *scrubber) contains(str string) bool {
	if !s.any {
		return false
	}
	found := false
	ok := s.eachSpan(str, func(int, int) bool { found = true; return false })
	return found || !ok || s.jsonSplit(str)
}

// jsonSplit reports whether str is JSON text with a withheld value split
// across consecutive strings of one of its objects or arrays, or in the
// bytes of an array of byte values (byteArrayHolds).
func (s *scrubber) jsonSplit(str string) bool {
	if !looksLikeJSON(str) || len(s.skels) == 0 && strings.IndexByte(str, '[') < 0 && !strings.Contains(str, `"0"`) {
		return false
	}
	tr, err := parseTree(str)
	all := func(int) bool { return true }
	return err == nil && (siblingJoins(tr, all, s, func(int, int, int) {}) || s.byteArrays(tr, all))
}

// containsRaw reports whether a JSON text holds, in its strings, member
// names or numbers, a withheld value that a search of its bytes as they
// are finds, of what its runs of base64 and hex decode to, or of the
// bytes its characters were read from in the wrong encoding. A text
// without escapes needs no more.
func (s *scrubber) containsRaw(text string) bool {
	if !s.any {
		return false
	}
	found := false
	stop := func(int, int) bool { found = true; return false }
	ok, runs := s.eachMatchRuns(text, stop)
	ok = ok && (found || !runs || s.eachEncodedMatch(text, 0, stop))
	// The bytes its characters were read from in the wrong encoding
	// (readings.go); a text of ASCII alone has none.
	return found || !ok || s.readingsHold(text)
}

// eachSpan calls f with the span of str that every match in every
// decoding of str was written in. It reports false when str has more
// decodings than the bounds allow, or matching cost more than its budget.
func (s *scrubber) eachSpan(str string, f func(a, b int) bool) bool {
	return s.eachSpanAt(str, 0, f)
}

// eachSpanAt is eachSpan for a text that depth encoded runs were decoded
// to reach (binary.go).
func (s *scrubber) eachSpanAt(str string, depth int, f func(a, b int) bool) bool {
	stop := false
	g := func(a, b int) bool {
		stop = !f(a, b)
		return !stop
	}
	// found keeps what the search of str as it is found: a run inside it
	// goes already, and need not be decoded (the common echo: a withheld
	// key, itself a run of base64's alphabet, repeated whole).
	var found [][2]int
	ok, runs := s.eachMatchRuns(str, func(a, b int) bool {
		found = append(found, [2]int{a, b})
		return g(a, b)
	})
	if !ok {
		return false
	}
	if stop {
		return true
	}
	encoded := depth < maxBinaryDepth
	if encoded && runs && !s.eachEncodedMatchOutside(str, depth, mergeSpans(found), g) {
		return false
	}
	// The bytes its characters were read from, in the wrong encoding
	// (readings.go).
	if !stop && !s.eachReadingMatch(str, g) {
		return false
	}
	if stop || !hasEscapes(str, s.plus) {
		return true
	}
	budget := decodeBudget(str)
	for _, w := range windows(str, s.plus, s.gap) {
		layers, ok := decodings(str[w[0]:w[1]], s.plus, 0, &budget)
		if !ok {
			if s.escapy {
				return false
			}
			// Past the bounds, and no withheld value has an escape of
			// its own: every decoding decodeAll passes through.
			layers = append(layers[:0], nil) // layer 0 was searched whole
			for l := decodeAll(str[w[0]:w[1]], s.plus, true); l.parent != nil; l = l.parent {
				layers = append(layers, l)
			}
		}
		for _, l := range layers[1:] {
			h := func(a, b int) bool {
				a, b = l.origin(a, b)
				return g(w[0]+a, w[0]+b)
			}
			if !s.eachMatch(l.text, h) || encoded && !stop && !s.eachEncodedMatch(l.text, depth, h) || !stop && !s.eachReadingMatch(l.text, h) {
				return false
			}
			if stop {
				return true
			}
		}
	}
	return true
}

// eachEncodedMatch calls f with each run of str that is an encoding
// (base64, hex) of a text holding a withheld value; the run goes whole.
func (s *scrubber) eachEncodedMatch(str string, depth int, f func(a, b int) bool) bool {
	return s.eachEncodedMatchOutside(str, depth, nil, f)
}

// eachEncodedMatchOutside is eachEncodedMatch for a str of which the
// spans gone, sorted and apart, are removed already: a run inside one of
// them is not decoded, as whatever it holds goes with it.
func (s *scrubber) eachEncodedMatchOutside(str string, depth int, gone [][2]int, f func(a, b int) bool) bool {
	budget := decodeBudget(str)
	searched := true
	var latin []byte
	found := false
	stop := func(int, int) bool { found = true; return false }
	ok := eachEncodedOutside(str, &budget, gone, func(a, b int, decoded []byte) bool {
		if within(gone, a, b) {
			return true
		}
		found = false
		// Read in place: the search keeps nothing of what it reads.
		if !s.eachSpanAt(unsafe.String(unsafe.SliceData(decoded), len(decoded)), depth+1, stop) {
			// Past the bounds of searching what it decodes to: the run
			// might hold one.
			found = true
		}
		if !found && !utf8.Valid(decoded) {
			// Bytes that are no UTF-8 may be Latin-1, as JavaScript's
			// btoa and many older systems write text.
			latin = appendLatin1(latin[:0], decoded)
			if !s.eachSpanAt(unsafe.String(unsafe.SliceData(latin), len(latin)), depth+1, stop) {
				found = true
			}
		}
		if found {
			searched = f(a, b)
			// One decoding of a run that holds a value is enough.
			return searched
		}
		return true
	})
	return ok || !searched
}

// within reports whether [a, b) lies inside one of spans, which are
// sorted and apart (mergeSpans).
func within(spans [][2]int, a, b int) bool {
	k, _ := slices.BinarySearchFunc(spans, a, func(sp [2]int, a int) int { return cmp.Compare(sp[0], a+1) })
	return k > 0 && spans[k-1][0] <= a && b <= spans[k-1][1]
}

// scrub returns str without any withheld value, and whether it changed.
// A str that is JSON text is rewritten from its parsed form, so that a
// removal leaves valid JSON: a member whose name holds a withheld value
// and a withheld number are left out, and strings are scrubbed, to the
// depth of JSON text in JSON text that references are read to.
func (s *scrubber) scrub(str string) (string, bool) {
	return s.scrubDepth(str, 0)
}

func (s *scrubber) scrubDepth(str string, depth int) (string, bool) {
	if !s.any {
		return str, false
	}
	if depth <= maxEmbeddedDepth && looksLikeJSON(str) {
		if tr, err := parseTree(str); err == nil && tr.nodes[0].kind >= kArray {
			all := func(int) bool { return true }
			if !s.contains(str) && !siblingJoins(tr, all, s, func(int, int, int) {}) && !s.byteArrays(tr, all) {
				return str, false
			}
			// A withheld value that spans the text's syntax ("[[]]", or
			// ",\"b") is in no part the tree can drop: then the bytes go.
			out := s.scrubTree(tr, depth)
			if s.contains(out) {
				out, _ = s.scrubText(out)
			}
			return out, true
		}
	}
	return s.scrubText(str)
}

// scrubPointer scrubs each reference token of a JSON Pointer as the member
// name it stands for, so a withheld "a/b" is found in the token "a~1b".
func (s *scrubber) scrubPointer(p string) (string, bool) {
	if !s.any || p == "" {
		return p, false
	}
	if strings.IndexByte(p, '~') < 0 && !hasEscapes(p, s.plus) && !s.containsRaw(p) {
		// Each token is its name, and none holds a withheld value.
		return p, false
	}
	tokens := strings.Split(p[1:], "/")
	changed := false
	for k, tok := range tokens {
		name := strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if c, ok := s.scrub(name); ok {
			tokens[k] = jsontree.EscapePointer(c)
			changed = true
		}
	}
	if !changed {
		return p, false
	}
	return "/" + strings.Join(tokens, "/"), true
}

// looksLikeJSON reports whether s starts, after white space, as a JSON
// object or array does.
func looksLikeJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', '[':
			return true
		}
		return false
	}
	return false
}

// scrubText removes every span that holds a withheld value, whole
// escapes and whole characters, until none is left. Removing one can
// join the halves of another, so it goes again, at most maxScrubRounds
// times; a string that exceeds that, or the bounds of decoding, is
// emptied.
func (s *scrubber) scrubText(str string) (string, bool) {
	var spans [][2]int
	for round := 0; ; round++ {
		spans = spans[:0]
		ok := s.eachSpan(str, func(a, b int) bool {
			spans = append(spans, [2]int{a, b})
			return true
		})
		if !ok || (round == maxScrubRounds && len(spans) > 0) {
			return "", true
		}
		if len(spans) == 0 {
			return str, round > 0
		}
		str = removeSpans(str, spans)
	}
}

// removeSpans returns str without the spans, widened to whole UTF-8
// sequences.
func removeSpans(str string, spans [][2]int) string {
	slices.SortFunc(spans, func(x, y [2]int) int { return cmp.Compare(x[0], y[0]) })
	b := make([]byte, 0, len(str))
	last := 0
	for _, sp := range spans {
		a, e := sp[0], sp[1]
		for a > 0 && a < len(str) && !utf8.RuneStart(str[a]) {
			a--
		}
		for e < len(str) && !utf8.RuneStart(str[e]) {
			e++
		}
		if a < last {
			a = last
		}
		if e <= a {
			continue
		}
		b = append(b, str[last:a]...)
		last = e
	}
	b = append(b, str[last:]...)
	return string(b)
}

// scrubTree writes the JSON text tr without what it withholds: members
// whose names hold a withheld value, withheld numbers, arrays of byte
// values that hold one, and withheld values in its strings.
func (s *scrubber) scrubTree(tr *tree, depth int) string {
	drop := make([]bool, len(tr.nodes))
	for i := 1; i < len(tr.nodes); {
		n := &tr.nodes[i]
		if tr.nodes[n.parent].kind == kObject && s.contains(tr.key(i)) || n.kind == kNumber && s.numberHolds(tr.text(i)) && !yearMember(tr, i) || s.byteArrayHolds(tr, i) {
			drop[i] = true
			i = int(n.next)
			continue
		}
		i++
	}
	cuts := map[int][][2]int{}
	siblingJoins(tr, func(i int) bool { return !drop[i] }, s, func(i, a, b int) { cuts[i] = append(cuts[i], [2]int{a, b}) })
	var emit func(b []byte, i int) []byte
	emit = func(b []byte, i int) []byte {
		n := &tr.nodes[i]
		switch n.kind {
		case kString:
			str, cut := tr.str(i), false
			if c := cuts[i]; c != nil {
				str, cut = removeSpans(str, c), true
			}
			if c, changed := s.scrubDepth(str, depth+1); changed || cut {
				return jsonx.AppendString(b, c)
			}
			return append(b, tr.text(i)...)
		case kObject, kArray:
			return tr.appendContainer(b, i, func(j int) bool { return drop[j] }, emit)
		default:
			return append(b, tr.text(i)...)
		}
	}
	return string(emit(make([]byte, 0, len(tr.src)), 0))
}
