package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/veilmcp/veil/e2e/bound"
)

// These tests hold the page's side of a call to the engine's bounds when
// the page or its tools misbehave: every call the engine opened is closed,
// a timed-out call is not run again, and an abort is heard while the call
// waits.

// faultResult is what risk.call resolves with.
type faultResult struct {
	OK    bool     `json:"ok"`
	Value string   `json:"value"`
	Error *jsError `json:"error"`
}

// TestNoRetryAfterTimeout: an idempotent tool that rejects with its
// signal's reason when the call times out is not run a second time.
func TestNoRetryAfterTimeout(t *testing.T) {
	tb := openRisk(t, false, `[
		{name: "put_record", description: "Idempotent write that honours its signal", annotations: {idempotentHint: true, readOnlyHint: true},
			returns: (input, {signal}) => {
				window.runs = (window.runs ?? 0) + 1;
				return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
			} },
	]`, false)
	eval[bool](tb, `veil.configure({timeoutMs: 300}).then(() => true)`)
	r := eval[faultResult](tb, `risk.call("document.modelContext.executeTool", "put_record", {})`)
	assert.False(t, r.OK, "the call timed out")
	eval[bool](tb, `new Promise((r) => setTimeout(() => r(true), 300))`)
	assert.Equal(t, 1, eval[int](tb, `window.runs`), "execute ran once")
}

// TestCallsClosedOnPageFaults: a signal that is not an AbortSignal is
// refused before the engine opens a call, and a resolve whose answer the
// engine cannot read blocks its call: neither leaves a call open to
// count against maxCalls.
func TestCallsClosedOnPageFaults(t *testing.T) {
	t.Parallel() // a tab of its own; nothing waits on the clock
	tb := openRisk(t, false, `[
		{name: "light", description: "Light", annotations: {readOnlyHint: true}, returns: "ok"},
		{name: "deep", description: "resolve nests", annotations: {readOnlyHint: true},
			resolve: () => { let v = {}; for (let i = 0; i < 10001; i++) v = {x: v}; return {custom: v}; }, returns: "ok"},
	]`, false)
	eval[bool](tb, `veil.configure({maxCalls: 2}).then(() => true)`)
	errs := eval[[]string](tb, `(async () => {
		const errs = [];
		const t = (await document.modelContext.getTools()).find((t) => t.name === "light");
		for (let i = 0; i < 3; i++) {
			try { await document.modelContext.executeTool(t, {}, {signal: {throwIfAborted() {}}}); errs.push("resolved"); }
			catch (e) { errs.push(e.name); }
		}
		return errs;
	})()`)
	assert.Equal(t, []string{"TypeError", "TypeError", "TypeError"}, errs, "a signal that is not an AbortSignal")
	for range 3 {
		r := eval[faultResult](tb, `risk.call("document.modelContext.executeTool", "deep", {})`)
		assert.Contains(t, r.Value, `"isError":true`, "an unreadable resolve blocks the call")
	}
	r := eval[faultResult](tb, `risk.call("document.modelContext.executeTool", "light", {})`)
	assert.Equal(t, "ok", r.Value, "a later call finds room")
}

// TestAbortWhileConfirming: the caller's abort rejects a call waiting for
// the user, who never answers: the call does not wait for the answer. The
// abort comes once the question is asked, and the call has a bound to
// reject in, scaled by bound.Of, not a time it must beat.
func TestAbortWhileConfirming(t *testing.T) {
	t.Parallel() // a tab of its own; it waits on the question, then on the abort within a bound
	tb := openRisk(t, false, `[
		{name: "wire", description: "Consequential", annotations: {consequentialHint: true}, returns: "sent"},
	]`, false)
	eval[bool](tb, `veil.configure({confirm: () => ((window.asked = true), new Promise(() => {}))}).then(() => true)`)
	wait := bound.Millis(10 * time.Second)
	got := eval[string](tb, `(async () => {
		const t = (await document.modelContext.getTools()).find((t) => t.name === "wire");
		const c = new AbortController();
		const p = document.modelContext.executeTool(t, {}, {signal: c.signal}).then(() => "resolved", (e) => "rejected " + e.name);
		while (!window.asked) await new Promise((r) => setTimeout(r, 5));
		c.abort();
		return Promise.race([p, new Promise((r) => setTimeout(r, `+js(wait)+`, "still pending after abort"))]);
	})()`)
	assert.Equal(t, "rejected AbortError", got)
}

// TestConfigureRefusesNonFinite: JSON has no Infinity or NaN, which would
// arrive as null and restore a default; configure refuses them in every
// form.
func TestConfigureRefusesNonFinite(t *testing.T) {
	t.Parallel() // a tab of its own; nothing waits on the clock
	tb := openRisk(t, false, `[]`, false)
	got := eval[[]string](tb, `(async () => {
		const out = [];
		for (const opts of [{timeoutMs: Infinity}, {timeoutMs: new Number(Infinity)}, {timeoutMs: {toJSON: () => NaN}}, {slowTimeoutMs: -Infinity}]) {
			try { await veil.configure(opts); out.push("accepted"); } catch (e) { out.push(e.name); }
		}
		return out;
	})()`)
	assert.Equal(t, []string{"TypeError", "TypeError", "TypeError", "TypeError"}, got)
}
