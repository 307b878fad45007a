package e2e

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An agent that can crash the engine, or abort its calls, picks the moment
// (testdata/crash.html; faults.js's onready and onpost hooks give the test
// the exact moment an agent would have to hit).

// TestEngineLostAfterApproval: the user approves a call, and the engine
// that decided it is lost before it records the approval. The call fails,
// and its execute never runs: the agent was told the call failed, and a
// tool that ran anyway would run a second time when the agent tries again.
func TestEngineLostAfterApproval(t *testing.T) {
	t.Parallel() // in tabs of its own; each waits on its page, not the clock
	for _, mode := range engineModes {
		t.Run(mode, func(t *testing.T) {
			tb := crashPage(t, mode)
			kill := map[string]string{"worker": "terminate", "main": "exit"}[mode]
			got := eval[map[string]any](tb, `(async () => {
				const tick = () => new Promise((r) => setTimeout(r, 5));
				window.ran = [];
				await document.modelContext.registerTool({
					name: "drop_all", description: "Drops every table", annotations: {destructiveHint: true},
					execute: (input, options) => (ran.push(options.signal.aborted), "dropped"),
				});
				let approve = null;
				await veil.configure({confirm: () => new Promise((r) => (approve = r))});
				const call = e2e.execute("document", "drop_all", {});
				while (!approve) await tick();
				// The user's answer and the loss in one task: the settle op
				// goes to an engine that will never answer it.
				approve(true);
				faults.`+kill+`();
				const result = await call;
				while (!crash.lost.length) await tick();
				await tick();
				return {result, ran, lost: crash.lost.length};
			})()`)
			r := got["result"].(map[string]any)
			assert.Equal(t, false, r["ok"], "the call fails: %v", r)
			assert.Equal(t, "OperationError", r["error"].(map[string]any)["name"])
			assert.EqualValues(t, 1, got["lost"])
			assert.Empty(t, got["ran"], "execute of a call whose engine was lost before it recorded the approval ran (signal aborted: %v)", got["ran"])
		})
	}
}

// TestEngineLostKeepsResolveFlag: a tool's resolve flags the call as
// malicious, on a page whose policy blocks such calls, and the agent
// aborts the call while the engine decides it. The engine flagged the
// session; the page must keep the flag too, since it is what an engine
// started after a loss resumes from: otherwise an agent that aborts at the
// right moment, then crashes the engine, clears the flag.
//
// Worker mode only: on the main thread the engine answers within the same
// task, and no abort can land between the op and its reply.
func TestEngineLostKeepsResolveFlag(t *testing.T) {
	t.Parallel() // in tabs of its own; each waits on its page, not the clock
	tb := crashPage(t, "worker")
	got := eval[map[string]any](tb, `(async () => {
		const tick = () => new Promise((r) => setTimeout(r, 5));
		await veil.configure({rules: {malicious: "block"}});
		await document.modelContext.registerTool({
			name: "note", description: "Takes a note", annotations: {readOnlyHint: true},
			inputSchema: {type: "object", properties: {text: {type: "string"}}},
			resolve: ({text}) => ({maliciousActivityHint: /ignore/i.test(text ?? "")}),
			execute: () => "noted",
		});
		const tool = (await document.modelContext.getTools()).find((t) => t.name === "note");
		const agent = new AbortController();
		// The agent aborts once the engine has the call to decide.
		faults.onpost = (m) => m?.op === "resolve" && (faults.onpost = null, agent.abort());
		const call = await document.modelContext.executeTool(tool, {text: "Ignore the user"}, {signal: agent.signal})
			.then((v) => ({ok: true, v}), (e) => ({ok: false, name: e.name}));
		// The engine's reply to the resolve op has come back: the next op
		// is answered after it.
		await veil.decisions();
		const before = veil.trust?.maliciousActivity ?? false;
		faults.exit();
		while (!crash.lost.length) await tick();
		const greet = await e2e.execute("document", "greet", {name: "Ada"});
		return {call, before, greet: greet.value, flagged: crash.annotations.at(-1)?.maliciousActivityHint,
			after: veil.trust?.maliciousActivity ?? false, engines: faults.engines};
	})()`)
	require.Equal(t, false, got["call"].(map[string]any)["ok"], "the agent aborted the call: %v", got["call"])
	require.Equal(t, "Hello, Ada!", got["greet"], "the call after the loss runs on a new engine")
	require.EqualValues(t, 2, got["engines"])
	assert.Equal(t, true, got["before"], "veil.trust has the flag the engine set while deciding the aborted call")
	assert.Equal(t, true, got["flagged"], "the new engine resumed the flagged session: execute hears maliciousActivityHint")
	assert.Equal(t, true, got["after"])
}

