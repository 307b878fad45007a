package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// frameSecurityRuns are the runtime's runs with a child the parent may
// call: same-origin in Chromium as shipped, with the engine in a worker
// and on the main thread, and cross-origin (allowed by the iframe's
// "tools" policy, exposed to the parent) in front of Chromium's own WebMCP
// and in Chromium as shipped, whose policy the parent's Veil reads.
var frameSecurityRuns = []struct {
	run   frameRun
	cross bool
}{
	{runWorker, false},
	{runMain, false},
	{runLayered, true},
	{frameRun{"worker cross-origin", runWorker.b, runWorker.mode, true}, true},
}

// openCallable opens a parent and a child whose tools the parent may
// call, and returns the frames and the options the parent's getTools
// needs to list them.
func openCallable(t *testing.T, run frameRun, cross bool) (*frames, string) {
	t.Helper()
	if !cross {
		return openFrames(t, run, server.URL, ""), `{}`
	}
	f := openFrames(t, run, crossOrigin(t), "tools *")
	return f, `{fromOrigins: [` + js(f.child) + `]}`
}

// registerInChild registers a tool in the child from a JavaScript
// expression for it, exposed to the parent's origin.
func registerInChild(t *testing.T, f *frames, tool string) {
	t.Helper()
	got := f.inChild(`await fx.register(` + tool + `, {exposedTo: [` + js(f.parent) + `]})`)
	require.Nil(t, got.Error, "registering in the child")
}

// The values the child's sensitive tool returns, none of which may reach
// the parent.
const (
	frameSecret = "tok-frame-5c1f8e2a9d"
	frameRefID  = "ref-frame-93b7d1"
)

// TestFramesSensitive: the parent runs a child's tool whose output has an
// x-sensitive value and a secret_reference. The child's engine makes the
// agent view, so the parent receives exactly what an agent of the child
// would, and nothing else: the withheld value and the reference's id and
// redeemUrl are nowhere in the parent, not in the raw message traffic it
// received, its console, getTools or its own vault; they are in the
// child's, which the user reveals there.
func TestFramesSensitive(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, r := range frameSecurityRuns {
		t.Run(r.run.name, func(t *testing.T) {
			t.Parallel() // a tab of its own
			f, from := openCallable(t, r.run, r.cross)
			registerInChild(t, f, `{name: "c_key", description: "Makes an API key",
				outputSchema: {type: "object", properties: {id: {type: "string"}, token: {type: "string", "x-sensitive": true}}},
				execute: () => ({id: "key_1", token: `+js(frameSecret)+`,
					key: {type: "secret_reference", id: `+js(frameRefID)+`, label: "API key", redeemUrl: "/redeem/`+frameRefID+`", ttl: 600}})}`)

			view := f.inParent(`const t = (await document.modelContext.getTools(` + from + `)).find((t) => t.name === "c_key");
				return document.modelContext.executeTool(t, {})`).String(t)
			local := f.inChild(`const t = (await document.modelContext.getTools()).find((t) => t.name === "c_key");
				return document.modelContext.executeTool(t, {})`).String(t)
			assert.Equal(t, local, view, "the parent receives what an agent of the child receives")
			var result struct {
				StructuredContent map[string]any `json:"structuredContent"`
				Meta              struct {
					Withheld struct {
						Withheld   []string `json:"withheld"`
						References int      `json:"references"`
					} `json:"dev.veil/withheld"`
				} `json:"_meta"`
			}
			require.NoError(t, json.Unmarshal([]byte(view), &result), "the view is a CallToolResult: %s", view)
			assert.Equal(t, []string{"/token"}, result.Meta.Withheld.Withheld)
			assert.Equal(t, 1, result.Meta.Withheld.References)
			assert.Equal(t, map[string]any{"id": "key_1", "key": map[string]any{"type": "secret_reference", "label": "API key", "ttl": float64(600)}}, result.StructuredContent)

			parent := map[string]string{
				"the view":           view,
				"the raw traffic":    strings.Join(value[[]string](t, f.inParent(`return fx.traffic`), "the parent's traffic"), "\n"),
				"getTools":           string(f.inParent(`return JSON.stringify(await fx.names(` + from + `)) + JSON.stringify((await document.modelContext.getTools(` + from + `)).map(({window, ...t}) => t))`).Value),
				"the console":        strings.Join(f.consoleTexts(), "\n"),
				"the parent's items": string(f.inParent(`return veil.items()`).Value),
			}
			require.NotEmpty(t, parent["the raw traffic"], "the parent recorded no traffic")
			for what, text := range parent {
				for _, secret := range []string{frameSecret, frameRefID} {
					assertWithheld(t, text, secret, "the parent's "+what)
				}
			}
			assert.JSONEq(t, `[]`, parent["the parent's items"], "nothing is held in the parent")

			items := value[[]map[string]any](t, f.inChild(`return veil.items()`), "the child's items")
			var pointers []string
			for _, i := range items {
				pointers = append(pointers, i["kind"].(string)+" "+i["pointer"].(string))
			}
			assert.ElementsMatch(t, []string{"value /token", "reference /key", "value /token", "reference /key"}, pointers,
				"the child holds each call's withheld value and reference")

			// The user reveals the value in the child, with a trusted click.
			require.Nil(t, f.inChild(`window.revealedP = new Promise((r) => (window.onRevealed = r))`).Error)
			at := value[map[string]float64](t, f.inParent(`const r = fx.children[0].frame.getBoundingClientRect();
				const b = (await fx.in(0, 'const b = document.getElementById("reveal").getBoundingClientRect(); return {x: b.x + b.width / 2, y: b.y + b.height / 2}')).value;
				return {x: r.x + b.x, y: r.y + b.y}`), "where the child's button is")
			require.NoError(t, chromedp.Do(f.ctx, chromedp.MouseClickXY(at["x"], at["y"])), "clicking Reveal in the child")
			assert.Equal(t, map[string]any{"ok": true, "value": frameSecret}, value[map[string]any](t, f.inChild(`return window.revealedP`), "the reveal in the child"))
		})
	}
}

