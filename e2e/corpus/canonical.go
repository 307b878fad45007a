package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Canonical returns what JavaScript's JSON.stringify(JSON.parse(text))
// writes: no white space, members in the order a JavaScript object keeps
// them (array-index names first, ascending, then the rest as written),
// numbers as Number.prototype.toString writes them, strings escaped only
// where JSON.stringify escapes them.
//
// A case's JSON files must be canonical, so that the engine's test, which
// hands the text to the engine as it is, and the browser, which parses it
// and serializes the result again, replay the same bytes. Canonical fails
// for what JSON.parse and Go read differently: a member named twice, a
// number that is not a finite double, a lone surrogate escape, bytes that
// are not UTF-8.
func Canonical(text string) (string, error) {
	if !utf8.ValidString(text) {
		return "", errors.New("the text is not UTF-8")
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var b bytes.Buffer
	if err := appendValue(&b, dec); err != nil {
		return "", err
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", errors.New("text after the JSON value")
	}
	return b.String(), nil
}

func appendValue(b *bytes.Buffer, dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok := tok.(type) {
	case json.Delim:
		if tok == '[' {
			b.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					b.WriteByte(',')
				}
				if err := appendValue(b, dec); err != nil {
					return err
				}
			}
			b.WriteByte(']')
			_, err := dec.Token()
			return err
		}
		return appendObject(b, dec)
	case string:
		s, err := quote(tok)
		if err != nil {
			return err
		}
		b.WriteString(s)
	case json.Number:
		f, err := strconv.ParseFloat(string(tok), 64)
		if err != nil || math.IsInf(f, 0) {
			return fmt.Errorf("the number %s is not a finite double", tok)
		}
		b.WriteString(FormatNumber(f))
	case bool:
		b.WriteString(strconv.FormatBool(tok))
	case nil:
		b.WriteString("null")
	}
	return nil
}

type member struct {
	name  string
	value string
}

func appendObject(b *bytes.Buffer, dec *json.Decoder) error {
	var members []member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name := tok.(string)
		if seen[name] {
			return fmt.Errorf("the member %q is named twice", name)
		}
		seen[name] = true
		var v bytes.Buffer
		if err := appendValue(&v, dec); err != nil {
			return err
		}
		members = append(members, member{name, v.String()})
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	// A JavaScript object lists the names that are array indices first,
	// in ascending order, then the others in the order they were made.
	slices.SortStableFunc(members, func(x, y member) int {
		i, xok := arrayIndex(x.name)
		j, yok := arrayIndex(y.name)
		switch {
		case xok && yok:
			return int(i - j)
		case xok:
			return -1
		case yok:
			return 1
		}
		return 0
	})
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		s, err := quote(m.name)
		if err != nil {
			return err
		}
		b.WriteString(s)
		b.WriteByte(':')
		b.WriteString(m.value)
	}
	b.WriteByte('}')
	return nil
}

// arrayIndex reports whether a member name is an array index as
// ECMA-262 defines it: the canonical decimal text of an integer below
// 2^32 - 1.
func arrayIndex(name string) (int64, bool) {
	if name == "" || len(name) > 10 || (len(name) > 1 && name[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseInt(name, 10, 64)
	if err != nil || n < 0 || n >= 1<<32-1 || strconv.FormatInt(n, 10) != name {
		return 0, false
	}
	return n, true
}

// quote is JSON.stringify of a string. Go's decoder reads a lone surrogate
// escape as U+FFFD, which JSON.parse does not: such a string is refused.
func quote(s string) (string, error) {
	if strings.ContainsRune(s, '\uFFFD') {
		return "", fmt.Errorf("the string %q holds U+FFFD, which may stand for a lone surrogate: write the case in JavaScript", s)
	}
	return Quote(s), nil
}

// Quote returns JSON.stringify of s, which holds no lone surrogate: a
// quotation mark, a backslash and the C0 controls are escaped, the
// controls with a letter where JSON has one; everything else is as it is.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// FormatNumber returns what JavaScript's Number.prototype.toString
// writes for a finite f (ECMA-262 Number::toString): the shortest digits
// that read back as f, in plain notation from 1e-7 up to 1e21 and in
// exponent notation ("1e+21", "1.5e-7") outside.
func FormatNumber(f float64) string {
	if f == 0 {
		return "0" // -0 too
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// Go's shortest digits, as d.ddde±x.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1 // f = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	expSign := "+"
	if n-1 < 0 {
		expSign = "-"
	}
	exponent := expSign + strconv.Itoa(abs(n-1))
	if k == 1 {
		return sign + digits + "e" + exponent
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + exponent
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
