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

// eachReadingMatch calls f with the span of str that a match in one of
// its readings was read from. It reports false when matching cost more
// than its budget.
func (s *scrubber) eachReadingMatch(str string, f func(a, b int) bool) bool {
	multibyte := hasMultibyte(str)
	if !multibyte && strings.IndexByte(str, '<') < 0 && strings.Index(str, "-") < 0 && strings.IndexByte(str, '[') < 0 {
		return true
	}
	var r reading
	for k := 0; k < 6; k++ {
		var read bool
		switch {
		case k == 3:
			read = r.withoutWbr(str)
		case k == 4:
			read = r.withPunycode(str)
		case k == 5:
			read = r.byteValues(str)
		case !multibyte:
			continue
		case k == 0:
			read = r.mojibake(str)
		case k == 1:
			read = r.utf16Bytes(str, false)
		default:
			read = r.utf16Bytes(str, true)
		}
		if !read || len(r.bytes) < minScrubLength {
			continue
		}
		stop := false
		text := unsafe.String(unsafe.SliceData(r.bytes), len(r.bytes))
		ok := s.eachMatch(text, func(a, b int) bool {
			oa, ob := r.origin(a, b)
			if str[oa:ob] == text[a:b] {
				// Read as it is written: the search of str itself has
				// answered for it, where it stands.
				return true
			}
			stop = !f(oa, ob)
			return !stop
		})
		if !ok {
			return false
		}
		if stop {
			return true
		}
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
