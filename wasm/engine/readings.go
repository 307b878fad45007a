package engine

import (
	"strings"
	"unicode/utf8"
	"unsafe"
)

// This file reads a text's characters back as the bytes ordinary
// software wrote them from, when it read those bytes in the wrong
// encoding: UTF-8 read as Latin-1 or Windows-1252 (JÃ¼rgen for Jürgen,
// â€™ for ’), and bytes read as UTF-16 code units, in either byte order
// (Node's buf.toString("utf16le") of an ASCII file gives CJK text, two
// bytes a character). Each reading is searched like the text itself, and
// a match goes as the characters it was read from. A text is also read
// without HTML's invisible break element, <wbr>, which mail templates put
// inside long words, addresses and numbers, and with the xn-- labels of
// domain names as the Unicode they stand for (punycode.go), and with a
// list of byte values a log line holds (Go's %v of a []byte) as the bytes
// it lists.

// cp1252 maps the characters Windows-1252 gives the bytes 0x80 to 0x9F
// to those bytes; the rest of Latin-1 is its own code point.
var cp1252 = map[rune]byte{
	'€': 0x80, '‚': 0x82, 'ƒ': 0x83, '„': 0x84, '…': 0x85, '†': 0x86, '‡': 0x87,
	'ˆ': 0x88, '‰': 0x89, 'Š': 0x8a, '‹': 0x8b, 'Œ': 0x8c, 'Ž': 0x8e,
	'‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '•': 0x95, '–': 0x96, '—': 0x97,
	'˜': 0x98, '™': 0x99, 'š': 0x9a, '›': 0x9b, 'œ': 0x9c, 'ž': 0x9e, 'Ÿ': 0x9f,
}

// latinByte returns the byte Latin-1 or Windows-1252 reads as r.
func latinByte(r rune) (byte, bool) {
	if r < 0x100 {
		return byte(r), true
	}
	b, ok := cp1252[r]
	return b, ok
}

// reading is a text's characters read back as bytes: at[k] is the byte
// of the text that the character byte k was read from starts at, and
// end[k] where it ends.
type reading struct {
	bytes   []byte
	at, end []int32
	differs bool
}

func (r *reading) reset() {
	r.bytes, r.at, r.end = r.bytes[:0], r.at[:0], r.end[:0]
	r.differs = false
}

// grow makes room for n bytes, so that a reading of a long text is not
// copied as it grows.
func (r *reading) grow(n int) {
	if cap(r.bytes) < n {
		r.bytes = make([]byte, 0, n)
		r.at = make([]int32, 0, n)
		r.end = make([]int32, 0, n)
	}
}

func (r *reading) add(c byte, a, b int) {
	r.bytes = append(r.bytes, c)
	r.at = append(r.at, int32(a))
	r.end = append(r.end, int32(b))
}

// origin maps bytes [a, b) of the reading back to the text's span.
func (r *reading) origin(a, b int) (int, int) {
	return int(r.at[a]), int(r.end[b-1])
}

