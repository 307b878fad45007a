// node --test: the origins of exposedTo and fromOrigins.
import test from 'node:test';
import assert from 'node:assert/strict';
import { originOf, trustworthy, parseOrigins } from '../origins.js';

test('originOf serializes a URL origin', () => {
  assert.equal(originOf('https://example.com/a/b?c#d'), 'https://example.com');
  assert.equal(originOf('https://EXAMPLE.com:443/'), 'https://example.com');
  assert.equal(originOf('http://localhost:8080/x'), 'http://localhost:8080');
  assert.equal(originOf({ toString: () => 'https://a.test/' }), 'https://a.test');
});

test('originOf is empty for what does not parse or is opaque', () => {
  for (const v of ['', 'example.com', '/relative', 'data:text/plain,x', 'about:blank', 'javascript:1', null, undefined])
    assert.equal(originOf(v), '', String(v));
});

test('trustworthy is the secure-contexts test', () => {
  for (const o of ['https://a.test', 'wss://a.test', 'http://localhost', 'http://app.localhost:3000', 'http://127.0.0.1', 'http://127.9.8.7:81', 'http://[::1]'])
    assert.equal(trustworthy(o), true, o);
  for (const o of ['http://a.test', 'http://localhost.a.test', 'http://128.0.0.1', 'ws://a.test', 'http://[::2]'])
    assert.equal(trustworthy(o), false, o);
});

test('parseOrigins: nothing given is no origin', () => {
  assert.deepEqual(parseOrigins('registerTool', 'exposedTo', undefined), []);
});

test('parseOrigins keeps each origin once, in order', () => {
  const got = parseOrigins('registerTool', 'exposedTo', ['https://b.test/x', 'https://a.test', 'https://b.test/y', new URL('http://localhost:1/')]);
  assert.deepEqual(got, ['https://b.test', 'https://a.test', 'http://localhost:1']);
  assert.deepEqual(parseOrigins('m', 'f', new Set(['https://a.test'])), ['https://a.test']);
});

test('parseOrigins refuses what is not a sequence', () => {
  for (const v of [null, 'https://a.test', 1, {}, true])
    assert.throws(() => parseOrigins('registerTool', 'exposedTo', v), (e) => e instanceof TypeError && e.message === 'registerTool: exposedTo is not a sequence of origins', String(v));
});

test('parseOrigins refuses an origin that is not potentially trustworthy', () => {
  for (const v of ['http://a.test', 'not a url', 'data:,x', ''])
    assert.throws(
      () => parseOrigins('getTools', 'fromOrigins', ['https://ok.test', v]),
      (e) => e instanceof DOMException && e.name === 'SecurityError' && e.message === `getTools: fromOrigins holds ${JSON.stringify(v)}, which is not the URL of a potentially trustworthy origin`,
      v,
    );
});
