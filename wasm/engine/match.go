package engine

import (
	"hash/maphash"
	"strings"
	"unicode/utf8"
)

// This file finds the needles of a scrubber's sets (needles.go) in one
// text as it is: its bytes in one pass for the exact needles, its
// skeleton in one pass for the skeleton needles, numbers by value. Each
// pass slides a four-byte window, asks each set's bloom filter whether a
// needle may start there, and only then hashes what follows; the cost of
// a pass does not grow with the number of needles.

// Finding needles costs at most matchBudget times a text's length, and
// matchSlack, in bytes hashed. Needles that share long prefixes could
// make it quadratic; past the budget the text fails closed.
const (
	matchBudget = 1024
	matchSlack  = 64 << 10
)

// eachMatch calls f with the span of every withheld value written in
// text as it is: exact needles, skeleton needles, short values and
// numbers; f returns false to stop. It reports false when finding them
// cost more than the budget.
func (s *scrubber) eachMatch(text string, f func(a, b int) bool) bool {
	ok, _ := s.eachMatchRuns(text, f)
	return ok
}

// eachMatchRuns is eachMatch, and reports too whether text may hold a run
// that eachEncoded decodes (base64, hex, encoded-words): the skeleton
// scan notes them as it reads each byte, so that a text without one needs
// no second pass. When it does not know, runs is true.
func (s *scrubber) eachMatchRuns(text string, f func(a, b int) bool) (ok, runs bool) {
	runs = true
	budget := matchBudget*len(text) + matchSlack
	stop := false
	g := func(a, b int) bool {
		stop = !f(a, b)
		return !stop
	}
	if len(s.exacts) > 0 && !s.scanExact(text, &budget, g) {
		return false, runs
	}
	if stop {
		return true, runs
	}
	if len(s.skels) > 0 {
		var whole bool
		if ok, runs, whole = s.scanSkeleton(text, &budget, g); !ok {
			return false, true
		}
		runs = runs || !whole
	}
	if stop {
		return true, runs
	}
	if !s.eachShort(text, g) {
		return true, runs
	}
	if s.numbers {
		numbers(text, func(a, b int) bool {
			if s.isWithheldNumber(text[a:b]) && !inDate(text, a, b) {
				return g(a, b)
			}
			return true
		})
	}
	return true, runs
}

// maxShortScans is how many short values are each looked for with a
// search of their own; past it, one pass over a text finds them all.
const maxShortScans = 8

// eachShort calls f with every occurrence of a short value in text, those
// of one value never overlapping, as a search for each in turn finds them;
// f returns false to stop, and so does eachShort. Its cost does not grow
// with the number of short values: past maxShortScans, each byte of text
// is looked up once for each length a short value has.
func (s *scrubber) eachShort(text string, f func(a, b int) bool) bool {
	if s.shortAt == nil {
		for _, x := range s.short {
			for from := 0; from < len(text); {
				i := strings.Index(text[from:], x)
				if i < 0 {
					break
				}
				if !f(from+i, from+i+len(x)) {
					return false
				}
				from += i + len(x)
			}
		}
		return true
	}
	// next[k] is where short value k may next be found, past its last
	// occurrence: made for the values found, not for every value.
	var next map[int]int
	for i := 0; i < len(text); i++ {
		for n := 1; n < 4 && i+n <= len(text); n++ {
			k, ok := s.shortAt[text[i:i+n]]
			if !ok || i < next[k] {
				continue
			}
			if next == nil {
				next = map[int]int{}
			}
			next[k] = i + n
			if !f(i, i+n) {
				return false
			}
		}
	}
	return true
}

