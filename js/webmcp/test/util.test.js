// node --test: the helpers every part of the runtime uses.
import test from 'node:test';
import assert from 'node:assert/strict';
import { FAILURE } from '../contract.js';
import { str, isObject, isAbortSignal, toError, failure, messageOf, freeze, abortOf } from '../util.js';

test('isObject: objects and functions', () => {
  for (const v of [{}, [], () => {}, new Map(), Object.create(null)]) assert.equal(isObject(v), true);
  for (const v of [null, undefined, 0, '', 'x', true, Symbol(), 1n]) assert.equal(isObject(v), false, typeof v);
});

test('isAbortSignal: a real AbortSignal, not one that only looks like it', () => {
  assert.equal(isAbortSignal(new AbortController().signal), true);
  assert.equal(isAbortSignal(AbortSignal.abort('x')), true);
  const fake = Object.create(AbortSignal.prototype);
  assert.equal(fake instanceof AbortSignal, true, 'instanceof takes the fake');
  assert.equal(isAbortSignal(fake), false);
  for (const v of [null, undefined, {}, { aborted: false, addEventListener() {} }, new EventTarget()]) assert.equal(isAbortSignal(v), false);
});

test('str is the string conversion', () => {
  assert.equal(str(1), '1');
  assert.equal(str(null), 'null');
  assert.throws(() => str(Symbol()), TypeError);
});

test('toError: a TypeError stays one, any other name is a DOMException', () => {
  const t = toError({ name: 'TypeError', message: 'bad' });
  assert.ok(t instanceof TypeError);
  assert.equal(t.message, 'bad');
  const d = toError({ name: 'NotAllowedError', message: 'no' });
  assert.ok(d instanceof DOMException);
  assert.equal(d.name, 'NotAllowedError');
  assert.equal(d.message, 'no');
});

test('failure is the contract failure reply as an error', () => {
  assert.deepEqual(JSON.parse(FAILURE), { error: { name: 'OperationError', message: 'engine failure' } });
  const e = failure();
  assert.ok(e instanceof DOMException);
  assert.equal(e.name, 'OperationError');
  assert.equal(e.message, 'engine failure');
});

test('messageOf never throws', () => {
  assert.equal(messageOf(new Error('m')), 'm');
  assert.equal(messageOf('plain'), 'plain');
  assert.equal(messageOf({ message: 3 }), '[object Object]');
  assert.equal(messageOf({ get message() { throw new Error(); } }), '');
  assert.equal(messageOf({ toString() { throw new Error(); } }), '');
  assert.equal(messageOf(Object.create(null)), '');
});

test('freeze freezes plain data deeply, and returns it', () => {
  const v = { a: { b: [1, { c: 2 }] }, d: 'x' };
  assert.equal(freeze(v), v);
  assert.ok(Object.isFrozen(v) && Object.isFrozen(v.a) && Object.isFrozen(v.a.b) && Object.isFrozen(v.a.b[1]));
  for (const p of [null, undefined, 1, 'x']) assert.equal(freeze(p), p);
});

test('abortOf settles with false on abort, and never without a signal', async () => {
  const c = new AbortController();
  const p = abortOf(c.signal);
  c.abort();
  assert.equal(await p, false);
  const none = await Promise.race([abortOf(undefined), new Promise((r) => setTimeout(r, 10, 'pending'))]);
  assert.equal(none, 'pending');
});
