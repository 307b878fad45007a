// floor-worker.js runs floor.wasm in a Worker with the steps worker.js
// takes for veil.wasm: start the fetch, load wasm_exec.js, compile while
// streaming, run. It answers {ready: true} when the program says it runs.
"use strict";

self.onmessage = async ({ data }) => {
  try {
    const response = fetch(data.wasm);
    response.catch(() => {});
    importScripts(data.exec);
    const ready = new Promise((resolve) => (self.floorReady = resolve));
    const go = new Go();
    const m = await WebAssembly.instantiateStreaming(response, go.importObject);
    go.run(m.instance);
    await ready;
    postMessage({ ready: true });
  } catch (e) {
    postMessage({ error: String(e?.message ?? e) });
  }
};
