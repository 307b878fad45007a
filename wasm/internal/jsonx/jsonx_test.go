package jsonx

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAppendString holds the word-at-a-time escaping to JSON.stringify's
// rules, byte by byte, at every alignment.
func TestAppendString(t *testing.T) {
	reference := func(s string) string {
		var b strings.Builder
		b.WriteByte('"')
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c == '\b':
				b.WriteString(`\b`)
			case c == '\f':
				b.WriteString(`\f`)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c < 0x20:
				fmt.Fprintf(&b, `\u%04x`, c)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('"')
		return b.String()
	}
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("ab\"\\\x00\x1f\x7f\x80\xff é\n\t!#[]")
	for n := range 40 {
		for range 200 {
			b := make([]byte, n)
			for i := range b {
				if rng.IntN(4) == 0 {
					b[i] = alphabet[rng.IntN(len(alphabet))]
				} else {
					b[i] = byte(rng.IntN(256))
				}
			}
			s := string(b)
			require.Equal(t, reference(s), string(AppendString(nil, s)), "AppendString(%q)", s)
			assert.Equal(t, reference(s) != `"`+s+`"`, NeedsEscape(s), "NeedsEscape(%q)", s)
			assert.Equal(t, len(reference(s)), QuotedLen(s), "QuotedLen(%q)", s)
		}
	}
	// JSON.stringify's own output for a sample.
	assert.Equal(t, `"a\"b\\c\u0001\n é"`, string(AppendString(nil, "a\"b\\c\x01\n é")))
}

// TestAppendStringReadsBack: what AppendString writes of valid UTF-8,
// encoding/json reads back as the same string.
func TestAppendStringReadsBack(t *testing.T) {
	for _, s := range []string{"", "plain", "<&>", "tab\there", "\u2028\u2029", "😀", "\x00\x1f\"\\"} {
		var got string
		require.NoError(t, json.Unmarshal(AppendString(nil, s), &got), "Unmarshal(AppendString(%q))", s)
		assert.Equal(t, s, got)
	}
}

func TestTypeOf(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{nil, "null"},
		{true, "boolean"},
		{"x", "string"},
		{[]any{}, "array"},
		{map[string]any{}, "object"},
		{json.Number("1"), "number"},
		{1.5, "number"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, TypeOf(tt.v), "TypeOf(%#v)", tt.v)
	}
}

func TestNonNil(t *testing.T) {
	b, err := json.Marshal(NonNil[string](nil))
	require.NoError(t, err)
	assert.Equal(t, "[]", string(b), "NonNil(nil) marshals as")
	assert.Equal(t, []int{1}, NonNil([]int{1}))
}

func TestNoLoader(t *testing.T) {
	v, err := NoLoader{}.Load("https://example.com/schema")
	assert.Nil(t, v)
	require.Error(t, err, "NoLoader.Load")
	assert.Contains(t, err.Error(), "https://example.com/schema")
}
