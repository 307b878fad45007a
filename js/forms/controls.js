// A form's controls as an agent's call meets them: which it may fill,
// which hold what its answer must never give the agent, the default
// button, and filling them as a user's typing would.

import { usersOwn, asks } from './attributes.js';
import { formElements } from '../webmcp/dom.js';

/** Input types that are not parameters: the user's own, or not a value. */
const SKIPPED = new Set(['hidden', 'file', 'submit', 'reset', 'button', 'image']);

/** A control whose value a form's answer never gives the agent: a password, a hidden value, a one-time code, a card's details. */
export const secret = (el) => (el.localName === 'input' && (el.type === 'password' || el.type === 'hidden')) || usersOwn(el) || asks(el);

/**
 * fillable says whether an agent's call may fill a control: a named,
 * enabled, writable input, select or textarea that is a value, and that
 * only the user fills (usersOwn) is not.
 */
export const fillable = (el) =>
  !!el.getAttribute('name') &&
  !el.matches(':disabled') &&
  !el.readOnly &&
  (el.localName === 'input' ? !SKIPPED.has(el.type) : ['select', 'textarea'].includes(el.localName)) &&
  !usersOwn(el);

/** The form's default button: its first submit button, as the browser finds it. */
export const defaultButton = (form) =>
  [...formElements(form)].find((el) => /** @type {any} */ (el).type === 'submit' && ['button', 'input'].includes(el.localName)) ?? null;

const fire = (el, type) => el.dispatchEvent(new Event(type, { bubbles: true, composed: type === 'input' }));

/**
 * fill sets the controls named in input that an agent may fill
 * (fillable), in tree order, each firing input then change as a user's
 * edit does, and only when its value changes. Controls the input does not
 * name keep their values.
 * @param {HTMLFormElement} form
 * @param {Record<string, any>} input
 */
export const fill = (form, input) => {
  const done = new Set();
  for (const el of /** @type {any[]} */ ([...formElements(form)])) {
    const name = el.getAttribute('name');
    if (!name || !Object.hasOwn(input, name) || !fillable(el)) continue;
    const v = input[name];
    let changed = false;
    if (el.localName === 'input' && el.type === 'radio') {
      if (el.value === String(v) && !el.checked) changed = el.checked = true;
    } else if (el.localName === 'input' && el.type === 'checkbox') {
      if (el.checked !== !!v) ((el.checked = !!v), (changed = true));
    } else if (el.localName === 'select' && el.multiple) {
      const want = new Set((Array.isArray(v) ? v : [v]).map(String));
      for (const o of el.options)
        if (o.selected !== want.has(o.value)) ((o.selected = want.has(o.value)), (changed = true));
    } else if (!done.has(name) && el.value !== String(v)) {
      el.value = String(v);
      changed = true;
    }
    done.add(name);
    if (changed) {
      fire(el, 'input');
      fire(el, 'change');
    }
  }
};
