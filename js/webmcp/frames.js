// Frames: what the page needs of them at once. The protocol itself (asking
// other frames for their tools, calling them, answering them) is in
// veil-frames.js (js/frames/), loaded only by a page that has other
// frames: at start-up in a frame, as soon as a frame appears in the top
// document (the form guard sees each one), and at the first message from
// another frame.
//
// Same-origin frames are one trust domain. Cross-origin frames take part
// only where the browser knows the "tools" permissions policy and it
// allows this document; elsewhere cross-origin is off (it fails closed),
// and a frame takes part only in a chain of same-origin frames from the top.

import { str, isObject, noop, abortOf } from './util.js';
import { FRAMES, MARK, reachable } from './frametag.js';
import { base, importWithin, frameWait } from './config.js';
import { registrations, live } from './registry.js';
import { context } from './context.js';
import { run, parseInput } from './run.js';
import { mirrored } from './mirror.js';
import { listed } from './listing.js';

export { MARK, reachable };

/** @type {any} The Permissions Policy API, which Chromium alone has. */
const permissions = ['permissionsPolicy', 'featurePolicy'].reduce((p, key) => p ?? Object.getOwnPropertyDescriptor(Document.prototype, key)?.get?.call(document), undefined);
/** Whether the browser knows the "tools" feature. */
export const policyKnown = (() => {
  try {
    return permissions.features().includes('tools');
  } catch {
    return false;
  }
})();
/** Whether this document may use tools across frames. */
export const allowed = (() => {
  try {
    if (policyKnown) return permissions.allowsFeature('tools');
    for (let w = /** @type {Window} */ (window); w !== top; w = w.parent) if (!reachable(w.parent)) return false;
    return true;
  } catch {
    return false;
  }
})();

/** byName sorts tools by name, in code unit order, as the draft does. */
export const byName = (tools) => tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/** others says whether the page has a window but this one. */
const others = () => window !== top || window.length > 0;

let loaded;
/** load imports veil-frames.js once and hands it the runtime; if it does not load, there are no tools across frames. */
export const load = () =>
  (loaded ??= importWithin('veil-frames.js').then(
    (m) => m.start({ registrations, live, listed, context, run, parseInput, allowed, crossOrigin: policyKnown && allowed, wait: frameWait }),
    (e) => {
      const off = new DOMException(`tools across frames are off: ${base}veil-frames.js did not load`, 'UnknownError');
      console.error(`veil: ${off.message}`, e);
      throw off;
    },
  ));

/** preload loads veil-frames.js where a frame appeared, so that it answers the frame's first request in time. */
export const preload = () => void (allowed && load().catch(noop));

/**
 * frameTools asks the other frames of the page for the tools they expose
 * to this document (veil-frames.js); a page without other frames has none.
 * @param {string[]} fromOrigins
 * @returns {Promise<RegisteredTool[]>}
 */
export const frameTools = (fromOrigins) =>
  allowed && others()
    ? // The page's own tools wait for the others' twice a frame's wait at most (two seconds by default), however long the module takes.
      Promise.race([load().then((f) => f.frameTools(fromOrigins), () => []), new Promise((r) => setTimeout(r, 2 * frameWait, []))])
    : Promise.resolve([]);

/** notifyFrames tells the frames that may see the registration that the tools changed. */
export const notifyFrames = (entry) => void (allowed && others() && load().then((f) => f.notifyFrames(entry), noop));

/** executeInFrame runs another frame's tool there (veil-frames.js); an abort ends it while the module loads too. */
export const executeInFrame = (w, origin, name, json, signal) =>
  Promise.race([load().then((f) => f.executeInFrame(w, origin, name, json, signal)), abortOf(signal).then(() => Promise.reject(signal.reason))]);

/** start answers the other frames of the page, from start-up. */
export const start = () => {
  // Live from start-up, so that a frame is never asked before it listens.
  // It also tells another frame's sweep which native tools here are this
  // Veil's mirrors (Nothing around the engine).
  Object.defineProperty(window, MARK, { value: Object.freeze({ mirrored: (name, since) => mirrored(str(name), Number(since)) }) });
  addEventListener(
    'message',
    (e) => {
      // isTrusted: a MessageEvent page script made can name any origin and source.
      if (!(e.isTrusted && isObject(e.data) && e.data[FRAMES] === 1)) return;
      // A change of another frame's tools, which every frame that may see
      // them gets unasked, is not the page's message: its listeners do
      // not hear it (a page listening once for a message of its own
      // would take this one for it and wait for ever). Capturing, so
      // that this listener is the window's first.
      if (e.data.type === 'change') e.stopImmediatePropagation();
      load().then((f) => f.receive(e), noop);
    },
    true,
  );
  // A frame is asked by the others from its start: it loads the code that answers at once.
  if (window !== top) preload();
};
