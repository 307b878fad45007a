// node --test: what a form's attributes and its controls' say of its tool.
import test from 'node:test';
import assert from 'node:assert/strict';
import './stand-in-dom.js';
import { HINTS, CONFIRMATION, WATCHED, TOOL_NAME, flag, numberAttr, autofill, usersOwn, asks } from '../attributes.js';

/** An element with the attributes given, as getAttribute reads them. */
const withAttrs = (attrs) => ({ getAttribute: (n) => (Object.hasOwn(attrs, n) ? attrs[n] : null) });

test('flag: absent, empty or "true", "false", in any ASCII case', () => {
  const form = withAttrs({ a: '', b: 'TRUE', c: 'False' });
  assert.equal(flag(form, 't', 'none'), undefined);
  assert.equal(flag(form, 't', 'a'), true);
  assert.equal(flag(form, 't', 'b'), true);
  assert.equal(flag(form, 't', 'c'), false);
});

test('flag: any other value throws a TypeError that names the attribute', () => {
  const form = withAttrs({ toolreadonlyhint: 'yes' });
  assert.throws(
    () => flag(form, 'search', 'toolreadonlyhint'),
    (e) => e instanceof TypeError && e.attribute === 'toolreadonlyhint' && e.message.startsWith('form tool "search": toolreadonlyhint'),
  );
  assert.throws(() => flag(withAttrs({ x: 'ſ' }), 't', 'x'), TypeError, 'no case folding beyond ASCII');
});

test('numberAttr: a finite number, else undefined', () => {
  const el = withAttrs({ min: '2.5', max: ' ', step: 'any', big: 'Infinity' });
  assert.equal(numberAttr(el, 'min'), 2.5);
  assert.equal(numberAttr(el, 'max'), undefined);
  assert.equal(numberAttr(el, 'step'), undefined);
  assert.equal(numberAttr(el, 'big'), undefined);
  assert.equal(numberAttr(el, 'none'), undefined);
});

test('autofill: the field names, lower case', () => {
  assert.deepEqual(autofill(withAttrs({ autocomplete: 'Section-a  Shipping\tCC-Number' })), ['section-a', 'shipping', 'cc-number']);
  assert.deepEqual(autofill(withAttrs({})), ['']);
});

test("usersOwn and asks: the user's own controls and those a call is asked about", () => {
  const ac = (v) => withAttrs({ autocomplete: v });
  assert.equal(usersOwn(ac('current-password')), true);
  assert.equal(usersOwn(ac('One-Time-Code')), true);
  assert.equal(usersOwn(ac('new-password')), false);
  assert.equal(asks(ac('new-password')), true);
  assert.equal(asks(ac('one-time-code')), true);
  assert.equal(asks(ac('billing cc-exp')), true);
  assert.equal(asks(ac('email')), false);
  assert.equal(asks(ac('current-password')), false);
});

test('the watched attributes include every risk attribute', () => {
  for (const a of [...Object.keys(HINTS), CONFIRMATION, 'data-veil-toolname']) assert.ok(WATCHED.includes(a), a);
  assert.equal(new Set(Object.values(HINTS)).size, Object.keys(HINTS).length);
});

test('TOOL_NAME: the names the draft allows', () => {
  for (const n of ['search', 'a.b-c_d', 'x'.repeat(128)]) assert.ok(TOOL_NAME.test(n), n);
  for (const n of ['', 'a b', 'x'.repeat(129), 'é', 'a\n']) assert.ok(!TOOL_NAME.test(n), n);
});
