package engine

import (
	"hash/maphash"
	"strings"
	"unicode/utf8"
)

// This file finds a withheld value split across strings: a backend that
// writes a key's prefix and the rest in two fields ({"prefix": "sk_live_",
// "rest": "9f8e7d6c"}), a card number in four list items. Consecutive
// members of one object or items of one array that are strings the view
// keeps are read as one text by their skeletons (fold.go); a match that
// crosses from one into the next is cut out of each. A match within one
// string is that string's own search's to find. A split value is looked
// for where it starts in the last joinReach bytes of a string: a key, a
// token, a card number, not a paragraph.

// joinReach is how far from a string's end a value split across it and
// the next may start.
const joinReach = 64

// joins finds the withheld values split across consecutive strings the
// view keeps, and records where each of those strings is cut (w.cuts). It
// reports whether it found any.
func (w *walker) joins(s *scrubber) bool {
	return siblingJoins(w.tr, func(i int) bool { return w.act[i] == keep }, s, w.cut)
}

// siblingJoins finds the withheld values of s split across consecutive
// strings of one object or array of tr that keep keeps, and calls cut
// with each string's part. It reports whether it found any.
func siblingJoins(tr *tree, keep func(i int) bool, s *scrubber, cut func(node, a, b int)) bool {
	if len(s.skels) == 0 {
		return false
	}
	found := false
	budget := matchBudget*len(tr.src) + matchSlack
	var strs []string
	var nodes []int
	flush := func() {
		if len(strs) >= 2 {
			j := joined{s: s, strs: strs, budget: budget}
			ok := j.scan(func(a, b pos) {
				found = true
				for k := a.str; k <= b.str; k++ {
					lo, hi := 0, len(strs[k])
					if k == a.str {
						lo = a.at
					}
					if k == b.str {
						hi = b.at
					}
					if lo < hi {
						cut(nodes[k], lo, hi)
					}
				}
			})
			if budget = j.budget; !ok {
				// Past the budget: the strings may hold a split value.
				for k := range strs {
					cut(nodes[k], 0, len(strs[k]))
				}
				found = true
			}
			for _, r := range encodedRuns(strs) {
				// An encoding cut into lines, one a string: no part of it
				// can be removed without the rest. Lines that are each a
				// withheld value whole (an ssn beside a date of birth,
				// echoed) go whole whatever they decode to: what the lines
				// joined decode to need not be searched.
				held := false
				if s.eachRemovedWhole(strs[r[0]:r[1]]) || !s.eachEncodedMatch(strings.Join(strs[r[0]:r[1]], ""), 0, func(int, int) bool { held = true; return false }) || held {
					for k := r[0]; k < r[1]; k++ {
						cut(nodes[k], 0, len(strs[k]))
					}
					found = true
				}
			}
		}
		strs, nodes = strs[:0], nodes[:0]
	}
	for i := 0; i < len(tr.nodes); i++ {
		n := &tr.nodes[i]
		if !keep(i) || n.kind < kArray {
			continue
		}
		for j := i + 1; j < int(n.next); j = int(tr.nodes[j].next) {
			if keep(j) && tr.nodes[j].kind == kString && tr.nodes[j].str.hi != tr.nodes[j].str.lo {
				strs = append(strs, tr.str(j))
				nodes = append(nodes, j)
				continue
			}
			flush()
		}
		flush()
	}
	// The texts of the text items of an array, which an MCP client joins
	// into one text, are neighbours too, whatever stands between them (an
	// image, an empty text, an item the view left out).
	for i := 0; i < len(tr.nodes); i++ {
		n := &tr.nodes[i]
		if !keep(i) || n.kind != kArray {
			continue
		}
		for j := i + 1; j < int(n.next); j = int(tr.nodes[j].next) {
			if t := textItemText(tr, j); t >= 0 && keep(j) && keep(t) && tr.nodes[t].str.hi != tr.nodes[t].str.lo {
				strs = append(strs, tr.str(t))
				nodes = append(nodes, t)
			}
		}
		flush()
	}
	return found
}

// eachRemovedWhole reports whether the scrub removes each of lines
// whole: the search of each as it is and in its decodings finds withheld
// values that cover all of it, or is past its bounds (which empties it).
func (s *scrubber) eachRemovedWhole(lines []string) bool {
	var spans [][2]int
	for _, l := range lines {
		spans = spans[:0]
		if !s.eachSpan(l, func(a, b int) bool { spans = append(spans, [2]int{a, b}); return true }) {
			continue
		}
		covered := 0
		for _, sp := range mergeSpans(spans) {
			if sp[0] > covered {
				break
			}
			covered = max(covered, sp[1])
		}
		if covered < len(l) {
			return false
		}
	}
	return true
}

