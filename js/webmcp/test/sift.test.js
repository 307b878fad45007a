// node --test: what a tool list carries of a definition once the session withheld something.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sift, strings, bare } from '../sift.js';

const CARD = '4111111111111111';

/** A form's tool as definition.js derives it: a saved card among the options. */
const pay = () => ({
  name: 'pay',
  description: 'Pays the order',
  inputSchema: {
    type: 'object',
    properties: {
      card: {
        type: 'string',
        anyOf: [
          { type: 'string', const: CARD, title: 'Visa 4111 1111 1111 1111' },
          { type: 'string', const: 'new', title: 'A new card' },
        ],
        enum: [CARD, 'new'],
        description: 'Card',
      },
      cards: { type: 'array', uniqueItems: true, items: { type: 'string', anyOf: [{ type: 'string', const: CARD }], enum: [CARD] } },
      country: { type: 'string', anyOf: [{ type: 'string', const: 'PT', title: 'Portugal' }], enum: ['PT'], default: 'PT' },
      day: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', format: 'date', examples: ['2026-03-14', CARD] },
      [CARD]: { type: 'boolean' },
    },
    required: ['card', CARD],
    additionalProperties: false,
  },
  annotations: { title: `Pay with ${CARD}`, readOnlyHint: false },
  _meta: { note: CARD, keep: 'yes' },
});

/** What the engine answers: only strings holding the card (here, its digits with or without spaces). */
const holds = (s) => s.replace(/ /g, '').includes(CARD);

test('sift leaves out each option, name and string that holds a withheld value, and nothing else', () => {
  assert.deepEqual(sift(pay(), holds), {
    name: 'pay',
    description: 'Pays the order',
    inputSchema: {
      type: 'object',
      properties: {
        card: { type: 'string', anyOf: [{ type: 'string', const: 'new', title: 'A new card' }], enum: ['new'], description: 'Card' },
        cards: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [] } },
        country: { type: 'string', anyOf: [{ type: 'string', const: 'PT', title: 'Portugal' }], enum: ['PT'], default: 'PT' },
        day: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', format: 'date', examples: ['2026-03-14'] },
      },
      required: ['card'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false },
    _meta: { keep: 'yes' },
  });
});

test('sift keeps a definition that holds nothing withheld as it is', () => {
  assert.deepEqual(sift(pay(), () => false), pay());
});

test('sift does not list a tool whose name holds a withheld value', () => {
  assert.equal(sift({ ...pay(), name: `t${CARD}` }, holds), null);
});

test('sift empties a title or description that holds one, as the draft has them', () => {
  const got = sift({ ...pay(), title: `Card ${CARD}`, description: `Pays with ${CARD}` }, holds);
  assert.equal(got?.title, '');
  assert.equal(got?.description, '');
});

test('sift keeps type, JSON vocabulary, whatever the set holds', () => {
  const got = sift({ name: 't', description: 'd', inputSchema: { type: 'object', properties: { a: { type: 'string' } } } }, (s) => s === 'string' || s === 'object');
  assert.deepEqual(got?.inputSchema, { type: 'object', properties: { a: { type: 'string' } } });
});

test('strings lists every string sift asks about, once, the names and options included', () => {
  const got = strings([pay(), pay()]);
  for (const s of ['pay', 'Pays the order', CARD, 'Visa 4111 1111 1111 1111', 'new', 'Portugal', 'PT', 'Card', '2026-03-14', 'yes'])
    assert.ok(got.includes(s), s);
  assert.equal(got.length, new Set(got).size);
  assert.ok(!got.includes('string'), 'type is not asked about');
});

test('bare keeps names and types, and no option, title, description or default', () => {
  assert.deepEqual(bare(pay()), {
    name: 'pay',
    description: '',
    inputSchema: {
      type: 'object',
      properties: {
        card: { type: 'string', enum: [] },
        cards: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [] } },
        country: { type: 'string', enum: [] },
        day: { type: 'string', examples: [] },
        [CARD]: { type: 'boolean' },
      },
      required: ['card', CARD],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false },
    _meta: {},
  });
});
