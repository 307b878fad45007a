// node --test: the page's one-time secrets, shared by every tray.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  keep, keptOf, isKept, isFlying, isSpent, isTaken, take, unkeep, spend, stayed, join, leave, syncAll, touch, claim, redeem,
} from '../store.js';

let n = 0;
const item = (kind = 'reference') => ({ handle: `h${++n}`, kind, call: 'c' });

/** A tray that notes what it is told. */
const tray = () => {
  const t = { synced: 0, touched: /** @type {string[]} */ ([]), sync: () => t.synced++, touch: (h) => t.touched.push(h) };
  return t;
};

test('keep keeps a value once, and never one hidden for good', () => {
  const a = item();
  assert.equal(keep(a, 'v1'), true);
  assert.equal(keep(a, 'v2'), false, 'kept already');
  assert.deepEqual(keptOf(a.handle), { item: a, value: 'v1' });
  spend(a.handle);
  assert.equal(isKept(a.handle), false, 'spent is no longer kept');
  assert.equal(isSpent(a.handle), true);
  assert.equal(keep(a, 'v3'), false, 'spent');
  const b = item();
  keep(b, 'x');
  unkeep(b.handle);
  assert.equal(keptOf(b.handle), undefined);
  assert.equal(isSpent(b.handle), false, 'forgetting is not hiding for good');
});

test('trays are told of a change until they leave', () => {
  const t = tray();
  join(t);
  syncAll();
  touch('h');
  leave(t);
  syncAll();
  touch('h');
  assert.equal(t.synced, 1);
  assert.deepEqual(t.touched, ['h']);
});

test('claim: an item is on its way until every claim of it ends, each once', () => {
  const t = tray();
  join(t);
  const a = item();
  const end1 = claim(a);
  const end2 = claim(a);
  assert.equal(isFlying(a.handle), true);
  assert.deepEqual(t.touched, [a.handle, a.handle], 'each claim touches the rows');
  end1(false);
  end1(false);
  assert.equal(isFlying(a.handle), true, 'a claim ends once');
  end2(true);
  assert.equal(isFlying(a.handle), false);
  assert.equal(t.synced, 1, 'a fresh end syncs every tray');
  assert.equal(t.touched.length, 3, 'the other end touches');
  leave(t);
});

test('stayed: the items kept or on their way the engine no longer holds', () => {
  const a = item();
  const b = item();
  const c = item();
  keep(a, 'v');
  const end = claim(b);
  keep(c, 'w');
  assert.deepEqual(stayed(new Set([c.handle])).filter((i) => [a, b, c].includes(i)), [a, b]);
  end(false);
  unkeep(a.handle);
  unkeep(c.handle);
  assert.deepEqual(stayed(new Set()).filter((i) => [a, b, c].includes(i)), []);
});

test('redeem keeps a one-time secret that comes, and ends its claim', async () => {
  const t = tray();
  join(t);
  const a = item();
  const p = redeem(a, Promise.resolve({ ok: true, value: 's' }));
  assert.equal(isFlying(a.handle), true, 'on its way');
  assert.deepEqual(await p, { ok: true, value: 's' });
  assert.equal(isFlying(a.handle), false);
  assert.equal(keptOf(a.handle)?.value, 's');
  assert.equal(t.synced, 1, 'newly kept: every tray looks again');

  const v = item('value');
  await redeem(v, Promise.resolve({ ok: true, value: 'x' }));
  assert.equal(isKept(v.handle), false, 'a value the engine gives again is not kept');

  const r = item();
  await redeem(r, Promise.resolve({ ok: false, reason: 'gone' }));
  assert.equal(isKept(r.handle), false);

  const e = item();
  await assert.rejects(redeem(e, Promise.reject(new Error('down'))));
  assert.equal(isFlying(e.handle), false, 'a failed redemption ends its claim');
  assert.equal(t.synced, 1);
  leave(t);
});

test('take marks a secret the page redeemed itself, not one a tray redeemed or has on its way', async () => {
  const t = tray();
  join(t);
  const a = item();
  assert.equal(take(a.handle), true, 'redeemed by the page');
  assert.equal(isTaken(a.handle), true);
  assert.deepEqual(t.touched, [a.handle], 'every tray shows it spent');
  assert.equal(take(a.handle), false, 'once');

  const b = item();
  keep(b, 'v');
  assert.equal(take(b.handle), false, 'a tray keeps it: the tray redeemed it');
  assert.equal(isTaken(b.handle), false);

  const c = item();
  let resolve = (_) => {};
  const r = redeem(c, new Promise((res) => (resolve = res)));
  assert.equal(take(c.handle), false, "the tray's own redemption, on its way");
  resolve({ ok: true, value: 'v' });
  await r;
  assert.equal(isTaken(c.handle), false);
  assert.equal(isKept(c.handle), true);
  leave(t);
});
