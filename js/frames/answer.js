// This frame answering the others: which of its tools another frame may
// see, and calls of them, run through run() like any agent's.

import { str, isObject, messageOf } from '../webmcp/util.js';
import { FRAMES } from '../webmcp/frametag.js';
import { page } from './page.js';
import { ofThisPage, containerAllows } from './windows.js';

/** The error names a call in another frame may end with; any other is UnknownError. */
export const FRAME_ERRORS = ['DataError', 'UnknownError', 'OperationError', 'TimeoutError', 'NotFoundError', 'InvalidStateError', 'NotAllowedError', 'TypeError'];

/** Calls other frames made into this document: how to end each. */
export const incoming = new Set();

/** visible says whether a registration of this frame may be seen from origin. */
const visible = (entry, origin) => origin === location.origin || (page.crossOrigin && entry.exposedTo.includes(origin));

/** errorData is what a call's caller in another frame learns of how it failed. */
const errorData = (e) =>
  (e instanceof DOMException || e instanceof TypeError) && FRAME_ERRORS.includes(e.name)
    ? { type: 'error', name: e.name, message: messageOf(e) }
    : { type: 'error', name: 'UnknownError', message: 'the tool failed in its frame' };

/** answerCall runs a call another frame made, through run(), and answers with its agent view. */
const answerCall = (port, origin, same, { name, input }) => {
  const regs = typeof name === 'string' ? [...page.registrations.values()].filter((e) => e.name === name && !e.gone) : [];
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
    port.removeEventListener('close', onClose);
    port.close();
  };
  const drop = () => (port.postMessage(errorData(null)), controller.abort(), end());
  const onClose = () => (controller.abort(), end());
  incoming.add(drop);
  port.onmessage = ({ data }) => data?.type === 'abort' && (controller.abort(), end());
  // The caller's document is gone (its frame removed or navigated) and
  // its pagehide said nothing: nobody can receive the answer, so the call
  // is cancelled as if the caller had aborted it.
  port.addEventListener('close', onClose);
  port.postMessage({ type: 'accepted' });
  let json;
  try {
    json = page.parseInput(input);
  } catch (e) {
    return port.postMessage(errorData(e)), end();
  }
  page
    .run(name, json, controller.signal)
    .then(
      (value) => controller.signal.aborted || port.postMessage({ type: 'result', value }),
      (e) => controller.signal.aborted || port.postMessage(errorData(e)),
    )
    .finally(end);
};

/**
 * receive answers one message another window sent: a change of its
 * tools, a request for this frame's, or a call of one.
 * @param {MessageEvent} e a trusted message event tagged for frames
 */
export const receive = (e) => {
  const msg = e.data;
  if (!isObject(msg) || msg[FRAMES] !== 1 || !ofThisPage(e.source)) return;
  const { origin } = e;
  const same = origin === location.origin;
  if (!same && !(page.crossOrigin && containerAllows(e.source, origin))) return;
  if (msg.type === 'change') {
    if (page.allowed) page.context.dispatchEvent(new Event('toolchange'));
    return;
  }
  const port = e.ports[0];
  if (!port) return;
  if (msg.type === 'list') {
    // What the lists carry of each (listing.js), as this frame's own getTools lists it.
    const listing = page.allowed ? page.listed(page.live().filter((entry) => visible(entry, origin))) : Promise.resolve([]);
    listing.then(
      (tools) => {
        if (tools.length || same) port.postMessage({ tools });
        port.close();
      },
      () => port.close(),
    );
    return;
  } else if (msg.type === 'call' && page.allowed) return answerCall(port, origin, same, msg);
  else if (same) port.postMessage({ type: 'error', name: 'UnknownError', message: 'tools are not allowed in this frame' });
  port.close();
};
