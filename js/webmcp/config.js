// The runtime's options, as the script tag that loaded it gives them, and
// the folder of its other files.

import { currentScript, head, baseURI, docURL, query, attr } from './dom.js';

/** The script tag, taken before anything else runs: a bundle's first statements still see it. */
export const script = /** @type {HTMLScriptElement|null} */ (currentScript(document));
// The folder of the runtime's other files: the one <meta name="veil-base">
// among the head's children names (not one inside another element there,
// which a page's content can be), else this script's own. A module or a bundle has no
// current script, and without the meta looks in the page's own folder; an
// error that a file did not load names the URL it tried. The folder is
// on the page's origin, or there is none: what loads from it runs in the
// page.
/**
 * pageURL is what relative folders and redeemUrls resolve against: the
 * page's own URL, never a <base> element's, which markup the page shows
 * can plant (the first <base> in the document sets its base URL, wherever
 * it is). A srcdoc or about:blank document has no URL of its own to
 * resolve against and takes its base URL, its parent's.
 */
const pageURL = () => {
  const u = docURL(document);
  return /^https?:/i.test(u) ? u : baseURI(document);
};
const META = ':scope > meta[name="veil-base"]';
const h = head(document);
const metaEl = h && query(h, META);
export const meta = metaEl ? attr(metaEl, 'content')?.trim() : undefined;
/** The folder, as start found it; empty when it is not on the page's origin. */
export let base = '';
/** The folder start refused, on another origin. */
let refused = '';
/**
 * start finds the folder. One that <meta name="veil-base"> names but is
 * none, or one on another origin, is reported; from one on another origin
 * nothing loads, so the runtime's calls fail.
 */
export const start = () => {
  let from = script?.src ? 'beside webmcp.js' : "in the page's folder";
  /** @type {URL|null} */
  let u = null;
  try {
    u = new URL('.', script?.src || pageURL());
  } catch {}
  if (meta)
    try {
      u = new URL(meta, pageURL());
      if (!u.pathname.endsWith('/')) u.pathname += '/';
      from = 'in the folder <meta name="veil-base"> names';
    } catch {
      console.error(`veil: <meta name="veil-base" content=${JSON.stringify(meta)}> does not name a folder, so the runtime's files are looked for ${from}`);
    }
  // The document's origin (a srcdoc or about:blank frame has its
  // parent's), or its URL's (a sandboxed document's is opaque).
  if (u && u.origin !== 'null' && [origin, new URL(docURL(document)).origin].includes(u.origin)) base = u.href;
  else console.error(`veil: the runtime's files are looked for ${from}, ${(refused = u?.href ?? 'which is no URL')}, which is not on the page's origin (${origin}): nothing loads from there, so no tool call runs`);
};
/** here is the URL of the runtime's file called name; it throws when the folder was refused. */
export const here = (name) => {
  if (!base) throw new Error(`veil: ${name} is not loaded from ${refused}, which is not on the page's origin`);
  return new URL(name, base).href;
};
/** load imports the runtime's module called name from the folder. */
export const load = (name) => Promise.resolve(name).then(here).then((url) => import(url));
/**
 * importWithin loads the runtime's module called name, and rejects when
 * it has not loaded within 10 s: a stalled server must not leave what
 * waits on it waiting for ever.
 */
export const importWithin = (name) =>
  Promise.race([load(name), new Promise((_, fail) => setTimeout(fail, 1e4, new Error(`veil: ${base}${name} did not load within 10 s`)))]);
export const forced = script?.dataset.veilMode;
/** data-veil-debug: a tool's own error goes to the page's console (docs/page-api.md says why it is off by default). */
export const debug = script?.dataset.veilDebug !== undefined && script.dataset.veilDebug !== 'false';
/** The runtime's version, package.json's: the build writes it in. */
export const version = typeof VEIL_VERSION === 'string' ? VEIL_VERSION : '0.0.0-source';

const holdTTL = Number(script?.dataset.veilHoldTtl);
const scrubLimit = Number(script?.dataset.veilScrubLimit);
const redeemPath = script?.dataset.veilRedeemPath;
const frameWaitAttr = Number(script?.dataset.veilFrameWait);
/**
 * data-veil-frame-wait: how long, in milliseconds, a frame waits for
 * another frame that may never answer (default 1000); a page on a slow
 * machine, or a test on a busy one, may wait longer.
 */
export const frameWait = frameWaitAttr > 0 && frameWaitAttr < Infinity ? Math.ceil(frameWaitAttr) : 1000;
/**
 * The first op of every engine: the page's side of its options. A member
 * left undefined is not sent.
 * @returns {import('./contract.js').InitRequest}
 */
export const initHeader = () => ({
  origin: location.origin,
  baseURL: pageURL(),
  holdTTLms: holdTTL > 0 ? holdTTL * 1000 : undefined,
  maxScrubNeedles: scrubLimit > 0 ? Math.floor(scrubLimit) : undefined,
  redeemPath: redeemPath || undefined,
});
