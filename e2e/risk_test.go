package e2e

import (
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/webmcp"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/corpus"
)

// These tests drive the runtime's risk policy (issue 5) in the browser: the
// session's trust state, the decisions, the page's confirmation handler and
// the built-in dialog, spotlighting, and the load hints.

// riskDir holds the risk cases, one txtar archive per flow
// ([corpus.RiskCase] says what they hold). The engine's test replays
// natively those whose tools are literals.
const riskDir = "testdata/risk"

func loadRiskCases(t *testing.T) []*corpus.RiskCase {
	t.Helper()
	cases, err := corpus.LoadRisk(riskDir)
	require.NoError(t, err)
	return cases
}

// riskPaths are the agent paths each case runs through, by browser: the
// runtime's own, and Chromium's own in front of which it layers.
var riskPaths = []struct {
	native bool
	path   string
}{
	{false, "document.modelContext.executeTool"},
	{false, "navigator.modelContext.executeTool"},
	{false, "navigator.modelContextTesting.executeTool"},
	{true, "native executeTool"},
	{true, "WebMCP.invokeTool"},
}

// openRisk opens the risk page and loads a case's tools. With builtin the
// runtime's own dialog asks the user; else the page's handler answers.
func openRisk(t *testing.T, nativeWebMCP bool, tools string, builtin bool) *tab {
	t.Helper()
	return openRiskIn(t, "worker", nativeWebMCP, tools, builtin)
}

// openRiskIn is openRisk with the engine in a Worker ("worker") or on the
// main thread ("main").
func openRiskIn(t *testing.T, mode string, nativeWebMCP bool, tools string, builtin bool) *tab {
	t.Helper()
	b := plain
	if nativeWebMCP {
		b = native
	}
	tb := openTab(t, b)
	tb.navigate("risk/risk.html?mode=" + mode)
	if mode == "main" {
		require.Equal(t, "main", eval[string](tb, `veil.ready.then(() => veil.mode)`))
	}
	got := eval[settled](tb, fmt.Sprintf(`risk.settle(() => risk.load(%s, %v))`, js(tools), builtin))
	require.True(t, got.OK, "loading the tools: %+v", got.Error)
	return tb
}

func TestRiskCases(t *testing.T) {
	t.Parallel() // beside the other tests; its pages side by side too
	for _, c := range loadRiskCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel() // each case in tabs of its own
			for _, p := range riskPaths {
				t.Run(p.path, func(t *testing.T) {
					tb := openRisk(t, p.native, c.Tools, false)
					for i, s := range c.Steps {
						t.Run(fmt.Sprintf("%d-%s", i+1, s.Call), func(t *testing.T) { runRiskStep(t, tb, p.path, s) })
					}
				})
			}
		})
	}
}

// riskAfter is what the page saw of one call.
type riskAfter struct {
	Calls []struct {
		Tool        string         `json:"tool"`
		Annotations map[string]any `json:"annotations"`
		Frozen      bool           `json:"frozen"`
	} `json:"calls"`
	Asked []struct {
		Rule  string `json:"rule"`
		Tool  string `json:"tool"`
		Facts []any  `json:"facts"`
	} `json:"asked"`
	Events     []struct{ Type string } `json:"events"`
	Unanswered int                     `json:"unanswered"`
	Trust      map[string]any          `json:"trust"`
	Last       *struct {
		Tool    string `json:"tool"`
		Outcome string `json:"outcome"`
		Rule    string `json:"rule"`
		Facts   []struct {
			Source, Key, Value string
		} `json:"facts"`
	} `json:"last"`
}

