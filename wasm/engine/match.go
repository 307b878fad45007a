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
	budget := matchBudget*len(text) + matchSlack
	stop := false
	g := func(a, b int) bool {
		stop = !f(a, b)
		return !stop
	}
	if s.exact && !s.scanExact(text, &budget, g) {
		return false
	}
	if stop {
		return true
	}
	if s.skel && !s.scanSkeleton(text, &budget, g) {
		return false
	}
	if stop {
		return true
	}
	for _, set := range s.sets {
		for _, x := range set.short {
			for from := 0; from < len(text); {
				i := strings.Index(text[from:], x)
				if i < 0 {
					break
				}
				if !g(from+i, from+i+len(x)) {
					return true
				}
				from += i + len(x)
			}
		}
	}
	if s.numbers {
		numbers(text, func(a, b int) bool {
			if s.isWithheldNumber(text[a:b]) {
				return g(a, b)
			}
			return true
		})
	}
	return true
}

// scanExact finds the exact needles: the bytes as written, ASCII letters
// in any case.
func (s *scrubber) scanExact(text string, budget *int, f func(a, b int) bool) bool {
	for i := 0; i+4 <= len(text); i++ {
		w := uint32(lowerASCII[text[i]]) | uint32(lowerASCII[text[i+1]])<<8 | uint32(lowerASCII[text[i+2]])<<16 | uint32(lowerASCII[text[i+3]])<<24
		m := 0
		for _, set := range s.sets {
			if set.exact.mayStart(w) {
				m = max(m, set.exact.exactAt(text, i, w, budget))
			}
		}
		if *budget < 0 {
			return false
		}
		if m > 0 {
			if !f(i, i+m) {
				return true
			}
			i += m - 1
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
	for ; k != 0; k = t.list[k-1].next {
		nd := &t.list[k-1]
		end := i + int(nd.n)
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
		if h.Sum64() == nd.hash {
			best = int(nd.n)
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
// is.
func (s *scrubber) scanSkeleton(text string, budget *int, f func(a, b int) bool) bool {
	var (
		ring [4]origin
		have int
		w    uint32
		buf  [32]byte
	)
	// push takes one skeleton byte b; it reports the end of a match that
	// starts four bytes back, or -1.
	push := func(b byte, o origin) int {
		w = w>>8 | uint32(b)<<24
		ring[have&3] = o
		have++
		if have < 4 {
			return -1
		}
		first := ring[(have-4)&3]
		if first.cont {
			return -1
		}
		start, end := -1, -1
		for _, set := range s.sets {
			if set.skel.mayStart(w) {
				if a, b := set.skel.skeletonAt(text, first, w, budget); b > end {
					start, end = a, b
				}
			}
		}
		if end < 0 {
			return -1
		}
		if !f(start, end) {
			return -2
		}
		return end
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			fc := foldASCII[c]
			i++
			if fc == 0 {
				continue
			}
			switch end := push(fc, origin{at: int32(i - 1)}); {
			case end == -2:
				return *budget >= 0
			case end >= 0:
				i, have = end, 0
			}
			if *budget < 0 {
				return false
			}
			continue
		}
		fb, next := appendFoldRune(buf[:0], text, i)
		at := i
		i = next
		for k, b := range fb {
			end := push(b, origin{at: int32(at), sub: int8(k), cont: !utf8.RuneStart(b)})
			if end == -2 {
				return *budget >= 0
			}
			if end >= 0 {
				i, have = end, 0
				break
			}
		}
		if *budget < 0 {
			return false
		}
	}
	return true
}

// skeletonAt returns the span, in text, of the longest needle of t whose
// skeleton starts at o and whose first four skeleton bytes are w, with
// the characters it takes around it (pre, post); -1, -1 for none. It
// charges what it hashes to budget. A needle of digits matches only where
// no digit stands just before or after it.
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
	for ; k != 0; k = t.list[k-1].next {
		nd := &t.list[k-1]
		for count < int(nd.n) {
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
		if h.Sum64() != nd.hash {
			continue
		}
		if nd.digits && (digitBefore(text, int(o.at)) || isDigitRune(text, fs.end)) {
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
