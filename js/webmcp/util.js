// Helpers of every part of the runtime, with nothing of the page: they
// run under Node's test runner as they run in the page.

import { FAILURE, ERR_TYPE } from './contract.js';

export const noop = () => {};
export const str = (v) => `${v}`;
/**
 * named gives a class the name the page sees (constructor.name), which the
 * minified bundle would otherwise shorten: a page may tell
 * document.modelContext's class by it.
 */
export const named = (cls, name) => Object.defineProperty(cls, 'name', { value: name });
export const isObject = (v) => (typeof v === 'object' && v !== null) || typeof v === 'function';

const abortedOf = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')?.get;
/**
 * isAbortSignal is WebIDL's check of an argument: an AbortSignal of any
 * realm, another frame's too, which instanceof refuses; an object that
 * only looks like one fails it.
 */
export const isAbortSignal = (v) => {
  try {
    return abortedOf !== undefined && (abortedOf.call(v), true);
  } catch {
    return false;
  }
};

/** @param {{name: string, message: string}} e */
export const toError = (e) => (e.name === ERR_TYPE ? new TypeError(e.message) : new DOMException(e.message, e.name));
/** The error of the FAILURE reply. */
export const failure = () => toError(JSON.parse(FAILURE).error);

/** @param {any} e */
export const messageOf = (e) => {
  try {
    return typeof e?.message === 'string' ? e.message : str(e);
  } catch {
    return '';
  }
};

/** Freezes plain data, deeply. */
export const freeze = (v) => (isObject(v) && !Object.isFrozen(v) && (Object.values(v).forEach(freeze), Object.freeze(v)), v);

/**
 * abortOf settles with false when the caller aborts: a call waiting for
 * resolve or for the user stops waiting, as Chromium's does.
 * @param {AbortSignal|undefined} signal
 * @returns {Promise<false>}
 */
export const abortOf = (signal) => new Promise((r) => signal?.addEventListener('abort', () => r(false), { once: true }));