func runRiskStep(t *testing.T, tb *tab, path string, s corpus.RiskStep) {
	n := eval[[]int](tb, `[risk.calls.length, risk.asked.length, risk.events.length]`)
	if s.Answer != "" {
		eval[int](tb, fmt.Sprintf(`risk.answers.push(%s)`, js(s.Answer)))
	}

	var view string
	if path == "WebMCP.invokeTool" {
		ev := tb.invokeTool(s.Call, string(s.Input))
		require.Equal(t, webmcp.InvocationStatusCompleted, ev.Status, "%s: %s", s.Call, ev.ErrorText)
		view = agentText(ev)
	} else {
		r := eval[struct {
			OK    bool     `json:"ok"`
			Value string   `json:"value"`
			Error *jsError `json:"error"`
		}](tb, fmt.Sprintf(`risk.call(%s, %s, %s)`, js(path), js(s.Call), s.Input))
		require.True(t, r.OK, "%s rejected: %+v", s.Call, r.Error)
		view = r.Value
	}

	after := eval[riskAfter](tb, fmt.Sprintf(`(async () => {
		const log = await veil.decisions();
		return {
			calls: risk.calls.slice(%d), asked: risk.asked.slice(%d), events: risk.events.slice(%d),
			unanswered: risk.unanswered, trust: veil.trust,
			last: log.filter((e) => e.tool === %s).at(-1) ?? null,
		};
	})()`, n[0], n[1], n[2], js(s.Call)))

	seen := corpus.RiskSeen{View: view, Trust: after.Trust, Runs: len(after.Calls)}
	if l := after.Last; l != nil {
		seen.Logged, seen.Outcome, seen.Rule = true, l.Outcome, l.Rule
		for _, f := range l.Facts {
			seen.Facts = append(seen.Facts, f.Source+" "+f.Key+"="+f.Value)
		}
	}
	for _, q := range after.Asked {
		seen.Asked = append(seen.Asked, corpus.RiskQuestion{Rule: q.Rule, Tool: q.Tool, Facts: len(q.Facts)})
	}
	if len(after.Calls) > 0 {
		seen.Request, seen.Frozen = after.Calls[0].Annotations, after.Calls[0].Frozen
	}
	for _, e := range after.Events {
		seen.Events = append(seen.Events, e.Type)
	}
	s.Check(t, seen, func(view, value string) { assertWithheld(t, view, value, s.Call) })
}

// dialogState is what risk.dialog() reports of the built-in dialog.
type dialogState struct {
	Modal       bool     `json:"modal"`
	LabelledBy  string   `json:"labelledBy"`
	DescribedBy string   `json:"describedBy"`
	Reasons     []string `json:"reasons"`
	Focused     string   `json:"focused"`
	Allow       struct{ X, Y float64 }
	Deny        struct{ X, Y float64 }
}

