// What a row's buttons do: Reveal (and Hide, and Show for a kept one-time
// secret), Copy, Forget, and hiding a one-time secret for good, each
// asking the runtime (window.veil) for what it needs.

import { active, clipboardAccess, write } from './clipboard.js';
import { claim, redeem, keep, isKept, unkeep, spend, syncAll, touch } from './store.js';
import { ACTIVATION, KEPT, HIDDEN } from './text.js';
import { note, fail, busy, show, mask, conceal, discard, askFirst, closeAsk, done } from './view.js';

/** @typedef {import('./view.js').Host} Host */

/**
 * refused says why a value did not come; an item the server or engine will never give marks its state.
 * @param {Host} host
 */
const refused = (host, row, r) => {
  fail(host, row, r.message);
  if (r.reason === 'gone') done(host, row, row.item.redeemBy <= Date.now() ? 'expired' : 'spent');
  else if (r.reason === 'notfound') done(host, row, 'gone');
};

/** get asks the runtime for a row's value, keeping the click's activation. */
const get = async (row) => {
  const r = redeem(row.item, veil.reveal(row.item.handle));
  busy(row, true);
  try {
    return await r;
  } finally {
    busy(row, false);
  }
};

/** @param {Host} host */
const reveal = async (host, row) => {
  const r = await get(row);
  if (!r.ok) return refused(host, row, r);
  const s = show(host, row, r.value);
  note(row, row.once ? KEPT : '');
  host.say(`${row.name} revealed. It ${row.once ? 'is masked' : 'hides'} again in ${s} seconds.`);
};

/**
 * unmask shows again a one-time secret the tray keeps.
 * @param {Host} host
 */
export const unmask = (host, row) => {
  if (!active()) return fail(host, row, ACTIVATION);
  closeAsk(row);
  const s = show(host, row, row.v);
  note(row, KEPT);
  row.reveal.focus();
  host.say(`${row.name} shown. It is masked again in ${s} seconds.`);
};

/**
 * primary is the Reveal button: Reveal, Hide, or Show for a secret the tray keeps masked.
 * @param {Host} host
 */
export const primary = (host, row) => {
  if (row.v === null) return reveal(host, row);
  if (!row.shown) return unmask(host, row);
  if (!row.once) return discard(row), note(row, ''), row.reveal.focus();
  // Off the screen at once; gone only once the user says so.
  conceal(row);
  askFirst(row, 'hide');
};

/**
 * copied says how a copy went. A one-time secret the tray redeemed stays:
 * masked once copied, shown when the browser refused it.
 * @param {Host} host
 */
const copied = (host, row, value, ok) => {
  if (!ok) {
    show(host, row, value);
    const stays = row.once ? ' It stays here until you hide it for good.' : '';
    return fail(host, row, `The browser did not let the page copy it: copy it by hand.${stays}`);
  }
  if (row.once && row.v === null) {
    row.v = value;
    keep(row.item, value);
    mask(row);
  }
  const stays = `The server will not hand it out again; it stays here${row.shown ? '' : ', masked,'} until you hide it for good.`;
  note(row, row.once ? `Copied. ${stays}` : 'Copied to the clipboard.');
  host.say(`${row.name} copied to the clipboard.`);
};

/**
 * copy puts an item's value on the clipboard without showing it. The
 * write starts within the click, and the value is fetched only when the
 * browser has not said it refuses the clipboard: a one-time secret is
 * never spent on a copy that cannot happen. When the write fails after
 * all, the value is shown for the user to copy by hand, never dropped.
 * @param {Host} host
 */
export const copy = async (host, row) => {
  if (!active()) return fail(host, row, ACTIVATION);
  if (row.v !== null) return copied(host, row, row.v, await write(Promise.resolve(row.v)));
  // Claimed before the browser is asked about the clipboard, so that no
  // other tray redeems it meanwhile.
  const end = claim(row.item);
  const got = (async () =>
    (await clipboardAccess()) === 'denied'
      ? (end(false),
        {
          ok: false,
          reason: 'clipboard',
          message: `The browser does not let this page use the clipboard, so ${row.once ? 'the secret' : 'the value'} was not fetched. Reveal it to copy it by hand.`,
        })
      : redeem(row.item, veil.reveal(row.item.handle), end))();
  const written = write(got.then((r) => (r.ok ? r.value : Promise.reject(new Error(r.reason)))));
  busy(row, true);
  const [r, ok] = await Promise.all([got, written]);
  busy(row, false);
  if (!r.ok) return r.reason === 'clipboard' ? fail(host, row, r.message) : refused(host, row, r);
  copied(host, row, r.value, ok);
};

/**
 * forget has the runtime forget a row's item, and the page let go of a
 * one-time secret it kept.
 * @param {Host} host
 */
export const forget = (host, row) => {
  // Where focus goes once the row is gone: the next item, else the previous one.
  const call = row.li.closest('.call');
  const near = row.li.nextElementSibling ?? row.li.previousElementSibling ?? call?.nextElementSibling ?? call?.previousElementSibling;
  host.leaving(near?.querySelector('button:not(:disabled)') ?? null);
  unkeep(row.item.handle);
  discard(row);
  // An item the engine no longer holds (a kept secret) leaves the trays on the next look.
  veil.forget(row.item.handle).then((ok) => (ok || syncAll(), host.say(`${row.name} forgotten.`)));
};

/**
 * forgetFirst is the Forget button: a one-time secret the page holds the
 * value of is forgotten only once the user confirms it.
 * @param {Host} host
 */
export const forgetFirst = (host, row) =>
  row.once && (row.v !== null || isKept(row.item.handle)) ? askFirst(row, 'forget') : forget(host, row);

/**
 * confirmed is the question's yes: the one-time secret is forgotten, or
 * hidden for good in every tray of the page, as the question asked.
 * @param {Host} host
 */
export const confirmed = (host, row) => {
  const asked = row.asking;
  closeAsk(row);
  if (asked === 'forget') return forget(host, row);
  spend(row.item.handle);
  discard(row);
  done(host, row, 'spent', HIDDEN);
  // Gone from every tray of the page, as from this one.
  touch(row.item.handle);
  row.forget.focus();
  host.say(`${row.name} hidden for good.`);
};
