package engine

import (
	"encoding/base64"
	"encoding/hex"
	"html"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodingsOf is decodings of s with its own budget.
func decodingsOf(s string, plus bool) ([]*layer, bool) {
	budget := decodeBudget(s)
	return decodings(s, plus, 0, &budget)
}

func layerTexts(layers []*layer) []string {
	var out []string
	for _, l := range layers {
		out = append(out, l.text)
	}
	return out
}

func TestDecodings(t *testing.T) {
	tests := []struct {
		in   string
		want []string // among the decodings
	}{
		{`M\u00fcller`, []string{"Müller"}},
		{`\ud83d\udc0e horse`, []string{"🐎 horse"}},
		{`\ud83d alone`, []string{"\ufffd alone"}},
		{`\u{1F40E}`, []string{"🐎"}},
		{`tok\u003e91 \/ \" \\ \n`, []string{"tok>91 / \" \\ \n"}},
		{`M\xfcller`, []string{"Müller"}},
		{`b'M\xc3\xbcller'`, []string{"b'Müller'"}},
		{`\U0001F40E`, []string{"🐎"}},
		{"line\\\ncontinued", []string{"linecontinued"}},
		{`M&uuml;ller &amp; &#252; &#xFC; &#XfC &lt`, []string{"Müller & ü ü ü <"}},
		{`&#150; &#0; &#x110000;`, []string{"\u2013 \ufffd \ufffd"}},
		{`&lowbar;&period;&unknown; & x`, []string{"_.&unknown; & x"}},
		{`M%C3%BCller%234471 %u00fc %zz %`, []string{"Müller#4471 ü %zz %"}},
		{`M\\u00fcller`, []string{`M\u00fcller`, "Müller"}},
		{`M%26uuml%3Bller`, []string{"M&uuml;ller", "Müller"}},
		{`M&amp;uuml;ller`, []string{"M&uuml;ller", "Müller"}},
		{`%5Cu00fc`, []string{`\u00fc`, "ü"}},
	}
	for _, tt := range tests {
		layers, ok := decodingsOf(tt.in, false)
		require.True(t, ok, "decodings(%q)", tt.in)
		got := layerTexts(layers)
		assert.Equal(t, tt.in, got[0], "layer 0 is the string itself")
		for _, w := range tt.want {
			assert.Contains(t, got, w, "decodings(%q)", tt.in)
		}
	}
	layers, _ := decodingsOf("a+b%20c", true)
	assert.Contains(t, layerTexts(layers), "a b c", "a plus is a space in a query")
	layers, _ = decodingsOf("a+b%20c", false)
	assert.NotContains(t, layerTexts(layers), "a b c", "a plus is a plus unless a value has a space")
	layers, _ = decodingsOf("plain text", false)
	assert.Len(t, layers, 1, "a string without escapes is its only decoding")
}

func TestDecodingsBounds(t *testing.T) {
	// More levels of JSON escaping than maxDecodeDepth.
	s := "x\"y"
	for range maxDecodeDepth + 1 {
		s = jsonContents(s)
	}
	_, ok := decodingsOf(s, false)
	assert.False(t, ok, "too deep a nesting is past the bounds")
	// Within them.
	s = "x\"y"
	for range 4 {
		s = jsonContents(s)
	}
	layers, ok := decodingsOf(s, false)
	require.True(t, ok)
	assert.Contains(t, layerTexts(layers), "x\"y")
}

// TestOrigin checks that a match in a decoding maps back to exactly the
// bytes it was written in: whole escapes, nothing more.
func TestOrigin(t *testing.T) {
	tests := []struct {
		in, find, want string
	}{
		{`ab M\u00fcller cd`, "Müller", `M\u00fcller`},
		{`ab M\u00fcller cd`, "ü", `\u00fc`},
		{`x &lt;tok&gt; y`, "<tok>", `&lt;tok&gt;`},
		{`x %3Ctok%3E y`, "tok", "tok"},
		{`x M%C3%BCller y`, "ü", "%C3%BC"},
		{`x M\\u00fcller y`, "Müller", `M\\u00fcller`},
		{`x M%26uuml%3Bller y`, "Müller", `M%26uuml%3Bller`},
		{`x \ud83d\udc0e y`, "🐎", `\ud83d\udc0e`},
	}
	for _, tt := range tests {
		layers, ok := decodingsOf(tt.in, false)
		require.True(t, ok)
		found := false
		for _, l := range layers {
			if i := strings.Index(l.text, tt.find); i >= 0 {
				a, b := l.origin(i, i+len(tt.find))
				if tt.in[a:b] == tt.want {
					found = true
					break
				}
			}
		}
		assert.True(t, found, "no decoding of %q maps %q back to %q", tt.in, tt.find, tt.want)
	}
}

// TestDecodingsRoundTrip encodes random strings with every encoder, twice,
// and checks that a decoding recovers each, mapped back whole.
func TestDecodingsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []rune("aZ09 _-&<>\"'/\\%+#;é€ю🐎\n\t")
	for range 3000 {
		r := make([]rune, 1+rng.IntN(12))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(r)
		e1 := encoders[rng.IntN(len(encoders))]
		e2 := encoders[rng.IntN(len(encoders))]
		enc := e2.encode(e1.encode(s))
		layers, ok := decodingsOf(enc, strings.Contains(s, " "))
		require.True(t, ok, "decodings of %q", enc)
		found := false
		for _, l := range layers {
			if l.text == s {
				a, b := l.origin(0, len(s))
				assert.Equal(t, 0, a, "origin of %q in %q", s, enc)
				assert.Equal(t, len(enc), b, "origin of %q in %q", s, enc)
				found = true
			}
		}
		assert.True(t, found, "%q through %s then %s is %q: no decoding recovers it", s, e1.name, e2.name, enc)
	}
}

