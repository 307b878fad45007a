package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/bound"
)

// These tests hold the bounds on waiting for a module webmcp.js loads when
// it needs it (veil-frames.js, veil-restart.js, veil-redeem.js) when the
// server never answers for it: nothing that waits on one waits for ever.

func init() {
	lazyVariants["frameshang"] = struct{ file, fault string }{"veil-frames.js", "hang"}
	lazyVariants["restarthang"] = struct{ file, fault string }{"veil-restart.js", "hang"}
	lazyVariants["redeemhang"] = struct{ file, fault string }{"veil-redeem.js", "hang"}
}

// raced is the body of an async function that races p (an expression)
// against ms, and says which came first and after how long.
func raced(p string, ms int) string {
	return `const t0 = performance.now();
		const r = await Promise.race([(` + p + `).then((v) => ({v}), (e) => ({e: e.name + ": " + e.message})),
			new Promise((r) => setTimeout(() => r({still: "waiting"}), ` + js(ms) + `))]);
		return {...r, ms: Math.round(performance.now() - t0)}`
}

// TestFramesLazyLoadStalls: veil-frames.js is asked for and never
// answered. getTools gives the page's own tools after the two seconds it
// waits for the others', in the parent and in the child; executeTool of
// the other frame's tool ends when its signal aborts, and without a
// signal when the module has not loaded within 10 s, as UnknownError.
func TestFramesLazyLoadStalls(t *testing.T) {
	t.Parallel()
	f := openLazy(t, runWorker, "frameshang", "")
	f.tab.allowConsole(`^veil: tools across frames are off: \S+/veil-frames\.js did not load`)
	f.child = server.URL
	require.Equal(t, 0, eval[int](f.tab, `fx.open(location.origin + "/" + `+js(lazyPage("frameshang", "worker"))+`)`))
	require.Nil(t, f.inParent(`await fx.register({name: "p_tool", description: "d", execute: () => "p"})`).Error)
	require.Nil(t, f.inChild(`await fx.register({name: "c_tool", description: "d", execute: () => "c"})`).Error)

	// First, while the parent's 10 s for the module (counted from the
	// frame's appearing) have far from run out, however busy the machine:
	// after them the call would fail for the module, not its signal.
	child := `{name: "c_tool", description: "d", origin: location.origin, window: fx.children[0].frame.contentWindow}`
	got := value[map[string]any](t, f.inParent(raced(`document.modelContext.executeTool(`+child+`, {}, {signal: AbortSignal.timeout(300)})`, 5000)), "executeTool, its signal aborting at 300 ms")
	require.Nil(t, got["still"], "executeTool still waits 5 s, its signal aborted at 300 ms")
	assert.Equal(t, "TimeoutError: signal timed out", got["e"], "executeTool rejects with the signal's reason")

	for _, side := range []struct {
		name string
		in   func(string) settled
		own  string
	}{{"parent", f.inParent, "p_tool"}, {"child", f.inChild, "c_tool"}} {
		got := value[map[string]any](t, side.in(raced(`document.modelContext.getTools().then((ts) => ts.map((t) => t.name))`, 8000)), "getTools in the "+side.name)
		require.Nil(t, got["still"], "getTools in the %s still waits after 8 s", side.name)
		assert.Equal(t, []any{side.own}, got["v"], "getTools in the %s: its own tool", side.name)
	}
	got = value[map[string]any](t, f.inParent(raced(`document.modelContext.executeTool(`+child+`, {})`, 15000)), "executeTool without a signal")
	require.Nil(t, got["still"], "executeTool still waits 15 s")
	assert.Contains(t, got["e"], "UnknownError: tools across frames are off", "executeTool without a signal")
	assert.Equal(t, "p", value[string](t, f.inParent(`return navigator.modelContextTesting.executeTool("p_tool", "{}")`), "the page's own tool"), "the page's own tool still runs")
}

