// Frames: what the page needs of them at once. The protocol itself (asking
// other frames for their tools, calling them, answering them) is in
// veil-frames.js (js/frames/), loaded only by a page that has other
// frames: at start-up in a frame, as soon as a frame appears in the top
// document (the form guard sees each one), and at the first message from
// another frame.
//
// Same-origin frames are one trust domain. Cross-origin frames take part
// only where the "tools" permissions policy allows this document: the
// browser's, where it knows the feature; else the policy as the iframes'
// allow attributes declare it, which each frame's Veil reads for its
// children (allow.js) and tells them when they ask. Where nobody can tell
// (the frame above runs no Veil), cross-origin is off (it fails closed),
// and a frame takes part only in a chain of same-origin frames from the top.

import { str, isObject, noop, abortOf } from './util.js';
import { FRAMES, MARK, reachable, ask } from './frametag.js';
import { base, importWithin, frameWait } from './config.js';
import { registrations, live } from './registry.js';
import { context } from './context.js';
import { run, parseInput } from './run.js';
import { mirrored } from './mirror.js';
import { chainAllows } from './container.js';
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

/**
 * @typedef {object} Policy
 * @property {boolean} allowed      this document may use tools across frames
 * @property {boolean} crossOrigin  and cross-origin frames take part
 * @property {boolean} denied       the policy does not allow WebMCP here: the API refuses with NotAllowedError
 * @property {boolean} decided      the policy is known, from the browser or from the frames above
 */

/** decision is the Policy of a document whose policy is known to allow it or not. */
const decision = (yes) => ({ allowed: yes, crossOrigin: yes, denied: !yes, decided: true });

/**
 * undecided is the Policy where nobody can tell: the browser does not
 * know "tools" and the frame above runs no Veil that read this frame's
 * iframe. Cross-origin is off (it fails closed), the document's own tools
 * work, and only a chain of same-origin frames from the top takes part.
 */
const undecided = () => {
  let allowed = true;
  try {
    for (let w = /** @type {Window} */ (window); w !== top; w = w.parent) if (!reachable(w.parent)) allowed = false;
  } catch {
    allowed = false;
  }
  return { allowed, crossOrigin: false, denied: false, decided: false };
};

/** askOne asks the ancestor w for this document's policy: true, false, or undefined when it cannot tell or does not answer. */
const askOne = (w) =>
  ask((port) => {
    // Not reachable, or reachable with a Veil: a same-origin window without one cannot answer.
    if (reachable(w) && !w[MARK]) return false;
    // The question holds nothing; the answer comes on this frame's own port, from whoever is in w.
    w.postMessage({ [FRAMES]: 1, type: 'policy' }, '*', [port]);
    return true;
  }, frameWait).then((data) => (typeof data?.allowed === 'boolean' ? data.allowed : undefined));

/**
 * askAncestors asks every frame above this one for this document's
 * policy, each reading the iframes it can see between this document and
 * the top (the parent, this frame's own). The parent's word alone is not
 * enough: a parent without Veil, or one the policy leaves out, may say
 * what it likes, and a frame above it that sees its iframe refuses it.
 * true where every one allows it; false where any refuses; else (one
 * cannot tell, or does not answer) undefined.
 * @returns {Promise<boolean | undefined>}
 */
const askAncestors = () => {
  const asks = [];
  try {
    for (let w = /** @type {Window} */ (window); w !== w.parent; w = w.parent) asks.push(askOne(w.parent));
  } catch {
    return Promise.resolve(undefined);
  }
  return Promise.all(asks).then((answers) => (answers.includes(false) ? false : answers.every((a) => a === true) ? true : undefined));
};

/** @type {Policy | undefined} This document's policy, once decided. */
let state;
/** @type {Promise<Policy> | undefined} */
let deciding;
/**
 * policy resolves with this document's Policy: the browser's where it
 * knows "tools", the top document's own (allowed), else what the frame
 * above read from this frame's iframe element.
 * @returns {Promise<Policy>}
 */
export const policy = () =>
  (deciding ??= (() => {
    if (policyKnown) {
      let yes = false;
      try {
        yes = permissions.allowsFeature('tools');
      } catch {}
      state = decision(yes);
    } else if (window === top) state = decision(true);
    if (state) return Promise.resolve(state);
    return askAncestors().then((yes) => (state = yes === undefined ? undecided() : decision(yes)));
  })());
