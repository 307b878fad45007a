package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertRawScanSound checks, for every node of the JSON text src, that a
// span the whole search leaves untouched is one a search of the span
// alone finds nothing in, nor any escape: the render copies such spans
// unread.
func assertRawScanSound(t *testing.T, src string, s *scrubber) {
	t.Helper()
	tr, err := parseTree(src)
	if err != nil {
		t.Skip("not JSON")
	}
	r := newRawScan(src, s)
	if !r.ok {
		return // every span is searched on its own
	}
	for i := range tr.nodes {
		n := &tr.nodes[i]
		span := src[n.start:n.end]
		if r.touches(int(n.start), int(n.end)) {
			continue
		}
		if hasEscapes(span, s.plus) || s.containsRaw(span) {
			t.Fatalf("the span %q of node %d is untouched by the whole search, but a search of it alone finds a value or an escape", clip(span), i)
		}
	}
}

func rawScanScrubber(values ...string) *scrubber {
	set := &scrubSet{}
	for _, v := range values {
		set.addString(v)
	}
	return newScrubber(set)
}

func TestRawScanTouchesEverySpanThatHoldsAValue(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		src    string
		// touched are the nodes' texts the search must touch.
		touched []string
	}{
		{"a value as it is", []string{"sk_live_4471"}, `{"a":"x sk_live_4471 y","b":"plain"}`, []string{`"x sk_live_4471 y"`}},
		{"a value in another case", []string{"Müller#4471"}, `{"a":["MÜLLER#4471","other"]}`, []string{`"MÜLLER#4471"`}},
		{"a value in base64", []string{"hunter2hunter2"}, `{"a":"aHVudGVyMmh1bnRlcjI=","b":1}`, []string{`"aHVudGVyMmh1bnRlcjI="`}},
		{"a value in hex", []string{"hunter2hunter2"}, `{"a":"68756e7465723268756e74657232","b":1}`, []string{`"68756e7465723268756e74657232"`}},
		{"a value as a number", []string{"123-45-6789"}, `{"a":123456789,"b":"n"}`, []string{`123456789`}},
		{"an escape", []string{"zzzzzz"}, `{"a":"a\u0041b","b":"c"}`, []string{`"a\u0041b"`}},
		{"a percent", []string{"zzzzzz"}, `{"a":"%41%42","b":"c"}`, []string{`"%41%42"`}},
		{"a value split across items", []string{"abcdefgh"}, `{"a":["abcd","efgh"],"b":"c"}`, []string{`"abcd"`, `"efgh"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := rawScanScrubber(tt.values...)
			r := newRawScan(tt.src, s)
			require.True(t, r.ok, "the search was made whole")
			for _, text := range tt.touched {
				at := strings.Index(tt.src, text)
				require.GreaterOrEqual(t, at, 0)
				assert.True(t, r.touches(at, at+len(text)), "%s is touched", text)
			}
			at := strings.LastIndex(tt.src, `"b"`)
			if at >= 0 && tt.name != "a value split across items" {
				assert.False(t, r.touches(at, at+3), `the name "b" is not touched`)
			}
			assertRawScanSound(t, tt.src, s)
		})
	}
}

func TestRawScanSearchesSpanBySpanWithAnEncodedWord(t *testing.T) {
	src := `{"a":"=?utf-8?B?aHVudGVy","b":"MmhlbnRlcjI=?="}`
	r := newRawScan(src, rawScanScrubber("hunter2hunter2"))
	assert.False(t, r.ok, "an encoded-word is read to its end wherever that is: no whole search")
}

func TestRawScanTouchesWhereMatchingCostMuch(t *testing.T) {
	// Needles that share long prefixes: a span searched alone runs past
	// its budget there, so the whole search must not vouch for it.
	set := &scrubSet{}
	prefix := strings.Repeat("A", 60)
	for c := 'a'; c <= 'z'; c++ {
		set.addString(prefix + string(c) + "zq")
	}
	s := newScrubber(set)
	src := `{"n":"` + strings.Repeat("A", 4000) + `","m":"plain"}`
	r := newRawScan(src, s)
	if r.ok {
		at := strings.Index(src, `"AAAA`)
		assert.True(t, r.touches(at, at+4002), "the costly span is touched")
	}
	assertRawScanSound(t, src, s)
}

// FuzzRawScan: a span of a JSON text that the whole search leaves
// untouched holds nothing a search of it alone finds.
func FuzzRawScan(f *testing.F) {
	f.Add("sk_live_4471", `{"a":"x sk_live_4471 y","b":["SK_LIVE_4471",1]}`)
	f.Add("hunter2hunter2", `{"a":"aHVudGVyMmh1bnRlcjI=","b":"68756e7465723268756e74657232"}`)
	f.Add("123-45-6789", `[123456789,"123 45 6789",{"123456789":0}]`)
	f.Add("Müller#4471", `{"m":"MULLER 4471","n":"m\u00fcller#4471"}`)
	f.Add("abcdefgh", `{"a":["abcd","efgh"],"b":{"x":"abcd","y":"efgh"}}`)
	f.Add("tok>91", `{"a":"tok&gt;91","b":"tok%3E91","c":"dG9rPjkx"}`)
	f.Fuzz(func(t *testing.T, value, src string) {
		if len(value) < minScrubLength || len(src) > 1<<16 {
			t.Skip()
		}
		assertRawScanSound(t, src, rawScanScrubber(value))
	})
}
