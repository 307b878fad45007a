// Nothing around the engine: the foreign-tool sweep.
//
// The native registry must hold Veil's mirrors and nothing else: a tool
// there that is not a mirror runs around the engine, with no decision,
// no withholding and a description the model takes for the page's. A
// <form toolname> would be one (the browser registers it), so Veil moves
// the attribute to data-veil-toolname on every such form it can see, in
// the document and in every shadow root it can reach (those made by
// attachShadow, open or closed, and open declarative ones), before the
// browser registers it, and makes the form a tool of its own, run
// through the engine (veil-forms.js, loaded the first time a form has a
// toolname). In a same-origin frame it moves the attribute too, whatever
// the frame says of itself, and hands the form to the frame's own Veil,
// whose tool it is; in a frame without one the form is no tool.
//
// What it cannot see it cannot move: a form in a closed declarative
// shadow root, a tool page script registered on the native object. The
// native registry has no way to remove another's tool (a registration
// ends only through its own AbortSignal), so such a tool stays callable
// by every native path. Veil learns the registry's content (getTools at
// start, on toolchange, after the DOM changes), and while any tool in it
// is neither its mirror nor a mirror of another frame's Veil, the engine
// is told (the "foreign" op): every call asks the user, and private
// results are withheld from the agent. The page hears of each such tool
// when it appears and when it is gone (a "foreigntool" event); the
// console only that it happened, since an agent reads the console and
// such a tool chooses its name.

import { OP_FOREIGN } from './contract.js';
import { str, toError, freeze } from './util.js';
import { call } from './engine.js';
import { emit } from './session.js';
import { MARK, reachable } from './frames.js';
import { native, nativeGetTools, mirrors, mirrorEnded, clock, MIRROR_ENDED_KEPT, mirrored, mirror } from './mirror.js';

/** The names of the foreign native tools, sorted, as the engine was last told. */
export let foreignTools = [];
/** foreignChanged tells the engine and the page that the foreign tools are now names. */
const foreignChanged = (names) => {
  const added = names.filter((n) => !foreignTools.includes(n));
  const gone = foreignTools.filter((n) => !names.includes(n));
  foreignTools = names;
  call(OP_FOREIGN, { names: foreignTools }).then(([h]) => h.error && console.error('veil: the engine was not told of the foreign native tools', toError(h.error)));
  if (added.length)
    console.warn(
      `veil: ${added.length} native tool(s) that are not the runtime's are in the browser's registry, where the runtime cannot remove them: agents can still call them. Until they are gone, every call asks the user and private results are withheld from the agent; see the foreigntool event`,
    );
  if (gone.length) console.info(`veil: ${gone.length} native tool(s) that were not the runtime's left the browser's registry; see the foreigntool event`);
  setTimeout(() => {
    for (const name of added) emit('foreigntool', freeze({ kind: 'native', name, callable: true }));
    for (const name of gone) emit('foreigntool', freeze({ kind: 'native', name, callable: false }));
  });
};
/** veilMirror says whether the native tool name of window w is a mirror of w's own Veil. */
const veilMirror = (w, name, since) => {
  try {
    return reachable(w) && w[MARK]?.mirrored?.(name, since) === true;
  } catch {
    return false;
  }
};
/**
 * sweepOnce reads the native registry: this document's tools and those
 * of same-origin frames, all of which native paths here can run.
 */
const sweepOnce = async () => {
  const since = clock();
  // Kept for readings of other frames' Veils too, which began when this one cannot know.
  for (const [name, ended] of mirrorEnded) if (ended < since - MIRROR_ENDED_KEPT) mirrorEnded.delete(name);
  let list;
  try {
    list = await nativeGetTools.call(native);
  } catch {
    return;
  }
  if (!Array.isArray(list)) return;
  const names = new Set();
  const own = new Set();
  for (const t of list) {
    const name = str(t?.name);
    const w = t?.window;
    if (w === window) own.add(name);
    if (!(w === window ? mirrored(name, since) : veilMirror(w, name, since))) names.add(name);
  }
  // A mirror refused while a foreign tool held its name is registered
  // again once the name is free (one refused for another reason, never
  // seen held, is not: it would be refused again and again).
  for (const [name, m] of mirrors) {
    if (m.state !== 'refused') continue;
    if (own.has(name)) m.held = true;
    else if (m.held && m.entry.live && !m.entry.gone) mirror(m.entry);
  }
  const now = [...names].sort();
  if (JSON.stringify(now) !== JSON.stringify(foreignTools)) foreignChanged(now);
};
let sweeping = false;
let sweepAgain = false;
let soon = 0;
/**
 * sweepSoon reads the registry after DOM changes, once for a burst of
 * them: Chromium's toolchange reports what it registers, and this only
 * backs it up.
 */
export const sweepSoon = () => (soon ||= setTimeout(() => ((soon = 0), sweep()), 100));
/** sweep reads the native registry again, one reading at a time, the last after every change asked for. */
export const sweep = () => {
  if (typeof nativeGetTools !== 'function') return;
  if (sweeping) return void (sweepAgain = true);
  sweeping = true;
  (async () => {
    do {
      sweepAgain = false;
      await sweepOnce();
    } while (sweepAgain);
  })().finally(() => (sweeping = false));
};

