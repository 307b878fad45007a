// traffic.js records the tab transport's messages: window.traffic, every
// one this window receives, in both directions, as the JSON text of its
// data (what any client of the transport can read); window.posted, the
// target origin of every server-to-client message posted here. It loads
// before the runtime and the client. A frame's "frame done" sets
// window.frameDone.
"use strict";
window.traffic = [];
window.posted = [];
window.addEventListener("message", (e) => {
  if (e.data === "frame done") window.frameDone = true;
  if (e.data?.type === "mcp") window.traffic.push({ origin: e.origin, own: e.source === window, data: JSON.stringify(e.data) });
});
const postMessage = window.postMessage;
window.postMessage = function (message, target, ...rest) {
  if (message?.type === "mcp" && message.direction === "server-to-client") window.posted.push(typeof target === "string" ? target : target?.targetOrigin ?? "/");
  return postMessage.call(this, message, target, ...rest);
};