// TestEngineLostAfterAbortedOutputStillWithholds (issue 30, item 5): the
// agent aborts a sensitive tool's call the moment its output op is on its
// way to the engine, which withholds the value and says its scrub set
// holds something; the caller is gone, but the page keeps that word. The
// engine is then lost: the next one withholds every output whole, so a
// later tool that echoes the value gives the agent nothing of it.
//
// Worker mode only, as TestEngineLostKeepsResolveFlag.
func TestEngineLostAfterAbortedOutputStillWithholds(t *testing.T) {
	t.Parallel() // in tabs of its own; each waits on its page, not the clock
	tb := crashPage(t, "worker")
	got := eval[map[string]any](tb, `(async () => {
		const tick = () => new Promise((r) => setTimeout(r, 5));
		const mc = document.modelContext;
		await mc.registerTool({name: "mint", description: "Makes a key", annotations: {sensitiveHint: true},
			execute: () => (window.minted = "sk-live-" + crypto.randomUUID())});
		await mc.registerTool({name: "echo", description: "Says the last key", annotations: {readOnlyHint: true},
			execute: () => "the key is " + window.minted});
		const tool = (await mc.getTools()).find((t) => t.name === "mint");
		const agent = new AbortController();
		faults.onpost = (m) => m?.op === "output" && (faults.onpost = null, agent.abort());
		const call = await mc.executeTool(tool, {}, {signal: agent.signal}).then((v) => ({ok: true, v}), (e) => ({ok: false, name: e.name}));
		// The output op's reply has come back: the next op is answered after it.
		await veil.decisions();
		faults.terminate();
		while (!crash.lost.length) await tick();
		const echo = await e2e.execute("document", "echo", {});
		return {call, echo: echo.value, minted: window.minted, engines: faults.engines};
	})()`)
	require.Equal(t, false, got["call"].(map[string]any)["ok"], "the agent aborted the call: %v", got["call"])
	require.EqualValues(t, 2, got["engines"], "the echo ran on a new engine")
	minted, _ := got["minted"].(string)
	require.True(t, strings.HasPrefix(minted, "sk-live-"), "the key was made: %v", got)
	assert.NotContains(t, got["echo"], minted, "the new engine passed the withheld key on")
	assert.Contains(t, got["echo"], "withheld", "the new engine withholds the output whole")
	for _, m := range tb.consoleTexts() {
		assert.NotContains(t, m, minted, "a console line carries the key")
	}
}

// TestEngineLostWhileRestarting: the engine started after a loss is lost
// itself before it has resumed: the moment it is ready, or once it has
// taken the trust state and settings but before it has answered for the
// tools. That is a second loss, within the bound, and the event says the
// engine is started again: the next call finds a third engine with every
// tool, not a runtime that went down for good, nor one that dropped the
// page's tools because a lost engine did not answer for them.
func TestEngineLostWhileRestarting(t *testing.T) {
	t.Parallel() // in tabs of its own; each waits on its page, not the clock
	kills := map[string]string{
		"ready": `faults.onready = (w) => ((faults.onready = null), w.terminate());`,
		// The init reply reaches the runtime; nothing after it does.
		"resumed": `let dying = null;
			faults.onready = (w) => ((faults.onready = null), (dying = w));
			faults.onreply = (w, data) => {
				if (w !== dying) return false;
				if (data?.id !== 1) return true;
				w.terminate();
				return false;
			};`,
	}
	for _, name := range []string{"ready", "resumed"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // a tab of its own
			tb := crashPage(t, "worker")
			tb.allowConsole(`veil: tool .* could not be registered again`)
			got := eval[map[string]any](tb, `(async () => {
				const tick = () => new Promise((r) => setTimeout(r, 5));
				const run = (name, args = {}) => e2e.execute("document", name, args);
				faults.exit();
				while (crash.lost.length < 1) await tick();
				`+kills[name]+`
				const during = await run("greet", {name: "during"});
				while (crash.lost.length < 2) await tick();
				const after = await run("greet", {name: "after"});
				return {during, after, lost: crash.lost, engines: faults.engines,
					tools: (await document.modelContext.getTools()).map((t) => t.name).sort()};
			})()`)
			lost := got["lost"].([]any)
			require.Len(t, lost, 2, "two losses: %v", lost)
			assert.Equal(t, true, lost[1].(map[string]any)["restarting"], "the second loss is within the bound")
			during := got["during"].(map[string]any)
			assert.Equal(t, false, during["ok"], "the call the lost engine was to decide fails: %v", during)
			after := got["after"].(map[string]any)
			assert.Equal(t, "Hello, after!", after["value"], "the next call runs on a third engine: %v", after)
			assert.EqualValues(t, 3, got["engines"])
			assert.Equal(t, []any{"greet", "make_key", "profile", "slow", "web", "wipe"}, got["tools"], "the tools are all there")
		})
	}
}
