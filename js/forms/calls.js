// An agent's call of a form tool, from the fill to its answer: the call
// that waits for each form's submission, which submit event answers which
// call, and ending a call with the submission's answer once the engine
// has what the answer must not give the agent. This module owns that
// state; the others reach it through the functions below.

import { defaultButton, fill } from './controls.js';
import { note } from './note.js';
import { checkValidity, connected, off, on, removeAttr, requestSubmit, setAttr } from '../webmcp/dom.js';

/**
 * @typedef {object} Call   one agent's call, from the fill to its answer
 * @property {HTMLFormElement} form
 * @property {string} name
 * @property {Record<string, any>} input  the agent's arguments
 * @property {Set<string>} values  what the answer must not give the agent (note)
 * @property {(name: string, values: string[]) => Promise<void>} withhold  hands the engine what the answer must not give the agent
 * @property {(ok: boolean, v: any) => void} end
 * @property {boolean} dispatching  our own requestSubmit is dispatching submit
 * @property {SubmitEvent} [event]   the submission the call took as its answer
 * @property {{value: any}} [response]  what respondWith was given, last
 * @property {boolean} [submitted]   form.submit() ran while the call waited
 */

/** The call waiting for each form's submission. @type {WeakMap<HTMLFormElement, Call>} */
const waiting = new WeakMap();
/** Which call each agent's submit event answers. @type {WeakMap<Event, Call>} */
const claims = new WeakMap();

/** waitingFor is the call waiting for a form's submission, if any. @returns {Call|undefined} */
export const waitingFor = (form) => waiting.get(form);

/** cancel ends the form's waiting call, if any, with an error. */
export const cancel = (form, why) => waiting.get(form)?.end(false, new DOMException(why, 'AbortError'));

/**
 * cancelUnsubmitted is cancel for a form whose tool changed or left: a
 * call whose submission came already ends with its answer, as a call of
 * any tool outlives the tool's unregistration once it has started its
 * work; one still waiting for its submission is cancelled. It reports
 * whether it cancelled one.
 */
export const cancelUnsubmitted = (form, why) => {
  const call = waiting.get(form);
  if (!call || call.event || call.submitted) return false;
  cancel(form, why);
  return true;
};

/**
 * execute runs the form's tool for one call the engine allowed: it fills
 * the form, then submits it (when the tool was registered with
 * toolautosubmit, as the engine decided it) or waits for the user, and
 * resolves with the submission's answer.
 * @param {HTMLFormElement} form
 * @param {import('./tools.js').Tool} tool
 * @param {Record<string, any>} input
 * @param {{signal: AbortSignal}} options
 * @param {{current: () => boolean, withhold: Call['withhold']}} runtime  current says whether tool is still the form's
 */
export const execute = (form, tool, input, { signal }, { current, withhold }) => {
  if (!current() || !connected(form)) throw new DOMException('the form tool is gone', 'AbortError');
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
      withhold,
      dispatching: false,
      end(ok, v) {
        if (waiting.get(form) !== call) return;
        waiting.delete(form);
        removeAttr(form, 'data-veil-tool-form-active');
        button?.removeAttribute('data-veil-tool-submit-active');
        off(form, 'reset', onReset);
        off(form, 'submit', claim, true);
        signal.removeEventListener('abort', onAbort);
        ok ? resolve(v) : reject(v);
      },
    };
    const onReset = () => call.end(false, new DOMException('the form was reset', 'AbortError'));
    const onAbort = () => call.end(false, signal.reason);
    waiting.set(form, call);
    on(form, 'reset', onReset);
    // On the form itself: a submit event does not leave a shadow root.
    on(form, 'submit', claim, true);
    signal.addEventListener('abort', onAbort, { once: true });
    setAttr(form, 'data-veil-tool-form-active', '');
    button?.setAttribute('data-veil-tool-submit-active', '');
    fill(form, input);
    if (waiting.get(form) !== call) return; // a listener ended it
    if (!auto) {
      button?.focus();
      return;
    }
    if (!checkValidity(form)) {
      console.warn('veil: a form tool\'s form is not valid once filled, so it was not submitted');
      return call.end(false, new DOMException('the form is not valid', 'NotSupportedError'));
    }
    call.dispatching = true;
    try {
      requestSubmit(form, button);
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
  call.withhold(call.name, [...call.values]).then(() => call.end(true, v), withheld);
};

/**
 * answer ends a call once its submit event has been dispatched: with
 * what respondWith was given, with null when the form went ahead with
 * its own submission (as Chromium answers), or with an error when the
 * page cancelled the submission and gave no answer.
 * @param {Call} call
 */
export const answer = (call) => {
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
export const claim = (e) => {
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
