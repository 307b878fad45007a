// The DOM's prototypes as webmcp/dom.js takes them, for node --test:
// each getter and method it takes calls the stand-in's own member of that
// name, so that a plain object that answers as an element does (its
// getAttribute, its elements) is read through dom.js as the browser's
// would be. Import it before any module that imports dom.js.

/** The stand-in's own member key, as the DOM's getter or method would answer it. */
const ownMember = (target, key) => {
  const d = Object.getOwnPropertyDescriptor(target, key);
  if (!d) throw new TypeError(`the stand-in has no ${key}`);
  return d.get ? d.get.call(target) : d.value;
};

/** A prototype whose getters and methods read the stand-in's own members. */
const proto = (getters, methods) => {
  const p = {};
  for (const key of getters) Object.defineProperty(p, key, { get() { return ownMember(this, key); } });
  for (const key of methods) p[key] = function (...args) { return ownMember(this, key).apply(this, args); };
  return p;
};

/** An interface object whose prototype is p. */
const iface = (p) => Object.assign(function () {}, { prototype: p });

const query = ['querySelector', 'querySelectorAll'];
for (const [name, p] of Object.entries({
  EventTarget: proto([], ['addEventListener', 'removeEventListener']),
  Node: proto(['baseURI', 'nodeType', 'isConnected', 'ownerDocument'], ['getRootNode', 'appendChild']),
  Document: proto(['currentScript', 'head', 'body', 'documentElement', 'readyState', 'URL', 'defaultView', 'hidden'], ['createElement', ...query]),
  DocumentFragment: proto([], query),
  Element: proto(['localName', 'shadowRoot'], ['getAttribute', 'hasAttribute', 'setAttribute', 'removeAttribute', 'matches', ...query]),
  HTMLFormElement: proto(['elements'], ['checkValidity', 'requestSubmit']),
})) {
  if (!Object.hasOwn(globalThis, name)) Object.defineProperty(globalThis, name, { value: iface(p), configurable: true, writable: true });
}
