// harness.js holds the helpers that the Go tests call through the DevTools
// protocol. It registers tools from plain data, so that a test case needs
// no JavaScript of its own, and it turns every settled promise into a plain
// value that crosses the protocol without loss.
"use strict";

(() => {
  /**
   * settle runs f and reports its outcome as data.
   * @param {() => any} f
   * @returns {Promise<{ok: true, value: any, type: string} | {ok: false, error: {name: string, message: string, domException: boolean}}>}
   */
  async function settle(f) {
    try {
      const value = await f();
      return { ok: true, value: value === undefined ? null : value, type: value === undefined ? "undefined" : typeof value };
    } catch (e) {
      return {
        ok: false,
        error: {
          name: e && e.name !== undefined ? String(e.name) : typeof e,
          message: e && e.message !== undefined ? String(e.message) : String(e),
          domException: e instanceof DOMException,
        },
      };
    }
  }

  /**
   * executor makes the execute callback of a tool from its behaviour:
   * {returns: value} returns value, {returnsUndefined: true} returns
   * undefined, {throws: message} throws an Error, {rejects: message} returns
   * a rejected promise, {echo: true} returns the input it got, and
   * {pending: true} never settles but records the abort of its signal.
   */
  function executor(name, behaviour) {
    const b = behaviour || {};
    return function execute(input, options) {
      calls.push({ tool: name, input, hasSignal: !!(options && options.signal instanceof AbortSignal) });
      if ("throws" in b) throw new Error(b.throws);
      if ("rejects" in b) return Promise.reject(new Error(b.rejects));
      if (b.returnsUndefined) return undefined;
      if (b.echo) return input;
      if (b.pending) {
        return new Promise((resolve) => {
          options.signal.addEventListener("abort", () => {
            aborts.push(name);
            resolve("aborted");
          });
        });
      }
      return b.returns;
    };
  }

  const calls = [];
  const aborts = [];
  const events = [];
  const registrations = new Map();

  /** api returns the object a test names: "document", "navigator" or "testing". */
  function api(which) {
    switch (which) {
      case "document":
        return document.modelContext;
      case "navigator":
        return navigator.modelContext;
      case "testing":
        return navigator.modelContextTesting;
    }
    throw new TypeError(`unknown API ${which}`);
  }

  function listen(target) {
    for (const type of ["toolchange", "toolactivated", "toolcancel"]) {
      target.addEventListener(type, (e) => events.push(e.toolName ? `${type}:${e.toolName}` : type));
    }
  }

  window.e2e = {
    calls,
    aborts,
    events,
    settle,
    listen,

    /**
     * register registers a tool on document.modelContext (or the object
     * named by which) from a definition without execute, plus its behaviour.
     * def.execute, when present, replaces the callback (for the bad-input cases).
     */
    register(def, behaviour, which = "document") {
      const tool = Object.assign({}, def);
      if (!("execute" in tool)) tool.execute = executor(def.name, behaviour);
      const controller = new AbortController();
      registrations.set(def.name, controller);
      return settle(() => api(which).registerTool(tool, { signal: controller.signal }));
    },

    /** unregister aborts the signal given to register. */
    unregister(name) {
      registrations.get(name).abort();
    },

    /** tools lists the tools as JSON-safe data (getTools carries a Window). */
    async tools(which = "document") {
      const list = await api(which).getTools();
      return list.map((t) => {
        const o = {};
        for (const k of Object.keys(t)) if (k !== "window") o[k] = t[k];
        return o;
      });
    },

    /**
     * execute runs a tool through the agent path named by which: "document"
     * and "navigator" call executeTool with the registered tool from
     * getTools; "testing" calls navigator.modelContextTesting.executeTool with
     * the input as JSON text. An input of undefined is left out.
     */
    execute(which, name, input, hasInput = true) {
      return settle(async () => {
        if (which === "testing") {
          return api("testing").executeTool(name, hasInput ? JSON.stringify(input) : "{}");
        }
        const mc = api(which);
        const tool = (await mc.getTools()).find((t) => t.name === name);
        if (!tool) throw new Error(`no tool ${name}`);
        return hasInput ? mc.executeTool(tool, input) : mc.executeTool(tool);
      });
    },
  };
})();