// TestRestartLazyStalls: the engine is lost and veil-restart.js is asked
// for and never answered. The call that waited fails once the module has
// not loaded within 10 s, and the runtime is then down: the next call
// fails at once.
func TestRestartLazyStalls(t *testing.T) {
	t.Parallel()
	lazyServe(t)
	tb := openTabFor(t, plain, bound.Of(60*time.Second))
	tb.navigate(lazyPage("restarthang", "worker") + "&faults=1")
	tb.allowConsole(`veil: the engine was lost`)
	tb.allowConsole(`veil: the engine could not be started again`)
	got := eval[map[string]any](tb, `(async () => {
		await veil.ready;
		const lost = [];
		veil.addEventListener("enginelost", (e) => lost.push(e.detail.restarting));
		await document.modelContext.registerTool({name: "greet", description: "Greets", annotations: {readOnlyHint: true}, execute: () => "Hello"});
		faults.exit();
		while (!lost.length) await new Promise((r) => setTimeout(r, 5));
		const first = await lazy.timed(() => navigator.modelContextTesting.executeTool("greet", "{}"));
		const second = await lazy.timed(() => navigator.modelContextTesting.executeTool("greet", "{}"));
		return {first: first.error?.name ?? "resolved", firstMs: first.ms, second: second.error?.name ?? "resolved", secondMs: second.ms};
	})()`)
	assert.Equal(t, "OperationError", got["first"], "the call that waited for the new engine")
	assert.Less(t, got["firstMs"], float64(20_000), "the call that waited for the new engine: %v", got)
	assert.Equal(t, "OperationError", got["second"], "the next call")
	assert.Less(t, got["secondMs"], float64(1_000), "the next call fails at once: the runtime is down: %v", got)
}

// TestRedeemLazyStalls: veil-redeem.js is asked for and never answered:
// a reveal of a reference resolves, as "network", once the module has not
// loaded within 10 s.
func TestRedeemLazyStalls(t *testing.T) {
	t.Parallel()
	f := openLazy(t, runWorker, "redeemhang", "")
	require.Nil(t, f.inParent(`await fx.register({name: "key", description: "Makes a key",
		execute: () => ({key: {type: "secret_reference", id: "ref-lazy-77", label: "Key", redeemUrl: "/redeem/ref-lazy-77", ttl: 600}})});
		await document.modelContext.executeTool((await document.modelContext.getTools())[0], {});`).Error)
	require.NoError(t, chromedp.Do(f.ctx, chromedp.MouseClickXY(60, 15)), "clicking Reveal")
	require.True(t, value[bool](t, f.inParent(`return fx.until(() => window.revealed !== undefined).then((ok) => ok || fx.until(() => window.revealed !== undefined))`), "the reveal resolved"), "the reveal resolved within 20 s")
	assert.Equal(t, "network", value[string](t, f.inParent(`return window.revealed.reason`), "the reveal's reason"))
}

// TestFramesLazyStartsOnce: page script that imports veil-frames.js gets
// the runtime's own instance; its start refuses to run again, so deps of
// the page's own cannot replace the runtime's, and another frame calling
// this frame's tool still gets the engine's view.
func TestFramesLazyStartsOnce(t *testing.T) {
	t.Parallel()
	f := openPatient(t, runWorker, "ok", "")
	f.child = server.URL
	require.Equal(t, 0, eval[int](f.tab, `fx.open(location.origin + "/" + `+js(patientPage("ok", "worker"))+`)`))
	require.Nil(t, f.inParent(`await fx.register({name: "p_key", description: "d",
		outputSchema: {type: "object", properties: {token: {type: "string", "x-sensitive": true}}},
		execute: () => ({token: "tok-shared-91ab"})})`).Error)
	view := func() string {
		return value[string](t, f.inChild(`const t = (await document.modelContext.getTools()).find((t) => t.name === "p_key");
			return document.modelContext.executeTool(t, {})`), "the child runs the parent's tool")
	}
	assert.NotContains(t, view(), "tok-shared-91ab", "before")
	got := value[string](t, f.inParent(`const m = await import("/lazy/ok/dist/veil-frames.js");
		try {
			m.start({run: async () => JSON.stringify({structuredContent: {token: "tok-shared-91ab"}})});
			return "started";
		} catch (e) {
			return e.message;
		}`), "the page's own start")
	assert.Equal(t, "veil: veil-frames.js has started", got, "the page's own start")
	assert.NotContains(t, view(), "tok-shared-91ab", "after the page's start with a run of its own")
}
