// Helpers of every part of the runtime, with nothing of the page: they
// run under Node's test runner as they run in the page.

import { FAILURE, ERR_TYPE } from './contract.js';

export const noop = () => {};
export const str = (v) => `${v}`;
export const isObject = (v) => (typeof v === 'object' && v !== null) || typeof v === 'function';

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
