// Origins as the WebMCP draft reads them in exposedTo and fromOrigins:
// parsing only, with nothing of the page.

import { str, isObject } from './util.js';

/** originOf serializes the origin of a URL: "" when it does not parse or the origin is opaque. */
export const originOf = (v) => {
  try {
    const o = new URL(str(v)).origin;
    return o === 'null' ? '' : o;
  } catch {
    return '';
  }
};
/** trustworthy: the secure-contexts test of an origin, for a serialized tuple origin. */
export const trustworthy = (o) => {
  const { protocol, hostname: h } = new URL(o);
  return protocol === 'https:' || protocol === 'wss:' || h === 'localhost' || h.endsWith('.localhost') || h === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(h);
};
/**
 * parseOrigins reads exposedTo or fromOrigins as the draft does: every
 * entry must parse as a URL whose origin is potentially trustworthy, else
 * SecurityError. It throws synchronously, before anything is registered.
 * @returns {string[]} serialized origins, each once
 */
export const parseOrigins = (method, field, list) => {
  if (list === undefined) return [];
  if (!isObject(list) || typeof list[Symbol.iterator] !== 'function') throw new TypeError(`${method}: ${field} is not a sequence of origins`);
  const out = [];
  for (const v of list) {
    const s = str(v);
    const o = originOf(s);
    if (!o || !trustworthy(o))
      throw new DOMException(`${method}: ${field} holds ${JSON.stringify(s)}, which is not the URL of a potentially trustworthy origin`, 'SecurityError');
    if (!out.includes(o)) out.push(o);
  }
  return out;
};