// TestRiskDialog drives the built-in confirmation dialog as a user does:
// real clicks and key presses through the DevTools protocol.
func TestRiskDialog(t *testing.T) {
	tb := openRisk(t, false, `[
		{name: "drop_table", title: "Drop table", description: "Drops a database table", annotations: {destructiveHint: true}, returns: "dropped"},
		{name: "rename_file", description: "Renames a file", annotations: {destructiveHint: true, reversibleHint: true}, returns: "renamed"},
	]`, true)
	const path = "document.modelContext.executeTool"
	start := func(name string) {
		t.Helper()
		eval[bool](tb, fmt.Sprintf(`(document.getElementById("before").focus(), window.pending = risk.call(%s, %s, {}), true)`, js(path), js(name)))
		tb.poll(`risk.dialog() !== null`)
	}
	result := func() string {
		t.Helper()
		r := eval[struct {
			OK    bool     `json:"ok"`
			Value string   `json:"value"`
			Error *jsError `json:"error"`
		}](tb, `window.pending`)
		require.True(t, r.OK, "the call rejected: %+v", r.Error)
		return r.Value
	}
	ran := func() int { return eval[int](tb, `risk.calls.length`) }

	t.Run("accessible and safe by default", func(t *testing.T) {
		start("drop_table")
		d := eval[dialogState](tb, `risk.dialog()`)
		assert.True(t, d.Modal, "the dialog is modal")
		assert.Equal(t, "This action has consequences", d.LabelledBy, "aria-labelledby names the heading")
		assert.Contains(t, d.DescribedBy, "Drop table", "aria-describedby says which tool")
		assert.Contains(t, d.DescribedBy, "Drops a database table")
		assert.Contains(t, d.Reasons, "It may delete or overwrite data.")
		assert.Equal(t, "Don't allow", d.Focused, "focus starts on the safe answer")

		// A script's click is not the user's: an agent driving the page
		// through script cannot approve.
		eval[bool](tb, `(risk.scriptClickAllow(), true)`)
		assert.NotNil(t, eval[*dialogState](tb, `risk.dialog()`), "the dialog stays open after a script's click")
		assert.Zero(t, ran(), "execute ran on a script's click")

		// Enter on the focused button declines.
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.Enter)))
		tb.poll(`risk.dialog() === null`)
		view := result()
		assert.Contains(t, view, `"isError":true`)
		assert.Contains(t, view, `"rule":"consequential"`)
		assert.Zero(t, ran())
		assert.Equal(t, "before", eval[string](tb, `document.activeElement.id`), "focus returns where it was")
	})

	t.Run("Escape declines", func(t *testing.T) {
		start("drop_table")
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.KeyEvent(kb.Escape)))
		tb.poll(`risk.dialog() === null`)
		assert.Contains(t, result(), `"outcome":"declined"`)
		assert.Zero(t, ran())
	})

	t.Run("a click on Allow approves", func(t *testing.T) {
		start("drop_table")
		d := eval[dialogState](tb, `risk.dialog()`)
		require.NoError(t, chromedp.Do(tb.ctx, chromedp.MouseClickXY(d.Allow.X, d.Allow.Y)))
		tb.poll(`risk.dialog() === null`)
		assert.Equal(t, "dropped", result())
		assert.Equal(t, 1, ran())
		last := eval[string](tb, `veil.decisions().then((l) => l.at(-1).outcome)`)
		assert.Equal(t, "approved", last)
	})

	t.Run("the caller's abort closes the dialog", func(t *testing.T) {
		eval[bool](tb, `(async () => {
			const c = new AbortController();
			const t = (await document.modelContext.getTools()).find((t) => t.name === "drop_table");
			window.aborted = document.modelContext.executeTool(t, {}, {signal: c.signal}).then(() => "resolved", (e) => e.name);
			window.abortIt = () => c.abort();
			return true;
		})()`)
		tb.poll(`risk.dialog() !== null`)
		eval[bool](tb, `(abortIt(), true)`)
		tb.poll(`risk.dialog() === null`)
		assert.Equal(t, "AbortError", eval[string](tb, `window.aborted`))
		assert.Equal(t, 1, ran(), "execute did not run for the aborted call")
	})

	t.Run("a reversible destructive tool gets a notice", func(t *testing.T) {
		eval[bool](tb, fmt.Sprintf(`(window.pending = risk.call(%s, "rename_file", {}), true)`, js(path)))
		assert.Equal(t, "renamed", result(), "a notice does not wait for the user")
		tb.poll(`document.querySelector("veil-confirm")?.shadowRoot?.querySelector("[role=status]")?.textContent.includes("rename_file is running")`)
		assert.Equal(t, "polite", eval[string](tb, `document.querySelector("veil-confirm").shadowRoot.querySelector("[role=status]").getAttribute("aria-live")`))
	})
}