// scanExact finds the exact needles: the bytes as written, ASCII letters
// in any case.
func (s *scrubber) scanExact(text string, budget *int, f func(a, b int) bool) bool {
	if len(text) < 4 {
		return true
	}
	w := uint32(lowerASCII[text[0]])<<8 | uint32(lowerASCII[text[1]])<<16 | uint32(lowerASCII[text[2]])<<24
	for i := 0; i+4 <= len(text); i++ {
		w = w>>8 | uint32(lowerASCII[text[i+3]])<<24
		m := bloomMix(w)
		hit := false
		for _, t := range s.exacts {
			if bi := m >> t.shift; t.bloom[bi/64]&(1<<(bi%64)) != 0 {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		n := 0
		for _, t := range s.exacts {
			if t.mayStart(w) {
				n = max(n, t.exactAt(text, i, w, budget))
			}
		}
		if *budget < 0 {
			return false
		}
		if n > 0 {
			if !f(i, i+n) {
				return true
			}
			i += n - 1
			if i+4 < len(text) {
				w = uint32(lowerASCII[text[i+1]])<<8 | uint32(lowerASCII[text[i+2]])<<16 | uint32(lowerASCII[text[i+3]])<<24
			}
		}
	}
	return true
}

// exactAt returns the length of the longest needle of t at text[i:],
// whose first four bytes are w, or 0; it charges what it hashes to
// budget.
func (t *needleTable) exactAt(text string, i int, w uint32, budget *int) int {
	k := t.chain(w)
	if k == 0 {
		return 0
	}
	var h maphash.Hash
	h.SetSeed(hashSeed)
	var buf [64]byte
	done, best := i, 0
	for ; k != 0; k = t.lens[k-1].next {
		n := t.lens[k-1].n
		end := i + int(n)
		if end > len(text) {
			break
		}
		for done < end {
			c := min(end-done, len(buf))
			for j := range c {
				buf[j] = lowerASCII[text[done+j]]
			}
			h.Write(buf[:c])
			*budget -= c
			done += c
		}
		*budget--
		if nd := t.find(h.Sum64(), n); nd != nil && nd.stands(t.gen, text, i, end) {
			best = int(n)
		}
	}
	return best
}

// origin is where a skeleton byte came from: the character at text[at],
// after sub bytes of that character's own skeleton; cont marks a byte
// inside a multi-byte character of the skeleton, where no needle starts.
type origin struct {
	at   int32
	sub  int8
	cont bool
}

// scanSkeleton finds the skeleton needles: the text's skeleton is folded
// on the fly, and a match is the span of the characters whose skeleton it
// is. ASCII, the common case, takes a table lookup and a bloom test a
// byte. It notes too whether text may hold a run that eachEncoded reads
// (runs); whole says it read all of text, so that runs is known.
func (s *scrubber) scanSkeleton(text string, budget *int, f func(a, b int) bool) (ok, runs, whole bool) {
	var (
		ring [4]origin // the origins of the window's bytes
		have int       // skeleton bytes since the last match
		w    uint32    // the last four skeleton bytes
		buf  [32]byte
	)
	// at reports the match, if any, that starts four skeleton bytes
	// back: its span, or b < 0.
	at := func() (a, b int) {
		first := ring[(have-4)&3]
		if first.cont {
			return -1, -1
		}
		a, b = -1, -1
		for _, t := range s.skels {
			if t.mayStart(w) {
				if x, y := t.skeletonAt(text, first, w, budget); y > b {
					a, b = x, y
				}
			}
		}
		return a, b
	}
	// The one table of the common case, read without the slice.
	var (
		bloom []uint64
		shift uint8
	)
	if len(s.skels) == 1 {
		bloom, shift = s.skels[0].bloom, s.skels[0].shift
	}
	// The run of base64 characters being read: its length, its hex
	// digits, those it ends in, and what base64Run asks of a run that
	// looks like an encoding (a capital past its first character, or
	// letters and digits both).
	var (
		run, hexes, hexEnd     int
		upper, letter, numeral bool
	)
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			if b64[c] >= 0 {
				switch {
				case c >= 'A' && c <= 'Z':
					upper = upper || run > 0
					letter = true
				case c >= 'a' && c <= 'z':
					letter = true
				case c >= '0' && c <= '9':
					numeral = true
				}
				run++
				if hexOrSeparator[c] == 2 {
					hexes++
					hexEnd++
				} else {
					hexEnd = 0
				}
				// What eachEncoded decodes: base64 that looks like an
				// encoding, or four bytes of hex (with '-' between
				// pairs, it is one run).
				if run >= minBase64 && (upper || letter && numeral) || hexes >= 8 {
					runs = true
				}
			} else {
				// Hex that goes on past the run after a ':' or a space, a
				// long run wrapped onto the next line (base64Run), or an
				// encoded-word's "=?".
				if hexEnd >= 2 && (c == ':' || c == ' ') && i+1 < len(text) && hexDigit(text[i+1]) >= 0 ||
					run >= 16 && (c == '\n' || c == '\r') ||
					c == '?' && i > 0 && text[i-1] == '=' {
					runs = true
				}
				run, hexes, hexEnd, upper, letter, numeral = 0, 0, 0, false, false, false
			}
			fc := foldASCII[c]
			i++
			if fc == 0 {
				continue
			}
			w = w>>8 | uint32(fc)<<24
			ring[have&3] = origin{at: int32(i - 1)}
			have++
			if have < 4 {
				continue
			}
			if bloom != nil {
				if bi := bloomMix(w) >> shift; bloom[bi/64]&(1<<(bi%64)) == 0 {
					continue
				}
			} else if !s.skelMayStart(w) {
				continue
			}
			if a, b := at(); b >= 0 {
				if !f(a, b) {
					return *budget >= 0, runs, false
				}
				i, have = b, 0
				run, hexes, hexEnd, upper, letter, numeral = 0, 0, 0, false, false, false
				// The match's own bytes were not read for runs.
				runs = true
			}
			if *budget < 0 {
				return false, runs, false
			}
			continue
		}
		run, hexes, hexEnd, upper, letter, numeral = 0, 0, 0, false, false, false
		fb, next := appendFoldRune(buf[:0], text, i)
		start := i
		i = next
		for k, c := range fb {
			w = w>>8 | uint32(c)<<24
			ring[have&3] = origin{at: int32(start), sub: int8(k), cont: !utf8.RuneStart(c)}
			have++
			if have < 4 || !s.skelMayStart(w) {
				continue
			}
			if a, b := at(); b >= 0 {
				if !f(a, b) {
					return *budget >= 0, runs, false
				}
				i, have = b, 0
				runs = true
				break
			}
		}
		if *budget < 0 {
			return false, runs, false
		}
	}
	return true, runs, true
}

