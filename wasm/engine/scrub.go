package engine

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

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

// scrubSet collects what rule (d) removes: the strings and numbers the
// view withholds.
type scrubSet struct {
	literals map[string]struct{}
	numbers  map[string]struct{} // by numberKey
	// digits are numbers found as written (sign aside) only: those whose
	// value is shorter than their text.
	digits map[string]struct{}
	// noMin: values of any length join (a set for one string only).
	noMin bool
	// shadow, when set, gets every value added too.
	shadow *scrubSet
}

// addString adds a withheld string: as a number when it is written as
// one, else as itself.
func (s *scrubSet) addString(v string) {
	if s.shadow != nil {
		s.shadow.addString(v)
	}
	if v == "" || v == referenceType {
		return
	}
	if !s.noMin && (len(v) < minScrubLength || utf8.RuneCountInString(v) < minScrubLength) {
		// Too short to be specific, or the protocol's own word, which
		// rule (c) looks after.
		return
	}
	if isNumber(v) {
		s.addNumber(v)
		return
	}
	if s.literals == nil {
		s.literals = map[string]struct{}{}
	}
	s.literals[v] = struct{}{}
}

// addNumber adds a withheld number, written as isNumber accepts.
func (s *scrubSet) addNumber(text string) {
	if s.shadow != nil {
		s.shadow.addNumber(text)
	}
	digits := len(text)
	if text != "" && text[0] == '-' {
		digits--
	}
	if digits < minScrubLength && !s.noMin {
		return
	}
	key := numberKey(nil, text)
	if plainLength(key) < minScrubLength && !s.noMin {
		if s.digits == nil {
			s.digits = map[string]struct{}{}
		}
		s.digits[strings.TrimPrefix(text, "-")] = struct{}{}
		return
	}
	if s.numbers == nil {
		s.numbers = map[string]struct{}{}
	}
	s.numbers[string(key)] = struct{}{}
}

// plainLength is how many characters the number of key takes written
// plainly, as JavaScript writes it (exponents from 1e21 on).
func plainLength(key []byte) int {
	e := strings.IndexByte(string(key), 'e')
	if e < 0 {
		return 1 // zero
	}
	digits := e
	exp := 0
	neg := false
	for _, c := range key[e+1:] {
		if c == '-' {
			neg = true
			continue
		}
		exp = min(exp*10+int(c-'0'), 1<<20)
	}
	switch {
	case neg || exp == 0:
		return 2 + exp + digits // 0.000ddd
	case exp > 21:
		return digits + 4 // d.ddde+NN, at least
	case digits <= exp:
		return exp
	default:
		return digits + 1
	}
}

// scrubber removes the values of a scrubSet from the strings the agent
// gets.
//
// Most strings hold none, so finding one must be cheap: a literal is
// found through a bloom filter over the four-byte window it starts with,
// and numbers by value only where the set has any. Only a string with an
// escape in it is decoded.
type scrubber struct {
	long    map[uint32][]string // literals by their first four bytes, longest first
	bloom   []uint64
	short   []string // literals under four bytes (of a set for one string)
	numbers map[string]struct{}
	digits  map[string]struct{}
	// plus: a literal holds a space, so a plus sign in a query string can
	// stand for it.
	plus bool
	any  bool
	// gap is the widest window of escapes a match can lie in (windows).
	gap int
	// escapy: a literal holds a byte that starts an escape, so decodeAll
	// cannot stand in for decodings past their bounds.
	escapy bool
}

// Finding literals costs at most matchBudget times a text's length, and
// matchSlack, in bytes compared. Withheld values that share long
// prefixes could make it quadratic; past the budget the text fails
// closed.
const (
	matchBudget = 1024
	matchSlack  = 64 << 10
)

const bloomBits = 1 << 16

