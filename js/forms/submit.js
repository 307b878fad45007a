// The page's side of an agent's submission: SubmitEvent's agentInvoked and
// respondWith, and HTMLFormElement's submit(), which also ends the call a
// form's submission answers.

import { waitingFor, claim, answer } from './calls.js';
import { note } from './note.js';

/** install puts agentInvoked and respondWith on SubmitEvent, and wraps form.submit(). */
export const install = () => {
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
    const call = waitingFor(this);
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
};
