package engine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// This file parses JSON text into a tree (jsontree.go): one pass over the
// bytes that records where every value and member name starts and ends.

// parsePrefix parses the JSON value at the start of src and returns it
// with the offset just past it; what follows is not read. On an error the
// offset is how far it read.
func parsePrefix(src string) (*tree, int, error) {
	if len(src) > maxSource {
		return nil, 0, errors.New("the text is too large")
	}
	p := &parser{src: src, nodes: make([]node, 0, 8), parent: -1, nonFinite: true}
	if err := p.value(span{}, -1); err != nil {
		return nil, p.pos, err
	}
	return p.tree(), p.pos, nil
}

// maxDepth bounds nesting so hostile output cannot exhaust the stack.
const maxDepth = 10000

var errDepth = errors.New("nesting exceeds the maximum depth")

type parser struct {
	src   string
	pos   int
	nodes []node
	dec   []byte // decoded strings that had escapes
	depth int
	// parent is the container being parsed and count its children so far.
	parent int32
	count  int32
	// nonFinite reads NaN, Infinity and -Infinity, which Python's json
	// module writes by default and reads back, as null: JSON text in a
	// string is read as its readers read it, and those hold no value.
	nonFinite bool
}

// maxSource is the largest text the reader takes: offsets are 32-bit.
const maxSource = 1<<31 - 1

// parsing, when a test sets it, hears of every text parseTree parses.
var parsing func(src string)

// parseTree parses one JSON text. Errors name the byte offset.
func parseTree(src string) (*tree, error) {
	return parseText(src, false)
}

// parseReadable is parseTree for JSON text in a string, read as its
// readers read it: NaN, Infinity and -Infinity, which Python's json
// module writes and reads back, are read as null (parser.nonFinite).
func parseReadable(src string) (*tree, error) {
	return parseText(src, true)
}

func parseText(src string, nonFinite bool) (*tree, error) {
	if parsing != nil {
		parsing(src)
	}
	if len(src) > maxSource {
		return nil, errors.New("the text is too large")
	}
	p := &parser{src: src, nodes: make([]node, 0, countValues(src)), parent: -1, nonFinite: nonFinite}
	p.skipSpace()
	if err := p.value(span{}, -1); err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(src) {
		return nil, p.errorf("unexpected data after the top-level value")
	}
	return p.tree(), nil
}

// countValues returns how many values a JSON text holds, or a little more:
// one, plus one per comma and per opening bracket outside strings (a value
// in a container follows its opening bracket or a comma; an empty
// container counts one too many). The parser makes its nodes that size
// once: a guess too small grows them by copying, which costs a tree's size
// again and more (the engine's memory only grows), and a text of small
// values holds far more of them per byte than a guess can know.
func countValues(src string) int {
	n := 1
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case ',', '[', '{':
			n++
		case '"':
			i = stringEnd(src, i+1)
		}
	}
	return n
}

// stringEnd returns the index of the quote that ends the string whose
// characters start at i, or len(src).
func stringEnd(src string, i int) int {
	for {
		q := strings.IndexByte(src[i:], '"')
		if q < 0 {
			return len(src)
		}
		i += q
		// The quote is escaped when an odd number of backslashes runs
		// up to it.
		k := i
		for k > 0 && src[k-1] == '\\' {
			k--
		}
		if (i-k)%2 == 0 {
			return i
		}
		i++
	}
}

