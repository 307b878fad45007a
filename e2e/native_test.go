package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/webmcp"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests pin down what Chromium's own WebMCP does, so that the suite
// notices when a new Chromium changes the behaviour the runtime follows or
// layers on.

// failedExecute is the console error Chromium logs when a tool's execute
// throws or rejects; it carries the thrown message.
const failedExecute = `^WebMCP tool execution failed: `

func TestNativeAPIShape(t *testing.T) {
	tb := openTab(t, native)
	tb.navigate("native.html")
	got := eval[map[string]any](tb, `({
		document: typeof document.modelContext,
		navigator: typeof navigator.modelContext,
		testing: typeof navigator.modelContextTesting,
		getter: typeof Object.getOwnPropertyDescriptor(Document.prototype, "modelContext")?.get,
		eventTarget: document.modelContext instanceof EventTarget,
		same: document.modelContext === document.modelContext,
	})`)
	assert.Equal(t, map[string]any{
		"document":    "object",
		"navigator":   "undefined",
		"testing":     "undefined",
		"getter":      "function",
		"eventTarget": true,
		"same":        true,
	}, got)

	tb = openTab(t, plain)
	tb.navigate("native.html")
	assert.Equal(t, "undefined", eval[string](tb, `typeof document.modelContext`),
		"document.modelContext without --enable-features=WebMCP")
}

func TestNativeRegistrationErrors(t *testing.T) {
	tb := openTab(t, native)
	tb.navigate("native.html")
	require.True(t, eval[settled](tb, `e2e.register({name: "taken", description: "d"}, {returns: "x"})`).OK)

	tests := []struct {
		name     string
		def      string // a JavaScript expression for the tool
		wantName string // "" when the registration succeeds
	}{
		{"duplicate name", `{name: "taken", description: "d"}`, "InvalidStateError"},
		{"empty name", `{name: "", description: "d"}`, "InvalidStateError"},
		{"129-character name", `{name: "n".repeat(129), description: "d"}`, "InvalidStateError"},
		{"128-character name", `{name: "m".repeat(128), description: "d"}`, ""},
		{"space in name", `{name: "a b", description: "d"}`, "InvalidStateError"},
		{"non-ASCII name", `{name: "caf\u00e9", description: "d"}`, "InvalidStateError"},
		{"all allowed characters", `{name: "a.b-c_D9", description: "d"}`, ""},
		{"empty description", `{name: "nodesc", description: ""}`, "InvalidStateError"},
		{"execute not a function", `{name: "noexec", description: "d", execute: "x"}`, "TypeError"},
		{"BigInt in inputSchema", `{name: "big", description: "d", inputSchema: {type: "object", default: 1n}}`, "TypeError"},
		{"cyclic inputSchema", `(() => { const s = {type: "object"}; s.self = s; return {name: "cyclic", description: "d", inputSchema: s}; })()`, "TypeError"},
		{"string inputSchema", `{name: "strschema", description: "d", inputSchema: "{}"}`, "TypeError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := eval[settled](tb, `e2e.register(`+tt.def+`, {returns: "x"})`)
			if tt.wantName == "" {
				assert.True(t, got.OK, "registerTool: got %+v, want success", got.Error)
				return
			}
			require.False(t, got.OK, "registerTool: got success, want %s", tt.wantName)
			assert.Equal(t, tt.wantName, got.Error.Name, "registerTool: error %q", got.Error.Message)
		})
	}

	t.Run("already aborted signal", func(t *testing.T) {
		got := eval[settled](tb, `e2e.settle(() => document.modelContext.registerTool(
			{name: "aborted", description: "d", execute() {}},
			{signal: AbortSignal.abort(new RangeError("the reason"))}))`)
		require.False(t, got.OK)
		assert.Equal(t, jsError{Name: "RangeError", Message: "the reason"}, *got.Error,
			"registerTool rejects with the abort reason")
	})
}

func TestNativeExecuteInput(t *testing.T) {
	tb := openTab(t, native)
	tb.navigate("native.html")
	require.True(t, eval[settled](tb, `e2e.register({name: "echo", description: "d"}, {echo: true})`).OK)

	tests := []struct {
		name     string
		input    string // a JavaScript expression; "" leaves the argument out
		want     string // the resolved string, or the error name
		rejected bool
	}{
		{"object", `{a: 1}`, `{"a":1}`, false},
		{"missing", ``, `{}`, false},
		{"undefined", `undefined`, `{}`, false},
		{"array", `[1, 2]`, `[1,2]`, false},
		{"null", `null`, "TypeError", true},
		{"number", `5`, "TypeError", true},
		{"string", `"x"`, "TypeError", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input, has := tt.input, "true"
			if input == "" {
				input, has = "undefined", "false"
			}
			got := eval[settled](tb, `e2e.execute("document", "echo", `+input+`, `+has+`)`)
			if tt.rejected {
				require.False(t, got.OK, "executeTool: got %s, want %s", got.Value, tt.want)
				assert.Equal(t, tt.want, got.Error.Name)
				return
			}
			assert.Equal(t, tt.want, got.String(t), "executeTool")
		})
	}
	assert.Equal(t, 4, eval[int](tb, `e2e.calls.length`), "calls of execute: rejected inputs must not reach it")
	assert.True(t, eval[bool](tb, `e2e.calls.every(c => c.hasSignal)`), "execute gets {signal}")
}

