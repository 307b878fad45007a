// Package jsontree holds what every stage of the engine shares about a
// parsed JSON text: the kinds of value, and JSON Pointers (RFC 6901) as
// the engine writes them into messages and views.
package jsontree

import "strings"

// Kind is the kind of a JSON value.
type Kind uint8

// The kinds of JSON value, in the order a tree's validators rely on: the
// containers come last.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// String names the kind as JSON Schema's "type" does.
func (k Kind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// EscapePointer escapes s as a JSON Pointer's reference token: "~" as
// "~0", "/" as "~1".
func EscapePointer(s string) string {
	// One pass over the bytes: strings.ContainsAny builds a set on every
	// call, and every withheld node's pointer asks.
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		plain = s[i] != '~' && s[i] != '/'
	}
	if plain {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// OrRoot names JSON Pointer p in a message: "the root" for the empty
// pointer, p itself otherwise.
func OrRoot(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}
