// The page's side of the risk policy: how the user is asked. The risk
// policy, its defaults and its timeouts are the engine's, which decides
// every call before execute runs; veil.configure's confirm and notice say
// how the user hears of a call and is asked about one.

import { abortOf } from './util.js';
import { loadUI } from './lazy.js';

/** @type {{confirm?: Function, notice?: Function}} */
export const conf = {};
/** @type {Promise<any>} The last question put, or being put. */
let asking = Promise.resolve();
/** The questions not yet put to the user, each with its decline. */
const waiting = new Set();
/**
 * ask puts a call to the user, one at a time; only true approves. A
 * question declined while it waits (veil.declinePending) is never shown.
 */
export const ask = (request) => {
  const q = { declined: false };
  waiting.add(q);
  return (asking = asking.then(async () => {
    waiting.delete(q);
    if (q.declined) return false;
    try {
      // A question whose call is over (the caller gave up, the engine
      // was lost) stops holding up the next, whether or not the
      // handler heeds the signal.
      const answer = (conf.confirm ?? (await loadUI()).confirm)(Object.freeze({ ...request, waiting: waiting.size }));
      return (await Promise.race([answer, abortOf(request.signal)])) === true;
    } catch (e) {
      console.warn('veil: the confirmation failed, so the call is declined', e);
      return false;
    }
  }));
};
/** Declines every question waiting for its turn; returns how many. */
export const declinePending = () => {
  const n = waiting.size;
  waiting.forEach((q) => (q.declined = true));
  waiting.clear();
  return n;
};
