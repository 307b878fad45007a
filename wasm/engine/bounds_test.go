package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/risk"
)

// The tests of this file feed each stage an input that once made it
// quadratic: each finishes (a quadratic stage would take minutes natively
// and longer than the page's output time-out under WebAssembly) and gives
// the answer a linear one gives. BenchmarkTokens shows the scaling of the first.

// manyKeys returns n distinct key-like words (keyLike), each twice, joined
// by spaces: a withheld text of tens of thousands of words.
func manyKeys(n int) (text string, words []string) {
	words = make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("k%07dz", i)
	}
	return strings.Join(words, " ") + " " + strings.Join(words, " "), words
}

func TestTokensOfAManyWordedTextEachOnce(t *testing.T) {
	const n = 60000
	text, words := manyKeys(n)
	got := tokens(text)
	require.Len(t, got, n, "tokens of %d distinct words, each written twice", n)
	assert.Equal(t, words, got, "each word once, in the order first written")
}

func TestWithholdingAManyWordedTextFinishes(t *testing.T) {
	// The session's set takes a needle a word: more words than it holds
	// fill it, and the session then withholds everything (TestSessionBound).
	const n = 20000
	text, words := manyKeys(n)
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"mk","description":"d","outputSchema":{"type":"object","properties":{"note":{"type":"string","x-sensitive":true}}}}`)
	mustRegister(t, e, `{"name":"p","description":"d"}`)
	res := e.OutputOf("mk", Outcome{Kind: Returned, Data: jsonText(map[string]string{"note": text})})
	require.Nil(t, res.Err, "Output of a note of %d words", 2*n)
	require.Equal(t, 1, res.Held)
	later := e.OutputOf("p", Outcome{Kind: Returned, Data: `{"id":"` + words[n/2] + `","ok":true}`})
	require.Nil(t, later.Err)
	assert.NotContains(t, later.Agent, words[n/2], "a word of the withheld text, quoted alone later")
	assert.Contains(t, later.Agent, `"ok":true`)
}

func TestManyShortPageValuesAreFoundInOnePass(t *testing.T) {
	// Every two letters with a mark after them, 4,056 values: each once
	// looked for with a search of its own in every string.
	var values []string
	for a := 'a'; a <= 'z'; a++ {
		for b := 'a'; b <= 'z'; b++ {
			for _, m := range "!?#%&*" {
				values = append(values, string([]rune{a, b, m}))
			}
		}
	}
	e := newTestEngine(t)
	mustRegister(t, e, signInDef)
	id := openCall(t, e, "sign_in")
	require.NoError(t, e.Scrub("sign_in", values))
	items := make([]string, 20000)
	for i := range items {
		items[i] = fmt.Sprintf("%q", fmt.Sprintf("%c%c! then %c%c? and 123", 'a'+i%26, 'a'+i/26%26, 'a'+i/7%26, 'a'+i/3%26))
	}
	res := e.Output(Outcome{Kind: Returned, Data: "[" + strings.Join(items, ",") + "]", Call: id})
	require.Nil(t, res.Err)
	for _, v := range []string{"!", "?"} {
		assert.NotContains(t, res.Agent, v, "the short values end with %q", v)
	}
	assert.Equal(t, 20000, strings.Count(res.Agent, " then "), "what is around them is kept")
	assert.Equal(t, 20000, strings.Count(res.Agent, " and 123"))
}

func TestShortValuesFoundAsEachOwnSearchFindsThem(t *testing.T) {
	// Past maxShortScans, one pass finds what a search for each value
	// found: its occurrences left to right, never overlapping one another.
	values := []string{"aa", "ab", "b", "cc", "c", "d1", "d2", "d3", "d4"}
	require.Greater(t, len(values), maxShortScans)
	one := newScrubber(&scrubSet{noMin: true, short: values})
	require.NotNil(t, one.shortAt, "one pass past %d values", maxShortScans)
	each := newScrubber(&scrubSet{noMin: true, short: values})
	each.shortAt = nil

	for _, text := range []string{"", "aaa", "aaaab", "abcccd1d2", "xyz", "ccc c", "d1d1d11"} {
		var got, want [][2]int
		one.eachShort(text, func(a, b int) bool { got = append(got, [2]int{a, b}); return true })
		each.eachShort(text, func(a, b int) bool { want = append(want, [2]int{a, b}); return true })
		cmp := func(x, y [2]int) int { return x[0]*100 + x[1] - y[0]*100 - y[1] }
		slices.SortFunc(got, cmp)
		slices.SortFunc(want, cmp)
		assert.Equal(t, want, got, "eachShort(%q)", text)
	}
}

func TestSetForeignOfManyNamesFinishes(t *testing.T) {
	names := make([]string, 200000)
	for i := range names {
		names[i] = fmt.Sprintf("tool-%06d", (i*7919)%len(names))
	}
	e := newTestEngine(t)
	require.True(t, e.SetForeign(names))
	got := e.Foreign()
	require.Len(t, got, risk.MaxToolNames)
	assert.True(t, slices.IsSorted(got), "sorted")
	assert.Equal(t, "tool-000000", got[0])
	assert.Equal(t, len(got), len(slices.Compact(slices.Clone(got))), "each once")
}

func TestSpotlightOfAResultWithManyItemsAndMembers(t *testing.T) {
	const n = 20000
	var b strings.Builder
	b.WriteString(`{"content":[{"type":"text","text":"{\"a\":1}"}`)
	for i := range n {
		fmt.Fprintf(&b, `,{"type":"text","text":"item %d"}`, i)
	}
	b.WriteString(`],"structuredContent":{"a":1}`)
	for i := range n {
		fmt.Fprintf(&b, `,"m%d":"item %d"`, i, i)
	}
	b.WriteString(`}`)
	out := spotlight("t", b.String(), nil, false, false, false, "untrusted-content-x")
	// The notice names the marker once; then each item and each member
	// but structuredContent, which the first item already says.
	assert.Equal(t, 1+(n+1)+n, strings.Count(out, "<untrusted-content-x>"), "wrapped texts")
	require.True(t, json.Valid([]byte(out)), "the spotlighted view is JSON")
}

func TestADashSeparatedHexRunFailsClosedPastItsBudget(t *testing.T) {
	// Every pair of hex after a '-' starts a decoding that reads to the
	// run's end: the decodings of "12-34-56-…" once grew with the square
	// of its length (48 KB took seconds natively), and were searched
	// each. Past the decoding budget the run now fails closed.
	for _, unit := range []string{"a1-", "12-"} {
		run := strings.Repeat(unit, 16000)
		budget := decodeBudget(run)
		decoded := 0
		ok := eachEncoded(run, &budget, func(a, b int, d []byte) bool { decoded += len(d); return true })
		assert.False(t, ok, "%q: past the budget", unit)
		assert.Less(t, decoded, 16*len(run)+maxLayerSlack, "%q: what was decoded stays within the budget", unit)

		e := newTestEngine(t)
		mustRegister(t, e, `{"name":"p","description":"d"}`)
		res := e.OutputOf("p", Outcome{Kind: Returned, Data: `{"x":"` + run + `","y":"kept"}`})
		require.Nil(t, res.Err)
		assert.NotContains(t, res.Agent, unit+unit+unit, "%q: the run does not reach the agent", unit)
		assert.True(t, json.Valid([]byte(res.Agent)), "%q: the view is JSON", unit)
	}
	// A short one is decoded from every pair that leaves four bytes, as
	// before.
	short := "12-34-56-78-9a"
	budget := decodeBudget(short)
	var got []string
	require.True(t, eachEncoded(short, &budget, func(a, b int, d []byte) bool { got = append(got, fmt.Sprintf("%d:%x", a, d)); return true }))
	assert.Subset(t, got, []string{"0:123456789a", "3:3456789a"})
	assert.NotContains(t, got, "6:56789a", "three bytes are no value")
}
