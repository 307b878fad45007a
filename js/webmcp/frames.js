// Frames.
//
// Tools across the frames of one page: registerTool's exposedTo,
// getTools({fromOrigins}) and executeTool on another frame's tool. Every
// frame runs its own Veil and its own engine, and the frame that
// registered a tool is the one that runs it: a call from another frame
// goes through this frame's run(), so the caller receives the agent view
// and nothing else, and what was withheld stays in this frame's vault and
// tray.
//
// Frames talk over postMessage. A request to another window is tagged
// (FRAMES), goes to one exact origin (never "*": the browser drops it when
// the window is at another origin) and carries a MessagePort of its own,
// on which alone the answer comes: no answer passes through a window,
// where page code could read it or forge one. The answering frame checks
// event.source (a window of this page, not itself) and event.origin (its
// own origin, or one the tool is exposed to) on every request. A frame
// that may not see a tool gets no answer at all, so it cannot tell a
// hidden tool from no tool, no Veil or another origin.
//
// Same-origin frames are one trust domain. Cross-origin frames take part
// only where the browser knows the "tools" permissions policy and it
// allows this document; elsewhere cross-origin is off (it fails closed),
// and a frame takes part only in a chain of same-origin frames from the top.

import { str, isObject, toError, messageOf } from './util.js';
import { registrations, live } from './registry.js';
import { context } from './context.js';
import { run, parseInput } from './run.js';
import { mirrored } from './mirror.js';

const FRAMES = 'dev.veil/frames';
/** How long a frame waits for another that may never answer. */
const FRAME_WAIT = 1000;
/** Marks a window whose Veil answers frames: a same-origin window is asked only when it has one. */
export const MARK = Symbol.for(FRAMES);
/** The error names a call in another frame may end with; any other is UnknownError. */
const FRAME_ERRORS = ['DataError', 'UnknownError', 'OperationError', 'TimeoutError', 'NotFoundError', 'InvalidStateError', 'NotAllowedError', 'TypeError'];

/** reachable says whether this frame can reach w's document: w is same-origin. */
export const reachable = (w) => {
  try {
    return w.document !== undefined;
  } catch {
    return false;
  }
};
/** ofThisPage says whether w is another window of this page's frame tree. */
const ofThisPage = (w) => {
  try {
    return w != null && w !== window && w.window === w && w.top === top;
  } catch {
    return false;
  }
};
const permissions = document.permissionsPolicy ?? document.featurePolicy;
/** Whether the browser knows the "tools" feature. */
export const policyKnown = (() => {
  try {
    return permissions.features().includes('tools');
  } catch {
    return false;
  }
})();
/** Whether this document may use tools across frames. */
export const allowed = (() => {
  try {
    if (policyKnown) return permissions.allowsFeature('tools');
    for (let w = window; w !== top; w = w.parent) if (!reachable(w.parent)) return false;
    return true;
  } catch {
    return false;
  }
})();
const crossOrigin = policyKnown && allowed;

/**
 * containerAllows asks the iframe element of w, when this frame can reach
 * it, whether the "tools" policy allows origin there; an embedder out of
 * reach leaves it to w's own Veil.
 */
const containerAllows = (w, origin) => {
  try {
    const p = w.parent;
    if (p === w || !reachable(p)) return true;
    for (const el of p.document.querySelectorAll('iframe, frame'))
      if (el.contentWindow === w) {
        const policy = el.permissionsPolicy ?? el.featurePolicy;
        return policy ? policy.allowsFeature('tools', origin) : true;
      }
    return true;
  } catch {
    return false;
  }
};

/** visible says whether a registration of this frame may be seen from origin. */
const visible = (entry, origin) => origin === location.origin || (crossOrigin && entry.exposedTo.includes(origin));

/** pageWindows lists the windows of this page, from the top down, but this one. */
const pageWindows = () => {
  const out = [];
  const visit = (w) => {
    if (w !== window) out.push(w);
    let n = 0;
    try {
      n = w.length;
    } catch {}
    for (let i = 0; i < n; i++)
      try {
        visit(w[i]);
      } catch {}
  };
  visit(top);
  return out;
};

