// spec.js runs the suite's spec-behaviour cases (testdata/spec/*.txtar) in
// the page: each case is the body of an async function that drives a
// ModelContext and returns its outcome as data, so the same case runs
// against Chromium's own WebMCP and against an implementation in front of
// it, and the Go test compares the two.
//
// It must load before the implementation under test, to keep Chromium's own
// document.modelContext.
"use strict";

(() => {
  const nativeContext = (() => {
    try {
      return Object.getOwnPropertyDescriptor(Document.prototype, "modelContext")?.get?.call(document) ?? null;
    } catch {
      return null;
    }
  })();

  const AsyncFunction = (async () => {}).constructor;

  /**
   * helpers are what a case's script can use, besides mc, the
   * ModelContext under test.
   */
  function helpers(messages) {
    const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
    return {
      /** tool makes a tool definition: name, description "d", execute returning "x". */
      tool: (name, extra = {}) => ({ name, description: "d", execute: () => "x", ...extra }),
      /**
       * attempt runs f and reports its outcome: {ok: true, value?} or
       * {error: name}. Error messages go to the report, not the outcome,
       * because no two implementations word them alike.
       */
      async attempt(f) {
        try {
          const value = await f();
          return value === undefined ? { ok: true } : { ok: true, value };
        } catch (e) {
          const name = e && e.name !== undefined ? String(e.name) : typeof e;
          messages.push(`${name}: ${e && e.message !== undefined ? e.message : String(e)}`);
          return { error: name };
        }
      },
      /** tick waits for one task, so that queued tasks and events run. */
      tick,
      /** until waits, a task at a time, for cond() to be true, at most 200 tasks. */
      async until(cond) {
        for (let i = 0; i < 200; i++) {
          if (cond()) return true;
          await tick();
        }
        return false;
      },
      /**
       * settledWithin reports whether p settles before n tasks have run:
       * "resolved", "rejected:<name>" or "pending".
       */
      async settledWithin(p, n = 50) {
        let state = "pending";
        p.then(
          () => (state = "resolved"),
          (e) => (state = `rejected:${e?.name}`),
        );
        for (let i = 0; i < n && state === "pending"; i++) await tick();
        return state;
      },
      /** registered finds a tool by name in getTools. */
      registered: async (mc, name) => (await mc.getTools()).find((t) => t.name === name),
    };
  }

  /**
   * run runs every case against the named ModelContext: "native" for
   * Chromium's own, "page" for document.modelContext as the page sees it.
   * It returns, per case, the outcome and the error messages. caseTimeout
   * bounds each case, in milliseconds (the test scales it with the
   * machine).
   */
  async function run(target, cases, caseTimeout = 5000) {
    await Promise.resolve(globalThis.veil?.ready).catch(() => {});
    const mc = target === "native" ? nativeContext : document.modelContext;
    const out = {};
    for (const c of cases) {
      const messages = [];
      let outcome;
      let timer;
      try {
        const body = new AsyncFunction("mc", "h", `"use strict";\nconst {tool, attempt, tick, until, settledWithin, registered} = h;\n${c.script}`);
        // A case that never settles is reported by name, not as the whole
        // run's deadline.
        const hung = new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the case did not settle within ${caseTimeout} ms`)), caseTimeout);
        });
        outcome = await Promise.race([body(mc, helpers(messages)), hung]);
      } catch (e) {
        outcome = { threw: `${e?.name}: ${e?.message}` };
      } finally {
        clearTimeout(timer);
      }
      // Let the case's stray events and timers run before the next one.
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 0));
      out[c.name] = { outcome: outcome === undefined ? null : outcome, messages };
    }
    return out;
  }

  window.spec = { run, hasNative: () => !!nativeContext };
})();
