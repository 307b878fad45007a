// bench.js measures the runtime against Chromium's own WebMCP, each in a
// page of its own: call latency and main-thread long tasks. The Go benchmark (bench_test.go)
// drives it and measures the rest through the DevTools protocol. It loads
// before the runtime, to keep Chromium's own document.modelContext and to
// see every long task from the start.
"use strict";

(() => {
  const nativeContext = (() => {
    try {
      return Object.getOwnPropertyDescriptor(Document.prototype, "modelContext")?.get?.call(document) ?? null;
    } catch {
      return null;
    }
  })();

  /** @type {{start: number, duration: number}[]} */
  const longTasks = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) longTasks.push({ start: e.startTime, duration: e.duration });
  });
  observer.observe({ type: "longtask", buffered: true });

  const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

  /** flush delivers the long tasks the browser has queued. */
  async function flush() {
    await tick();
    await new Promise((resolve) => requestAnimationFrame(() => resolve()));
    for (const e of observer.takeRecords()) longTasks.push({ start: e.startTime, duration: e.duration });
  }

  /** bigResult is about 1 MiB of JSON with an x-sensitive member in every item. */
  function bigResult() {
    const items = [];
    let size = 0;
    for (let i = 0; size < 1 << 20; i++) {
      const item = { id: i, name: `item number ${i} of the benchmark`, note: "some ordinary text here", secret: `sk-bench-${i}-${"x".repeat(24)}` };
      size += JSON.stringify(item).length + 1;
      items.push(item);
    }
    return { count: items.length, items };
  }

  const bigSchema = {
    type: "object",
    properties: {
      count: { type: "integer" },
      items: {
        type: "array",
        items: {
          type: "object",
          properties: {
            id: { type: "integer" },
            name: { type: "string" },
            note: { type: "string" },
            secret: { type: "string", "x-sensitive": true },
          },
        },
      },
    },
  };

  let big;
  const tools = {};

  /**
   * setup registers the same tools with the runtime and with Chromium, and
   * reports how long each took to register all four, in milliseconds.
   * "big" and "plain" return the same 1 MiB; only big's outputSchema marks
   * a member of each item x-sensitive. "hold" withholds 1,000 keys, after
   * which every output is searched for them. On a page without the runtime,
   * document.modelContext is Chromium's own, and only the native tools
   * are registered.
   */
  async function setup() {
    big = bigResult();
    const defs = [
      { name: "small", description: "A small result with nothing sensitive", execute: () => ({ ok: true, n: 1 }) },
      { name: "big", description: "About 1 MiB with x-sensitive items", outputSchema: bigSchema, execute: () => big },
      { name: "plain", description: "The same 1 MiB, nothing marked sensitive", execute: () => big },
      {
        name: "hold",
        description: "Withholds 1,000 keys at once",
        outputSchema: { type: "object", properties: { keys: { type: "array", items: { type: "string", "x-sensitive": true } } } },
        execute: () => ({ keys: Array.from({ length: 1000 }, (_, i) => `sk_live_${String(i).padStart(4, "0")}_${crypto.randomUUID()}`) }),
      },
    ];
    // A page with the runtime registers with it, a page without it with
    // Chromium's own: a tool registered around the runtime is one it
    // cannot control, and while one is there every call asks the user.
    const runtime = document.modelContext !== nativeContext;
    let registerMs = 0;
    let registerNativeMs = 0;
    for (const d of defs) {
      const t0 = performance.now();
      if (runtime) {
        await document.modelContext.registerTool(d);
        registerMs += performance.now() - t0;
      } else {
        await nativeContext.registerTool({ ...d, name: `native.${d.name}` });
        registerNativeMs += performance.now() - t0;
      }
    }
    const mine = runtime ? await document.modelContext.getTools() : [];
    const theirs = runtime ? [] : await nativeContext.getTools();
    for (const d of defs) {
      tools[d.name] = { runtime: mine.find((t) => t.name === d.name), native: theirs.find((t) => t.name === `native.${d.name}`) };
    }
    return { bytes: JSON.stringify(big).length, items: big.items.length, registerMs, registerNativeMs };
  }

  function caller(which, name) {
    const t = tools[name][which];
    const mc = which === "native" ? nativeContext : document.modelContext;
    return () => mc.executeTool(t, {});
  }

  /**
   * latency calls the tool n times, after warm calls, and reports the
   * mean and the median in milliseconds, the length of the last answer
   * and the longest main-thread task that started while the n calls ran.
   */
  async function latency(which, name, n, warm) {
    const call = caller(which, name);
    let answer = "";
    for (let i = 0; i < warm; i++) answer = await call();
    await flush();
    const times = [];
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const s = performance.now();
      answer = await call();
      times.push(performance.now() - s);
    }
    const t1 = performance.now();
    await flush();
    times.sort((a, b) => a - b);
    const during = longTasks.filter((e) => e.start >= t0 - 1 && e.start <= t1);
    return {
      mean: (t1 - t0) / n,
      median: times[times.length >> 1],
      p90: times[Math.floor(times.length * 0.9)],
      answerLength: answer.length,
      longestTask: Math.max(0, ...during.map((e) => e.duration)),
    };
  }

  /** loadTasks reports the long tasks from navigation to now. */
  async function loadTasks() {
    await flush();
    return { count: longTasks.length, longest: Math.max(0, ...longTasks.map((e) => e.duration)), tasks: longTasks.slice() };
  }

  /** echo is a Worker that does nothing but answer each message with it. */
  let echo;
  /**
   * roundTrips times n pairs of round trips to a Worker that does nothing,
   * after warm pairs, and returns the mean per pair, in milliseconds: what
   * a call through an engine in a Worker pays for crossing to it and back
   * twice (the call, then its output), before the engine does anything.
   */
  async function roundTrips(n, warm) {
    echo ??= new Worker(URL.createObjectURL(new Blob(["onmessage = (e) => postMessage(e.data);"], { type: "text/javascript" })));
    const once = () =>
      new Promise((resolve) => {
        echo.onmessage = resolve;
        echo.postMessage({ op: "output", header: '{"call":"x","kind":"returned"}', body: '{"ok":true,"n":1}' });
      });
    for (let i = 0; i < warm; i++) await once(), await once();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await once(), await once();
    return (performance.now() - t0) / n;
  }

  window.bench = { setup, latency, roundTrips, loadTasks, hasNative: () => !!nativeContext };
})();
