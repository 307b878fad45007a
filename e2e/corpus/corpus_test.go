package corpus

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// casesDir is the corpus, from this package's directory.
const casesDir = "../testdata/cases"

func TestLoad(t *testing.T) {
	cases, err := Load(casesDir)
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	for _, c := range cases {
		if c.Browser == "" {
			assert.Nil(t, c.ReturnsJS, "case %s runs natively but returns JavaScript", c.Name)
			assert.Nil(t, c.ThrowsJS, "case %s runs natively but throws JavaScript", c.Name)
		}
	}
}

func TestParse(t *testing.T) {
	const comment = "Guards against a bug.\n\n"
	tests := []struct {
		name, text, want string
	}{
		{"no comment", "-- tool.json --\n{}\n", "does not open with what it guards against"},
		{"no tool", comment + "-- returns.json --\n1\n", "no tool.json"},
		{"unknown file", comment + "-- tool.json --\n{}\n-- tool --\n{}\n", `unknown file "tool"`},
		{"a file twice", comment + "-- tool.json --\n{}\n-- tool.json --\n{}\n", `file "tool.json" twice`},
		{"tool not an object", comment + "-- tool.json --\n[]\n", "want an object"},
		{"tool not canonical", comment + "-- tool.json --\n{\"a\": 1}\n", `got {"a": 1}, want it as JSON.stringify writes it: {"a":1}`},
		{"a number not canonical", comment + "-- tool.json --\n{}\n-- returns.json --\n{\"n\":1.0}\n", `want it as JSON.stringify writes it: {"n":1}`},
		{"members out of order", comment + "-- tool.json --\n{}\n-- returns.json --\n{\"b\":1,\"0\":2}\n", `want it as JSON.stringify writes it: {"0":2,"b":1}`},
		{"input not canonical", comment + "-- tool.json --\n{}\n-- input --\n{\"a\":1e2}\n", `input: got {"a":1e2}`},
		{"returns twice", comment + "-- tool.json --\n{}\n-- returns.json --\n1\n-- returns --\n1\n-- browser --\nwhy\n", "more than one of returns.json, returns and throws"},
		{"JavaScript without a reason", comment + "-- tool.json --\n{}\n-- returns --\n10n\n", "needs a browser file"},
		{"an empty reason", comment + "-- tool.json --\n{}\n-- throws --\n1\n-- browser --\n\n", "browser: say why"},
		{"a fixture returns.json lacks", comment + "-- tool.json --\n{}\n-- fixture --\n{'a': 1}\n-- returns.json --\n\"{'a': 2}\"\n", "does not hold the fixture"},
		{"an error and a view", comment + "-- tool.json --\n{}\n-- error --\nUnknownError\n-- view --\nx\n", "has no view"},
		{"a bad skip", comment + "-- tool.json --\n{}\n-- skip-paths --\nnative\n", `want lines "path: reason"`},
		{"earlier not an array", comment + "-- tool.json --\n{}\n-- earlier.json --\n{\"tool\":{},\"returns\":1}\n", `earlier.json: got {"tool":{},"returns":1}, want an array of calls`},
		{"earlier null", comment + "-- tool.json --\n{}\n-- earlier.json --\nnull\n", "earlier.json: got null, want an array of calls"},
		{"earlier empty", comment + "-- tool.json --\n{}\n-- earlier.json --\n[]\n", "earlier.json: an empty array"},
		{"an earlier call not an object", comment + "-- tool.json --\n{}\n-- earlier.json --\n[{\"tool\":{},\"returns\":1},[]]\n", "earlier.json: call 1: got [], want an object"},
		{"an earlier unknown member", comment + "-- tool.json --\n{}\n-- earlier.json --\n[{\"tool\":{},\"returns\":1,\"throws\":1,\"args\":{}}]\n", `earlier.json: call 0: unknown members "args", "throws" (want [tool returns input])`},
		{"earlier not canonical", comment + "-- tool.json --\n{}\n-- earlier.json --\n[{\"tool\": {}, \"returns\": 1.0}]\n", `earlier.json: got [{"tool": {}, "returns": 1.0}], want it as JSON.stringify writes it: [{"tool":{},"returns":1}]`},
		{"an earlier call without a tool", comment + "-- tool.json --\n{}\n-- earlier.json --\n[{\"returns\":1}]\n", "earlier.json: call 0: no tool"},
		{"an earlier tool not an object", comment + "-- tool.json --\n{}\n-- earlier.json --\n[{\"tool\":\"t\",\"returns\":1}]\n", `earlier.json: call 0: tool: got "t", want an object`},
		{"an earlier call without returns", comment + "-- tool.json --\n{}\n-- earlier.json --\n[{\"tool\":{}}]\n", "earlier.json: call 0: no returns"},
		{"an earlier name not a string", comment + "-- tool.json --\n{}\n-- earlier.json --\n[{\"tool\":{\"name\":1},\"returns\":1}]\n", "earlier.json: call 0: tool: the name is 1, want a string"},
		{"an invalid earlier name", comment + "-- tool.json --\n{}\n-- earlier.json --\n[{\"tool\":{\"name\":\"a b\"},\"returns\":1}]\n", `earlier.json: call 0: the tool name "a b" is not a valid tool name`},
		{"an earlier name the case's", comment + "-- tool.json --\n{}\n-- earlier.json --\n[{\"tool\":{\"name\":\"case\"},\"returns\":1}]\n", `earlier.json: call 0: the tool name "case" is taken`},
		{"an earlier name twice", comment + "-- tool.json --\n{}\n-- earlier.json --\n[{\"tool\":{\"name\":\"case-earlier-1\"},\"returns\":1},{\"tool\":{},\"returns\":2}]\n", `earlier.json: call 1: the tool name "case-earlier-1" is taken`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("case.txtar", []byte(tt.text))
			require.Error(t, err, "Parse(%q)", tt.text)
			assert.Contains(t, err.Error(), tt.want, "Parse(%q)", tt.text)
		})
	}
	_, err := Parse("bad name!.txtar", []byte(comment+"-- tool.json --\n{}\n"))
	assert.ErrorContains(t, err, "not a valid tool name")
}

