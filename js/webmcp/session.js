// The session as the page sees it, as the engine reported it: the trust
// state and the calls in progress; and the events of the veil namespace.

import { freeze } from './util.js';
import { ns } from './veil.js';

export const emit = (type, detail) => ns.dispatchEvent(new CustomEvent(type, { detail }));
/** The newest trust state the engine reported: veil.trust. */
export let trust = null;
/**
 * setTrust keeps the newest trust state the engine reported.
 * @param {import('./contract.js').RiskState | null | undefined} s
 */
export const setTrust = (s) => {
  if (!(s?.version >= 0) || s.version <= (trust?.version ?? -1)) return;
  const first = !trust;
  trust = freeze(s);
  if (!first) emit('trustchange', trust);
};
/** Calls in progress, by call id: veil.calls. */
export const active = new Map();
export const progress = (id, c) => {
  c ? active.set(id, freeze({ call: id, since: active.get(id)?.since ?? Date.now(), ...c })) : active.delete(id);
  ns.dispatchEvent(new Event('callchange'));
};