// TestFramesAbort: aborting the caller's signal rejects the parent's call
// at once with its reason, and aborts the call in the child: execute's
// signal aborts there and toolcancel fires there.
func TestFramesAbort(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, r := range frameSecurityRuns {
		t.Run(r.run.name, func(t *testing.T) {
			t.Parallel() // a tab of its own
			f, from := openCallable(t, r.run, r.cross)
			registerInChild(t, f, `{name: "c_slow", description: "Waits", execute: (input, {signal}) => new Promise((resolve) => {
				window.started = true;
				signal.addEventListener("abort", () => { window.aborted = true; resolve("too late"); });
			})}`)
			got := value[string](t, f.inParent(`const t = (await document.modelContext.getTools(`+from+`)).find((t) => t.name === "c_slow");
				const ac = new AbortController();
				const p = document.modelContext.executeTool(t, {}, {signal: ac.signal});
				if (!await fx.until(async () => (await fx.in(0, "return window.started === true")).value)) throw new Error("execute never started in the child");
				ac.abort(new DOMException("the agent gave up", "AbortError"));
				try {
					return "resolved: " + await p;
				} catch (e) {
					return e.name + ": " + e.message;
				}`), "the parent's call")
			assert.Equal(t, "AbortError: the agent gave up", got)
			assert.Equal(t, true, value[bool](t, f.inChild(`return fx.until(() => window.aborted)`), "execute's signal aborted in the child"))
			assert.Equal(t, true, value[bool](t, f.inChild(`return fx.until(() => e2e.events.includes("toolcancel:c_slow"))`), "toolcancel in the child"))
		})
	}
}

// TestFramesRemovedMidCall: a call into a frame that is removed, or
// navigates away, before it answers rejects with UnknownError, rather
// than waiting for ever.
func TestFramesRemovedMidCall(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, r := range frameSecurityRuns {
		for _, gone := range []struct{ how, script string }{
			{"removed", `fx.children[0].frame.remove()`},
			{"navigated", `fx.children[0].frame.src = "about:blank"`},
		} {
			t.Run(r.run.name+"/"+gone.how, func(t *testing.T) {
				t.Parallel() // a tab of its own
				f, from := openCallable(t, r.run, r.cross)
				registerInChild(t, f, `{name: "c_never", description: "Never answers", execute: () => ((window.started = true), new Promise(() => {}))}`)
				got := value[string](t, f.inParent(`const t = (await document.modelContext.getTools(`+from+`)).find((t) => t.name === "c_never");
					const p = document.modelContext.executeTool(t, {});
					if (!await fx.until(async () => (await fx.in(0, "return window.started === true")).value)) throw new Error("execute never started in the child");
					`+gone.script+`;
					try {
						return "resolved: " + await p;
					} catch (e) {
						return e.name;
					}`), "the parent's call")
				assert.Equal(t, "UnknownError", got)
			})
		}
	}
}

// slowChildHold is how long the test server holds /frames-slow.js: what
// the test waits for on purpose (a frame's Veil on its way), not a bound.
const slowChildHold = 300 * time.Millisecond