func TestParseFields(t *testing.T) {
	c, err := Parse("dir/a-case.txtar", []byte(`Guards against a bug.

-- tool.json --
{"annotations":{"sensitiveHint":true}}
-- fixture --
{'pw': 'x"y'}
-- returns.json --
"Saved {'pw': 'x\"y'}"
-- absent --
x"y
"  spaced \t"
-- present --
Saved
-- withheld --
[""]
-- view --
{"content":[]}
`))
	require.NoError(t, err)
	assert.Equal(t, "a-case", c.Name)
	assert.Equal(t, "{}", c.Input, "the default input")
	require.NotNil(t, c.Returns)
	assert.Equal(t, `"Saved {'pw': 'x\"y'}"`, *c.Returns)
	require.NotNil(t, c.Fixture)
	assert.Equal(t, `{'pw': 'x"y'}`, *c.Fixture)
	assert.Equal(t, []string{`x"y`, "  spaced \t"}, c.Absent)
	assert.Equal(t, []string{"Saved"}, c.Present)
	assert.Equal(t, []string{""}, c.Withheld)
	require.NotNil(t, c.View)
	assert.Equal(t, `{"content":[]}`, *c.View)
	assert.Empty(t, c.Browser)
}

func TestParseEarlier(t *testing.T) {
	tests := []struct {
		name, earlier string
		want          []Call
		defs          []string
	}{
		{
			name:    "defaults",
			earlier: `[{"tool":{"outputSchema":{"type":"object"}},"returns":{"key":"k1"}},{"tool":{},"returns":"text","input":{"q":1}}]`,
			want: []Call{
				{Name: "a-case-earlier-0", Tool: `{"outputSchema":{"type":"object"}}`, Input: "{}", Returns: `{"key":"k1"}`},
				{Name: "a-case-earlier-1", Tool: `{}`, Input: `{"q":1}`, Returns: `"text"`},
			},
			defs: []string{
				`{"name":"a-case-earlier-0","description":"conformance case a-case-earlier-0","outputSchema":{"type":"object"}}`,
				`{"name":"a-case-earlier-1","description":"conformance case a-case-earlier-1"}`,
			},
		},
		{
			name:    "a name given",
			earlier: `[{"tool":{"name":"lookup"},"returns":null},{"tool":{"name":"fetch","description":"mine"},"returns":[1]}]`,
			want: []Call{
				{Name: "lookup", Tool: `{"name":"lookup"}`, Input: "{}", Returns: "null"},
				{Name: "fetch", Tool: `{"name":"fetch","description":"mine"}`, Input: "{}", Returns: "[1]"},
			},
			defs: []string{
				`{"description":"conformance case a-case-earlier-0","name":"lookup"}`,
				`{"name":"fetch","description":"mine"}`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("dir/a-case.txtar", []byte("Guards against a bug.\n\n-- tool.json --\n{}\n-- earlier.json --\n"+tt.earlier+"\n"))
			require.NoError(t, err)
			require.Len(t, c.Earlier, len(tt.want))
			for i, e := range c.Earlier {
				assert.Equal(t, tt.want[i].Name, e.Name, "call %d: Name", i)
				assert.Equal(t, tt.want[i].Tool, e.Tool, "call %d: Tool", i)
				assert.Equal(t, tt.want[i].Input, e.Input, "call %d: Input", i)
				assert.Equal(t, tt.want[i].Returns, e.Returns, "call %d: Returns", i)
				assert.Equal(t, tt.defs[i], e.Definition(), "call %d: Definition", i)
			}
		})
	}
	c, err := Parse("a-case.txtar", []byte("Guards against a bug.\n\n-- tool.json --\n{}\n"))
	require.NoError(t, err)
	assert.Nil(t, c.Earlier, "a case without earlier.json")
}

