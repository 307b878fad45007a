// Running a tool: the one way out. Every agent path ends in run: the
// engine decides, execute runs, the engine makes the output. withhold
// is a form tool's way to keep values of its answer from the agent.

import { FAILURE, KIND_ABORTED, KIND_EMPTY, KIND_REFUSED, KIND_RETURNED, KIND_TEXT, KIND_THREW, KIND_TIMEDOUT, KIND_UNSERIALIZABLE, OP_DECIDE, OP_OUTPUT, OP_RESOLVE, OP_SCRUB, OP_SETTLE, OUTCOME_ALLOW, OUTCOME_BLOCK, OUTCOME_CONFIRM, OUTCOME_NOTICE, OUTCOME_RESOLVE, OP_TIMEOUT_MS, OUTPUT_TIMEOUT_MS } from './contract.js';
import { noop, str, isObject, isAbortSignal, toError, failure, messageOf, freeze, abortOf } from './util.js';
import { trust, setTrust, progress, emit } from './session.js';
import { ActivatedEvent, CancelEvent } from './events.js';
import { registrations, GONE } from './registry.js';
import { conf, ask } from './consent.js';
import { fire } from './context.js';
import { call, epoch } from './engine.js';
import { loadUI } from './lazy.js';
import { ns } from './veil.js';
import { debug } from './config.js';
import { grew } from './listing.js';
import { remirror } from './mirror.js';

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

/** @type {Promise<unknown>} */
let exclusive = Promise.resolve();
/** Whether an engine's scrub set held anything: a restart must know, and so must the tool lists (listing.js). */
export let scrubbing = false;
/** The calls in progress, by tool name: a mirror is not registered anew under one (mirror.js). */
export const running = new Map();
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
export const run = (name, input, signal) => {
  // The calls of an engine that is lost fail at once, whatever they
  // wait for; what they still do on the page's side sends nothing.
  const life = epoch;
  life.calls++;
  running.set(name, (running.get(name) ?? 0) + 1);
  let onLost;
  const lost = new Promise((_, reject) => life.lost.signal.addEventListener('abort', (onLost = () => reject(failure())), { once: true }));
  return Promise.race([runOn(life.lost.signal, name, input, signal), lost]).finally(() => {
    life.calls--;
    life.lost.signal.removeEventListener('abort', onLost);
    const n = /** @type {number} */ (running.get(name)) - 1;
    if (n) return void running.set(name, n);
    running.delete(name);
    // A mirror whose listing changed while the tool ran is registered
    // anew a task later, once the browser has the call's result.
    setTimeout(() => {
      if (!running.has(name)) for (const e of registrations.values()) if (e.name === name && e.remirror) (e.remirror = false), remirror(e);
    });
  });
};

/**
 * runOn is run for the engine whose life is lost: an AbortSignal aborted
 * when that engine is lost.
 */