// textItemText returns the node of the text of node i when i is a text
// content item ({"type": "text", "text": "…"}), or -1.
func textItemText(tr *tree, i int) int {
	if tr.nodes[i].kind != kObject {
		return -1
	}
	typ, text := -1, -1
	tr.children(i, func(j int) {
		switch tr.key(j) {
		case "type":
			typ = j
		case "text":
			text = j
		}
	})
	if typ < 0 || text < 0 || tr.nodes[typ].kind != kString || tr.str(typ) != "text" || tr.nodes[text].kind != kString {
		return -1
	}
	return text
}

// textItemsMayJoin reports whether the JSON text data may hold two text
// items, whose texts a client joins: it names "text" four times or more.
func textItemsMayJoin(data string) bool {
	n := 0
	for i := strings.Index(data, `"text"`); i >= 0; i = indexFrom(data, `"text"`, i+1) {
		if n++; n >= 4 {
			return true
		}
	}
	return false
}

// indexFrom is strings.Index of sub in s from byte from on, or -1.
func indexFrom(s, sub string, from int) int {
	if k := strings.Index(s[from:], sub); k >= 0 {
		return from + k
	}
	return -1
}

// cut records that the agent gets string node i without [a, b).
func (w *walker) cut(i, a, b int) {
	if w.cuts == nil {
		w.cuts = map[int][][2]int{}
	}
	w.cuts[i] = append(w.cuts[i], [2]int{a, b})
}

// pos is a place in joined strings: an offset in one of them.
type pos struct{ str, at int }

// joined reads strings one after the other as one skeleton.
type joined struct {
	s      *scrubber
	strs   []string
	budget int
}

// jorigin is where a skeleton byte of joined strings came from.
type jorigin struct {
	p    pos
	sub  int8
	cont bool
}

// scan calls f with the start and end of every match that crosses from
// one string into another and starts in the last joinReach bytes of one.
// It reports false past the budget.
func (j *joined) scan(f func(a, b pos)) bool {
	var (
		ring [4]jorigin
		have int
		w    uint32
		buf  [32]byte
	)
	// push takes a skeleton byte and checks the window it completes; it
	// returns where to go on after a match, or ok false.
	push := func(c byte, o jorigin) (after pos, matched bool) {
		w = w>>8 | uint32(c)<<24
		ring[have&3] = o
		have++
		if have < 4 || !j.s.skelMayStart(w) {
			return pos{}, false
		}
		first := ring[(have-4)&3]
		if first.cont {
			return pos{}, false
		}
		a, b, ok := j.match(first, w)
		if !ok {
			return pos{}, false
		}
		if b.str > a.str {
			f(a, b)
		}
		have = 0
		return b, true
	}
	k, i := 0, cutStart(j.strs[0], len(j.strs[0])-joinReach)
	for k < len(j.strs) {
		text := j.strs[k]
		if i >= len(text) {
			// The end of a string: where the next is short, read on into
			// it; else finish the windows that start in this one with the
			// next one's first bytes, and go on from where a split value
			// could start in the next.
			if k+1 == len(j.strs) {
				break
			}
			next := j.strs[k+1]
			from := cutStart(next, len(next)-joinReach)
			if from == 0 {
				k, i = k+1, 0
				continue
			}
			matched := false
			r := jreader{strs: j.strs, p: pos{k + 1, 0}}
			for n := 0; n < 3 && have > 0 && !matched; n++ {
				c, more := r.next()
				if !more {
					break
				}
				var after pos
				if after, matched = push(c, jorigin{p: r.end}); matched {
					k, i = after.str, after.at
				}
			}
			if j.budget < 0 {
				return false
			}
			if !matched {
				k, i, have = k+1, from, 0
			}
			continue
		}
		start := i
		var fb []byte
		if c := text[i]; c < utf8.RuneSelf {
			i++
			if foldASCII[c] == 0 {
				continue
			}
			buf[0] = foldASCII[c]
			fb = buf[:1]
		} else {
			fb, i = appendFoldRune(buf[:0], text, i)
		}
		for n, c := range fb {
			if after, ok := push(c, jorigin{p: pos{k, start}, sub: int8(n), cont: !utf8.RuneStart(c)}); ok {
				k, i = after.str, after.at
				break
			}
		}
		if j.budget < 0 {
			return false
		}
	}
	return true
}

