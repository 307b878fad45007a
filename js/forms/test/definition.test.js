// node --test: the tool a form declares, from its attributes and its
// controls, read from stand-ins that answer as elements do.
import test from 'node:test';
import assert from 'node:assert/strict';
import './stand-in-dom.js';
import { schemaOf, definition } from '../definition.js';

/** A control: its attributes, and the properties the browser reflects from them. */
const control = (localName, attrs = {}, props = {}) => ({
  localName,
  type: attrs.type ?? (localName === 'input' ? 'text' : localName),
  value: attrs.value ?? '',
  required: 'required' in attrs,
  readOnly: 'readonly' in attrs,
  multiple: 'multiple' in attrs,
  labels: [],
  getAttribute: (n) => (Object.hasOwn(attrs, n) ? attrs[n] : null),
  matches: (s) => s === ':disabled' && 'disabled' in attrs,
  ...props,
});
const form = (attrs, ...elements) => ({ ...control('form', attrs), elements, isConnected: true, hasAttribute: (n) => Object.hasOwn(attrs, n) });

test('schemaOf: one property per control an agent may fill', () => {
  const f = form(
    {},
    control('input', { name: 'q', required: '', toolparamdescription: 'what to look for' }),
    control('input', { name: 'n', type: 'number', min: '1', max: '9' }),
    control('input', { name: 'when', type: 'date' }),
    control('input', { name: 'code', pattern: '[A-Z]{3}' }),
    control('input', { name: 'ok', type: 'checkbox' }),
    control('textarea', { name: 'note', toolparamtitle: 'Note' }),
    control('input', { name: 'pw', type: 'password', autocomplete: 'current-password' }),
    control('input', { name: 'token', type: 'hidden' }),
    control('input', { name: 'off', disabled: '' }),
    control('input', { name: 'ro', readonly: '' }),
    control('input', { type: 'text' }),
    control('button', { name: 'go', type: 'submit' }),
  );
  assert.deepEqual(schemaOf(/** @type {any} */ (f)), {
    type: 'object',
    properties: {
      q: { type: 'string', description: 'what to look for' },
      n: { type: 'number', minimum: 1, maximum: 9, multipleOf: 1 },
      when: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', format: 'date' },
      code: { type: 'string', pattern: '^(?:[A-Z]{3})$' },
      ok: { type: 'boolean' },
      note: { type: 'string', title: 'Note' },
    },
    required: ['q'],
    additionalProperties: false,
  });
});

test('schemaOf: radio groups, selects, ranges and shared names', () => {
  const radio = (value) => control('input', { name: 'size', type: 'radio', value });
  const opts = [
    { value: 'r', label: '', text: 'Red' },
    { value: 'g', label: 'Green', text: 'g' },
  ];
  const f = form(
    {},
    radio('s'),
    radio('m'),
    control('select', { name: 'color' }, { options: opts }),
    control('select', { name: 'tags', multiple: '' }, { options: opts }),
    control('input', { name: 'vol', type: 'range', step: '3' }),
    control('input', { name: 'dup' }),
    control('input', { name: 'dup' }),
  );
  const { properties } = schemaOf(/** @type {any} */ (f));
  const colors = { anyOf: [{ type: 'string', const: 'r', title: 'Red' }, { type: 'string', const: 'g', title: 'Green' }], enum: ['r', 'g'] };
  assert.deepEqual(properties, {
    size: { type: 'string', anyOf: [{ type: 'string', const: 's' }, { type: 'string', const: 'm' }], enum: ['s', 'm'] },
    color: { type: 'string', ...colors },
    tags: { type: 'array', items: { type: 'string', ...colors }, uniqueItems: true },
    vol: { type: 'number', minimum: 0, maximum: 100, multipleOf: 3 },
  });
});

