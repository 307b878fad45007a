// A form's tool as it declares it now: its name, description, input
// schema derived from its controls, output schema, annotations and _meta.

import { HINTS, CAUTIOUS, CONFIRMATION, flag, numberAttr, asks } from './attributes.js';
import { fillable } from './controls.js';
import { attr, connected, formElements, hasAttr } from '../webmcp/dom.js';

/** What an agent's string must look like, for the input types that have a format. */
const FORMATS = {
  date: ['^[0-9]{4}-[0-9]{2}-[0-9]{2}$', 'date'],
  time: ['^[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,3})?)?$'],
  'datetime-local': ['^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,3})?)?$'],
  month: ['^[0-9]{4}-[0-9]{2}$'],
  week: ['^[0-9]{4}-W[0-9]{2}$'],
  color: ['^#[0-9a-fA-F]{6}$'],
};

/** The text of a control's first label, without the text of the controls in it. */
const labelOf = (el) => {
  const label = el.labels?.[0];
  if (!label) return '';
  const copy = /** @type {HTMLElement} */ (label.cloneNode(true));
  copy.querySelectorAll('input,select,textarea,button,output').forEach((c) => c.remove());
  return (copy.textContent ?? '').replace(/\s+/g, ' ').trim();
};

/** The options of a select, as schema choices. */
const choices = (options) => {
  const list = [...options].map((o) => ({ type: 'string', const: o.value, title: o.label || o.text }));
  return { anyOf: list, enum: list.map((c) => c.const) };
};

/**
 * schemaOf derives a form's input schema from its controls, in tree
 * order: one property per named control an agent may fill, as Chromium
 * derives it, with these differences on purpose: a control without a name
 * is left out (its value is never submitted), pattern is anchored as HTML
 * anchors it, toolparamtitle is the property's title, a radio group takes
 * the description of its first radio that has one, and no other property
 * is allowed. Disabled and read-only controls, hidden and file inputs,
 * buttons, controls only the user fills (autocomplete current-password or
 * one-time-code), and names that more than one non-radio control shares
 * are left out.
 * @param {HTMLFormElement} form
 */
