package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/bound"
)

// formSecret is what the make_api_key form answers with, at a location
// its tooloutputschema marks x-sensitive. It must never reach an agent.
const formSecret = "sk-form-9c1e5b2d4680"

// engineModes are where the engine runs: in a Worker and on the main thread.
var engineModes = []string{"worker", "main"}

// pagePaths are the agent paths of the runtime itself, by veil.paths' names.
var pagePaths = []string{"document.modelContext.executeTool", "navigator.modelContext.executeTool", "navigator.modelContextTesting.executeTool"}

// openForms opens the declarative-tool page (testdata/forms) with the engine
// in mode, and waits until its forms are tools.
func openForms(t *testing.T, b *browser, mode string) *tab {
	t.Helper()
	tb := openTab(t, b)
	tb.navigate("forms/forms.html?mode=" + mode)
	require.Equal(t, mode, eval[string](tb, `veil.ready.then(() => veil.mode)`))
	for _, name := range []string{"book_table", "contact_us", "make_api_key"} {
		eval[map[string]any](tb, `forms.tool(`+js(name)+`)`)
	}
	return tb
}

// formOutcome is what forms.settle reports.
type formOutcome struct {
	OK    bool   `json:"ok"`
	Value any    `json:"value"`
	Error string `json:"error"`
}

// callForm executes a form tool through an agent path and waits for the outcome.
func callForm(tb *tab, path, name, input string) formOutcome {
	tb.t.Helper()
	return eval[formOutcome](tb, fmt.Sprintf(`forms.call(%s, %s, %s)`, js(path), js(name), input))
}

// startForm starts a call that waits for the user; forms.pending settles with it.
func startForm(tb *tab, path, name, input string) {
	tb.t.Helper()
	eval[bool](tb, fmt.Sprintf(`(forms.call(%s, %s, %s), true)`, js(path), js(name), input))
}

const bookInput = `{"guest":"Ada","size":4,"terrace":true,"time":"late","menu":"veg","extras":["wine","flowers"],"note":"window seat"}`

// TestFormsSchema: a form's tool is listed on every path that lists tools,
// with the input schema its controls make (hidden, disabled and unnamed
// controls left out), its description, and the sensitivity it declares;
// the form keeps no toolname the browser could register.
func TestFormsSchema(t *testing.T) {
	t.Parallel() // in a tab of its own
	const want = `{"type":"object","properties":{
		"guest":{"type":"string","title":"Guest","description":"Who the table is for"},
		"size":{"type":"number","minimum":1,"maximum":12,"multipleOf":1,"description":"Party size"},
		"day":{"type":"string","pattern":"^[0-9]{4}-[0-9]{2}-[0-9]{2}$","format":"date"},
		"terrace":{"type":"boolean","description":"Terrace"},
		"time":{"type":"string","anyOf":[{"type":"string","const":"early"},{"type":"string","const":"late"}],"enum":["early","late"]},
		"menu":{"type":"string","anyOf":[{"type":"string","const":"std","title":"Standard"},{"type":"string","const":"veg","title":"Vegetarian"}],"enum":["std","veg"]},
		"extras":{"type":"array","uniqueItems":true,"items":{"type":"string",
			"anyOf":[{"type":"string","const":"wine","title":"Wine"},{"type":"string","const":"cake","title":"Cake"},{"type":"string","const":"flowers","title":"Flowers"}],
			"enum":["wine","cake","flowers"]}},
		"note":{"type":"string"}},
		"required":["guest","time"],"additionalProperties":false}`
	for _, mode := range engineModes {
		t.Run(mode, func(t *testing.T) {
			tb := openForms(t, plain, mode)
			book := eval[map[string]any](tb, `forms.tool("book_table")`)
			assert.Equal(t, "Books a table", book["description"])
			got, err := json.Marshal(book["inputSchema"])
			require.NoError(t, err)
			assert.JSONEq(t, want, string(got), "getTools inputSchema")

			listed := eval[map[string]string](tb, `Object.fromEntries(navigator.modelContextTesting.listTools().map((t) => [t.name, t.inputSchema]))`)
			assert.JSONEq(t, want, listed["book_table"], "listTools inputSchema")
			assert.Contains(t, listed, "make_api_key")

			key := eval[map[string]any](tb, `forms.tool("make_api_key")`)
			assert.Equal(t, map[string]any{"sensitiveHint": true}, key["annotations"], "toolsensitive")
			assert.NotNil(t, key["outputSchema"], "tooloutputschema")

			assert.Zero(t, eval[int](tb, `document.querySelectorAll("form[toolname]").length`), "no form keeps its toolname")
			assert.Equal(t, "book_table", eval[string](tb, `document.querySelector("#book").dataset.veilToolname`))
		})
	}
}

