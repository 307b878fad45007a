package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/internal/jsonx"
)

// The engine's work on one output is bounded: outputs made to make it
// quadratic fail closed instead. Each test below is one such shape; it
// checks the outcome, not a time (BenchmarkAdversarial measures those).

// adversarial are the shapes, each about 250 KB.
func adversarial() map[string]struct{ def, data string } {
	const sensitive = `{"name":"t","description":"d","outputSchema":{"type":"object","properties":{"pw":{"x-sensitive":true}}}}`
	const plain = `{"name":"t","description":"d"}`
	out := map[string]struct{ def, data string }{}

	// Withheld values sharing their first sixteen bytes, each of another
	// length, and a text of that byte: every position is a candidate for
	// every length. (Values of a few lengths cost a hash each: the table
	// finds a needle by its hash, not by trying each.)
	var b strings.Builder
	b.WriteString(`{"pw":[`)
	for i := range 600 {
		fmt.Fprintf(&b, `"%sx",`, strings.Repeat("A", 16+i))
	}
	b.WriteString(`"AAAAz"],"note":"` + strings.Repeat("A", 120000) + `"}`)
	out["shared prefixes"] = struct{ def, data string }{sensitive, b.String()}

	// A chain of members, each named by the value of the last one
	// withheld: one more is found per pass.
	b.Reset()
	b.WriteString(`{"pw":"x00000000","m":{`)
	for i := 3999; i >= 0; i-- {
		fmt.Fprintf(&b, `"x%08x":"x%08x",`, uint32(i)*2654435761, uint32(i+1)*2654435761)
	}
	b.WriteString(`"z":1}}`)
	out["a chain of names"] = struct{ def, data string }{sensitive, b.String()}

	// Unclosed objects before a long array and a mention: each '{' parses
	// to the end.
	text := strings.Repeat(`{"a":`, 1000) + "[" + strings.Repeat("1,", 1<<16) + " secret_reference"
	out["unclosed objects"] = struct{ def, data string }{plain, `{"content":[{"type":"text","text":` + string(jsonx.AppendString(nil, text)) + `}]}`}

	// Withheld members at every level of a deep object: their pointers
	// grow with the square of the depth.
	const depth = 9000
	out["deep pointers"] = struct{ def, data string }{sensitive, `{"pw":"zzzz","c":` + strings.Repeat(`{"zzzz":1,"c":`, depth) + `0` + strings.Repeat(`}`, depth) + `}`}

	// Clusters of escapes of three kinds, each nested four deep, just
	// farther apart than a window's gap: 125 decodings each.
	cluster := `%25252541 &amp;amp;amp;amp;x ` + strings.Repeat(`\\`, 8) + `x` + strings.Repeat("y", 41)
	out["escape clusters"] = struct{ def, data string }{plain, `{"content":[{"type":"text","text":` + string(jsonx.AppendString(nil, strings.Repeat(cluster, (256<<10)/len(cluster)))) + `}]}`}
	return out
}

func TestAdversarialOutputsFailClosed(t *testing.T) {
	shapes := adversarial()
	run := func(name string) Result {
		e := newTestEngine(t)
		mustRegister(t, e, shapes[name].def)
		return e.OutputOf("t", Outcome{Kind: Returned, Data: shapes[name].data})
	}

	res := run("shared prefixes")
	require.Nil(t, res.Err)
	assert.Contains(t, res.Agent, `"note":""`, "the text whose search ran past its budget is emptied")

	res = run("a chain of names")
	require.NotNil(t, res.Err, "a chain longer than the passes the engine makes fails the call")
	assert.Equal(t, "OperationError", res.Err.Name)

	res = run("unclosed objects")
	require.Nil(t, res.Err)
	assert.Len(t, res.Invalid, 1, "a text whose search ran past its budget is an invalid reference")
	assert.NotContains(t, res.Agent, "secret_reference\"", "and is withheld")

	res = run("deep pointers")
	require.NotNil(t, res.Err, "pointers past their budget fail the call")
	assert.Empty(t, res.Agent)

	res = run("escape clusters")
	require.Nil(t, res.Err)
	assert.True(t, res.Unchanged, "a plain tool's text without a reference passes, its decoding bounded")
}

// TestDecodingsBudget: what decodings makes never costs more than its
// budget, however many decodings a string has.
func TestDecodingsBudget(t *testing.T) {
	unit := `%2525252541&amp;amp;amp;amp;` + strings.Repeat(`\\`, 16) + `x`
	s := strings.Repeat(unit, (1<<20)/len(unit))
	budget := decodeBudget(s)
	layers, ok := decodings(s, false, 0, &budget)
	assert.False(t, ok, "past the budget")
	cost := 0
	for _, l := range layers[1:] {
		cost += len(l.text) + segmentSize*len(l.segs)
	}
	assert.LessOrEqual(t, cost, decodeBudget(s), "the layers kept cost no more than the budget")
}

// BenchmarkAdversarial times the shapes above: each must stay within a
// small multiple of reading its JSON.
func BenchmarkAdversarial(b *testing.B) {
	for name, shape := range adversarial() {
		b.Run(strings.ReplaceAll(name, " ", "-"), func(b *testing.B) {
			e := New(&Options{Origin: testOrigin})
			if _, err := e.Register(shape.def); err != nil {
				b.Fatal(err)
			}
			naive := baseline(func() {
				if _, err := parseTree(shape.data); err != nil {
					b.Fatal(err)
				}
			})
			b.SetBytes(int64(len(shape.data)))
			for b.Loop() {
				res := e.OutputOf("t", Outcome{Kind: Returned, Data: shape.data})
				e.forgetCall(res.Call)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(naive.Nanoseconds()), "parse")
		})
	}
}

// TestLongValueThroughThreeEncoders: a long withheld value written
// through three encoders, each multiplying its length, is found though
// its echo is far longer than the value (found by FuzzEchoes).
func TestLongValueThroughThreeEncoders(t *testing.T) {
	secret := "0" + strings.Repeat("\x04k", 1500)
	enc := func(name string) func(string) string {
		for _, e := range encoders {
			if e.name == name {
				return e.encode
			}
		}
		t.Fatalf("no encoder %q", name)
		return nil
	}
	echo := enc("percent, every byte")(enc("percent, every byte")(enc("HTML hex references")(secret)))
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"t","description":"d","outputSchema":{"type":"object","properties":{"pw":{"x-sensitive":true}}}}`)
	res := e.OutputOf("t", Outcome{Kind: Returned, Data: stringify(t, map[string]any{"pw": secret, "note": "KEEP " + echo})})
	require.Nil(t, res.Err)
	assertNoDecodedLeak(t, res.Agent, secret)
	assert.Contains(t, res.Agent, "KEEP ")
}
