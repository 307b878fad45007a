// <veil-secrets>: the user's tray of what Veil withheld from AI agents.
// It lists the items of window.veil, with Reveal, Copy and Forget for each.
// webmcp.js loads it from beside itself when the document has a
// <veil-secrets> element; a page that adds the element later includes
// this script itself.
//
//   <veil-secrets hide-after="30" heading-level="2"></veil-secrets>
//
// Reveal shows a value until hide-after seconds pass (default 30), the
// user hides it, or the tab is hidden. Copy puts a value on the clipboard
// without showing it; when the browser refuses the clipboard, a value the
// tray fetched is shown instead, for the user to copy by hand. Revealing
// needs a click or a key press, as veil.reveal does. A secret_reference is
// redeemed only once, so the tray keeps what it redeemed: hiding masks it
// (Show brings it back) until the user confirms hiding it for good. It
// keeps them for the page, not in the element, so a tray the page puts in
// place of another still has them; and an item whose value is on its way
// stays, its Forget disabled, until the value comes. Spent and expired
// items say so, and their Reveal and Copy are disabled. Each
// call shows its first five items, then "Show more".
//
// Theming: CSS custom properties on the element or above it,
//   --veil-accent, --veil-accent-text, --veil-surface, --veil-border,
//   --veil-muted, --veil-danger, --veil-radius, --veil-font, --veil-mono;
// and the parts tray, title, count, empty, calls, call, tool, item,
// label, state, value, value-text, mask, button, message, confirm, status.
// Slots: title, empty.
/// <reference path="../webmcp.d.ts" />
'use strict';
// The entry. The modules only define; the element is defined here, once
// per page: a second copy of this script leaves the first one's tray.
// store.js holds what every tray of the page shares; tray.js is the
// element, row.js a row, view.js what a row shows, actions.js what its
// buttons do.
import { VeilSecrets } from './tray.js';

if (!customElements.get('veil-secrets')) customElements.define('veil-secrets', VeilSecrets);
