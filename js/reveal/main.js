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

/** The answers redeem's Handler writes a body for that another server's also come with: a router's 404, a proxy's 405, a page for any path. */
const misleading = new Set([200, 404, 405, 410]);

/**
 * own reads an answer as redeem's Handler writes it: JSON, {"value"} for
 * 200 and {"error"} for the rest. An answer with no body is taken at its
 * status, as a backend of the redemption contract may answer; one with
 * another body (a proxy's or a router's page) gives undefined.
 * @param {Response} res
 * @returns {Promise<{value?: unknown, error?: unknown} | undefined>}
 */
const own = async (res) => {
  let text = '';
  try {
    text = await res.text();
  } catch {}
  if (!text.trim()) return {};
  try {
    const body = JSON.parse(text);
    if (typeof body === 'object' && body !== null && (res.status === 200 ? 'value' in body : typeof body.error === 'string')) return body;
  } catch {}
  return undefined;
};

/**
 * misrouted tells the page's developer, in the console, that the answer to
 * a reveal did not come from redeem's Handler, and what to check. The URL
 * is named without its last segment, the id.
 * @param {URL} u
 */
const misrouted = (u, res, body) => {
  const dir = u.pathname.slice(0, u.pathname.lastIndexOf('/') + 1);
  const base = u.origin + dir;
  console.warn(
    body?.error === 'misrouted'
      ? `veil: a reveal fetched ${base}{id}, and redeem's Handler answered "misrouted": the path it was given is not under its BasePath. Set BasePath to ${dir}, the path the page fetches, and StrippedPrefix to the prefix a proxy or http.StripPrefix removes before the Handler sees the request.`
      : `veil: a reveal fetched ${base}{id} and got ${res.status} ${res.headers.get('Content-Type') ?? 'with no Content-Type'}, which is not redeem's answer (JSON with "value" or "error"): the request did not reach redeem's Handler. Check that the server routes ${base} to it (a router's pattern, a proxy's location), that its BasePath is ${base} as the page sees it, and, behind a proxy or http.StripPrefix that removes a prefix, that StrippedPrefix names that prefix.`,
  );
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
  const body = misleading.has(status) || status === 500 ? await own(res) : undefined;
  if ((misleading.has(status) && body === undefined) || body?.error === 'misrouted') {
    misrouted(u, res, body);
    return refused('error', 'The secret could not be fetched: this site did not answer as expected. Try again later.', status);
  }
  if (status === 200) {
    const v = body?.value;
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

