// Veil's declarative tools: a <form toolname> becomes a tool that runs
// through the engine like one of registerTool's. webmcp.js imports this
// module from beside itself the first time it sees such a form, and hands
// start() the functions of its own that register a tool (prepare and
// submit, registerTool's two halves); the module exports nothing else, so
// a page that imports it gains nothing it did not have.
//
// webmcp.js has already moved the form's toolname to data-veil-toolname,
// so that the browser's own WebMCP never registers the form around the
// engine. This module derives the tool from the form (its name, its
// description, an input schema from its controls, and the sensitivity the
// form declares), keeps it up to date as the form changes, and runs it: it
// fills the controls from the agent's arguments as a user's typing would,
// then submits the form (toolautosubmit) or waits for the user to; the
// submit event says agentInvoked, and respondWith(promise) gives the tool's
// output, which goes to the engine as any execute's result does. Before it
// does, the engine gets the values of the form the answer must not give
// the agent (what the user typed, a password, a one-time code, a hidden
// token), which it withholds from the answer and every later output.
/// <reference path="./webmcp.d.ts" />

/**
 * The attributes of a form that declare its tool's risk, each with the
 * annotation it sets, named after it as toolname is after the tool's name:
 * MCP's hints and the WebMCP draft's. Each is absent (no claim), empty or
 * "true", or "false".
 */
const HINTS = {
  toolreadonlyhint: 'readOnlyHint',
  tooldestructivehint: 'destructiveHint',
  toolidempotenthint: 'idempotentHint',
  toolopenworldhint: 'openWorldHint',
  tooluntrustedcontenthint: 'untrustedContentHint',
  toolconsequentialhint: 'consequentialHint',
};

/** The attribute of a form that says whether its calls need the user's confirmation: _meta's mcp.dev/requiresConfirmation. */
const CONFIRMATION = 'toolrequiresconfirmation';

/** The attributes of a form and its controls that change its tool. */
const WATCHED = [
  'data-veil-toolname', 'tooldescription', 'toolsensitive', 'tooloutputschema', 'toolparamdescription', 'toolparamtitle',
  'toolautosubmit', ...Object.keys(HINTS), CONFIRMATION,
  'name', 'type', 'required', 'min', 'max', 'step', 'pattern', 'multiple', 'disabled', 'readonly', 'value', 'label', 'form', 'autocomplete',
];

/** A tool name as the draft allows it: what may name a form in the console. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Input types that are not parameters: the user's own, or not a value. */
const SKIPPED = new Set(['hidden', 'file', 'submit', 'reset', 'button', 'image']);

/** The autofill field names of a control's autocomplete attribute, in lower case. */
const autofill = (el) => (el.getAttribute('autocomplete') ?? '').replace(/[A-Z]/g, (c) => c.toLowerCase()).split(/[\t\n\f\r ]+/);

/** A control only the user fills: a current password, a one-time code. */
const usersOwn = (el) => autofill(el).some((t) => t === 'current-password' || t === 'one-time-code');

/** A control whose submission an agent's call is asked about: a new password, a one-time code, a card's details. */
const asks = (el) => autofill(el).some((t) => t === 'new-password' || t === 'one-time-code' || t.startsWith('cc-'));

/** A control whose value a form's answer never gives the agent: a password, a hidden value, a one-time code, a card's details. */
const secret = (el) => (el.localName === 'input' && (el.type === 'password' || el.type === 'hidden')) || usersOwn(el) || asks(el);

/**
 * fillable says whether an agent's call may fill a control: a named,
 * enabled, writable input, select or textarea that is a value, and that
 * only the user fills (usersOwn) is not.
 */
const fillable = (el) =>
  !!el.getAttribute('name') &&
  !el.matches(':disabled') &&
  !el.readOnly &&
  (el.localName === 'input' ? !SKIPPED.has(el.type) : ['select', 'textarea'].includes(el.localName)) &&
  !usersOwn(el);

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

