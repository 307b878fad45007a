// frames.js drives pages with frames for frames_test.go. A page of
// frames.html is a parent, or a child that a parent made with fx.open; the
// parent runs code in a child with fx.in, over postMessage to the child's
// exact origin, so that the test drives a cross-origin child as easily as a
// same-origin one.
//
// It also records the raw traffic the page receives (window messages and
// every message on a MessagePort), and what it posts on ports, before the
// runtime loads: fx.traffic is what a test searches for a withheld value.
// Its own command messages (tagged "e2e.frames") are left out.
"use strict";

(() => {
  const TAG = "e2e.frames";
  const traffic = [];
  const record = (where, data) => {
    if (data && typeof data === "object" && TAG in data) return;
    let text;
    try {
      text = JSON.stringify(data);
    } catch {
      text = String(data);
    }
    traffic.push(`${where}: ${text}`);
  };
  addEventListener("message", (e) => record("window", e.data), true);
  const portPost = MessagePort.prototype.postMessage;
  MessagePort.prototype.postMessage = function (data, ...rest) {
    record("port posted", data);
    return portPost.call(this, data, ...rest);
  };
  const portListen = MessagePort.prototype.addEventListener;
  MessagePort.prototype.addEventListener = function (type, listener, ...rest) {
    if (type === "message") portListen.call(this, "message", (e) => record("port", e.data));
    return portListen.call(this, type, listener, ...rest);
  };
  const onmessage = Object.getOwnPropertyDescriptor(MessagePort.prototype, "onmessage");
  Object.defineProperty(MessagePort.prototype, "onmessage", {
    configurable: true,
    get() {
      return onmessage.get.call(this);
    },
    set(f) {
      onmessage.set.call(this, typeof f === "function" ? (e) => (record("port", e.data), f.call(this, e)) : f);
    },
  });

  // How long fx.until waits at most: the page's server writes the suite's
  // bound, scaled as every bound is (e2e/bound), on this script's tag;
  // 10 s where it did not.
  const untilMs = Number(document.currentScript?.dataset.until) || 10000;
  const settle = (f) => window.e2e.settle(f);
  const AsyncFunction = (async () => {}).constructor;
  /** run runs body, the body of an async function, and settles it. */
  const run = (body) => settle(() => new AsyncFunction(body)());

  /** The children this parent opened, with their origins. */
  const children = [];
  let asked = 0;
  const waiting = new Map();

  addEventListener("message", (e) => {
    const d = e.data;
    if (!d || typeof d !== "object" || !(TAG in d)) return;
    if (d[TAG] === "ready" || d[TAG] === "result") {
      const c = children.find((c) => c.frame.contentWindow === e.source);
      if (!c || e.origin !== c.origin) return;
      if (d[TAG] === "ready") return c.ready();
      waiting.get(d.id)?.(d.outcome);
      waiting.delete(d.id);
      return;
    }
    // A command from the parent: run it, answer to the parent's origin.
    if (d[TAG] === "run" && e.source === parent && e.origin === location.ancestorOrigins[0]) {
      run(d.body).then((outcome) => parent.postMessage({ [TAG]: "result", id: d.id, outcome }, e.origin));
    }
  });

  window.fx = {
    traffic,
    /** children: the frames fx.open made. */
    children,
    /**
     * open adds an iframe for src (a URL) with the allow attribute given,
     * and resolves with its index once its page has loaded frames.js.
     */
    open(src, allow = null) {
      const frame = document.createElement("iframe");
      if (allow !== null) frame.allow = allow;
      frame.src = src;
      return new Promise((ready) => {
        children.push({ frame, origin: new URL(src).origin, ready: () => ready(children.length - 1) });
        document.body.append(frame);
      });
    },
    /** in runs body (the body of an async function) in child i, and settles it there. */
    /** navigate points child i at src, and resolves once its new page has loaded frames.js. */
    navigate(i, src) {
      const c = children[i];
      return new Promise((ready) => {
        c.origin = new URL(src).origin;
        c.ready = () => ready(i);
        c.frame.src = src;
      });
    },
    in(i, body) {
      const c = children[i];
      const id = ++asked;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        c.frame.contentWindow.postMessage({ [TAG]: "run", id, body }, c.origin);
      });
    },
    run,
    controllers: {},
    /** register registers def (execute included) on document.modelContext with options, and a signal to unregister it. */
    register(def, options = {}) {
      const controller = new AbortController();
      fx.controllers[def.name] = controller;
      return document.modelContext.registerTool(def, { ...options, signal: controller.signal });
    },
    /** unregister aborts the signal register gave. */
    unregister(name) {
      fx.controllers[name].abort();
    },
    /**
     * until waits, 10 ms at a time, for cond() to be truthy, at most ms
     * (untilMs: the suite's 10 s, scaled); it resolves with whether it was.
     */
    async until(cond, ms = untilMs) {
      const end = performance.now() + ms;
      for (;;) {
        if (await cond()) return true;
        if (performance.now() >= end) return false;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    /** changed resolves at the next toolchange of document.modelContext. */
    changed() {
      return new Promise((resolve) => document.modelContext.addEventListener("toolchange", resolve, { once: true }));
    },
    /** events records the events of document.modelContext, as harness.js does. */
    listen() {
      if (!window.e2e.listening) window.e2e.listen(document.modelContext);
      window.e2e.listening = true;
      // A tool of another frame taken for one planted in this frame's native registry.
      window.veil?.addEventListener("foreigntool", (e) => window.e2e.events.push(`foreigntool:${e.detail.name}`));
    },
    /** names lists the tools getTools gives, by name, with the origin and whose window each has. */
    async names(options) {
      const list = await document.modelContext.getTools(options);
      return list.map((t) => `${t.name}@${t.window === window ? "self" : t.window === parent ? "parent" : children.findIndex((c) => c.frame.contentWindow === t.window)}:${t.origin}`);
    },
  };

  if (parent !== window) {
    const tell = () => parent.postMessage({ [TAG]: "ready" }, location.ancestorOrigins[0]);
    document.readyState === "complete" ? tell() : addEventListener("load", tell, { once: true });
  }
})();
