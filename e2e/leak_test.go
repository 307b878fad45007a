package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// maxDecodeDepth bounds how deep findSecret follows JSON inside JSON strings.
const maxDecodeDepth = 8

// assertWithheld fails the test when the secret is anywhere in the agent
// view: in its raw text, or in any key or string inside it once decoded as
// JSON, also where a string holds JSON text of its own, at any depth. A
// decoded string can differ from the raw text by escapes, so a secret with
// an escaped character (\u002f, \") is found either way.
func assertWithheld(t testing.TB, view, secret, what string) bool {
	t.Helper()
	if where, ok := findSecret(view, secret, 0); ok {
		return assert.Fail(t, "a withheld value reached the agent",
			"%s: %q found in %s of the agent view %q", what, secret, where, view)
	}
	return true
}

// findSecret reports whether the secret is in s, either literally or in the
// strings of s decoded as JSON, and where.
func findSecret(s, secret string, depth int) (string, bool) {
	if strings.Contains(s, secret) {
		if depth == 0 {
			return "the raw text", true
		}
		return "a decoded string", true
	}
	if depth >= maxDecodeDepth {
		return "", false
	}
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return "", false
	}
	return findInValue(v, secret, depth+1)
}

func findInValue(v any, secret string, depth int) (string, bool) {
	switch v := v.(type) {
	case string:
		return findSecret(v, secret, depth)
	case []any:
		for _, e := range v {
			if where, ok := findInValue(e, secret, depth); ok {
				return where, true
			}
		}
	case map[string]any:
		for k, e := range v {
			if where, ok := findSecret(k, secret, depth); ok {
				return where, true
			}
			if where, ok := findInValue(e, secret, depth); ok {
				return where, true
			}
		}
	}
	return "", false
}

func TestFindSecret(t *testing.T) {
	const secret = "sk-live/42"
	tests := []struct {
		name string
		view string
		want bool
	}{
		{"absent", `{"content":[{"type":"text","text":"1 value withheld"}]}`, false},
		{"raw", `key sk-live/42`, true},
		{"escaped slash", `{"key":"sk-live\/42"}`, true},
		{"unicode escape", `{"key":"sk-live\u002f42"}`, true},
		{"in a key", `{"sk-live\u002f42":1}`, true},
		{"JSON in a string", `{"text":"{\"key\":\"sk-live\\u002f42\"}"}`, true},
		{"in an array", `[1,["sk-live\u002f42"]]`, true},
		{"split across values", `["sk-live","/42"]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := findSecret(tt.view, secret, 0)
			assert.Equal(t, tt.want, got, "findSecret(%q)", tt.view)
		})
	}
}