// TestRiskLoad checks what the load hints do: slowExecutionHint's longer
// timeout and progress state, resourceIntensiveHint's one at a time, and
// idempotentHint's one retry.
func TestRiskLoad(t *testing.T) {
	tb := openRisk(t, false, `[
		{name: "slow_report", description: "Builds a report", annotations: {slowExecutionHint: true, readOnlyHint: true},
			returns: () => new Promise((resolve) => (window.finishSlow = () => resolve("report"))) },
		{name: "late", description: "Answers late", annotations: {slowExecutionHint: true, readOnlyHint: true},
			returns: () => new Promise((resolve) => setTimeout(resolve, 600, "late but fine")) },
		{name: "hang", description: "Never answers", annotations: {readOnlyHint: true},
			returns: (input, {signal}) => new Promise(() => signal.addEventListener("abort", () => (window.hangReason = signal.reason?.name))) },
		{name: "crunch", description: "Heavy", annotations: {resourceIntensiveHint: true, readOnlyHint: true},
			returns: async () => { window.running = (window.running ?? 0) + 1; window.most = Math.max(window.most ?? 0, window.running);
				await new Promise((r) => setTimeout(r, 60)); window.running--; return "crunched"; } },
		{name: "light", description: "Light", annotations: {readOnlyHint: true},
			returns: async () => { window.lrunning = (window.lrunning ?? 0) + 1; window.lmost = Math.max(window.lmost ?? 0, window.lrunning);
				await new Promise((r) => setTimeout(r, 60)); window.lrunning--; return "light"; } },
		{name: "flaky", description: "Fails once", annotations: {idempotentHint: true, readOnlyHint: true},
			returns: () => (window.flaky = (window.flaky ?? 0) + 1) === 1 ? Promise.reject(new DOMException("network down", "NetworkError")) : "second try" },
		{name: "flaky_once", description: "Fails once, not idempotent", annotations: {readOnlyHint: true},
			returns: () => (window.once = (window.once ?? 0) + 1) === 1 ? Promise.reject(new DOMException("network down", "NetworkError")) : "second try" },
		{name: "buggy", description: "Has a bug", _meta: {"mcp.dev/idempotent": true}, annotations: {readOnlyHint: true},
			returns: () => { window.bug = (window.bug ?? 0) + 1; throw new TypeError("x is undefined"); } },
	]`, false)
	const call = `risk.call("document.modelContext.executeTool", %s, {})`
	type res struct {
		OK    bool     `json:"ok"`
		Value string   `json:"value"`
		Error *jsError `json:"error"`
	}

	t.Run("slowExecutionHint", func(t *testing.T) {
		eval[bool](tb, fmt.Sprintf(`(window.pending = `+call+`, true)`, js("slow_report")))
		tb.poll(`veil.calls.some((c) => c.tool === "slow_report" && c.state === "running" && c.slow)`)
		eval[bool](tb, `(finishSlow(), true)`)
		assert.Equal(t, "report", eval[res](tb, `window.pending`).Value)
		assert.Equal(t, 0, eval[int](tb, `veil.calls.length`), "no call in progress after it ends")

		// A short default timeout fails an ordinary tool, whose signal
		// aborts; a slow tool gets the longer one.
		eval[bool](tb, `veil.configure({timeoutMs: 300, slowTimeoutMs: 5000}).then(() => true)`)
		r := eval[res](tb, fmt.Sprintf(call, js("hang")))
		require.False(t, r.OK, "hang resolved")
		assert.Equal(t, "OperationError", r.Error.Name)
		assert.Contains(t, r.Error.Message, "did not finish in time")
		assert.Equal(t, "TimeoutError", eval[string](tb, `window.hangReason`), "execute's signal aborts with a TimeoutError")
		assert.Equal(t, "late but fine", eval[res](tb, fmt.Sprintf(call, js("late"))).Value)
		eval[bool](tb, `veil.configure({timeoutMs: null, slowTimeoutMs: null}).then(() => true)`)
	})

	t.Run("resourceIntensiveHint", func(t *testing.T) {
		got := eval[[]res](tb, fmt.Sprintf(`Promise.all([1, 2, 3].map(() => `+call+`))`, js("crunch")))
		for _, r := range got {
			assert.Equal(t, "crunched", r.Value)
		}
		assert.Equal(t, 1, eval[int](tb, `window.most`), "resource-intensive calls ran at once")

		// A queued call dropped early lets no later one overtake the one
		// that runs.
		most := eval[int](tb, `(async () => {
			window.most = 0;
			const t = (await document.modelContext.getTools()).find((t) => t.name === "crunch");
			const c = new AbortController();
			const a = document.modelContext.executeTool(t, {});
			const b = document.modelContext.executeTool(t, {}, {signal: c.signal}).catch(() => {});
			const d = document.modelContext.executeTool(t, {});
			await new Promise((r) => setTimeout(r, 30));
			c.abort();
			await Promise.all([a, b, d]);
			return window.most;
		})()`)
		assert.Equal(t, 1, most, "a call overtook the running one after a queued call was aborted")
		eval[[]res](tb, fmt.Sprintf(`Promise.all([1, 2, 3].map(() => `+call+`))`, js("light")))
		assert.Equal(t, 3, eval[int](tb, `window.lmost`), "other tools still run side by side")
	})

	t.Run("idempotentHint", func(t *testing.T) {
		r := eval[res](tb, fmt.Sprintf(call, js("flaky")))
		assert.Equal(t, "second try", r.Value, "an idempotent tool is retried once after a transient failure")
		assert.Equal(t, 2, eval[int](tb, `window.flaky`))

		r = eval[res](tb, fmt.Sprintf(call, js("flaky_once")))
		assert.False(t, r.OK, "a tool that is not idempotent is not retried")
		assert.Equal(t, 1, eval[int](tb, `window.once`))

		r = eval[res](tb, fmt.Sprintf(call, js("buggy")))
		assert.False(t, r.OK)
		assert.Equal(t, 1, eval[int](tb, `window.bug`), "a failure that is not transient is not retried")
	})
}

