// Package leakcheck finds a withheld value in what an AI agent reads, in
// every form a reader decodes without effort: JSON text in JSON strings,
// backslash escapes of JSON, JavaScript and Python, HTML character
// references, percent-encoding, quoted-printable (raw e-mail), base64 and
// base64url (padded or not, at any byte alignment, as in HTTP Basic
// credentials, line-wrapped as MIME and PEM wrap it, each segment of a
// JWT), hex (either case, with or without separators between the byte
// pairs), and a number written any way. The decodings compose, up to
// MaxDepth of them: JSON in a JWT's payload, hex in base64 in an e-mail.
// A value split across strings of a JSON text that follow one another
// ({"a":"sk_live_","b":"9f8e"}) is found too.
//
// It finds the value however it is written, too: in any case (Unicode
// simple case folding, and a letter's upper and lower case, so the
// Turkish ı and İ are i), in any Unicode normalization form (NFC, NFD,
// NFKC, NFKD: fullwidth digits, ligatures), with invisible characters
// (format characters such as the soft hyphen, zero-width spaces and
// joiners, the word joiner, the byte order mark) anywhere in it, and,
// when it has six letters and digits or more, as its letters and digits
// in order with only separators (spaces of every kind, dashes, . _ / :)
// between them, standing whole: the card number 4111111111111111 in
// "4111 1111 1111 1111" and "4111-1111-1111-1111", the SSN 123-45-6789 in
// "123 45 6789", but not /redeem/ in "redeemUrl".
//
// It is the tests' oracle for the engine's rules (c) and (d). It is written
// apart from the engine's own decoding, on the standard library where it
// can be, so that the two do not share a mistake. It is meant to be
// stricter than the engine, never laxer: a value it finds in a form the
// engine leaves is a leak to look at, not a fault of the oracle.
//
// A value written as a number (see [IsNumber]) is found by value, where it
// stands whole: 4471 is in "x4471", "4471.0" and 4.471e3, not in "144712"
// or "3.4471". One written with a leading zero (a PIN 0420) is found as
// written, where it stands whole. Any other value is found as a
// substring. With separators ignored, a number's digits are found as a
// string standing whole, however they are grouped.
package leakcheck

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// MaxDepth is how many decodings Find applies one after the other.
const MaxDepth = 6

// maxLayers bounds the distinct decodings Find searches per string, and
// maxGrowth their size: all of them together at most maxGrowth times the
// string's (a string of a few hundred KB that every decoding changes, as
// random bytes do, would otherwise be searched maxLayers times over). The
// decodings nearest the string are searched first, so the bound cuts
// only decodings of decodings of what is mostly noise.
const (
	maxLayers = 256
	maxGrowth = 64
)

// Find reports whether text, or anything decoded from it, holds value,
// and where: a short description of the decodings that led there.
//
// Its work is bounded by a multiple of the text's length: at most
// maxLayers decodings of each string, of maxGrowth times its size in
// all; runs of base64 or hex too short to hold the value are not decoded,
// and what decoded bytes hold that reads as text only briefly, as bytes
// that were never encoded do, is searched but not decoded further.
func Find(text, value string) (where string, found bool) {
	f := finder{value: value, minLen: len(value)}
	if IsNumber(value) {
		digits := strings.TrimPrefix(value, "-")
		n, ok := decimalOf(digits)
		switch {
		case leadingZeroRE.MatchString(digits):
			f.digits = digits
		case ok: // else too large to compare by value: found as written
			f.number = &n
			// In decoded bytes, a number is looked for written as it is,
			// or with no more digits than it needs: 4471.0 as 4471.
			f.minLen = min(len(digits), max(1, len(n.digits)+max(0, n.exp)))
		}
	}
	f.folded = fold(value)
	if b, n := bare(f.folded); n >= minBare {
		f.bare, f.joined = b, unseparated(f.folded)
	}
	for _, form := range []string{f.folded, f.bare} {
		if form != "" {
			f.minLen = min(f.minLen, len(form))
		}
	}
	return f.find(text, "text", 0)
}

// IsNumber reports whether s is written as a number: an optional minus
// sign, digits, an optional fraction and an optional exponent.
func IsNumber(s string) bool { return numberRE.MatchString(s) }

