package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/text/unicode/norm"
)

func TestSkeleton(t *testing.T) {
	tests := []struct{ in, want string }{
		{"4111-1111 1111\u00ad1111", "4111111111111111"},
		{"Müller#4471", "muller4471"},
		{norm.NFD.String("Müller#4471"), "muller4471"},
		{"ＡＢＣ１２", "abc12"},
		{"sk_live_9F8E", "sklive9f8e"},
		{"a\u200bb\u200cc\u200dd\u2060e\ufefff", "abcdef"},
		{"ΣΊΣΥΦΟΣ σίσυφος", "σισυφοσσισυφοσ"},
		{"ﬁle ²", "file2"},
		{"İstanbul", "istanbul"},
		{"中文 テスト", "中文テスト"},
		{"\xff\xfeab", "ab"},
		{"", ""},
		{"--..//", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, skeleton(tt.in), "skeleton(%q)", tt.in)
	}
}

// TestFoldStreamMatchesSkeleton: the byte-by-byte reader the matcher
// verifies with gives the skeleton, and ends each byte's character where
// it ends.
func TestFoldStreamMatchesSkeleton(t *testing.T) {
	for _, s := range []string{"Müller#4471", "ﬁle ² ΣΊΣ", "a\u00adb", "\xffx"} {
		fs := foldStream{s: s}
		var got []byte
		for {
			b, ok := fs.next()
			if !ok {
				break
			}
			got = append(got, b)
			assert.LessOrEqual(t, fs.end, len(s))
		}
		assert.Equal(t, skeleton(s), string(got), "foldStream of %q", s)
	}
}