// TestRiskRegistration checks registerTool's validation of the risk
// vocabulary and what getTools and listTools expose.
func TestRiskRegistration(t *testing.T) {
	t.Parallel() // a tab of its own; nothing waits on the clock
	tb := openRisk(t, false, `[]`, false)
	tests := []struct {
		name, tool, wantName, wantMsg string
	}{
		{"MCP hint", `{annotations: {readOnlyHint: "yes"}}`, "TypeError", `annotations.readOnlyHint of tool "t1" must be a boolean`},
		{"SEP-1984 hint", `{annotations: {slowExecutionHint: 1}}`, "TypeError", `annotations.slowExecutionHint of tool "t2"`},
		{"SEP-1913 metadata", `{annotations: {returnMetadata: {source: "gossip", sensitivity: "none"}}}`, "TypeError", `annotations.returnMetadata.source of tool "t3" is invalid`},
		{"_meta hint", `{_meta: {"mcp.dev/resultSensitivity": "secret"}}`, "TypeError", `_meta["mcp.dev/resultSensitivity"] of tool "t4"`},
		{"resolve not a function", `{resolve: "soon"}`, "TypeError", `resolve of tool "t5" is not a function`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("t%d", i+1)
			got := eval[settled](tb, fmt.Sprintf(`risk.settle(() => document.modelContext.registerTool({name: %s, description: "d", execute() {}, ...%s}))`, js(name), tt.tool))
			require.False(t, got.OK, "registerTool(%s) resolved", tt.tool)
			assert.Equal(t, tt.wantName, got.Error.Name)
			assert.Contains(t, got.Error.Message, tt.wantMsg)
		})
	}

	got := eval[settled](tb, `risk.settle(() => document.modelContext.registerTool({name: "ok", description: "d", execute() {},
		annotations: {readOnlyHint: true, slowExecutionHint: null, custom: 1, inputMetadata: {destination: ["user", "public"], sensitivity: "none", outcomes: "benign"}},
		_meta: {"mcp.dev/effect": "external", "com.example/x": true}}))`)
	require.True(t, got.OK, "registerTool: %+v", got.Error)
	tools := eval[map[string]any](tb, `document.modelContext.getTools().then((l) => { const t = l.find((t) => t.name === "ok"); return {annotations: t.annotations, _meta: t._meta}; })`)
	assert.Equal(t, map[string]any{
		"annotations": map[string]any{"readOnlyHint": true, "custom": float64(1), "inputMetadata": map[string]any{"destination": []any{"user", "public"}, "sensitivity": "none", "outcomes": "benign"}},
		"_meta":       map[string]any{"mcp.dev/effect": "external", "com.example/x": true},
	}, tools, "getTools exposes the normalized annotations and _meta")
	listed := eval[map[string]any](tb, `navigator.modelContextTesting.listTools().find((t) => t.name === "ok").annotations`)
	assert.Equal(t, true, listed["readOnlyHint"], "listTools exposes the annotations")
}
