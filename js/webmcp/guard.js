// The form guard: a <form toolname> is moved out of the browser's reach
// (data-veil-toolname) wherever the runtime can see it, in the document,
// its shadow roots and its same-origin frames, and made a tool of the
// runtime's own (veil-forms.js), or in a frame, of that frame's Veil if
// one runs there; see foreign.js.

import { load } from './config.js';
import { attr, hasAttr, setAttr, removeAttr, localName, nodeType, matches, queryAll, shadowRoot, on, ownerDocument, defaultView, readyState, docURL, connected, rootNode } from './dom.js';
import { prepare, submit } from './registry.js';
import { withhold } from './run.js';
import { ns } from './veil.js';
import { MARK, reachable, preload } from './frames.js';
import { native } from './mirror.js';
import { sweep, sweepSoon } from './foreign.js';
import { fire } from './context.js';
import { CancelEvent } from './events.js';

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
/** declare takes a form's toolname out of the browser's reach and hands the form to veil-forms.js. */
const declare = (form) => {
  const name = attr(form, 'toolname');
  if (name !== null) {
    setAttr(form, 'data-veil-toolname', name);
    removeAttr(form, 'toolname');
    named.add(form);
  } else if (!named.has(form)) return;
  loadingForms ??= load('veil-forms.js').then(
    (m) => void (formTools = m.start({ prepare, submit, veil: ns, withhold, cancelled: (name) => fire(CancelEvent, 'toolcancel', name), vouched: (f) => vouched.has(f) })),
    (e) => console.warn('veil: veil-forms.js did not load, so no form is a tool', e),
  );
  loadingForms.then(() => formTools?.seen(form));
};
/**
 * adopt takes as this document's tool a form whose toolname the guard of
 * a frame above moved (its handOver), as declare would have had it seen
 * the toolname first. The frame above calls it through this window's
 * mark (frames.js); markup cannot, and page script could give the form a
 * toolname anyway.
 */
export const adopt = (form) => {
  let ok = false;
  try {
    ok = nodeType(form) === 1 && localName(form) === 'form' && defaultView(ownerDocument(form)) === window && attr(form, 'data-veil-toolname') !== null;
  } catch {}
  if (!ok) return;
  named.add(form);
  declare(form);
};
/**
 * The forms the page vouched for (veil.vouch): only their risk
 * attributes may lower caution. A call of the page's script, which
 * markup cannot make.
 * @type {WeakSet<Element>}
 */