/** A number attribute, or undefined when it is missing or not a number. */
const numberAttr = (el, name) => {
  const v = el.getAttribute(name);
  if (v === null || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
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
const schemaOf = (form) => {
  /** @type {Map<string, Element[]>} */
  const byName = new Map();
  for (const el of form.elements) {
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

/** The form's default button: its first submit button, as the browser finds it. */
const defaultButton = (form) =>
  [...form.elements].find((el) => /** @type {any} */ (el).type === 'submit' && ['button', 'input'].includes(el.localName)) ?? null;

const fire = (el, type) => el.dispatchEvent(new Event(type, { bubbles: true, composed: type === 'input' }));

/**
 * fill sets the controls named in input that an agent may fill
 * (fillable), in tree order, each firing input then change as a user's
 * edit does, and only when its value changes. Controls the input does not
 * name keep their values.
 * @param {HTMLFormElement} form
 * @param {Record<string, any>} input
 */
const fill = (form, input) => {
  const done = new Set();
  for (const el of /** @type {any[]} */ ([...form.elements])) {
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

/**
 * @typedef {object} Call   one agent's call, from the fill to its answer
 * @property {HTMLFormElement} form
 * @property {string} name
 * @property {Record<string, any>} input  the agent's arguments
 * @property {Set<string>} values  what the answer must not give the agent (note)
 * @property {(ok: boolean, v: any) => void} end
 * @property {boolean} dispatching  our own requestSubmit is dispatching submit
 * @property {SubmitEvent} [event]   the submission the call took as its answer
 * @property {{value: any}} [response]  what respondWith was given, last
 * @property {boolean} [submitted]   form.submit() ran while the call waited
 */

/**
 * @typedef {object} Tool   a form's tool as it is registered
 * @property {string} key   what it was registered from, to tell a change
 * @property {string} name
 * @property {boolean} autosubmit  toolautosubmit, as the tool was registered with it
 * @property {AbortController} controller  aborting unregisters it
 */

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
 * @param {Call} call
 */
const note = ({ form, input, values }) => {
  /** @type {string[]} */
  const custom = [];
  for (const el of /** @type {any[]} */ ([...form.elements])) {
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
  for (const el of /** @type {any[]} */ ([...form.elements])) {
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

/**
 * flag reads a risk attribute of a form: undefined when it is absent, true
 * when it is empty or "true", false when it is "false" (in any ASCII
 * case). Any other value throws a TypeError that names the attribute, and
 * the form is then no tool (see failed).
 * @param {HTMLFormElement} form
 * @param {string} name  the tool's name
 * @param {string} attribute
 */
const flag = (form, name, attribute) => {
  const v = form.getAttribute(attribute)?.replace(/[A-Z]/g, (c) => c.toLowerCase());
  if (v === undefined) return undefined;
  if (v === '' || v === 'true') return true;
  if (v === 'false') return false;
  throw Object.assign(new TypeError(`form tool ${JSON.stringify(name)}: ${attribute} must be absent, empty, "true" or "false"`), { attribute });
};

/**
 * start installs the module's listeners and returns the handle webmcp.js
 * calls: seen(form) when a form has a toolname, removed() when nodes left
 * the document or a shadow root. withhold(name, values) hands the engine
 * the values the answer of a call of tool name must not give the agent,
 * and rejects when the engine did not take them.
 * @param {{prepare: Function, submit: Function, veil: EventTarget, withhold: (name: string, values: string[]) => Promise<void>}} runtime
 */
export const start = ({ prepare, submit, veil, withhold }) => {
  /** @type {Map<HTMLFormElement, {tool: Tool|null, observer: {disconnect: () => void}}>} */
  const forms = new Map();
  /** The call waiting for each form's submission. @type {WeakMap<HTMLFormElement, Call>} */
  const waiting = new WeakMap();
  /** Which call each agent's submit event answers. @type {WeakMap<Event, Call>} */
  const claims = new WeakMap();

  /**
   * joins says whether a change in a form's tree may add, change or remove
   * a control associated with a form by its form attribute: one that has
   * the attribute, or a node added or removed with one in it; or a change
   * of the form's id.
   * @param {HTMLFormElement} form
   * @param {MutationRecord} r
   */
  const joins = (form, r) => {
    const has = (n) => n instanceof Element && (n.hasAttribute('form') || n.querySelector('[form]') !== null);
    if (r.type === 'attributes') return r.attributeName === 'form' || r.target === form || has(r.target);
    return [...r.addedNodes, ...r.removedNodes].some(has);
  };

  /** failed reports a form whose tool the engine, or the form's own attributes, refused. */
  const failed = (form, name, error) => {
    // The message and the attribute's value stay out of the console: the
    // form may be untrusted HTML the page rendered, which chooses them,
    // and agents read the console. A bad risk attribute names the form by
    // its tool name, when that is a valid one (what getTools would list
    // anyway: letters, digits, _ - and .), and the attribute, which is
    // one of ours.
    if (typeof error?.attribute === 'string') {
      const who = TOOL_NAME.test(name) ? `form tool ${JSON.stringify(name)}` : 'form tool (its name is not a valid tool name)';
      console.error(`veil: ${who}: ${error.attribute} must be absent, empty, "true" or "false", so the form is not a tool until it is fixed; see the formtoolerror event`);
    } else {
      console.warn(`veil: a form's tool was not registered (${error?.name ?? 'Error'}); see the formtoolerror event`);
    }
    veil.dispatchEvent(new CustomEvent('formtoolerror', { detail: { form, name, error } }));
  };

  /** cancel ends the form's waiting call, if any, with an error. */
  const cancel = (form, why) => waiting.get(form)?.end(false, new DOMException(why, 'AbortError'));

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
   */
  const definition = (form) => {
    const name = form.getAttribute('data-veil-toolname');
    if (name === null || !form.isConnected) return null;
    const autosubmit = form.hasAttribute('toolautosubmit');
    /** @type {Record<string, any>} */
    const tool = { name, description: form.getAttribute('tooldescription') ?? '', inputSchema: schemaOf(form), autosubmit };
    /** @type {Record<string, boolean>} */
    const annotations = {};
    if (form.hasAttribute('toolsensitive')) annotations.sensitiveHint = true;
    for (const [attribute, hint] of Object.entries(HINTS)) {
      const v = flag(form, name, attribute);
      if (v !== undefined) annotations[hint] = v;
    }
    const confirmation = flag(form, name, CONFIRMATION);
    if (confirmation !== undefined) tool._meta = { 'mcp.dev/requiresConfirmation': confirmation };
    else if (autosubmit && annotations.consequentialHint === undefined && [...form.elements].some(asks)) annotations.consequentialHint = true;
    if (Object.keys(annotations).length) tool.annotations = annotations;
    const out = form.getAttribute('tooloutputschema');
    if (out !== null) {
      try {
        tool.outputSchema = JSON.parse(out);
      } catch (e) {
        throw new TypeError(`form tool ${JSON.stringify(name)}: tooloutputschema is not JSON: ${e instanceof Error ? e.message : e}`);
      }
    }
    return tool;
  };

  /** sync registers what the form declares now, and unregisters what it declared before. */
  const sync = (form) => {
    const state = forms.get(form);
    if (!state) return;
    let tool = null;
    let error = null;
    try {
      tool = definition(form);
    } catch (e) {
      error = e;
    }
    const key = error ? `error:${error.message}` : JSON.stringify(tool);
    if (state.tool?.key === key) return;
    if (state.tool) {
      // Chromium too ends a call whose tool changed under it.
      cancel(form, 'the form tool changed while the call waited');
      state.tool.controller.abort();
      state.tool = null;
    }
    if (!form.isConnected) {
      state.observer.disconnect();
      forms.delete(form);
      return;
    }
    const name = form.getAttribute('data-veil-toolname') ?? '';
    const controller = new AbortController();
    const { autosubmit = false, ...def } = tool ?? {};
    const registered = (state.tool = { key, name, autosubmit, controller });
    // Reported once: the form is tried again when it changes.
    if (error) return failed(form, name, error);
    if (!tool) return;
    try {
      submit(prepare({ ...def, execute: (input, options) => execute(form, registered, input, options) }, { signal: controller.signal })).catch(
        (e) => controller.signal.aborted || failed(form, name, e),
      );
    } catch (e) {
      failed(form, name, e);
    }
  };

  /**
   * execute runs the form's tool for one call the engine allowed: it fills
   * the form, then submits it (when the tool was registered with
   * toolautosubmit, as the engine decided it) or waits for the user, and
   * resolves with the submission's answer.
   * @param {HTMLFormElement} form
   * @param {Tool} tool
   * @param {Record<string, any>} input
   * @param {{signal: AbortSignal}} options
   */
  const execute = (form, tool, input, { signal }) => {
    if (forms.get(form)?.tool !== tool || !form.isConnected) throw new DOMException('the form tool is gone', 'AbortError');
    const auto = tool.autosubmit;
    const button = defaultButton(form);
    if (!auto && !button) {
      console.warn('veil: a form tool has neither toolautosubmit nor a submit button, so no call can finish');
      throw new DOMException('the form has no submit button', 'NotSupportedError');
    }
    // A newer call takes the form: the one waiting ends (Chromium leaves it waiting for ever).
    cancel(form, 'another call took the form');
    return new Promise((resolve, reject) => {
      /** @type {Call} */
      const call = {
        form,
        name: tool.name,
        input,
        values: new Set(),
        dispatching: false,
        end(ok, v) {
          if (waiting.get(form) !== call) return;
          waiting.delete(form);
          form.removeAttribute('data-veil-tool-form-active');
          button?.removeAttribute('data-veil-tool-submit-active');
          form.removeEventListener('reset', onReset);
          form.removeEventListener('submit', claim, true);
          signal.removeEventListener('abort', onAbort);
          ok ? resolve(v) : reject(v);
        },
      };
      const onReset = () => call.end(false, new DOMException('the form was reset', 'AbortError'));
      const onAbort = () => call.end(false, signal.reason);
      waiting.set(form, call);
      form.addEventListener('reset', onReset);
      // On the form itself: a submit event does not leave a shadow root.
      form.addEventListener('submit', claim, true);
      signal.addEventListener('abort', onAbort, { once: true });
      form.setAttribute('data-veil-tool-form-active', '');
      button?.setAttribute('data-veil-tool-submit-active', '');
      fill(form, input);
      if (waiting.get(form) !== call) return; // a listener ended it
      if (!auto) {
        button?.focus();
        return;
      }
      if (!form.checkValidity()) {
        console.warn('veil: a form tool\'s form is not valid once filled, so it was not submitted');
        return call.end(false, new DOMException('the form is not valid', 'NotSupportedError'));
      }
      call.dispatching = true;
      try {
        form.requestSubmit(button);
      } finally {
        call.dispatching = false;
      }
      answer(call);
    });
  };

  /**
   * deliver ends a call with its answer once the engine has the values
   * of the form the answer must not give the agent (note: those at the
   * submission and those now), which it withholds from the answer and
   * from every later output. Should they not be read, or the engine not
   * take them, the call fails: the agent gets nothing of the answer.
   * @param {Call} call
   * @param {any} v
   */
  const deliver = (call, v) => {
    if (waiting.get(call.form) !== call) return;
    const withheld = () => {
      // Not the error: it may quote a value.
      console.warn("veil: the values a form tool's answer must not give the agent could not be withheld, so the answer is withheld whole");
      call.end(false, new DOMException('the answer was withheld', 'OperationError'));
    };
    try {
      note(call);
    } catch {
      return withheld();
    }
    if (!call.values.size) return call.end(true, v);
    withhold(call.name, [...call.values]).then(() => call.end(true, v), withheld);
  };

  /**
   * answer ends a call once its submit event has been dispatched: with
   * what respondWith was given, with null when the form went ahead with
   * its own submission (as Chromium answers), or with an error when the
   * page cancelled the submission and gave no answer.
   * @param {Call} call
   */
  const answer = (call) => {
    const { event } = call;
    if (waiting.get(call.form) !== call) return;
    if (call.response) {
      Promise.resolve(call.response.value).then(
        (v) => deliver(call, v),
        (e) => call.end(false, e),
      );
    } else if (event ? !event.defaultPrevented || call.submitted : call.submitted) {
      deliver(call, null);
    } else {
      console.warn(
        event
          ? "veil: a form tool's submit event was cancelled without respondWith(), so the call fails"
          : "veil: a form tool's form was not submitted, so the call fails",
      );
      call.end(false, new DOMException('the submission gave no answer', 'NotSupportedError'));
    }
  };

  /**
   * claim says which call a submit event answers: the first trusted
   * submit event at a form whose call waits, seen by the runtime's own
   * listener on the form or by the first read of agentInvoked or
   * respondWith, whichever comes first.
   * @param {Event} e
   * @returns {Call|null}
   */
  const claim = (e) => {
    if (claims.has(e)) return claims.get(e) ?? null;
    if (e.type !== 'submit' || !e.isTrusted || e.eventPhase === Event.NONE) return null;
    const call = waiting.get(/** @type {any} */ (e.target));
    if (!call || call.event) return null;
    call.event = /** @type {SubmitEvent} */ (e);
    claims.set(e, call);
    // The values as submitted: the page may change them before it answers.
    try {
      note(call);
    } catch {}
    // The user's submission: the call is answered once the event is over.
    if (!call.dispatching) setTimeout(answer, 0, call);
    return call;
  };

  const proto = SubmitEvent.prototype;
  const nativeAgent = Object.getOwnPropertyDescriptor(proto, 'agentInvoked')?.get;
  const nativeRespond = Object.getOwnPropertyDescriptor(proto, 'respondWith')?.value;
  Object.defineProperty(proto, 'agentInvoked', {
    configurable: true,
    enumerable: true,
    get() {
      return !!claim(this) || !!nativeAgent?.call(this);
    },
  });
  Object.defineProperty(proto, 'respondWith', {
    configurable: true,
    enumerable: true,
    writable: true,
    /** @param {any} response */
    value: function respondWith(response) {
      if (!(this instanceof SubmitEvent)) throw new TypeError('respondWith: called on an object that is not a SubmitEvent');
      if (arguments.length < 1) throw new TypeError('respondWith: 1 argument required, but only 0 present');
      const call = claim(this);
      if (!call) {
        if (typeof nativeRespond === 'function') return nativeRespond.call(this, response);
        throw new DOMException('respondWith: only an agent-invoked submit event (agentInvoked is true) takes a response', 'InvalidStateError');
      }
      if (this.eventPhase === Event.NONE) throw new DOMException('respondWith: the submit event is no longer being dispatched', 'InvalidStateError');
      if (!this.defaultPrevented) throw new DOMException('respondWith: call preventDefault() first', 'InvalidStateError');
      call.response = { value: response };
    },
  });

  // form.submit() fires no submit event: a page that cancels the agent's
  // submission and submits the form itself has still submitted it.
  const nativeSubmit = HTMLFormElement.prototype.submit;
  HTMLFormElement.prototype.submit = function submit() {
    const call = waiting.get(this);
    if (call) {
      try {
        note(call);
      } catch {}
    }
    const r = nativeSubmit.call(this);
    if (call) {
      call.submitted = true;
      if (!call.event && !call.dispatching) answer(call);
    }
    return r;
  };

  return {
    /** @param {HTMLFormElement} form */
    seen(form) {
      if (!forms.has(form)) {
        const own = new MutationObserver(() => sync(form));
        own.observe(form, { subtree: true, childList: true, attributes: true, attributeFilter: WATCHED });
        // A control elsewhere in the form's tree that joins it by its form
        // attribute is one of its controls (form.elements) too.
        const outside = new MutationObserver((records) => records.some((r) => joins(form, r)) && sync(form));
        const root = form.getRootNode();
        if (root !== form) outside.observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ['id', ...WATCHED] });
        const observer = { disconnect: () => (own.disconnect(), outside.disconnect()) };
        forms.set(form, { tool: null, observer });
      }
      sync(form);
    },
    removed() {
      for (const form of [...forms.keys()]) if (!form.isConnected) sync(form);
    },
  };
};
