// The page as the runtime reads it: the getters and methods of the DOM's
// prototypes, taken when the script starts and called on the object
// they read. Markup shadows names: <img name="head"> is document.head,
// <form id="veil"> is globalThis.veil, <input name="getAttribute"> is
// that form's getAttribute. No name the runtime looks up on document, on
// a form or on the global object is one an element can take, and a
// global the runtime may have defined is found with Object.hasOwn, which
// a named element (never an own property of the window) does not pass.
// js/reads.go lists every name this covers; the browser suite plants an
// element by each.

const { call } = Function.prototype;
/** f, as a function of its receiver and its arguments. */
const fn = (f) => call.bind(f);
const get = (proto, key) => fn(/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(proto, key)).get);
const D = Document.prototype;
const E = Element.prototype;
const N = Node.prototype;

/** A document's currentScript: the script running, not an element named currentScript. */
export const currentScript = /* @__PURE__ */ get(D, 'currentScript');
/** A document's head element. */
export const head = /* @__PURE__ */ get(D, 'head');
/** A document's body element. */
export const body = /* @__PURE__ */ get(D, 'body');
/** A document's documentElement. */
export const root = /* @__PURE__ */ get(D, 'documentElement');
/** A document's readyState. */
export const readyState = /* @__PURE__ */ get(D, 'readyState');
/** A node's base URL: its document's baseURI. */
export const baseURI = /* @__PURE__ */ get(N, 'baseURI');
/** A document's URL. */
export const docURL = /* @__PURE__ */ get(D, 'URL');
/** A document's window. */
export const defaultView = /* @__PURE__ */ get(D, 'defaultView');
/** Whether a document is hidden. */
export const hidden = /* @__PURE__ */ get(D, 'hidden');
/**
 * Creates an element in a document.
 * @type {(doc: Document, tag: string) => any}
 */
export const create = /* @__PURE__ */ fn(D.createElement);
/** A node's nodeType. */
export const nodeType = /* @__PURE__ */ get(N, 'nodeType');
/** Whether a node is in a document. */
export const connected = /* @__PURE__ */ get(N, 'isConnected');
/** A node's document. */
export const ownerDocument = /* @__PURE__ */ get(N, 'ownerDocument');
/**
 * A node's root: its document, or its shadow root.
 * @type {(node: Node) => Node}
 */
export const rootNode = /* @__PURE__ */ fn(N.getRootNode);
/**
 * Appends a child to a node.
 * @type {(parent: Node, child: Node) => Node}
 */
export const append = /* @__PURE__ */ fn(N.appendChild);
/** An element's local name: a form's, whatever its controls are named. */
export const localName = /* @__PURE__ */ get(E, 'localName');
/** An element's open shadow root. */
export const shadowRoot = /* @__PURE__ */ get(E, 'shadowRoot');
/**
 * An element's attribute.
 * @type {(el: any, name: string) => string | null}
 */
export const attr = /* @__PURE__ */ fn(E.getAttribute);
/**
 * Whether an element has an attribute.
 * @type {(el: any, name: string) => boolean}
 */
export const hasAttr = /* @__PURE__ */ fn(E.hasAttribute);
/**
 * Sets an element's attribute.
 * @type {(el: any, name: string, value: string) => void}
 */
export const setAttr = /* @__PURE__ */ fn(E.setAttribute);
/**
 * Removes an element's attribute.
 * @type {(el: any, name: string) => void}
 */
export const removeAttr = /* @__PURE__ */ fn(E.removeAttribute);
/**
 * Whether an element matches selectors.
 * @type {(el: any, selectors: string) => boolean}
 */
export const matches = /* @__PURE__ */ fn(E.matches);
/**
 * Adds an event listener to a target: a document's addEventListener, not an element by that name.
 * @type {(target: EventTarget, type: string, listener: any, options?: any) => void}
 */
export const on = /* @__PURE__ */ fn(EventTarget.prototype.addEventListener);
/**
 * Removes an event listener from a target.
 * @type {(target: EventTarget, type: string, listener: any, options?: any) => void}
 */
export const off = /* @__PURE__ */ fn(EventTarget.prototype.removeEventListener);

const F = HTMLFormElement.prototype;
/**
 * A form's controls: its elements, not a control named elements.
 * @type {(form: HTMLFormElement) => HTMLFormControlsCollection}
 */
export const formElements = /* @__PURE__ */ get(F, 'elements');
/**
 * Whether a form's controls are valid, as its checkValidity says; fires invalid events.
 * @type {(form: HTMLFormElement) => boolean}
 */
export const checkValidity = /* @__PURE__ */ fn(F.checkValidity);
/**
 * Submits a form as its submitter does.
 * @type {(form: HTMLFormElement, submitter?: HTMLElement | null) => void}
 */
export const requestSubmit = /* @__PURE__ */ fn(F.requestSubmit);

/** The same method of Document, DocumentFragment (a shadow root) and Element, each called on its own kind of node. */
const perKind = (key) => {
  const [d, f, e] = [D, DocumentFragment.prototype, E].map((p) => fn(p[key]));
  return (node, ...args) => {
    const t = nodeType(node);
    return (t === 9 ? d : t === 11 ? f : e)(node, ...args);
  };
};
/**
 * The first element under a document, shadow root or element that matches selectors.
 * @type {(node: Node, selectors: string) => Element | null}
 */
export const query = perKind('querySelector');
/**
 * The elements under a document, shadow root or element that match selectors.
 * @type {(node: Node, selectors: string) => NodeListOf<any>}
 */
export const queryAll = perKind('querySelectorAll');

/** own reads the global object's own property key: what the page or the runtime defined, never a named element. */
export const own = (key) => (Object.hasOwn(globalThis, key) ? globalThis[key] : undefined);
/** define makes key the global object's own property, as an interface object is: what a named element stood for is shadowed. */
export const define = (key, value) => (Object.defineProperty(globalThis, key, { value, writable: true, configurable: true }), value);
