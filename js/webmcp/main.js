// Veil: a WebMCP runtime that keeps sensitive tool output out of AI agents'
// context. Include it once, as a plain (not async, not deferred) script:
//
//   <script src="/veil/webmcp.js"></script>
//
// It installs document.modelContext, navigator.modelContext (the same object)
// and navigator.modelContextTesting at once, then starts the engine
// (veil.wasm) in a Worker, or on the main thread where a Worker can't run.
// worker.js, veil.wasm and wasm_exec.js are loaded from beside this script,
// and veil-secrets.js too when the document has a <veil-secrets> element;
// <meta name="veil-base" content="/veil/"> in the head, before this script,
// names their folder instead (a bundle that took this script in has moved
// it away from them).
// data-veil-mode="worker" or "main" on the script tag forces one mode;
// data-veil-hold-ttl="600" sets how many seconds withheld values are kept
// for the user (10 minutes by default); data-veil-scrub-limit="65536"
// bounds the session's scrub set; data-veil-redeem-path="/redeem/"
// makes every secret_reference's redeemUrl start with that path;
// data-veil-mcp="tab" with data-veil-mcp-origins="self" (the page's origin)
// serves MCP to clients of the tab transport (veil-mcp.js).
/// <reference path="../webmcp.d.ts" />
'use strict';
import { FAILURE, ERR_NOT_FOUND, KIND_ABORTED, KIND_EMPTY, KIND_REFUSED, KIND_RETURNED, KIND_TEXT, KIND_THREW, KIND_TIMEDOUT, KIND_UNSERIALIZABLE, OP_CONFIGURE, OP_DECIDE, OP_DECISIONS, OP_FOREIGN, OP_FORGET, OP_INIT, OP_ITEMS, OP_OUTPUT, OP_REGISTER, OP_RESOLVE, OP_REVEAL, OP_SCRUB, OP_SETTLE, OP_UNREGISTER, OUTCOME_ALLOW, OUTCOME_BLOCK, OUTCOME_CONFIRM, OUTCOME_NOTICE, OUTCOME_RESOLVE } from './contract.js';
import { noop, str, isObject, toError, failure, messageOf, freeze, abortOf } from './util.js';
import { originOf, parseOrigins } from './origins.js';