// skelMayStart reports whether a skeleton needle of some set may start
// with window w.
func (s *scrubber) skelMayStart(w uint32) bool {
	m := bloomMix(w)
	if len(s.skels) == 1 {
		t := s.skels[0]
		bi := m >> t.shift
		return t.bloom[bi/64]&(1<<(bi%64)) != 0
	}
	for _, t := range s.skels {
		if bi := m >> t.shift; t.bloom[bi/64]&(1<<(bi%64)) != 0 {
			return true
		}
	}
	return false
}

// skeletonAt returns the span, in text, of the longest needle of t whose
// skeleton starts at o and whose first four skeleton bytes are w, with
// the characters it takes around it (pre, post); -1, -1 for none. It
// charges what it hashes to budget. A needle of digits matches only where
// no digit stands just before or after it (bound).
func (t *needleTable) skeletonAt(text string, o origin, w uint32, budget *int) (int, int) {
	k := t.chain(w)
	if k == 0 {
		return -1, -1
	}
	var h maphash.Hash
	h.SetSeed(hashSeed)
	fs := foldStream{s: text, i: int(o.at)}
	for range o.sub {
		fs.next()
	}
	count := 0
	var best *needle
	bestEnd := -1
	for ; k != 0; k = t.lens[k-1].next {
		n := int(t.lens[k-1].n)
		for count < n {
			b, ok := fs.next()
			if !ok {
				k = 0
				break
			}
			h.WriteByte(b)
			count++
			*budget--
		}
		if k == 0 {
			break
		}
		*budget--
		nd := t.find(h.Sum64(), int32(n))
		if nd == nil || !nd.stands(t.gen, text, int(o.at), fs.end) {
			continue
		}
		best, bestEnd = nd, fs.end
	}
	if best == nil {
		return -1, -1
	}
	return widen(text, int(o.at), int(best.pre), true), widen(text, bestEnd, int(best.post), false)
}

// widen moves i back (or on) over at most n characters with no skeleton.
func widen(text string, i, n int, back bool) int {
	var buf [32]byte
	for ; n > 0; n-- {
		if back {
			if i == 0 {
				break
			}
			_, k := utf8.DecodeLastRuneInString(text[:i])
			if folded, _ := appendFoldAt(buf[:0], text, i-k); len(folded) > 0 {
				break
			}
			i -= k
		} else {
			if i >= len(text) {
				break
			}
			folded, next := appendFoldAt(buf[:0], text, i)
			if len(folded) > 0 {
				break
			}
			i = next
		}
	}
	return i
}

// appendFoldAt appends the skeleton of the character at s[i] and returns
// where it ends.
func appendFoldAt(b []byte, s string, i int) ([]byte, int) {
	if c := s[i]; c < utf8.RuneSelf {
		if f := foldASCII[c]; f != 0 {
			b = append(b, f)
		}
		return b, i + 1
	}
	return appendFoldRune(b, s, i)
}

// foldStream reads a text's skeleton byte by byte, from text[i].
type foldStream struct {
	s    string
	i    int // where the next character starts
	end  int // where the character of the last byte ends
	pend []byte
	buf  [32]byte
}

func (fs *foldStream) next() (byte, bool) {
	for len(fs.pend) == 0 {
		if fs.i >= len(fs.s) {
			return 0, false
		}
		if c := fs.s[fs.i]; c < utf8.RuneSelf {
			fs.i++
			if f := foldASCII[c]; f != 0 {
				fs.end = fs.i
				return f, true
			}
			continue
		}
		fs.pend, fs.i = appendFoldRune(fs.buf[:0], fs.s, fs.i)
		fs.end = fs.i
	}
	b := fs.pend[0]
	fs.pend = fs.pend[1:]
	return b, true
}

// numberHolds reports whether a JSON number holds a withheld value: it
// has one's value, or, six digits or more, its digits are a withheld
// string's skeleton ("123-45-6789" withheld, then the number 123456789).
func (s *scrubber) numberHolds(text string) bool {
	if s.isWithheldNumber(text) {
		return true
	}
	digits := 0
	for i := 0; i < len(text); i++ {
		if isDigit(text[i]) {
			digits++
		}
	}
	return digits >= minSkeleton && len(s.skels) > 0 && s.containsRaw(text)
}

