// What the tool lists carry: getTools on both namespaces, listTools,
// MCP's tools/list, other frames' lists and the native mirror all list a
// registration as listing(entry) gives it.
//
// Until the session withholds something, that is the definition the
// engine answered register with. From then on, what a tool list carries
// must not give the agent what an output was kept from giving it: a form
// whose <select> offers a saved card lists its number as an enum value,
// and a page's own schema can carry it as well (sift.js). So every string
// a list would carry is put to the engine (the withheld op) after each
// output that may have grown the session's set, and what holds a
// withheld value is left out. A listing the engine has not answered for
// the set as it is now is bare (sift.js): names and types alone.

import { OP_WITHHELD } from './contract.js';
import { call } from './engine.js';
import { live } from './registry.js';
import { scrubbing } from './run.js';
import { sift, strings, bare } from './sift.js';
import { remirror } from './mirror.js';

/** The session's set, as the page counts its growing: every output that may have grown it counts one. */
let version = 0;

/**
 * listing is what the tool lists carry of entry now, or null when it is
 * not listed: its definition, until the session withholds something;
 * then the definition sifted by the engine's last answer for the set as
 * it is, or bare while there is none.
 * @param {import('./registry.js').Entry} entry
 * @returns {Record<string, any> | null}
 */
export const listing = (entry) => {
  if (!scrubbing) return entry.def;
  const l = entry.listed;
  return l?.version === version ? l.def : bare(entry.def);
};

/**
 * ask puts the strings of entries' definitions to the engine and keeps
 * what the lists may carry of each, for the set as of version v. An
 * engine that cannot say (its set full or lost, a failure) leaves them
 * bare.
 * @param {import('./registry.js').Entry[]} entries
 * @param {number} v
 */
const ask = async (entries, v) => {
  const list = strings(entries.map((e) => e.def));
  const [h] = await call(OP_WITHHELD, {}, JSON.stringify(list));
  const answered = !h.error && Array.isArray(h.withheld) && h.withheld.length === list.length;
  const held = new Set(answered ? list.filter((_, i) => h.withheld[i] === true) : []);
  for (const e of entries) e.listed = { version: v, def: answered ? sift(e.def, (s) => held.has(s)) : bare(e.def) };
};

/**
 * listed waits until the engine has answered for entries and the set as
 * it is now, and gives what the lists carry of them, those not listed
 * left out. Should the set grow while it waits, it asks again, once;
 * past that an entry is listed bare.
 * @param {import('./registry.js').Entry[]} entries
 * @returns {Promise<Record<string, any>[]>}
 */
export const listed = async (entries) => {
  for (let round = 0; scrubbing && round < 2; round++) {
    const v = version;
    const stale = entries.filter((e) => e.listed?.version !== v && e.asking?.version !== v);
    if (stale.length) {
      const promise = ask(stale, v).catch(() => {});
      for (const e of stale) e.asking = { version: v, promise };
    }
    await Promise.all(entries.map((e) => (e.asking?.version === v ? e.asking.promise : undefined)));
    if (v === version) break;
  }
  return /** @type {Record<string, any>[]} */ (entries.map(listing).filter((d) => d !== null));
};

/**
 * grew says that the session's set may have grown (an output withheld
 * something, or the page withheld a form's values): every listing is
 * asked for again, and the native mirrors whose listing changed are
 * registered anew (mirror.js). It resolves once that is done.
 */
export const grew = async () => {
  version++;
  const entries = live();
  await listed(entries);
  for (const e of entries) remirror(e);
};