var slowChildOnce sync.Once

// slowChildServe adds /frames-slow.html to the test server, once: the
// frames page (handleFrames) whose head first waits for /frames-slow.js,
// which the server holds for slowChildHold. For that long the child's
// document is there and runs no Veil yet, as a frame's document does
// while its Veil's script is on its way, and the parent's form guard,
// which looks at a loading frame every 50 ms, takes it for a frame
// without Veil.
func slowChildServe(t testing.TB) {
	t.Helper()
	mux, ok := server.Config.Handler.(*http.ServeMux)
	require.True(t, ok, "the test server's handler is a ServeMux")
	slowChildOnce.Do(func() {
		mux.HandleFunc("/frames-slow.html", func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			handleFrames(rec, r)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(bytes.Replace(rec.Body.Bytes(), []byte("<head>"), []byte(`<head><script src="/frames-slow.js"></script>`), 1))
		})
		mux.HandleFunc("/frames-slow.js", func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(slowChildHold)
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		})
	})
}

// TestFramesFormRemovedMidCall: the parent makes a form tool in the
// document of a same-origin child whose Veil came after the parent had
// seen the document (slowChildServe), and listens for its submission,
// as web-platform-tests' declarative unregister-during-executeTool.https.html
// does. The form is the child's tool: the parent's form guard leaves a
// document whose own Veil runs to it. The parent calls it, the submit
// event is answered with respondWith and a promise that never settles,
// and the child's frame is removed, or navigates away: the parent's call
// rejects with UnknownError, rather than waiting for ever.
func TestFramesFormRemovedMidCall(t *testing.T) {
	t.Parallel() // in a tab of its own
	slowChildServe(t)
	for _, r := range []frameRun{runWorker, runMain, runLayered} {
		for _, gone := range []struct{ how, script string }{
			{"removed", `fx.children[0].frame.remove()`},
			{"navigated", `fx.children[0].frame.src = "about:blank"`},
		} {
			t.Run(r.name+"/"+gone.how, func(t *testing.T) {
				t.Parallel() // a tab of its own
				tb := openTab(t, r.b())
				tb.navigate(r.page())
				require.Equal(t, 0, eval[int](tb, `fx.open(`+js(server.URL+"/frames-slow.html?mode="+r.mode)+`, null)`), "the child's index")
				f := &frames{tab: tb, parent: server.URL, child: server.URL}
				got := value[string](t, f.inParent(`const d = fx.children[0].frame.contentDocument;
					const form = d.createElement("form");
					form.setAttribute("toolname", "c_form_never");
					form.setAttribute("tooldescription", "Answers never");
					form.setAttribute("toolautosubmit", "");
					let submitted = false;
					form.addEventListener("submit", (e) => {
						e.preventDefault();
						e.respondWith(new Promise(() => {}));
						submitted = true;
					});
					d.body.append(form);
					let t;
					if (!await fx.until(async () => (t = (await document.modelContext.getTools()).find((t) => t.name === "c_form_never"))))
						return "not listed: the form's toolname is " + JSON.stringify(form.getAttribute("toolname"));
					const p = document.modelContext.executeTool(t, {});
					if (!await fx.until(() => submitted)) return "not submitted";
					`+gone.script+`;
					try {
						return "resolved: " + await p;
					} catch (e) {
						return e.name;
					}`), "the parent's call")
				assert.Equal(t, "UnknownError", got)
			})
		}
	}
}

// TestFramesForgedReply: page code in the caller's frame cannot answer a
// call in the other frame's place: answers come only on the call's own
// MessagePort, so forged ones posted to either window, and a MessageEvent
// made by script, are ignored.
func TestFramesForgedReply(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, r := range frameSecurityRuns {
		t.Run(r.run.name, func(t *testing.T) {
			t.Parallel() // a tab of its own
			f, from := openCallable(t, r.run, r.cross)
			registerInChild(t, f, `{name: "c_real", description: "Answers when released", execute: () => new Promise((resolve) => (window.release = resolve))}`)
			got := value[string](t, f.inParent(`const t = (await document.modelContext.getTools(`+from+`)).find((t) => t.name === "c_real");
				const p = document.modelContext.executeTool(t, {});
				if (!await fx.until(async () => (await fx.in(0, "return typeof window.release === 'function'")).value)) throw new Error("execute never started in the child");
				const child = fx.children[0].frame.contentWindow;
				for (const type of ["accepted", "result"]) {
					const forged = {"dev.veil/frames": 1, type, value: "forged", tools: [{name: "forged", description: "d"}]};
					postMessage(forged, location.origin);
					child.postMessage(forged, fx.children[0].origin);
					dispatchEvent(new MessageEvent("message", {data: forged, origin: fx.children[0].origin, source: child}));
				}
				await fx.in(0, 'window.release("the real answer")');
				return p`), "the parent's call")
			assert.Equal(t, "the real answer", got)
		})
	}
}

