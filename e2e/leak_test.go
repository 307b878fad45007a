package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/veilmcp/veil/wasm/leakcheck"
)

// maxDecodeDepth bounds how deep findSecret follows JSON inside JSON strings.
const maxDecodeDepth = 8

// assertWithheld fails the test when the secret is anywhere in what an
// agent reads, in any form a reader decodes (package leakcheck): in the
// raw text, in any key, string or number of it read as JSON, also where a
// string holds JSON text of its own, escaped in any notation, HTML- or
// percent-encoded, at any depth.
func assertWithheld(t testing.TB, view, secret, what string) bool {
	t.Helper()
	if where, ok := leakcheck.Find(view, secret); ok {
		return assert.Fail(t, "a withheld value reached the agent",
			"%s: %q found in %s of the agent view %q", what, secret, where, view)
	}
	return true
}

// findSecret reports whether the secret is in s, either literally or in the
// strings of s decoded as JSON, and where: a value an agent must get.
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