var (
	numberRE      = regexp.MustCompile(`^-?([0-9]+(\.[0-9]+)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
	leadingZeroRE = regexp.MustCompile(`^0[0-9]`)
)

type finder struct {
	value  string
	number *decimal // the value's magnitude, when it is a number
	digits string   // the value without its sign, when it has a leading zero

	// folded is the value as the loose comparison reads it (see fold):
	// "" when nothing of it is left.
	folded string
	// bare is the folded value's letters and digits, and joined the
	// folded value without its separators, when it has minBare letters
	// and digits or more; else both are "".
	bare, joined string
	// minLen is the fewest bytes any form holds finds the value in takes:
	// an encoded run too short to decode to that many is not decoded.
	minLen int
	// scraps are the layers of decoded bytes searched but not decoded
	// further (see textIn).
	scraps map[string]bool
}

func (f *finder) find(text, where string, jsonDepth int) (string, bool) {
	layers := []string{text}
	names := []string{where}
	seen := map[string]bool{text: true}
	depth := map[string]int{text: 0}
	size, budget := len(text), maxGrowth*max(len(text), 1024)
	for k := 0; k < len(layers); k++ {
		s := layers[k]
		// A JSON text is read as the values it holds: a match across its
		// syntax (a quote and the escape before it) is nothing a reader
		// reads.
		if jsonDepth < 2*MaxDepth {
			if w, ok, isJSON := f.findJSON(s, names[k], jsonDepth); isJSON {
				if ok {
					return w, true
				}
				continue
			}
		}
		if how, ok := f.holds(s); ok {
			return names[k] + how, true
		}
		if depth[s] >= MaxDepth || len(layers) >= maxLayers || size >= budget || f.scraps[s] {
			continue
		}
		for _, t := range transforms {
			for _, d := range t.apply(f, s) {
				if seen[d] || size+len(d) > budget {
					continue
				}
				seen[d] = true
				size += len(d)
				depth[d] = depth[s] + 1
				layers = append(layers, d)
				names = append(names, names[k]+" > "+t.name)
			}
		}
	}
	return "", false
}

// findJSON looks in s parsed as JSON, if it is a JSON object, array or
// string: every string and member name as a text of its own, and every
// number.
func (f *finder) findJSON(s, where string, jsonDepth int) (w string, found, isJSON bool) {
	trimmed := strings.TrimSpace(s)
	if trimmed == "" || !strings.ContainsAny(trimmed[:1], `{["`) {
		return "", false, false
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return "", false, false
	}
	if dec.InputOffset() != int64(len(trimmed)) {
		return "", false, false // more after the value
	}
	w, found = f.findValue(v, where+" > JSON", jsonDepth+1)
	if !found {
		if joined, n := joinedStrings(trimmed); n >= 2 {
			// The strings are decoded each on its own already; joined,
			// they are searched as they are, not decoded again.
			if how, ok := f.holds(joined); ok {
				return where + " > JSON strings joined" + how, true, true
			}
		}
	}
	return w, found, true
}

// joinedStrings is the string values of the JSON text s (not its member
// names) in the order they are written, joined, with the numbers between
// them as written, and how many strings there are. A value split across
// strings that follow one another ({"a":"sk_live_","b":"9f8e"}, or a card
// number's groups in an array) is read whole by a reader who reads them
// one after the other. true, false and null end a run of strings: a NUL
// stands for them. So does the meeting of a number and a string: a reader
// joins a string to the next string, and a number's groups to the next
// number's, but not the digits of {"iat":1700000000} to the letters of
// {"sub":"ada"}.
func joinedStrings(s string) (string, int) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var b strings.Builder
	n := 0
	last := byte(0)    // 's' after a string, 'n' after a number
	var objects []bool // for each open array or object, whether it is an object
	name := false      // whether a member name comes next
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if name {
			name = false
			if tok == json.Delim('}') {
				objects = objects[:len(objects)-1]
				name = len(objects) > 0 && objects[len(objects)-1]
			}
			continue
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				objects = append(objects, t == '{')
				name = t == '{'
				continue
			}
			objects = objects[:len(objects)-1]
		case string:
			if last == 'n' {
				b.WriteByte(0)
			}
			b.WriteString(t)
			n++
			last = 's'
		case json.Number:
			if last == 's' {
				b.WriteByte(0)
			}
			b.WriteString(string(t))
			last = 'n'
		default:
			b.WriteByte(0)
			last = 0
		}
		// A value has ended: in an object, a member name comes next.
		name = len(objects) > 0 && objects[len(objects)-1]
	}
	return b.String(), n
}

