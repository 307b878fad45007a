package corpus

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// LiteralKind is the kind of a [Literal].
type LiteralKind int

// The kinds of literal ParseLiteral reads.
const (
	LiteralUndefined LiteralKind = iota
	LiteralNull
	LiteralBool
	LiteralNumber
	LiteralString
	LiteralArray
	LiteralObject
)

// Literal is a JavaScript value written as literals only, as
// [ParseLiteral] reads it. Its object members keep the order they were
// written in.
type Literal struct {
	Kind   LiteralKind
	Bool   bool
	Number float64
	String string
	Elems  []*Literal
	// Keys and Values are an object's members, in the order written.
	Keys   []string
	Values []*Literal
}

// ScriptError says that an expression is more than literals: only a
// JavaScript engine can make its value.
type ScriptError struct {
	// Where is the JSON Pointer of the value that is not a literal.
	Where string
	// What it is: "a function", "a template literal", …
	What string
}

func (e *ScriptError) Error() string {
	where := e.Where
	if where == "" {
		where = "the value"
	}
	return fmt.Sprintf("%s is %s, which only a JavaScript engine evaluates", where, e.What)
}

// JSON returns what JSON.stringify writes for l: members whose value is
// undefined are left out, and undefined array elements are null.
func (l *Literal) JSON() (string, error) {
	if l.Kind == LiteralUndefined {
		return "", fmt.Errorf("JSON.stringify writes nothing for undefined")
	}
	var b strings.Builder
	l.appendJSON(&b)
	// Canonical puts array-index names first, as a JavaScript object
	// keeps them, and refuses a member named twice.
	return Canonical(b.String())
}

func (l *Literal) appendJSON(b *strings.Builder) {
	switch l.Kind {
	case LiteralUndefined, LiteralNull:
		b.WriteString("null")
	case LiteralBool:
		b.WriteString(strconv.FormatBool(l.Bool))
	case LiteralNumber:
		b.WriteString(FormatNumber(l.Number))
	case LiteralString:
		b.WriteString(Quote(l.String))
	case LiteralArray:
		b.WriteByte('[')
		for i, e := range l.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.appendJSON(b)
		}
		b.WriteByte(']')
	case LiteralObject:
		b.WriteByte('{')
		n := 0
		for i, k := range l.Keys {
			if l.Values[i].Kind == LiteralUndefined {
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			b.WriteString(Quote(k))
			b.WriteByte(':')
			l.Values[i].appendJSON(b)
		}
		b.WriteByte('}')
	}
}

// ParseLiteral reads a JavaScript expression made of literals only:
// object literals (names plain, quoted or numeric; trailing commas),
// array literals, strings in either quote with JavaScript's escapes,
// numbers, true, false, null and undefined, with comments and white
// space between. Anything else that can start or continue an expression
// (a function, a method, a template literal, a name, an operator) is a
// *[ScriptError]; text that is no JavaScript at all, another error.
func ParseLiteral(source string) (*Literal, error) {
	p := &literalParser{s: source}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) {
		return nil, p.script("an expression")
	}
	return v, nil
}

type literalParser struct {
	s    string
	i    int
	path []string
}

func (p *literalParser) where() string {
	var b strings.Builder
	for _, s := range p.path {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(s))
	}
	return b.String()
}

func (p *literalParser) script(what string) error {
	return &ScriptError{Where: p.where(), What: what}
}

func (p *literalParser) fail(format string, args ...any) error {
	line := 1 + strings.Count(p.s[:p.i], "\n")
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

// space skips white space and comments.
func (p *literalParser) space() {
	for p.i < len(p.s) {
		switch {
		case strings.HasPrefix(p.s[p.i:], "//"):
			if j := strings.IndexByte(p.s[p.i:], '\n'); j >= 0 {
				p.i += j + 1
			} else {
				p.i = len(p.s)
			}
		case strings.HasPrefix(p.s[p.i:], "/*"):
			if j := strings.Index(p.s[p.i+2:], "*/"); j >= 0 {
				p.i += 2 + j + 2
			} else {
				p.i = len(p.s)
			}
		case strings.ContainsRune(" \t\n\r\v\f\u00a0\ufeff\u2028\u2029", rune(p.s[p.i])) || p.s[p.i] >= 0x80 && isSpaceRune(p.s[p.i:]):
			_, n := utf8.DecodeRuneInString(p.s[p.i:])
			p.i += n
		default:
			return
		}
	}
}

func isSpaceRune(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '\u00a0' || r == '\ufeff' || r == '\u2028' || r == '\u2029'
}

func isNameByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *literalParser) name() string {
	j := p.i
	for j < len(p.s) && isNameByte(p.s[j]) {
		j++
	}
	n := p.s[p.i:j]
	p.i = j
	return n
}

