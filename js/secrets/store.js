// The page's one-time secrets, shared by every tray of the page so that a
// tray the page renders again still has them, and the trays to tell when
// one changes. This module owns that state; the others reach it through
// the functions below. Nothing of the page: it runs under Node's test
// runner as it runs in the page.

/**
 * A tray as the store tells it of a change.
 * @typedef {object} Tray
 * @property {() => void} sync  brings the tray up to date with the runtime
 * @property {(handle: string) => void} touch  brings the tray's rows of one item up to date
 */

/**
 * Those redeemed, by handle, until the user hides or forgets them for good.
 * @type {Map<string, {item: any, value: string}>}
 */
const kept = new Map();
/** Those whose redemption is on its way, by handle, with how many are. @type {Map<string, {item: any, n: number}>} */
const flying = new Map();
/** The one-time secrets the user hid for good, by handle: spent in every tray. @type {Set<string>} */
const spent = new Set();
/** Those the page redeemed itself, with veil.reveal, outside every tray: spent in every tray. @type {Set<string>} */
const taken = new Set();
/** @type {Set<Tray>} the trays in the document */
const trays = new Set();

/** keptOf is what the page keeps of a redeemed one-time secret, or undefined. */
export const keptOf = (handle) => kept.get(handle);
/** isKept says whether the page keeps a redeemed one-time secret. */
export const isKept = (handle) => kept.has(handle);
/** isFlying says whether an item's value is on its way. */
export const isFlying = (handle) => flying.has(handle);
/** isSpent says whether the user hid a one-time secret for good. */
export const isSpent = (handle) => spent.has(handle);
/** isTaken says whether the page redeemed a one-time secret itself, outside every tray. */
export const isTaken = (handle) => taken.has(handle);

/**
 * take notes that a one-time secret was redeemed (the runtime's redeemed
 * event): unless a tray redeemed it (it is kept, or on its way), the page
 * did, and every tray shows it spent. It says whether it noted it.
 * @param {string} handle
 */
export const take = (handle) => {
  if (kept.has(handle) || flying.has(handle) || taken.has(handle)) return false;
  taken.add(handle);
  touch(handle);
  return true;
};

/**
 * keep keeps a redeemed one-time secret's value for the page, unless it
 * is kept already or was hidden for good, and says whether it kept it.
 * @param {any} item
 * @param {string} value
 */
export const keep = (item, value) => {
  const h = item.handle;
  if (kept.has(h) || spent.has(h)) return false;
  kept.set(h, { item, value });
  return true;
};
/** unkeep lets a one-time secret go: the user forgot it. */
export const unkeep = (handle) => void kept.delete(handle);
/** spend marks a one-time secret hidden for good, in every tray. */
export const spend = (handle) => {
  spent.add(handle);
  kept.delete(handle);
};

/**
 * stayed lists the items the page keeps or has on their way that the
 * engine no longer holds (held, by handle): their rows stay.
 * @param {Set<string>} held
 * @returns {any[]}
 */
export const stayed = (held) => {
  const more = new Map();
  for (const [h, k] of [...kept, ...flying]) if (!held.has(h)) more.set(h, k.item);
  return [...more.values()];
};

/** join adds a tray to those told of a change. @param {Tray} tray */
export const join = (tray) => void trays.add(tray);
/** leave takes a tray out of those told of a change. @param {Tray} tray */
export const leave = (tray) => void trays.delete(tray);
/** syncAll brings every tray of the page up to date. */
export const syncAll = () => {
  for (const t of trays) t.sync();
};
/**
 * touch brings the rows of one item up to date in every tray of the
 * page, leaving the other rows as they are: a row of an item the engine
 * no longer holds stays until the tray looks again, so that its Reveal
 * can say so.
 */
export const touch = (handle) => {
  for (const t of trays) t.touch(handle);
};

/**
 * claim notes that an item's value is on its way, so that its rows in
 * every tray can't be revealed or forgotten meanwhile, and returns what
 * ends the claim: with fresh, a one-time secret newly kept goes to every
 * tray, which may have let its row go meanwhile.
 * @returns {(fresh: boolean) => void}
 */
export const claim = (item) => {
  const h = item.handle;
  const f = flying.get(h) ?? { item, n: 0 };
  f.n++;
  flying.set(h, f);
  touch(h);
  let ended = false;
  return (fresh) => {
    if (ended) return;
    ended = true;
    if (--f.n === 0 && flying.get(h) === f) flying.delete(h);
    if (fresh) syncAll();
    else touch(h);
  };
};

/**
 * redeem waits for the runtime's answer r for an item. A one-time secret
 * that comes is kept in the page's store at once, whatever became of the
 * tray or its row meanwhile, and its row stays while it is on its way.
 * @param {any} item
 * @param {Promise<any>} r the runtime's answer
 * @param {(fresh: boolean) => void} [end] the claim's end, when the caller claimed the item itself
 */
export const redeem = async (item, r, end = claim(item)) => {
  let fresh = false;
  try {
    const got = await r;
    if (got.ok && item.kind === 'reference') fresh = keep(item, got.value);
    return got;
  } finally {
    end(fresh);
  }
};