// TestFormsExecute: a call fills the controls it names, each with input
// then change, in tree order, then submits the form (toolautosubmit) with
// an agentInvoked submit event while the form shows itself active; the
// agent gets what respondWith was given. The same arguments again change
// nothing, so no control fires.
func TestFormsExecute(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, mode := range engineModes {
		t.Run(mode, func(t *testing.T) {
			tb := openForms(t, plain, mode)
			for i, path := range pagePaths {
				eval[int](tb, `forms.log.length = 0`)
				got := callForm(tb, path, "book_table", bookInput)
				require.True(t, got.OK, "%s: %+v", path, got)
				assert.Equal(t, "booked Ada x4 late wine+flowers", got.Value, path)
				log := eval[[]string](tb, `forms.log`)
				submit := "submit:book:agent=true:trusted=true:active=true"
				if i == 0 {
					assert.Equal(t, []string{"input:guest", "change:guest", "input:size", "change:size", "input:terrace", "change:terrace",
						"input:time", "change:time", "input:menu", "change:menu", "input:extras", "change:extras", "input:note", "change:note", submit}, log, path)
				} else {
					assert.Equal(t, []string{submit}, log, "%s: the same arguments again fire nothing", path)
				}
				assert.False(t, eval[bool](tb, `!!document.querySelector("[data-veil-tool-form-active],[data-veil-tool-submit-active]")`), "%s: active after the call", path)
			}
			// A submission that is not an agent's says so, and takes no response.
			assert.Equal(t, map[string]any{"agent": false, "error": "InvalidStateError"}, eval[map[string]any](tb, `new Promise((resolve) => {
				const form = document.querySelector("#contact");
				form.addEventListener("submit", (e) => {
					e.preventDefault();
					let error = "";
					try { e.respondWith(Promise.resolve("x")); } catch (x) { error = x.name; }
					resolve({agent: e.agentInvoked, error});
				}, {once: true});
				form.requestSubmit();
			})`))
		})
	}
}

// TestFormsManualSubmit: without toolautosubmit the call fills the form,
// marks it and its submit button active, focuses the button and waits; the
// user's submission answers it, with respondWith's value, or with null
// when the form went ahead with its own submission.
func TestFormsManualSubmit(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, mode := range engineModes {
		t.Run(mode, func(t *testing.T) {
			tb := openForms(t, plain, mode)
			const path = "document.modelContext.executeTool"
			for _, c := range []struct {
				name, respond string
				want          any
			}{
				{"respondWith", `{respond: (f) => "sent " + f.message.value}`, "sent hello"},
				{"its own submission", `undefined`, "null"},
			} {
				eval[bool](tb, `(forms.answer.contact = `+c.respond+`, true)`)
				startForm(tb, path, "contact_us", `{"message":"hello"}`)
				tb.poll(`document.querySelector("#contact").hasAttribute("data-veil-tool-form-active")`)
				state := eval[map[string]any](tb, `({button: document.querySelector("#send").hasAttribute("data-veil-tool-submit-active"),
					focused: document.activeElement?.id, message: document.querySelector("#contact").message.value, done: forms.done})`)
				assert.Equal(t, map[string]any{"button": true, "focused": "send", "message": "hello", "done": false}, state, c.name)
				require.NoError(t, chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS("#send"), chromedp.NodeVisible)), "clicking Send")
				got := eval[formOutcome](tb, `forms.pending`)
				require.True(t, got.OK, "%s: %+v", c.name, got)
				assert.Equal(t, c.want, got.Value, c.name)
				assert.False(t, eval[bool](tb, `!!document.querySelector("[data-veil-tool-form-active],[data-veil-tool-submit-active]")`), c.name)
			}
			assert.Contains(t, eval[[]string](tb, `forms.log`), "submit:contact:agent=true:trusted=true:active=true")
			tb.poll(`frames.sink.location.pathname === "/forms/sink.html"`)
		})
	}
}

