package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testOrigin = "https://app.example"

func newTestEngine(t testing.TB) *Engine {
	t.Helper()
	return New(&Options{Origin: testOrigin})
}

// mustRegister registers a tool from a JSON definition and fails the test
// on error.
func mustRegister(t testing.TB, e *Engine, def string) {
	t.Helper()
	_, err := e.Register(def)
	require.NoError(t, err, "Register(%s)", def)
}

func TestRegisterErrors(t *testing.T) {
	long := strings.Repeat("a", 129)
	tests := []struct {
		name     string
		def      string
		wantName string
		wantMsg  string
	}{
		{"empty name", `{"name":"","description":"d"}`, "InvalidStateError", "empty"},
		{"long name", `{"name":"` + long + `","description":"d"}`, "InvalidStateError", "longer than 128"},
		{"bad character", `{"name":"a b","description":"d"}`, "InvalidStateError", "outside [A-Za-z0-9_.-]"},
		{"unicode name", `{"name":"café","description":"d"}`, "InvalidStateError", "outside"},
		{"empty description", `{"name":"t","description":""}`, "InvalidStateError", "empty description"},
		{"blank description", `{"name":"t","description":"  "}`, "InvalidStateError", "empty description"},
		{"missing name", `{"description":"d"}`, "TypeError", "no name"},
		{"missing description", `{"name":"t"}`, "TypeError", "no description"},
		{"not an object", `[1]`, "TypeError", "not a JSON object"},
		{"input schema not object", `{"name":"t","description":"d","inputSchema":5}`, "TypeError", `inputSchema of tool "t"`},
		{"input schema boolean", `{"name":"t","description":"d","inputSchema":true}`, "TypeError", "must be an object"},
		{"output schema array", `{"name":"t","description":"d","outputSchema":[]}`, "TypeError", `outputSchema of tool "t"`},
		{"invalid schema", `{"name":"t","description":"d","inputSchema":{"type":"nope"}}`, "TypeError", `inputSchema of tool "t" is not a valid JSON Schema`},
		{"invalid pattern", `{"name":"t","description":"d","outputSchema":{"pattern":"("}}`, "TypeError", "outputSchema"},
		{"x-sensitive string", `{"name":"t","description":"d","outputSchema":{"properties":{"a":{"x-sensitive":"yes"}}}}`, "TypeError", "x-sensitive must be a boolean, got string"},
		{"x-sensitive in unused defs", `{"name":"t","description":"d","outputSchema":{"$defs":{"a":{"x-sensitive":1}}}}`, "TypeError", "/$defs/a"},
		{"x-sensitive at root", `{"name":"t","description":"d","outputSchema":{"x-sensitive":null}}`, "TypeError", "the root"},
		{"x-sensitive under an unknown keyword", `{"name":"t","description":"d","outputSchema":{"type":"object","secret":{"x-sensitive":true}}}`, "TypeError", `at /secret: x-sensitive is under "secret", which holds no subschema`},
		{"x-sensitive under draft-07's ignored prefixItems", `{"name":"t","description":"d","outputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","prefixItems":[{"x-sensitive":true}]}}`, "TypeError", "at /prefixItems/0: x-sensitive never applies"},
		{"x-sensitive beside draft-07's $ref", `{"name":"t","description":"d","outputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"o":{"type":"object"}},"$ref":"#/definitions/o","properties":{"s":{"x-sensitive":true}}}}`, "TypeError", "at /properties/s: x-sensitive never applies"},
		{"x-sensitive under 2020-12's ignored additionalItems", `{"name":"t","description":"d","outputSchema":{"type":"array","additionalItems":{"x-sensitive":true}}}`, "TypeError", "at /additionalItems: x-sensitive never applies"},
		{"x-sensitive in a definition nothing refers to", `{"name":"t","description":"d","outputSchema":{"$defs":{"a":{"x-sensitive":true}}}}`, "TypeError", "at /$defs/a: x-sensitive never applies"},
		{"x-sensitive deep under an unknown keyword", `{"name":"t","description":"d","outputSchema":{"properties":{"a":{"propertys":{"b":{"x-sensitive":true}}}}}}`, "TypeError", `at /properties/a/propertys/b: x-sensitive is under "propertys"`},
		{"remote ref", `{"name":"t","description":"d","outputSchema":{"$ref":"https://evil.example/s.json"}}`, "TypeError", "not loaded"},
		{"relative ref", `{"name":"t","description":"d","outputSchema":{"$ref":"other.json"}}`, "TypeError", "not loaded"},
		{"unknown $schema", `{"name":"t","description":"d","outputSchema":{"$schema":"https://evil.example/meta"}}`, "TypeError", "outputSchema"},
		{"sensitiveHint string", `{"name":"t","description":"d","annotations":{"sensitiveHint":"true"}}`, "TypeError", "annotations.sensitiveHint of tool \"t\" must be a boolean"},
		{"annotations array", `{"name":"t","description":"d","annotations":[]}`, "TypeError", "must be an object"},
		{"annotation sensitive", `{"name":"t","description":"d","annotations":{"sensitive":true}}`, "TypeError", `annotations.sensitive of tool "t" is not an annotation the runtime reads, so the output would not be withheld; to mark it sensitive, use "sensitiveHint": true`},
		{"annotation isSensitive", `{"name":"t","description":"d","annotations":{"isSensitive":false}}`, "TypeError", `use "sensitiveHint"`},
		{"annotation containsSensitiveData", `{"name":"t","description":"d","annotations":{"containsSensitiveData":true}}`, "TypeError", `use "sensitiveHint"`},
		{"annotation pii", `{"name":"t","description":"d","annotations":{"pii":true}}`, "TypeError", `use "sensitiveHint"`},
		{"schema keyword sensitive", `{"name":"t","description":"d","outputSchema":{"properties":{"pw":{"type":"string","secret":true}}}}`, "TypeError", `at /properties/pw: "secret" is not a keyword the runtime reads, so nothing would be withheld; mark the value with "x-sensitive": true`},
		{"schema keyword x-pii", `{"name":"t","description":"d","outputSchema":{"properties":{"ssn":{"x-pii":true}}}}`, "TypeError", `mark the value with "x-sensitive": true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEngine(t)
			_, err := e.Register(tt.def)
			require.Error(t, err)
			var ee *Error
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, tt.wantName, ee.Name, "Register(%s) error name", tt.def)
			assert.Contains(t, ee.Message, tt.wantMsg)
			assert.NotContains(t, ee.Message, "schema.veil.invalid", "the invented base URL leaks into the message")
			// Nothing half-registered: the name is still free.
			_, err = e.Register(`{"name":"t","description":"ok"}`)
			assert.NoError(t, err, "Register after a rejected definition")
		})
	}
}

func TestRegisterDuplicate(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"t","description":"d"}`)
	_, err := e.Register(`{"name":"t","description":"again"}`)
	var ee *Error
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, "InvalidStateError", ee.Name)
	assert.True(t, e.Unregister("t"))
	assert.False(t, e.Unregister("t"))
	mustRegister(t, e, `{"name":"t","description":"d"}`)
}

