// What the tray says: an item's name for the user, times, the order of a
// call's items, and the tray's fixed messages. Nothing of the page: they
// run under Node's test runner as they run in the page.

/** time is a moment (ms since the epoch) as the user's clock shows it, to the second. */
export const time = (ms) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
/** words splits a name written camelCase, snake_case or kebab-case into words. */
export const words = (s) => s.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').trim();
/** cap writes words as a label: the first capitalized, the rest lower case, abbreviations upper case. */
export const cap = (s) =>
  (s.charAt(0).toUpperCase() + s.slice(1).toLowerCase()).replace(/\b(id|url|api|pin|ssn|iban)\b/gi, (w) => w.toUpperCase());
/** tokens are a JSON pointer's reference tokens, unescaped. */
export const tokens = (p) => p.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));

/** A name for the user: the engine's label, made readable when it is a pointer's last token. */
export const nameOf = (item) => {
  const t = tokens(item.pointer);
  if (item.kind !== 'value' || !t.length || t.at(-1) !== item.label) return item.label;
  const n = t.at(-1);
  return /^\d+$/.test(n) && t.length > 1 ? `${cap(words(t.at(-2)))} ${+n + 1}` : cap(words(n));
};
/** order sorts a call's items by pointer, array indexes as numbers. */
export const order = (a, b) => a.pointer.localeCompare(b.pointer, undefined, { numeric: true });

/** How many items of a call show before "Show more". */
export const PAGE = 5;

/** What an item that can no longer be revealed says it is, by state. */
export const STATES = { spent: 'Spent', expired: 'Expired', gone: 'Gone' };
/** Why Reveal, Show or Copy did nothing: the browser saw no click or key press. */
export const ACTIVATION = 'This needs a click or a key press.';
/** What a one-time secret the tray redeemed and shows says. */
export const KEPT = 'Shown once: the server will not hand it out again. It stays here until you hide it for good.';
/** What a kept one-time secret masked again says. */
export const MASKED = 'Masked. Show brings it back; it stays here until you hide it for good.';
/** What a one-time secret the page redeemed itself (veil.reveal) says, in every tray. */
export const TAKEN = 'Revealed by the page. The server will not hand it out again.';
/** What a one-time secret the user hid for good says, in every tray. */
export const HIDDEN = 'Hidden for good. The server will not hand it out again.';
