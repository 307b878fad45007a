// echo-worker.js answers every message at once with a reply the size of
// the engine's reply to a small call's op: BenchmarkMCPTab times a round
// trip to a Worker that does nothing.
"use strict";
self.onmessage = ({ data }) => postMessage({ id: data.id, header: '{"held":0,"invalid":[],"same":true}', body: "" });
