package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The engine is lost (its Worker terminated, its Go program exited) and
// the runtime carries on: the calls it was deciding fail at once with the
// generic failure, the page hears enginelost, the tray says what was lost,
// and the next call runs on a new engine that resumed the session's trust
// state, the page's policy and its tools (testdata/crash.html, whose
// faults.js does the killing).

// crashKills are the ways each mode's engine is killed.
var crashKills = map[string][]string{"worker": {"terminate", "exit"}, "main": {"exit"}}

// crashPage opens crash.html with its engine in mode.
func crashPage(t *testing.T, mode string) *tab {
	tb := openTab(t, plain)
	q := ""
	if mode == "main" {
		q = "?mode=main"
	}
	tb.navigate("crash.html" + q)
	tb.allowConsole(`veil: the engine was lost`)
	require.True(t, eval[settled](tb, `e2e.settle(() => registered)`).OK, "registering the tools")
	require.Equal(t, mode, eval[string](tb, `veil.ready.then(() => veil.mode)`))
	return tb
}

// TestEngineLost kills the engine with a call running and a call waiting
// for the user, in each mode and each way it can die.
func TestEngineLost(t *testing.T) {
	t.Parallel() // in tabs of its own; each waits on its page, not the clock
	for _, mode := range engineModes {
		for _, kill := range crashKills[mode] {
			t.Run(mode+"/"+kill, func(t *testing.T) {
				t.Parallel() // a tab of its own
				tb := crashPage(t, mode)
				before := eval[map[string]any](tb, `(async () => {
					await veil.configure({withhold: ["pii"], confirm: (r) => new Promise(() => (crash.asked = r))});
					const run = (name, args = {}) => e2e.execute("document", name, args);
					const key = await run("make_key");
					const web = await run("web");
					const profile = await run("profile");
					await new Promise((r) => setTimeout(r, 50));
					const slow = run("slow");
					const wipe = run("wipe");
					while (!crash.slow || !crash.asked) await new Promise((r) => setTimeout(r, 5));
					window.pending = {slow, wipe};
					return {key: key.ok, web: web.ok, profile: profile.value, untrusted: veil.trust.untrustedContent,
						items: (await veil.items()).length, tray: document.querySelector("veil-secrets").shadowRoot.querySelector(".count").textContent,
						calls: veil.calls.length, engines: faults.engines};
				})()`)
				require.Equal(t, true, before["key"], "make_key before: %v", before)
				require.Equal(t, true, before["untrusted"], "web tainted the session")
				assert.NotContains(t, before["profile"], "Ada", "the policy withholds pii")
				require.EqualValues(t, 2, before["items"], "the key and the profile are held")
				require.EqualValues(t, 1, before["engines"])

				eval[any](tb, `faults.`+kill+`()`)
				// The calls in progress fail at once: well before any op's
				// own timeout (a minute) would end them.
				lost := eval[map[string]any](tb, `(async () => {
					const hung = new Promise((r) => setTimeout(() => r("hung"), 10000));
					const slow = await Promise.race([pending.slow, hung]);
					const wipe = await Promise.race([pending.wipe, hung]);
					while (!crash.lost.length) await new Promise((r) => setTimeout(r, 5));
					return {slow, wipe, lost: crash.lost, executeAborted: crash.slow.signal.aborted, questionClosed: crash.asked.signal.aborted, calls: veil.calls.length};
				})()`)
				for _, c := range []string{"slow", "wipe"} {
					require.IsType(t, map[string]any{}, lost[c], "%s did not settle: %v", c, lost[c])
					r := lost[c].(map[string]any)
					assert.Equal(t, false, r["ok"], "%s: %v", c, r)
					assert.Equal(t, "OperationError", r["error"].(map[string]any)["name"], "%s fails with the generic failure", c)
				}
				require.Len(t, lost["lost"], 1, "one enginelost event")
				ev := lost["lost"].([]any)[0].(map[string]any)
				assert.Equal(t, mode, ev["mode"])
				assert.EqualValues(t, 2, ev["calls"], "the two calls in progress: %v", ev)
				assert.Equal(t, true, ev["restarting"])
				assert.Equal(t, true, lost["executeAborted"], "the running execute is told to stop")
				assert.Equal(t, true, lost["questionClosed"], "the question to the user closes")
				assert.EqualValues(t, 0, lost["calls"], "veil.calls is empty")

				// The tray says what was lost.
				tb.poll(`!document.querySelector("veil-secrets").shadowRoot.querySelector(".lost").hidden`)
				note := eval[string](tb, `document.querySelector("veil-secrets").shadowRoot.querySelector(".lost").textContent`)
				assert.Contains(t, note, "2 withheld values were lost", "the tray's note")

				// A slow execute that finishes now reaches nobody.
				eval[any](tb, `crash.slow.resolve("sk-live-late-answer-7c1f")`)

				after := eval[map[string]any](tb, `(async () => {
					const asked = [];
					await veil.configure({confirm: (r) => (asked.push(r.tool), true)});
					const run = (name, args = {}) => e2e.execute("document", name, args);
					const greet = await run("greet", {name: "Ada"});
					const key = await run("make_key");
					const profile = await run("profile");
					const items = await veil.items();
					return {greet: greet.value, key: key.ok, keyView: key.value, profile: profile.value,
						openWorld: crash.annotations.at(-1).openWorldHint, untrusted: veil.trust.untrustedContent,
						items: items.map((i) => i.tool), engines: faults.engines, asked,
						tools: (await document.modelContext.getTools()).map((t) => t.name).sort(),
						tray: document.querySelector("veil-secrets").shadowRoot.querySelectorAll("li.call").length};
				})()`)
				// The lost engine had withheld values, which the new one
				// cannot recognise again: it withholds every output whole.
				assert.NotContains(t, after["greet"], "Hello, Ada!", "the next call runs on a new engine, which withholds it whole")
				assert.Contains(t, after["greet"], "withheld", "the notice")
				assert.EqualValues(t, 2, after["engines"], "one new engine")
				assert.Equal(t, true, after["key"])
				assert.NotContains(t, after["keyView"], "sk-live-", "the new engine withholds as the lost one did")
				assert.NotContains(t, after["profile"], "Ada", "the page's policy came back: pii is withheld")
				assert.Equal(t, true, after["openWorld"], "the session's trust state came back: execute hears untrusted content")
				assert.Equal(t, true, after["untrusted"])
				assert.Equal(t, []any{"make_key"}, after["asked"], "the trifecta rule holds on: a tool that may send data out is put to the user")
				assert.ElementsMatch(t, []any{"greet", "make_key", "profile"}, after["items"], "only what the new engine holds")
				assert.Equal(t, []any{"greet", "make_key", "profile", "slow", "web", "wipe"}, after["tools"], "the tools are all there")
				items, err := json.Marshal(eval[any](tb, `veil.items()`))
				require.NoError(t, err)
				assert.NotContains(t, string(items), "late-answer")
				for _, m := range tb.consoleTexts() {
					assert.False(t, strings.Contains(m, "sk-live-"), "a console line carries a key: %s", m)
				}
			})
		}
	}
}