// TestEntities holds the table of named references to the standard's, as
// the standard library reads them.
func TestEntities(t *testing.T) {
	for name, r := range entities {
		assert.Equal(t, string(r), html.UnescapeString("&"+name+";"), "&%s;", name)
		assert.LessOrEqual(t, len(name), maxEntityName)
	}
	for name, r := range legacyEntities {
		assert.Equal(t, string(r), html.UnescapeString("&"+name), "&%s", name)
		assert.Equal(t, r, entities[name], "the legacy &%s is also read with its semicolon", name)
	}
}

// TestHTML5Entities: every named reference of HTML is read, the names
// entities lacks as package html reads them; without a semicolon only the
// legacy names are, and a legacy name with letters after it is read as
// the legacy name alone, and not at all when strict.
func TestHTML5Entities(t *testing.T) {
	tests := []struct {
		in     string
		strict bool
		want   string
		n      int // bytes read, 0 for none
	}{
		{"&Lstrok;ukasz", false, "Ł", 8},
		{"&eogon;", true, "ę", 7},
		{"&rcaron;", false, "ř", 8},
		{"&angst;", false, "Å", 7},
		{"&upsi;", false, "υ", 6},
		{"&Ccaron;", false, "Č", 8},
		{"&Scedil;", false, "Ş", 8},
		{"&gbreve;", false, "ğ", 8},
		{"&odblac;", false, "ő", 8},
		{"&ncedil;", false, "ņ", 8},
		{"&IOcy;", false, "Ё", 6},
		{"&CounterClockwiseContourIntegral;", false, "∳", 33},
		{"&NotEqualTilde;", false, "\u2242\u0338", 15}, // two code points
		{"&eacute", false, "é", 7},                     // legacy, as before
		{"&eacutex", false, "é", 7},
		{"&eacute", true, "", 0},
		{"&notit;", false, "¬", 4}, // &not, then "it;"
		{"&notit;", true, "", 0},
		{"&Lstrok", false, "", 0}, // not a legacy name
		{"&nosuchname;", false, "", 0},
		{"&amp;", false, "&", 5},
		{"&nLt;", false, "\u226A\u20D2", 5}, // not in package html's table
		{"&nGt;", true, "\u226B\u20D2", 5},
	}
	for _, tc := range tests {
		out, n := charRef(tc.in, 0, nil, tc.strict)
		assert.Equal(t, tc.want, string(out), "%q strict=%v", tc.in, tc.strict)
		assert.Equal(t, tc.n, n, "%q strict=%v", tc.in, tc.strict)
	}
	// All of HTML's names, as the standard library's table holds them.
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "html", "entity.go"))
	if err != nil {
		t.Skipf("the standard library's table: %v", err)
	}
	names := regexp.MustCompile(`(?m)^\s*"([A-Za-z0-9]+);":`).FindAllStringSubmatch(string(src), -1)
	require.Greater(t, len(names), 2000)
	for _, m := range names {
		ref := "&" + m[1] + ";"
		out, n := charRef(ref, 0, nil, true)
		assert.Equal(t, html.UnescapeString(ref), string(out), "%s", ref)
		assert.Equal(t, len(ref), n, "%s", ref)
		assert.LessOrEqual(t, len(ref)-1, maxEscapeLength, "%s", ref)
	}
}

