import { attr } from '../webmcp/dom.js';
// What a form's attributes and its controls' say of its tool, read with
// getAttribute alone: the risk attributes and their annotations, the
// attributes that change the tool, the tool name's syntax, a control's
// autofill field names. Nothing of the page: they run under Node's test
// runner as they run in the page.

/**
 * The attributes of a form that declare its tool's risk, each with the
 * annotation it sets, named after it as toolname is after the tool's name:
 * MCP's hints and the WebMCP draft's. Each is absent (no claim), empty or
 * "true", or "false".
 */
export const HINTS = {
  toolreadonlyhint: 'readOnlyHint',
  tooldestructivehint: 'destructiveHint',
  toolidempotenthint: 'idempotentHint',
  toolopenworldhint: 'openWorldHint',
  tooluntrustedcontenthint: 'untrustedContentHint',
  toolconsequentialhint: 'consequentialHint',
};

/**
 * The value of each hint that adds caution: all a form the page has not
 * vouched for can say (veil.vouch). Planted markup writes its form's
 * attributes, so it may declare itself riskier, never safer: read-only,
 * idempotent (a call then tried twice), closed-world, with trusted
 * output, not destructive or not consequential are claims only the page
 * makes.
 */
export const CAUTIOUS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
  untrustedContentHint: true,
  consequentialHint: true,
};

/** The attribute of a form that says whether its calls need the user's confirmation: _meta's mcp.dev/requiresConfirmation. */
export const CONFIRMATION = 'toolrequiresconfirmation';

/** The attributes of a form and its controls that change its tool. */
export const WATCHED = [
  'data-veil-toolname', 'tooldescription', 'toolsensitive', 'tooloutputschema', 'toolparamdescription', 'toolparamtitle',
  'toolautosubmit', ...Object.keys(HINTS), CONFIRMATION,
  'name', 'type', 'required', 'min', 'max', 'step', 'pattern', 'multiple', 'disabled', 'readonly', 'value', 'label', 'form', 'autocomplete',
  'action', 'method', 'formaction', 'formmethod',
];

/** A tool name as the draft allows it: what may name a form in the console. */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * flag reads a risk attribute of a form: undefined when it is absent, true
 * when it is empty or "true", false when it is "false" (in any ASCII
 * case). Any other value throws a TypeError that names the attribute, and
 * the form is then no tool (see failed).
 * @param {Element} form
 * @param {string} name  the tool's name
 * @param {string} attribute
 */
export const flag = (form, name, attribute) => {
  const v = attr(form, attribute)?.replace(/[A-Z]/g, (c) => c.toLowerCase());
  if (v === undefined) return undefined;
  if (v === '' || v === 'true') return true;
  if (v === 'false') return false;
  throw Object.assign(new TypeError(`form tool ${JSON.stringify(name)}: ${attribute} must be absent, empty, "true" or "false"`), { attribute });
};

/** A number attribute, or undefined when it is missing or not a number. */
export const numberAttr = (el, name) => {
  const v = el.getAttribute(name);
  if (v === null || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
};

/** The autofill field names of a control's autocomplete attribute, in lower case. */
export const autofill = (el) => (el.getAttribute('autocomplete') ?? '').replace(/[A-Z]/g, (c) => c.toLowerCase()).split(/[\t\n\f\r ]+/);

/** A control only the user fills: a current password, a one-time code. */
export const usersOwn = (el) => autofill(el).some((t) => t === 'current-password' || t === 'one-time-code');

/** A control whose submission an agent's call is asked about: a new password, a one-time code, a card's details. */
export const asks = (el) => autofill(el).some((t) => t === 'new-password' || t === 'one-time-code' || t.startsWith('cc-'));
