package engine

import (
	"encoding/json"
	"strconv"

	"github.com/veilmcp/veil/wasm/engine/internal/jsontree"
)

// This file holds a small JSON reader built for the agent view. A tool's
// output arrives as the text JSON.stringify wrote; the view must copy the
// parts it keeps byte for byte, so the reader records where every value and
// member name starts and ends instead of building maps. Go's encoding/json
// is far slower than the browser's JSON.parse in WebAssembly; walking spans
// keeps the cost close to one pass over the bytes.

type kind = jsontree.Kind

const (
	kNull   = jsontree.Null
	kBool   = jsontree.Bool
	kNumber = jsontree.Number
	kString = jsontree.String
	kArray  = jsontree.Array
	kObject = jsontree.Object
)

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
	return append(b, jsontree.EscapePointer(t.key(i))...)
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

// The methods below are what the schema stage reads of a tree
// (schema.Tree).

// Kind is the kind of node i.
func (t *tree) Kind(i int) kind { return t.nodes[i].kind }

// Next is the index just past node i's subtree.
func (t *tree) Next(i int) int { return int(t.nodes[i].next) }

// Key is the decoded member name of node i ("" outside objects).
func (t *tree) Key(i int) string { return t.key(i) }

// Str is the decoded value of string node i.
func (t *tree) Str(i int) string { return t.str(i) }

// Text is the JSON text of node i.
func (t *tree) Text(i int) string { return t.text(i) }

// Member is the index of the member of object i named key, or -1.
func (t *tree) Member(i int, key string) int { return t.member(i, key) }

// Count is the number of children of node i.
func (t *tree) Count(i int) int { return t.count(i) }

// Value is node i as jsonschema/v6 validates it.
func (t *tree) Value(i int) any { return t.value(i) }

// Pointer is the JSON Pointer of node i.
func (t *tree) Pointer(i int) string { return t.pointer(i) }