// isWithheldNumber reports whether the number written text (as isNumber
// accepts) has the value of a withheld one.
func (s *scrubber) isWithheldNumber(text string) bool {
	if !s.numbers {
		return false
	}
	var buf [64]byte
	var key uint64
	keyed := false
	for _, set := range s.sets {
		if len(set.digits) > 0 {
			if _, ok := set.digits[maphash.String(hashSeed, trimMinus(text))]; ok {
				return true
			}
		}
		if len(set.numbers) > 0 {
			if !keyed {
				key, keyed = maphash.Bytes(hashSeed, numberKey(buf[:0], text)), true
			}
			if _, ok := set.numbers[key]; ok {
				return true
			}
		}
	}
	return false
}

func trimMinus(s string) string {
	if s != "" && s[0] == '-' {
		return s[1:]
	}
	return s
}

// inDate reports whether the number at text[a:b], a short run of digits
// alone (fewer than minSkeleton), is part of a date, a time or a version:
// a -, /, . or : joins it to a digit before or after it, as in
// 2026-03-14, 14/03/2026, 10:20:26 or 1.2026.3; or, of four digits, it is
// a year as text writes one (yearInWords). A withheld PIN 2026 is found
// where it stands as a token of its own (pin 2026, ID2026, "2026."), not
// as the year of every later date.
func inDate(text string, a, b int) bool {
	digits := strings.TrimPrefix(text[a:b], "-")
	if len(digits) >= minSkeleton || !allDigits(digits) {
		return false
	}
	a = b - len(digits)
	joins := func(c byte) bool { return c == '-' || c == '/' || c == '.' || c == ':' }
	return a >= 2 && joins(text[a-1]) && isDigit(text[a-2]) || b+1 < len(text) && joins(text[b]) && isDigit(text[b+1]) ||
		len(digits) == 4 && yearInWords(text, a, b)
}

// yearInWords reports whether the four digits at text[a:b] are a year as
// text writes one: after a month's name, and a day or not (March 2026,
// March 14, 2026, 14 Mar 2026), before 年 (2026年3月14日) or an ISO week
// (2026-W11), joined to other digits by an en dash (2025–2026), or after
// a label or member whose name ends in year ("year":2026, Year: 2026).
func yearInWords(text string, a, b int) bool {
	const enDash = "\u2013"
	after, before := text[b:], text[:a]
	switch {
	case strings.HasPrefix(after, "\u5e74"),
		len(after) >= 3 && after[0] == '-' && after[1] == 'W' && isDigit(after[2]),
		strings.HasPrefix(after, enDash) && len(after) > len(enDash) && isDigit(after[len(enDash)]),
		strings.HasSuffix(before, enDash) && len(before) > len(enDash) && isDigit(before[len(before)-len(enDash)-1]):
		return true
	}
	t := strings.TrimRight(before, " ")
	if strings.HasSuffix(t, ":") || strings.HasSuffix(t, "=") {
		t = strings.TrimSuffix(strings.TrimSuffix(strings.TrimRight(t[:len(t)-1], " "), `"`), "'")
		return len(t) >= 4 && strings.EqualFold(t[len(t)-4:], "year")
	}
	t, ok := strings.CutSuffix(before, " ")
	if !ok {
		return false
	}
	t = strings.TrimSuffix(t, ",")
	if n := len(t) - len(strings.TrimRight(t, "0123456789")); n >= 1 && n <= 2 {
		if t, ok = strings.CutSuffix(t[:len(t)-n], " "); !ok {
			return false
		}
	}
	t = strings.TrimSuffix(t, ".")
	k := len(t)
	for k > 0 && isLetter(t[k-1]) {
		k--
	}
	return monthName(t[k:])
}

// yearMember reports whether number node i of tr is a year a member
// names so ("year":2026, "fiscalYear":2026): four digits, and a name
// that ends in year. A withheld PIN 2026 is not the year of every later
// record.
func yearMember(tr *tree, i int) bool {
	p := tr.nodes[i].parent
	if p < 0 || tr.nodes[p].kind != kObject {
		return false
	}
	v, key := tr.text(i), tr.key(i)
	return len(v) == 4 && allDigits(v) && len(key) >= 4 && strings.EqualFold(key[len(key)-4:], "year")
}

// monthName reports whether w is the English name of a month, or its
// first three letters (Sept too), in any case.
func monthName(w string) bool {
	if len(w) < 3 {
		return false
	}
	for _, m := range []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"} {
		if strings.EqualFold(w, m) || len(w) == 3 && strings.EqualFold(w, m[:3]) {
			return true
		}
	}
	return strings.EqualFold(w, "sept")
}
