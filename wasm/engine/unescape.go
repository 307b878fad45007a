package engine

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// This file holds the decoders, one for each decoding (decode.go): each
// reads the escape at the start of a string and appends what it stands for.

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
// semicolon optional, as browsers read them) and every named reference
// of HTML (entities.go).
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
		if out, ok := appendHTMLEntity(b, name); ok {
			return out, j + 1 - i
		}
	}
	// The legacy names read without a semicolon, longest first.
	for k := min(len(name), maxLegacyName); k >= 2 && !strict; k-- {
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
