// The "tools" policy an iframe element of this document declares for the
// document in it (allow.js), read through the DOM's own getters.

import { attr, hasAttr, baseURI, queryAll } from './dom.js';
import { reachable } from './frametag.js';
import { allowAllows, originOf } from './allow.js';

/**
 * allowAttributeAllows says whether the allow attribute of el, an iframe
 * of this document, lets "tools" reach a document at origin there. Its
 * 'src' is the origin of the src attribute, or this document's for
 * srcdoc, none or about:blank. origin undefined is another origin than
 * this document's that the caller cannot name (allowAllows).
 * @param {Element} el
 * @param {string | undefined} origin
 */
export const allowAttributeAllows = (el, origin) =>
  allowAllows(String(attr(el, 'allow') ?? ''), origin, location.origin, () => {
    const src = attr(el, 'src');
    return hasAttr(el, 'srcdoc') || !src || src === 'about:blank' ? location.origin : originOf(src, baseURI(el));
  });

/**
 * chainAllows says whether the allow attributes of every iframe between
 * w's document, at origin, and the top that this document can reach let
 * "tools" reach each document in them: w's at origin, a same-origin one
 * at this document's, a cross-origin one at any origin but this
 * document's (it cannot name it). A frame the policy leaves out leaves
 * out its own frames. true or false, or undefined where an iframe it
 * must read holds a cross-origin document and is out of its sight (in a
 * closed shadow tree): nobody read it. A same-origin frame out of sight
 * takes part, as the default 'self' has it (same-origin frames are one
 * trust domain).
 * @param {Window} w
 * @param {string} origin
 * @returns {boolean | undefined}
 */
export const chainAllows = (w, origin) => {
  /** @type {string | undefined} */
  let known = origin;
  for (let a = w; a !== a.parent; a = a.parent) {
    const p = a.parent;
    if (!reachable(p)) {
      known = undefined;
      continue;
    }
    let el;
    for (const f of queryAll(p.document, 'iframe, frame')) if (f.contentWindow === a) el = f;
    if (el ? !allowAttributeAllows(el, known) : known !== location.origin) return el ? false : undefined;
    known = location.origin;
  }
  return true;
};
