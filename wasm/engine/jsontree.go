package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// This file holds a small JSON reader built for the agent view. A tool's
// output arrives as the text JSON.stringify wrote; the view must copy the
// parts it keeps byte for byte, so the reader records where every value and
// member name starts and ends instead of building maps. Go's encoding/json
// is far slower than the browser's JSON.parse in WebAssembly; walking spans
// keeps the cost close to one pass over the bytes.

type kind uint8

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

func (k kind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// node is one JSON value. Nodes are stored in pre-order: a container's
// children follow it, and next is the index just past its subtree. A node
// holds no pointers, so the garbage collector never scans a tree's nodes.
type node struct {
	// key is the decoded member name when the parent is an object.
	key span
	// str is the decoded value of a string.
	str span
	// keyStart is the offset of the member name's opening quote; the
	// member's text is src[keyStart:end]. Outside objects it is start.
	keyStart int32
	start    int32
	end      int32
	// next is the index just past the node's subtree.
	next int32
	// parent is the index of the enclosing container, -1 for the root;
	// index is the node's position in it.
	parent int32
	index  int32
	kind   kind
}

// span locates a decoded string: src[lo:hi] when it had no escapes (most
// do, and cost no copy), dec[^lo:hi] when it had.
type span struct{ lo, hi int32 }

// tree is a parsed JSON text. nodes[0] is the root.
type tree struct {
	src   string
	dec   string
	nodes []node
}

func (t *tree) span(s span) string {
	if s.lo >= 0 {
		return t.src[s.lo:s.hi]
	}
	return t.dec[^s.lo:s.hi]
}

// key returns the decoded member name of node i ("" outside objects).
func (t *tree) key(i int) string { return t.span(t.nodes[i].key) }

// str returns the decoded value of string node i.
func (t *tree) str(i int) string { return t.span(t.nodes[i].str) }

// parsePrefix parses the JSON value at the start of src and returns it
// with the offset just past it; what follows is not read. On an error the
// offset is how far it read.
func parsePrefix(src string) (*tree, int, error) {
	if len(src) > maxSource {
		return nil, 0, errors.New("the text is too large")
	}
	p := &parser{src: src, nodes: make([]node, 0, 8), parent: -1}
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
}

// maxSource is the largest text the reader takes: offsets are 32-bit.
const maxSource = 1<<31 - 1

// parsing, when a test sets it, hears of every text parseTree parses.
var parsing func(src string)

// parseTree parses one JSON text. Errors name the byte offset.
func parseTree(src string) (*tree, error) {
	if parsing != nil {
		parsing(src)
	}
	if len(src) > maxSource {
		return nil, errors.New("the text is too large")
	}
	p := &parser{src: src, nodes: make([]node, 0, countValues(src)), parent: -1}
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

// children calls f with the index of each child of nodes[i], in order.
func (t *tree) children(i int, f func(j int)) {
	for j := i + 1; j < int(t.nodes[i].next); j = int(t.nodes[j].next) {
		f(j)
	}
}

// member returns the index of the member of object i named key, or -1.
// JSON.stringify never writes a name twice; for hand-made duplicates the
// last one wins, as in JSON.parse.
func (t *tree) member(i int, key string) int {
	found := -1
	for j := i + 1; j < int(t.nodes[i].next); j = int(t.nodes[j].next) {
		if t.key(j) == key {
			found = j
		}
	}
	return found
}

// appendContainer appends object or array node i with the children skip
// leaves in, each member's name as it was written, each value as child
// writes it.
func (t *tree) appendContainer(b []byte, i int, skip func(j int) bool, child func(b []byte, j int) []byte) []byte {
	n := &t.nodes[i]
	begin, end := byte('['), byte(']')
	if n.kind == kObject {
		begin, end = '{', '}'
	}
	b = append(b, begin)
	first := true
	for j := i + 1; j < int(n.next); j = int(t.nodes[j].next) {
		if skip(j) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		if n.kind == kObject {
			b = append(b, t.src[t.nodes[j].keyStart:t.nodes[j].start]...)
		}
		b = child(b, j)
	}
	return append(b, end)
}

// text returns the JSON text of node i.
func (t *tree) text(i int) string { return t.src[t.nodes[i].start:t.nodes[i].end] }

// member text returns the text of node i with its member name, if any.
func (t *tree) memberText(i int) string { return t.src[t.nodes[i].keyStart:t.nodes[i].end] }

// pointer returns the JSON Pointer of node i.
func (t *tree) pointer(i int) string { return string(t.appendPointer(nil, i)) }

// appendPointer appends the JSON Pointer of node i to b.
func (t *tree) appendPointer(b []byte, i int) []byte {
	n := &t.nodes[i]
	if n.parent < 0 {
		return b
	}
	return t.appendToken(t.appendPointer(b, int(n.parent)), i)
}

// appendToken appends "/" and the reference token that names node i in
// its parent, which it must have.
func (t *tree) appendToken(b []byte, i int) []byte {
	n := &t.nodes[i]
	b = append(b, '/')
	if t.nodes[n.parent].kind != kObject {
		return strconv.AppendInt(b, int64(n.index), 10)
	}
	return append(b, escapePointer(t.key(i))...)
}

// value builds the generic value of node i in the form jsonschema/v6
// validates: map[string]any, []any, json.Number, string, bool, nil.
func (t *tree) value(i int) any {
	n := &t.nodes[i]
	switch n.kind {
	case kNull:
		return nil
	case kBool:
		return t.src[n.start] == 't'
	case kNumber:
		return json.Number(t.src[n.start:n.end])
	case kString:
		return t.str(i)
	case kArray:
		arr := make([]any, 0, t.count(i))
		for j := i + 1; j < int(n.next); j = int(t.nodes[j].next) {
			arr = append(arr, t.value(j))
		}
		return arr
	default:
		obj := make(map[string]any, t.count(i))
		for j := i + 1; j < int(n.next); j = int(t.nodes[j].next) {
			obj[t.key(j)] = t.value(j)
		}
		return obj
	}
}

// count returns the number of children of node i.
func (t *tree) count(i int) int {
	n := 0
	for j := i + 1; j < int(t.nodes[i].next); j = int(t.nodes[j].next) {
		n++
	}
	return n
}
