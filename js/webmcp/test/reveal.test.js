// node --test: an item's times as the page reads them.
import test from 'node:test';
import assert from 'node:assert/strict';
import { toItem } from '../reveal.js';

test('toItem reads the times as milliseconds', () => {
  const i = toItem({ handle: 'h', expires: '2026-01-01T00:00:00Z', redeemBy: '2026-01-02T00:00:00Z' });
  assert.equal(i.expires, Date.UTC(2026, 0, 1));
  assert.equal(i.redeemBy, Date.UTC(2026, 0, 2));
  assert.equal('redeemBy' in toItem({ expires: '2026-01-01T00:00:00Z' }), false);
});