func TestNumberKey(t *testing.T) {
	same := [][]string{
		{"4471", "4471.0", "4.471e3", "4.471E+3", "0004471", "-4471", "44710e-1", "0.4471e4"},
		{"0.001", "1e-3", "1E-3", "0.0010", "10e-4"},
		{"12.75", "1275e-2", "12.750"},
		{"0", "0.0", "-0", "0e5"},
		{"1e999999999999999", "1e999999999999998"},
	}
	for _, group := range same {
		want := string(numberKey(nil, group[0]))
		for _, n := range group {
			require.True(t, isNumber(n), "isNumber(%q)", n)
			assert.Equal(t, want, string(numberKey(nil, n)), "numberKey(%q) and numberKey(%q)", n, group[0])
		}
	}
	assert.NotEqual(t, string(numberKey(nil, "4471")), string(numberKey(nil, "44710")))
	assert.NotEqual(t, string(numberKey(nil, "4471")), string(numberKey(nil, "4.471")))
	assert.Equal(t, string(numberKey(nil, "0.4471")), string(numberKey(nil, ".4471")))
	for _, n := range []string{"", "-", "4471.", ".", "1e", "0x10", "12a", "1 2", "--1", "1.2.3"} {
		assert.False(t, isNumber(n), "isNumber(%q)", n)
	}
}

func TestNumbersInText(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"pin 4471.", []string{"4471"}},
		{"x4471y -12.5e3z", []string{"4471", "-12.5e3"}},
		{"1.2.3 and 3.4471", []string{"1.2", "3.4471"}},
		{"ratio=.4471 ..5 -.25", []string{".4471", "-.25"}},
		{"4471e 4471e+ 1e5", []string{"4471", "4471", "1e5"}},
		{"", nil},
	}
	for _, tt := range tests {
		var got []string
		numbers(tt.text, func(a, b int) bool {
			got = append(got, tt.text[a:b])
			return true
		})
		assert.Equal(t, tt.want, got, "numbers(%q)", tt.text)
	}
}

// TestMentionsPastTheBounds: a window with more decodings than the bounds
// allow is searched in decodeAll's, so that a mention there is found and
// ordinary text is not taken for one.
func TestMentionsPastTheBounds(t *testing.T) {
	// Three kinds of escape, each nested five deep: 216 decodings.
	rich := `&amp;amp;amp;amp;lt; %2525252541 ` + strings.Repeat(`\`, 32) + `n`
	_, ok := decodingsOf(rich, false)
	require.False(t, ok, "the text is past the bounds")
	spans, _ := mentions(rich, 0)
	assert.Empty(t, spans, "no mention in %q", rich)
	spans, _ = mentions(rich+` secret%2526%2523x5F%253Breference`, 0)
	assert.Len(t, spans, 1, "a mention past the bounds")
}

func TestMentions(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		text string
		n    int
	}{
		{`{"type":"secret_reference"}`, 1},
		{"a SECRET_Reference", 1},
		{`secret\u005freference`, 1},
		{`secret&lowbar;reference and secret&#95;reference`, 2},
		{`secret%5Freference`, 1},
		{`secret\\u005freference`, 1},
		{"secret_references my_secret_reference xsecret_reference", 0},
		{"secret reference, secret-reference", 2},
		{"secretReference SecretReference Secret  Reference secret._reference", 4},
		{"secretreferences secret____reference", 0},
		{`"secret_reference" then \u0073ecret_reference`, 2},
		// In a run of base64 or hex, to two encodings deep.
		{"ref=" + b64(`{"type":"secret_reference","id":"r1"}`), 1},
		{base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256"}`)) + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"ref":{"type":"secret_reference"}}`)) + ".c2ln", 1},
		{hex.EncodeToString([]byte(`{"type":"secret_reference"}`)), 1},
		{"73:65:63:72:65:74:20:52:65:66:65:72:65:6E:63:65", 1},
		{b64(`secret\u005freference`), 1},
		{b64(b64(`"type":"secretReference"`)), 1},
		{`772T772F772D772S772F772U77y\/772S772F772G772F772S772F772O772D772F`, 1}, // fullwidth, PHP's "\/"
		{"Wm9v " + b64("s\xe9cret_r\xe9f\xe9rence"), 1},                          // Latin-1
		{b64("secret_references") + " " + b64("nothing to see here at all"), 0},
		{"3f2504e0-4f89-11d3-9a0c-0305e82c3301 6332746662476c325a5638314d55687854486c7156305268636d7030564446365a4841335a474d3d", 0},
	}
	for _, tt := range tests {
		spans, ok := mentions(tt.text, 0)
		require.True(t, ok)
		assert.Len(t, spans, tt.n, "mentions(%q): %v", tt.text, spans)
		if tt.n > 0 {
			assert.True(t, mayMention(tt.text), "mayMention(%q)", tt.text)
		}
	}
}
