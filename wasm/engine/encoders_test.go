package engine

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/veilmcp/veil/wasm/internal/jsonx"
)

// The encoders below write a string the way ordinary backends do. The
// tests echo withheld values through them, one after another, and look
// for the values in the agent view with package leakcheck, which decodes
// independently of the engine.

// An encoder writes s in one notation. The JSON encoders write the
// contents of a string literal, without the quotes.
type encoder struct {
	name   string
	encode func(s string) string
}

// jsonContents is JSON.stringify's string literal without its quotes.
func jsonContents(s string) string {
	q := string(jsonx.AppendString(nil, s))
	return q[1 : len(q)-1]
}

// escapeNonASCII writes every character past ASCII as \uXXXX, with
// surrogate pairs, as Python's json.dumps and PHP's json_encode do.
func escapeNonASCII(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&b, `\u%04x`, u)
		}
	}
	return b.String()
}

var encoders = []encoder{
	{"JSON.stringify", jsonContents},
	{"Python json.dumps", func(s string) string { return escapeNonASCII(jsonContents(s)) }},
	{"Go json.Marshal", func(s string) string {
		b, _ := json.Marshal(s)
		return string(b[1 : len(b)-1])
	}},
	{"PHP json_encode", func(s string) string {
		return strings.ReplaceAll(escapeNonASCII(jsonContents(s)), "/", `\/`)
	}},
	{"JSON, every character escaped", func(s string) string {
		var b strings.Builder
		for _, u := range utf16.Encode([]rune(s)) {
			fmt.Fprintf(&b, `\u%04X`, u)
		}
		return b.String()
	}},
	{"Python repr", pythonRepr},
	{"Python bytes repr", func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '\\' || c == '\'':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c < 0x20 || c >= 0x7f:
				fmt.Fprintf(&b, `\x%02x`, c)
			default:
				b.WriteByte(c)
			}
		}
		return b.String()
	}},
	{"octal bytes, as git and bash write them", func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
		return b.String()
	}},
	{"Perl \\x{}", func(s string) string {
		var b strings.Builder
		for _, r := range s {
			if r < 0x80 && r >= 0x20 && r != '\\' && r != '"' {
				b.WriteRune(r)
			} else {
				fmt.Fprintf(&b, `\x{%x}`, r)
			}
		}
		return b.String()
	}},
	{"Python html.escape", func(s string) string {
		return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;").Replace(s)
	}},
	{"Go html.EscapeString", html.EscapeString},
	{"PHP htmlentities", htmlEntities},
	{"HTML decimal references", func(s string) string {
		var b strings.Builder
		for _, r := range s {
			if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
				b.WriteRune(r)
				continue
			}
			fmt.Fprintf(&b, "&#%d;", r)
		}
		return b.String()
	}},
	{"HTML hex references", func(s string) string {
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, "&#x%X;", r)
		}
		return b.String()
	}},
	{"url.QueryEscape", url.QueryEscape},
	{"url.PathEscape", url.PathEscape},
	{"percent, every byte", func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			fmt.Fprintf(&b, "%%%02x", s[i])
		}
		return b.String()
	}},
	{"JavaScript escape()", func(s string) string {
		var b strings.Builder
		for _, u := range utf16.Encode([]rune(s)) {
			switch {
			case u < 0x80 && (unicode.IsLetter(rune(u)) || unicode.IsDigit(rune(u)) || strings.ContainsRune("@*_+-./", rune(u))):
				b.WriteByte(byte(u))
			case u < 0x100:
				fmt.Fprintf(&b, "%%%02X", u)
			default:
				fmt.Fprintf(&b, "%%u%04X", u)
			}
		}
		return b.String()
	}},
}

// pythonRepr is the inside of Python's repr of a str: printable
// characters as they are, the rest escaped.
func pythonRepr(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	return b.String()
}

// htmlEntities writes the named references of HTML 4.01 where a character
// has one, numeric ones past them, as PHP's htmlentities does.
func htmlEntities(s string) string {
	var b strings.Builder
	for _, r := range s {
		if name, ok := html4Names[r]; ok {
			b.WriteString("&" + name + ";")
			continue
		}
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		fmt.Fprintf(&b, "&#%d;", r)
	}
	return b.String()
}

// html4Names are a sample of HTML 4.01's names: the markup characters,
// Latin-1 letters and symbols, and a few beyond.
var html4Names = map[rune]string{
	'&': "amp", '<': "lt", '>': "gt", '"': "quot",
	0xa0: "nbsp", 0xa9: "copy", 0xb0: "deg", 0xb5: "micro", 0xdf: "szlig",
	0xc4: "Auml", 0xd6: "Ouml", 0xdc: "Uuml", 0xe4: "auml", 0xf6: "ouml", 0xfc: "uuml",
	0xe9: "eacute", 0xe8: "egrave", 0xe7: "ccedil", 0xf1: "ntilde", 0xf8: "oslash",
	0x20ac: "euro", 0x2014: "mdash", 0x2019: "rsquo", 0x3b1: "alpha", 0x3a9: "Omega",
}

// numberForms are the ways ordinary encoders write the number n (as
// isNumber accepts it).
func numberForms(n string) []string {
	f, err := strconv.ParseFloat(n, 64)
	if err != nil {
		return []string{n}
	}
	forms := []string{
		n,
		strconv.FormatFloat(f, 'f', -1, 64),
		strconv.FormatFloat(f, 'e', -1, 64),
		strconv.FormatFloat(f, 'E', -1, 64),
	}
	if f == float64(int64(f)) {
		forms = append(forms, strconv.FormatFloat(f, 'f', 1, 64)) // Python's 4471.0
	}
	return forms
}

func validUTF8(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}
