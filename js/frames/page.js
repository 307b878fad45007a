// What the lazily loaded frames code gets from the page's runtime when it
// starts: the one registry, run and the ModelContext of webmcp.js, not
// copies of its modules (this file is bundled apart from them).

/**
 * @typedef {object} Page
 * @property {Map<number, any>} registrations   the registry's entries
 * @property {() => any[]} live                 the live entries, by name
 * @property {(entries: any[]) => Promise<any[]>} listed   what the tool lists carry of entries (listing.js)
 * @property {EventTarget} context              document.modelContext
 * @property {(name: string, input: any, signal: AbortSignal) => Promise<string>} run
 * @property {(json: string) => any} parseInput
 * @property {boolean} allowed                  this document may use tools across frames
 * @property {boolean} crossOrigin              and cross-origin frames take part
 * @property {number} wait                      how long, in ms, a frame waits for another that may never answer (data-veil-frame-wait)
 * @property {boolean} policyKnown              the browser knows the "tools" permissions policy
 */
/** @type {Page} */
export const page = /** @type {any} */ ({});