func TestNativeExecuteResults(t *testing.T) {
	tb := openTab(t, native)
	tb.allowConsole(failedExecute)
	tb.navigate("native.html")

	tests := []struct {
		name      string
		behaviour string
		want      string // the resolved string, or the error name
		rejected  bool
	}{
		{"string", `{returns: "plain text"}`, "plain text", false},
		{"empty string", `{returns: ""}`, "Operation succeeded", false},
		{"object keeps key order and number text", `{returns: {z: 1, a: 1.50, e: 1e21}}`, `{"z":1,"a":1.5,"e":1e+21}`, false},
		{"null", `{returns: null}`, "null", false},
		{"undefined", `{returnsUndefined: true}`, "undefined", false},
		{"throws", `{throws: "secret message"}`, "UnknownError", true},
		{"rejects", `{rejects: "secret message"}`, "UnknownError", true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "result" + string(rune('a'+i))
			require.True(t, eval[settled](tb, `e2e.register({name: `+js(name)+`, description: "d"}, `+tt.behaviour+`)`).OK)
			got := eval[settled](tb, `e2e.execute("document", `+js(name)+`, {})`)
			if tt.rejected {
				require.False(t, got.OK, "executeTool: got %s, want %s", got.Value, tt.want)
				assert.Equal(t, tt.want, got.Error.Name)
				assert.NotContains(t, got.Error.Message, "secret", "the rejection must not carry the thrown message")
				return
			}
			assert.Equal(t, tt.want, got.String(t), "executeTool")
		})
	}
}

func TestNativeEvents(t *testing.T) {
	tb := openTab(t, native)
	tb.navigate("native.html")
	eval[chromedp.Void](tb, `e2e.listen(document.modelContext)`)

	require.True(t, eval[settled](tb, `e2e.register({name: "evented", description: "d"}, {pending: true})`).OK)
	tb.poll(`e2e.events.includes("toolchange")`)

	eval[chromedp.Void](tb, `void e2e.execute("document", "evented", {})`)
	tb.poll(`e2e.events.includes("toolactivated:evented")`)

	eval[chromedp.Void](tb, `e2e.unregister("evented")`)
	tb.poll(`e2e.events.filter(e => e === "toolchange").length === 2`)
	assert.Empty(t, eval[[]any](tb, `e2e.tools()`), "getTools after the registration signal aborted")
}

func TestNativeInvokeToolOverCDP(t *testing.T) {
	tb := openTab(t, native)
	tb.allowConsole(failedExecute)
	tb.navigate("native.html")
	require.True(t, eval[settled](tb, `e2e.register({name: "lookup", description: "d",
		inputSchema: {type: "object", properties: {q: {type: "string"}}},
		annotations: {readOnlyHint: true}}, {echo: true})`).OK)
	require.True(t, eval[settled](tb, `e2e.register({name: "broken", description: "d"}, {throws: "the thrown message"})`).OK)

	tool := tb.nativeTool("lookup")
	assert.JSONEq(t, `{"type":"object","properties":{"q":{"type":"string"}}}`, string(tool.InputSchema))
	require.NotNil(t, tool.Annotations)
	assert.True(t, tool.Annotations.ReadOnly)

	ev := tb.invokeTool("lookup", `{"q":"hi"}`)
	assert.Equal(t, webmcp.InvocationStatusCompleted, ev.Status)
	assert.JSONEq(t, `{"q":"hi"}`, agentText(ev), "the output of WebMCP.invokeTool")
	assert.Equal(t, []any{map[string]any{"q": "hi"}}, eval[[]any](tb, `e2e.calls.map(c => c.input)`),
		"the page's execute got the input")

	ev = tb.invokeTool("broken", `{}`)
	assert.Equal(t, webmcp.InvocationStatusError, ev.Status)
	require.NotNil(t, ev.Exception, "Chromium reports the exception of a failed tool")
	// Chromium hands the thrown error to the protocol client, message and
	// all: the runtime's mirror tools must never throw what a page threw.
	assert.True(t, strings.Contains(ev.Exception.Description, "the thrown message"),
		"exception description: %s", ev.Exception.Description)
}