(() => {
  if (globalThis.veil) return;
  if (!isSecureContext) return console.warn('veil: WebMCP needs a secure context');

  const script = /** @type {HTMLScriptElement|null} */ (document.currentScript);
  // The folder of the runtime's other files: the one <meta name="veil-base">
  // names, else this script's own. A module or a bundle has no current
  // script, and without the meta looks in the page's own folder; an error
  // that a file did not load names the URL it tried.
  const META = 'meta[name="veil-base"]';
  const meta = document.head?.querySelector(META)?.getAttribute('content')?.trim();
  const base = (() => {
    if (meta)
      try {
        const u = new URL(meta, document.baseURI);
        if (!u.pathname.endsWith('/')) u.pathname += '/';
        return u.href;
      } catch {
        console.error(`veil: <meta name="veil-base" content=${JSON.stringify(meta)}> does not name a folder, so the runtime's files are looked for ${script?.src ? 'beside webmcp.js' : "in the page's folder"}`);
      }
    return new URL('.', script?.src || document.baseURI).href;
  })();
  const here = (name) => new URL(name, base).href;
  const forced = script?.dataset.veilMode;
  // How long the engine may take over one output before the call fails.
  const OUTPUT_TIMEOUT = 30000;
  // ENGINE_TIMEOUT bounds every op, start-up included; output has its own,
  // shorter bound.
  const ENGINE_TIMEOUT = 60000;

  // ---- The engine connection --------------------------------------------
  //
  // One engine answers at a time. Should it be lost (its Worker terminated
  // or crashed, its Go program exited, a trap, an op that never came
  // back), every call it was deciding fails at once with the failure
  // reply, the page hears enginelost, and the next op starts another
  // engine, which resumes from what the page kept of the lost one: the
  // trust state it last reported (never a clean session), the policy's
  // settings and the live registrations. What the lost engine held for
  // the user is gone with it.

  /** @typedef {{op: string, header: string, body: string, resolve: (r: [string, string]) => void, timedOut?: () => void}} Request */
  /** @typedef {{send: (r: Request) => void, stop: () => void, dead?: boolean}} Engine */
  /** @type {Request[]} Ops waiting for an engine. */
  let queue = [];
  /** @type {((r: Request) => void) | null} */
  let send = null;
  let mode = forced === 'main' ? 'main' : 'worker';
  /** @type {Engine|null} The engine that answers now. */
  let current = null;
  // "starting", "up", "lost" (the next op starts another) or "down" (it
  // could not, or the engine was lost too often: every op fails).
  let state = 'starting';
  /**
   * The engine's lifetime, as the calls it decides see it: aborted when it
   * is lost. calls counts the calls in progress.
   */
  let epoch = { lost: new AbortController(), calls: 0 };
  // An engine lost more often than this within RESTART_WINDOW ms is not
  // started again: a page whose engine keeps dying fails closed.
  const MAX_RESTARTS = 3;
  const RESTART_WINDOW = 60000;
  /** @type {number[]} When the engine was last started again. */
  let restarts = [];
  /** The policy's settings, as the engine last reported them. */
  let settings = null;

  /**
   * request sends one op through submit. It resolves with the parsed reply
   * header and the raw reply body; it never rejects. A reply that never
   * comes resolves as FAILURE after ms, so no call hangs.
   * @returns {Promise<[any, string]>}
   */
  const request = (op, header, body, ms, submit) =>
    new Promise((resolve) => {
      let timer;
      /** @type {Request} */
      const r = {
        op,
        header: typeof header === 'string' ? header : JSON.stringify(header),
        body,
        resolve: ([h, b]) => {
          clearTimeout(timer);
          r.resolve = noop;
          let parsed;
          try {
            parsed = JSON.parse(h);
          } catch {
            parsed = JSON.parse(FAILURE);
          }
          resolve([parsed, b]);
        },
      };
      submit(r);
      if (r.resolve !== noop)
        timer = setTimeout(() => {
          r.timedOut?.();
          r.resolve([FAILURE, '']);
        }, ms);
    });

  /**
   * call sends one op to the engine (the ops are package ops's, in Go),
   * starting another engine first if the last was lost.
   */
  const call = (op, header = {}, body = '', ms = ENGINE_TIMEOUT) =>
    request(op, header, body, ms, (r) => {
      if (send) return send(r);
      queue.push(r);
      if (state === 'lost') restart();
    });

  /** @param {Request} r */
  const failed = (r) => r.resolve([FAILURE, '']);

  /**
   * startWorker starts the engine in a Worker. Its death is noticed however
   * it comes: an error, the worker's word that its engine ended, an op that
   * never came back, and, for a worker terminated without a word (by the
   * browser, out of memory), a Web Lock the worker holds for its life.
   * @returns {Promise<Engine>}
   */
  const startWorker = () =>
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
  /** loadMain loads wasm_exec.js and worker.js into the page, once. */
  const loadMain = async () => {
    // Script elements, not fetch and eval, so a page's CSP can allow them.
    // The page may have a Go of its own, from another toolchain: keep it.
    const pageGo = Object.getOwnPropertyDescriptor(globalThis, 'Go');
    try {
      // Fetched together, run in this order (async = false); both settle
      // before the globals they set are taken and put back.
      const loads = await Promise.allSettled(
        ['wasm_exec.js', 'worker.js'].map(
          (name) =>
            new Promise((resolve, reject) => {
              const s = document.createElement('script');
              s.src = here(name);
              s.async = false;
              if (script?.nonce) s.nonce = script.nonce;
              s.onload = resolve;
              s.onerror = () => reject(new Error(`veil: cannot load ${s.src}`));
              (document.head || document.documentElement).append(s);
            }),
        ),
      );
      for (const l of loads) if (l.status === 'rejected') throw l.reason;
      return [globalThis.Go, globalThis.__veilStart];
    } finally {
      pageGo ? Object.defineProperty(globalThis, 'Go', pageGo) : delete globalThis.Go;
      delete globalThis.__veilStart;
    }
  };

  /**
   * startMain starts the engine on the main thread, with worker.js's own
   * code. A Go program that exits, or an op that throws (a trap), loses it.
   * @returns {Promise<Engine>}
   */
  const startMain = async () => {
    const url = here('veil.wasm');
    const response = fetch(url);
    response.catch(noop);
    const [Go, start] = await (mainScripts ??= loadMain());
    let ended = false;
    /** @type {Engine} */
    const engine = {
      send: (r) => {
        let reply;
        try {
          if (ended) throw new Error('ended');
          reply = fn(r.op, r.header, r.body);
        } catch {
          reply = [FAILURE, ''];
          // After a trap the module's state is not to be trusted.
          setTimeout(() => lose(engine, 'the engine stopped'));
        }
        r.resolve(reply);
      },
      stop: () => (ended = true),
    };
    const fn = await start(Go, url, response, () => setTimeout(() => lose(engine, 'the engine exited')));
    return engine;
  };

  /** The first op of every engine: the page's side of its options. */
  const holdTTL = Number(script?.dataset.veilHoldTtl);
  const scrubLimit = Number(script?.dataset.veilScrubLimit);
  const redeemPath = script?.dataset.veilRedeemPath;
  const initHeader = () => ({
    origin: location.origin,
    baseURL: document.baseURI,
    ...(holdTTL > 0 && { holdTTLms: holdTTL * 1000 }),
    ...(scrubLimit > 0 && { maxScrubNeedles: Math.floor(scrubLimit) }),
    ...(redeemPath && { redeemPath }),
  });

  /** use makes e the engine that answers, and sends it what waited. */
  const use = (e) => {
    current = e;
    send = e.send;
    state = 'up';
    queue.forEach(send);
    queue = [];
  };

  /** goDown fails every op from now on: the engine is unavailable. */
  const goDown = () => {
    state = 'down';
    send = failed;
    queue.forEach(failed);
    queue = [];
  };

  /**
   * missing says which of the files the engine starts from the page cannot
   * load, and why, or null when each answers as it should. It runs when the
   * engine did not start: a Worker or a script element that fails says
   * neither which URL nor why, and a site that answers a missing file with
   * its index page (200, text/html) makes a failure that names nothing.
   * @returns {Promise<Error|null>}
   */
  const missing = async () => {
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

  const init = call(OP_INIT, initHeader());
  const ready = (async () => {
    let e = null;
    try {
      if (mode === 'worker') {
        try {
          e = await startWorker();
        } catch (err) {
          if (forced === 'worker') throw err;
          mode = 'main';
        }
      }
      e ||= await startMain();
    } catch (err) {
      throw (await missing()) ?? err;
    }
    if (e.dead) throw new Error('veil: the engine ended as it started');
    use(e);
    const [h] = await init;
    if (h.error) throw toError(h.error);
    setTrust(h.trust);
  })();
  ready.catch((e) => {
    console.error('veil: the engine is unavailable', e);
    goDown();
  });

  /**
   * lose ends engine e, if it is the one that answers: its calls fail at
   * once, the page hears enginelost, and the next op starts another.
   * @param {Engine} e
   * @param {string} reason  what was noticed, for the event and the console
   */
  const lose = (e, reason) => {
    e.dead = true;
    if (e !== current) return;
    current = null;
    send = null;
    e.stop();
    const lost = epoch;
    epoch = { lost: new AbortController(), calls: 0 };
    lost.lost.abort();
    const now = Date.now();
    restarts = restarts.filter((t) => now - t < RESTART_WINDOW);
    const again = restarts.length < MAX_RESTARTS;
    console.error(
      `veil: the engine was lost (${reason}); ${lost.calls} call(s) failed, and what it held for the user is gone` +
        (again ? (scrubbing ? '; until the page is reloaded, every output is withheld whole, since what it withheld cannot be recognised again' : '') : '. It is not started again'),
    );
    if (again) {
      state = 'lost';
      if (queue.length) restart();
    } else goDown();
    emit('enginelost', freeze({ mode, reason, calls: lost.calls, restarting: again }));
  };

  /**
   * restart starts another engine in the same mode, and before any op that
   * waited, sends it init with the trust state and settings to resume from,
   * then every live registration, in the order they were made.
   */
  const restart = () => {
    state = 'starting';
    restarts.push(Date.now());
    /** @type {Engine|null} */
    let e = null;
    // Lost after it was made the engine that answers: lose has dealt with
    // it (another is started, or the runtime is down), and its failure
    // replies say nothing of the page's settings or tools.
    const lostMeanwhile = () => e?.dead && current !== e;
    (async () => {
      e = await (mode === 'worker' ? startWorker() : startMain());
      if (e.dead) throw new Error('veil: the new engine ended as it started');
      const op = (name, header, body = '') => request(name, header, body, ENGINE_TIMEOUT, /** @type {Engine} */ (e).send);
      // A lost engine that had withheld something takes what it would
      // scrub from later outputs with it: the next withholds them whole.
      const init = op(OP_INIT, { ...initHeader(), ...(trust && { trust }), ...(settings && { settings }), ...(scrubbing && { scrubLost: true }) });
      // The foreign native tools, before any call: ops are answered in order.
      if (foreignTools.length) op(OP_FOREIGN, { names: foreignTools });
      const entries = [...registrations.values()].filter((r) => r.live && !r.gone);
      const again = entries.map((r) => op(OP_REGISTER, { registration: r.registration, ...(r.refine && { resolve: true }) }, r.source));
      use(e);
      const [h] = await init;
      if (lostMeanwhile()) return;
      if (h.error) throw toError(h.error);
      const replies = await Promise.all(again);
      if (lostMeanwhile()) return;
      replies.forEach(([h], i) => {
        // The engine that took the tool before refuses it now: the tool
        // is gone, rather than run by a page-side entry the engine lacks.
        if (h.error) {
          console.error(`veil: tool ${JSON.stringify(entries[i].name)} could not be registered again, so it is unregistered`);
          unregister(entries[i]);
        }
      });
    })().catch((err) => {
      if (lostMeanwhile()) return;
      console.error('veil: the engine could not be started again', err);
      current?.stop();
      current = null;
      goDown();
    });
  };

  // ---- Events --------------------------------------------------------------

  /** @param {string} name */
  const eventClass = (name) =>
    globalThis[name] ||
    (globalThis[name] = {
      [name]: class extends Event {
        #toolName;
        constructor(type, init = {}) {
          super(type, init);
          this.#toolName = str(init.toolName ?? '');
        }
        get toolName() {
          return this.#toolName;
        }
      },
    }[name]);
  const ActivatedEvent = eventClass('ToolActivatedEvent');
  const CancelEvent = eventClass('ToolCancelEvent');
  /**
   * fire dispatches a tool's toolactivated or toolcancel at the
   * ModelContext of the tool's document, then at its window, as the draft
   * has it: a page may listen on either.
   */
  const fire = (Class, type, toolName) => {
    context.dispatchEvent(new Class(type, { toolName }));
    window.dispatchEvent(new Class(type, { toolName }));
  };

  /** @type {WeakMap<EventTarget, Record<string, Function|null>>} */
  const handlers = new WeakMap();
  /** Defines on<type> event handler attributes on proto. */
  const handlerAttributes = (proto, ...types) => {
    for (const type of types) {
      Object.defineProperty(proto, 'on' + type, {
        configurable: true,
        enumerable: true,
        get() {
          return handlers.get(this)?.[type] ?? null;
        },
        set(f) {
          let h = handlers.get(this);
          if (!h) handlers.set(this, (h = {}));
          if (!(type in h)) this.addEventListener(type, (e) => h[type]?.call(this, e));
          h[type] = typeof f === 'function' ? f : null;
        },
      });
    }
  };

  // ---- The tool registry ---------------------------------------------------
  //
  // The engine owns the registry: it refuses a name already taken, checks
  // every definition and says which registration a call is for. The page
  // keeps, per registration, what only it can hold (execute, resolve, the
  // abort signal) and the normalized definition the engine answered with,
  // for the synchronous listTools.

  /**
   * @typedef {object} Entry
   * @property {number} registration   its number, sent with register
   * @property {string} name
   * @property {Function} execute
   * @property {Function} [refine]     the tool's resolve callback
   * @property {boolean} live          the engine registered it
   * @property {boolean} gone          unregistered, or refused by the engine
   * @property {any} [reason]          why it was unregistered
   * @property {any} [def]             the normalized definition, parsed
   * @property {string[]} exposedTo      the origins of other frames it is exposed to (Frames)
   * @property {AbortSignal} [signal]
   * @property {() => void} [onAbort]
   * @property {AbortController} [mirror]    the native mirror's registration
   * @property {Promise<void>} settled        once the engine has answered
   * @property {string} source               the definition as sent, for an engine started again
   */
  /** @type {Map<number, Entry>} Registrations pending or live. */
  const registrations = new Map();
  let registered = 0;
  /** What a call finds when its registration is gone. */
  const GONE = /** @type {Entry} */ ({ gone: true });
  const live = () =>
    [...registrations.values()].filter((e) => e.live && !e.gone).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  let testingCallback = null;
  const changed = () =>
    setTimeout(() => {
      context.dispatchEvent(new Event('toolchange'));
      testing.dispatchEvent(new Event('toolchange'));
      try {
        testingCallback?.();
      } catch (e) {
        reportError(e);
      }
    });

  /**
   * prepare does the checks that need the page's JavaScript values, in the
   * draft's order; the engine does the rest. It throws synchronously.
   */
  const prepare = (tool, options) => {
    if (!isObject(tool)) throw new TypeError('registerTool: the tool must be an object');
    const { annotations, description, execute, inputSchema, name: rawName, outputSchema, title, resolve, _meta } = tool;
    const name = rawName === undefined ? undefined : str(rawName);
    const q = JSON.stringify(name ?? '');
    if (typeof execute !== 'function') throw new TypeError(`registerTool: execute of tool ${q} is not a function`);
    if (resolve != null && typeof resolve !== 'function') throw new TypeError(`registerTool: resolve of tool ${q} is not a function`);
    const json = (field, v) => {
      if (v === undefined) return undefined;
      if (!isObject(v)) throw new TypeError(`registerTool: ${field} of tool ${q} is not an object`);
      let s;
      try {
        s = JSON.stringify(v);
      } catch (e) {
        throw new TypeError(`registerTool: ${field} of tool ${q} cannot be serialized: ${messageOf(e)}`, { cause: e });
      }
      if (s === undefined) throw new TypeError(`registerTool: ${field} of tool ${q} serializes to nothing`);
      return s;
    };
    const signal = options?.signal;
    if (signal !== undefined && !(signal instanceof AbortSignal))
      throw new TypeError('registerTool: options.signal is not an AbortSignal');
    const fields = [
      ['name', name],
      ['title', title === undefined ? undefined : str(title)],
      ['description', description === undefined ? undefined : str(description)],
    ]
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `"${k}":${JSON.stringify(v)}`);
    for (const [k, v] of [
      ['inputSchema', json('inputSchema', inputSchema)],
      ['outputSchema', json('outputSchema', outputSchema)],
      ['annotations', annotations == null ? undefined : json('annotations', annotations)],
      ['_meta', _meta == null ? undefined : json('_meta', _meta)],
    ])
      if (v !== undefined) fields.push(`"${k}":${v}`);
    if (signal?.aborted) throw signal.reason;
    const exposedTo = parseOrigins('registerTool', 'exposedTo', options?.exposedTo);
    return { name, execute, resolve, signal, exposedTo, def: `{${fields.join(',')}}` };
  };

  /** The unknown annotations the page has heard of, once each. */
  const heard = new Set();

  /**
   * submit registers the tool with the engine, which answers in order:
   * a call sent after it finds the tool, and a second registration of the
   * name is refused there.
   */
  const submit = ({ name, execute, resolve: refine, signal, exposedTo = [], def }) =>
    new Promise((resolve, reject) => {
      /** @type {Entry} */
      const entry = { registration: ++registered, name: name ?? '', execute, refine, live: false, gone: false, signal, exposedTo, source: def };
      registrations.set(entry.registration, entry);
      let engineAnswered;
      entry.settled = new Promise((r) => (engineAnswered = r));
      if (signal) {
        entry.onAbort = () => unregister(entry, signal.reason);
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      const forget = () => {
        entry.gone = true;
        registrations.delete(entry.registration);
        signal?.removeEventListener('abort', entry.onAbort);
      };
      call(OP_REGISTER, { registration: entry.registration, ...(refine && { resolve: true }) }, def)
        .then(([h, b]) => {
          if (h.error) throw toError(h.error);
          // Unregistered while pending: the engine has removed it again.
          if (entry.gone) throw entry.reason ?? new DOMException('registerTool: the tool was unregistered', 'AbortError');
          for (const k of h.unknown ?? [])
            if (!heard.has(k)) {
              heard.add(k);
              console.info(`veil: annotations.${k} (tool ${JSON.stringify(name)}) is not an annotation the runtime reads; it is passed on as it is`);
            }
          entry.def = JSON.parse(b);
          entry.live = true;
          mirror(entry);
          changed();
          notifyFrames(entry);
          setTimeout(() => (entry.gone ? reject(entry.reason) : resolve(undefined)));
        })
        .catch((e) => {
          forget();
          reject(e);
        })
        .finally(engineAnswered);
    });

  /** unregister removes a registration, pending or live. */
  const unregister = (entry, reason) => {
    if (entry.gone) return;
    entry.gone = true;
    entry.reason = reason ?? new DOMException('registerTool: the tool was unregistered', 'AbortError');
    entry.signal?.removeEventListener('abort', entry.onAbort);
    call(OP_UNREGISTER, { name: entry.name, registration: entry.registration });
    if (!entry.live) return; // the register reply rejects it
    registrations.delete(entry.registration);
    entry.mirror?.abort();
    changed();
    notifyFrames(entry);
  };

  /** unregisterName removes the registrations of a name, pending or live. */
  const unregisterName = (name) => registrations.forEach((e) => e.name === name && unregister(e));

  // ---- Running a tool: the one way out -----------------------------------

  /** classify reports how execute finished, for the engine's "output" op. */
  const classify = (v) => {
    if (typeof v === 'string') return [KIND_TEXT, v];
    if (v === undefined) return [KIND_EMPTY, ''];
    let s;
    try {
      s = JSON.stringify(v);
    } catch {
      // The error is not logged: it can quote the result.
      console.warn('veil: a tool result cannot be serialized (a cycle or a BigInt)');
      return [KIND_UNSERIALIZABLE, ''];
    }
    return s === undefined ? [KIND_EMPTY, ''] : [KIND_RETURNED, s];
  };

  // The risk policy, its defaults and its timeouts are the engine's, which
  // decides every call before execute runs. The page's side of it: how the
  // user is asked (veil.configure's confirm and notice), and the state the
  // veil namespace shows, as the engine reported it.
  /** @type {{confirm?: Function, notice?: Function}} */
  const conf = {};
  const emit = (type, detail) => ns.dispatchEvent(new CustomEvent(type, { detail }));
  let trust = null;
  /** Whether an engine's scrub set held anything: a restart must know. */
  let scrubbing = false;
  /** setTrust keeps the newest trust state the engine reported. */
  const setTrust = (s) => {
    if (!(s?.version >= 0) || s.version <= (trust?.version ?? -1)) return;
    const first = !trust;
    trust = freeze(s);
    if (!first) emit('trustchange', trust);
  };
  /** Calls in progress, by call id: veil.calls. */
  const active = new Map();
  const progress = (id, c) => {
    c ? active.set(id, freeze({ call: id, since: active.get(id)?.since ?? Date.now(), ...c })) : active.delete(id);
    ns.dispatchEvent(new Event('callchange'));
  };
  let exclusive = Promise.resolve();
  let asking = Promise.resolve();
  let ui;
  /** The built-in dialog and notice, loaded when first needed. */
  const loadUI = () => (ui ??= import(here('veil-confirm.js')));
  /** The questions not yet put to the user, each with its decline. */
  const waiting = new Set();
  /**
   * ask puts a call to the user, one at a time; only true approves. A
   * question declined while it waits (veil.declinePending) is never shown.
   */
  const ask = (request) => {
    const q = { declined: false };
    waiting.add(q);
    return (asking = asking.then(async () => {
      waiting.delete(q);
      if (q.declined) return false;
      try {
        // A question whose call is over (the caller gave up, the engine
        // was lost) stops holding up the next, whether or not the
        // handler heeds the signal.
        const answer = (conf.confirm ?? (await loadUI()).confirm)(Object.freeze({ ...request, waiting: waiting.size }));
        return (await Promise.race([answer, abortOf(request.signal)])) === true;
      } catch (e) {
        console.warn('veil: the confirmation failed, so the call is declined', e);
        return false;
      }
    }));
  };
  /** Declines every question waiting for its turn; returns how many. */
  const declinePending = () => {
    const n = waiting.size;
    waiting.forEach((q) => (q.declined = true));
    waiting.clear();
    return n;
  };
  const TIMEOUT = Symbol();
  /** A failure worth one retry of an idempotent tool. */
  const transient = (e) => e?.transient === true || ['NetworkError', 'TimeoutError'].includes(e?.name);

  /**
   * run executes a registered tool for an agent. Every path by which output
   * leaves the runtime ends here, and what it resolves with is only ever the
   * body of the engine's "output" reply, or the page's own output when the
   * reply says the engine passed it as it came ("same").
   * @param {string} name
   * @param {string} input the input as JSON text, as JSON.stringify wrote it
   * @param {AbortSignal|undefined} signal
   * @returns {Promise<string>}
   */
  const run = (name, input, signal) => {
    // The calls of an engine that is lost fail at once, whatever they
    // wait for; what they still do on the page's side sends nothing.
    const life = epoch;
    life.calls++;
    let onLost;
    const lost = new Promise((_, reject) => life.lost.signal.addEventListener('abort', (onLost = () => reject(failure())), { once: true }));
    return Promise.race([runOn(life.lost.signal, name, input, signal), lost]).finally(() => {
      life.calls--;
      life.lost.signal.removeEventListener('abort', onLost);
    });
  };

  /**
   * runOn is run for the engine whose life is lost: an AbortSignal aborted
   * when that engine is lost.
   */
  const runOn = async (lost, name, input, signal) => {
    const q = JSON.stringify(name);
    /** call, or the failure reply once the engine is lost. */
    const op = (o, h, b, ms) => (lost.aborted ? Promise.resolve([JSON.parse(FAILURE), '']) : call(o, h, b, ms));
    // One crossing decides: the engine finds the tool, checks the input
    // and applies the policy. A tool with resolve crosses once more, with
    // what resolve made of the checked input.
    let [d, refusal] = await call(OP_DECIDE, { name }, input);
    if (d.error) throw toError(d.error);
    const entry = registrations.get(d.registration) ?? GONE;
    if (d.outcome === OUTCOME_RESOLVE) {
      const hd = { call: d.call };
      try {
        if (entry.gone) throw entry.reason;
        let timer;
        const r = await Promise.race([
          entry.refine.call(undefined, JSON.parse(input)),
          new Promise((_, fail) => (timer = setTimeout(fail, d.load.timeoutMs, TIMEOUT))),
          abortOf(signal).then(() => Promise.reject(TIMEOUT)),
        ]).finally(() => clearTimeout(timer));
        if (r != null && !isObject(r)) throw r;
        hd.resolved = JSON.parse(JSON.stringify(r ?? null));
      } catch {
        if (!entry.gone) console.warn(`veil: resolve of tool ${q} failed, so the call is blocked`);
        hd.failed = true;
      }
      [d, refusal] = await op(OP_RESOLVE, hd);
      if (d.error) throw toError(d.error);
      // Kept before the caller's abort is heard: resolve's flag stays in
      // the session, and an engine started after a loss resumes it.
      setTrust(d.trust);
      if (d.outcome === OUTCOME_BLOCK) signal?.throwIfAborted();
    }
    if (d.resolveError) console.warn(`veil: ${d.resolveError}; the call is blocked`);
    setTrust(d.trust);
    emit('decision', freeze(d.entry));
    // A blocked call is over: the engine gave its agent view with the decision.
    if (d.outcome === OUTCOME_BLOCK) return refusal;
    const id = d.call;
    let closed = false;
    const output = (kind, data = '', ms = ENGINE_TIMEOUT) => ((closed = true), op(OP_OUTPUT, { call: id, kind }, data, ms));
    try {
      return await runDecided(lost, op, name, input, signal, d, entry, output);
    } catch (e) {
      // Whatever failed on the page's side, the engine's call is closed.
      if (!closed) output(KIND_ABORTED);
      throw e;
    }
  };

  /** runDecided runs a call the engine decided, and sends its output. */
  const runDecided = async (lost, op, name, input, signal, d, entry, output) => {
    const q = JSON.stringify(name);
    const id = d.call;
    const step = (state) => progress(id, state && { tool: name, state, slow: d.load.slow });
    // The question carries the exact input execute will get, so that an
    // approval is an approval of these arguments.
    // Made only for a notice or a question, which most calls never need.
    const request = () => {
      const def = entry.def ?? {};
      return freeze({ call: id, tool: name, title: def.title || def.annotations?.title || name, description: def.description, rule: d.rule, facts: d.facts, trust, input: JSON.parse(input), sensitive: d.sensitive ?? [] });
    };
    let ok = d.outcome === OUTCOME_ALLOW || d.outcome === OUTCOME_NOTICE;
    if (d.outcome === OUTCOME_NOTICE && !entry.gone)
      (async () => (conf.notice ?? (await loadUI()).notice)(request()))().catch((e) => console.warn('veil: the notice failed', e));
    if (d.outcome === OUTCOME_CONFIRM) {
      step('confirming');
      // The question closes when the caller gives up, or the engine is lost.
      const asked = signal ? AbortSignal.any([signal, lost]) : lost;
      ok = !entry.gone && (await Promise.race([ask(Object.freeze({ ...request(), signal: asked })), abortOf(asked)]));
      const [h] = await op(OP_SETTLE, { call: id, approved: ok });
      if (h.entry) emit('decision', freeze(h.entry));
      step();
      // An approval the engine did not record (it was lost meanwhile)
      // runs nothing: the caller hears the call failed.
      if (ok && h.error) throw toError(h.error);
    }
    // The engine ends a call that will not run. A call outlives its
    // tool's unregistration once execute has started, not before.
    if (signal?.aborted || entry.gone) {
      await output(KIND_ABORTED);
      signal?.throwIfAborted();
      throw new DOMException(`executeTool: tool ${q} was unregistered before its call started`, 'UnknownError');
    }
    if (!ok) {
      const [h, b] = await output(KIND_REFUSED);
      if (h.error) throw toError(h.error);
      return b;
    }
    // The engine that decided the call is lost: execute does not start.
    if (lost.aborted) throw failure();
    return new Promise((resolve, reject) => {
      const controller = new AbortController();
      let done = false;
      let release = noop;
      let turn;
      if (d.load.exclusive) {
        // resourceIntensiveHint: such calls run one at a time. The next
        // waits for this one and, should this one be dropped early, for
        // the one before.
        turn = exclusive;
        exclusive = Promise.all([turn, new Promise((r) => (release = r))]);
        step('queued');
      }
      const finish = () => {
        done = true;
        release();
        step();
        signal?.removeEventListener('abort', onAbort);
        lost.removeEventListener('abort', onLost);
      };
      // The engine that decided the call is lost: the call has failed
      // (run rejected it), and execute is told to stop.
      const onLost = () => {
        if (done) return;
        finish();
        reject(failure());
        controller.abort(new DOMException('the engine that decided this call was lost', 'AbortError'));
      };
      lost.addEventListener('abort', onLost, { once: true });
      // As in Chromium: the caller's promise rejects with its reason at once;
      // execute's own signal aborts, with no reason, a task later.
      const onAbort = () => {
        if (done) return;
        finish();
        reject(signal.reason);
        output(KIND_ABORTED, messageOf(signal.reason));
        setTimeout(() => {
          controller.abort();
          fire(CancelEvent, 'toolcancel', name);
        });
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      // execute reads the session's trust state, as request annotations.
      const options = { signal: controller.signal, annotations: freeze(d.request) };
      const attempt = () => {
        try {
          return Promise.resolve(entry.execute.call(undefined, JSON.parse(input), options));
        } catch (e) {
          return Promise.reject(e);
        }
      };
      const execute = () => {
        if (done) return;
        step('running');
        let timer;
        let timedOut = false;
        const result = attempt();
        fire(ActivatedEvent, 'toolactivated', name);
        return Promise.race([
          // idempotentHint: one more try after a transient failure, never
          // after the call timed out.
          d.load.retry ? result.catch((e) => (done || timedOut || !transient(e) ? Promise.reject(e) : (step('retrying'), attempt()))) : result,
          new Promise((_, fail) => (timer = setTimeout(() => ((timedOut = true), fail(TIMEOUT)), d.load.timeoutMs))),
        ]).finally(() => clearTimeout(timer));
      };
      let sent = '';
      (turn ? turn.then(execute) : execute())
        .then(classify, (e) => {
          if (e === TIMEOUT) {
            controller.abort(new DOMException(`tool ${q} did not finish in time`, 'TimeoutError'));
            return [KIND_TIMEDOUT, ''];
          }
          // Neither logged nor passed on: the page's error can quote what
          // the tool was asked to keep, and agents read the console too.
          console.warn(`veil: tool ${q} threw; its error is not passed on`);
          return [KIND_THREW, ''];
        })
        .then(([kind, data]) => {
          if (done) return [];
          sent = data;
          // The engine knows the call's registration: if it is gone, with
          // its rules, the answer is an error.
          return output(kind, data, OUTPUT_TIMEOUT);
        })
        .then(([h, b]) => {
          if (done) return;
          finish();
          if (h.error) reject(toError(h.error));
          // "same": the engine passed the output as it came; the page's own
          // string keeps what Go's UTF-8 would not (a lone surrogate).
          else resolve(h.same ? sent : b);
          // Light on purpose: a call can hold thousands of values; the page asks veil.items(callId).
          if (h.held) ns.dispatchEvent(new CustomEvent('held', { detail: { tool: name, callId: id, count: h.held } }));
          if (h.invalid?.length) {
            // A count only: the reasons name pointers, and agents read the console.
            console.warn(`veil: tool ${q} returned ${h.invalid.length} invalid secret reference(s); see the invalidreference event`);
            ns.dispatchEvent(new CustomEvent('invalidreference', { detail: { tool: name, reasons: h.invalid } }));
          }
          if (h.reserved) {
            // A count only, as for invalid references.
            console.warn(`veil: tool ${q} returned ${h.reserved} _meta key(s) under dev.veil/, which only the runtime writes; they were removed`);
            ns.dispatchEvent(new CustomEvent('reserved', { detail: { tool: name, count: h.reserved } }));
          }
          setTrust(h.trust);
          scrubbing ||= h.scrubbing === true;
          if (h.malicious) emit('malicious', freeze({ tool: name, call: id }));
        })
        .catch((e) => {
          if (done) return;
          finish();
          reject(e instanceof DOMException ? e : failure());
        });
    });
  };

  /** abortSignal checks executeTool's options.signal. */
  const abortSignal = (signal) => {
    if (signal != null && !(signal instanceof AbortSignal)) throw new TypeError('executeTool: options.signal is not an AbortSignal');
    return signal ?? undefined;
  };

  /** parseInput turns an agent's JSON text into canonical JSON text. */
  const parseInput = (json) => {
    let v;
    try {
      v = JSON.parse(str(json));
    } catch {}
    if (!isObject(v)) throw new DOMException('Failed to parse input arguments', 'UnknownError');
    return JSON.stringify(v);
  };

  // ---- Frames --------------------------------------------------------------
  //
  // Tools across the frames of one page: registerTool's exposedTo,
  // getTools({fromOrigins}) and executeTool on another frame's tool. Every
  // frame runs its own Veil and its own engine, and the frame that
  // registered a tool is the one that runs it: a call from another frame
  // goes through this frame's run(), so the caller receives the agent view
  // and nothing else, and what was withheld stays in this frame's vault and
  // tray.
  //
  // Frames talk over postMessage. A request to another window is tagged
  // (FRAMES), goes to one exact origin (never "*": the browser drops it when
  // the window is at another origin) and carries a MessagePort of its own,
  // on which alone the answer comes: no answer passes through a window,
  // where page code could read it or forge one. The answering frame checks
  // event.source (a window of this page, not itself) and event.origin (its
  // own origin, or one the tool is exposed to) on every request. A frame
  // that may not see a tool gets no answer at all, so it cannot tell a
  // hidden tool from no tool, no Veil or another origin.
  //
  // Same-origin frames are one trust domain. Cross-origin frames take part
  // only where the browser knows the "tools" permissions policy and it
  // allows this document; elsewhere cross-origin is off (it fails closed),
  // and a frame takes part only in a chain of same-origin frames from the top.

  const FRAMES = 'dev.veil/frames';
  /** How long a frame waits for another that may never answer. */
  const FRAME_WAIT = 1000;
  /** Marks a window whose Veil answers frames: a same-origin window is asked only when it has one. */
  const MARK = Symbol.for(FRAMES);
  /** The error names a call in another frame may end with; any other is UnknownError. */
  const FRAME_ERRORS = ['DataError', 'UnknownError', 'OperationError', 'TimeoutError', 'NotFoundError', 'InvalidStateError', 'NotAllowedError', 'TypeError'];

  /** reachable says whether this frame can reach w's document: w is same-origin. */
  const reachable = (w) => {
    try {
      return w.document !== undefined;
    } catch {
      return false;
    }
  };
  /** ofThisPage says whether w is another window of this page's frame tree. */
  const ofThisPage = (w) => {
    try {
      return w != null && w !== window && w.window === w && w.top === top;
    } catch {
      return false;
    }
  };
  const permissions = document.permissionsPolicy ?? document.featurePolicy;
  /** Whether the browser knows the "tools" feature. */
  const policyKnown = (() => {
    try {
      return permissions.features().includes('tools');
    } catch {
      return false;
    }
  })();
  /** Whether this document may use tools across frames. */
  const allowed = (() => {
    try {
      if (policyKnown) return permissions.allowsFeature('tools');
      for (let w = window; w !== top; w = w.parent) if (!reachable(w.parent)) return false;
      return true;
    } catch {
      return false;
    }
  })();
  const crossOrigin = policyKnown && allowed;

  /**
   * containerAllows asks the iframe element of w, when this frame can reach
   * it, whether the "tools" policy allows origin there; an embedder out of
   * reach leaves it to w's own Veil.
   */
  const containerAllows = (w, origin) => {
    try {
      const p = w.parent;
      if (p === w || !reachable(p)) return true;
      for (const el of p.document.querySelectorAll('iframe, frame'))
        if (el.contentWindow === w) {
          const policy = el.permissionsPolicy ?? el.featurePolicy;
          return policy ? policy.allowsFeature('tools', origin) : true;
        }
      return true;
    } catch {
      return false;
    }
  };

  /** visible says whether a registration of this frame may be seen from origin. */
  const visible = (entry, origin) => origin === location.origin || (crossOrigin && entry.exposedTo.includes(origin));

  /** pageWindows lists the windows of this page, from the top down, but this one. */
  const pageWindows = () => {
    const out = [];
    const visit = (w) => {
      if (w !== window) out.push(w);
      let n = 0;
      try {
        n = w.length;
      } catch {}
      for (let i = 0; i < n; i++)
        try {
          visit(w[i]);
        } catch {}
    };
    visit(top);
    return out;
  };

  const tagged = (type, rest = {}) => ({ [FRAMES]: 1, type, ...rest });
  /** post sends a message to w, delivered only if w is at origin. */
  const post = (w, origin, message, transfer = []) => {
    try {
      w.postMessage(message, origin, transfer);
      return true;
    } catch {
      return false;
    }
  };

  /**
   * whoToAsk calls f(w, origin) for each window this frame may ask or tell,
   * at each origin it may be at: same-origin windows with a Veil at this
   * origin, every other window at each of origins.
   */
  const whoToAsk = (origins, f) => {
    for (const w of pageWindows()) {
      if (reachable(w)) {
        if (w[MARK]) f(w, location.origin);
        continue;
      }
      if (crossOrigin) for (const o of origins) if (o !== location.origin) f(w, o);
    }
  };

  /** askFrame sends one request with a port of its own, and resolves with the first answer, or undefined. */
  const askFrame = (w, origin, message) =>
    new Promise((resolve) => {
      const { port1, port2 } = new MessageChannel();
      const done = (v) => {
        clearTimeout(timer);
        port1.onmessage = null;
        port1.close();
        resolve(v);
      };
      const timer = setTimeout(done, FRAME_WAIT);
      port1.onmessage = (e) => done(e.data);
      if (!post(w, origin, message, [port2])) done(undefined);
    });

  /**
   * frameTools asks the other frames of the page for the tools they expose
   * to this document: same-origin frames always, cross-origin ones at the
   * origins the caller named.
   * @param {string[]} fromOrigins
   * @returns {Promise<RegisteredTool[]>}
   */
  const frameTools = (fromOrigins) => {
    if (!allowed) return Promise.resolve([]);
    const asks = [];
    whoToAsk(fromOrigins, (w, origin) =>
      asks.push(
        askFrame(w, origin, tagged('list')).then((msg) =>
          (Array.isArray(msg?.tools) ? msg.tools : [])
            .filter((t) => isObject(t) && typeof t.name === 'string' && typeof t.description === 'string')
            .map((t) => ({ ...t, title: typeof t.title === 'string' ? t.title : '', window: w, origin })),
        ),
      ),
    );
    return Promise.all(asks).then((lists) => lists.flat());
  };

  /** byName sorts tools by name, in code unit order, as the draft does. */
  const byName = (tools) => tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  /** notifyFrames tells every frame that may see the registration that the tools changed; it names nothing. */
  const notifyFrames = (entry) => {
    if (!allowed) return;
    whoToAsk(entry.exposedTo, (w, origin) => (origin === location.origin || containerAllows(w, origin)) && post(w, origin, tagged('change')));
  };

  /** Calls this document made into other frames, and calls other frames made into it: how to end each. */
  const outgoing = new Set();
  const incoming = new Set();

  /**
   * executeInFrame runs another frame's tool there. That frame's engine
   * decides the call and makes its agent view; this frame receives only
   * that string. Aborting signal rejects at once and aborts the call there.
   */
  const executeInFrame = (w, origin, name, json, signal) =>
    new Promise((resolve, reject) => {
      const unavailable = () => new DOMException(`executeTool: tool ${JSON.stringify(name)} is not available to this document`, 'UnknownError');
      const same = origin === location.origin;
      if (!allowed || !ofThisPage(w) || reachable(w) !== same || (same ? !w[MARK] : !crossOrigin)) return reject(unavailable());
      const { port1, port2 } = new MessageChannel();
      let accepted = false;
      const end = () => {
        clearTimeout(timer);
        clearInterval(watch);
        signal?.removeEventListener('abort', onAbort);
        outgoing.delete(drop);
        port1.onmessage = null;
        port1.close();
      };
      const fail = (e) => (end(), reject(e));
      const drop = () => (port1.postMessage({ type: 'abort' }), fail(unavailable()));
      const onAbort = () => (port1.postMessage({ type: 'abort' }), fail(signal.reason));
      // Nothing comes back from a frame that may not see the tool.
      const timer = setTimeout(() => fail(unavailable()), FRAME_WAIT);
      // Nor from a frame that was removed during the call.
      const watch = setInterval(() => w.closed && fail(unavailable()), FRAME_WAIT);
      signal?.addEventListener('abort', onAbort, { once: true });
      outgoing.add(drop);
      port1.onmessage = ({ data: msg }) => {
        if (msg?.type === 'accepted' && !accepted) {
          accepted = true;
          return clearTimeout(timer);
        }
        if (msg?.type === 'result' && accepted && typeof msg.value === 'string') return end(), resolve(msg.value);
        if (msg?.type === 'error' && FRAME_ERRORS.includes(msg.name) && typeof msg.message === 'string') return fail(toError(msg));
        fail(unavailable());
      };
      if (!post(w, origin, tagged('call', { name, input: json }), [port2])) fail(unavailable());
    });

  /** errorData is what a call's caller in another frame learns of how it failed. */
  const errorData = (e) =>
    (e instanceof DOMException || e instanceof TypeError) && FRAME_ERRORS.includes(e.name)
      ? { type: 'error', name: e.name, message: messageOf(e) }
      : { type: 'error', name: 'UnknownError', message: 'the tool failed in its frame' };

  /** answerCall runs a call another frame made, through run(), and answers with its agent view. */
  const answerCall = (port, origin, same, { name, input }) => {
    const regs = typeof name === 'string' ? [...registrations.values()].filter((e) => e.name === name && !e.gone) : [];
    // Every registration of the name, pending ones too, must be visible, so
    // that one replaced meanwhile is not run for a caller it hides from.
    if (typeof input !== 'string' || !regs.some((e) => e.live) || !regs.every((e) => visible(e, origin))) {
      // A same-origin caller hears that the call failed; any other hears nothing.
      if (same) port.postMessage({ type: 'error', name: 'UnknownError', message: `tool ${JSON.stringify(str(name))} is not registered in its frame` });
      return port.close();
    }
    const controller = new AbortController();
    const end = () => {
      incoming.delete(drop);
      port.onmessage = null;
      port.close();
    };
    const drop = () => (port.postMessage(errorData(null)), controller.abort(), end());
    incoming.add(drop);
    port.onmessage = ({ data }) => data?.type === 'abort' && (controller.abort(), end());
    port.postMessage({ type: 'accepted' });
    let json;
    try {
      json = parseInput(input);
    } catch (e) {
      return port.postMessage(errorData(e)), end();
    }
    run(name, json, controller.signal)
      .then(
        (value) => controller.signal.aborted || port.postMessage({ type: 'result', value }),
        (e) => controller.signal.aborted || port.postMessage(errorData(e)),
      )
      .finally(end);
  };

  // Live from start-up, so that a frame is never asked before it listens.
  // It also tells another frame's sweep which native tools here are this
  // Veil's mirrors (Nothing around the engine).
  Object.defineProperty(window, MARK, { value: Object.freeze({ mirrored: (name, since) => mirrored(str(name), Number(since)) }) });
  addEventListener('message', (e) => {
    const msg = e.data;
    // isTrusted: a MessageEvent page script made can name any origin and source.
    if (!e.isTrusted || !isObject(msg) || msg[FRAMES] !== 1 || !ofThisPage(e.source)) return;
    const { origin } = e;
    const same = origin === location.origin;
    if (!same && !(crossOrigin && containerAllows(e.source, origin))) return;
    if (msg.type === 'change') {
      if (allowed) context.dispatchEvent(new Event('toolchange'));
      return;
    }
    const port = e.ports[0];
    if (!port) return;
    if (msg.type === 'list') {
      const tools = allowed ? live().filter((entry) => visible(entry, origin)).map((entry) => entry.def) : [];
      if (tools.length || same) port.postMessage({ tools });
    } else if (msg.type === 'call' && allowed) return answerCall(port, origin, same, msg);
    else if (same) port.postMessage({ type: 'error', name: 'UnknownError', message: 'tools are not allowed in this frame' });
    port.close();
  });
  // A document that goes ends its calls: those it made, and those made into it.
  addEventListener('pagehide', () => [...incoming, ...outgoing].forEach((f) => f()));

  // ---- The page-facing objects ---------------------------------------------

  const KEY = Symbol();

  /**
   * activeOnly throws unless mc is this document's ModelContext: a document
   * made by script (createHTMLDocument, DOMParser) has one of its own that
   * no agent reaches, so nothing can be registered or run through it. It
   * also throws where the permissions policy forbids WebMCP.
   */
  const activeOnly = (mc) => {
    if (mc !== context) throw new DOMException('the ModelContext is not of the active document', 'InvalidStateError');
    // Where the browser knows the "tools" permissions policy and it does
    // not allow this document (a cross-origin frame not allowed by its
    // iframe), the API is off, as in Chromium.
    if (policyKnown && !allowed) throw new DOMException('the "tools" permissions policy does not allow WebMCP in this document', 'NotAllowedError');
  };

  class ModelContext extends EventTarget {
    constructor(key) {
      if (key !== KEY) throw new TypeError('Illegal constructor');
      super();
    }

    /** @returns {Promise<undefined>} */
    registerTool(tool, options = {}) {
      try {
        activeOnly(this);
        return submit(prepare(tool, options));
      } catch (e) {
        return Promise.reject(e);
      }
    }

    async getTools(options = {}) {
      activeOnly(this);
      // Other frames are asked at once, in parallel with this frame's own.
      const others = frameTools(parseOrigins('getTools', 'fromOrigins', options?.fromOrigins));
      await Promise.all([...registrations.values()].map((e) => e.settled));
      // Fresh copies, as Chromium gives: a caller that edits one must not
      // change what the next caller sees.
      const own = live().map((e) => ({ ...structuredClone(e.def), title: e.def.title ?? '', window, origin: location.origin }));
      return byName([...own, ...(await others)]);
    }

    /** @returns {Promise<string>} */
    executeTool(tool, ...rest) {
      try {
        activeOnly(this);
        if (!isObject(tool) || ['name', 'description', 'origin', 'window'].some((k) => tool[k] === undefined))
          throw new TypeError('executeTool: the tool must be a RegisteredTool (name, description, origin, window)');
        const name = str(tool.name);
        const origin = originOf(tool.origin);
        if (!origin) throw new DOMException(`executeTool: the origin of tool ${JSON.stringify(name)} is not a URL with an origin`, 'NotSupportedError');
        const input = rest[0] === undefined ? {} : rest[0];
        if (!isObject(input)) throw new TypeError('executeTool: the input must be an object');
        const json = JSON.stringify(input);
        if (json === undefined) throw new TypeError('executeTool: the input cannot be serialized');
        const signal = abortSignal(rest[1]?.signal);
        signal?.throwIfAborted();
        // Another frame's tool runs there, through that frame's engine.
        if (tool.window !== window) return executeInFrame(tool.window, origin, name, json, signal);
        if (origin !== location.origin) throw new DOMException(`executeTool: tool ${JSON.stringify(name)} is not this document's`, 'UnknownError');
        return run(name, json, signal);
      } catch (e) {
        return Promise.reject(e);
      }
    }

    // The 2025 API.
    provideContext(context = {}) {
      activeOnly(this);
      this.clearContext();
      for (const t of context?.tools ?? []) submit(prepare(t)).catch((e) => console.error('veil: provideContext:', e));
    }

    clearContext() {
      activeOnly(this);
      registrations.forEach((e) => unregister(e));
    }

    unregisterTool(name) {
      activeOnly(this);
      unregisterName(str(name));
    }
  }
  handlerAttributes(ModelContext.prototype, 'toolchange', 'toolactivated', 'toolcancel');

  class ModelContextTesting extends EventTarget {
    constructor(key) {
      if (key !== KEY) throw new TypeError('Illegal constructor');
      super();
    }

    listTools() {
      return live().map((e) => ({
        name: e.name,
        description: e.def.description,
        inputSchema: JSON.stringify(e.def.inputSchema),
        annotations: structuredClone(e.def.annotations),
      }));
    }

    /** @returns {Promise<string|null>} */
    executeTool(name, inputJson, options = {}) {
      try {
        const signal = abortSignal(options?.signal);
        signal?.throwIfAborted();
        return run(str(name), parseInput(inputJson), signal);
      } catch (e) {
        return Promise.reject(e);
      }
    }

    registerToolsChangedCallback(callback) {
      testingCallback = typeof callback === 'function' ? callback : null;
    }
  }
  handlerAttributes(ModelContextTesting.prototype, 'toolchange');

  const context = new ModelContext(KEY);
  const testing = new ModelContextTesting(KEY);

  // ---- Native layering -----------------------------------------------------

  /** Returns what proto's native getter gives for obj, before we shadow it. */
  const nativeOf = (proto, obj, key) => {
    try {
      return Object.getOwnPropertyDescriptor(proto, key)?.get?.call(obj);
    } catch {}
  };
  /**
   * Puts value in front of any native attribute; page code never gets the
   * native one. of, when given, answers for the other objects of proto.
   */
  const install = (proto, obj, key, value, of) => {
    try {
      Object.defineProperty(proto, key, { configurable: true, enumerable: true, get() { return this === obj || !of ? value : of(this); } });
    } catch {
      Object.defineProperty(obj, key, { configurable: false, enumerable: true, value });
    }
  };

  const native =
    nativeOf(Document.prototype, document, 'modelContext') || nativeOf(Navigator.prototype, navigator, 'modelContext');
  /** The registry's reader as it was when the runtime started: a script that replaces it later does not hide its tools. */
  const nativeGetTools = native?.getTools;

  /**
   * The runtime's registrations in the native registry, by name: each
   * "pending" until the browser answers, then "live", or "refused" when a
   * tool that is not the runtime's holds the name.
   * held: a refused one's name was seen taken in the registry.
   * @type {Map<string, {entry: Entry, state: 'pending'|'live'|'refused', held?: boolean}>}
   */
  const mirrors = new Map();
  /**
   * When each name's last mirror left the native registry, on the clock
   * that same-origin frames share (clock()).
   * @type {Map<string, number>}
   */
  const mirrorEnded = new Map();
  /**
   * clock is a time that this document and its same-origin frames read
   * alike, in milliseconds, read with what the runtime kept at start: a
   * performance.now replaced later (a constant) would make every mirror
   * seem to have left after every reading, and hide a foreign tool.
   */
  const clock = ((now, origin) => () => origin + now())(performance.now.bind(performance), performance.timeOrigin);
  /** How long a mirror's leaving is remembered: longer than any reading of the registry takes. */
  const MIRROR_ENDED_KEPT = 60_000;
  /**
   * mirrored says whether the native tool of this document named name is,
   * or could have been when a reading of the registry began at since, the
   * runtime's mirror: a reading started before a mirror's unregistration
   * can list it after the mirror is gone.
   */
  const mirrored = (name, since = Infinity) => {
    const m = mirrors.get(name);
    if (m !== undefined && m.state !== 'refused') return true;
    const ended = mirrorEnded.get(name);
    // Strictly after: the clock is coarse (100 µs), and a reading begun in the
    // same tick as the leaving may have listed a tool registered after it.
    return ended !== undefined && ended > since;
  };

  /** mirror registers a tool in the native registry whose execute returns only the agent view. */
  const mirror = (entry) => {
    if (typeof native?.registerTool !== 'function') return;
    const { name, title, description, inputSchema, annotations } = entry.def;
    entry.mirror?.abort();
    // A registration ends only through its signal: Chromium 156 has no unregisterTool.
    const controller = (entry.mirror = new AbortController());
    const m = { entry, state: /** @type {'pending'|'live'|'refused'} */ ('pending') };
    mirrors.set(name, m);
    const t = {
      name,
      description,
      inputSchema,
      execute: (input, options) => run(name, JSON.stringify(input ?? {}), options?.signal),
    };
    if (title !== undefined) t.title = title;
    if (annotations) t.annotations = annotations;
    const refused = (e) => {
      if (mirrors.get(name) !== m || controller.signal.aborted) return;
      m.state = 'refused';
      // A tool that is not the runtime's holds the name: it is foreign.
      console.warn(`veil: the native registry refused tool ${JSON.stringify(name)}`, e);
      sweep();
    };
    try {
      // The same exposure, so that Chromium's own paths in other frames see the mirror as Veil's do.
      const options = { signal: controller.signal, ...(entry.exposedTo.length && { exposedTo: entry.exposedTo }) };
      Promise.resolve(native.registerTool(t, options)).then(() => m.state === 'pending' && (m.state = 'live'), refused);
    } catch (e) {
      refused(e);
    }
    controller.signal.addEventListener('abort', () => {
      if (mirrors.get(name) === m) mirrors.delete(name);
      // A refused mirror was never in the registry: a tool there of its name is another's.
      if (m.state !== 'refused') mirrorEnded.set(name, clock());
    });
  };

  // ---- Nothing around the engine -------------------------------------------
  //
  // The native registry must hold Veil's mirrors and nothing else: a tool
  // there that is not a mirror runs around the engine, with no decision,
  // no withholding and a description the model takes for the page's. A
  // <form toolname> would be one (the browser registers it), so Veil moves
  // the attribute to data-veil-toolname on every such form it can see, in
  // the document and in every shadow root it can reach (those made by
  // attachShadow, open or closed, and open declarative ones), before the
  // browser registers it, and makes the form a tool of its own, run
  // through the engine (veil-forms.js, loaded the first time a form has a
  // toolname). In a same-origin frame without Veil it moves the attribute
  // too, and the form is no tool: a frame's tools are its own Veil's.
  //
  // What it cannot see it cannot move: a form in a closed declarative
  // shadow root, a tool page script registered on the native object. The
  // native registry has no way to remove another's tool (a registration
  // ends only through its own AbortSignal), so such a tool stays callable
  // by every native path. Veil learns the registry's content (getTools at
  // start, on toolchange, after the DOM changes), and while any tool in it
  // is neither its mirror nor a mirror of another frame's Veil, the engine
  // is told (the "foreign" op): every call asks the user, and private
  // results are withheld from the agent. The page hears of each such tool
  // when it appears and when it is gone (a "foreigntool" event); the
  // console only that it happened, since an agent reads the console and
  // such a tool chooses its name.

  /** The names of the foreign native tools, sorted, as the engine was last told. */
  let foreignTools = [];
  /** foreignChanged tells the engine and the page that the foreign tools are now names. */
  const foreignChanged = (names) => {
    const added = names.filter((n) => !foreignTools.includes(n));
    const gone = foreignTools.filter((n) => !names.includes(n));
    foreignTools = names;
    call(OP_FOREIGN, { names: foreignTools }).then(([h]) => h.error && console.error('veil: the engine was not told of the foreign native tools', toError(h.error)));
    if (added.length)
      console.warn(
        `veil: ${added.length} native tool(s) that are not the runtime's are in the browser's registry, where the runtime cannot remove them: agents can still call them. Until they are gone, every call asks the user and private results are withheld from the agent; see the foreigntool event`,
      );
    if (gone.length) console.info(`veil: ${gone.length} native tool(s) that were not the runtime's left the browser's registry; see the foreigntool event`);
    setTimeout(() => {
      for (const name of added) emit('foreigntool', freeze({ kind: 'native', name, callable: true }));
      for (const name of gone) emit('foreigntool', freeze({ kind: 'native', name, callable: false }));
    });
  };
  /** veilMirror says whether the native tool name of window w is a mirror of w's own Veil. */
  const veilMirror = (w, name, since) => {
    try {
      return reachable(w) && w[MARK]?.mirrored?.(name, since) === true;
    } catch {
      return false;
    }
  };
  /**
   * sweepOnce reads the native registry: this document's tools and those
   * of same-origin frames, all of which native paths here can run.
   */
  const sweepOnce = async () => {
    const since = clock();
    // Kept for readings of other frames' Veils too, which began when this one cannot know.
    for (const [name, ended] of mirrorEnded) if (ended < since - MIRROR_ENDED_KEPT) mirrorEnded.delete(name);
    let list;
    try {
      list = await nativeGetTools.call(native);
    } catch {
      return;
    }
    if (!Array.isArray(list)) return;
    const names = new Set();
    const own = new Set();
    for (const t of list) {
      const name = str(t?.name);
      const w = t?.window;
      if (w === window) own.add(name);
      if (!(w === window ? mirrored(name, since) : veilMirror(w, name, since))) names.add(name);
    }
    // A mirror refused while a foreign tool held its name is registered
    // again once the name is free (one refused for another reason, never
    // seen held, is not: it would be refused again and again).
    for (const [name, m] of mirrors) {
      if (m.state !== 'refused') continue;
      if (own.has(name)) m.held = true;
      else if (m.held && m.entry.live && !m.entry.gone) mirror(m.entry);
    }
    const now = [...names].sort();
    if (JSON.stringify(now) !== JSON.stringify(foreignTools)) foreignChanged(now);
  };
  let sweeping = false;
  let sweepAgain = false;
  let soon = 0;
  /**
   * sweepSoon reads the registry after DOM changes, once for a burst of
   * them: Chromium's toolchange reports what it registers, and this only
   * backs it up.
   */
  const sweepSoon = () => (soon ||= setTimeout(() => ((soon = 0), sweep()), 100));
  /** sweep reads the native registry again, one reading at a time, the last after every change asked for. */
  const sweep = () => {
    if (typeof nativeGetTools !== 'function') return;
    if (sweeping) return void (sweepAgain = true);
    sweeping = true;
    (async () => {
      do {
        sweepAgain = false;
        await sweepOnce();
      } while (sweepAgain);
    })().finally(() => (sweeping = false));
  };

  /** @type {{seen: (form: Element) => void, removed: () => void} | null} */
  let formTools = null;
  /** @type {Promise<void> | null} */
  let loadingForms = null;
  /**
   * The forms whose toolname the runtime moved. Only they are tools: a
   * data-veil-toolname that arrives in markup is inert, since HTML
   * sanitizers keep data-* attributes they would strip as toolname.
   * @type {WeakSet<Element>}
   */
  const named = new WeakSet();
  /**
   * withhold hands the engine values a form tool's answer must not give
   * the agent (veil-forms.js): it withholds them from the answers of the
   * tool's open calls and from every later output. It rejects when the
   * engine did not take them, and the answer is then withheld whole.
   */
  const withhold = async (name, values) => {
    // Before the op: should the engine be lost, the next knows it cannot scrub what this one held.
    scrubbing = true;
    const [h] = await call(OP_SCRUB, { tool: name }, JSON.stringify(values));
    if (h.error) throw toError(h.error);
  };
  /** declare takes a form's toolname out of the browser's reach and hands the form to veil-forms.js. */
  const declare = (form) => {
    const name = form.getAttribute('toolname');
    if (name !== null) {
      form.setAttribute('data-veil-toolname', name);
      form.removeAttribute('toolname');
      named.add(form);
    } else if (!named.has(form)) return;
    loadingForms ??= import(here('veil-forms.js')).then(
      (m) => void (formTools = m.start({ prepare, submit, veil: ns, withhold })),
      (e) => console.warn('veil: veil-forms.js did not load, so no form is a tool', e),
    );
    loadingForms.then(() => formTools?.seen(form));
  };
  const FORM_TOOL = 'form[toolname],form[data-veil-toolname]';
  const scan = (root) => root.querySelectorAll?.(FORM_TOOL).forEach(declare);
  const observer = new MutationObserver((records) => {
    let removed = false;
    for (const r of records) {
      if (r.type === 'attributes') {
        if (r.target.localName === 'form' && r.target.hasAttribute('toolname')) declare(r.target);
        continue;
      }
      removed ||= r.removedNodes.length > 0;
      for (const n of r.addedNodes) {
        if (n.nodeType !== 1) continue;
        if (n.matches(FORM_TOOL)) declare(n);
        scan(n);
        look(n);
      }
    }
    // A form tool that left the document is unregistered.
    if (removed) formTools?.removed();
    sweepSoon();
  });
  const watch = (root) => {
    observer.observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ['toolname'] });
    scan(root);
    reached(root, watch);
  };

  // What the observer cannot see by itself: shadow roots (no mutation
  // record reaches into one, and a declarative root is attached by the
  // parser, not by attachShadow) and the documents of same-origin frames.
  /** The roots watched, each once. */
  const roots = new WeakSet();
  /**
   * reached marks root watched, hands f the open shadow roots in it, and
   * listens there for the loads of the frames in it (a load does not
   * leave its shadow root). A root is reached once.
   */
  const reached = (root, f) => {
    if (roots.has(root)) return;
    roots.add(root);
    root.addEventListener('load', onLoad, true);
    lookIn(root, f);
  };
  /** lookIn hands f the open shadow roots under node, declarative ones included, and guards the frames there. */
  const lookIn = (node, f) => {
    const visit = (el) => {
      const r = el.shadowRoot;
      if (r && !roots.has(r)) f(r);
      if (FRAME.includes(el.localName)) frame(el);
    };
    if (node.nodeType === 1) visit(node);
    node.querySelectorAll?.('*').forEach(visit);
  };
  /** look watches what this document's observer cannot see under node. */
  const look = (node) => lookIn(node, watch);
  const FRAME = ['iframe', 'frame', 'object', 'embed'];
  /** windowOf returns the window of a frame element; an embed has no contentWindow, and is found among its document's frames. */
  const windowOf = (el) => {
    if (el.localName !== 'embed') return el.contentWindow;
    const frames = el.ownerDocument?.defaultView;
    for (let i = 0; i < (frames?.length ?? 0); i++) {
      try {
        if (frames[i].frameElement === el) return frames[i];
      } catch {}
    }
    return null;
  };
  /**
   * Frames whose document may change before a load event comes, or
   * never comes (a resource that never finishes loading): their new
   * documents are guarded as they appear, on a timer, until they load.
   * @type {Set<Element>}
   */
  const loading = new Set();
  let polling = 0;
  const pollFrames = () => {
    polling = 0;
    for (const el of loading) {
      if (el.isConnected) frame(el);
      else loading.delete(el);
    }
    if (loading.size) polling = setTimeout(pollFrames, 50);
  };

  /**
   * frame guards the document of a same-origin frame that runs no Veil of
   * its own (srcdoc, about:blank written by script, a same-origin URL):
   * a form with a toolname there is the browser's tool, which native paths
   * here can run. A frame with Veil keeps its own registry.
   */
  const frame = (el) => {
    let w, doc;
    try {
      w = windowOf(el);
      doc = w?.document;
      if (!w || !doc || w[MARK]) return void loading.delete(el);
    } catch {
      return void loading.delete(el);
    }
    guard(doc);
    // A frame's first document is about:blank, complete, while the one it
    // was given (srcdoc, src, data) is on its way.
    const given = el.hasAttribute('srcdoc') || !['', 'about:blank'].includes(el.getAttribute('src') ?? el.getAttribute('data') ?? '');
    if (doc.readyState === 'complete' && (doc.URL !== 'about:blank' || !given)) loading.delete(el);
    else {
      loading.add(el);
      polling ||= setTimeout(pollFrames, 50);
    }
  };
  /** neutralize moves a toolname out of the browser's reach; the form is no tool. */
  const neutralize = (form) => {
    const name = form.getAttribute?.('toolname');
    if (name == null || form.localName !== 'form') return;
    form.setAttribute('data-veil-toolname', name);
    form.removeAttribute('toolname');
  };
  /** guardIn guards what was added to a guarded root: its forms, open shadow roots and frames. */
  const guardIn = (node) => {
    neutralize(node);
    node.querySelectorAll?.('form[toolname]').forEach(neutralize);
    lookIn(node, guard);
  };
  /** guard watches a root of a frame without Veil: a document or an open shadow root in it. */
  const guard = (root) => {
    if (roots.has(root)) return;
    guards.observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ['toolname'] });
    neutralize(root);
    root.querySelectorAll?.('form[toolname]').forEach(neutralize);
    reached(root, guard);
  };
  /** The observer of the roots guard watches: it moves toolnames, and declares nothing. */
  const guards = new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'attributes') neutralize(r.target);
      else for (const n of r.addedNodes) if (n.nodeType === 1) guardIn(n);
    }
    sweepSoon();
  });
  /** onLoad guards a frame whose document loaded, and reads the registry again. */
  function onLoad(e) {
    if (FRAME.includes(e.target?.localName)) frame(e.target);
    sweep();
  }

  watch(document);
  // Shadow roots, open or closed, as they are made.
  const attachShadow = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attachShadow.call(this, init);
    watch(root);
    return root;
  };
  // The parser's entry points that make declarative shadow roots: what
  // they made is watched before the call returns.
  for (const proto of [Element.prototype, ShadowRoot.prototype]) {
    const setHTML = proto.setHTMLUnsafe;
    if (typeof setHTML === 'function')
      proto.setHTMLUnsafe = function (...args) {
        const r = setHTML.apply(this, args);
        scan(this);
        look(this);
        return r;
      };
  }
  const parseHTML = Document.parseHTMLUnsafe;
  if (typeof parseHTML === 'function')
    Document.parseHTMLUnsafe = function (...args) {
      const doc = parseHTML.apply(this, args);
      scan(doc);
      look(doc);
      return doc;
    };
  // Parsing may attach a declarative root after its host was seen.
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => look(document), { once: true });
  native?.addEventListener?.('toolchange', sweep);
  sweep();

  /** The ModelContexts of the documents script makes, one each. */
  const made = new WeakMap();
  const contextOf = (doc) => {
    if (!(doc instanceof Document)) throw new TypeError('Illegal invocation');
    let mc = made.get(doc);
    if (!mc) made.set(doc, (mc = new ModelContext(KEY)));
    return mc;
  };
  install(Document.prototype, document, 'modelContext', context, contextOf);
  install(Navigator.prototype, navigator, 'modelContext', context);
  install(Navigator.prototype, navigator, 'modelContextTesting', testing);
  globalThis.ModelContext ??= ModelContext;

  // ---- The runtime's own namespace -----------------------------------------

  /** The agent paths, for conformance tests: each executes a tool as an agent would. */
  const paths = Object.freeze(
    [
      ['document.modelContext.executeTool', (n, j) => document.modelContext.executeTool({ name: n, description: '', window, origin: location.origin }, JSON.parse(j))],
      ['navigator.modelContext.executeTool', (n, j) => navigator.modelContext.executeTool({ name: n, description: '', window, origin: location.origin }, JSON.parse(j))],
      ['navigator.modelContextTesting.executeTool', (n, j) => navigator.modelContextTesting.executeTool(n, j)],
      native?.executeTool && [
        'native executeTool',
        async (n, j) => {
          const t = (await native.getTools()).find((t) => t.name === n && t.window === window);
          return native.executeTool(t, JSON.parse(j));
        },
      ],
    ]
      .filter(Boolean)
      .map(([name, execute]) => Object.freeze({ name, execute })),
  );

  // ---- Reveal: the user's side of what was withheld ------------------------

  /** How long a redemption may take. */
  const REDEEM_TIMEOUT = 30000;
  const refused = (reason, message, status) => ({ ok: false, reason, message, status });
  /** What each redemption answer means, for the user. */
  const answers = {
    401: ['signin', 'Sign in to reveal this secret.'],
    403: ['forbidden', 'You are not allowed to reveal this secret.'],
    404: ['notfound', 'This secret does not exist (any more).'],
    410: ['gone', 'This secret has expired or was already revealed.'],
  };

  /**
   * redeem fetches a secret_reference's value. The engine validated the
   * URL; it is checked again here, and only a same-origin GET ever leaves.
   * @returns {Promise<VeilRevealResult>}
   */
  const redeem = async (url) => {
    let u;
    try {
      u = new URL(url);
    } catch {}
    if (u?.origin !== location.origin || !/^https?:$/.test(u.protocol))
      return refused('invalid', 'This secret is not on this site, so it was not fetched.');
    let res;
    try {
      res = await fetch(u, {
        credentials: 'same-origin',
        cache: 'no-store',
        redirect: 'error',
        referrerPolicy: 'no-referrer',
        signal: AbortSignal.timeout(REDEEM_TIMEOUT),
      });
    } catch {
      return refused('network', 'The secret could not be fetched. Check the connection and try again.');
    }
    const { status } = res;
    if (status === 200) {
      let v;
      try {
        v = (await res.json())?.value;
      } catch {}
      return typeof v === 'string' ? { ok: true, value: v } : refused('error', 'The server answered with no secret.', status);
    }
    if (answers[status]) return refused(...answers[status], status);
    if (status === 429) {
      const h = res.headers.get('Retry-After') ?? '';
      const s = /^\d+$/.test(h) ? +h : Math.ceil((Date.parse(h) - Date.now()) / 1000);
      const retryAfter = s >= 0 ? s : undefined;
      const r = refused('ratelimited', `Too many attempts. Try again ${retryAfter === undefined ? 'later' : `in ${retryAfter} s`}.`, status);
      return { ...r, retryAfter };
    }
    if (status >= 500) return refused('unavailable', 'The server cannot hand out the secret right now. Try again later.', status);
    return refused('error', `The server answered ${status}.`, status);
  };

  /** @returns {VeilItem} */
  const toItem = (i) => ({ ...i, expires: Date.parse(i.expires), ...(i.redeemBy && { redeemBy: Date.parse(i.redeemBy) }) });

  class Veil extends EventTarget {
    /** Resolves once the engine runs; rejects if it can't start (naming the files that did not load). */
    get ready() {
      return ready;
    }
    /** Where the engine runs: "worker" or "main". */
    get mode() {
      return mode;
    }
    get paths() {
      return paths;
    }

    /**
     * Sets the risk policy and how the page asks the user. Keys left out
     * keep their value; null restores a default.
     * @param {VeilConfig} options
     * @returns {Promise<void>}
     */
    async configure(options = {}) {
      const { confirm, notice, ...rest } = options ?? {};
      for (const [k, f] of [['confirm', confirm], ['notice', notice]])
        if (f != null && typeof f !== 'function') throw new TypeError(`veil.configure: ${k} must be a function`);
      // JSON has no Infinity or NaN: they would arrive as null, which
      // restores a default.
      const json = JSON.stringify(rest, (k, v) => {
        const n = v instanceof Number ? Number(v) : v;
        if (typeof n === 'number' && !Number.isFinite(n)) throw new TypeError(`veil.configure: ${k} must be a finite number`);
        return v;
      });
      const [h] = await call(OP_CONFIGURE, json);
      if (h.error) throw toError(h.error);
      // Kept for an engine started after this one is lost.
      settings = h.settings ?? settings;
      if (confirm !== undefined) conf.confirm = confirm ?? undefined;
      if (notice !== undefined) conf.notice = notice ?? undefined;
    }

    /**
     * Declines every call waiting to be put to the user (not the one being
     * asked now), and returns how many.
     * @returns {number}
     */
    declinePending() {
      return declinePending();
    }

    /** The session's trust state: what has reached the agent. */
    get trust() {
      return trust;
    }

    /** The calls in progress, and what each waits for. */
    get calls() {
      return [...active.values()];
    }

    /**
     * The decision log, oldest first: rule, facts and outcome of each call.
     * @returns {Promise<VeilDecision[]>}
     */
    async decisions() {
      const [h] = await call(OP_DECISIONS);
      return freeze(h.decisions ?? []);
    }

    /**
     * Lists what is held for the user, never the values: every call's
     * items, or those of one call.
     * @param {string} [callId]
     * @returns {Promise<VeilItem[]>}
     */
    async items(callId) {
      const [h] = await call(OP_ITEMS);
      return (h.items ?? []).filter((i) => callId === undefined || i.callId === str(callId)).map(toItem);
    }

    /**
     * Reveals one item to the user: a withheld value from the engine, a
     * secret_reference by a GET of its redeemUrl. It needs transient user
     * activation (a click or a key press), and it never rejects: it
     * resolves with {ok: true, value} or {ok: false, reason, message}.
     * @param {string} handle
     * @returns {Promise<VeilRevealResult>}
     */
    reveal(handle) {
      if (!navigator.userActivation?.isActive)
        return Promise.resolve(refused('activation', 'Revealing a value needs a click or a key press.'));
      return call(OP_REVEAL, { handle: str(handle) }).then(([h, b]) =>
        h.error
          ? h.error.name === ERR_NOT_FOUND
            ? refused('notfound', 'This value is no longer held: it expired or was forgotten.')
            : refused('error', 'The value could not be revealed.')
          : h.kind === 'reference'
            ? redeem(h.redeemUrl)
            : { ok: true, value: b },
      );
    }

    /**
     * Wipes one item and resolves with whether it was held.
     * @param {string} handle
     * @returns {Promise<boolean>}
     */
    async forget(handle) {
      const [h] = await call(OP_FORGET, { handle: str(handle) });
      if (h.ok) this.dispatchEvent(new CustomEvent('forgotten', { detail: { handle: str(handle) } }));
      return !!h.ok;
    }
  }
  const ns = new Veil();
  Object.defineProperty(globalThis, 'veil', { value: ns, configurable: true });

  // ---- MCP over the tab transport (data-veil-mcp) --------------------------
  //
  // veil-mcp.js gets only these: the registry's definitions, run (the one
  // way out) and toolchange. It checks the allowed origins itself.
  if (script?.dataset.veilMcp !== undefined)
    import(here('veil-mcp.js'))
      .then((m) =>
        m.start({
          transport: script.dataset.veilMcp,
          origins: script.dataset.veilMcpOrigins ?? '',
          tools: async () => {
            await Promise.all([...registrations.values()].map((e) => e.settled));
            return live().map((e) => structuredClone(e.def));
          },
          run: (name, input, signal) => run(name, input, signal),
          ontoolchange: (listener) => context.addEventListener('toolchange', listener),
        }),
      )
      .catch((e) => console.error('veil: the MCP server could not start', e));

  // <veil-secrets>, the ready-made tray, loads from beside this script when
  // the document uses it and nothing defined it yet.
  const tray = () => {
    if (customElements.get('veil-secrets') || !document.querySelector('veil-secrets')) return;
    const s = document.createElement('script');
    s.src = here('veil-secrets.js');
    s.onerror = () => console.error(`veil: cannot load ${s.src}, so <veil-secrets> is not defined`);
    if (script?.nonce) s.nonce = script.nonce;
    document.head.append(s);
  };
  document.readyState === 'loading' ? document.addEventListener('DOMContentLoaded', tray, { once: true }) : tray();
})();
