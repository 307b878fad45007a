// The page's form tools: each form with a toolname registered as the
// tool it declares, kept up to date as the form and its controls change,
// and unregistered when it stops declaring one or leaves the document.

import { WATCHED, TOOL_NAME } from './attributes.js';
import { definition } from './definition.js';
import { cancelUnsubmitted, execute } from './calls.js';
import { attr, hasAttr, query, connected, rootNode, localName } from '../webmcp/dom.js';

/**
 * @typedef {object} Tool   a form's tool as it is registered
 * @property {string} key   what it was registered from, to tell a change
 * @property {string} name
 * @property {boolean} autosubmit  toolautosubmit, as the tool was registered with it
 * @property {AbortController} controller  aborting unregisters it
 */

const getter = (proto, key) => /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(proto, key)).get;
const actionOf = getter(HTMLFormElement.prototype, 'action');
const methodOf = getter(HTMLFormElement.prototype, 'method');
const elementsOf = getter(HTMLFormElement.prototype, 'elements');
/** A submit button's own formAction and formMethod, and its type, by its element's prototype. */
const submitter = {
  button: [getter(HTMLButtonElement.prototype, 'type'), getter(HTMLButtonElement.prototype, 'formAction'), getter(HTMLButtonElement.prototype, 'formMethod')],
  input: [getter(HTMLInputElement.prototype, 'type'), getter(HTMLInputElement.prototype, 'formAction'), getter(HTMLInputElement.prototype, 'formMethod')],
};
/** away says whether a submission with this action and method goes to another origin. */
const away = (action, method) => method !== 'dialog' && new URL(action).origin !== location.origin;
/**
 * outward says whether a form's submission goes to another origin, read
 * with the DOM's own getters (a control named action is the form's
 * action property): an action that is no URL of this origin is, and so
 * is a submit button's formaction, whichever button of the form it is.
 * A button joins a form from anywhere in the document by its form
 * attribute, and the first becomes the form's default button, which a
 * call submits with: markup the page shows must not send the page's form
 * elsewhere unseen.
 * @param {HTMLFormElement} form
 */
const outward = (form) => {
  try {
    if (away(actionOf.call(form), methodOf.call(form))) return true;
    for (const el of Array.from(elementsOf.call(form))) {
      const g = submitter[localName(el)];
      if (g && g[0].call(el) === 'submit' && hasAttr(el, 'formaction') && away(g[1].call(el), g[2].call(el))) return true;
    }
    return false;
  } catch {
    return true;
  }
};

/**
 * tools returns the handle webmcp.js calls: seen(form) when a form has a
 * toolname, removed() when nodes left the document or a shadow root.
 * vouched(form) says whether the page vouched for the form (veil.vouch).
 * @param {{prepare: Function, submit: Function, veil: EventTarget, withhold: (name: string, values: string[]) => Promise<void>, cancelled: (name: string) => void, vouched: (form: Element) => boolean}} runtime
 */
export const tools = ({ prepare, submit, veil, withhold, cancelled, vouched }) => {
  /** @type {Map<HTMLFormElement, {tool: Tool|null, observer: {disconnect: () => void}}>} */
  const forms = new Map();

  /**
   * joins says whether a change in a form's tree may add, change or remove
   * a control associated with a form by its form attribute: one that has
   * the attribute, or a node added or removed with one in it; or a change
   * of the form's id.
   * @param {HTMLFormElement} form
   * @param {MutationRecord} r
   */
  const joins = (form, r) => {
    const has = (n) => n instanceof Element && (hasAttr(n, 'form') || query(n, '[form]') !== null);
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

  /** sync registers what the form declares now, and unregisters what it declared before. */
  const sync = (form) => {
    const state = forms.get(form);
    if (!state) return;
    let tool = null;
    let error = null;
    try {
      tool = definition(form, vouched(form), outward(form));
    } catch (e) {
      error = e;
    }
    const key = error ? `error:${error.message}` : JSON.stringify(tool);
    if (state.tool?.key === key) return;
    if (state.tool) {
      // Chromium too ends a call whose tool changed under it while it
      // waited for its submission; one submitted already gets its answer.
      if (cancelUnsubmitted(form, 'the form tool changed while the call waited')) {
        // As when the caller aborts: the call is over, a task later.
        const { name } = state.tool;
        setTimeout(() => cancelled(name));
      }
      state.tool.controller.abort();
      state.tool = null;
    }
    if (!connected(form)) {
      state.observer.disconnect();
      forms.delete(form);
      return;
    }
    const name = attr(form, 'data-veil-toolname') ?? '';
    const controller = new AbortController();
    const { autosubmit = false, ...def } = tool ?? {};
    const registered = (state.tool = { key, name, autosubmit, controller });
    // Reported once: the form is tried again when it changes.
    if (error) return failed(form, name, error);
    if (!tool) return;
    const runtime = { current: () => forms.get(form)?.tool === registered, withhold };
    try {
      submit(prepare({ ...def, execute: (input, options) => execute(form, registered, input, options, runtime) }, { signal: controller.signal })).catch(
        (e) => controller.signal.aborted || failed(form, name, e),
      );
    } catch (e) {
      failed(form, name, e);
    }
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
        const root = rootNode(form);
        if (root !== form) outside.observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ['id', ...WATCHED] });
        const observer = { disconnect: () => (own.disconnect(), outside.disconnect()) };
        forms.set(form, { tool: null, observer });
      }
      sync(form);
    },
    removed() {
      for (const form of [...forms.keys()]) if (!connected(form)) sync(form);
    },
  };
};
