// The events the draft defines (ToolActivatedEvent, ToolCancelEvent) and
// on<type> event handler attributes.

import { str } from './util.js';
import { own, define } from './dom.js';

/** @param {string} name */
const eventClass = (name) => own(name) ?? define(name, {
    [name]: class extends Event {
      #toolName;
      constructor(type, init = {}) {
        super(type, init);
        this.#toolName = str(init.toolName ?? '');
      }
      get toolName() {
        return this.#toolName;
      }
    },
  }[name]);
/** The event classes, as start found or made them. */
export let ActivatedEvent, CancelEvent;
export const start = () => {
  ActivatedEvent = eventClass('ToolActivatedEvent');
  CancelEvent = eventClass('ToolCancelEvent');
};

/** @type {WeakMap<EventTarget, Record<string, Function|null>>} */
const handlers = new WeakMap();
/** Defines on<type> event handler attributes on proto. */
export const handlerAttributes = (proto, ...types) => {
  for (const type of types) {
    Object.defineProperty(proto, 'on' + type, {
      configurable: true,
      enumerable: true,
      get() {
        return handlers.get(this)?.[type] ?? null;
      },
      set(f) {
        let h = handlers.get(this);
        if (!h) handlers.set(this, (h = {}));
        if (!(type in h)) this.addEventListener(type, (e) => h[type]?.call(this, e));
        h[type] = typeof f === 'function' ? f : null;
      },
    });
  }
};
