package pattern

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTranslate(t *testing.T) {
	for _, tt := range []struct {
		ecma  string
		match []string
		not   []string
	}{
		{`^[a-z0-9_-]{3,16}$`, []string{"ada_99"}, []string{"ab", "Ada"}},
		{`^(a+)+$`, []string{"aaaa"}, []string{"aaaab"}},
		{`^\s+$`, []string{" \t", "\u00a0\u2028\ufeff"}, []string{"x"}},
		{`^\S$`, []string{"x"}, []string{"\u00a0"}},
		{`^.$`, []string{"x", "😀"}, []string{"\n", "\r", "\u2028"}},
		{`^\d{4}-\d{2}-\d{2}$`, []string{"2026-11-24"}, []string{"２０２６-11-24"}},
		{`^\u00e9\u{1F600}\x41$`, []string{"é😀A"}, nil},
		{`^\p{Lu}\p{Ll}+$`, []string{"Émile"}, []string{"émile"}},
		{`^(?<year>\d{4})$`, []string{"2026"}, nil},
		{`^[\s\d]+$`, []string{" 1\u00a02"}, []string{"a"}},
		{`^\/path\.json$`, []string{"/path.json"}, []string{"/pathxjson"}},
		{`^[\b]$`, []string{"\b"}, []string{"b"}},
		{`\bword\b`, []string{"a word."}, []string{"swords"}},
	} {
		re2, ok := Translate(tt.ecma)
		require.True(t, ok, "Translate(%q)", tt.ecma)
		re, err := regexp.Compile(re2)
		require.NoError(t, err, "Translate(%q) = %q", tt.ecma, re2)
		for _, s := range tt.match {
			assert.True(t, re.MatchString(s), "%q (as %q) must match %q", tt.ecma, re2, s)
		}
		for _, s := range tt.not {
			assert.False(t, re.MatchString(s), "%q (as %q) must not match %q", tt.ecma, re2, s)
		}
	}
	for _, p := range []string{
		`^(?=.*\d).{8,}$`, `(?!x)`, `(?<=a)b`, `(?<!a)b`, `(a)\1`, `(?<x>a)\k<x>`, `[]`, `[^]`, `a{,3}`, `a{2000}`,
		`x]`, `x}`, `[[:alpha:]]`, `\p{Script=Greek}`, `\p{Letter}`, `\ud83d`, `\q`, `\-`, `[\S]`, `(?i)a`, `\8`, `[a`, `\c1`,
	} {
		_, ok := Translate(p)
		assert.False(t, ok, "Translate(%q) must decline", p)
	}
}

func TestCheckBacktracking(t *testing.T) {
	for _, p := range []string{
		`^(?=.*\d)(?=.*[a-z])(?=.*[A-Z]).{8,}$`,
		`^(?!admin$)[a-z]{3,16}$`,
		`(?<=@)example\.com$`,
		`^(\w+)@\1\.example$`,
		`^a(?:bc)+d$`,
		`^(?=.*x)a.*b$`,
		`(?=.*a)(?=.*b)(?=.*c)(?=.*d).*e`,
	} {
		assert.NoError(t, CheckBacktracking(p), "CheckBacktracking(%q)", p)
	}
	for _, p := range []string{
		`^(?=a)(a+)+$`,
		`^(?=a)(a|ab)*$`,
		`^(?=a)(\w*)*x`,
		`(?=a)(a{2,20}){2,}`,
		`(?=a)a.*b.*c.*d`,
		`(?=a)(?:x*y*z*)`,
		`(?=a).*a.*b`,
		`(?<=a)(?:ab)*\w*c`,
	} {
		err := CheckBacktracking(p)
		assert.Error(t, err, "CheckBacktracking(%q)", p)
	}
}
