// Veil's engine worker: runs veil.wasm off the page's main thread, so
// neither its start-up nor a large tool output blocks the page. webmcp.js
// starts it and is the only thing that talks to it.
//
// The first message names the scripts to load: {exec, wasm}. The worker
// answers {ready: true} or {error}; after that every message {id, op,
// header, body} is one engine op, answered with {id, header, body}.
'use strict';
{
  const FAILURE = '{"error":{"name":"OperationError","message":"engine failure"}}';
  let engine = null;
  let started = false;

  const start = async ({ exec, wasm }) => {
    const response = fetch(wasm);
    response.catch(() => {});
    importScripts(exec);
    const go = new Go();
    let m;
    try {
      m = await WebAssembly.instantiateStreaming(response, go.importObject);
    } catch {
      // Served without the application/wasm type.
      const res = await fetch(wasm);
      if (!res.ok) throw new Error(`veil: fetching veil.wasm: ${res.status}`);
      m = await WebAssembly.instantiate(await res.arrayBuffer(), go.importObject);
    }
    go.run(m.instance).catch(() => {});
    engine = globalThis.__veilEngine;
    delete globalThis.__veilEngine;
    if (typeof engine !== 'function') throw new Error('veil: the engine did not start');
  };

  self.onmessage = ({ data }) => {
    if (!started) {
      started = true;
      start(data).then(
        () => postMessage({ ready: true }),
        (e) => postMessage({ error: String(e?.message ?? e) }),
      );
      return;
    }
    let reply = [FAILURE, ''];
    try {
      if (engine) reply = engine(data.op, data.header, data.body);
    } catch {}
    postMessage({ id: data.id, header: reply[0], body: reply[1] });
  };
}
