// What the page's reveal and items give: the user's side of what was
// withheld. A secret_reference is redeemed in veil-redeem.js (js/reveal/),
// loaded at the first one.
/// <reference path="../webmcp.d.ts" />

/**
 * What a reveal resolves with when it fails.
 * @param {VeilRevealFailure} reason
 * @param {string} message
 * @param {number} [status]
 * @returns {VeilRevealResult & {ok: false}}
 */
export const refused = (reason, message, status) => ({ ok: false, reason, message, status });

/**
 * toItem is a held item as the page gives it: its times as numbers.
 * @param {import('./contract.js').VaultItem} i
 * @returns {VeilItem} (the engine's kind is one of VeilItem's)
 */
export const toItem = (i) => /** @type {VeilItem} */ ({ ...i, expires: Date.parse(i.expires), ...(i.redeemBy && { redeemBy: Date.parse(i.redeemBy) }) });