// match verifies the needles that start at o with window w, reading on
// into the strings after o's, and returns the longest one's span.
func (j *joined) match(o jorigin, w uint32) (a, b pos, ok bool) {
	var best *needle
	var bestEnd pos
	for _, t := range j.s.skels {
		k := t.chain(w)
		if k == 0 {
			continue
		}
		var h maphash.Hash
		h.SetSeed(hashSeed)
		r := jreader{strs: j.strs, p: o.p}
		for range o.sub {
			r.next()
		}
		count := 0
		for ; k != 0; k = t.lens[k-1].next {
			n := int(t.lens[k-1].n)
			for count < n {
				c, more := r.next()
				if !more {
					k = 0
					break
				}
				h.WriteByte(c)
				count++
				j.budget--
			}
			if k == 0 {
				break
			}
			j.budget--
			nd := t.find(h.Sum64(), int32(n))
			if nd == nil {
				continue
			}
			if !nd.freeBefore(t.gen, j.strs[o.p.str], o.p.at) || !nd.freeAfter(t.gen, j.strs[r.end.str], r.end.at) {
				continue
			}
			if best == nil || nd.n > best.n {
				best, bestEnd = nd, r.end
			}
		}
	}
	if best == nil {
		return pos{}, pos{}, false
	}
	a, b = o.p, bestEnd
	a.at = widen(j.strs[a.str], a.at, int(best.pre), true)
	b.at = widen(j.strs[b.str], b.at, int(best.post), false)
	return a, b, true
}

// jreader reads joined strings' skeleton byte by byte from p.
type jreader struct {
	strs []string
	p    pos // where the next character starts
	end  pos // where the character of the last byte ends
	pend []byte
	buf  [32]byte
}

func (r *jreader) next() (byte, bool) {
	for len(r.pend) == 0 {
		if r.p.at >= len(r.strs[r.p.str]) {
			if r.p.str+1 >= len(r.strs) {
				return 0, false
			}
			r.p = pos{r.p.str + 1, 0}
			continue
		}
		s := r.strs[r.p.str]
		if c := s[r.p.at]; c < utf8.RuneSelf {
			r.p.at++
			if f := foldASCII[c]; f != 0 {
				r.end = r.p
				return f, true
			}
			continue
		}
		r.pend, r.p.at = appendFoldRune(r.buf[:0], s, r.p.at)
		r.end = r.p
	}
	b := r.pend[0]
	r.pend = r.pend[1:]
	return b, true
}

// cutStart moves i on to a character's start, and to 0 when below it.
func cutStart(s string, i int) int {
	if i <= 0 {
		return 0
	}
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// encodedRuns returns the runs of two or more consecutive strings that
// are each written in base64's or hex's alphabet alone, together eight
// characters or more with a digit, padding or a capital past the first
// (encodingMarked), as a backend cuts an encoding into lines of one string
// each (["LS0tLS1CRUdJTiBB", "WT1za19saXZl…"], or lines of three), as
// [first, end) indices.
func encodedRuns(strs []string) [][2]int {
	var runs [][2]int
	first := -1
	for k := 0; k <= len(strs); k++ {
		if k < len(strs) && encodingLine(strs[k]) {
			if first < 0 {
				first = k
			}
			continue
		}
		if first >= 0 && k-first >= 2 && encodingMarked(strs[first:k]) {
			runs = append(runs, [2]int{first, k})
		}
		first = -1
	}
	return runs
}

// encodingLine reports whether str, of two bytes or more, is written in
// the alphabet of base64, base64url or hex alone.
func encodingLine(str string) bool {
	if len(str) < 2 {
		return false
	}
	for i := 0; i < len(str); i++ {
		if c := str[i]; !(isAlnum(c) || c == '+' || c == '/' || c == '-' || c == '_' || c == '=') {
			return false
		}
	}
	return true
}

// encodingMarked reports whether lines, joined, are eight characters or
// more with a digit, padding or a capital past the first character: words
// and names are not.
func encodingMarked(lines []string) bool {
	n := 0
	marked := false
	for k, l := range lines {
		n += len(l)
		for i := 0; i < len(l) && !marked; i++ {
			c := l[i]
			marked = isDigit(c) || c == '=' || (k > 0 || i > 0) && c >= 'A' && c <= 'Z'
		}
	}
	return marked && n >= 8
}

// hasEncodingLines reports whether the JSON text data, which has no
// escapes, has two string values in a row with nothing but commas, white
// space and member names between them, that encodedRuns would read as
// one encoding: an encoding cut into lines, which only the parsed view
// reads whole.
func hasEncodingLines(data string) bool {
	return encodingLinesWhere(data, func(string) bool { return true })
}

// encodingLinesWhere is hasEncodingLines for the encodings cut into lines
// whose lines, joined, holds reports true of.
func encodingLinesWhere(data string, holds func(joined string) bool) bool {
	// The run of values encodingLine takes so far: how many, their
	// characters, whether encodingMarked would take them, and where each
	// stands in data.
	lines, chars, marked := 0, 0, false
	var run [][2]int
	// end ends the run, and reports whether it is an encoding holds takes.
	end := func() bool {
		found := false
		if lines >= 2 && marked && chars >= 8 {
			b := make([]byte, 0, chars)
			for _, r := range run {
				b = append(b, data[r[0]:r[1]]...)
			}
			found = holds(string(b))
		}
		lines, chars, marked, run = 0, 0, false, run[:0]
		return found
	}
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case ' ', '\t', '\n', '\r', ',', ':':
			continue
		case '"':
			j := indexByteFrom(data, '"', i+1)
			if j < 0 {
				return true // unsure
			}
			k := j + 1
			for k < len(data) && (data[k] == ' ' || data[k] == '\t' || data[k] == '\n' || data[k] == '\r') {
				k++
			}
			str := data[i+1 : j]
			i = j
			switch {
			case k < len(data) && data[k] == ':':
				// A member name: the run goes on past it.
			case encodingLine(str):
				for p := 0; p < len(str) && !marked; p++ {
					c := str[p]
					marked = isDigit(c) || c == '=' || (lines > 0 || p > 0) && c >= 'A' && c <= 'Z'
				}
				lines, chars = lines+1, chars+len(str)
				run = append(run, [2]int{i - len(str), i})
			default:
				if end() {
					return true
				}
			}
		default:
			if end() {
				return true
			}
		}
	}
	return end()
}