func (p *literalParser) value() (*Literal, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, p.fail("a value is missing")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"' || c == '\'':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &Literal{Kind: LiteralString, String: s}, nil
	case c == '`':
		return nil, p.script("a template literal")
	case c == '(':
		return nil, p.script("a function or an expression in parentheses")
	case c == '-' || c == '.' || c >= '0' && c <= '9':
		return p.number()
	case isNameByte(c):
		start := p.i
		n := p.name()
		switch n {
		case "true", "false":
			return &Literal{Kind: LiteralBool, Bool: n == "true"}, nil
		case "null":
			return &Literal{Kind: LiteralNull}, nil
		case "undefined":
			return &Literal{Kind: LiteralUndefined}, nil
		case "function", "async":
			return nil, p.script("a function")
		}
		p.space()
		if strings.HasPrefix(p.s[p.i:], "=>") {
			return nil, p.script("a function")
		}
		p.i = start
		return nil, p.script("the name " + n)
	default:
		return nil, p.script(fmt.Sprintf("an expression starting with %q", c))
	}
}

func (p *literalParser) object() (*Literal, error) {
	p.i++ // {
	o := &Literal{Kind: LiteralObject}
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil, p.fail("an object is not closed")
		}
		if p.s[p.i] == '}' {
			p.i++
			return o, nil
		}
		var key string
		switch c := p.s[p.i]; {
		case c == '"' || c == '\'':
			s, err := p.str()
			if err != nil {
				return nil, err
			}
			key = s
		case c >= '0' && c <= '9' || c == '.':
			n, err := p.number()
			if err != nil {
				return nil, err
			}
			key = FormatNumber(n.Number)
		case isNameByte(c):
			key = p.name()
		case strings.HasPrefix(p.s[p.i:], "..."):
			return nil, p.script("a spread")
		case c == '[':
			return nil, p.script("a computed member name")
		default:
			return nil, p.fail("a member name is missing")
		}
		p.path = append(p.path, key)
		p.space()
		switch {
		case p.i < len(p.s) && p.s[p.i] == ':':
			p.i++
		case p.i < len(p.s) && p.s[p.i] == '(':
			return nil, p.script("a method")
		case p.i < len(p.s) && (p.s[p.i] == ',' || p.s[p.i] == '}'):
			return nil, p.script("a shorthand member, the value of a name")
		case (key == "get" || key == "set" || key == "async") && p.i < len(p.s) && isNameByte(p.s[p.i]):
			return nil, p.script("a getter, a setter or a method")
		default:
			return nil, p.fail("a colon is missing after %q", key)
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		o.Keys = append(o.Keys, key)
		o.Values = append(o.Values, v)
		if err := p.next('}'); err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
	}
}

func (p *literalParser) array() (*Literal, error) {
	p.i++ // [
	a := &Literal{Kind: LiteralArray}
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil, p.fail("an array is not closed")
		}
		if p.s[p.i] == ']' {
			p.i++
			return a, nil
		}
		if strings.HasPrefix(p.s[p.i:], "...") {
			return nil, p.script("a spread")
		}
		p.path = append(p.path, strconv.Itoa(len(a.Elems)))
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		a.Elems = append(a.Elems, v)
		if err := p.next(']'); err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
	}
}

// next consumes the comma after a member or element, if any, and checks
// that the value is followed by one or by closer.
func (p *literalParser) next(closer byte) error {
	p.space()
	if p.i >= len(p.s) {
		return p.fail("%q is missing", closer)
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		return nil
	case closer:
		return nil
	}
	return p.script("an expression")
}