// TestEngineLostTooOften: an engine lost again and again is not started
// for ever. The fourth loss within a minute ends it: every call fails, and
// nothing runs around the engine.
func TestEngineLostTooOften(t *testing.T) {
	t.Parallel() // in tabs of its own; each waits on its page, not the clock
	for _, mode := range engineModes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel() // a tab of its own
			tb := crashPage(t, mode)
			tb.allowConsole(`veil: the engine was lost .* It is not started again`)
			got := eval[map[string]any](tb, `(async () => {
				const run = (name, args = {}) => e2e.execute("document", name, args);
				const greets = [];
				for (let i = 0; i < 4; i++) {
					const n = crash.lost.length;
					faults.exit();
					while (crash.lost.length === n) await new Promise((r) => setTimeout(r, 5));
					greets.push(await run("greet", {name: "again"}));
				}
				return {greets, lost: crash.lost.map((e) => e.restarting), engines: faults.engines,
					items: await veil.items().then(() => "listed", (e) => e.name)};
			})()`)
			assert.Equal(t, []any{true, true, true, false}, got["lost"], "restarting, three times")
			greets := got["greets"].([]any)
			for i, g := range greets[:3] {
				assert.Equal(t, "Hello, again!", g.(map[string]any)["value"], "call %d after a restart", i)
			}
			last := greets[3].(map[string]any)
			assert.Equal(t, false, last["ok"], "after the fourth loss: %v", last)
			assert.Equal(t, "OperationError", last["error"].(map[string]any)["name"])
			assert.EqualValues(t, 4, got["engines"], "no fifth engine")
		})
	}
}
