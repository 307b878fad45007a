// forms.js: the helpers of the declarative-tool pages. The Go tests
// (forms_test.go) drive the page's forms as agents and as the user, and
// read what the page saw: the events at the controls and the submissions.
"use strict";

(() => {
  const log = [];
  const refused = [];
  /** What each form's submit listener does, by form id. */
  const answer = {};
  /** Whether a form has an attribute, read as Element's: a control may be named hasAttribute. */
  const has = (form, name) => Element.prototype.hasAttribute.call(form, name);

  for (const type of ["input", "change"])
    document.addEventListener(type, (e) => log.push(`${type}:${e.target.name}`), true);
  document.addEventListener("submit", (e) => {
    const form = e.target;
    log.push(`submit:${form.id}:agent=${e.agentInvoked}:trusted=${e.isTrusted}:active=${has(form, "data-veil-tool-form-active")}`);
    const a = answer[form.id];
    if (!a) return;
    e.preventDefault();
    if (!e.agentInvoked) return;
    if (a.remove) form.remove();
    if ("respond" in a) e.respondWith(Promise.resolve(typeof a.respond === "function" ? a.respond(form) : a.respond));
  });
  veil.addEventListener("formtoolerror", (e) => refused.push({ name: e.detail.name, error: e.detail.error.name }));

  /**
   * What the user types, by form id, into a form an agent's call has
   * filled and waits on: once the form is active, the user types each
   * value (an input event for each) and clicks the submit button. Once.
   */
  const user = {};
  new MutationObserver((records) => {
    for (const { target: form } of records) {
      const values = user[form.id];
      if (!values || !has(form, "data-veil-tool-form-active")) continue;
      delete user[form.id];
      for (const [name, value] of Object.entries(values)) {
        const el = form.elements.namedItem(name);
        el.value = value;
        el.dispatchEvent(new Event("input", { bubbles: true }));
      }
      setTimeout(() => form.querySelector("[data-veil-tool-submit-active]").click());
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-veil-tool-form-active"] });

  /** settle reports a promise's outcome as data. */
  const settle = (p) =>
    Promise.resolve(p).then(
      (value) => ({ ok: true, value }),
      (e) => ({ ok: false, error: String(e?.name) }),
    );

  window.forms = {
    log,
    refused,
    answer,
    user,
    settle,
    /** tool waits until getTools lists the name, and returns its entry without the window. */
    async tool(name) {
      for (;;) {
        const t = (await document.modelContext.getTools()).find((t) => t.name === name);
        if (t) return { ...t, window: undefined };
        await new Promise((r) => document.modelContext.addEventListener("toolchange", r, { once: true }));
      }
    },
    /** gone waits until getTools no longer lists the name. */
    async gone(name) {
      while ((await document.modelContext.getTools()).some((t) => t.name === name))
        await new Promise((r) => document.modelContext.addEventListener("toolchange", r, { once: true }));
      return true;
    },
    /** call executes a tool through the agent path veil.paths names, and keeps the promise. */
    call(path, name, input, signal) {
      forms.done = false;
      const p = path === "signal"
        ? document.modelContext.executeTool({ name, description: "", window, origin: location.origin }, input, { signal })
        : veil.paths.find((p) => p.name === path).execute(name, JSON.stringify(input));
      return (forms.pending = settle(p).finally(() => (forms.done = true)));
    },
    /** add inserts a form from HTML, and returns true. */
    add(html) {
      document.body.insertAdjacentHTML("beforeend", html);
      return true;
    },
  };
})();
