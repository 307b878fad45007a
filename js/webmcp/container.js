// The "tools" policy an iframe element of this document declares for the
// document in it (allow.js), read through the DOM's own getters.

import { attr, hasAttr, baseURI } from './dom.js';
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
