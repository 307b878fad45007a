// The runtime's own namespace: globalThis.veil, and veil.paths.
/// <reference path="../webmcp.d.ts" />

import { ERR_NOT_FOUND, OP_CONFIGURE, OP_DECISIONS, OP_FORGET, OP_ITEMS, OP_REVEAL } from './contract.js';
import { str, toError, freeze, named } from './util.js';
import { refused, toItem } from './reveal.js';
import { importWithin, version } from './config.js';
import { call, ready, mode } from './engine.js';
import { native } from './mirror.js';
import { conf, declinePending } from './consent.js';
import { trust, active } from './session.js';
import { vouch } from './guard.js';

/**
 * redeem fetches a secret_reference's value with veil-redeem.js, loaded
 * at the first one.
 * @returns {Promise<VeilRevealResult>}
 */
const redeem = (url) =>
  importWithin('veil-redeem.js').then(
    (m) => m.redeem(url),
    () => refused('network', 'The secret could not be fetched. Check the connection and try again.'),
  );

/** The agent paths, for conformance tests: each executes a tool as an agent would. */
let paths;
/** The policy's settings, as the engine last reported them: an engine started again resumes from them. */
export let settings = null;

class Veil extends EventTarget {
  /** Resolves once the engine runs; rejects if it can't start (naming the files that did not load). */
  get ready() {
    return ready;
  }
  /** Where the engine runs: "worker" or "main". */
  get mode() {
    return mode;
  }
  /** The runtime's version, as its npm package's ("0.1.0"). */
  get version() {
    return version;
  }
  get paths() {
    return paths;
  }

  /**
   * Sets the risk policy and how the page asks the user. Keys left out
   * keep their value; null restores a default.
   * @param {VeilConfig} options
   * @returns {Promise<void>}
   */
  async configure(options = {}) {
    const { confirm, notice, ...rest } = options ?? {};
    for (const [k, f] of [['confirm', confirm], ['notice', notice]])
      if (f != null && typeof f !== 'function') throw new TypeError(`veil.configure: ${k} must be a function`);
    // JSON has no Infinity or NaN: they would arrive as null, which
    // restores a default.
    const json = JSON.stringify(rest, (k, v) => {
      const n = v instanceof Number ? Number(v) : v;
      if (typeof n === 'number' && !Number.isFinite(n)) throw new TypeError(`veil.configure: ${k} must be a finite number`);
      return v;
    });
    const [h] = await call(OP_CONFIGURE, json);
    if (h.error) throw toError(h.error);
    // Kept for an engine started after this one is lost.
    settings = h.settings ?? settings;
    if (confirm !== undefined) conf.confirm = confirm ?? undefined;
    if (notice !== undefined) conf.notice = notice ?? undefined;
  }

  /**
   * Declines every call waiting to be put to the user (not the one being
   * asked now), and returns how many.
   * @returns {number}
   */
  declinePending() {
    return declinePending();
  }

  /**
   * Takes the page's word for a form tool's risk attributes: without it,
   * an attribute that lowers caution (toolreadonlyhint,
   * toolopenworldhint="false" and the like) is not read, since markup the
   * page shows can write it. Vouch only for a form your own code holds.
   * @param {HTMLFormElement} form
   */
  vouch(form) {
    vouch(form);
  }

  /** The session's trust state: what has reached the agent. */
  get trust() {
    return trust;
  }

  /** The calls in progress, and what each waits for. */
  get calls() {
    return [...active.values()];
  }

  /**
   * The decision log, oldest first: rule, facts and outcome of each call.
   * @returns {Promise<VeilDecision[]>}
   */
  async decisions() {
    const [h] = await call(OP_DECISIONS);
    return freeze(h.decisions ?? []);
  }

  /**
   * Lists what is held for the user, never the values: every call's
   * items, or those of one call.
   * @param {string} [id] the call's, as the held event and each item name it
   * @returns {Promise<VeilItem[]>}
   */
  async items(id) {
    const [h] = await call(OP_ITEMS);
    return (h.items ?? []).filter((i) => id === undefined || i.call === str(id)).map(toItem);
  }

  /**
   * Reveals one item to the user: a withheld value from the engine, a
   * secret_reference by a GET of its redeemUrl. It needs transient user
   * activation (a click or a key press), and it never rejects: it
   * resolves with {ok: true, value} or {ok: false, reason, message}.
   * @param {string} handle
   * @returns {Promise<VeilRevealResult>}
   */
  reveal(handle) {
    if (!navigator.userActivation?.isActive)
      return Promise.resolve(refused('activation', 'Revealing a value needs a click or a key press.'));
    return call(OP_REVEAL, { handle: str(handle) }).then(([h, b]) =>
      h.error
        ? h.error.name === ERR_NOT_FOUND
          ? refused('notfound', 'This value is no longer held: it expired or was forgotten.')
          : refused('error', 'The value could not be revealed.')
        : h.kind === 'reference'
          ? redeem(h.redeemUrl).then((r) => (r.ok && ns.dispatchEvent(new CustomEvent('redeemed', { detail: { handle: str(handle) } })), r))
          : { ok: true, value: b },
    );
  }

  /**
   * Wipes one item and resolves with whether it was held.
   * @param {string} handle
   * @returns {Promise<boolean>}
   */
  async forget(handle) {
    const [h] = await call(OP_FORGET, { handle: str(handle) });
    if (h.ok) this.dispatchEvent(new CustomEvent('forgotten', { detail: { handle: str(handle) } }));
    return !!h.ok;
  }
}
named(Veil, 'Veil');
export const ns = new Veil();

/** start makes the agent paths and puts the namespace on the page. */
export const start = () => {
  paths = Object.freeze(
    [
      ['document.modelContext.executeTool', (n, j) => Reflect.get(Document.prototype, 'modelContext', document).executeTool({ name: n, description: '', window, origin: location.origin }, JSON.parse(j))],
      ['navigator.modelContext.executeTool', (n, j) => navigator.modelContext.executeTool({ name: n, description: '', window, origin: location.origin }, JSON.parse(j))],
      ['navigator.modelContextTesting.executeTool', (n, j) => navigator.modelContextTesting.executeTool(n, j)],
      native?.executeTool && [
        'native executeTool',
        async (n, j) => {
          const t = (await native.getTools()).find((t) => t.name === n && t.window === window);
          return native.executeTool(t, JSON.parse(j));
        },
      ],
    ]
      .filter(Boolean)
      .map(([name, execute]) => Object.freeze({ name, execute })),
  );
  Object.defineProperty(globalThis, 'veil', { value: ns, configurable: true });
};