func window(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

func bloomIndex(w uint32) uint32 { return (w * 2654435761) >> (32 - 16) }

func newScrubber(set *scrubSet) *scrubber {
	s := &scrubber{numbers: set.numbers, digits: set.digits, gap: 64 + maxEscapeLength}
	s.any = len(set.literals) > 0 || len(set.numbers) > 0 || len(set.digits) > 0
	for x := range set.literals {
		s.gap = max(s.gap, len(x)+maxEscapeLength)
		s.plus = s.plus || strings.IndexByte(x, ' ') >= 0
		s.escapy = s.escapy || hasEscapes(x, true)
		if len(x) < 4 {
			s.short = append(s.short, x)
			continue
		}
		if s.long == nil {
			s.long = map[uint32][]string{}
			s.bloom = make([]uint64, bloomBits/64)
		}
		w := window(x, 0)
		s.long[w] = append(s.long[w], x)
		bi := bloomIndex(w)
		s.bloom[bi/64] |= 1 << (bi % 64)
	}
	for _, l := range s.long {
		slices.SortFunc(l, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	}
	return s
}

// literalAt returns the length of the longest withheld literal at
// str[i:], or 0, and charges what it compares to budget.
func (s *scrubber) literalAt(str string, i int, budget *int) int {
	if s.long == nil || i+4 > len(str) {
		return 0
	}
	w := window(str, i)
	bi := bloomIndex(w)
	if s.bloom[bi/64]&(1<<(bi%64)) == 0 {
		return 0
	}
	rest := str[i:]
	for _, p := range s.long[w] {
		// Charge what is compared: the bytes the two share, and one.
		k := 4
		for k < len(p) && k < len(rest) && p[k] == rest[k] {
			k++
		}
		*budget -= k + 1
		if k == len(p) {
			return len(p)
		}
	}
	return 0
}

// findLiteral returns where the first withheld literal in str at or
// after from starts, and the length of the longest one there; -1 when
// there is none. It slides a four-byte window over str and looks closer
// only where the bloom filter lets a literal start. ok is false when the
// budget ran out.
func (s *scrubber) findLiteral(str string, from int, budget *int) (i, m int, ok bool) {
	n := len(str)
	if s.long == nil || n-from < 4 {
		return -1, 0, true
	}
	w := (uint32(str[from]) | uint32(str[from+1])<<8 | uint32(str[from+2])<<16) << 8
	for i := from; i+4 <= n; i++ {
		w = w>>8 | uint32(str[i+3])<<24
		bi := bloomIndex(w)
		if s.bloom[bi/64]&(1<<(bi%64)) != 0 {
			m := s.literalAt(str, i, budget)
			if *budget < 0 {
				return -1, 0, false
			}
			if m > 0 {
				return i, m, true
			}
		}
	}
	return -1, 0, true
}

// isWithheldNumber reports whether the number written text (as isNumber
// accepts) has the value of a withheld one.
func (s *scrubber) isWithheldNumber(text string) bool {
	if len(s.digits) > 0 {
		if _, ok := s.digits[strings.TrimPrefix(text, "-")]; ok {
			return true
		}
	}
	if len(s.numbers) == 0 {
		return false
	}
	var buf [64]byte
	_, ok := s.numbers[string(numberKey(buf[:0], text))]
	return ok
}

// eachMatch calls f with the span of every withheld value written in
// text as it is, literals and numbers; f returns false to stop. It
// reports false when finding them cost more than the budget.
func (s *scrubber) eachMatch(text string, f func(a, b int) bool) bool {
	budget := matchBudget*len(text) + matchSlack
	for from := 0; ; {
		i, m, ok := s.findLiteral(text, from, &budget)
		if !ok {
			return false
		}
		if i < 0 {
			break
		}
		if !f(i, i+m) {
			return true
		}
		from = i + m
	}
	for _, x := range s.short {
		for from := 0; ; {
			i := strings.Index(text[from:], x)
			if i < 0 {
				break
			}
			if !f(from+i, from+i+len(x)) {
				return true
			}
			from += i + len(x)
		}
	}
	if len(s.numbers) > 0 || len(s.digits) > 0 {
		stop := false
		numbers(text, func(a, b int) bool {
			if s.isWithheldNumber(text[a:b]) {
				stop = !f(a, b)
			}
			return !stop
		})
	}
	return true
}

// contains reports whether str holds a withheld value in any decoding,
// or has more decodings than can be searched.
func (s *scrubber) contains(str string) bool {
	if !s.any {
		return false
	}
	found := false
	ok := s.eachSpan(str, func(int, int) bool { found = true; return false })
	return found || !ok
}

// containsRaw reports whether a JSON text holds, in its strings, member
// names or numbers, a withheld value that a search of its bytes as they
// are finds. A text without escapes needs no more.
func (s *scrubber) containsRaw(text string) bool {
	if !s.any {
		return false
	}
	found := false
	ok := s.eachMatch(text, func(int, int) bool { found = true; return false })
	return found || !ok
}

// eachSpan calls f with the span of str that every match in every
// decoding of str was written in. It reports false when str has more
// decodings than the bounds allow, or matching cost more than its budget.
func (s *scrubber) eachSpan(str string, f func(a, b int) bool) bool {
	stop := false
	g := func(a, b int) bool {
		stop = !f(a, b)
		return !stop
	}
	if !s.eachMatch(str, g) {
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
			ok := s.eachMatch(l.text, func(a, b int) bool {
				a, b = l.origin(a, b)
				return g(w[0]+a, w[0]+b)
			})
			if !ok {
				return false
			}
			if stop {
				return true
			}
		}
	}
	return true
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
			if !s.contains(str) {
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
			tokens[k] = escapePointer(c)
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
// whose names hold a withheld value, withheld numbers, and withheld values
// in its strings.
func (s *scrubber) scrubTree(tr *tree, depth int) string {
	drop := make([]bool, len(tr.nodes))
	for i := 1; i < len(tr.nodes); {
		n := &tr.nodes[i]
		if tr.nodes[n.parent].kind == kObject && s.contains(tr.key(i)) || n.kind == kNumber && s.isWithheldNumber(tr.text(i)) {
			drop[i] = true
			i = int(n.next)
			continue
		}
		i++
	}
	var emit func(b []byte, i int) []byte
	emit = func(b []byte, i int) []byte {
		n := &tr.nodes[i]
		switch n.kind {
		case kString:
			if c, changed := s.scrubDepth(tr.str(i), depth+1); changed {
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