func (p *literalParser) number() (*Literal, error) {
	start := p.i
	neg := false
	if p.s[p.i] == '-' {
		neg = true
		p.i++
		p.space()
	}
	j := p.i
	for j < len(p.s) && (isNameByte(p.s[j]) || p.s[j] == '.' ||
		(p.s[j] == '+' || p.s[j] == '-') && j > p.i && (p.s[j-1] == 'e' || p.s[j-1] == 'E') && !strings.HasPrefix(strings.ToLower(p.s[p.i:]), "0x")) {
		j++
	}
	text := strings.ReplaceAll(p.s[p.i:j], "_", "")
	p.i = j
	if strings.HasSuffix(text, "n") {
		return nil, p.script("a BigInt")
	}
	var f float64
	var err error
	if len(text) > 2 && text[0] == '0' && strings.ContainsRune("xXoObB", rune(text[1])) {
		var u uint64
		u, err = strconv.ParseUint(text[2:], map[byte]int{'x': 16, 'o': 8, 'b': 2}[text[1]|0x20], 64)
		f = float64(u)
	} else {
		f, err = strconv.ParseFloat(text, 64)
	}
	if err != nil || text == "" {
		p.i = start
		if neg {
			return nil, p.script("an expression starting with -")
		}
		return nil, p.fail("%q is not a number", text)
	}
	if neg {
		f = -f
	}
	return &Literal{Kind: LiteralNumber, Number: f}, nil
}

// str reads a string literal in either quote, with JavaScript's escapes.
func (p *literalParser) str() (string, error) {
	q := p.s[p.i]
	p.i++
	var units []uint16
	for {
		if p.i >= len(p.s) {
			return "", p.fail("a string is not closed")
		}
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			for i := 0; i < len(units); i++ {
				switch u := rune(units[i]); {
				case u >= 0xd800 && u < 0xdc00 && i+1 < len(units) && units[i+1] >= 0xdc00 && units[i+1] < 0xe000:
					i++ // a pair
				case utf16.IsSurrogate(u):
					return "", p.fail("a string holds a lone surrogate, which JSON text cannot")
				}
			}
			return string(utf16.Decode(units)), nil
		case c == '\n' || c == '\r':
			return "", p.fail("a string is not closed on its line")
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				return "", p.fail("a string is not closed")
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case 'n':
				units = append(units, '\n')
			case 'r':
				units = append(units, '\r')
			case 't':
				units = append(units, '\t')
			case 'b':
				units = append(units, '\b')
			case 'f':
				units = append(units, '\f')
			case 'v':
				units = append(units, '\v')
			case '0':
				if p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
					return "", p.fail("an octal escape")
				}
				units = append(units, 0)
			case '\n':
			case '\r':
				if p.i < len(p.s) && p.s[p.i] == '\n' {
					p.i++
				}
			case 'x':
				n, err := p.hex(2)
				if err != nil {
					return "", err
				}
				units = append(units, uint16(n))
			case 'u':
				if p.i < len(p.s) && p.s[p.i] == '{' {
					j := strings.IndexByte(p.s[p.i:], '}')
					if j < 0 {
						return "", p.fail("a \\u{…} escape is not closed")
					}
					n, err := strconv.ParseUint(p.s[p.i+1:p.i+j], 16, 32)
					if err != nil || n > 0x10ffff {
						return "", p.fail("a bad \\u{…} escape")
					}
					p.i += j + 1
					units = utf16.AppendRune(units, rune(n))
					continue
				}
				n, err := p.hex(4)
				if err != nil {
					return "", err
				}
				units = append(units, uint16(n))
			default:
				if e >= '1' && e <= '9' {
					return "", p.fail("an octal escape")
				}
				p.i--
				r, n := utf8.DecodeRuneInString(p.s[p.i:])
				p.i += n
				if r != '\u2028' && r != '\u2029' {
					units = utf16.AppendRune(units, r)
				}
			}
		default:
			r, n := utf8.DecodeRuneInString(p.s[p.i:])
			if r == utf8.RuneError && n == 1 {
				return "", p.fail("the text is not UTF-8")
			}
			p.i += n
			units = utf16.AppendRune(units, r)
		}
	}
}

func (p *literalParser) hex(n int) (uint64, error) {
	if p.i+n > len(p.s) {
		return 0, p.fail("an escape is cut short")
	}
	v, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
	if err != nil {
		return 0, p.fail("a bad escape %q", p.s[p.i:p.i+n])
	}
	p.i += n
	return v, nil
}
