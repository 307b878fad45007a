// The page-facing objects: document.modelContext and
// navigator.modelContext (one ModelContext), navigator.modelContextTesting,
// and the events they fire.

import { str, isObject, named } from './util.js';
import { registrations, live, prepare, submit, unregister, unregisterName } from './registry.js';
import { install } from './mirror.js';
import { run, abortSignal, parseInput } from './run.js';
import { frameTools, byName, executeInFrame, policy, policyNow } from './frames.js';
import { originOf, parseOrigins } from './origins.js';
import { handlerAttributes } from './events.js';
import { own, define } from './dom.js';
import { listing, listed } from './listing.js';

const KEY = Symbol();

/**
 * activeOnly throws unless mc is this document's ModelContext: a document
 * made by script (createHTMLDocument, DOMParser) has one of its own that
 * no agent reaches, so nothing can be registered or run through it. It
 * also throws where the permissions policy forbids WebMCP.
 */
const activeOnly = (mc) => {
  if (mc !== context) throw new DOMException('the ModelContext is not of the active document', 'InvalidStateError');
  // Where the "tools" permissions policy does not allow this document (a
  // cross-origin frame not allowed by its iframe), the API is off, as in
  // Chromium.
  if (policyNow()?.denied) throw new DOMException('the "tools" permissions policy does not allow WebMCP in this document', 'NotAllowedError');
};

/**
 * decided runs f at once when this document's policy is decided, else
 * once it is (a frame asks the frame above, which answers within a
 * second), so that a call made meanwhile is refused as the policy says.
 */
const decided = (mc, f) => {
  if (policyNow()) return f();
  return policy().then(() => (activeOnly(mc), f()));
};

/** executeTool is ModelContext's executeTool, once this document's policy is decided. */
const executeTool = (mc, tool, rest) => {
  try {
    activeOnly(mc);
    if (!policyNow()) return policy().then(() => executeTool(mc, tool, rest));
    if (!isObject(tool) || ['name', 'description', 'origin', 'window'].some((k) => tool[k] === undefined))
      throw new TypeError('executeTool: the tool must be a RegisteredTool (name, description, origin, window)');
    const name = str(tool.name);
    const origin = originOf(tool.origin);
    if (!origin) throw new DOMException(`executeTool: the origin of tool ${JSON.stringify(name)} is not a URL with an origin`, 'NotSupportedError');
    const input = rest[0] === undefined ? {} : rest[0];
    if (!isObject(input)) throw new TypeError('executeTool: the input must be an object');
    const json = JSON.stringify(input);
    if (json === undefined) throw new TypeError('executeTool: the input cannot be serialized');
    const signal = abortSignal(rest[1]?.signal);
    signal?.throwIfAborted();
    // Another frame's tool runs there, through that frame's engine.
    if (tool.window !== window) return executeInFrame(tool.window, origin, name, json, signal);
    if (origin !== location.origin) throw new DOMException(`executeTool: tool ${JSON.stringify(name)} is not this document's`, 'UnknownError');
    return run(name, json, signal);
  } catch (e) {
    return Promise.reject(e);
  }
};

class ModelContext extends EventTarget {
  constructor(key) {
    if (key !== KEY) throw new TypeError('Illegal constructor');
    super();
  }

  /** @returns {Promise<undefined>} */
  registerTool(tool, options = {}) {
    try {
      activeOnly(this);
      return decided(this, () => submit(prepare(tool, options)));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  async getTools(options = {}) {
    activeOnly(this);
    if (!policyNow()) await decided(this, () => {});
    // Other frames are asked at once, in parallel with this frame's own.
    const others = frameTools(parseOrigins('getTools', 'fromOrigins', options?.fromOrigins));
    await Promise.all([...registrations.values()].map((e) => e.settled));
    // Fresh copies, as Chromium gives: a caller that edits one must not
    // change what the next caller sees.
    const own = (await listed(live())).map((d) => ({ ...structuredClone(d), title: d.title ?? '', window, origin: location.origin }));
    return byName([...own, ...(await others)]);
  }

  /** @returns {Promise<string>} */
  executeTool(tool, ...rest) {
    // Not this.executeTool: the page may have replaced it.
    return executeTool(this, tool, rest);
  }

  // The 2025 API.
  provideContext(context = {}) {
    activeOnly(this);
    this.clearContext();
    for (const t of context?.tools ?? []) submit(prepare(t)).catch((e) => console.error('veil: provideContext:', e));
  }

  clearContext() {
    activeOnly(this);
    registrations.forEach((e) => unregister(e));
  }

  unregisterTool(name) {
    activeOnly(this);
    unregisterName(str(name));
  }
}
named(ModelContext, 'ModelContext');
handlerAttributes(ModelContext.prototype, 'toolchange', 'toolactivated', 'toolcancel');

class ModelContextTesting extends EventTarget {
  constructor(key) {
    if (key !== KEY) throw new TypeError('Illegal constructor');
    super();
  }

  listTools() {
    // Synchronous: what the engine last answered for the session's set
    // as it is, or bare until it has (listing.js).
    return live()
      .map(listing)
      .filter((d) => d !== null)
      .map((d) => ({
        name: d.name,
        description: d.description,
        inputSchema: JSON.stringify(d.inputSchema),
        annotations: structuredClone(d.annotations),
      }));
  }

  /** @returns {Promise<string|null>} */
  executeTool(name, inputJson, options = {}) {
    try {
      const signal = abortSignal(options?.signal);
      signal?.throwIfAborted();
      return run(str(name), parseInput(inputJson), signal);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  registerToolsChangedCallback(callback) {
    testingCallback = typeof callback === 'function' ? callback : null;
  }
}
named(ModelContextTesting, 'ModelContextTesting');
handlerAttributes(ModelContextTesting.prototype, 'toolchange');

export const context = new ModelContext(KEY);
export const testing = new ModelContextTesting(KEY);

/**
 * fire dispatches a tool's toolactivated or toolcancel at the
 * ModelContext of the tool's document, then at its window, as the draft
 * has it: a page may listen on either.
 */
export const fire = (Class, type, toolName) => {
  context.dispatchEvent(new Class(type, { toolName }));
  window.dispatchEvent(new Class(type, { toolName }));
};

let testingCallback = null;
/** changed tells the page, a task later, that the tools changed. */
export const changed = () =>
  setTimeout(() => {
    context.dispatchEvent(new Event('toolchange'));
    testing.dispatchEvent(new Event('toolchange'));
    try {
      testingCallback?.();
    } catch (e) {
      reportError(e);
    }
  });

/**

/** The ModelContexts of the documents script makes, one each. */
const made = new WeakMap();
const contextOf = (doc) => {
  if (!(doc instanceof Document)) throw new TypeError('Illegal invocation');
  let mc = made.get(doc);
  if (!mc) made.set(doc, (mc = new ModelContext(KEY)));
  return mc;
};
/** start puts the objects in front of any native ones. */
export const start = () => {
  install(Document.prototype, document, 'modelContext', context, contextOf);
  install(Navigator.prototype, navigator, 'modelContext', context);
  install(Navigator.prototype, navigator, 'modelContextTesting', testing);
  own('ModelContext') ?? define('ModelContext', ModelContext);
};