// mayHaveMentionLines is a sound test for what the view's mentionLines
// withholds: an encoding cut into lines that names secret_reference. Runs
// of strings that only look like one (an ssn beside a date of birth, in
// every record) are decoded here, joined, rather than sending the output
// to the view. JSON text with escapes may.
func mayHaveMentionLines(data string) bool {
	return strings.IndexByte(data, '\\') >= 0 || encodingLinesWhere(data, func(joined string) bool {
		spans, ok := mentions(joined, 0)
		return !ok || len(spans) > 0
	})
}

// minByteArray is the fewest items of a JSON array read as bytes: as many
// as the shortest value rule (d) removes.
const minByteArray = minScrubLength

// byteArrayHolds reports whether node i of tr is an array of byte values
// (integers 0 to 255, minByteArray or more: Node's Buffer in JSON,
// {"type":"Buffer","data":[115,107,…]}, or a list of a string's bytes),
// or an object of them whose member names are their indices in order
// (a Uint8Array in JSON, {"0":115,"1":107,…}), whose bytes hold a
// withheld value, in any decoding.
func (s *scrubber) byteArrayHolds(tr *tree, i int) bool {
	kind := tr.nodes[i].kind
	if kind != kArray && kind != kObject {
		return false
	}
	var b []byte
	ok := true
	tr.children(i, func(j int) {
		if !ok {
			return
		}
		if tr.nodes[j].kind != kNumber || kind == kObject && !isIndex(tr.key(j), len(b)) {
			ok = false
			return
		}
		v := tr.text(j)
		if len(v) > 3 || !allDigits(v) {
			ok = false
			return
		}
		n := 0
		for k := 0; k < len(v); k++ {
			n = n*10 + int(v[k]-'0')
		}
		if n > 255 {
			ok = false
			return
		}
		b = append(b, byte(n))
	})
	return ok && len(b) >= minByteArray && s.contains(string(b))
}

// isIndex reports whether key is the decimal digits of k, as JavaScript
// names an array's indices.
func isIndex(key string, k int) bool {
	if key == "" || len(key) > 1 && key[0] == '0' || !allDigits(key) || len(key) > 9 {
		return false
	}
	n := 0
	for x := 0; x < len(key); x++ {
		n = 10*n + int(key[x]-'0')
	}
	return n == k
}

// byteArrays reports whether an array of tr that keep keeps is one of
// byte values that holds a withheld value (byteArrayHolds).
func (s *scrubber) byteArrays(tr *tree, keep func(i int) bool) bool {
	for i := range tr.nodes {
		if keep(i) && s.byteArrayHolds(tr, i) {
			return true
		}
	}
	return false
}