const tagged = (type, rest = {}) => ({ [FRAMES]: 1, type, ...rest });
/** post sends a message to w, delivered only if w is at origin. */
const post = (w, origin, message, transfer = []) => {
  try {
    w.postMessage(message, origin, transfer);
    return true;
  } catch {
    return false;
  }
};

/**
 * whoToAsk calls f(w, origin) for each window this frame may ask or tell,
 * at each origin it may be at: same-origin windows with a Veil at this
 * origin, every other window at each of origins.
 */
const whoToAsk = (origins, f) => {
  for (const w of pageWindows()) {
    if (reachable(w)) {
      if (w[MARK]) f(w, location.origin);
      continue;
    }
    if (crossOrigin) for (const o of origins) if (o !== location.origin) f(w, o);
  }
};

/** askFrame sends one request with a port of its own, and resolves with the first answer, or undefined. */
const askFrame = (w, origin, message) =>
  new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    const done = (v) => {
      clearTimeout(timer);
      port1.onmessage = null;
      port1.close();
      resolve(v);
    };
    const timer = setTimeout(done, FRAME_WAIT);
    port1.onmessage = (e) => done(e.data);
    if (!post(w, origin, message, [port2])) done(undefined);
  });

/**
 * frameTools asks the other frames of the page for the tools they expose
 * to this document: same-origin frames always, cross-origin ones at the
 * origins the caller named.
 * @param {string[]} fromOrigins
 * @returns {Promise<RegisteredTool[]>}
 */
export const frameTools = (fromOrigins) => {
  if (!allowed) return Promise.resolve([]);
  const asks = [];
  whoToAsk(fromOrigins, (w, origin) =>
    asks.push(
      askFrame(w, origin, tagged('list')).then((msg) =>
        (Array.isArray(msg?.tools) ? msg.tools : [])
          .filter((t) => isObject(t) && typeof t.name === 'string' && typeof t.description === 'string')
          .map((t) => ({ ...t, title: typeof t.title === 'string' ? t.title : '', window: w, origin })),
      ),
    ),
  );
  return Promise.all(asks).then((lists) => lists.flat());
};

/** byName sorts tools by name, in code unit order, as the draft does. */
export const byName = (tools) => tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/** notifyFrames tells every frame that may see the registration that the tools changed; it names nothing. */
export const notifyFrames = (entry) => {
  if (!allowed) return;
  whoToAsk(entry.exposedTo, (w, origin) => (origin === location.origin || containerAllows(w, origin)) && post(w, origin, tagged('change')));
};

/** Calls this document made into other frames, and calls other frames made into it: how to end each. */
const outgoing = new Set();
const incoming = new Set();

/**
 * executeInFrame runs another frame's tool there. That frame's engine
 * decides the call and makes its agent view; this frame receives only
 * that string. Aborting signal rejects at once and aborts the call there.
 */
export const executeInFrame = (w, origin, name, json, signal) =>
  new Promise((resolve, reject) => {
    const unavailable = () => new DOMException(`executeTool: tool ${JSON.stringify(name)} is not available to this document`, 'UnknownError');
    const same = origin === location.origin;
    if (!allowed || !ofThisPage(w) || reachable(w) !== same || (same ? !w[MARK] : !crossOrigin)) return reject(unavailable());
    const { port1, port2 } = new MessageChannel();
    let accepted = false;
    const end = () => {
      clearTimeout(timer);
      clearInterval(watch);
      signal?.removeEventListener('abort', onAbort);
      outgoing.delete(drop);
      port1.onmessage = null;
      port1.close();
    };
    const fail = (e) => (end(), reject(e));
    const drop = () => (port1.postMessage({ type: 'abort' }), fail(unavailable()));
    const onAbort = () => (port1.postMessage({ type: 'abort' }), fail(signal.reason));
    // Nothing comes back from a frame that may not see the tool.
    const timer = setTimeout(() => fail(unavailable()), FRAME_WAIT);
    // Nor from a frame that was removed during the call.
    const watch = setInterval(() => w.closed && fail(unavailable()), FRAME_WAIT);
    signal?.addEventListener('abort', onAbort, { once: true });
    outgoing.add(drop);
    port1.onmessage = ({ data: msg }) => {
      if (msg?.type === 'accepted' && !accepted) {
        accepted = true;
        return clearTimeout(timer);
      }
      if (msg?.type === 'result' && accepted && typeof msg.value === 'string') return end(), resolve(msg.value);
      if (msg?.type === 'error' && FRAME_ERRORS.includes(msg.name) && typeof msg.message === 'string') return fail(toError(msg));
      fail(unavailable());
    };
    if (!post(w, origin, tagged('call', { name, input: json }), [port2])) fail(unavailable());
  });