// TestFramesForgedRequest: requests that do not come from a frame the
// tool is exposed to get no answer at all (not even an error) and run
// nothing: a request a cross-origin child crafts by hand for a tool the
// parent does not expose to it, and a MessageEvent made by script that
// names the parent's own origin. The same crafted request for a tool the
// parent does expose is answered, so the crafting is sound.
func TestFramesForgedRequest(t *testing.T) {
	t.Parallel() // in a tab of its own
	f := openFrames(t, runLayered, crossOrigin(t), "tools *")
	require.Nil(t, f.inParent(`await fx.register({name: "p_private", description: "d", execute: () => ((window.ran = true), "private")});
		await fx.register({name: "p_shared", description: "d", execute: () => "shared"}, {exposedTo: [`+js(f.child)+`]})`).Error)
	parentOrigin := js(f.parent)

	// craft posts a request as the runtime would, and collects what comes back on its port.
	craft := `const craft = (message) => {
		const {port1, port2} = new MessageChannel();
		const got = [];
		port1.onmessage = (e) => got.push(e.data);
		parent.postMessage({"dev.veil/frames": 1, ...message}, ` + parentOrigin + `, [port2]);
		return got;
	};`
	answered := value[[]any](t, f.inChild(craft+`
		const got = craft({type: "call", name: "p_shared", input: "{}"});
		await fx.until(() => got.length === 2);
		return got`), "a crafted call of the exposed tool")
	assert.Equal(t, []any{map[string]any{"type": "accepted"}, map[string]any{"type": "result", "value": "shared"}}, answered)
	listed := value[[]any](t, f.inChild(craft+`
		const got = craft({type: "list"});
		await fx.until(() => got.length === 1);
		return got[0].tools.map((t) => t.name)`), "a crafted list")
	assert.Equal(t, []any{"p_shared"}, listed, "a crafted list shows the exposed tool only")

	// The parent handles a message in one task, and messages from one
	// window to another keep their order: had it answered the crafted call,
	// its answer would be in its traffic before this command's result.
	before := len(value[[]string](t, f.inParent(`return fx.traffic`), "the parent's traffic"))
	require.Nil(t, f.inChild(craft+`
		window.hidden = craft({type: "call", name: "p_private", input: "{}"})`).Error)
	after := value[[]string](t, f.inParent(`return fx.traffic`), "the parent's traffic")
	for _, line := range after[before:] {
		assert.False(t, strings.HasPrefix(line, "port posted"), "the parent answered a crafted call of a tool it does not expose: %s", line)
	}
	assert.Equal(t, false, value[bool](t, f.inParent(`return window.ran === true`), "p_private ran"))

	// A MessageEvent made by script can name any origin and source.
	got := value[[]string](t, f.inParent(`const n = fx.traffic.length;
		const {port1, port2} = new MessageChannel();
		dispatchEvent(new MessageEvent("message", {data: {"dev.veil/frames": 1, type: "list"}, origin: location.origin, source: fx.children[0].frame.contentWindow, ports: [port2]}));
		return fx.traffic.slice(n).filter((line) => line.startsWith("port posted"))`), "what the parent posted for a made-up request")
	assert.Empty(t, got)
}

// TestFramesInvokerGone: a frame calls a tool of its parent and is
// removed, or navigates away, while the call runs. The call's invoker is
// gone, so the tool's options.signal aborts and toolcancel fires in the
// parent, as when a caller aborts: nothing waits for an answer no one can
// receive.
func TestFramesInvokerGone(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, r := range frameSecurityRuns {
		for _, gone := range []struct{ how, script string }{
			{"removed", `fx.children[0].frame.remove()`},
			{"navigated", `fx.children[0].frame.src = "about:blank"`},
		} {
			t.Run(r.run.name+"/"+gone.how, func(t *testing.T) {
				t.Parallel() // a tab of its own
				f, _ := openCallable(t, r.run, r.cross)
				callParentFromChild(t, f, r.cross, "p_slow", `new AbortController()`)
				require.Nil(t, f.inParent(gone.script).Error, "the child goes")
				assertCancelledInParent(t, f, "p_slow")
			})
		}
	}
}

