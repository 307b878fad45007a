package leakcheck

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The decodings of this file read the escapes of text: backslash escapes,
// HTML character references and percent-encoding. transforms lists every
// decoding the finder reads through, these and encodings.go's.

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unhex is the value of the hex digit c.
func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// A transform is one decoding. apply returns s decoded, in each way the
// decoding can be read; nothing when it changes nothing.
type transform struct {
	name  string
	apply func(f *finder, s string) []string
}

var transforms = []transform{
	{"backslash escapes", func(_ *finder, s string) []string { return unescapeBackslashes(s) }},
	{"HTML", func(_ *finder, s string) []string { return changed(s, html.UnescapeString(s)) }},
	{"percent", func(_ *finder, s string) []string { return changed(s, unescapePercent(s, false)) }},
	{"query", func(_ *finder, s string) []string {
		if !strings.Contains(s, "+") {
			return nil // as percent decodes it
		}
		return changed(s, unescapePercent(s, true))
	}},
	{"quoted-printable", func(_ *finder, s string) []string { return changed(s, unescapeQuotedPrintable(s)) }},
	{"base64", (*finder).decodeBase64},
	{"hex", (*finder).decodeHex},
}

func changed(s string, d ...string) []string {
	var out []string
	for _, x := range d {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

var (
	pairRE       = regexp.MustCompile(`\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})`)
	escapeRE     = regexp.MustCompile(`(?:\\x[0-9a-fA-F]{2})+|(?:\\[0-7]{1,3})+|\\(u\{[0-9a-fA-F]{1,6}\}|x\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|\r\n|[\s\S])`)
	octalRE      = regexp.MustCompile(`\\([0-7]{1,3})`)
	hexRE        = regexp.MustCompile(`^[0-9a-fA-F]{2}$`)
	byteEscapeRE = regexp.MustCompile(`\\(?:x[0-9a-fA-F]{2}|[0-7])`)
)

// unescapeBackslashes decodes backslash escapes, reading a run of \xHH
// both as bytes (a Python bytes literal of UTF-8) and as code points (a
// Python str literal).
func unescapeBackslashes(s string) []string {
	if !strings.Contains(s, `\`) {
		return nil
	}
	decode := func(asBytes bool) string {
		s := pairRE.ReplaceAllStringFunc(s, func(m string) string {
			hi, _ := strconv.ParseUint(m[2:6], 16, 32)
			lo, _ := strconv.ParseUint(m[8:12], 16, 32)
			return string(utf16.DecodeRune(rune(hi), rune(lo)))
		})
		return escapeRE.ReplaceAllStringFunc(s, func(m string) string {
			e := m[1:]
			switch {
			case strings.HasPrefix(e, "u{") || strings.HasPrefix(e, "x{"):
				n, _ := strconv.ParseUint(e[2:len(e)-1], 16, 32)
				return codePoint(n)
			case e[0] >= '0' && e[0] <= '7':
				// A run of octal escapes, as C, bash and git write bytes.
				var raw []byte
				for _, o := range octalRE.FindAllStringSubmatch(m, -1) {
					n, _ := strconv.ParseUint(o[1], 8, 16)
					raw = append(raw, byte(n))
				}
				return bytesOrLatin1(raw, asBytes)
			case len(e) == 5 && e[0] == 'u', len(e) == 9 && e[0] == 'U':
				n, _ := strconv.ParseUint(e[1:], 16, 32)
				return codePoint(n)
			case len(e) >= 3 && e[0] == 'x' && hexRE.MatchString(e[1:3]):
				var raw []byte
				for i := 0; i+4 <= len(m); i += 4 {
					n, _ := strconv.ParseUint(m[i+2:i+4], 16, 8)
					raw = append(raw, byte(n))
				}
				return bytesOrLatin1(raw, asBytes)
			case e == "\r\n" || e == "\n" || e == "\r":
				return ""
			}
			if short, ok := map[string]string{"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "a": "\a", "0": "\x00"}[e]; ok {
				return short
			}
			return e
		})
	}
	asBytes := decode(true)
	if !byteEscapeRE.MatchString(s) {
		return changed(s, asBytes) // read as code points, the same
	}
	return changed(s, asBytes, decode(false))
}

// bytesOrLatin1 reads raw as UTF-8 when asked and it is, else each byte
// as the code point it is.
func bytesOrLatin1(raw []byte, asBytes bool) string {
	if asBytes && utf8.Valid(raw) {
		return string(raw)
	}
	var b strings.Builder
	for _, c := range raw {
		b.WriteRune(rune(c))
	}
	return b.String()
}

func codePoint(n uint64) string {
	if n > utf8.MaxRune || utf16.IsSurrogate(rune(n)) {
		return string(utf8.RuneError)
	}
	return string(rune(n))
}

// unescapePercent decodes %HH (as bytes) and %uHHHH, and with plus, + as
// a space. Unlike net/url it takes what it can of a malformed text. It
// reads s byte by byte, as the regular expression
// (?:%[0-9a-fA-F]{2})+|%[uU][0-9a-fA-F]{4} would match its escapes, at a
// fraction of the cost on a long text.
func unescapePercent(s string, plus bool) string {
	if !strings.Contains(s, "%") && !(plus && strings.Contains(s, "+")) {
		return s
	}
	if plus {
		s = strings.ReplaceAll(s, "+", " ")
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] == '%' {
			if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
				i += 3
				continue
			}
			if i+5 < len(s) && (s[i+1] == 'u' || s[i+1] == 'U') && isHex(s[i+2]) && isHex(s[i+3]) && isHex(s[i+4]) && isHex(s[i+5]) {
				n, _ := strconv.ParseUint(s[i+2:i+6], 16, 32)
				b = append(b, codePoint(n)...)
				i += 6
				continue
			}
		}
		b = append(b, s[i])
		i++
	}
	return string(b)
}
