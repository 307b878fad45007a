package jsontree

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEscapePointer: a reference token escapes "~" before "/", so that
// "~1" in a name stays two characters of the name.
func TestEscapePointer(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"a/b", "a~1b"},
		{"a~b", "a~0b"},
		{"~1", "~01"},
		{"/~", "~1~0"},
		{"é/ü", "é~1ü"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, EscapePointer(tt.in), "token of %q", tt.in)
	}
}

// TestOrRoot: the empty pointer is named "the root" in messages.
func TestOrRoot(t *testing.T) {
	assert.Equal(t, "the root", OrRoot(""))
	assert.Equal(t, "/a/0", OrRoot("/a/0"))
}

// TestKindNames: kinds are named as JSON Schema's "type" names them.
func TestKindNames(t *testing.T) {
	assert.Equal(t, []string{"null", "boolean", "number", "string", "array", "object"},
		[]string{Null.String(), Bool.String(), Number.String(), String.String(), Array.String(), Object.String()})
}