// hasMultibyte reports whether str has a byte past ASCII: a text without
// one has no reading but itself.
func hasMultibyte(str string) bool {
	for i := 0; i < len(str); i++ {
		if str[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// mojibake reads str with every character Latin-1 or Windows-1252 gives
// a byte as that byte, and the rest as it is written: the bytes of UTF-8
// text that was read as either. It reports whether that changed anything
// a withheld value could be made of: a byte past ASCII after a lead byte
// of UTF-8.
func (r *reading) mojibake(str string) bool {
	r.reset()
	r.grow(len(str))
	for i := 0; i < len(str); {
		c, n := utf8.DecodeRuneInString(str[i:])
		if c < utf8.RuneSelf {
			r.add(byte(c), i, i+n)
			i += n
			continue
		}
		if b, ok := latinByte(c); ok && (c != utf8.RuneError || n > 1) {
			if b >= 0x80 && b < 0xc0 && len(r.bytes) > 0 && r.bytes[len(r.bytes)-1] >= 0x80 {
				r.differs = true
			}
			r.add(b, i, i+n)
			i += n
			continue
		}
		// A character no single byte reads as: its own bytes.
		for k := 0; k < n; k++ {
			r.add(str[i+k], i, i+n)
		}
		i += n
	}
	return r.differs
}

// utf16Bytes reads str's characters of the Basic Multilingual Plane past
// Latin-1 as code units of UTF-16, each two bytes in the order bigEndian
// says, and the rest as nothing: the bytes of a text read as UTF-16.
// A text read from an odd offset gives the same bytes, one fewer at the
// start. It reports whether two code units or more were read.
func (r *reading) utf16Bytes(str string, bigEndian bool) bool {
	r.reset()
	r.grow(len(str))
	units := 0
	for i := 0; i < len(str); {
		c, n := utf8.DecodeRuneInString(str[i:])
		i += n
		if c < 0x100 || c > 0xffff || c == utf8.RuneError {
			// Not a unit of two bytes past Latin-1: a break between runs.
			if len(r.bytes) > 0 && r.bytes[len(r.bytes)-1] != 0 {
				r.add(0, i-n, i)
			}
			continue
		}
		hi, lo := byte(c>>8), byte(c)
		if bigEndian {
			hi, lo = lo, hi
		}
		r.add(lo, i-n, i)
		r.add(hi, i-n, i)
		units++
	}
	return units >= 2
}

// wbrAt returns the length of the <wbr> element (<wbr>, <wbr/>, <wbr />,
// in any case) that str starts with, or 0.
func wbrAt(str string) int {
	if len(str) < 5 || str[0] != '<' || !strings.EqualFold(str[1:4], "wbr") {
		return 0
	}
	i := 4
	for i < len(str) && str[i] == ' ' {
		i++
	}
	if i < len(str) && str[i] == '/' {
		i++
	}
	if i < len(str) && str[i] == '>' {
		return i + 1
	}
	return 0
}

// hasWbr reports whether str holds a <wbr> element.
func hasWbr(str string) bool {
	for i := strings.IndexByte(str, '<'); i >= 0; {
		if wbrAt(str[i:]) > 0 {
			return true
		}
		k := strings.IndexByte(str[i+1:], '<')
		if k < 0 {
			return false
		}
		i += 1 + k
	}
	return false
}

// withoutWbr reads str without its <wbr> elements. It reports whether it
// held one.
func (r *reading) withoutWbr(str string) bool {
	r.reset()
	if !hasWbr(str) {
		return false
	}
	r.grow(len(str))
	for i := 0; i < len(str); {
		if n := wbrAt(str[i:]); n > 0 {
			i += n
			continue
		}
		r.add(str[i], i, i+1)
		i++
	}
	return true
}

// minLostByteMatch is the fewest bytes a value must have to be found in
// a run of UTF-16 code units that lost its last byte: a piece of seven
// printable bytes ends ordinary text read as UTF-16 rarely, and no
// ordinary run ends in the first seven bytes of a withheld value.
const minLostByteMatch = 8

// maxLostByteRun bounds how much of the end of a run lostByteEnds reads
// again: a token, a password or an address, not a key file.
const maxLostByteRun = 256

// lostByteEnds calls f with t holding the end of each run of r, a reading
// of UTF-16 code units, that is printable ASCII for minLostByteMatch-1
// bytes or more, with one more printable byte after it, for each such
// byte: the text it was read from was an odd number of bytes long, and
// its reader dropped the last (Node's buf.toString("utf16le") does), so
// that a withheld value at its end lost its last character. The byte
// added is read from the run's last character. Only the part of the run
// from where mayStart says a value may start is given, and none when it
// says none may; a capital is not tried, as values are found in any
// case. It stops when f returns false, and reports whether f never did.
func (r *reading) lostByteEnds(t *reading, mayStart func(string) int, f func(t *reading) bool) bool {
	for p := 0; p <= len(r.bytes); p++ {
		if p < len(r.bytes) && r.bytes[p] != 0 {
			continue
		}
		a := p
		for a > 0 && p-a < maxLostByteRun && r.bytes[a-1] > ' ' && r.bytes[a-1] < 0x7f {
			a--
		}
		if p-a < minLostByteMatch-1 {
			continue
		}
		// A value of minLostByteMatch bytes or more starts at least
		// minLostByteMatch-1 bytes before the byte added.
		k := mayStart(unsafe.String(unsafe.SliceData(r.bytes[a:p-(minLostByteMatch-1)+4]), p-(minLostByteMatch-1)+4-a))
		if k < 0 {
			continue
		}
		a += k
		n := p - a
		t.reset()
		t.bytes = append(t.bytes, r.bytes[a:p]...)
		t.at = append(t.at, r.at[a:p]...)
		t.end = append(t.end, r.end[a:p]...)
		for c := byte('!'); c < 0x7f; c++ {
			if c >= 'A' && c <= 'Z' {
				continue
			}
			t.bytes = append(t.bytes[:n], c)
			t.at = append(t.at[:n], r.at[p-1])
			t.end = append(t.end[:n], r.end[p-1])
			if !f(t) {
				return false
			}
		}
	}
	return true
}

// mayStartIn returns the first byte of str, printable ASCII, at which a
// needle of the scrubber may start, as written or by its skeleton, a few
// bytes before it for what a skeleton match takes around it; -1 for none.
func (s *scrubber) mayStartIn(str string) int {
	first := -1
	var w uint32
	for i := 0; i < len(str); i++ {
		w = w>>8 | uint32(lowerASCII[str[i]])<<24
		if i >= 3 {
			for _, t := range s.exacts {
				if t.mayStart(w) {
					first = i - 3
					break
				}
			}
			if first >= 0 {
				break
			}
		}
	}
	// The skeleton: letters and digits, lowered.
	var at [4]int
	have := 0
	w = 0
	for i := 0; i < len(str) && (first < 0 || i < first+4); i++ {
		fc := foldASCII[str[i]]
		if fc == 0 {
			continue
		}
		w = w>>8 | uint32(fc)<<24
		at[have&3] = i
		have++
		if have >= 4 && len(s.skels) > 0 && s.skelMayStart(w) {
			if a := at[(have-4)&3]; first < 0 || a < first {
				first = a
			}
			break
		}
	}
	if first < 0 {
		return -1
	}
	return max(0, first-maxEdge)
}

// maxEdge is how many bytes lostByteEnds keeps before where a needle may
// start, for the punctuation a skeleton match takes at a value's start.
const maxEdge = 8

// byteValues reads the bytes str writes as byte values in brackets, one
// space between them, as Go's %v writes a []byte ([115 107 95 …]): four or
// more integers 0 to 255. A byte is read from its number. It reports
// whether str held such a list.
func (r *reading) byteValues(str string) bool {
	r.reset()
	for i := strings.IndexByte(str, '['); i >= 0; {
		j := i + 1
		start := len(r.bytes)
		for {
			n := digitRun(str[j:])
			if n < 1 || n > 3 {
				break
			}
			v := atoiDigits(str[j : j+n])
			if v > 255 {
				break
			}
			r.add(byte(v), j, j+n)
			j += n
			if j < len(str) && str[j] == ' ' {
				j++
				continue
			}
			break
		}
		if j >= len(str) || str[j] != ']' || len(r.bytes)-start < minByteArray {
			r.bytes, r.at, r.end = r.bytes[:start], r.at[:start], r.end[:start]
		} else {
			// A list of its own: a value does not run on into the next.
			r.add(0, j, j)
		}
		k := strings.IndexByte(str[j:], '[')
		if k < 0 {
			break
		}
		i = j + k
	}
	return len(r.bytes) > 0
}

// maxMojibake bounds how often a text is read back as the UTF-8 that was
// read as Latin-1 or Windows-1252: a text that passed through two or
// three systems that each misread it is misread as often. A text that
// would read back again after that many fails closed.
const maxMojibake = 3

// readingChain is a text's readings applied one after the other (see
// eachReadingMatch): steps[0] reads the text, steps[k] reads what
// steps[k-1] read.
type readingChain struct {
	steps []*reading
	// free keeps readings for the chain to reuse.
	free []*reading
}

// next returns a reading for the next step; push adds it.
func (c *readingChain) next() *reading {
	if n := len(c.free); n > 0 {
		r := c.free[n-1]
		c.free = c.free[:n-1]
		return r
	}
	return &reading{}
}

func (c *readingChain) push(r *reading) { c.steps = append(c.steps, r) }

// drop gives r back to the chain's readings unused.
func (c *readingChain) drop(r *reading) { c.free = append(c.free, r) }

// origin maps bytes [a, b) of the text the chain's first k steps read to
// the span of the text it started from.
func (c *readingChain) origin(k, a, b int) (int, int) {
	for j := k - 1; j >= 0; j-- {
		a, b = c.steps[j].origin(a, b)
	}
	return a, b
}

// eachReadingMatch calls f with the span of str that a match in one of
// its readings was read from. The readings are composed: str is read
// without its <wbr> elements, then as the UTF-8 it was misread from, up
// to maxMojibake times (UTF-8 read as Windows-1252 twice reads back once
// to the first misreading), and each of these texts is searched, and
// searched read as UTF-16 code units; the text without <wbr> and the
// last one are also searched with their xn-- labels read as Unicode, and
// the last one's lists of byte values read as bytes. A decoding of str (decode.go) gets the same readings,
// so a reading applies after a decoding too. Past the bounds (a text
// that would still read back as UTF-8 after maxMojibake readings, a
// <wbr> or an xn-- label left after they were read) it reports false, as
// when matching costs more than its budget, and the caller fails closed.
func (s *scrubber) eachReadingMatch(str string, f func(a, b int) bool) bool {
	// A text of ASCII alone with no <wbr>, no xn-- label (which takes a
	// "--") and no list of byte values has no reading but itself: a
	// hyphen alone (a key's "sk-live-", a note's "follow-up") reads
	// nothing.
	if !hasMultibyte(str) && strings.IndexByte(str, '<') < 0 && !strings.Contains(str, "--") && strings.IndexByte(str, '[') < 0 {
		return true
	}
	var c readingChain
	stop := false
	// text is what the chain's steps read so far, str with none.
	text := str
	// search searches r, a reading of text, the k-th step of the chain
	// or a last reading after k steps.
	search := func(r *reading, k int) bool {
		if len(r.bytes) < minScrubLength {
			return true
		}
		read := unsafe.String(unsafe.SliceData(r.bytes), len(r.bytes))
		in := text
		return s.eachMatch(read, func(a, b int) bool {
			pa, pb := r.origin(a, b)
			if in[pa:pb] == read[a:b] {
				// Read as it is written: the search of the text it was
				// read from has answered for it, where it stands.
				return true
			}
			oa, ob := c.origin(k, pa, pb)
			stop = !f(oa, ob)
			return !stop
		})
	}
	// step reads text with read and, when that read something, searches
	// it and makes it the chain's next step.
	step := func(read func(r *reading, text string) bool) (bool, bool) {
		r := c.next()
		if !read(r, text) {
			c.drop(r)
			return false, true
		}
		if !search(r, len(c.steps)) {
			return true, false
		}
		c.push(r)
		text = unsafe.String(unsafe.SliceData(r.bytes), len(r.bytes))
		return true, true
	}
	var leaf, tail reading
	// utf16 searches text read as UTF-16 code units, in both orders, and
	// each run of them that ends in printable ASCII with each byte after
	// it that could have been lost (lostByteEnds).
	utf16 := func() bool {
		if !hasMultibyte(text) {
			return true
		}
		for _, big := range []bool{false, true} {
			if !leaf.utf16Bytes(text, big) {
				continue
			}
			if !search(&leaf, len(c.steps)) || stop {
				return false
			}
			ok := leaf.lostByteEnds(&tail, s.mayStartIn, func(t *reading) bool {
				read := unsafe.String(unsafe.SliceData(t.bytes), len(t.bytes))
				return s.eachMatch(read, func(a, b int) bool {
					if b != len(read) || b-a < minLostByteMatch {
						// Not a value whose last byte was lost.
						return true
					}
					pa, pb := t.origin(a, b)
					oa, ob := c.origin(len(c.steps), pa, pb)
					stop = !f(oa, ob)
					return !stop
				}) && !stop
			})
			if !ok {
				return false
			}
		}
		return true
	}
	// punycode searches text with its xn-- labels read as Unicode; a
	// label that a label reads to is past the bound.
	punycode := func() bool {
		if !leaf.withPunycode(text) {
			return true
		}
		if !search(&leaf, len(c.steps)) || stop {
			return false
		}
		var r reading
		return !r.withPunycode(unsafe.String(unsafe.SliceData(leaf.bytes), len(leaf.bytes)))
	}
	if read, ok := step((*reading).withoutWbr); !ok || stop {
		return ok
	} else if read && hasWbr(text) {
		// A <wbr> the first reading made (<wb<wbr>r>) is past the
		// bound.
		return false
	}
	if !utf16() || !punycode() {
		return stop
	}
	before := len(c.steps)
	for k := 0; hasMultibyte(text); k++ {
		if k == maxMojibake {
			var r reading
			if r.mojibake(text) {
				return false
			}
			break
		}
		read, ok := step((*reading).mojibake)
		if !ok || stop {
			return ok
		}
		if !read {
			break
		}
		if !utf16() {
			return stop
		}
	}
	// An address whose name was misread, and whose domain is in xn--
	// labels, reads whole only once both are read.
	if len(c.steps) > before && !punycode() {
		return stop
	}
	if leaf.byteValues(text) && !search(&leaf, len(c.steps)) {
		return false
	}
	return true
}

// readingsHold reports whether a reading of text (eachReadingMatch)
// holds a withheld value, or costs more to search than the budget.
func (s *scrubber) readingsHold(text string) bool {
	found := false
	ok := s.eachReadingMatch(text, func(int, int) bool { found = true; return false })
	return found || !ok
}