// TestFormsSensitive: a form that declares toolsensitive and a
// tooloutputschema with x-sensitive answers with a secret; on every agent
// path, also Chromium's own, the agent gets the rest and never the secret.
func TestFormsSensitive(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, b := range []struct {
		name string
		b    func() *browser
	}{{"plain", func() *browser { return plain }}, {"native", func() *browser { return native }}} {
		for _, mode := range engineModes {
			t.Run(b.name+"/"+mode, func(t *testing.T) {
				tb := openForms(t, b.b(), mode)
				tb.allowConsole(failedExecute)
				paths := eval[[]string](tb, `veil.paths.map((p) => p.name)`)
				for _, path := range paths {
					got := callForm(tb, path, "make_api_key", `{"label":"ci"}`)
					require.True(t, got.OK, "%s: %+v", path, got)
					view := fmt.Sprint(got.Value)
					assertWithheld(t, view, formSecret, path)
					assert.Contains(t, view, "ada", path)
					assert.Contains(t, view, "/apiKey", "%s: the view names what was withheld", path)
				}
				if b.name == "native" {
					view := agentText(tb.invokeTool("make_api_key", `{"label":"ci"}`))
					assertWithheld(t, view, formSecret, "WebMCP.invokeTool")
					assert.Contains(t, view, "ada", "WebMCP.invokeTool")
				}
				assertWithheld(t, strings.Join(tb.consoleTexts(), "\n"), formSecret, "the console")
			})
		}
	}
}

// TestFormsRefused: a form whose tool the engine refuses, with
// registerTool's errors, or whose tooloutputschema is not JSON, is not
// registered at all; the page hears of it (formtoolerror), and the console
// says only that it happened. Fixed, it registers.
func TestFormsRefused(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, mode := range engineModes {
		t.Run(mode, func(t *testing.T) {
			tb := openForms(t, plain, mode)
			eval[bool](tb, `forms.add(`+js(`
				<form id="bad1" toolname="bad_json" tooldescription="d" tooloutputschema="{not json"><input name="a"></form>
				<form id="bad2" toolname="bad_flag" tooldescription="d" toolsensitive tooloutputschema='{"type":"object","properties":{"k":{"type":"string","x-sensitive":"yes"}}}'><input name="a"></form>
				<form id="bad3" toolname="no_description"><input name="a"></form>
				<form id="bad4" toolname="book_table" tooldescription="A second book_table"><input name="a"></form>
				<form id="bad5" toolname="bad name!" tooldescription="d"><input name="a"></form>`)+`)`)
			tb.poll(`forms.refused.length >= 5`)
			assert.ElementsMatch(t, []map[string]string{
				{"name": "bad_json", "error": "TypeError"},
				{"name": "bad_flag", "error": "TypeError"},
				{"name": "no_description", "error": "InvalidStateError"},
				{"name": "book_table", "error": "InvalidStateError"},
				{"name": "bad name!", "error": "InvalidStateError"},
			}, eval[[]map[string]string](tb, `forms.refused`))
			names := eval[[]string](tb, `document.modelContext.getTools().then((l) => l.map((t) => t.name))`)
			assert.ElementsMatch(t, []string{"book_table", "contact_us", "make_api_key"}, names, "nothing of the refused forms is registered")
			assert.Equal(t, "Books a table", eval[string](tb, `forms.tool("book_table").then((t) => t.description)`), "the first book_table stays")
			for _, text := range tb.consoleTexts() {
				for _, name := range []string{"bad_json", "bad_flag", "no_description", "bad name", "second"} {
					assert.NotContains(t, text, name, "the console names a refused form's tool")
				}
			}

			eval[bool](tb, `(document.querySelector("#bad1").setAttribute("tooloutputschema", '{"type":"object"}'), true)`)
			fixed := eval[map[string]any](tb, `forms.tool("bad_json")`)
			assert.Equal(t, map[string]any{"type": "object"}, fixed["outputSchema"], "registered once fixed")
		})
	}
}

// TestFormsRemovedMidCall: a form removed after its submission (from its
// own submit listener, after respondWith) still answers its call, as the
// draft keeps in-flight calls past unregistration; one removed while its
// call waits for the user ends that call with an error. Either way its
// tool is unregistered.
func TestFormsRemovedMidCall(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, mode := range engineModes {
		t.Run(mode, func(t *testing.T) {
			tb := openForms(t, plain, mode)
			tb.allowConsole(failedExecute)
			const path = "document.modelContext.executeTool"
			eval[bool](tb, `forms.add('<form id="gone1" toolname="gone_submit" tooldescription="d" toolautosubmit><input name="a"></form>')`)
			eval[map[string]any](tb, `forms.tool("gone_submit")`)
			eval[bool](tb, `(forms.answer.gone1 = {remove: true, respond: "late"}, true)`)
			got := callForm(tb, path, "gone_submit", `{"a":"x"}`)
			assert.Equal(t, formOutcome{OK: true, Value: "late"}, got, "removed during its submission")
			assert.True(t, eval[bool](tb, `forms.gone("gone_submit")`))

			eval[bool](tb, `forms.add('<form id="gone2" toolname="gone_wait" tooldescription="d"><input name="a"><button>Go</button></form>')`)
			eval[map[string]any](tb, `forms.tool("gone_wait")`)
			startForm(tb, path, "gone_wait", `{"a":"x"}`)
			tb.poll(`document.querySelector("#gone2")?.hasAttribute("data-veil-tool-form-active")`)
			eval[bool](tb, `(document.querySelector("#gone2").remove(), true)`)
			assert.Equal(t, formOutcome{Error: "UnknownError"}, eval[formOutcome](tb, `forms.pending`), "removed while waiting")
			assert.True(t, eval[bool](tb, `forms.gone("gone_wait")`))
		})
	}
}

