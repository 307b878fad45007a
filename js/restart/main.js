// Starting an engine again after one was lost: bundled into
// veil-restart.js, which the engine connection (webmcp/engine.js) imports
// only when an engine is lost. The new engine resumes from what the page
// kept of the lost one: before any op that waited, it is sent init with
// the trust state and settings, the foreign native tools, then every live
// registration, in the order they were made.

import { OP_FOREIGN, OP_INIT, OP_REGISTER, OP_TIMEOUT_MS } from '../webmcp/contract.js';
import { toError } from '../webmcp/util.js';

/**
 * @typedef {object} Page  what engine.js hands over
 * @property {() => Promise<any>} start        starts an engine in the page's mode
 * @property {Function} request                engine.js's request
 * @property {import('../webmcp/contract.js').InitRequest} init  init's header: the page's options, trust, settings, scrubLost
 * @property {string[]} foreign                the foreign native tools
 * @property {any[]} entries                   the live registrations, in order
 * @property {(e: any) => void} use            makes e the engine that answers, and sends it what waited
 * @property {() => boolean} lostMeanwhile     the new engine was lost too, and lose dealt with it
 * @property {(entry: any) => void} unregister
 */

/**
 * restart starts the engine and brings it to where the lost one was.
 * It rejects when that fails; a tool the new engine refuses is
 * unregistered, rather than run by a page-side entry the engine lacks.
 * @param {Page} page
 */
export const restart = async (page) => {
  const e = await page.start();
  if (e.dead) throw new Error('veil: the new engine ended as it started');
  /** @type {<K extends keyof import('../webmcp/contract.js').Requests>(op: K, header: import('../webmcp/contract.js').Requests[K], body?: string) => Promise<[import('../webmcp/engine.js').Reply<K>, string]>} */
  const op = (name, header, body = '') => page.request(name, header, body, OP_TIMEOUT_MS, e.send);
  const init = op(OP_INIT, page.init);
  // The foreign native tools, before any call: ops are answered in order.
  if (page.foreign.length) op(OP_FOREIGN, { names: page.foreign });
  const again = page.entries.map((r) => op(OP_REGISTER, { registration: r.registration, resolve: !!r.refine }, r.source));
  page.use(e);
  const [h] = await init;
  if (page.lostMeanwhile()) return;
  if (h.error) throw toError(h.error);
  const replies = await Promise.all(again);
  if (page.lostMeanwhile()) return;
  replies.forEach(([h], i) => {
    if (h.error) {
      console.error(`veil: tool ${JSON.stringify(page.entries[i].name)} could not be registered again, so it is unregistered`);
      page.unregister(page.entries[i]);
    }
  });
};
