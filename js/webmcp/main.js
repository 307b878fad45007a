// Veil: a WebMCP runtime that keeps sensitive tool output out of AI agents'
// context. Include it once, as a plain (not async, not deferred) script:
//
//   <script src="/veil/webmcp.js"></script>
//
// It installs document.modelContext, navigator.modelContext (the same object)
// and navigator.modelContextTesting at once, then starts the engine
// (veil.wasm) in a Worker, or on the main thread where a Worker can't run.
// worker.js, veil.wasm and wasm_exec.js are loaded from beside this script,
// and veil-secrets.js too when the document has a <veil-secrets> element;
// <meta name="veil-base" content="/veil/"> in the head, before this script,
// names their folder instead (a bundle that took this script in has moved
// it away from them).
// data-veil-mode="worker" or "main" on the script tag forces one mode;
// data-veil-hold-ttl="600" sets how many seconds withheld values are kept
// for the user (10 minutes by default); data-veil-scrub-limit="65536"
// bounds the session's scrub set; data-veil-redeem-path="/redeem/"
// makes every secret_reference's redeemUrl start with that path;
// data-veil-frame-wait="1000" sets how many milliseconds a frame waits
// for another that may never answer;
// data-veil-mcp="tab" with data-veil-mcp-origins="self" (the page's origin)
// serves MCP to clients of the tab transport (veil-mcp.js).
/// <reference path="../webmcp.d.ts" />
'use strict';
// The entry. config.js, imported first, takes document.currentScript
// while this script runs; the other modules only define, and nothing acts
// on the page until the calls below, in this order, once per page. (The
// other imports' order is only the bundle's, which brotli prefers.)
import { start as locate } from './config.js';
import { readyState, on } from './dom.js';
import { start as guardForms, adopt } from './guard.js';
import { start as listenFrames } from './frames.js';
import { start as serveMCP, tray } from './lazy.js';
import { start as startEngine } from './engine.js';
import { start as defineEvents } from './events.js';
import { start as expose } from './veil.js';
import { start as installContext } from './context.js';
import { start as knowPseudoClasses } from './pseudo.js';

// A second copy leaves the first as it is. veil is the runtime's own
// property of the window; an element named veil makes globalThis.veil
// truthy, never an own property.
if (!Object.hasOwn(globalThis, 'veil')) {
  if (!isSecureContext) console.warn('veil: WebMCP needs a secure context');
  else {
    locate();
    startEngine();
    defineEvents();
    listenFrames(adopt);
    guardForms();
    installContext();
    knowPseudoClasses();
    expose();
    serveMCP();
    readyState(document) === 'loading' ? on(document, 'DOMContentLoaded', tray, { once: true }) : tray();
  }
}