func TestLoadToolNames(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("a.txtar", "Guards against a bug.\n\n-- tool.json --\n{}\n-- earlier.json --\n[{\"tool\":{\"name\":\"lookup\"},\"returns\":1}]\n")
	write("b.txtar", "Guards against a bug.\n\n-- tool.json --\n{}\n")
	cases, err := Load(dir)
	require.NoError(t, err)
	assert.Len(t, cases, 2)
	write("c.txtar", "Guards against a bug.\n\n-- tool.json --\n{}\n-- earlier.json --\n[{\"tool\":{\"name\":\"lookup\"},\"returns\":2}]\n")
	_, err = Load(dir)
	assert.ErrorContains(t, err, `the tool name "lookup" is case a's too`)
	write("c.txtar", "Guards against a bug.\n\n-- tool.json --\n{}\n-- earlier.json --\n[{\"tool\":{\"name\":\"b\"},\"returns\":2}]\n")
	_, err = Load(dir)
	assert.ErrorContains(t, err, `the tool name "b" is case b's too`)
}

func TestDefinition(t *testing.T) {
	tests := []struct {
		tool, want string
	}{
		{`{}`, `{"name":"t1","description":"conformance case t1"}`},
		{`{"outputSchema":{}}`, `{"name":"t1","description":"conformance case t1","outputSchema":{}}`},
		{`{"description":"mine"}`, `{"name":"t1","description":"mine"}`},
		{`{"name":"other","description":"mine"}`, `{"name":"other","description":"mine"}`},
	}
	for _, tt := range tests {
		c, err := Parse("t1.txtar", []byte("Guards against a bug.\n-- tool.json --\n"+tt.tool+"\n"))
		require.NoError(t, err)
		assert.Equal(t, tt.want, c.Definition(), "Definition of tool.json %s", tt.tool)
	}
}

func TestPresent(t *testing.T) {
	const s = "sk-live/42"
	tests := []struct {
		name string
		view string
		want bool
	}{
		{"absent", `{"content":[{"type":"text","text":"1 value withheld"}]}`, false},
		{"raw", `key sk-live/42`, true},
		{"escaped slash", `{"key":"sk-live\/42"}`, true},
		{"unicode escape", `{"key":"sk-live\u002f42"}`, true},
		{"in a member name", `{"sk-live\u002f42":1}`, true},
		{"JSON in a string", `{"text":"{\"key\":\"sk-live\\u002f42\"}"}`, true},
		{"in an array", `[1,["sk-live\u002f42"]]`, true},
		{"split across values", `["sk-live","/42"]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Present(tt.view, s), "Present(%q, %q)", tt.view, s)
		})
	}
}

func TestSetWrite(t *testing.T) {
	file := t.TempDir() + "/c.txtar"
	c, err := Parse(file, []byte("Guards against a bug.\n\n-- tool.json --\n{}\n-- view --\nold\n"))
	require.NoError(t, err)
	c.Set("view", "new\n")
	c.Set("passthrough", "")
	require.NoError(t, c.Write())
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, "Guards against a bug.\n\n-- tool.json --\n{}\n-- view --\nnew\n-- passthrough --\n", string(b))
}