test("definition: a form's name, description, annotations and output schema", () => {
  const f = form(
    { 'data-veil-toolname': 'pay', tooldescription: 'Pay', toolautosubmit: '', toolsensitive: '', toolreadonlyhint: 'false', tooloutputschema: '{"type":"object"}' },
    control('input', { name: 'card', autocomplete: 'cc-number' }),
  );
  assert.deepEqual(definition(/** @type {any} */ (f), true), {
    name: 'pay',
    description: 'Pay',
    inputSchema: { type: 'object', properties: { card: { type: 'string' } }, required: [], additionalProperties: false },
    autosubmit: true,
    annotations: { sensitiveHint: true, readOnlyHint: false, consequentialHint: true },
    outputSchema: { type: 'object' },
  });
});

test('definition: confirmation, no tool, and what throws', () => {
  const f = form({ 'data-veil-toolname': 't', toolautosubmit: '', toolrequiresconfirmation: 'false' }, control('input', { name: 'c', autocomplete: 'cc-csc' }));
  const d = definition(/** @type {any} */ (f), true);
  assert.deepEqual(d?._meta, { 'mcp.dev/requiresConfirmation': false });
  assert.equal(d?.annotations, undefined, 'toolrequiresconfirmation says it: no consequentialHint');
  assert.equal(definition(/** @type {any} */ (form({}))), null, 'no toolname');
  assert.equal(definition(/** @type {any} */ ({ ...form({ 'data-veil-toolname': 't' }), isConnected: false })), null, 'not in the document');
  assert.throws(() => definition(/** @type {any} */ (form({ 'data-veil-toolname': 't', toolopenworldhint: 'maybe' }))), TypeError);
  assert.throws(() => definition(/** @type {any} */ (form({ 'data-veil-toolname': 't', tooloutputschema: '{' }))), /tooloutputschema is not JSON/);
});

test('definition: a form the page did not vouch for only adds caution', () => {
  const attrs = {
    'data-veil-toolname': 'planted',
    toolautosubmit: '',
    toolreadonlyhint: '',
    tooldestructivehint: 'false',
    toolidempotenthint: 'true',
    toolopenworldhint: 'false',
    tooluntrustedcontenthint: 'false',
    toolconsequentialhint: 'false',
    toolrequiresconfirmation: 'false',
  };
  const f = /** @type {any} */ (form(attrs, control('input', { name: 'card', autocomplete: 'cc-number' })));
  const planted = definition(f);
  assert.equal(planted?._meta, undefined, 'toolrequiresconfirmation="false" is not read');
  assert.deepEqual(planted?.annotations, { consequentialHint: true }, 'no claim that lowers caution is read, and the card makes it consequential');
  const vouched = definition(f, true);
  assert.deepEqual(vouched?.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false, untrustedContentHint: false, consequentialHint: false });
  assert.deepEqual(vouched?._meta, { 'mcp.dev/requiresConfirmation': false });

  const cautious = /** @type {any} */ (
    form({ 'data-veil-toolname': 'c', toolreadonlyhint: 'false', tooldestructivehint: '', toolidempotenthint: 'false', toolopenworldhint: 'true', tooluntrustedcontenthint: '', toolconsequentialhint: 'TRUE', toolrequiresconfirmation: '' })
  );
  assert.deepEqual(definition(cautious)?.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true, untrustedContentHint: true, consequentialHint: true }, 'what adds caution is read');
  assert.deepEqual(definition(cautious)?._meta, { 'mcp.dev/requiresConfirmation': true });
  assert.throws(() => definition(/** @type {any} */ (form({ 'data-veil-toolname': 't', toolreadonlyhint: 'yes' }))), TypeError, 'a bad value throws, vouched or not');
});

test('definition: a form that submits to another origin sends its input out, vouched or not', () => {
  const f = /** @type {any} */ (form({ 'data-veil-toolname': 'send', toolreadonlyhint: '', toolopenworldhint: 'false' }));
  for (const vouched of [false, true]) {
    const d = definition(f, vouched, true);
    assert.equal(d?.annotations?.openWorldHint, undefined, `vouched: ${vouched}`);
    assert.equal(d?.annotations?.readOnlyHint, undefined, `vouched: ${vouched}`);
  }
});
