// conformance.js runs the suite's data cases in the page. The Go tests load
// the cases (testdata/cases/*.txtar) into it, register every case's tool,
// and its earlier tools (earlier.json), at once, then call every tool
// through one agent path per round trip, a case's earlier tools in order
// right before its own, so a page serves all cases.
//
// It must load before the implementation under test: it keeps Chromium's
// own document.modelContext, if there is one, before anything shadows it.
"use strict";

(() => {
  /** Chromium's native ModelContext, or null. */
  const nativeContext = (() => {
    try {
      return Object.getOwnPropertyDescriptor(Document.prototype, "modelContext")?.get?.call(document) ?? null;
    } catch {
      return null;
    }
  })();

  /**
   * expression compiles a case's JavaScript expression into a function of
   * the input and the case's fixture (text an encoder wrote).
   */
  const expression = (source) => new Function("input", "fixture", `"use strict";\nreturn (\n${source}\n);`);

  /** errorOf reports a thrown value as data. */
  const errorOf = (e) => ({
    name: e && e.name !== undefined ? String(e.name) : typeof e,
    message: e && e.message !== undefined ? String(e.message) : String(e),
  });

  /**
   * asNative is what Chromium's executeTool resolves with for a result,
   * as measured: a string as it is ("" becomes "Operation succeeded"),
   * anything else JSON.stringify'd, "undefined" when that gives nothing.
   */
  const asNative = (v) => {
    if (typeof v === "string") return v === "" ? "Operation succeeded" : v;
    const s = JSON.stringify(v);
    return s === undefined ? "undefined" : s;
  };

  /**
   * @typedef {{def: object, input: any, make: Function, fixture: string|undefined, throws: boolean, passthrough: boolean, calls: number}} Tool
   * @type {Map<string, Tool & {earlier: Tool[]}>}
   */
  const cases = new Map();

  /** executor makes the execute callback of a case. */
  const executor = (c) =>
    function execute(input) {
      c.calls++;
      const v = c.make(input, c.fixture);
      if (c.throws) throw v;
      return v;
    };

  /**
   * load registers the tool of every case, and its earlier tools, with the
   * implementation under test. It returns the registration errors by case
   * name.
   */
  async function load(list) {
    const failed = {};
    await Promise.all(
      list.map(async (spec) => {
        try {
          const def = expression(spec.tool)(undefined);
          def.name ??= spec.name;
          def.description ??= `conformance case ${spec.name}`;
          const c = {
            def,
            input: JSON.parse(spec.input || "{}"),
            make: expression(spec.throws ?? spec.returns ?? "undefined"),
            fixture: spec.fixture,
            throws: spec.throws !== undefined,
            passthrough: !!spec.passthrough,
            calls: 0,
            earlier: (spec.earlier ?? []).map((e) => ({
              def: expression(e.tool)(undefined),
              input: JSON.parse(e.input),
              make: expression(e.returns),
              fixture: undefined,
              throws: false,
              passthrough: false,
              calls: 0,
            })),
          };
          cases.set(spec.name, c);
          for (const e of c.earlier) {
            try {
              await document.modelContext.registerTool({ ...e.def, execute: executor(e) });
            } catch (err) {
              const { name, message } = errorOf(err);
              throw { name, message: `earlier tool ${e.def.name}: ${message}` };
            }
          }
          await document.modelContext.registerTool({ ...def, execute: executor(c) });
        } catch (e) {
          failed[spec.name] = errorOf(e);
        }
      }),
    );
    return failed;
  }

  /** paths are the in-page agent paths, by the names the Go tests use. */
  const paths = {
    async document() {
      return byName(document.modelContext, (tool, input) => document.modelContext.executeTool(tool, input));
    },
    async navigator() {
      return byName(navigator.modelContext, (tool, input) => navigator.modelContext.executeTool(tool, input));
    },
    async testing() {
      if (typeof navigator.modelContextTesting?.executeTool !== "function") return null;
      return (name, input) => navigator.modelContextTesting.executeTool(name, JSON.stringify(input));
    },
    async native() {
      if (!nativeContext) return null;
      return byName(nativeContext, (tool, input) => nativeContext.executeTool(tool, input));
    },
  };

  async function byName(mc, execute) {
    if (typeof mc?.getTools !== "function") return null;
    const tools = new Map((await mc.getTools()).map((t) => [t.name, t]));
    return (name, input) => {
      const tool = tools.get(name);
      if (!tool) return Promise.reject(new Error(`the path lists no tool named ${name}`));
      return execute(tool, input);
    };
  }

  /**
   * calls keeps each path's call function from its first run: a path
   * reads the tools once, with every case's loaded, however many runs
   * take the cases a few at a time.
   */
  const calls = new Map();

  /**
   * run calls every named case's tool through the path, one after the
   * other, each right after the case's earlier tools, in order, and
   * reports each outcome, the earlier calls' under "earlier". For
   * pass-through cases it also says whether the result of the case's own
   * call is, code unit for code unit, what Chromium gives.
   */
  async function run(path, names) {
    if (!calls.has(path)) calls.set(path, await paths[path]());
    const call = calls.get(path);
    if (!call) return { missing: true };
    const results = {};
    for (const name of names) {
      const c = cases.get(name);
      if (!c) continue;
      const earlier = [];
      for (const e of c.earlier) earlier.push(await callOnce(call, e));
      const r = await callOnce(call, c);
      r.earlier = earlier;
      results[name] = r;
    }
    return { results };
  }

  /** callOnce calls a tool through a path and reports the outcome. */
  async function callOnce(call, c) {
    const before = c.calls;
    const r = {};
    try {
      const v = await call(c.def.name, c.input);
      r.ok = true;
      r.type = v === null ? "null" : typeof v;
      r.value = v;
      if (typeof v === "string") r.wellFormed = v.isWellFormed();
      if (c.passthrough) r.same = v === (await expected(c));
    } catch (e) {
      r.ok = false;
      r.error = errorOf(e);
    }
    r.calls = c.calls - before;
    return r;
  }

  /** expected is what an implementation must give for a pass-through case. */
  async function expected(c) {
    return asNative(await c.make(c.input, c.fixture));
  }

  /**
   * oracle reports, for every pass-through case, what the rule says the
   * agent gets and what Chromium's own executeTool gave for the same tool,
   * registered in Chromium's native registry under "native.<name>". The
   * oracle's tools are registered only now, after every agent path ran,
   * and unregistered after: a tool registered around the runtime is one it
   * cannot control, and while one is there it asks before every call.
   */
  async function oracle(names) {
    const out = {};
    const registered = new AbortController();
    const failed = new Map();
    if (nativeContext)
      for (const name of names) {
        const c = cases.get(name);
        if (!c?.passthrough) continue;
        try {
          await nativeContext.registerTool(
            { ...c.def, name: `native.${c.def.name}`, execute: (input) => c.make(input, c.fixture) },
            { signal: registered.signal },
          );
        } catch (e) {
          failed.set(name, errorOf(e));
        }
      }
    try {
      const tools = nativeContext ? new Map((await nativeContext.getTools()).map((t) => [t.name, t])) : null;
      for (const name of names) {
        const c = cases.get(name);
        if (!c?.passthrough) continue;
        const o = { rule: await expected(c) };
        const tool = tools?.get(`native.${c.def.name}`);
        if (failed.has(name)) o.nativeError = failed.get(name);
        else if (tool) {
          try {
            const v = await nativeContext.executeTool(tool, c.input);
            o.native = v;
            o.same = v === o.rule;
          } catch (e) {
            o.nativeError = errorOf(e);
          }
        }
        out[name] = o;
      }
    } finally {
      registered.abort();
    }
    return out;
  }

  /**
   * devtools judges the outputs of WebMCP.toolResponded, as the JSON text
   * Chromium sent, by case: whether every string in the output is well
   * formed and, for pass-through cases, whether it is what executeTool
   * gives. Chromium sends the string parsed when it takes it as JSON text,
   * else as a JSON string, so a parsed output is compared as a value, its
   * strings code unit for code unit; JSON.parse keeps a lone surrogate.
   */
  async function devtools(outputs) {
    const wellFormed = (v) =>
      typeof v === "string"
        ? v.isWellFormed()
        : v === null || typeof v !== "object" || Object.entries(v).every(([k, x]) => k.isWellFormed() && wellFormed(x));
    const out = {};
    for (const [name, text] of Object.entries(outputs)) {
      const c = cases.get(name);
      const v = JSON.parse(text);
      const r = { wellFormed: wellFormed(v) };
      if (c?.passthrough) {
        const want = await expected(c);
        r.same = v === want;
        if (!r.same) {
          try {
            r.same = JSON.stringify(v) === JSON.stringify(JSON.parse(want));
          } catch {}
        }
      }
      out[name] = r;
    }
    return out;
  }

  /** ready resolves once the implementation under test says it is ready. */
  const ready = () => Promise.resolve(globalThis.veil?.ready).then(() => true);

  window.conformance = { load, run, oracle, devtools, ready, hasNative: () => !!nativeContext };
})();
