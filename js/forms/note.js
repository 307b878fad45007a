// What a form tool's answer must not give the agent: the values of the
// form as the user typed them or the page wrote them, read from its
// controls and its submission.

import { secret, fillable } from './controls.js';
import { formElements } from '../webmcp/dom.js';

/**
 * note adds to a call the values of its form that its answer must not
 * give the agent: whatever a secret control holds (a password, a hidden
 * value, a one-time code, a card's details), and what any other control
 * holds that the agent's call did not put there, as the user typed it or
 * the page wrote it, and the names of the files the user chose. A choice
 * (a checkbox, a radio button, a select) is one of the page's own words,
 * which the input schema shows the agent, and is noted only for a secret
 * control. A form-associated custom element's value is read from the
 * form's entry list, and so is every entry of the submission (new
 * FormData(form)) the call did not put there, under any name. A value
 * over several lines is noted whole and line by line, paragraph by
 * paragraph.
 * @param {import('./calls.js').Call} call
 */
export const note = ({ form, input, values }) => {
  /** @type {string[]} */
  const custom = [];
  for (const el of /** @type {any[]} */ ([...formElements(form)])) {
    const name = el.getAttribute('name');
    // The agent's own: what its call put in a control it may fill.
    const agents = () => fillable(el) && Object.hasOwn(input, name) && el.value === String(input[name]);
    if (el.localName === 'select') {
      if (secret(el)) for (const o of el.selectedOptions) values.add(o.value);
    } else if (el.localName === 'textarea') {
      if (secret(el) || !agents()) values.add(el.value);
    } else if (el.localName === 'input') {
      if (el.type === 'checkbox' || el.type === 'radio') {
        if (el.checked && secret(el)) values.add(el.value);
      } else if (el.type === 'file') {
        for (const f of el.files ?? []) values.add(f.name);
      } else if (!['submit', 'reset', 'button', 'image'].includes(el.type) && (secret(el) || !agents())) {
        values.add(el.value);
      }
    } else if (el.localName.includes('-') && name) {
      custom.push(name);
    }
  }
  if (custom.length) for (const [k, v] of new FormData(form)) if (typeof v === 'string' && custom.includes(k)) values.add(v);
  // The submission as the browser reads it: what a custom element submits
  // under names of its own, and what controls outside the form that name
  // it hold. An entry is the agent's own only when its call put that value
  // under that name; a choice's value is one of the page's own words.
  /** @type {Map<string, Set<string>>} */
  const words = new Map();
  const word = (k, v) => words.set(k, (words.get(k) ?? new Set()).add(v));
  for (const el of /** @type {any[]} */ ([...formElements(form)])) {
    const name = el.getAttribute('name');
    const dirname = el.getAttribute('dirname');
    if (dirname) (word(dirname, 'ltr'), word(dirname, 'rtl'));
    if (!name || secret(el)) continue;
    if (el.localName === 'select') for (const o of el.options) word(name, o.value);
    else if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) word(name, el.value);
  }
  const lf = (v) => v.replace(/\r\n?/g, '\n');
  const filled = (k, v) =>
    Object.hasOwn(input, k) && (Array.isArray(input[k]) ? input[k] : [input[k]]).some((x) => lf(String(x)) === lf(v));
  for (const [k, v] of new FormData(form)) {
    if (typeof v !== 'string') values.add(v.name);
    else if (!filled(k, v) && !words.get(k)?.has(v)) values.add(v);
  }
  // A value over several lines may come back a line or a paragraph at a
  // time (as HTML, each break a <br>): each is withheld as well.
  for (const v of [...values]) {
    if (!/[\r\n]/.test(v)) continue;
    for (const part of [...lf(v).split(/\n[\t\f ]*\n/), ...lf(v).split('\n')]) values.add(part.trim());
  }
  values.delete('');
};
