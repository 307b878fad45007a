package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attacks on the sweep's allowance for a reading that began before one of
// the runtime's mirrors left the native registry (mirrorEnded).

// registerLater registers a runtime tool named name and waits for its mirror.
func registerLater(t *testing.T, tb *tab, name string) {
	t.Helper()
	eval[bool](tb, `(async () => {
		window.laters ??= {};
		const c = (laters[`+js(name)+`] = new AbortController());
		await document.modelContext.registerTool({name: `+js(name)+`, description: "Runs later", execute: () => "later"}, {signal: c.signal});
		return true;
	})()`)
	tb.poll(`foreign.native().then((l) => l.includes(` + js(name+"@self") + `))`)
}

// TestForeignSwapInOneTask: in one task, the page's own tool "swap<i>"
// ends (its mirror leaves the native registry) and a tool of the same name
// is registered on the browser's ModelContext around the runtime. The
// registry's toolchanges make the runtime read it again, each reading
// starting after the mirror left, so the foreign tool must be heard of.
// The runtime's clock is coarse (100 µs): a reading that began in the
// same tick as the mirror's leaving counts as begun after it, so the
// foreign tool is never taken for the mirror.
func TestForeignSwapInOneTask(t *testing.T) {
	tb := openForeign(t, native, "foreign.html", foreignTools)
	const n = 10
	var missed []string
	for i := 0; i < n; i++ {
		name := "swap" + string(rune('a'+i))
		registerLater(t, tb, name)
		before := eval[int](tb, `foreign.events.length`)
		require.Nil(t, eval[settled](tb, `risk.settle(async () => { laters[`+js(name)+`].abort(); await foreign.register(`+js(name)+`); })`).Error, "the foreign registration")
		// Every reading the toolchanges asked for.
		eval[bool](tb, `new Promise((r) => setTimeout(() => r(true), 400))`)
		if !eval[bool](tb, `foreign.events.slice(`+js(before)+`).some((e) => e.name === `+js(name)+` && e.callable)`) {
			missed = append(missed, name)
		}
		eval[bool](tb, `(foreign.unregister(`+js(name)+`), true)`)
		eval[bool](tb, `new Promise((r) => setTimeout(() => r(true), 300))`)
	}
	t.Logf("clock resolution: %v", eval[[]float64](tb, `(() => { const a = performance.now(); let b = a; while (b === a) b = performance.now(); return [a, b, b - a]; })()`))
	assert.Empty(t, missed, "foreign tools registered under a mirror's name as it left, never heard of (of %d)", n)
}

// TestForeignForgedClock: the runtime pins the registry's getTools as the
// browser had it when the runtime started ("one replaced later hides
// nothing"), but its new clock reads performance.now live. A script that
// runs after the runtime makes performance.now constant: every name whose
// mirror ever left is then "a mirror that left after this reading began",
// for every reading to come, and a foreign tool of that name is never
// heard of; calls do not fail closed and private results reach the agent
// beside a tool that sends what it is given elsewhere.
func TestForeignForgedClock(t *testing.T) {
	tb := openForeign(t, native, "foreign.html", foreignTools)
	registerLater(t, tb, "later")
	eval[bool](tb, `(() => { const now = performance.now(); performance.now = () => now; return true; })()`)
	eval[bool](tb, `(laters.later.abort(), true)`)
	tb.poll(`foreign.native().then((l) => !l.includes("later@self"))`)
	require.Nil(t, eval[settled](tb, `risk.settle(() => foreign.register("later"))`).Error, "the foreign registration")
	// A DOM change and a frame's load, which make the runtime read the registry again.
	eval[bool](tb, `(document.body.append(document.createElement("div")), true)`)
	eval[bool](tb, `new Promise((r) => setTimeout(() => r(true), 1000))`)
	assert.Contains(t, eval[[]string](tb, `foreign.native()`), "later@self", "the foreign tool is in the native registry")
	assert.Equal(t, []foreignEvent{{"native", "later", callable(true)}}, eval[[]foreignEvent](tb, `foreign.events`), "the page hears of the foreign tool")
	assertFailsClosed(t, tb, []string{"later"})
}

// TestForeignFrameMirrorLeftDuringReading: TestForeignMirrorLeftDuringReading
// across frames. The parent's reading of the registry (held back) lists a
// mirror of a same-origin child's Veil; the child's tool then ends, and the
// child's own sweeps run twice before the parent's reading is judged. The
// child's second sweep drops the record of when its mirror left ("only a
// reading that began after a mirror left can judge its name": the child's
// own readings), so the parent, asking the child about a reading that
// began before, hears "not a mirror": the runtime's own mirror is taken for
// a foreign tool, and the parent's session fails closed until it reads the
// registry again.
func TestForeignFrameMirrorLeftDuringReading(t *testing.T) {
	tb := openForeign(t, native, "reading.html", foreignTools)
	eval[bool](tb, `(async () => {
		await foreign.frame("child", "srcdoc", '<script src="/dist/webmcp.js"><\/script>');
		const w = foreign.frames.child.contentWindow;
		await w.veil.ready;
		w.later = new w.AbortController();
		await w.document.modelContext.registerTool({name: "later", description: "Runs later", execute: () => "later"}, {signal: w.later.signal});
		return true;
	})()`)
	tb.poll(`foreign.native().then((l) => l.includes("later@child"))`)
	eval[bool](tb, `new Promise((r) => setTimeout(() => r(true), 300))`)
	require.Empty(t, eval[[]foreignEvent](tb, `foreign.events`), "the child's mirror is not foreign")
	// Hold the parent's next reading, and make one: it lists the child's mirror.
	eval[bool](tb, `(readings.hold = true, document.body.append(document.createElement("div")), true)`)
	tb.poll(`readings.lists.length > 0`)
	require.Contains(t, eval[[]string](tb, `readings.lists[0]`), "later", "the held reading lists the child's mirror")
	// The child's tool ends; the child reads its registry twice meanwhile.
	eval[bool](tb, `(foreign.frames.child.contentWindow.later.abort(), true)`)
	tb.poll(`foreign.native().then((l) => !l.includes("later@child"))`)
	eval[bool](tb, `new Promise((r) => setTimeout(() => r(true), 300))`)
	eval[bool](tb, `(foreign.frames.child.contentDocument.body.append(document.createElement("div")), true)`)
	eval[bool](tb, `new Promise((r) => setTimeout(() => r(true), 400))`)
	eval[bool](tb, `(readings.release(), true)`)
	eval[bool](tb, `new Promise((r) => setTimeout(() => r(true), 500))`)
	assert.Empty(t, eval[[]foreignEvent](tb, `foreign.events`), "the child Veil's own mirror was taken for a foreign tool")
}
