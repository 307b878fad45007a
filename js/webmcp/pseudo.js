// The declarative explainer's :tool-form-active and :tool-submit-active
// in the page's own selector queries. Script cannot make a pseudo-class:
// Veil marks the form a call waits on with data-veil-tool-form-active and
// its default button with data-veil-tool-submit-active (js/forms), and a
// selector that names one of the two, outside a quoted string, is read
// with the attribute in its place, so form.matches(':tool-form-active')
// answers as the draft has it: in Chromium as shipped, which refuses the
// selector, and in front of Chromium's own WebMCP, whose pseudo-class
// never matches a form Veil runs. Any other selector is the browser's
// alone; stylesheets are not touched (style the attributes).

const PSEUDO = /("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(?<!\\):tool-(form|submit)-active(?![\w-])/g;

/** rewritten is selectors with each pseudo-class an attribute selector, or selectors itself when it names none. */
export const rewritten = (selectors) => selectors.replace(PSEUDO, (m, quoted, kind) => quoted ?? `[data-veil-tool-${kind}-active]`);

/** wrap replaces proto's method key with one that reads the pseudo-classes. */
const wrap = (proto, key) => {
  const native = proto[key];
  const { call } = Function.prototype;
  const method = {
    [key](selectors, ...rest) {
      // Only a string is read here: anything else is the browser's to convert, once.
      return call.call(native, this, typeof selectors === 'string' && selectors.includes(':tool-') ? rewritten(selectors) : selectors, ...rest);
    },
  }[key];
  Object.defineProperty(method, 'length', { value: native.length });
  Object.defineProperty(proto, key, { ...Object.getOwnPropertyDescriptor(proto, key), value: method });
};

/** start makes the page's selector queries know the two pseudo-classes. */
export const start = () => {
  for (const key of ['matches', 'closest', 'querySelector', 'querySelectorAll']) wrap(Element.prototype, key);
  for (const proto of [Document.prototype, DocumentFragment.prototype]) for (const key of ['querySelector', 'querySelectorAll']) wrap(proto, key);
};
