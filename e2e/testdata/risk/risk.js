// risk.js is the page side of risk_test.go: it registers a case's tools
// from data, answers the runtime's confirmations as the test says, and
// records what execute, the confirmation handler and the veil namespace's
// events saw, as plain data for the Go side.
"use strict";

(() => {
  /** Every execute call: the tool, its input and the request annotations. */
  const calls = [];
  /** Every confirmation request, without its signal. */
  const asked = [];
  /** The answers the next confirmations get: "approve" or "decline". */
  const answers = [];
  /** The veil namespace's events, in order. */
  const events = [];
  for (const type of ["decision", "trustchange", "malicious"]) {
    veil.addEventListener(type, (e) => events.push({ type, detail: e.detail }));
  }
  let unanswered = 0;

  /** confirm is the page's confirmation handler: it answers from answers. */
  async function confirm(request) {
    const { signal, ...rest } = request;
    asked.push(rest);
    const a = answers.shift();
    if (a === undefined) unanswered++;
    return a === "approve";
  }

  /** compile evaluates a case's JavaScript expression. */
  const compile = (source) => new Function(`"use strict";\nreturn (\n${source}\n);`)();

  window.risk = {
    /** settle runs f and reports its outcome as data, as harness.js's e2e.settle does. */
    async settle(f) {
      try {
        const value = await f();
        return { ok: true, value: value === undefined ? null : value, type: value === undefined ? "undefined" : typeof value };
      } catch (e) {
        return { ok: false, error: { name: String(e?.name), message: String(e?.message), domException: e instanceof DOMException } };
      }
    },
    calls,
    asked,
    answers,
    events,
    get unanswered() {
      return unanswered;
    },

    /**
     * load registers a case's tools: an array of tool definitions whose
     * returns (a value, or a function of input and options) is what
     * execute returns. With builtin, the runtime's own dialog answers.
     */
    async load(source, builtin = false) {
      if (!builtin) await veil.configure({ confirm });
      for (const t of compile(source)) {
        const { returns, ...def } = t;
        await document.modelContext.registerTool({
          ...def,
          execute(input, options) {
            const a = options.annotations;
            calls.push({ tool: def.name, input, annotations: a, frozen: Object.isFrozen(a) && Object.isFrozen(a.privateData) });
            return typeof returns === "function" ? returns(input, options) : returns;
          },
        });
      }
    },

    /** call runs a tool through the agent path named as in veil.paths. */
    async call(path, name, input) {
      const p = veil.paths.find((p) => p.name === path);
      if (!p) return { ok: false, error: { name: "NoPath", message: path } };
      try {
        const v = await p.execute(name, JSON.stringify(input));
        return { ok: true, value: v };
      } catch (e) {
        return { ok: false, error: { name: String(e?.name), message: String(e?.message) } };
      }
    },

    /** dialog describes the built-in confirmation dialog, if one is open. */
    dialog() {
      const host = document.querySelector("veil-confirm");
      const d = host?.shadowRoot?.querySelector("dialog");
      if (!d?.open) return null;
      const label = (id) => host.shadowRoot.getElementById(d.getAttribute(id) ?? "")?.textContent ?? null;
      const focused = host.shadowRoot.activeElement;
      const box = (sel) => {
        const r = host.shadowRoot.querySelector(sel).getBoundingClientRect();
        return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
      };
      return {
        modal: d.matches(":modal"),
        labelledBy: label("aria-labelledby"),
        describedBy: label("aria-describedby"),
        reasons: [...d.querySelectorAll("li")].map((li) => li.textContent),
        focused: focused?.textContent ?? null,
        allow: box("button.allow"),
        deny: box("button.deny"),
      };
    },

    /** scriptClickAllow clicks "Allow" from script, as an agent driving the page could. */
    scriptClickAllow() {
      document.querySelector("veil-confirm").shadowRoot.querySelector("button.allow").click();
    },
  };
})();
