// What a tool list may carry of a definition once the session withheld
// something: the definition less every string that holds a withheld
// value. Plain functions of data, with nothing of the page: they run under
// Node's test runner as they run in the page. listing.js asks the engine
// which strings hold one.

/**
 * Holds says whether a string of the definition holds a withheld value.
 * kind is "name" for what a tool is called by and filled through (the
 * tool's name, a property's name, a required name), "text" for the rest.
 * @typedef {(s: string, kind: 'name' | 'text') => boolean} Holds
 */

/** Schema keywords whose members are subschemas by name. */
const BY_NAME = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Schema keywords whose value is a subschema (or, for items, a list of them). */
const ONE = new Set(['items', 'additionalItems', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema']);
/** Schema keywords whose value is a list of subschemas: of anyOf and oneOf, each is a choice. */
const LIST = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
/** What is left out. */
const GONE = Symbol('gone');

const isPlain = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
/** textOf is what the engine is asked about a JSON value: a string as it is, anything else as JSON. */
const textOf = (v) => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * value sifts any JSON value: a string or number that holds a withheld
 * value is left out, and so is an array's item or an object's member
 * that holds one (in its name, or anywhere in it).
 * @param {any} v
 * @param {Holds} holds
 */
const value = (v, holds) => {
  if (typeof v === 'string' || typeof v === 'number') return holds(textOf(v), 'text') ? GONE : v;
  if (Array.isArray(v)) {
    const out = [];
    for (const x of v) {
      const y = value(x, holds);
      if (y !== GONE) out.push(y);
    }
    return out;
  }
  if (isPlain(v)) {
    /** @type {Record<string, any>} */
    const out = {};
    for (const [k, x] of Object.entries(v)) {
      if (holds(k, 'name')) continue;
      const y = value(x, holds);
      if (y !== GONE) out[k] = y;
    }
    return out;
  }
  return v;
};

/**
 * schema sifts a JSON Schema: a property whose name holds a withheld
 * value is left out (and from required), and so is an enum value, an
 * example, a default, a title, a description or any other string that
 * holds one; a choice of anyOf or oneOf whose const holds one is left out
 * whole, with its title, and a list of choices left empty goes. type is
 * JSON's vocabulary, never a value, and stays.
 * @param {any} s
 * @param {Holds} holds
 * @param {boolean} choice  s is a choice of anyOf or oneOf
 */
const schema = (s, holds, choice = false) => {
  if (!isPlain(s)) return s;
  /** @type {Record<string, any>} */
  const out = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'type') out[k] = v;
    else if (BY_NAME.has(k) && isPlain(v)) {
      /** @type {Record<string, any>} */
      const m = {};
      for (const [name, sub] of Object.entries(v)) if (!holds(name, 'name')) m[name] = schema(sub, holds);
      out[k] = m;
    } else if (k === 'required' && Array.isArray(v)) out[k] = v.filter((n) => typeof n !== 'string' || !holds(n, 'name'));
    else if (ONE.has(k) && (isPlain(v) || (k === 'items' && Array.isArray(v)))) out[k] = Array.isArray(v) ? v.map((x) => schema(x, holds)) : schema(v, holds);
    else if (LIST.has(k) && Array.isArray(v)) {
      const either = k === 'anyOf' || k === 'oneOf';
      const list = v.map((x) => schema(x, holds, either)).filter((x) => x !== GONE);
      // An empty anyOf is no schema at all; the enum beside it says that nothing is offered.
      if (list.length || !either) out[k] = list;
    } else if (k === 'const') {
      if (!holds(textOf(v), 'text')) out[k] = v;
      else if (choice) return GONE;
    } else if (k === 'enum' && Array.isArray(v)) out[k] = v.filter((x) => !holds(textOf(x), 'text'));
    else if (k === 'default') {
      if (!holds(textOf(v), 'text')) out[k] = v;
    } else {
      const y = value(v, holds);
      if (y !== GONE) out[k] = y;
    }
  }
  return out;
};

/**
 * sift returns what a tool list may carry of the definition def, given
 * holds: null when the tool's name holds a withheld value (the tool is not
 * listed), else a copy of def less what holds one: its title and
 * description are emptied, and the rest left out, in its input and output schemas (schema above), its
 * annotations and its _meta.
 * @param {Record<string, any>} def  a normalized definition, as the engine answered register
 * @param {Holds} holds
 * @returns {Record<string, any> | null}
 */
export const sift = (def, holds) => {
  if (typeof def.name === 'string' && holds(def.name, 'name')) return null;
  /** @type {Record<string, any>} */
  const out = {};
  for (const [k, v] of Object.entries(def)) {
    if (k === 'name') out[k] = v;
    // Empty rather than absent: the draft's tool has a description, and a title in getTools.
    else if ((k === 'description' || k === 'title') && typeof v === 'string') out[k] = holds(v, 'text') ? '' : v;
    else if (k === 'inputSchema' || k === 'outputSchema') out[k] = schema(v, holds);
    else {
      const y = value(v, holds);
      if (y !== GONE) out[k] = y;
    }
  }
  return out;
};

/**
 * strings lists every string sift would ask holds about, each once.
 * @param {Record<string, any>[]} defs
 * @returns {string[]}
 */
export const strings = (defs) => {
  const seen = new Set();
  for (const d of defs) sift(d, (s) => (seen.add(s), false));
  return [...seen];
};

/**
 * bare is what a tool list carries of def when the engine cannot say what
 * the session withheld (its set is full or was lost, or it did not
 * answer): its names and types, and none of the strings or numbers a
 * page's content could have put in it (no option, title, description,
 * default or pattern).
 * @param {Record<string, any>} def
 */
export const bare = (def) => /** @type {Record<string, any>} */ (sift(def, (_, kind) => kind === 'text'));
