// This frame asking the others: the tools they expose to it, and calls of
// those tools, which run there.

import { str, isObject, toError } from '../webmcp/util.js';
import { MARK, reachable, ask } from '../webmcp/frametag.js';
import { page } from './page.js';
import { ofThisPage, containerAllows, tagged, post, whoToAsk } from './windows.js';
import { FRAME_ERRORS } from './answer.js';

/** Calls this document made into other frames: how to end each. */
export const outgoing = new Set();

/** askFrame sends one request with a port of its own, and resolves with the first answer, or undefined. */
const askFrame = (w, origin, message) => ask((port) => post(w, origin, message, [port]), page.wait);

/**
 * frameTools asks the other frames of the page for the tools they expose
 * to this document: same-origin frames always, cross-origin ones at the
 * origins the caller named.
 * @param {string[]} fromOrigins
 */
export const frameTools = (fromOrigins) => {
  if (!page.allowed) return Promise.resolve([]);
  const asks = [];
  // A frame the policy leaves out is not asked: its answer would be its embedder's word alone (containerAllows).
  whoToAsk(fromOrigins, (w, origin) =>
    (origin === location.origin || containerAllows(w, origin)) &&
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

/** notifyFrames tells every frame that may see the registration that the tools changed; it names nothing. */
export const notifyFrames = (entry) => {
  if (!page.allowed) return;
  whoToAsk(entry.exposedTo, (w, origin) => (origin === location.origin || containerAllows(w, origin)) && post(w, origin, tagged('change')));
};

/**
 * executeInFrame runs another frame's tool there. That frame's engine
 * decides the call and makes its agent view; this frame receives only
 * that string. Aborting signal rejects at once and aborts the call there.
 */
export const executeInFrame = (w, origin, name, json, signal) =>
  new Promise((resolve, reject) => {
    const unavailable = () => new DOMException(`executeTool: tool ${JSON.stringify(str(name))} is not available to this document`, 'UnknownError');
    const same = origin === location.origin;
    if (!page.allowed || !ofThisPage(w) || reachable(w) !== same || (same ? !w[MARK] : !(page.crossOrigin && containerAllows(w, origin)))) return reject(unavailable());
    if (signal?.aborted) return reject(signal.reason);
    const { port1, port2 } = new MessageChannel();
    let accepted = false;
    const end = () => {
      clearTimeout(timer);
      clearInterval(watch);
      signal?.removeEventListener('abort', onAbort);
      outgoing.delete(drop);
      port1.onmessage = null;
      port1.removeEventListener('close', onClose);
      port1.close();
    };
    const fail = (e) => (end(), reject(e));
    const onClose = () => fail(unavailable());
    const drop = () => (port1.postMessage({ type: 'abort' }), fail(unavailable()));
    const onAbort = () => (port1.postMessage({ type: 'abort' }), fail(signal.reason));
    // Nothing comes back from a frame that may not see the tool.
    const timer = setTimeout(() => fail(unavailable()), page.wait);
    // Nor from a frame that was removed during the call.
    const watch = setInterval(() => w.closed && fail(unavailable()), page.wait);
    signal?.addEventListener('abort', onAbort, { once: true });
    outgoing.add(drop);
    port1.onmessage = ({ data: msg }) => {
      if (msg?.type === 'accepted' && !accepted) {
        accepted = true;
        // Once accepted, a frame whose document went away (removed, or
        // navigated) while the call runs closes its port, where the
        // browser tells. Not before: a refusal says nothing, not even by
        // closing (a frame that may not see a tool cannot tell why).
        port1.addEventListener('close', onClose);
        return clearTimeout(timer);
      }
      if (msg?.type === 'result' && accepted && typeof msg.value === 'string') return end(), resolve(msg.value);
      if (msg?.type === 'error' && FRAME_ERRORS.includes(msg.name) && typeof msg.message === 'string') return fail(toError(msg));
      fail(unavailable());
    };
    if (!post(w, origin, tagged('call', { name, input: json }), [port2])) fail(unavailable());
  });
