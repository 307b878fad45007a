// The page's windows and how a message reaches one.

import { FRAMES, MARK, reachable } from '../webmcp/frametag.js';
import { queryAll } from '../webmcp/dom.js';
import { chainAllows } from '../webmcp/container.js';
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
 * containerAllows says whether the "tools" policy lets origin take part
 * from w. Where the browser knows the policy, which binds every frame
 * itself, that is w's iframe element's, when this frame can reach it (an
 * embedder out of reach leaves it to w's own Veil; an iframe out of
 * sight, in a closed shadow tree, too). Where Veil reads the allow
 * attributes, w's Veil took its embedder's word, and that embedder may
 * be a page without Veil that says what it likes: so every iframe
 * between w and the top that this frame can reach must allow "tools"
 * (chainAllows), and one out of sight that holds a cross-origin document
 * allows nothing.
 */
export const containerAllows = (w, origin) => {
  try {
    if (!page.policyKnown) return chainAllows(w, origin) === true;
    const p = w.parent;
    if (p === w || !reachable(p)) return true;
    for (const el of queryAll(p.document, 'iframe, frame'))
      if (el.contentWindow === w) {
        const policy = el.permissionsPolicy ?? el.featurePolicy;
        return policy ? policy.allowsFeature('tools', origin) : true;
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
