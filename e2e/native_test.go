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
	t.Parallel() // in a tab of its own
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
	t.Parallel() // in a tab of its own
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
	t.Parallel() // in a tab of its own
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
	t.Parallel() // in a tab of its own
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
	t.Parallel() // in a tab of its own
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
	t.Parallel() // in a tab of its own
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

// TestNativeRegistry: what the runtime's sweep of the native registry
// relies on. getTools lists each tool as {name, title, description,
// origin, window} (inputSchema too when it has one); a name taken is
// refused with InvalidStateError; there is no unregisterTool, and a
// registration ends only through its AbortSignal, with a toolchange.
func TestNativeRegistry(t *testing.T) {
	t.Parallel() // in a tab of its own
	tb := openTab(t, native)
	tb.navigate("native.html")
	got := eval[map[string]any](tb, `(async () => {
		const mc = document.modelContext;
		let changes = 0;
		mc.addEventListener("toolchange", () => changes++);
		const c = new AbortController();
		await mc.registerTool({name: "t", description: "d", execute: () => "x"}, {signal: c.signal});
		const [tool] = await mc.getTools();
		let duplicate = "registered";
		try {
			await mc.registerTool({name: "t", description: "d", execute: () => "y"});
		} catch (e) {
			duplicate = e.name;
		}
		c.abort();
		await new Promise((r) => setTimeout(r, 50));
		return {
			keys: Object.keys(tool).sort(), window: tool.window === window, origin: tool.origin === location.origin,
			duplicate, unregisterTool: typeof mc.unregisterTool, after: (await mc.getTools()).length, changes,
		};
	})()`)
	assert.Equal(t, map[string]any{
		"keys": []any{"description", "name", "origin", "title", "window"}, "window": true, "origin": true,
		"duplicate": "InvalidStateError", "unregisterTool": "undefined", "after": 0.0, "changes": 2.0,
	}, got)
}

// TestNativeDeclarative: where Chromium registers a <form toolname> by
// itself, which the runtime must see first or count as foreign. Not at
// once: a task later, so that a toolname moved in a microtask is never
// registered; one whose toolname is removed is unregistered. Forms in
// declarative shadow roots, open or closed (setHTMLUnsafe and the
// parser), are registered; innerHTML makes no declarative root, and a
// template's content and a document parseHTMLUnsafe made are inert until
// adopted. A same-origin frame's form (srcdoc, about:blank written by
// script) is listed by the top document's getTools, with the frame's
// window, and toolchange fires there; a sandboxed frame's is not.
func TestNativeDeclarative(t *testing.T) {
	t.Parallel() // in a tab of its own
	tb := openTab(t, native)
	tb.navigate("native.html")
	form := func(name string) string {
		return `<form toolname="` + name + `" tooldescription="d"><input name="x"></form>`
	}
	got := eval[map[string]any](tb, `(async () => {
		const mc = document.modelContext;
		const names = async () => (await mc.getTools()).map((t) => t.name + (t.window === window ? "" : "@frame")).sort();
		const task = () => new Promise((r) => setTimeout(r, 50));
		const out = {};
		let changes = 0;
		mc.addEventListener("toolchange", () => changes++);
		document.body.insertAdjacentHTML("beforeend", `+js(form("light"))+`);
		out.atOnce = await names();
		await task();
		out.aTaskLater = await names();
		document.querySelector("form").removeAttribute("toolname");
		document.body.insertAdjacentHTML("beforeend", `+js(form("moved"))+`);
		await Promise.resolve();
		document.querySelector("form[toolname=moved]").removeAttribute("toolname");
		await task();
		out.removedAndMoved = await names();
		const host = document.body.appendChild(document.createElement("div"));
		host.setHTMLUnsafe(`+js(`<div><template shadowrootmode="open">`+form("open")+`</template></div><div><template shadowrootmode="closed">`+form("closed")+`</template></div>`)+`);
		const inner = document.body.appendChild(document.createElement("div"));
		inner.innerHTML = `+js(`<div><template shadowrootmode="open">`+form("inner")+`</template></div>`)+`;
		out.innerHTMLRoot = inner.firstChild.shadowRoot !== null;
		const tpl = document.body.appendChild(document.createElement("template"));
		tpl.innerHTML = `+js(form("template"))+`;
		const parsed = Document.parseHTMLUnsafe(`+js(`<div id="p"><template shadowrootmode="open">`+form("parsed")+`</template></div>`)+`);
		await task();
		out.shadows = await names();
		document.body.append(parsed.getElementById("p"));
		await task();
		out.adopted = (await names()).includes("parsed");
		const frame = (set) => new Promise((r) => {
			const f = document.createElement("iframe");
			f.onload = r;
			set(f);
			document.body.append(f);
		});
		changes = 0;
		await frame((f) => (f.srcdoc = `+js(form("srcdoc"))+`));
		await frame((f) => (f.sandbox = "allow-forms", f.srcdoc = `+js(form("sandboxed"))+`));
		const blank = document.body.appendChild(document.createElement("iframe"));
		blank.contentDocument.body.innerHTML = `+js(form("blank"))+`;
		for (let i = 0; i < 40 && (await names()).filter((n) => n.endsWith("@frame")).length < 2; i++) await task();
		await task();
		out.frames = (await names()).filter((n) => n.endsWith("@frame"));
		out.frameChanges = changes > 0;
		return out;
	})()`)
	assert.Equal(t, map[string]any{
		"atOnce":          []any{},
		"aTaskLater":      []any{"light"},
		"removedAndMoved": []any{},
		"innerHTMLRoot":   false,
		"shadows":         []any{"closed", "open"},
		"adopted":         true,
		"frames":          []any{"blank@frame", "srcdoc@frame"},
		"frameChanges":    true,
	}, got)
}
