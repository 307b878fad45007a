// A row of the tray as the user sees it: its value shown, masked or gone,
// its question, its message and state, its buttons enabled or not, and
// all of that brought in line with the page's store.

import { el } from './dom.js';
import { keep, keptOf, isFlying, isSpent, isTaken } from './store.js';
import { STATES, MASKED, HIDDEN, TAKEN } from './text.js';

/**
 * What a row needs of its tray.
 * @typedef {object} Host
 * @property {(text: string) => void} say  announces text to screen readers
 * @property {() => number} hideAfter  how many seconds a value is shown
 * @property {() => Element|null} focused  the tray's focused element
 * @property {(button: HTMLElement|null) => void} leaving  where focus goes once a forgotten row is gone
 */

/** note shows a message under a row, or none; bad marks a failure. */
export const note = (row, text, bad = false) => {
  row.msg.textContent = text;
  row.msg.hidden = !text;
  row.msg.classList.toggle('bad', bad);
};

/** fail says, in the row and to screen readers, why an action failed. @param {Host} host */
export const fail = (host, row, message) => {
  note(row, message, true);
  host.say(`${row.name}: ${message}`);
};

/** buttons enables Reveal, Copy and Forget as far as the row's state and the value on its way allow. */
export const buttons = (row) => {
  const wait = row.pending || isFlying(row.item.handle);
  row.reveal.disabled = row.copy.disabled = wait || row.state !== 'ready';
  row.forget.disabled = wait;
};

/**
 * busy disables Reveal, Copy and Forget while a value is on its way: a
 * second redemption of a one-time secret would only be refused, and
 * forgetting it would throw away what the server has handed out.
 */
export const busy = (row, on) => {
  row.pending = on;
  buttons(row);
};

/** closeAsk closes the row's question. */
export const closeAsk = (row) => {
  row.ask.hidden = true;
  row.asking = '';
};

/**
 * askFirst asks, in the row, whether to throw a kept one-time secret away:
 * "hide" or "forget". Focus starts on "Keep it".
 */
export const askFirst = (row, what) => {
  row.asking = what;
  const verb = what === 'forget' ? 'Forget' : 'Hide';
  row.question.textContent = `This secret cannot be shown again. ${verb} it for good?`;
  row.yes.firstChild.data = `${verb} for good`;
  row.ask.hidden = false;
  row.no.focus();
};

/** mask shows a kept one-time secret as dots, and Show. */
export const mask = (row) => {
  clearTimeout(row.timer);
  row.shown = false;
  row.code.textContent = '';
  row.code.hidden = true;
  row.value.querySelector('.bar')?.remove();
  row.mask.hidden = false;
  row.value.hidden = false;
  row.reveal.firstChild.data = 'Show';
  row.reveal.setAttribute('aria-expanded', 'false');
};

/** discard drops a row's value for good. */
export const discard = (row) => {
  clearTimeout(row.timer);
  closeAsk(row);
  row.v = null;
  row.shown = false;
  row.code.textContent = '';
  row.mask.hidden = true;
  row.value.hidden = true;
  row.value.querySelector('.bar')?.remove();
  row.reveal.firstChild.data = 'Reveal';
  row.reveal.setAttribute('aria-expanded', 'false');
};

/**
 * conceal takes a shown value off the screen: a value the engine can give
 * again is dropped; a one-time secret is masked, kept for Show.
 */
export const conceal = (row) => {
  if (!row.shown) return;
  if (!row.once) return discard(row), note(row, '');
  mask(row);
  note(row, MASKED);
};

/**
 * show puts a value on the screen for hide-after seconds, and returns them.
 * @param {Host} host
 */
export const show = (host, row, value) => {
  const s = host.hideAfter();
  row.v = value;
  if (row.once) keep(row.item, value);
  row.shown = true;
  row.code.textContent = value;
  row.code.hidden = false;
  row.mask.hidden = true;
  row.value.style.setProperty('--t', `${s}s`);
  row.value.querySelector('.bar')?.remove();
  row.value.append(el('div', { class: 'bar' }));
  row.value.hidden = false;
  row.reveal.firstChild.data = 'Hide';
  row.reveal.setAttribute('aria-expanded', 'true');
  clearTimeout(row.timer);
  row.timer = setTimeout(() => conceal(row), s * 1000);
  return s;
};

/**
 * done marks an item that can no longer be revealed, and disables its Reveal and Copy.
 * @param {Host} host
 */
export const done = (host, row, state, message = '') => {
  row.state = state;
  row.li.classList.add('done');
  row.stateEl.textContent = STATES[state];
  row.stateEl.hidden = false;
  const focused = host.focused();
  row.reveal.disabled = row.copy.disabled = true;
  if (focused === row.reveal || focused === row.copy) row.forget.focus();
  if (message) note(row, message);
};

/**
 * update brings a one-time secret's row in line with the page's store:
 * one redeemed by another tray is kept masked; one hidden or forgotten
 * for good elsewhere is dropped; one on its way elsewhere can't be
 * revealed or forgotten meanwhile. A row's own Reveal or Copy settles
 * its row itself.
 * @param {Host} host
 */
export const update = (host, row) => {
  if (!row.once) return;
  const k = keptOf(row.item.handle);
  if (row.pending) return buttons(row);
  if (isTaken(row.item.handle)) {
    if (row.state !== 'spent') discard(row), done(host, row, 'spent', TAKEN);
    return buttons(row);
  }
  if (isSpent(row.item.handle)) {
    if (row.state !== 'spent') discard(row), done(host, row, 'spent', HIDDEN);
    return buttons(row);
  }
  if (k && row.v === null && row.state === 'ready') (row.v = k.value), mask(row), note(row, MASKED);
  else if (!k && row.v !== null && !row.pending && !isFlying(row.item.handle)) {
    discard(row);
    done(host, row, 'spent', HIDDEN);
  }
  buttons(row);
};
