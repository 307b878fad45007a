// The engine connection.
//
// One engine answers at a time. Should it be lost (its Worker terminated
// or crashed, its Go program exited, a trap, an op that never came
// back), every call it was deciding fails at once with the failure
// reply, the page hears enginelost, and the next op starts another
// engine, which resumes from what the page kept of the lost one: the
// trust state it last reported (never a clean session), the policy's
// settings and the live registrations. What the lost engine held for
// the user is gone with it.

import { FAILURE, OP_INIT, OP_TIMEOUT_MS } from './contract.js';
import { noop, toError, freeze } from './util.js';
import { registrations, unregister } from './registry.js';
import { scrubbing } from './run.js';
import { forced, initHeader, importWithin } from './config.js';
import { trust, setTrust, emit } from './session.js';
import { startWorker, startMain, missing } from './spawn.js';
import { foreignTools } from './foreign.js';
import { settings } from './veil.js';

/** @typedef {{op: string, header: string, body: string, resolve: (r: [string, string]) => void, timedOut?: () => void}} Request */
/** @typedef {import('./contract.js').Requests} Requests */
/** @typedef {import('./contract.js').Replies} Replies */
/**
 * Reply is op K's reply header as the page reads it: its reply, or the
 * error any op can answer instead.
 * @template {keyof Replies} K
 * @typedef {Replies[K] & {error?: import('./contract.js').EngineError | null}} Reply
 */
/** @typedef {{send: (r: Request) => void, stop: () => void, dead?: boolean}} Engine */
/** @type {Request[]} Ops waiting for an engine. */
let queue = [];
/** @type {((r: Request) => void) | null} */
let send = null;
export let mode = forced === 'main' ? 'main' : 'worker';
/** @type {Engine|null} The engine that answers now. */
let current = null;
// "starting", "up", "lost" (the next op starts another) or "down" (it
// could not, or the engine was lost too often: every op fails).
let state = 'starting';
/**
 * The engine's lifetime, as the calls it decides see it: aborted when it
 * is lost. calls counts the calls in progress.
 */
export let epoch = { lost: new AbortController(), calls: 0 };
// An engine lost more often than this within RESTART_WINDOW ms is not
// started again: a page whose engine keeps dying fails closed.
const MAX_RESTARTS = 3;
const RESTART_WINDOW = 60000;
/** @type {number[]} When the engine was last started again. */
let restarts = [];

/**
 * request sends one op through submit. It resolves with the parsed reply
 * header and the raw reply body; it never rejects. A reply that never
 * comes resolves as FAILURE after ms, so no call hangs.
 * @template {keyof Requests} K
 * @param {K} op
 * @param {any} header   the op's header (call's type checks it), or its JSON
 * @param {string} body
 * @param {number} ms
 * @param {(r: Request) => void} submit
 * @returns {Promise<[Reply<K>, string]>}
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
 * Args are what call takes after the op: its header, which only an op
 * that reads none may leave out, its body and how long to wait.
 * @template {keyof Requests} K
 * @typedef {Requests[K] extends Record<string, never> ? [header?: Requests[K], body?: string, ms?: number] : [header: Requests[K], body?: string, ms?: number]} Args
 */

/**
 * call sends one op to the engine (the ops are package ops's, in Go),
 * starting another engine first if the last was lost.
 * @type {<K extends keyof Requests>(op: K, ...args: Args<K>) => Promise<[Reply<K>, string]>}
 */
export const call = (op, header = /** @type {any} */ ({}), body = '', ms = OP_TIMEOUT_MS) =>
  request(op, header, body, ms, (r) => {
    if (send) return send(r);
    queue.push(r);
    if (state === 'lost') restart();
  });

/** @param {Request} r */
export const failed = (r) => r.resolve([FAILURE, '']);

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

/** Resolves once the engine runs. */
export let ready;
/** start starts the first engine, in the mode the page asked for: veil.ready. */
export const start = () => {
  const init = call(OP_INIT, initHeader());
  ready = (async () => {
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
};

/**
 * lose ends engine e, if it is the one that answers: its calls fail at
 * once, the page hears enginelost, and the next op starts another.
 * @param {Engine} e
 * @param {string} reason  what was noticed, for the event and the console
 */
export const lose = (e, reason) => {
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
 * restart starts another engine in the same mode (veil-restart.js, loaded
 * at the first loss), which resumes from what the page kept of the lost one.
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
  importWithin('veil-restart.js')
    .then((/** @type {typeof import('../restart/main.js')} */ m) =>
      m.restart({
        start: async () => (e = await (mode === 'worker' ? startWorker() : startMain())),
        request,
        // A lost engine that had withheld something takes what it would
        // scrub from later outputs with it: the next withholds them whole.
        init: { ...initHeader(), trust, settings: settings ?? undefined, scrubLost: scrubbing },
        foreign: foreignTools,
        entries: [...registrations.values()].filter((r) => r.live && !r.gone),
        use,
        lostMeanwhile,
        unregister,
      }),
    )
    .catch((err) => {
      if (lostMeanwhile()) return;
      console.error('veil: the engine could not be started again', err);
      current?.stop();
      current = null;
      goDown();
    });
};
