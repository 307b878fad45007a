// faults.js lets a test kill the runtime's engine as the world would: it
// loads before webmcp.js and keeps every Worker the page starts and every
// WebAssembly instance made on the main thread, so that a test can
// terminate the engine's Worker (as a browser does that discards it, or
// runs out of memory) or make its Go program exit.
"use strict";

(() => {
  const workers = [];
  const instances = [];
  const PageWorker = window.Worker;
  window.Worker = class extends PageWorker {
    constructor(...args) {
      super(...args);
      workers.push(this);
      // Before the runtime hears the message.
      this.addEventListener("message", (e) => {
        if (e.data?.ready) faults.onready?.(this);
        else if (faults.onreply?.(this, e.data)) e.stopImmediatePropagation();
      });
    }
    postMessage(message, ...rest) {
      super.postMessage(message, ...rest);
      faults.onpost?.(message);
    }
  };
  for (const k of ["instantiateStreaming", "instantiate"]) {
    const f = WebAssembly[k];
    WebAssembly[k] = async function (...args) {
      const r = await f.apply(this, args);
      instances.push(r.instance ?? r);
      return r;
    };
  }

  window.faults = {
    /**
     * onready, when set, runs with each Worker that says it is ready,
     * before the runtime hears it; onreply with each Worker and each
     * other message it sends, before the runtime hears it, and a true
     * result drops the message (as if the worker died before sending it);
     * onpost with each message the runtime posts to a Worker, once it is
     * posted. A test that must act at an exact moment of the engine's
     * life sets them.
     */
    onready: null,
    onreply: null,
    onpost: null,
    /** How many engines were started: Workers, or instances on this thread. */
    get engines() {
      return veil.mode === "worker" ? workers.length : instances.length;
    },
    /** terminate ends the engine's Worker without a word. */
    terminate() {
      workers.at(-1).terminate();
    },
    /**
     * exit makes the engine's Go program exit, through the op a host sends
     * to shut it down, sent around the runtime.
     */
    exit() {
      if (veil.mode === "worker") {
        workers.at(-1).postMessage({ id: -1, op: "exit", header: "", body: "" });
        return;
      }
      const { veilRequest, veilCall, mem } = instances.at(-1).exports;
      const op = new TextEncoder().encode("exit");
      const p = veilRequest(op.length);
      new Uint8Array(mem.buffer, p, op.length).set(op);
      veilCall(p, op.length, p + op.length, 0, p + op.length, 0);
    },
  };
})();