/** policyNow is this document's Policy if it is decided already. */
export const policyNow = () => state;

/** below says whether w is a window under this one. */
const below = (w) => {
  try {
    for (let a = w; a && a !== a.parent; a = a.parent) if (a.parent === window) return true;
  } catch {}
  return false;
};

/**
 * answerPolicy tells a frame below this one its policy: this document's
 * own, and the allow attributes of the iframes between them that this
 * document can see (chainAllows); undefined where it cannot tell.
 */
const answerPolicy = (e) => {
  const port = e.ports[0];
  if (!port) return;
  const reply = (allowed) => (port.postMessage({ allowed }), port.close());
  const w = e.source;
  if (!below(w)) return reply(undefined);
  policy().then((p) => {
    let chain;
    try {
      chain = chainAllows(w, e.origin);
    } catch {}
    reply(!p.decided ? undefined : p.allowed ? chain : false);
  });
};

/** byName sorts tools by name, in code unit order, as the draft does. */
export const byName = (tools) => tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/** others says whether the page has a window but this one. */
const others = () => window !== top || window.length > 0;

let loaded;
/** load imports veil-frames.js once and hands it the runtime; if it does not load, there are no tools across frames. */
export const load = () =>
  (loaded ??= Promise.all([importWithin('veil-frames.js'), policy()]).then(
    ([m, p]) => m.start({ registrations, live, listed, context, run, parseInput, allowed: p.allowed, crossOrigin: p.crossOrigin, policyKnown, wait: frameWait }),
    (e) => {
      const off = new DOMException(`tools across frames are off: ${base}veil-frames.js did not load`, 'UnknownError');
      console.error(`veil: ${off.message}`, e);
      throw off;
    },
  ));

/** preload loads veil-frames.js where a frame appeared, so that it answers the frame's first request in time. */
export const preload = () => void policy().then((p) => p.allowed && load().catch(noop));

/**
 * frameTools asks the other frames of the page for the tools they expose
 * to this document (veil-frames.js); a page without other frames has none.
 * @param {string[]} fromOrigins
 * @returns {Promise<RegisteredTool[]>}
 */
export const frameTools = (fromOrigins) =>
  policy().then((p) =>
    p.allowed && others()
      ? // The page's own tools wait for the others' twice a frame's wait at most (two seconds by default), however long the module takes.
        Promise.race([load().then((f) => f.frameTools(fromOrigins), () => []), new Promise((r) => setTimeout(r, 2 * frameWait, []))])
      : [],
  );

/** notifyFrames tells the frames that may see the registration that the tools changed. */
export const notifyFrames = (entry) => void policy().then((p) => p.allowed && others() && load().then((f) => f.notifyFrames(entry), noop));

/** executeInFrame runs another frame's tool there (veil-frames.js); an abort ends it while the module loads too. */
export const executeInFrame = (w, origin, name, json, signal) =>
  Promise.race([load().then((f) => f.executeInFrame(w, origin, name, json, signal)), abortOf(signal).then(() => Promise.reject(signal.reason))]);

/**
 * start answers the other frames of the page, from start-up. adopt takes
 * a form whose toolname the guard of a frame above moved as this
 * document's tool (guard.js).
 * @param {(form: Element) => void} adopt
 */
export const start = (adopt) => {
  // Live from start-up, so that a frame is never asked before it listens.
  // It also tells another frame's sweep which native tools here are this
  // Veil's mirrors (Nothing around the engine), and takes the forms the
  // guard of a frame above moved here, which guards this document too.
  Object.defineProperty(window, MARK, { value: Object.freeze({ mirrored: (name, since) => mirrored(str(name), Number(since)), adopt: (form) => adopt(form) }) });
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
      if (e.data.type === 'change' || e.data.type === 'policy') e.stopImmediatePropagation();
      // A child asking for its policy is answered here, without veil-frames.js.
      if (e.data.type === 'policy') return answerPolicy(e);
      load().then((f) => f.receive(e), noop);
    },
    true,
  );
  // A frame is asked by the others from its start: it learns its policy and loads the code that answers at once.
  policy();
  if (window !== top) preload();
};
