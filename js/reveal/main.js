// Redeeming a secret_reference: a same-origin GET of its redeemUrl, and
// what each answer means for the user. Bundled into veil-redeem.js, which
// webmcp.js imports at the first reveal of a reference (webmcp/reveal.js).
/// <reference path="../webmcp.d.ts" />

import { refused } from '../webmcp/reveal.js';

/** How long a redemption may take. */
const REDEEM_TIMEOUT = 30000;
/** @type {Record<number, [VeilRevealFailure, string]>} What each redemption answer means, for the user. */
const answers = {
  401: ['signin', 'Sign in to reveal this secret.'],
  403: ['forbidden', 'You are not allowed to reveal this secret.'],
  404: ['notfound', 'This secret does not exist (any more).'],
  410: ['gone', 'This secret has expired or was already revealed.'],
};

/**
 * redeem fetches a secret_reference's value. The engine validated the
 * URL; it is checked again here, and only a same-origin GET ever leaves.
 * @returns {Promise<VeilRevealResult>}
 */
export const redeem = async (url) => {
  let u;
  try {
    u = new URL(url);
  } catch {}
  if (u?.origin !== location.origin || !/^https?:$/.test(u.protocol))
    return refused('invalid', 'This secret is not on this site, so it was not fetched.');
  let res;
  try {
    res = await fetch(u, {
      credentials: 'same-origin',
      cache: 'no-store',
      redirect: 'error',
      referrerPolicy: 'no-referrer',
      signal: AbortSignal.timeout(REDEEM_TIMEOUT),
    });
  } catch {
    return refused('network', 'The secret could not be fetched. Check the connection and try again.');
  }
  const { status } = res;
  if (status === 200) {
    let v;
    try {
      v = (await res.json())?.value;
    } catch {}
    return typeof v === 'string' ? { ok: true, value: v } : refused('error', 'The server answered with no secret.', status);
  }
  if (answers[status]) return refused(...answers[status], status);
  if (status === 429) {
    const h = res.headers.get('Retry-After') ?? '';
    const s = /^\d+$/.test(h) ? +h : Math.ceil((Date.parse(h) - Date.now()) / 1000);
    const retryAfter = s >= 0 ? s : undefined;
    const r = refused('ratelimited', `Too many attempts. Try again ${retryAfter === undefined ? 'later' : `in ${retryAfter} s`}.`, status);
    return { ...r, retryAfter };
  }
  if (status >= 500) return refused('unavailable', 'The server cannot hand out the secret right now. Try again later.', status);
  return refused('error', `The server answered ${status}.`, status);
};