func TestRegisterNormalized(t *testing.T) {
	e := newTestEngine(t)
	got, err := e.Register(`{"name":"t","title":"T","description":"d","outputSchema":{"type":"object", "properties":{"z":{},"a":{"x-sensitive":true}}},"annotations":{"sensitiveHint":true,"custom":{"x":1}}}`)
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"t","title":"T","description":"d","inputSchema":{"type":"object","properties":{}},
		"outputSchema":{"type":"object","properties":{"z":{},"a":{"x-sensitive":true}}},
		"annotations":{"sensitiveHint":true,"custom":{"x":1}}}`, got)
	assert.Contains(t, got, `"properties":{"z":{},"a":`, "the page's key order is kept")
}

func TestCheckInput(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":1},"s":{"type":"string","pattern":"^ab"}},"required":["n"]}}`)
	mustRegister(t, e, `{"name":"free","description":"d"}`)
	tests := []struct {
		tool, input string
		wantName    string
		want        Failure
	}{
		{"t", `{"n":2}`, "", Failure{}},
		{"t", `{"n":0}`, "DataError", Failure{Path: "/n", SchemaPath: "/properties/n/minimum"}},
		{"t", `{}`, "DataError", Failure{Path: "", SchemaPath: "/required"}},
		{"t", `{"n":1,"s":"ac"}`, "DataError", Failure{Path: "/s", SchemaPath: "/properties/s/pattern"}},
		{"t", `[]`, "DataError", Failure{Path: "", SchemaPath: "/type"}},
		{"free", `[1,2]`, "", Failure{}},
		{"free", `{"any":true}`, "", Failure{}},
		{"free", `5`, "TypeError", Failure{}},
		{"free", `null`, "TypeError", Failure{}},
		{"missing", `{}`, "UnknownError", Failure{}},
	}
	for _, tt := range tests {
		err := e.CheckInput(tt.tool, tt.input)
		if tt.wantName == "" {
			assert.NoError(t, err, "CheckInput(%q, %s)", tt.tool, tt.input)
			continue
		}
		var ee *Error
		require.ErrorAs(t, err, &ee, "CheckInput(%q, %s)", tt.tool, tt.input)
		assert.Equal(t, tt.wantName, ee.Name, "CheckInput(%q, %s)", tt.tool, tt.input)
		if tt.wantName == "DataError" {
			var f Failure
			require.NoError(t, json.Unmarshal([]byte(ee.Message), &f), "DataError message is JSON")
			assert.Equal(t, tt.want.Path, f.Path, "CheckInput(%q, %s) path", tt.tool, tt.input)
			assert.Equal(t, tt.want.SchemaPath, f.SchemaPath, "CheckInput(%q, %s) schemaPath", tt.tool, tt.input)
			assert.NotEmpty(t, f.Reason)
		}
	}
}