func (p *parser) tree() *tree {
	// dec is never written again, so the tree can share its bytes.
	return &tree{src: p.src, dec: unsafe.String(unsafe.SliceData(p.dec), len(p.dec)), nodes: p.nodes}
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value parses the value at p.pos, with the member name key (and the
// offset of its quote) when inside an object.
func (p *parser) value(key span, keyStart int) error {
	if p.pos >= len(p.src) {
		return p.errorf("unexpected end of input")
	}
	idx := len(p.nodes)
	p.nodes = append(p.nodes, node{key: key, keyStart: int32(keyStart), start: int32(p.pos), parent: p.parent, index: p.count})
	p.count++
	n := &p.nodes[idx]
	if keyStart < 0 {
		n.keyStart = int32(p.pos)
	}
	if c := p.src[p.pos]; c == '{' || c == '[' {
		saveParent, saveCount := p.parent, p.count
		p.parent, p.count = int32(idx), 0
		defer func() { p.parent, p.count = saveParent, saveCount }()
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		n.kind = kObject
		if err := p.object(); err != nil {
			return err
		}
	case c == '[':
		n.kind = kArray
		if err := p.array(); err != nil {
			return err
		}
	case c == '"':
		s, err := p.string()
		if err != nil {
			return err
		}
		n = &p.nodes[idx]
		n.kind = kString
		n.str = s
	case c == 't':
		if err := p.literal("true"); err != nil {
			return err
		}
		n.kind = kBool
	case c == 'f':
		if err := p.literal("false"); err != nil {
			return err
		}
		n.kind = kBool
	case c == 'n':
		if err := p.literal("null"); err != nil {
			return err
		}
		n.kind = kNull
	case p.nonFinite && (c == 'N' || c == 'I' || c == '-' && strings.HasPrefix(p.src[p.pos:], "-I")):
		lit := map[byte]string{'N': "NaN", 'I': "Infinity", '-': "-Infinity"}[c]
		if err := p.literal(lit); err != nil {
			return err
		}
		n.kind = kNull
	case c == '-' || (c >= '0' && c <= '9'):
		if err := p.number(); err != nil {
			return err
		}
		n.kind = kNumber
	default:
		return p.errorf("unexpected character %q", c)
	}
	n = &p.nodes[idx]
	n.end = int32(p.pos)
	n.next = int32(len(p.nodes))
	return nil
}

func (p *parser) literal(lit string) error {
	if !strings.HasPrefix(p.src[p.pos:], lit) {
		return p.errorf("invalid literal")
	}
	p.pos += len(lit)
	return nil
}

func (p *parser) number() error {
	start := p.pos
	if p.src[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	intStart := p.pos
	if digits() == 0 {
		return p.errorf("invalid number")
	}
	if p.src[intStart] == '0' && p.pos-intStart > 1 {
		return p.errorf("invalid number: leading zero")
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return p.errorf("invalid number")
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return p.errorf("invalid number")
		}
	}
	_ = start
	return nil
}

func (p *parser) object() error {
	if p.depth++; p.depth > maxDepth {
		return errDepth
	}
	defer func() { p.depth-- }()
	p.pos++ // {
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		return nil
	}
	for {
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return p.errorf("expected a member name")
		}
		keyStart := p.pos
		key, err := p.string()
		if err != nil {
			return err
		}
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return p.errorf("expected ':'")
		}
		p.pos++
		p.skipSpace()
		if err := p.value(key, keyStart); err != nil {
			return err
		}
		p.skipSpace()
		if p.pos >= len(p.src) {
			return p.errorf("unexpected end of input")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case '}':
			p.pos++
			return nil
		default:
			return p.errorf("expected ',' or '}'")
		}
	}
}

func (p *parser) array() error {
	if p.depth++; p.depth > maxDepth {
		return errDepth
	}
	defer func() { p.depth-- }()
	p.pos++ // [
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return nil
	}
	for {
		if err := p.value(span{}, -1); err != nil {
			return err
		}
		p.skipSpace()
		if p.pos >= len(p.src) {
			return p.errorf("unexpected end of input")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case ']':
			p.pos++
			return nil
		default:
			return p.errorf("expected ',' or ']'")
		}
	}
}

// string parses a JSON string at p.pos and locates its decoded value. A
// string without escapes is a span of src and costs no copy.
func (p *parser) string() (span, error) {
	p.pos++ // opening quote
	start := p.pos
	src := p.src
	for i := start; i < len(src); i++ {
		c := src[i]
		if c == '"' {
			p.pos = i + 1
			return span{int32(start), int32(i)}, nil
		}
		if c == '\\' {
			p.pos = i
			return p.escapedString(start)
		}
		if c < 0x20 {
			p.pos = i
			return span{}, p.errorf("control character in string")
		}
	}
	p.pos = len(src)
	return span{}, p.errorf("unterminated string")
}

func (p *parser) escapedString(start int) (span, error) {
	from := len(p.dec)
	b := append(p.dec, p.src[start:p.pos]...)
	defer func() { p.dec = b }()
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return span{^int32(from), int32(len(b))}, nil
		case c < 0x20:
			return span{}, p.errorf("control character in string")
		case c != '\\':
			b = append(b, c)
			p.pos++
			continue
		}
		p.pos++
		if p.pos >= len(p.src) {
			break
		}
		e := p.src[p.pos]
		p.pos++
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return span{}, p.errorf("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				// A pair decodes to one rune; a lone surrogate, which
				// JSON.stringify writes as an escape, becomes U+FFFD.
				if strings.HasPrefix(p.src[p.pos:], `\u`) {
					save := p.pos
					p.pos += 2
					if r2, ok := p.hex4(); ok {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							b = utf8.AppendRune(b, d)
							continue
						}
					}
					p.pos = save
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
		default:
			return span{}, p.errorf("invalid escape")
		}
	}
	return span{}, p.errorf("unterminated string")
}

func (p *parser) hex4() (rune, bool) {
	if p.pos+4 > len(p.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(p.src[p.pos:p.pos+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(v), true
}
