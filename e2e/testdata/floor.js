// floor.js starts a floor program (floor.wasm, testdata/floor, or
// library.wasm, testdata/floor-library) the way webmcp.js starts
// veil.wasm, with the same wasm_exec.js: in a Worker (floor-worker.js, the
// steps of worker.js), or on the main thread with data-floor-mode="main".
// window.floor.ready resolves when the Go program has said it runs. The
// browser benchmark compares the runtime's start-up with this.
"use strict";

(() => {
  const script = document.currentScript;
  const exec = "/dist/wasm_exec.js";
  // data-floor-program: "floor" (does nothing) or "library" (links jsonschema/v6).
  const wasm = `/floor/${script.dataset.floorProgram || "floor"}.wasm`;

  const inWorker = () =>
    new Promise((resolve, reject) => {
      const w = new Worker("/floor-worker.js", { name: "floor" });
      w.onerror = () => reject(new Error("floor: the worker failed to start"));
      w.onmessage = ({ data }) => (data.ready ? resolve() : reject(new Error(data.error)));
      w.postMessage({ exec, wasm });
    });

  const onMain = async () => {
    const response = fetch(wasm);
    response.catch(() => {});
    await new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = exec;
      s.onload = resolve;
      s.onerror = () => reject(new Error("floor: cannot load wasm_exec.js"));
      document.head.append(s);
    });
    const ready = new Promise((resolve) => (globalThis.floorReady = resolve));
    const go = new Go();
    const m = await WebAssembly.instantiateStreaming(response, go.importObject);
    go.run(m.instance);
    await ready;
  };

  window.floor = { ready: script.dataset.floorMode === "main" ? onMain() : inWorker() };
})();
