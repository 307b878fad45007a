// The form guard: a <form toolname> is moved out of the browser's reach
// (data-veil-toolname) wherever the runtime can see it, in the document,
// its shadow roots and its same-origin frames without Veil, and made a
// tool of the runtime's own (veil-forms.js); see foreign.js.

import { here } from './config.js';
import { prepare, submit } from './registry.js';
import { withhold } from './run.js';
import { ns } from './veil.js';
import { MARK, preload } from './frames.js';
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
  const name = form.getAttribute('toolname');
  if (name !== null) {
    form.setAttribute('data-veil-toolname', name);
    form.removeAttribute('toolname');
    named.add(form);
  } else if (!named.has(form)) return;
  loadingForms ??= import(here('veil-forms.js')).then(
    (m) => void (formTools = m.start({ prepare, submit, veil: ns, withhold, cancelled: (name) => fire(CancelEvent, 'toolcancel', name) })),
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
      if (/** @type {Element} */ (r.target).localName === 'form' && /** @type {Element} */ (r.target).hasAttribute('toolname')) declare(r.target);
      continue;
    }
    removed ||= r.removedNodes.length > 0;
    for (const n of r.addedNodes) {
      if (n.nodeType !== 1) continue;
      if (/** @type {Element} */ (n).matches(FORM_TOOL)) declare(n);
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
    if (FRAME.includes(el.localName)) preload(), frame(el);
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
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => look(document), { once: true });
  native?.addEventListener?.('toolchange', sweep);
  sweep();
};
