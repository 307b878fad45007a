// Starting an engine: in a Worker, or on the main thread with worker.js's
// own code, and, when neither starts, which of the runtime's files does
// not load and why.

import { FAILURE } from './contract.js';
import { noop } from './util.js';
import { script, meta, base, here } from './config.js';
import { lose, failed } from './engine.js';
import { head, root, create, append, own } from './dom.js';

/** @typedef {import('./engine.js').Engine} Engine */
/** @typedef {import('./engine.js').Request} Request */

/**
 * startWorker starts the engine in a Worker. Its death is noticed however
 * it comes: an error, the worker's word that its engine ended, an op that
 * never came back, and, for a worker terminated without a word (by the
 * browser, out of memory), a Web Lock the worker holds for its life.
 * @returns {Promise<Engine>}
 */
export const startWorker = () =>
  new Promise((resolve, reject) => {
    const w = new Worker(here('worker.js'), { name: 'veil' });
    /** @type {Map<number, Request>} */
    const waiting = new Map();
    let id = 0;
    let up = false;
    const lock = `veil-engine-${crypto.randomUUID()}`;
    /** @type {Engine} */
    const engine = {
      send: (r) => {
        waiting.set(++id, r);
        r.timedOut = () => lose(engine, 'an op did not come back');
        w.postMessage({ id, op: r.op, header: r.header, body: r.body });
      },
      stop: () => {
        w.terminate();
        waiting.forEach(failed);
        waiting.clear();
      },
    };
    w.onerror = (e) => {
      e.preventDefault();
      if (!up) return reject(new Error('veil: the worker failed to start'));
      lose(engine, 'the worker failed');
    };
    w.onmessage = ({ data }) => {
      if (data.ready) {
        up = true;
        navigator.locks?.request(lock, () => lose(engine, 'the worker ended')).catch(noop);
        return resolve(engine);
      }
      if (data.error) return reject(new Error(data.error));
      if (data.lost) return lose(engine, data.lost);
      waiting.get(data.id)?.resolve([data.header ?? FAILURE, data.body ?? '']);
      waiting.delete(data.id);
    };
    w.postMessage({ exec: here('wasm_exec.js'), wasm: here('veil.wasm'), lock: navigator.locks ? lock : '' });
  });

/** @type {Promise<[any, any]>|null} Go and worker.js's start, loaded once. */
let mainScripts = null;
/**
 * loadMain loads wasm_exec.js and worker.js into the page, once.
 * @returns {Promise<[any, any]>}
 */
const loadMain = async () => {
  // Script elements, not fetch and eval, so a page's CSP can allow them.
  // The page may have a Go of its own, from another toolchain: keep it.
  const pageGo = Object.getOwnPropertyDescriptor(globalThis, 'Go');
  // wasm_exec.js makes fs, process and path where !globalThis[name]: an
  // element by that name would stand in for them. What the page has not
  // defined starts undefined, so that wasm_exec.js makes its own.
  for (const name of ['fs', 'process', 'path']) if (!Object.hasOwn(globalThis, name)) Object.defineProperty(globalThis, name, { value: undefined, writable: true, configurable: true });
  try {
    // Fetched together, run in this order (async = false); both settle
    // before the globals they set are taken and put back.
    const loads = await Promise.allSettled(
      ['wasm_exec.js', 'worker.js'].map(
        (name) =>
          new Promise((resolve, reject) => {
            const s = create(document, 'script');
            s.src = here(name);
            s.async = false;
            if (script?.nonce) s.nonce = script.nonce;
            s.onload = resolve;
            s.onerror = () => reject(new Error(`veil: cannot load ${s.src}`));
            append(head(document) ?? root(document), s);
          }),
      ),
    );
    for (const l of loads) if (l.status === 'rejected') throw l.reason;
    return [own('Go'), own('__veilStart')];
  } finally {
    pageGo ? Object.defineProperty(globalThis, 'Go', pageGo) : delete globalThis.Go;
    delete globalThis.__veilStart;
  }
};

/**
 * startMain starts the engine on the main thread, with worker.js's own
 * code (__veilStart). A Go program that exits, or an op that throws (a
 * trap), loses it.
 * @returns {Promise<Engine>}
 */
export const startMain = async () => {
  const url = here('veil.wasm');
  const response = fetch(url);
  response.catch(noop);
  const [Go, start] = await (mainScripts ??= loadMain());
  /** @type {Engine} */
  let engine;
  return (engine = await start(Go, url, response, (why) => lose(engine, why), FAILURE));
};

/**
 * missing says which of the files the engine starts from the page cannot
 * load, and why, or null when each answers as it should. It runs when the
 * engine did not start: a Worker or a script element that fails says
 * neither which URL nor why, and a site that answers a missing file with
 * its index page (200, text/html) makes a failure that names nothing.
 * @returns {Promise<Error|null>}
 */
export const missing = async () => {
  const JS = /^(?:(?:application|text)\/(?:x-)?(?:ecma|java)script|text\/(?:javascript1\.[0-5]|jscript|livescript))$/;
  const problems = await Promise.all(
    ['worker.js', 'wasm_exec.js', 'veil.wasm'].map(async (name) => {
      const url = here(name);
      let r;
      try {
        r = await fetch(url, { cache: 'no-store' });
      } catch {
        return `${url} (a network error, or the page's Content Security Policy does not allow it)`;
      }
      const type = (r.headers.get('Content-Type') ?? '').split(';')[0].trim().toLowerCase();
      const served = type ? `served as ${type}` : 'served without a type';
      const body = r.body?.getReader();
      try {
        if (!r.ok) return `${url} (${r.status}${r.statusText ? ` ${r.statusText}` : ''})`;
        if (!name.endsWith('.wasm')) return JS.test(type) ? '' : `${url} (${served}, not as JavaScript)`;
        if (type === 'application/wasm') return '';
        // Another type still runs (more slowly) when the bytes are WebAssembly.
        const head = (await body?.read().catch(noop))?.value ?? new Uint8Array();
        return head[0] === 0 && head[1] === 0x61 && head[2] === 0x73 && head[3] === 0x6d ? '' : `${url} (${served}, and not WebAssembly)`;
      } finally {
        body?.cancel().catch(noop);
      }
    }),
  );
  const failed = problems.filter(Boolean);
  if (!failed.length) return null;
  const why = meta
    ? 'the folder <meta name="veil-base"> names'
    : script?.src
      ? 'beside webmcp.js'
      : 'the page\'s folder, since webmcp.js was bundled or loaded as a module: name the folder of its files with <meta name="veil-base">';
  return new Error(`veil: the engine cannot start: ${failed.length === 1 ? 'a file of the runtime does not load' : 'files of the runtime do not load'}: ${failed.join(', ')}. They are looked for in ${base} (${why})`);
};