// TestFormsAbort: aborting a call that waits for the user rejects it with
// AbortError; by the one toolcancel the form and its button are no longer
// active, the filled values stay (as in Chromium), and the tool stays.
func TestFormsAbort(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, mode := range engineModes {
		t.Run(mode, func(t *testing.T) {
			tb := openForms(t, plain, mode)
			eval[bool](tb, `(document.modelContext.addEventListener("toolcancel", (e) => forms.log.push("toolcancel:" + e.toolName +
				":active=" + !!document.querySelector("[data-veil-tool-form-active],[data-veil-tool-submit-active]"))), true)`)
			eval[bool](tb, `(window.ctl = new AbortController(), forms.call("signal", "contact_us", {message: "draft"}, ctl.signal), true)`)
			tb.poll(`document.querySelector("#contact").hasAttribute("data-veil-tool-form-active")`)
			eval[bool](tb, `(ctl.abort(), true)`)
			assert.Equal(t, formOutcome{Error: "AbortError"}, eval[formOutcome](tb, `forms.pending`))
			tb.poll(`forms.log.some((l) => l.startsWith("toolcancel:"))`)
			assert.Equal(t, []string{"toolcancel:contact_us:active=false"}, eval[[]string](tb, `forms.log.filter((l) => l.startsWith("toolcancel:"))`))
			assert.Equal(t, "draft", eval[string](tb, `document.querySelector("#contact").message.value`))
			assert.Equal(t, "contact_us", eval[string](tb, `forms.tool("contact_us").then((t) => t.name)`))
		})
	}
}

// TestFormsNative: with Chromium's own WebMCP on, a form's tool is in the
// native registry only as the runtime's mirror: the DevTools protocol's
// invokeTool runs it through the engine (the decision log has the call),
// and the browser's own declarative tool never exists.
func TestFormsNative(t *testing.T) {
	t.Parallel() // in a tab of its own
	tb := openTab(t, native)
	reg := tb.followNative()
	tb.navigate("forms/forms.html")
	eval[map[string]any](tb, `forms.tool("book_table")`)
	require.Eventually(t, func() bool { return reg.has("book_table") }, bound.Of(10*time.Second), 20*time.Millisecond, "the mirror is in the native registry")
	before := eval[int](tb, `veil.decisions().then((d) => d.filter((e) => e.tool === "book_table").length)`)
	assert.Equal(t, "booked Ada x4 late wine+flowers", agentText(tb.invokeTool("book_table", bookInput)))
	after := eval[int](tb, `veil.decisions().then((d) => d.filter((e) => e.tool === "book_table").length)`)
	assert.Greater(t, after, before, "the call went through the engine")
	assert.Zero(t, eval[int](tb, `document.querySelectorAll("form[toolname]").length`))
}

// TestFormsMarkupName: a data-veil-toolname that arrives in markup (as
// sanitized user content keeps it, where it would strip toolname) makes
// nothing a tool; a form the runtime named keeps its tool when it is
// moved in the document.
func TestFormsMarkupName(t *testing.T) {
	t.Parallel() // in a tab of its own
	tb := openForms(t, plain, "worker")
	eval[bool](tb, `forms.add('<form id="planted" data-veil-toolname="planted_tool" tooldescription="d"><input name="to"><button>Go</button></form>')`)
	eval[bool](tb, `forms.add('<form id="named" toolname="named_tool" tooldescription="d"><input name="to"><button>Go</button></form>')`)
	eval[map[string]any](tb, `forms.tool("named_tool")`)
	eval[bool](tb, `(document.body.append(document.querySelector("#named")), true)`)
	// The named form's tool is listed after the move; the planted one,
	// seen in the same mutation records as the named one, never was.
	eval[map[string]any](tb, `forms.tool("named_tool")`)
	names := eval[[]string](tb, `document.modelContext.getTools().then((ts) => ts.map((t) => t.name))`)
	assert.Contains(t, names, "named_tool")
	assert.NotContains(t, names, "planted_tool", "a data-veil-toolname from markup")
	assert.NotContains(t, eval[[]string](tb, `navigator.modelContextTesting.listTools().map((t) => t.name)`), "planted_tool")
}
