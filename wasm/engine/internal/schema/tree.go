package schema

import "github.com/veilmcp/veil/wasm/engine/internal/jsontree"

// Tree is what validation reads of a parsed JSON text: nodes numbered in
// pre-order, 0 the root, each container's children following it.
type Tree interface {
	// Kind is the kind of node i.
	Kind(i int) jsontree.Kind
	// Next is the index just past node i's subtree.
	Next(i int) int
	// Key is the decoded member name of node i ("" outside objects).
	Key(i int) string
	// Str is the decoded value of string node i.
	Str(i int) string
	// Text is the JSON text of node i.
	Text(i int) string
	// Member is the index of the member of object i named key, the last
	// of that name, or -1.
	Member(i int, key string) int
	// Count is the number of children of node i.
	Count(i int) int
	// Value is node i as jsonschema/v6 validates it: map[string]any,
	// []any, json.Number, string, bool, nil.
	Value(i int) any
	// Pointer is the JSON Pointer of node i.
	Pointer(i int) string
}