const vouched = new WeakSet();
/** vouch takes the page's word for a form's risk attributes, and reads its tool again. */
export const vouch = (form) => {
  let ok = false;
  try {
    ok = nodeType(form) === 1 && localName(form) === 'form';
  } catch {}
  if (!ok) throw new TypeError('veil.vouch: the argument is not a form element');
  // A form found by its id, name or tool name may be one content the
  // page shows planted under the same name: getElementById gives the
  // first. Such a form is not vouched for, whichever one the page holds.
  const root = rootNode(form);
  /**
   * twin refuses the form when another of all has its value of what.
   * @param {string} what
   * @param {(el: Element) => string | null} of
   * @param {ArrayLike<Element>} all
   */
  const twin = (what, of, all) => {
    const v = of(form);
    if (v && Array.prototype.some.call(all, (el) => el !== form && of(el) === v))
      throw new TypeError(`veil.vouch: another ${what === 'id' ? 'element' : 'form'} has this form's ${what}, so it may not be the form the page meant; give the page's form a unique ${what}, or vouch for a form its script created`);
  };
  twin('id', (el) => attr(el, 'id'), queryAll(root, '[id]'));
  twin('name', (el) => attr(el, 'name'), queryAll(root, 'form[name]'));
  twin('tool name', (el) => attr(el, 'toolname') ?? attr(el, 'data-veil-toolname'), queryAll(root, 'form[toolname],form[data-veil-toolname]'));
  vouched.add(form);
  if (named.has(form)) loadingForms?.then(() => formTools?.seen(form));
};
const FORM_TOOL = 'form[toolname],form[data-veil-toolname]';
const scan = (root) => queryAll(root, FORM_TOOL).forEach(declare);
const observer = new MutationObserver((records) => {
  let removed = false;
  for (const r of records) {
    if (r.type === 'attributes') {
      if (localName(r.target) === 'form' && hasAttr(r.target, 'toolname')) declare(r.target);
      continue;
    }
    removed ||= r.removedNodes.length > 0;
    for (const n of r.addedNodes) {
      if (nodeType(n) !== 1) continue;
      if (matches(n, FORM_TOOL)) declare(n);
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
  on(root, 'load', onLoad, true);
  lookIn(root, f);
};
/** lookIn hands f the open shadow roots under node, declarative ones included, and guards the frames there. */
const lookIn = (node, f) => {
  const visit = (el) => {
    const r = shadowRoot(el);
    if (r && !roots.has(r)) f(r);
    if (FRAME.includes(localName(el))) preload(), frame(el);
  };
  const t = nodeType(node);
  if (t === 1) visit(node);
  if (t === 1 || t === 9 || t === 11) queryAll(node, '*').forEach(visit);
};
/** look watches what this document's observer cannot see under node. */
const look = (node) => lookIn(node, watch);
const FRAME = ['iframe', 'frame', 'object', 'embed'];
/** windowOf returns the window of a frame element; an embed has no contentWindow, and is found among its document's frames. */
const windowOf = (el) => {
  if (localName(el) !== 'embed') return el.contentWindow;
  const frames = defaultView(ownerDocument(el));
  for (let i = 0; i < (frames?.length ?? 0); i++) {
    try {
      if (frames[i].frameElement === el) return frames[i];
    } catch {}
  }
  return null;
};
/**
 * The frames seen, each watched for as long as it is in the document:
 * whenever its document is another (a load, a srcdoc replaced, a change
 * of location, a step in history, one that never finishes loading), the
 * new one is guarded. Nothing tells that a frame's document came, so
 * each frame is looked at on a timer: as fast as timers run from its
 * old document's pagehide until its new one is there (10 s at most),
 * every 50 ms while its document loads, every 250 ms else. A frame on
 * another origin is watched too: it may come to this one.
 * handed: the forms moved in doc were handed to the frame's Veil.
 * @type {Map<Element, {doc?: Document, loading?: boolean, until?: number, handed?: boolean}>}
 */
const frames = new Map();
let polling = 0;
let due = Infinity;
/** schedule looks at the frames within ms, or sooner if already due. */
const schedule = (ms) => {
  if (polling && Date.now() + ms >= due) return;
  clearTimeout(polling);
  due = Date.now() + ms;
  polling = setTimeout(pollFrames, ms);
};
const pollFrames = () => {
  polling = 0;
  due = Infinity;
  let next = 250;
  for (const [el, f] of frames) {
    if (!connected(el)) {
      frames.delete(el);
      continue;
    }
    frame(el);
    next = Math.min(next, /** @type {number} */ (f.until) > Date.now() ? 0 : f.loading ? 50 : 250);
  }
  if (frames.size) schedule(next);
};

/**
 * frame guards the document of a same-origin frame (srcdoc, about:blank
 * written by script, a same-origin URL, a blob: or javascript: URL): a
 * form with a toolname there is the browser's tool, which native paths
 * here can run. It does so whether or not the frame says it runs Veil of
 * its own: that Veil's mark is a property of the frame's window, which
 * any script there can define as well, and the guard cannot tell a
 * genuine one from a forged one. A frame whose Veil runs gets the forms
 * the guard moved there as its tools (handOver); one that only pretends
 * gets forms that are no tool.
 */
const frame = (el) => {
  let f = frames.get(el);
  if (!f) frames.set(el, (f = {}));
  schedule(250);
  let w, doc;
  try {
    w = windowOf(el);
    doc = w?.document;
  } catch {}
  if (!w || !doc) return void (f.doc = undefined);
  if (doc !== f.doc) {
    f.doc = doc;
    f.until = 0;
    f.handed = false;
    // The document is leaving: its frame's next is looked for at once.
    const leaving = () => ((f.until = Date.now() + 1e4), schedule(0));
    try {
      on(w, 'pagehide', leaving, { once: true });
    } catch {}
  }
  guard(doc);
  // The forms moved before the frame's own Veil ran (its script on its
  // way, the document seen while it loads) are its tools once it runs.
  if (!f.handed && adopter(w)) {
    f.handed = true;
    queryAll(doc, 'form[data-veil-toolname]').forEach((form) => moved.has(form) && handOver(form));
  }
  // A frame's first document is about:blank, complete, while the one it
  // was given (srcdoc, src, data) is on its way.
  const given = hasAttr(el, 'srcdoc') || !['', 'about:blank'].includes(attr(el, 'src') ?? attr(el, 'data') ?? '');
  f.loading = !(readyState(doc) === 'complete' && (docURL(doc) !== 'about:blank' || !given));
  if (f.loading) schedule(50);
};
/**
 * The forms of frames' documents whose toolname the guard moved. Only
 * they are handed to a frame's Veil: a data-veil-toolname that arrives
 * in markup is inert there as here.
 * @type {WeakSet<Element>}
 */
const moved = new WeakSet();
/** neutralize moves a toolname out of the browser's reach, and hands the form to its frame's Veil, if one runs there. */
const neutralize = (form) => {
  if (nodeType(form) !== 1 || localName(form) !== 'form') return;
  const name = attr(form, 'toolname');
  if (name === null) return;
  setAttr(form, 'data-veil-toolname', name);
  removeAttr(form, 'toolname');
  moved.add(form);
  handOver(form);
};
/**
 * adopter returns the function by which the Veil of the frame whose
 * window is w takes a form the guard moved as its tool, or null where
 * none runs (or this is the guard's own window). What it returns is
 * only ever handed a form whose toolname is already out of the
 * browser's reach: a forged one gains nothing by it.
 * @returns {((form: Element) => void) | null}
 */
const adopter = (w) => {
  try {
    if (w == null || w === window || !reachable(w)) return null;
    const take = w[MARK]?.adopt;
    return typeof take === 'function' ? take : null;
  } catch {
    return null;
  }
};
/**
 * handOver gives a form the guard moved to the Veil of its frame, which
 * makes it its own tool, decided by its own engine: the frame's Veil
 * would have, had it seen the form before this guard (a form that
 * appears in a frame is heard of here first, by an observer made before
 * the frame's).
 */
const handOver = (form) => {
  let take;
  try {
    take = adopter(defaultView(ownerDocument(form)));
  } catch {}
  if (!take) return;
  try {
    take(form);
  } catch {}
};
/** guardIn guards what was added to a guarded root: its forms, open shadow roots and frames. */
const guardIn = (node) => {
  neutralize(node);
  queryAll(node, 'form[toolname]').forEach(neutralize);
  lookIn(node, guard);
};
/** guard watches a root of a same-origin frame: a document or an open shadow root in it. */
const guard = (root) => {
  if (roots.has(root)) return;
  guards.observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ['toolname'] });
  neutralize(root);
  queryAll(root, 'form[toolname]').forEach(neutralize);
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
  if (nodeType(e.target) === 1 && FRAME.includes(localName(e.target))) frame(e.target);
  sweep();
}

/** start watches the document from start-up, and reads the native registry. */
export const start = () => {
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
  if (readyState(document) === 'loading') on(document, 'DOMContentLoaded', () => look(document), { once: true });
  native?.addEventListener?.('toolchange', sweep);
  sweep();
};
