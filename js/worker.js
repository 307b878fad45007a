// Veil's engine worker: runs veil.wasm off the page's main thread, so
// neither its start-up nor a large tool output blocks the page. webmcp.js
// starts it and is the only thing that talks to it.
//
// The first message names the scripts to load and a Web Lock to hold:
// {exec, wasm, lock}. The worker takes the lock, then answers
// {ready: true} or {error}; it holds the lock for as long as it lives, so
// the page learns when it ends however it ends. After that every message
// {id, op, header, body} is one engine op, answered with {id, header,
// body}, or with {id} alone when the engine failed (webmcp.js reads that
// as the contract's one failure reply). When the engine ends (its Go
// program exits, or an op traps and leaves the module's state unknown),
// the worker says {lost: reason} and closes.
//
// Where a Worker can't run, webmcp.js loads this file as a plain script
// instead and takes globalThis.__veilStart, to run the engine on the
// page's main thread.
'use strict';
{
  /**
   * start instantiates veil.wasm from its response, with Go from
   * wasm_exec.js, and runs it. It resolves with the engine as one
   * function, (op, header, body) -> [header, body], over the module's
   * exports (see wasm/main.go), which throws once the engine has ended;
   * onExit runs when the Go program ends, however it ends: wasm_exec.js
   * calls go.exit from inside the call during which it ended, so onExit
   * must not call the engine.
   */
  const start = async (Go, wasm, response, onExit) => {
    const go = new Go();
    go.exit = () => onExit();
    let m;
    try {
      m = await WebAssembly.instantiateStreaming(response, go.importObject);
    } catch {
      // Served without the application/wasm type.
      const res = await fetch(wasm);
      if (!res.ok) throw new Error(`veil: cannot load ${wasm}: ${res.status}`);
      m = await WebAssembly.instantiate(await res.arrayBuffer(), go.importObject);
    }
    go.run(m.instance).catch(() => {});
    const { veilRequest, veilCall, mem } = m.instance.exports;
    if (go.exited || !veilCall) throw new Error('veil: the engine did not start');
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    // A program that has ended, or trapped, must not be called again, nor
    // its answer read.
    let broken = false;
    const alive = () => {
      if (go.exited || broken) throw new Error('veil: the engine has ended');
    };
    return (op, header, body) => {
      alive();
      broken = true;
      // Ask for one byte per UTF-16 code unit, which ASCII fills; UTF-8
      // takes at most three, so ask again when the text needs more. The
      // engine's memory only grows: three times a large output would be
      // paid for the life of the page.
      const units = op.length + header.length + body.length;
      const write = (factor) => {
        let p = veilRequest(factor * units);
        const end = p + factor * units;
        const args = [];
        for (const s of [op, header, body]) {
          const { read, written } = encoder.encodeInto(s, new Uint8Array(mem.buffer, p, end - p));
          if (read < s.length) return null;
          args.push(p, written);
          p += written;
        }
        return args;
      };
      const args = write(1) ?? write(3);
      const q = veilCall(...args);
      broken = false;
      alive();
      // The call may have grown the memory: mem.buffer is read after it.
      const w = new Uint32Array(mem.buffer, q, 4);
      return [0, 2].map((i) => decoder.decode(new Uint8Array(mem.buffer, w[i], w[i + 1])));
    };
  };

  if (self.document) {
    /**
     * On the page's main thread, webmcp.js takes this: the engine as
     * {send, stop}, as its Worker is. send answers a request at once; an
     * op that throws (a trap) answers failure and loses the engine, as a
     * Go program that exits does (lost, a task later).
     */
    globalThis.__veilStart = async (Go, wasm, response, lost, failure) => {
      let ended = false;
      const fn = await start(Go, wasm, response, () => setTimeout(lost, 0, 'the engine exited'));
      return {
        send: (r) => {
          let reply;
          try {
            if (ended) throw new Error('ended');
            reply = fn(r.op, r.header, r.body);
          } catch {
            reply = [failure, ''];
            // After a trap the module's state is not to be trusted.
            setTimeout(lost, 0, 'the engine stopped');
          }
          r.resolve(reply);
        },
        stop: () => (ended = true),
      };
    };
  } else {
    let engine = null;
    let started = false;
    let over = false;
    /** end says the engine is lost, once, and closes the worker. */
    const end = (reason) => {
      if (over) return;
      over = true;
      postMessage({ lost: reason });
      close();
    };

    self.onmessage = ({ data }) => {
      if (!started) {
        started = true;
        (async () => {
          if (data.lock) {
            // Held until the worker ends: a promise that never settles.
            await new Promise((held) => navigator.locks.request(data.lock, () => (held(), new Promise(() => {}))));
          }
          const response = fetch(data.wasm);
          response.catch(() => {});
          importScripts(data.exec);
          engine = await start(Go, data.wasm, response, () => end('the engine exited'));
        })().then(
          () => postMessage({ ready: true }),
          (e) => postMessage({ error: String(e?.message ?? e) }),
        );
        return;
      }
      let reply = null;
      try {
        reply = engine?.(data.op, data.header, data.body);
      } catch {}
      postMessage(reply ? { id: data.id, header: reply[0], body: reply[1] } : { id: data.id });
      if (!reply) end('the engine stopped');
    };
  }
}
