package engine

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEachEncoded: the runs real encoders write are decoded to what they
// encode, from some phase; words, paths and numbers are not base64.
func TestEachEncoded(t *testing.T) {
	const secret = "user:sk_live_9f8e7d6c"
	decodesTo := func(text, want string) bool {
		budget := decodeBudget(text)
		found := false
		eachEncoded(text, &budget, func(a, b int, decoded []byte) bool {
			found = found || strings.Contains(string(decoded), want)
			return !found
		})
		return found
	}
	tests := []struct {
		name, text string
		want       bool
	}{
		{"std, padded", "Basic " + base64.StdEncoding.EncodeToString([]byte(secret)), true},
		{"url, raw", "t=" + base64.RawURLEncoding.EncodeToString([]byte("\xfb\xff"+secret)), true},
		{"std at an offset", "x" + base64.StdEncoding.EncodeToString([]byte("ab"+secret)), true},
		{"wrapped at 64", wrap(base64.StdEncoding.EncodeToString([]byte(strings.Repeat("p", 60)+secret)), 64, "\n"), true},
		{"wrapped at 76 with CRLF", wrap(base64.StdEncoding.EncodeToString([]byte(strings.Repeat("p", 70)+secret)), 76, "\r\n"), true},
		{"hex", "0x" + hex.EncodeToString([]byte(secret)), true},
		{"hex upper", strings.ToUpper(hex.EncodeToString([]byte(secret))), true},
		{"hex with colons", colonHex(hex.EncodeToString([]byte(secret))), true},
		{"hex with dashes", strings.ReplaceAll(colonHex(hex.EncodeToString([]byte(secret))), ":", "-"), true},
		{"the secret itself", secret, false},
		{"a path", "/records/1234/ssn/user/sk_live_9f8e7d6c", false},
		{"words", "Seen on visit 123; follow-up in two weeks", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, decodesTo(tt.text, secret), "%s: %q", tt.name, tt.text)
	}
}

// TestEachEncodedBudget: a text of runs that would cost more to decode
// than the budget reports false, so the caller fails closed.
func TestEachEncodedBudget(t *testing.T) {
	text := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("Xy12", 1000)))
	budget := 100
	assert.False(t, eachEncoded(text, &budget, func(int, int, []byte) bool { return true }))
}
