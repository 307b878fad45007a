// A row of the tray: one withheld item, its label, state, buttons, value
// and question, made with its buttons wired to what they do.

import { el } from './dom.js';
import { nameOf, time } from './text.js';
import { closeAsk } from './view.js';
import * as act from './actions.js';

/** @typedef {import('./view.js').Host} Host */

/**
 * newRow makes the row of an item of a call's group g (which shows its
 * expiry once, for every item that shares it).
 * @param {Host} host  the tray
 * @param {any} item
 * @param {{exp: number}} g
 * @param {number} id  a number of the tray's own, for the row's question's id
 */
export const newRow = (host, item, g, id) => {
  const name = nameOf(item);
  const once = item.kind === 'reference';
  const sr = () => el('span', { class: 'sr', text: ` ${name}` });
  const code = el('code', { part: 'value-text' });
  const mask = el(
    'button',
    { class: 'mask', part: 'mask', hidden: '' },
    el('span', { 'aria-hidden': 'true', text: '••••••••' }),
    'Show again',
    sr(),
  );
  const value = el('div', { class: 'value', part: 'value', hidden: '' }, code, mask);
  const msg = el('p', { class: 'msg', part: 'message', hidden: '' });
  const button = (text, cls) => el('button', { part: 'button', class: cls }, text, sr());
  const reveal = button('Reveal', 'primary');
  const copy = button('Copy');
  const forget = button('Forget', 'quiet');
  const state = el('span', { class: 'state', part: 'state', hidden: '' });
  const question = el('p', { id: `ask-${id}` });
  const yes = button('Hide for good', 'danger');
  const no = button('Keep it');
  const ask = el(
    'div',
    { class: 'ask', part: 'confirm', role: 'group', 'aria-labelledby': question.id, hidden: '' },
    question,
    el('div', { class: 'choices' }, yes, no),
  );
  const until = item.expires === g.exp ? '' : ` · until ${time(item.expires)}`;
  const row = {
    item,
    name,
    once,
    code,
    mask,
    value,
    msg,
    reveal,
    copy,
    forget,
    state: 'ready',
    stateEl: state,
    ask,
    question,
    yes,
    no,
    /** The value, while shown, and a redeemed one-time secret's until the user hides it for good. */
    v: null,
    shown: false,
    /** Whether a Reveal or Copy waits for the value. */
    pending: false,
    /** What the open question is about: "hide" or "forget". */
    asking: '',
    timer: 0,
    li: el(
      'li',
      { class: 'item', part: 'item' },
      el(
        'div',
        { class: 'row' },
        el(
          'div',
          { class: 'info' },
          el('span', { class: 'label', part: 'label', text: name }),
          el('span', { class: 'meta', text: (once ? 'one-time secret' : 'value') + until }),
        ),
        state,
        el('div', { class: 'actions' }, reveal, copy, forget),
      ),
      value,
      msg,
      ask,
    ),
  };
  reveal.setAttribute('aria-expanded', 'false');
  reveal.onclick = () => act.primary(host, row);
  mask.onclick = () => act.unmask(host, row);
  copy.onclick = () => act.copy(host, row);
  forget.onclick = () => act.forgetFirst(host, row);
  // Only the user's own click or key press throws a secret away, never a script's.
  yes.onclick = (e) => {
    if (e.isTrusted) act.confirmed(host, row);
  };
  no.onclick = () => (closeAsk(row), reveal.focus());
  ask.onkeydown = (e) => e.key === 'Escape' && (e.stopPropagation(), no.click());
  return row;
};