func TestNoSchemaFetch(t *testing.T) {
	e := newTestEngine(t)
	for _, ref := range []string{"file:///etc/passwd", "http://127.0.0.1:1/x", "/etc/passwd"} {
		_, err := e.Register(`{"name":"t","description":"d","outputSchema":{"$ref":"` + ref + `"}}`)
		assert.ErrorContains(t, err, "not loaded", "a $ref to %s must not load", ref)
	}
}

func TestVaultExpiry(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := New(&Options{Origin: testOrigin, Now: func() time.Time { return now }, HoldTTL: time.Minute})
	mustRegister(t, e, `{"name":"t","description":"d","annotations":{"sensitiveHint":true}}`)
	res := e.OutputOf("t", Outcome{Kind: Returned, Data: `{"secret":"s3cr3t"}`})
	require.Nil(t, res.Err)
	require.Len(t, heldItems(e, res), 1)
	h := heldItems(e, res)[0].Handle
	got, err := e.Reveal(h)
	require.NoError(t, err)
	assert.Equal(t, Revealed{Kind: "value", Value: `{"secret":"s3cr3t"}`}, got)
	assert.Len(t, e.Items(), 1)

	now = now.Add(time.Minute)
	assert.Empty(t, e.Items(), "items after HoldTTL")
	_, err = e.Reveal(h)
	assert.Error(t, err, "Reveal after expiry")
}

func TestVaultForget(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"t","description":"d","annotations":{"sensitiveHint":true}}`)
	res := e.OutputOf("t", Outcome{Kind: Text, Data: "top secret"})
	require.Len(t, heldItems(e, res), 1)
	h := heldItems(e, res)[0].Handle
	got, err := e.Reveal(h)
	require.NoError(t, err)
	assert.Equal(t, "top secret", got.Value)
	assert.True(t, e.Forget(h))
	assert.False(t, e.Forget(h))
	_, err = e.Reveal(h)
	assert.Error(t, err)
}

func TestReferenceHeldUntilItsTTL(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := New(&Options{Origin: testOrigin, Now: func() time.Time { return now }, HoldTTL: time.Minute})
	mustRegister(t, e, `{"name":"t","description":"d"}`)
	ref := func(ttl int) string {
		return fmt.Sprintf(`{"type":"secret_reference","id":"i%d","label":"L","redeemUrl":"/r/%d","ttl":%d}`, ttl, ttl, ttl)
	}
	res := e.OutputOf("t", Outcome{Kind: Returned, Data: `[` + ref(5) + `,` + ref(600) + `,` + ref(7) + `]`})
	require.Nil(t, res.Err)
	held := heldItems(e, res)
	require.Len(t, held, 3)
	slices.SortFunc(held, func(a, b Item) int { return strings.Compare(a.Pointer, b.Pointer) })
	short, long := held[0], held[1]
	assert.Equal(t, now.Add(7*time.Second), held[2].RedeemBy, "each item keeps its own times")
	assert.Equal(t, now.Add(time.Minute), short.Expires, "a short ttl is held for the hold time, so the server can say it expired")
	assert.Equal(t, now.Add(5*time.Second), short.RedeemBy)
	assert.Equal(t, now.Add(600*time.Second), long.Expires, "a long ttl is held until it runs out")
	assert.Equal(t, now.Add(600*time.Second), long.RedeemBy)

	now = now.Add(2 * time.Minute)
	items := e.Items()
	require.Len(t, items, 1, "only the long reference is left")
	assert.Equal(t, long.Handle, items[0].Handle)
}

// heldItems lists what the call that gave res holds for the user.
func heldItems(e *Engine, res Result) []Item {
	var out []Item
	for _, it := range e.Items() {
		if it.Call == res.Call && res.Call != "" {
			out = append(out, it)
		}
	}
	return out
}

// TestHeldBytesBound: what the engine holds for the user is bounded; past
// the bound the oldest call's items are wiped first, and the newest are
// always held.
func TestHeldBytesBound(t *testing.T) {
	e := New(&Options{Origin: testOrigin, MaxHeldBytes: 4096})
	mustRegister(t, e, `{"name":"t","description":"d","outputSchema":{"properties":{"v":{"x-sensitive":true}}}}`)
	var calls []string
	for i := range 5 {
		res := e.OutputOf("t", Outcome{Kind: Returned, Data: fmt.Sprintf(`{"v":"%d%s"}`, i, strings.Repeat("x", 1500))})
		require.Nil(t, res.Err)
		calls = append(calls, res.Call)
	}
	held := 0
	for _, it := range e.Items() {
		held += len(it.Pointer) + 1501
		assert.NotEqual(t, calls[0], it.Call, "the oldest call's items went first")
	}
	assert.LessOrEqual(t, held, 4096)
	items := e.Items()
	require.NotEmpty(t, items)
	assert.Equal(t, calls[4], items[len(items)-1].Call, "the newest call is held")
	v, err := e.Reveal(items[len(items)-1].Handle)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(v.Value, "4x"))
}
