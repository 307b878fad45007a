// Frames: tools across the frames of one page (registerTool's exposedTo,
// getTools({fromOrigins}) and executeTool on another frame's tool), bundled
// into veil-frames.js, which webmcp.js imports when the page has other
// frames (see webmcp/frames.js). Every frame runs its own Veil and its own
// engine, and the frame that registered a tool is the one that runs it: a
// call from another frame goes through this frame's run(), so the caller
// receives the agent view and nothing else, and what was withheld stays in
// this frame's vault and tray.
//
// Frames talk over postMessage. A request to another window is tagged
// (FRAMES), goes to one exact origin (never "*": the browser drops it when
// the window is at another origin) and carries a MessagePort of its own,
// on which alone the answer comes: no answer passes through a window,
// where page code could read it or forge one. The answering frame checks
// event.source (a window of this page, not itself) and event.origin (its
// own origin, or one the tool is exposed to) on every request. A frame
// that may not see a tool gets no answer at all, so it cannot tell a
// hidden tool from no tool, no Veil or another origin.

import { page } from './page.js';
import { frameTools, notifyFrames, executeInFrame, outgoing } from './ask.js';
import { receive, incoming } from './answer.js';

/**
 * start takes the page's runtime and returns what webmcp.js calls.
 * @param {import('./page.js').Page} p
 */
export const start = (p) => {
  Object.assign(page, p);
  // A document that goes ends its calls: those it made, and those made into it.
  addEventListener('pagehide', () => [...incoming, ...outgoing].forEach((f) => f()));
  return { frameTools, notifyFrames, executeInFrame, receive };
};
