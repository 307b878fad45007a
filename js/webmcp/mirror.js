// Native layering: the runtime's objects in front of the browser's, and
// the native mirror, a registration in the browser's registry for each
// of the runtime's tools, whose execute returns only the agent view.

import { run, running } from './run.js';
import { sweep } from './foreign.js';
import { listing } from './listing.js';

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
export const install = (proto, obj, key, value, of) => {
  try {
    Object.defineProperty(proto, key, { configurable: true, enumerable: true, get() { return this === obj || !of ? value : of(this); } });
  } catch {
    Object.defineProperty(obj, key, { configurable: false, enumerable: true, value });
  }
};

export const native =
  nativeOf(Document.prototype, document, 'modelContext') || nativeOf(Navigator.prototype, navigator, 'modelContext');
/** The registry's reader as it was when the runtime started: a script that replaces it later does not hide its tools. */
export const nativeGetTools = native?.getTools;

/**
 * The runtime's registrations in the native registry, by name: each
 * "pending" until the browser answers, then "live", or "refused" when a
 * tool that is not the runtime's holds the name.
 * held: a refused one's name was seen taken in the registry.
 * @type {Map<string, {entry: import('./registry.js').Entry, state: 'pending'|'live'|'refused', held?: boolean}>}
 */
export const mirrors = new Map();
/**
 * When each name's last mirror left the native registry, on the clock
 * that same-origin frames share (clock()).
 * @type {Map<string, number>}
 */
export const mirrorEnded = new Map();
/**
 * clock is a time that this document and its same-origin frames read
 * alike, in milliseconds, read with what the runtime kept at start: a
 * performance.now replaced later (a constant) would make every mirror
 * seem to have left after every reading, and hide a foreign tool.
 */
export const clock = ((now, origin) => () => origin + now())(performance.now.bind(performance), performance.timeOrigin);
/** How long a mirror's leaving is remembered: longer than any reading of the registry takes. */
export const MIRROR_ENDED_KEPT = 60_000;
/**
 * mirrored says whether the native tool of this document named name is,
 * or could have been when a reading of the registry began at since, the
 * runtime's mirror: a reading started before a mirror's unregistration
 * can list it after the mirror is gone.
 */
export const mirrored = (name, since = Infinity) => {
  const m = mirrors.get(name);
  if (m !== undefined && m.state !== 'refused') return true;
  const ended = mirrorEnded.get(name);
  // Strictly after: the clock is coarse (100 µs), and a reading begun in the
  // same tick as the leaving may have listed a tool registered after it.
  return ended !== undefined && ended > since;
};

/**
 * mirror registers a tool in the native registry whose execute returns
 * only the agent view, with what the tool lists carry of it (listing.js):
 * none when it is not listed.
 */
export const mirror = (entry) => {
  if (typeof native?.registerTool !== 'function') return;
  const def = listing(entry);
  entry.mirrored = JSON.stringify(def);
  entry.mirror?.abort();
  if (!def) return;
  const { name, title, description, inputSchema, annotations } = def;
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

/**
 * remirror registers entry's mirror anew when what the tool lists carry
 * of it changed since it was registered (the session withheld what it
 * listed). A call of the tool in progress may be one the browser runs
 * through the mirror, which its unregistration could end: the mirror is
 * then registered anew once the tool's last call is over (run.js).
 */
export const remirror = (entry) => {
  if (!entry.mirror || entry.gone || JSON.stringify(listing(entry)) === entry.mirrored) return;
  if (running.get(entry.name)) entry.remirror = true;
  else mirror(entry);
};
