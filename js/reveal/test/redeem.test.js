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
const json = { 'Content-Type': 'application/json' };

test('redeem fetches nothing off the page origin', async () => {
  const seen = answer(reply(200, '{"value":"v"}'));
  for (const u of ['https://other.test/r/1', 'not a url', 'ftp://site.test/r'])
    assert.deepEqual(await redeem(u), refused('invalid', 'This secret is not on this site, so it was not fetched.'));
  assert.equal(seen.length, 0);
});

test('redeem: one same-origin GET, and what each answer means', async () => {
  const seen = answer(reply(200, '{"value":"s3cret"}', json));
  assert.deepEqual(await redeem('https://site.test/r/1'), { ok: true, value: 's3cret' });
  assert.equal(seen.length, 1);
  assert.equal(seen[0][1].credentials, 'same-origin');
  assert.equal(seen[0][1].redirect, 'error');
  assert.equal(seen[0][1].method, undefined);
  for (const [status, reason] of [[401, 'signin'], [403, 'forbidden'], [404, 'notfound'], [410, 'gone'], [503, 'unavailable'], [418, 'error']]) {
    answer(reply(status, '{"error":"x"}', json));
    const r = await redeem('https://site.test/r/1');
    assert.equal(r.ok, false);
    assert.equal(r.reason, reason, String(status));
    assert.equal(r.status, status);
  }
  answer(reply(200, '{"value":1}', json));
  assert.equal((await redeem('https://site.test/r/1')).reason, 'error');
  answer(reply(429, '', { 'Retry-After': '7' }));
  const limited = await redeem('https://site.test/r/1');
  assert.equal(limited.reason, 'ratelimited');
  assert.equal(limited.retryAfter, 7);
  answer(() => Promise.reject(new TypeError('offline')));
  assert.equal((await redeem('https://site.test/r/1')).reason, 'network');
});

/** warnings records console.warn while f runs. */
const warnings = async (f) => {
  const said = [];
  const warn = console.warn;
  console.warn = (...a) => void said.push(a.join(' '));
  try {
    return [await f(), said];
  } finally {
    console.warn = warn;
  }
};

test("redeem: an answer with a body that is not redeem's own names the URL and what to check, never the id", async () => {
  const id = 'Zq3xV9kLmN0pQrStUvWxYz';
  for (const [what, res] of [
    ["ServeMux's 404", reply(404, '404 page not found\n', { 'Content-Type': 'text/plain; charset=utf-8' })],
    ["a proxy's 404 page", reply(404, '<html>Not Found</html>', { 'Content-Type': 'text/html' })],
    ['JSON that is not redeem\'s', reply(404, '{"message":"no route"}', json)],
    ["ServeMux's 405", reply(405, 'Method Not Allowed\n', { 'Content-Type': 'text/plain' })],
    ["a single-page app's index.html for any path", reply(200, '<!doctype html>', { 'Content-Type': 'text/html' })],
  ]) {
    answer(res);
    const [r, said] = await warnings(() => redeem(`https://site.test/api/redeem/${id}`));
    assert.equal(r.ok, false, what);
    assert.equal(r.reason, 'error', `${what}: not "this secret does not exist"`);
    assert.equal(r.status, res.status, what);
    assert.equal(said.length, 1, `${what}: one console warning`);
    for (const s of ['https://site.test/api/redeem/{id}', 'BasePath', 'StrippedPrefix', 'proxy']) assert.ok(said[0].includes(s), `${what}: the warning names ${s}: ${said[0]}`);
    assert.ok(!said[0].includes(id), `${what}: the warning holds no id`);
  }

  answer(reply(500, '{"error":"misrouted"}', json));
  const [r, said] = await warnings(() => redeem(`https://site.test/r/${id}`));
  assert.equal(r.reason, 'error');
  assert.equal(said.length, 1);
  assert.match(said[0], /answered "misrouted".*BasePath to \/r\/.*StrippedPrefix/);
  assert.ok(!said[0].includes(id));

  // redeem's own answers: no warning.
  // And an answer with no body, taken at its status.
  for (const res of [reply(404, '{"error":"not_found"}', json), reply(410, '{"error":"gone"}', json), reply(200, '{"value":"v"}'), reply(502, 'Bad Gateway'), reply(410), reply(404)]) {
    answer(res);
    const [, said] = await warnings(() => redeem(`https://site.test/r/${id}`));
    assert.deepEqual(said, [], `${res.status}: no warning`);
  }
});
