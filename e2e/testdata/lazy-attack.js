// lazy-attack.js helps frames_lazy_attack_test.go attack the frames code
// that webmcp.js loads lazily (veil-frames.js): it loads after frames.js
// and before the runtime, records the page's unhandled rejections and
// console errors, drives frames that fx did not open (one in a closed
// shadow root, which the runtime's guard cannot see), and crafts requests
// as the runtime would, collecting what comes back on their ports.
"use strict";

(() => {
  const TAG = "e2e.frames";
  const FRAMES = "dev.veil/frames";
  /** The windows that said they are ready, with their origins. */
  const readies = [];
  addEventListener("message", (e) => e.data?.[TAG] === "ready" && readies.push({ w: e.source, origin: e.origin }), true);

  window.lazy = {
    /** The reasons of the page's unhandled rejections. */
    rejections: [],
    /** The first argument of each console.error, as text. */
    errors: [],
    /** loaded says whether this document fetched veil-frames.js. */
    loaded: () => performance.getEntriesByType("resource").some((e) => new URL(e.name).pathname.endsWith("/veil-frames.js")),
    /**
     * adopt makes a frame of origin that fx did not open, and that said
     * it is ready, a child of fx (so that fx.in drives it), and resolves
     * with its index.
     */
    async adopt(origin) {
      const mine = (w) => fx.children.some((c) => c.frame.contentWindow === w);
      let r;
      await fx.until(() => (r = readies.find((r) => r.origin === origin && !mine(r.w))));
      if (!r) throw new Error(`no frame of ${origin} said it is ready`);
      fx.children.push({ frame: { contentWindow: r.w }, origin, ready() {} });
      return fx.children.length - 1;
    },
    /**
     * craft posts a request to w at origin, tagged as the runtime tags
     * its own, with a port of its own, and resolves with what came back
     * on the port after ms; or, once until messages came, 500 ms after
     * (so that one too many still shows).
     */
    craft(w, origin, message, ms = 1500, until = Infinity) {
      const { port1, port2 } = new MessageChannel();
      const got = [];
      return new Promise((resolve) => {
        let timer = setTimeout(() => resolve(got.slice()), ms);
        port1.onmessage = (e) => {
          got.push(e.data);
          if (got.length === until) clearTimeout(timer), (timer = setTimeout(() => resolve(got.slice()), 500));
        };
        w.postMessage({ [FRAMES]: 1, ...message }, origin, [port2]);
      });
    },
    /** timed resolves with how long f's promise took, in ms, and its outcome. */
    async timed(f) {
      const t0 = performance.now();
      const outcome = await e2e.settle(f);
      return { ms: Math.round(performance.now() - t0), ...outcome };
    },
  };
  const error = console.error;
  console.error = (...args) => (lazy.errors.push(String(args[0])), error.apply(console, args));
  addEventListener("unhandledrejection", (e) => lazy.rejections.push(String(e.reason?.message ?? e.reason)));

  // A popup asked to (?craft=<origin>) crafts requests to its opener at
  // that origin once it has loaded, and reports what came back.
  const target = new URLSearchParams(location.search).get("craft");
  if (target && opener) {
    addEventListener(
      "load",
      async () => {
        const got = {};
        for (const [k, m] of Object.entries({
          list: { type: "list" },
          callPrivate: { type: "call", name: "p_private", input: "{}" },
          callShared: { type: "call", name: "p_shared", input: "{}" },
        }))
          got[k] = await lazy.craft(opener, target, m);
        let tools;
        try {
          tools = (await document.modelContext.getTools({ fromOrigins: [target] })).map((t) => t.name);
        } catch (e) {
          tools = e.name;
        }
        opener.postMessage({ "lazy.report": { got, tools } }, target);
      },
      { once: true },
    );
  }
})();
