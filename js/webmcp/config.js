// The runtime's options, as the script tag that loaded it gives them, and
// the folder of its other files.

/** The script tag, taken before anything else runs: a bundle's first statements still see it. */
export const script = /** @type {HTMLScriptElement|null} */ (document.currentScript);
// The folder of the runtime's other files: the one <meta name="veil-base">
// names, else this script's own. A module or a bundle has no current
// script, and without the meta looks in the page's own folder; an error
// that a file did not load names the URL it tried.
const META = 'meta[name="veil-base"]';
export const meta = document.head?.querySelector(META)?.getAttribute('content')?.trim();
/** The folder, as locate found it at start-up. */
export let base = '';
/** start finds the folder; a <meta name="veil-base"> that names none is reported. */
export const start = () => {
  if (meta)
    try {
      const u = new URL(meta, document.baseURI);
      if (!u.pathname.endsWith('/')) u.pathname += '/';
      return void (base = u.href);
    } catch {
      console.error(`veil: <meta name="veil-base" content=${JSON.stringify(meta)}> does not name a folder, so the runtime's files are looked for ${script?.src ? 'beside webmcp.js' : "in the page's folder"}`);
    }
  base = new URL('.', script?.src || document.baseURI).href;
};
export const here = (name) => new URL(name, base).href;
/**
 * importWithin imports the runtime's module called name from the folder,
 * and rejects when it has not loaded within 10 s: a stalled server must
 * not leave what waits on it waiting for ever.
 */
export const importWithin = (name) => {
  const url = here(name);
  return Promise.race([import(url), new Promise((_, fail) => setTimeout(fail, 1e4, new Error(`veil: ${url} did not load within 10 s`)))]);
};
export const forced = script?.dataset.veilMode;
/** data-veil-debug: a tool's own error goes to the page's console (docs/page-api.md says why it is off by default). */
export const debug = script?.dataset.veilDebug !== undefined && script.dataset.veilDebug !== 'false';
/** The runtime's version, package.json's: the build writes it in. */
export const version = typeof VEIL_VERSION === 'string' ? VEIL_VERSION : '0.0.0-source';

const holdTTL = Number(script?.dataset.veilHoldTtl);
const scrubLimit = Number(script?.dataset.veilScrubLimit);
const redeemPath = script?.dataset.veilRedeemPath;
/**
 * The first op of every engine: the page's side of its options. A member
 * left undefined is not sent.
 * @returns {import('./contract.js').InitRequest}
 */
export const initHeader = () => ({
  origin: location.origin,
  baseURL: document.baseURI,
  holdTTLms: holdTTL > 0 ? holdTTL * 1000 : undefined,
  maxScrubNeedles: scrubLimit > 0 ? Math.floor(scrubLimit) : undefined,
  redeemPath: redeemPath || undefined,
});
