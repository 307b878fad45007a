// Package jsonx holds what the engine, the risk policy and the page
// contract share about JSON: writing a string as JSON.stringify writes
// it, naming a decoded value's JSON type, and a JSON Schema loader that
// never loads anything.
package jsonx

import (
	"fmt"
	"unsafe"
)

// AppendString appends s as a JSON string the way JSON.stringify writes it:
// the short escapes for \b \f \n \r \t " and \\, \u00XX for the other
// control characters, and everything else as it is.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := safePrefix(s, 0); i < len(s); i = safePrefix(s, i+1) {
		c := s[i]
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// QuotedLen is the length of what AppendString appends for s, so that a
// buffer can be made the size it needs once.
func QuotedLen(s string) int {
	n := len(s) + 2
	for i := safePrefix(s, 0); i < len(s); i = safePrefix(s, i+1) {
		switch s[i] {
		case '"', '\\', '\b', '\f', '\n', '\r', '\t':
			n++
		default:
			n += 5
		}
	}
	return n
}

// NeedsEscape reports whether AppendString writes s with escapes.
func NeedsEscape(s string) bool { return safePrefix(s, 0) < len(s) }

// safePrefix returns the index of the first byte at or after i that
// AppendString escapes (a control character, a quote or a backslash), or
// len(s). It tests eight bytes at a time.
func safePrefix(s string, i int) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	if len(s) >= 8 {
		p := unsafe.Pointer(unsafe.StringData(s))
		for ; i <= len(s)-8; i += 8 {
			x := *(*uint64)(unsafe.Add(p, i))
			q := x ^ (ones * '"')
			bs := x ^ (ones * '\\')
			// A byte below 0x20, or equal to either: the classic
			// has-less and has-zero tests, exact about whether any is.
			if ((x-ones*0x20)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
				break
			}
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// TypeOf names the JSON type of a value as encoding/json or jsonschema
// decodes it: "null", "boolean", "string", "array", "object" or "number".
func TypeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	default:
		return "number"
	}
}

// NonNil returns s, or an empty slice for nil, so that it marshals as []
// rather than null.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// NoLoader is a jsonschema URL loader that loads nothing: a schema may
// refer only within itself, and never causes a fetch or a file read.
type NoLoader struct{}

// Load refuses url.
func (NoLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is not loaded: a schema may refer only within itself", url)
}