const runOn = async (lost, name, input, signal) => {
  const q = JSON.stringify(name);
  /** @type {typeof call} call, or the failure reply once the engine is lost. */
  const op = (o, ...args) => (lost.aborted ? Promise.resolve(/** @type {[any, string]} */ ([JSON.parse(FAILURE), ''])) : call(o, ...args));
  // One crossing decides: the engine finds the tool, checks the input
  // and applies the policy. A tool with resolve crosses once more, with
  // what resolve made of the checked input.
  let [d, refusal] = await call(OP_DECIDE, { name }, input);
  if (d.error) throw toError(d.error);
  const entry = registrations.get(d.registration) ?? GONE;
  if (d.outcome === OUTCOME_RESOLVE) {
    /** @type {import('./contract.js').ResolveRequest} */
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
  const output = (kind, data = '', ms = OP_TIMEOUT_MS) => {
    closed = true;
    // An output the engine takes may fill its scrub set.
    const held = !lost.aborted && (kind === KIND_TEXT || kind === KIND_RETURNED);
    return op(OP_OUTPUT, { call: id, kind }, data, ms).then((r) => {
      // Read from every reply, whether or not the caller still waits for
      // it (one that aborted does not): should the engine be lost, the
      // next must know it cannot scrub what this one withheld. An engine
      // lost while it had the output may have withheld some of it.
      scrubbing ||= r[0].scrubbing === true || (held && lost.aborted);
      // What it withheld leaves the tool lists before the caller has the
      // view. An output that passed as it came withheld nothing, and the
      // set is as it was.
      return r[0].scrubbing === true && r[0].same !== true ? grew().then(() => r, () => r) : r;
    });
  };
  try {
    return await runDecided(lost, op, name, input, signal, d, entry, output);
  } catch (e) {
    // Whatever failed on the page's side, the engine's call is closed.
    if (!closed) output(KIND_ABORTED);
    throw e;
  }
};

/**
 * runDecided runs a call the engine decided, and sends its output.
 * @param {AbortSignal} lost          aborted when the deciding engine is lost
 * @param {typeof call} op            call, or the failure reply once lost
 * @param {string} name
 * @param {string} input              the checked input, as JSON
 * @param {AbortSignal | undefined} signal  the caller's
 * @param {import('./engine.js').Reply<'decide'>} d
 * @param {import('./registry.js').Entry} entry
 * @param {(kind: string, data?: string, ms?: number) => Promise<[import('./engine.js').Reply<'output'>, string]>} output
 */
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
  // A call executeTool returned is a started call, as in the draft, where
  // execute runs inside executeTool: the caller's abort while the engine
  // decided cancels it as it cancels a running one (execute starts, and
  // its signal aborts a task later), once the engine allowed it without
  // asking; a question the abort closed was not approved, and a tool
  // with resolve (Veil's own step before execute) is not run for input
  // its resolve was refining when the caller gave up.
  const startedAborted = !!signal?.aborted && ok && d.outcome !== OUTCOME_CONFIRM && !entry.refine && !entry.gone && !lost.aborted;
  // The engine ends a call that will not run. A call outlives its
  // tool's unregistration once execute has started, not before.
  if ((signal?.aborted && !startedAborted) || entry.gone) {
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
    /** @type {(v?: unknown) => void} */
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
    if (startedAborted) {
      // Out of turn: the call is over for its caller at once.
      step('running');
      attempt().catch(noop);
      fire(ActivatedEvent, 'toolactivated', name);
      return onAbort();
    }
    let sent = '';
    (turn ? turn.then(execute) : execute())
      .then(classify, (e) => {
        if (e === TIMEOUT) {
          controller.abort(new DOMException(`tool ${q} did not finish in time`, 'TimeoutError'));
          return [KIND_TIMEDOUT, ''];
        }
        // Neither logged nor passed on: the page's error can quote what
        // the tool was asked to keep, and agents read the console too.
        if (debug) console.warn(`veil: tool ${q} threw (data-veil-debug is on: the error is shown here, never passed on):`, e);
        else console.warn(`veil: tool ${q} threw; its error is not passed on (data-veil-debug shows it here)`);
        return [KIND_THREW, ''];
      })
      .then(([kind, data]) => {
        if (done) return [];
        sent = data;
        // The engine knows the call's registration: if it is gone, with
        // its rules, the answer is an error.
        return output(kind, data, OUTPUT_TIMEOUT_MS);
      })
      .then((/** @type {[import('./engine.js').Reply<'output'>, string]} */ [h, b]) => {
        if (done) return;
        finish();
        if (h.error) reject(toError(h.error));
        // "same": the engine passed the output as it came; the page's own
        // string keeps what Go's UTF-8 would not (a lone surrogate).
        else resolve(h.same ? sent : b);
        // Light on purpose: a call can hold thousands of values; the page asks veil.items(call).
        if (h.held) ns.dispatchEvent(new CustomEvent('held', { detail: { tool: name, call: id, count: h.held } }));
        // Counts only (the engine writes them): the reasons name pointers, and agents read the console.
        for (const w of h.warnings ?? []) console.warn(`veil: tool ${q} ${w}`);
        if (h.invalid?.length) ns.dispatchEvent(new CustomEvent('invalidreference', { detail: { tool: name, reasons: h.invalid } }));
        if (h.reserved) ns.dispatchEvent(new CustomEvent('reserved', { detail: { tool: name, count: h.reserved } }));
        setTrust(h.trust);
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
export const abortSignal = (signal) => {
  if (signal != null && !isAbortSignal(signal)) throw new TypeError('executeTool: options.signal is not an AbortSignal');
  return signal ?? undefined;
};

/** parseInput turns an agent's JSON text into canonical JSON text. */
export const parseInput = (json) => {
  let v;
  try {
    v = JSON.parse(str(json));
  } catch {}
  if (!isObject(v)) throw new DOMException('Failed to parse input arguments', 'UnknownError');
  return JSON.stringify(v);
};

/**
 * withhold hands the engine values a form tool's answer must not give
 * the agent (veil-forms.js): it withholds them from the answers of the
 * tool's open calls and from every later output. It rejects when the
 * engine did not take them, and the answer is then withheld whole.
 */
export const withhold = async (name, values) => {
  // Before the op: should the engine be lost, the next knows it cannot scrub what this one held.
  scrubbing = true;
  const [h] = await call(OP_SCRUB, { tool: name }, JSON.stringify(values));
  await grew().catch(noop);
  if (h.error) throw toError(h.error);
};