/** errorData is what a call's caller in another frame learns of how it failed. */
const errorData = (e) =>
  (e instanceof DOMException || e instanceof TypeError) && FRAME_ERRORS.includes(e.name)
    ? { type: 'error', name: e.name, message: messageOf(e) }
    : { type: 'error', name: 'UnknownError', message: 'the tool failed in its frame' };

/** answerCall runs a call another frame made, through run(), and answers with its agent view. */
const answerCall = (port, origin, same, { name, input }) => {
  const regs = typeof name === 'string' ? [...registrations.values()].filter((e) => e.name === name && !e.gone) : [];
  // Every registration of the name, pending ones too, must be visible, so
  // that one replaced meanwhile is not run for a caller it hides from.
  if (typeof input !== 'string' || !regs.some((e) => e.live) || !regs.every((e) => visible(e, origin))) {
    // A same-origin caller hears that the call failed; any other hears nothing.
    if (same) port.postMessage({ type: 'error', name: 'UnknownError', message: `tool ${JSON.stringify(str(name))} is not registered in its frame` });
    return port.close();
  }
  const controller = new AbortController();
  const end = () => {
    incoming.delete(drop);
    port.onmessage = null;
    port.close();
  };
  const drop = () => (port.postMessage(errorData(null)), controller.abort(), end());
  incoming.add(drop);
  port.onmessage = ({ data }) => data?.type === 'abort' && (controller.abort(), end());
  port.postMessage({ type: 'accepted' });
  let json;
  try {
    json = parseInput(input);
  } catch (e) {
    return port.postMessage(errorData(e)), end();
  }
  run(name, json, controller.signal)
    .then(
      (value) => controller.signal.aborted || port.postMessage({ type: 'result', value }),
      (e) => controller.signal.aborted || port.postMessage(errorData(e)),
    )
    .finally(end);
};

/** start answers the other frames of the page, from start-up. */
export const start = () => {
  // Live from start-up, so that a frame is never asked before it listens.
  // It also tells another frame's sweep which native tools here are this
  // Veil's mirrors (Nothing around the engine).
  Object.defineProperty(window, MARK, { value: Object.freeze({ mirrored: (name, since) => mirrored(str(name), Number(since)) }) });
  addEventListener('message', (e) => {
    const msg = e.data;
    // isTrusted: a MessageEvent page script made can name any origin and source.
    if (!e.isTrusted || !isObject(msg) || msg[FRAMES] !== 1 || !ofThisPage(e.source)) return;
    const { origin } = e;
    const same = origin === location.origin;
    if (!same && !(crossOrigin && containerAllows(e.source, origin))) return;
    if (msg.type === 'change') {
      if (allowed) context.dispatchEvent(new Event('toolchange'));
      return;
    }
    const port = e.ports[0];
    if (!port) return;
    if (msg.type === 'list') {
      const tools = allowed ? live().filter((entry) => visible(entry, origin)).map((entry) => entry.def) : [];
      if (tools.length || same) port.postMessage({ tools });
    } else if (msg.type === 'call' && allowed) return answerCall(port, origin, same, msg);
    else if (same) port.postMessage({ type: 'error', name: 'UnknownError', message: 'tools are not allowed in this frame' });
    port.close();
  });
  // A document that goes ends its calls: those it made, and those made into it.
  addEventListener('pagehide', () => [...incoming, ...outgoing].forEach((f) => f()));
};
