// The page's windows and how a message reaches one.

import { FRAMES, MARK, reachable } from '../webmcp/frametag.js';
import { queryAll } from '../webmcp/dom.js';
import { allowAttributeAllows } from '../webmcp/container.js';
import { page } from './page.js';

/** ofThisPage says whether w is another window of this page's frame tree. */
export const ofThisPage = (w) => {
  try {
    return w != null && w !== window && w.window === w && w.top === top;
  } catch {
    return false;
  }
};

/**
 * linkAllows says whether the iframe element of a in p's document (p
 * reachable from here) lets "tools" reach a's document at origin
 * (undefined: another origin than this frame's, which it cannot name).
 * An iframe this frame cannot find (in a closed shadow tree) is read as
 * nobody read it: where the browser knows the policy, it binds the frame
 * itself; else only a same-origin frame takes part, as the default 'self'
 * has it (and same-origin frames are one trust domain).
 */
const linkAllows = (p, a, origin) => {
  for (const el of queryAll(p.document, 'iframe, frame'))
    if (el.contentWindow === a) {
      const policy = page.policyKnown && (el.permissionsPolicy ?? el.featurePolicy);
      return policy ? policy.allowsFeature('tools', origin) : allowAttributeAllows(el, origin);
    }
  return page.policyKnown || origin === location.origin;
};

/**
 * containerAllows asks the iframe element of w, when this frame can reach
 * it, whether the "tools" policy allows origin there (the browser's
 * policy, or where it does not know "tools", the element's allow
 * attribute); an embedder out of reach leaves it to w's own Veil. Where
 * Veil reads the attribute, w's Veil took the word of its embedder, which
 * may be a page without Veil that says what it likes; so every iframe
 * between w and the top that this frame can reach must allow "tools" too
 * (a frame the policy leaves out leaves out its own frames), each for the
 * origin of the document in it, or, where this frame cannot name it (a
 * cross-origin frame), for any origin but this frame's.
 */
export const containerAllows = (w, origin) => {
  try {
    if (page.policyKnown) {
      // The browser's policy, which every frame inherits, binds each frame itself.
      const p = w.parent;
      return p === w || !reachable(p) || linkAllows(p, w, origin);
    }
    /** @type {string | undefined} */
    let known = origin;
    for (let a = w; a !== a.parent; a = a.parent) {
      const p = a.parent;
      if (reachable(p)) {
        if (!linkAllows(p, a, known)) return false;
        known = location.origin;
      } else known = undefined;
    }
    return true;
  } catch {
    return false;
  }
};

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

export const tagged = (type, rest = {}) => ({ [FRAMES]: 1, type, ...rest });

/** post sends a message to w, delivered only if w is at origin. */
export const post = (w, origin, message, transfer = []) => {
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
export const whoToAsk = (origins, f) => {
  for (const w of pageWindows()) {
    if (reachable(w)) {
      if (w[MARK]) f(w, location.origin);
      continue;
    }
    if (page.crossOrigin) for (const o of origins) if (o !== location.origin) f(w, o);
  }
};
