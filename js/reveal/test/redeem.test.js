// node --test: redeeming a secret_reference, with the page's fetch and
// location stood in for.
import test from 'node:test';
import assert from 'node:assert/strict';
import { redeem } from '../main.js';
import { refused } from '../../webmcp/reveal.js';

globalThis.location = /** @type {any} */ ({ origin: 'https://site.test' });
/** answer makes fetch answer with res, and records the requests. */
const answer = (res) => {
  const seen = [];
  globalThis.fetch = /** @type {any} */ (async (u, init) => (seen.push([String(u), init]), typeof res === 'function' ? res() : res));
  return seen;
};
const reply = (status, body = '', headers = {}) => new Response(body, { status, headers });

test('redeem fetches nothing off the page origin', async () => {
  const seen = answer(reply(200, '{"value":"v"}'));
  for (const u of ['https://other.test/r/1', 'not a url', 'ftp://site.test/r'])
    assert.deepEqual(await redeem(u), refused('invalid', 'This secret is not on this site, so it was not fetched.'));
  assert.equal(seen.length, 0);
});

test('redeem: one same-origin GET, and what each answer means', async () => {
  const seen = answer(reply(200, '{"value":"s3cret"}'));
  assert.deepEqual(await redeem('https://site.test/r/1'), { ok: true, value: 's3cret' });
  assert.equal(seen.length, 1);
  assert.equal(seen[0][1].credentials, 'same-origin');
  assert.equal(seen[0][1].redirect, 'error');
  assert.equal(seen[0][1].method, undefined);
  for (const [status, reason] of [[401, 'signin'], [403, 'forbidden'], [404, 'notfound'], [410, 'gone'], [503, 'unavailable'], [418, 'error']]) {
    answer(reply(status));
    const r = await redeem('https://site.test/r/1');
    assert.equal(r.ok, false);
    assert.equal(r.reason, reason, String(status));
    assert.equal(r.status, status);
  }
  answer(reply(200, '{"value":1}'));
  assert.equal((await redeem('https://site.test/r/1')).reason, 'error');
  answer(reply(429, '', { 'Retry-After': '7' }));
  const limited = await redeem('https://site.test/r/1');
  assert.equal(limited.reason, 'ratelimited');
  assert.equal(limited.retryAfter, 7);
  answer(() => Promise.reject(new TypeError('offline')));
  assert.equal((await redeem('https://site.test/r/1')).reason, 'network');
});
