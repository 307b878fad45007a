// node --test: what the tray says of an item.
import test from 'node:test';
import assert from 'node:assert/strict';
import { words, cap, tokens, nameOf, order, time, STATES } from '../text.js';

test('words splits camelCase, snake_case and kebab-case', () => {
  assert.equal(words('cardNumber'), 'card Number');
  assert.equal(words('api_key'), 'api key');
  assert.equal(words('one-time-code'), 'one time code');
  assert.equal(words('__x__'), 'x');
});

test('cap capitalizes the first word and writes abbreviations upper case', () => {
  assert.equal(cap('card Number'), 'Card number');
  assert.equal(cap('api key'), 'API key');
  assert.equal(cap('user id'), 'User ID');
  assert.equal(cap('iban'), 'IBAN');
  assert.equal(cap('pinned'), 'Pinned', 'a word that starts like an abbreviation');
});

test('tokens unescapes a JSON pointer', () => {
  assert.deepEqual(tokens(''), []);
  assert.deepEqual(tokens('/a/0'), ['a', '0']);
  assert.deepEqual(tokens('/a~1b/c~0d'), ['a/b', 'c~d']);
});

test('nameOf: a value named by its pointer reads as words', () => {
  assert.equal(nameOf({ kind: 'value', pointer: '/card/cardNumber', label: 'cardNumber' }), 'Card number');
  assert.equal(nameOf({ kind: 'value', pointer: '/apiKeys/0', label: '0' }), 'API keys 1');
  assert.equal(nameOf({ kind: 'value', pointer: '/0', label: '0' }), '0', 'an index alone');
});

test("nameOf: the engine's own label otherwise", () => {
  assert.equal(nameOf({ kind: 'value', pointer: '/token', label: 'Session token' }), 'Session token');
  assert.equal(nameOf({ kind: 'reference', pointer: '/api_key', label: 'api_key' }), 'api_key');
  assert.equal(nameOf({ kind: 'value', pointer: '', label: 'whole' }), 'whole');
});

test('order sorts by pointer, indexes as numbers', () => {
  const items = ['/a/10', '/a/2', '/b', '/a/1'].map((pointer) => ({ pointer }));
  assert.deepEqual(items.sort(order).map((i) => i.pointer), ['/a/1', '/a/2', '/a/10', '/b']);
});

test('time shows hours, minutes and seconds', () => {
  assert.match(time(Date.UTC(2024, 0, 1, 12, 34, 56)), /\d{2}\D\d{2}\D56/);
});

test('every state a row can end in has its word', () => {
  assert.deepEqual(Object.keys(STATES).sort(), ['expired', 'gone', 'spent']);
});
