// The tool registry.
//
// The engine owns the registry: it refuses a name already taken, checks
// every definition and says which registration a call is for. The page
// keeps, per registration, what only it can hold (execute, resolve, the
// abort signal) and the normalized definition the engine answered with,
// for the synchronous listTools.

import { OP_REGISTER, OP_UNREGISTER } from './contract.js';
import { str, isObject, isAbortSignal, toError, messageOf } from './util.js';
import { parseOrigins } from './origins.js';
import { call } from './engine.js';
import { changed } from './context.js';
import { mirror, remirror } from './mirror.js';
import { listed } from './listing.js';
import { notifyFrames } from './frames.js';

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
 * @property {Promise<void>} [settled]      once the engine has answered (set as the entry is made)
 * @property {string} source               the definition as sent, for an engine started again
 * @property {{version: number, def: any}} [listed]   what the tool lists carry of it, for the session's set as of version (listing.js)
 * @property {{version: number, promise: Promise<void>}} [asking]   the engine's answer for listed, awaited
 * @property {string} [mirrored]            the JSON of what its native mirror was registered with
 * @property {boolean} [remirror]           its mirror is to be registered anew once its calls are over
 */
/** @type {Map<number, Entry>} Registrations pending or live. */
export const registrations = new Map();
let registered = 0;
/** What a call finds when its registration is gone. */
export const GONE = /** @type {Entry} */ ({ gone: true });
export const live = () =>
  [...registrations.values()].filter((e) => e.live && !e.gone).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/**
 * prepare does the checks that need the page's JavaScript values, in the
 * draft's order; the engine does the rest. It throws synchronously.
 */
export const prepare = (tool, options) => {
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
  if (signal !== undefined && !isAbortSignal(signal))
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


/**
 * submit registers the tool with the engine, which answers in order:
 * a call sent after it finds the tool, and a second registration of the
 * name is refused there.
 */
export const submit = ({ name, execute, resolve: refine, signal, exposedTo = [], def }) =>
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
    call(OP_REGISTER, { registration: entry.registration, resolve: !!refine }, def)
      .then(([h, b]) => {
        if (h.error) throw toError(h.error);
        // Unregistered while pending: the engine has removed it again.
        if (entry.gone) throw entry.reason ?? new DOMException('registerTool: the tool was unregistered', 'AbortError');
        for (const n of h.notes ?? []) console.info(`veil: ${n}`);
        entry.def = JSON.parse(b);
        entry.live = true;
        mirror(entry);
        // Listed bare until the engine answers for it, once the session withheld something.
        listed([entry]).then(() => remirror(entry));
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
export const unregister = (entry, reason) => {
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
export const unregisterName = (name) => registrations.forEach((e) => e.name === name && unregister(e));