// TestFramesAbortFromChild: the other way round from TestFramesAbort. A
// child calls its parent's tool and aborts the call: the parent's
// execute sees its signal abort and toolcancel fires there. And a call
// whose AbortController another frame made and aborts (the parent's
// controller, passed to the child's executeTool) is cancelled the same
// way.
func TestFramesAbortFromChild(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, r := range frameSecurityRuns {
		for _, by := range []struct{ who, controller string }{
			{"child", `new AbortController()`},
			{"parent's controller", `new parent.AbortController()`},
		} {
			if r.cross && by.who != "child" {
				continue // a cross-origin child cannot reach its parent's AbortController
			}
			t.Run(r.run.name+"/"+by.who, func(t *testing.T) {
				t.Parallel() // a tab of its own
				f, _ := openCallable(t, r.run, r.cross)
				callParentFromChild(t, f, r.cross, "p_wait", by.controller)
				got := value[string](t, f.inChild(`ctl.abort(new DOMException("the agent gave up", "AbortError")); return await call;`), "the child's call")
				assert.Equal(t, "AbortError: the agent gave up", got)
				assertCancelledInParent(t, f, "p_wait")
			})
		}
	}
}

// TestFramesUnregisteredMidCall: the parent calls a child's tool, and the
// child unregisters it while its execute runs. The call is not cancelled:
// it resolves with the output once execute ends, as a call in one
// document does.
func TestFramesUnregisteredMidCall(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, r := range frameSecurityRuns {
		t.Run(r.run.name, func(t *testing.T) {
			t.Parallel() // a tab of its own
			f, from := openCallable(t, r.run, r.cross)
			registerInChild(t, f, `{name: "c_going", description: "Unregistered while it runs", execute: () => new Promise((resolve) => (window.finish = resolve))}`)
			require.Nil(t, f.inParent(`const t = (await document.modelContext.getTools(`+from+`)).find((t) => t.name === "c_going");
				if (!t) throw new Error("the parent does not see c_going");
				window.call = document.modelContext.executeTool(t, {}).then((v) => "resolved: " + v, (e) => e.name);`).Error, "the parent's call")
			require.Equal(t, true, value[bool](t, f.inChild(`return fx.until(() => typeof window.finish === "function")`), "started"), "execute started in the child")
			require.Nil(t, f.inChild(`fx.unregister("c_going"); await new Promise((r) => setTimeout(r, 50)); window.finish("done");`).Error, "unregistering, then finishing")
			assert.Equal(t, "resolved: done", value[string](t, f.inParent(`return await window.call`), "the parent's call"))
		})
	}
}

// callParentFromChild registers in the parent a tool that waits for ever
// and marks window.started and, when its signal aborts, window.aborted;
// then the child starts a call of it, with an AbortController made by
// controller (window.ctl), whose outcome is window.call. It returns once
// execute started in the parent.
func callParentFromChild(t *testing.T, f *frames, cross bool, name, controller string) {
	t.Helper()
	from := `{}`
	if cross {
		from = `{fromOrigins: [` + js(f.parent) + `]}`
	}
	require.Nil(t, f.inParent(`await fx.register({name: `+js(name)+`, description: "Waits", execute: (input, {signal}) => new Promise(() => {
		window.started = true;
		signal.addEventListener("abort", () => (window.aborted = true));
	})}, {exposedTo: [`+js(f.child)+`]})`).Error, "registering in the parent")
	require.Nil(t, f.inChild(`const t = (await document.modelContext.getTools(`+from+`)).find((t) => t.name === `+js(name)+`);
		if (!t) throw new Error("the child does not see the parent's tool");
		window.ctl = `+controller+`;
		window.call = document.modelContext.executeTool(t, {}, {signal: ctl.signal}).then((v) => "resolved: " + v, (e) => e.name + ": " + e.message);`).Error, "the child's call")
	require.Equal(t, true, value[bool](t, f.inParent(`return fx.until(() => window.started === true)`), "started"), "execute started in the parent")
}

// assertCancelledInParent checks that the parent's tool name saw its
// signal abort and toolcancel fire.
func assertCancelledInParent(t *testing.T, f *frames, name string) {
	t.Helper()
	assert.Equal(t, true, value[bool](t, f.inParent(`return fx.until(() => window.aborted === true)`), "aborted"), "execute's signal aborted in the parent")
	assert.Equal(t, true, value[bool](t, f.inParent(`return fx.until(() => e2e.events.includes("toolcancel:" + `+js(name)+`))`), "toolcancel"), "toolcancel in the parent")
}
