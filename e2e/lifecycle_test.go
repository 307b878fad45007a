package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inEachMode runs test on a page with the runtime (smoke-*.html), once with
// the engine in a Worker and once on the main thread.
func inEachMode(t *testing.T, test func(t *testing.T, tb *tab)) {
	for _, mode := range engineModes {
		t.Run(mode, func(t *testing.T) {
			tb := openTab(t, plain)
			tb.navigate("smoke-" + mode + ".html")
			test(t, tb)
		})
	}
}

// These tests hold the parts of a call's life that testdata/spec cannot
// compare with Chromium's own WebMCP: what no agent of Chromium's reaches
// (a document made by script) and what Chromium has no notion of (a
// call's sensitivity rules).

// TestScriptMadeDocument: a document made by createHTMLDocument or
// DOMParser has a ModelContext of its own, not the page's, and nothing can
// be registered or run through it. (Chromium 156 stops answering when a
// page reads modelContext of such a document, so this is not a spec case.)
func TestScriptMadeDocument(t *testing.T) {
	t.Parallel() // in a tab of its own
	inEachMode(t, func(t *testing.T, tb *tab) {
		got := eval[map[string]any](tb, `(async () => {
				const made = document.implementation.createHTMLDocument("");
				const parsed = new DOMParser().parseFromString("<p>x</p>", "text/html");
				const mc = made.modelContext;
				const outcome = async (f) => { try { await f(); return "ok"; } catch (e) { return e.name; } };
				return {
					isContext: mc instanceof ModelContext,
					notThePages: mc !== document.modelContext,
					sameObject: mc === made.modelContext,
					perDocument: parsed.modelContext !== mc,
					register: await outcome(() => mc.registerTool({name: "sm.a", description: "d", execute: () => "x"})),
					getTools: await outcome(() => mc.getTools()),
					execute: await outcome(() => mc.executeTool({name: "greet", description: "", window, origin: location.origin}, {name: "x"})),
					unregister: await outcome(() => mc.unregisterTool("greet")),
					provide: await outcome(() => mc.provideContext({tools: [{name: "sm.b", description: "d", execute: () => "x"}]})),
					clear: await outcome(() => mc.clearContext()),
					listed: (await document.modelContext.getTools()).map((t) => t.name),
					navigatorSame: navigator.modelContext === document.modelContext,
				};
			})()`)
		assert.Equal(t, map[string]any{
			"isContext": true, "notThePages": true, "sameObject": true, "perDocument": true,
			"register": "InvalidStateError", "getTools": "InvalidStateError", "execute": "InvalidStateError",
			"unregister": "InvalidStateError", "provide": "InvalidStateError", "clear": "InvalidStateError",
			"listed": []any{"greet"}, "navigatorSame": true,
		}, got)
	})
}

// TestCallKeepsItsRules: a call outlives its tool's unregistration, and
// its output is withheld by the rules of the registration it was decided
// for, not by those of a tool registered under the same name since.
func TestCallKeepsItsRules(t *testing.T) {
	t.Parallel() // in a tab of its own
	const secret = "sk-live-replaced-tool-4f9a0c1e77"
	inEachMode(t, func(t *testing.T, tb *tab) {
		got := eval[map[string]any](tb, `(async () => {
				const mc = document.modelContext;
				let finish;
				const reg = new AbortController();
				await mc.registerTool({name: "kr.key", description: "Issues a key",
					outputSchema: {type: "object", properties: {key: {type: "string", "x-sensitive": true}}},
					execute: () => new Promise((r) => (finish = r))}, {signal: reg.signal});
				const tool = (await mc.getTools()).find((t) => t.name === "kr.key");
				const p = mc.executeTool(tool, {});
				while (!finish) await new Promise((r) => setTimeout(r));
				reg.abort();
				await mc.registerTool({name: "kr.key", description: "Plain now", execute: () => ({key: "plain"})});
				finish({key: `+js(secret)+`});
				const view = await p;
				const items = await veil.items();
				return {view, held: items.some((i) => i.tool === "kr.key"), second: await mc.executeTool(tool, {})};
			})()`)
		view, _ := got["view"].(string)
		require.NotEmpty(t, view)
		assert.NotContains(t, view, secret, "the agent view of the first call")
		assert.Equal(t, true, got["held"], "the value is held for the user")
		assert.Equal(t, `{"key":"plain"}`, got["second"], "a new call runs the new registration")
	})
}

// TestAbortWhileDeciding: a call executeTool returned is a started call,
// as in the draft, where execute runs inside executeTool. The caller's
// abort right after executeTool, while the engine decides, rejects the
// call with its reason, and then, once the engine allowed the call, starts
// execute with a signal that aborts a task later, toolactivated and
// toolcancel firing (Chromium's copy of web-platform-tests'
// executeTool-abort.https.html, "remains rejected even if tool callback
// resolves after abort"). An abort while the page's resolve refines the
// input, or any abort of a call of a tool with resolve while the engine
// decides, blocks the call: execute never starts.
func TestAbortWhileDeciding(t *testing.T) {
	t.Parallel() // in a tab of its own
	inEachMode(t, func(t *testing.T, tb *tab) {
		got := eval[map[string]any](tb, `(async () => {
				const mc = document.modelContext;
				let activated = 0, cancelled = 0, ctl;
				const runs = [];
				const count = (e) => e.toolName.startsWith("ab.") && activated++;
				const countCancel = (e) => e.toolName.startsWith("ab.") && cancelled++;
				window.addEventListener("toolactivated", count);
				window.addEventListener("toolcancel", countCancel);
				const ended = Promise.withResolvers();
				await mc.registerTool({name: "ab.now", description: "d", execute: (input, {signal}) => {
					runs.push("ab.now:" + signal.aborted);
					signal.onabort = () => ended.resolve("aborted:" + signal.reason?.name);
					return "ran";
				}});
				await mc.registerTool({name: "ab.resolving", description: "d", execute: () => (runs.push("ab.resolving"), "ran"),
					resolve: (input) => (ctl.abort("stop while resolving"), input)});
				const results = [];
				for (const [name, abortNow] of [["ab.now", true], ["ab.resolving", false]]) {
					const tool = (await mc.getTools()).find((t) => t.name === name);
					ctl = new AbortController();
					const p = mc.executeTool(tool, {}, {signal: ctl.signal});
					if (abortNow) ctl.abort("stop now");
					results.push(await p.then(() => "resolved", (e) => e));
				}
				const signal = await ended.promise;
				await new Promise((r) => setTimeout(r, 50));
				window.removeEventListener("toolactivated", count);
				window.removeEventListener("toolcancel", countCancel);
				return {results, runs, signal, activated, cancelled};
			})()`)
		assert.Equal(t, map[string]any{
			"results":   []any{"stop now", "stop while resolving"},
			"runs":      []any{"ab.now:false"},
			"signal":    "aborted:AbortError",
			"activated": 1.0, "cancelled": 1.0,
		}, got)
	})
}
