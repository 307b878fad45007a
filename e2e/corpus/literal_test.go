package corpus

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseLiteral(t *testing.T) {
	for _, tt := range []struct{ source, json string }{
		{`[]`, `[]`},
		{`{a: 1, "b-c": 'two', 3: [true, false, null,], 'd': {e: undefined, f: -1.50e1},}`, `{"3":[true,false,null],"a":1,"b-c":"two","d":{"f":-15}}`},
		{"// a comment\n[ /* and another */ 0x10, 1_000, .5, 1e21, undefined ]", `[16,1000,0.5,1e+21,null]`},
		{`"\u{1F600} \uD83D\uDE00 \x41 \' \" \n \t \\ \/ \0"`, `"😀 😀 A ' \" \n \t \\ / \u0000"`},
		{"'line\\\ncontinued'", `"linecontinued"`},
		{`{z: 1, 10: 2, 2: 3}`, `{"2":3,"10":2,"z":1}`},
	} {
		v, err := ParseLiteral(tt.source)
		require.NoError(t, err, "%s", tt.source)
		got, err := v.JSON()
		require.NoError(t, err, "%s", tt.source)
		assert.Equal(t, tt.json, got, "%s", tt.source)
	}
}

func TestParseLiteralScript(t *testing.T) {
	for _, tt := range []struct{ source, where, what string }{
		{`[{name: "t", returns: ({path}) => path}]`, "/0/returns", "a function or an expression in parentheses"},
		{`[{name: "t", resolve: () => { throw 1 }}]`, "/0/resolve", "a function or an expression in parentheses"},
		{`{f: x => x}`, "/f", "a function"},
		{`{f: async () => 1}`, "/f", "a function"},
		{`{f: function () {}}`, "/f", "a function"},
		{`{execute() {}}`, "/execute", "a method"},
		{`{get x() { return 1 }}`, "/get", "a getter, a setter or a method"},
		{"{t: `contents of ${path}`}", "/t", "a template literal"},
		{`{a: "x".repeat(3)}`, "/a", "an expression"},
		{`{a: fixture}`, "/a", "the name fixture"},
		{`{fixture}`, "/fixture", "a shorthand member, the value of a name"},
		{`[...xs]`, "", "a spread"},
		{`{a: 10n}`, "/a", "a BigInt"},
		{`1 + 1`, "", "an expression"},
	} {
		_, err := ParseLiteral(tt.source)
		var se *ScriptError
		require.True(t, errors.As(err, &se), "%s: got %v, want a ScriptError", tt.source, err)
		assert.Equal(t, tt.where, se.Where, "%s", tt.source)
		assert.Equal(t, tt.what, se.What, "%s", tt.source)
	}
	for _, source := range []string{`[1, 2`, `{a 1}`, `"open`, "'a\nb'", `"\uD800"`, `{: 1}`, `"\1"`} {
		_, err := ParseLiteral(source)
		var se *ScriptError
		if assert.Error(t, err, "%s", source) {
			assert.False(t, errors.As(err, &se), "%s: %v is no JavaScript at all, not a script", source, err)
		}
	}
}

func TestLoadRisk(t *testing.T) {
	cases, err := LoadRisk("../testdata/risk")
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	literal := 0
	for _, c := range cases {
		require.NotEmpty(t, c.Steps, c.Name)
		tools, err := c.LiteralTools()
		var se *ScriptError
		if errors.As(err, &se) {
			continue
		}
		require.NoError(t, err, c.Name)
		literal++
		for _, tool := range tools {
			assert.NotEmpty(t, tool.Name, "%s: a tool's name", c.Name)
			assert.NotContains(t, tool.Definition, `"returns"`, "%s: the definition leaves returns out", c.Name)
		}
	}
	assert.NotZero(t, literal, "no case has literal tools")
}