func (f *finder) findValue(v any, where string, jsonDepth int) (string, bool) {
	switch v := v.(type) {
	case string:
		return f.find(v, where+" string", jsonDepth)
	case json.Number:
		if how, ok := f.holds(string(v)); ok {
			return where + " number " + string(v) + how, true
		}
	case []any:
		for i, x := range v {
			if w, ok := f.findValue(x, fmt.Sprintf("%s[%d]", where, i), jsonDepth); ok {
				return w, true
			}
		}
	case map[string]any:
		for k, x := range v {
			if w, ok := f.find(k, where+" name", jsonDepth); ok {
				return w, true
			}
			if w, ok := f.findValue(x, where+"."+k, jsonDepth); ok {
				return w, true
			}
		}
	}
	return "", false
}

// holds reports whether s holds the value, and how when it is not as it
// is: folded (case, Unicode form and invisible characters ignored), or
// with separators ignored too.
func (f *finder) holds(s string) (how string, ok bool) {
	if f.in(s, f.value) {
		return "", true
	}
	if f.folded == "" {
		return "", false
	}
	t := fold(s)
	if (t != s || f.folded != f.value) && f.in(t, f.folded) {
		return " (case, Unicode form and invisible characters ignored)", true
	}
	if f.bare != "" && holdsUnseparated(t, f.joined, f.bare) {
		return " (separators ignored)", true
	}
	return "", false
}

// in reports whether s holds value (the value, or the folded value): by
// its value where the value is a number, else as a substring.
func (f *finder) in(s, value string) bool {
	if f.number == nil && f.digits == "" {
		return strings.Contains(s, value)
	}
	for a := 0; a < len(s); {
		b := numberEnd(s, a)
		if b == a {
			a++
			continue
		}
		// Whole numbers only: not the fraction of another.
		whole := a == 0 || !isDigit(s[a-1]) && s[a-1] != '.'
		if whole && f.digits != "" && s[a:b] == f.digits {
			return true
		}
		if whole && f.number != nil {
			if d, ok := decimalOf(s[a:b]); ok && d == *f.number {
				return true
			}
		}
		a = b
	}
	return false
}

// numberEnd is where the number written at s[a:] ends, as the regular
// expression (?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)? matches
// it; a when none begins there.
func numberEnd(s string, a int) int {
	digits := func(i int) int {
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		return i
	}
	b := digits(a)
	if b < len(s)-1 && s[b] == '.' && isDigit(s[b+1]) {
		b = digits(b + 1)
	}
	if b == a {
		return a // no digit before the point, nor after it
	}
	if b < len(s) && (s[b] == 'e' || s[b] == 'E') {
		i := b + 1
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if e := digits(i); e > i {
			b = e
		}
	}
	return b
}

// A decimal is a number's magnitude as its significant digits and the
// power of ten of the last: 4471, 4471.0 and 4.471e3 are {"4471", 0},
// .05 is {"5", -2}, and zero is {"", 0}. Two numbers are equal when
// their decimals are: compared so, an exponent of a million digits costs
// no more than any other.
type decimal struct {
	digits string
	exp    int
}

// decimalOf is the decimal of s, written as IsNumber has it, without a
// sign; not ok when its exponent is past an int.
func decimalOf(s string) (d decimal, ok bool) {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		n, err := strconv.Atoi(s[i+1:])
		if err != nil || n > math.MaxInt/2 || n < math.MinInt/2 {
			return decimal{}, false
		}
		d.exp, s = n, s[:i]
	}
	whole, frac, _ := strings.Cut(s, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	d.digits = strings.TrimRight(digits, "0")
	d.exp += len(digits) - len(d.digits) - len(frac)
	if d.digits == "" {
		d.exp = 0
	}
	return d, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
