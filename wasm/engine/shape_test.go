package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/leakcheck"
)

// TestShapeEscapesNothing: whatever shape the output takes, a value the
// schema marks x-sensitive does not reach the agent: JSON text returned
// as a string is judged as the value it is, and a schema's properties and
// items pin the kind of value that reaches their x-sensitive, whether or
// not it says "type". With sensitiveHint, the allowlist holds for strings
// too.
func TestShapeEscapesNothing(t *testing.T) {
	const secret = "sk_live_AAAABBBBCCCC"
	// Each schema, and the value it describes, holding the secret where
	// the schema marks it.
	schemas := []struct{ name, schema, value string }{
		{"properties, no type", `{"properties":{"id":{"type":"string"},"secret":{"type":"string","x-sensitive":true}}}`, `{"id":"k1","secret":"` + secret + `"}`},
		{"properties, type object", `{"type":"object","properties":{"id":{"type":"string"},"secret":{"type":"string","x-sensitive":true}}}`, `{"id":"k1","secret":"` + secret + `"}`},
		{"items, no type", `{"items":{"properties":{"id":{"type":"string"},"secret":{"x-sensitive":true}}}}`, `[{"id":"k1","secret":"` + secret + `"}]`},
		{"nested properties, no type", `{"properties":{"key":{"properties":{"secret":{"x-sensitive":true}}}}}`, `{"key":{"secret":"` + secret + `"}}`},
		{"additionalProperties", `{"additionalProperties":{"properties":{"secret":{"x-sensitive":true}}}}`, `{"k1":{"secret":"` + secret + `"}}`},
	}
	for _, sc := range schemas {
		// The value in every shape a page writes it in.
		shapes := []Outcome{
			{Kind: Returned, Data: sc.value},
			{Kind: Text, Data: sc.value},
			{Kind: Returned, Data: "[" + sc.value + "]"},
			{Kind: Text, Data: "[" + sc.value + "," + sc.value + "]"},
			{Kind: Returned, Data: jsonText(sc.value)},
			{Kind: Returned, Data: `{"content":[],"structuredContent":` + sc.value + `}`},
			{Kind: Returned, Data: `{"content":[],"structuredContent":[` + sc.value + `]}`},
			{Kind: Returned, Data: `{"wrapped":` + sc.value + `}`},
		}
		for _, hint := range []string{"", `,"annotations":{"sensitiveHint":true}`} {
			for _, o := range shapes {
				e := newTestEngine(t)
				mustRegister(t, e, `{"name":"t","description":"d","outputSchema":`+sc.schema+hint+`}`)
				res := e.OutputOf("t", o)
				if res.Err != nil {
					continue // rule (e): nothing of the output
				}
				if where, found := leakcheck.Find(res.Agent, secret); found {
					t.Errorf("%s%s: %s output %s: the secret reached the agent in %s:\n%s", sc.name, hint, o.Kind, o.Data, where, res.Agent)
				}
			}
		}
	}
}

// TestStringJudgedAsString: a tool whose outputSchema takes a string gets
// its JSON-looking string judged as the string it means.
func TestStringJudgedAsString(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"t","description":"d","outputSchema":{"type":"string","x-sensitive":true}}`)
	res := e.OutputOf("t", Outcome{Kind: Text, Data: `["a","b"]`})
	require.Nil(t, res.Err, "the string matches the schema; the array would not")
	assert.Equal(t, 1, res.Held)
	assert.NotContains(t, res.Agent, `\"a\"`)
}