export const schemaOf = (form) => {
  /** @type {Map<string, Element[]>} */
  const byName = new Map();
  for (const el of formElements(form)) {
    if (!fillable(el)) continue;
    const name = /** @type {string} */ (el.getAttribute('name'));
    byName.set(name, [...(byName.get(name) ?? []), el]);
  }
  /** @type {Record<string, any>} */
  const properties = {};
  const required = [];
  for (const [name, els] of byName) {
    const first = /** @type {any} */ (els[0]);
    const radio = first.localName === 'input' && first.type === 'radio';
    if (radio ? els.some((e) => /** @type {any} */ (e).type !== 'radio') : els.length > 1) continue;
    /** @type {Record<string, any>} */
    let p;
    if (radio) {
      p = { type: 'string', anyOf: els.map((e) => ({ type: 'string', const: /** @type {any} */ (e).value, ...(labelOf(e) && { title: labelOf(e) }) })) };
      p.enum = p.anyOf.map((c) => c.const);
    } else if (first.localName === 'select') {
      const c = { type: 'string', ...choices(first.options) };
      p = first.multiple ? { type: 'array', items: c, uniqueItems: true } : c;
    } else if (first.localName === 'textarea') {
      p = { type: 'string' };
    } else if (first.type === 'checkbox') {
      p = { type: 'boolean' };
    } else if (first.type === 'number' || first.type === 'range') {
      p = { type: 'number' };
      const range = first.type === 'range';
      const min = numberAttr(first, 'min') ?? (range ? 0 : undefined);
      const max = numberAttr(first, 'max') ?? (range ? 100 : undefined);
      if (min !== undefined) p.minimum = min;
      if (max !== undefined) p.maximum = max;
      const any = first.getAttribute('step')?.trim().toLowerCase() === 'any';
      const given = numberAttr(first, 'step');
      const step = given !== undefined && given > 0 ? given : 1;
      // HTML counts steps from min: multipleOf says the same only when min is on a step.
      if (!any && (min === undefined || Number.isInteger(min / step))) p.multipleOf = step;
    } else {
      p = { type: 'string' };
      const [pattern, format] = FORMATS[first.type] ?? [];
      if (pattern) p.pattern = pattern;
      if (format) p.format = format;
      const own = first.getAttribute('pattern');
      if (!pattern && own) p.pattern = `^(?:${own})$`;
    }
    const withParam = (a) => els.map((e) => e.getAttribute(a)).find((v) => v !== null);
    const title = withParam('toolparamtitle');
    const description = withParam('toolparamdescription') ?? (radio ? '' : labelOf(first));
    if (title) p.title = title;
    if (description) p.description = description;
    properties[name] = p;
    if (els.some((e) => /** @type {any} */ (e).required)) required.push(name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
};

/**
 * definition reads the tool a form declares now, or null when it
 * declares none. Its risk attributes set the annotations they name, and
 * toolrequiresconfirmation _meta's mcp.dev/requiresConfirmation; a form
 * that an agent's call submits (toolautosubmit) with a new password, a
 * one-time code or a card's details in it is consequentialHint, unless
 * it says otherwise with toolconsequentialhint or
 * toolrequiresconfirmation. It throws a TypeError for a risk attribute
 * with another value than those flag reads, and for a tooloutputschema
 * that is not JSON.
 * Unless the page vouched for the form, a risk attribute counts only
 * where it adds caution (CAUTIOUS), and toolrequiresconfirmation only
 * when it asks for confirmation. A form whose submission goes to another
 * origin (outward) sends its input out: its openWorldHint="false" and
 * readOnlyHint are not read, whatever vouches for them.
 * @param {HTMLFormElement} form
 * @param {boolean} [vouched]  the page vouched for the form (veil.vouch)
 * @param {boolean} [outward]  its submission goes to another origin
 */
export const definition = (form, vouched = false, outward = false) => {
  const name = attr(form, 'data-veil-toolname');
  if (name === null || !connected(form)) return null;
  const autosubmit = hasAttr(form, 'toolautosubmit');
  /** @type {Record<string, any>} */
  const tool = { name, description: attr(form, 'tooldescription') ?? '', inputSchema: schemaOf(form), autosubmit };
  /** @type {Record<string, boolean>} */
  const annotations = {};
  if (hasAttr(form, 'toolsensitive')) annotations.sensitiveHint = true;
  for (const [attribute, hint] of Object.entries(HINTS)) {
    const v = flag(form, name, attribute);
    if (v !== undefined && (vouched || v === CAUTIOUS[hint])) annotations[hint] = v;
  }
  // MCP's defaults then hold: open-world, not read-only. (Stated
  // openWorldHint: true would also spotlight the answer, which is the
  // page's own.)
  if (outward) {
    if (annotations.openWorldHint === false) delete annotations.openWorldHint;
    if (annotations.readOnlyHint) delete annotations.readOnlyHint;
  }
  let confirmation = flag(form, name, CONFIRMATION);
  if (confirmation === false && !vouched) confirmation = undefined;
  if (confirmation !== undefined) tool._meta = { 'mcp.dev/requiresConfirmation': confirmation };
  else if (autosubmit && annotations.consequentialHint === undefined && [...formElements(form)].some(asks)) annotations.consequentialHint = true;
  if (Object.keys(annotations).length) tool.annotations = annotations;
  const out = attr(form, 'tooloutputschema');
  if (out !== null) {
    try {
      tool.outputSchema = JSON.parse(out);
    } catch (e) {
      throw new TypeError(`form tool ${JSON.stringify(name)}: tooloutputschema is not JSON: ${e instanceof Error ? e.message : e}`);
    }
  }
  return tool;
};
