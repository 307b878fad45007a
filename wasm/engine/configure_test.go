package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/risk"
)

func TestRegisterRiskErrors(t *testing.T) {
	tests := []struct {
		name, def, want string
	}{
		{"MCP hint", `{"name":"t","description":"d","annotations":{"readOnlyHint":"yes"}}`,
			`registerTool: annotations.readOnlyHint of tool "t" must be a boolean, got string`},
		{"SEP-1984 hint", `{"name":"t","description":"d","annotations":{"reversibleHint":1}}`,
			`registerTool: annotations.reversibleHint of tool "t" must be a boolean, got number`},
		{"SEP-1913 metadata", `{"name":"t","description":"d","annotations":{"inputMetadata":{"destination":"moon","sensitivity":"none","outcomes":"benign"}}}`,
			`registerTool: annotations.inputMetadata.destination of tool "t" is invalid`},
		{"_meta not an object", `{"name":"t","description":"d","_meta":[]}`,
			`registerTool: _meta of tool "t" must be an object, got array`},
		{"_meta hint", `{"name":"t","description":"d","_meta":{"mcp.dev/effect":"explode"}}`,
			`registerTool: _meta["mcp.dev/effect"] of tool "t" must be one of`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEngine(t)
			_, err := e.Register(tt.def)
			var ee *Error
			require.ErrorAs(t, err, &ee, "Register(%s)", tt.def)
			assert.Equal(t, "TypeError", ee.Name)
			assert.Contains(t, ee.Message, tt.want)
			mustRegister(t, e, `{"name":"t","description":"nothing half-registered"}`)
		})
	}
}

func TestRegisterRiskNormalized(t *testing.T) {
	e := newTestEngine(t)
	got, err := e.Register(`{"name":"t","description":"d","annotations":{"slowExecutionHint":null,"readOnlyHint":true,"x-custom":[1]},
		"_meta":{"mcp.dev/effect":"read","com.example/team":"mail"}}`)
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"t","description":"d","inputSchema":{"type":"object","properties":{}},
		"annotations":{"readOnlyHint":true,"x-custom":[1]},
		"_meta":{"mcp.dev/effect":"read","com.example/team":"mail"}}`, got)

	got, err = e.Register(`{"name":"u","description":"d"}`)
	require.NoError(t, err)
	assert.NotContains(t, got, "_meta", "no _meta when the page gave none")
}

func TestConfigureErrors(t *testing.T) {
	tests := []struct{ config, want string }{
		{`{"rules":{"trifecta":"ignore"}}`, `rules.trifecta: must be "confirm" or "block", got "ignore"`},
		{`{"insecureDisableRules":["resolve"]}`, `unknown rule "resolve"`},
		{`{"withhold":["secret"]}`, `unknown sensitivity label "secret"`},
		{`{"speed":1}`, `unknown option "speed" (known: rules, insecureDisableRules, withhold, private, maxCalls, maxConfirmations, timeoutMs, slowTimeoutMs)`},
		{`{"timoutMs":1000}`, `unknown option "timoutMs"; did you mean "timeoutMs"?`},
		{`{"timeoutMs":"1000"}`, `timeoutMs must be an integer, got string`},
		{`{"timeoutMs":1.5}`, `timeoutMs must be an integer, got number 1.5`},
		{`{"timeoutMs":0}`, ``},
		{`{"timeoutMs":-2}`, `timeoutMs: must be a positive number of milliseconds, at most 2147483647, got -2`},
		{`{"slowTimeoutMs":1e300}`, `slowTimeoutMs must be an integer, got number 1e300`},
		{`{"withhold":"pii"}`, `withhold must be an array, got string`},
		{`[`, `the options must be an object`},
		{`[]`, `the options must be an object`},
		{`null`, `the options must be an object`},
	}
	for _, tt := range tests {
		e := newTestEngine(t)
		err := e.Configure(tt.config)
		if tt.want == "" {
			assert.NoError(t, err, "Configure(%s)", tt.config)
			continue
		}
		var ee *Error
		require.ErrorAs(t, err, &ee, "Configure(%s)", tt.config)
		assert.Equal(t, "TypeError", ee.Name)
		assert.True(t, strings.HasPrefix(ee.Message, "veil.configure: "), "Configure(%s): %s", tt.config, ee.Message)
		assert.Contains(t, ee.Message, tt.want, "Configure(%s)", tt.config)
	}
}

// TestConfigureMerges: each configure changes only the options it names;
// null gives one its default back; a refused configure changes nothing.
func TestConfigureMerges(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"t","description":"d","annotations":{"readOnlyHint":true}}`)
	mustRegister(t, e, `{"name":"pii","description":"d","annotations":{"returnMetadata":{"source":"user","sensitivity":"pii"}}}`)
	timeout := func() int {
		t.Helper()
		d, err := e.Decide("t", `{}`, Resolution{})
		require.NoError(t, err)
		e.OutputOf("t", Outcome{Kind: Aborted, Call: d.Call})
		return d.Load.TimeoutMs
	}
	// Each call returns a name of its own: a name withheld once is
	// withheld from every later output of the session.
	names := []string{"Ada Lovelace", "Grace Hopper", "Katherine Johnson", "Margaret Hamilton", "Frances Allen", "Barbara Liskov"}
	withheld := func() bool {
		t.Helper()
		d, err := e.Decide("pii", `{}`, Resolution{})
		require.NoError(t, err)
		name := names[0]
		names = names[1:]
		return e.OutputOf("pii", Outcome{Kind: Text, Data: name, Call: d.Call}).Agent != name
	}
	assert.Equal(t, risk.DefaultTimeoutMs, timeout(), "the default timeout")

	require.NoError(t, e.Configure(`{"timeoutMs":5000}`))
	require.NoError(t, e.Configure(`{"withhold":["pii"]}`))
	assert.Equal(t, 5000, timeout(), "timeoutMs kept when another option is set")
	assert.True(t, withheld(), "withhold set")

	require.Error(t, e.Configure(`{"timeoutMs":7000,"withhold":["nope"]}`))
	assert.Equal(t, 5000, timeout(), "a refused configure changes nothing")

	require.NoError(t, e.Configure(`{"timeoutMs":null}`))
	assert.Equal(t, risk.DefaultTimeoutMs, timeout(), "null restores the default")
	assert.True(t, withheld(), "withhold kept")
	require.NoError(t, e.Configure(`{}`))
	assert.True(t, withheld(), "an empty configure changes nothing")
	require.NoError(t, e.Configure(`{"withhold":null}`))
	assert.False(t, withheld(), "withhold back to its default")
}
