// What every part of the frames code agrees on, the page's and the lazily
// loaded veil-frames.js: the tag of its messages, the mark of a window
// whose Veil answers them, whether a window is within reach, and how one
// question goes to another frame and waits for its answer.

export const FRAMES = 'dev.veil/frames';
/** Marks a window whose Veil answers frames: a same-origin window is asked only when it has one. */
export const MARK = Symbol.for(FRAMES);

/** reachable says whether this frame can reach w's document: w is same-origin. */
export const reachable = (w) => {
  try {
    return w.document !== undefined;
  } catch {
    return false;
  }
};

/**
 * ask puts one question to another frame on a port of its own and
 * resolves with the first answer's data, or with undefined when send
 * cannot post it (it returns false or throws), or nothing comes within
 * wait ms. send posts the question with the port it is handed; the
 * answer comes on that port alone, never through a window.
 * @param {(port: MessagePort) => boolean} send
 * @param {number} wait
 * @returns {Promise<any>}
 */
export const ask = (send, wait) =>
  new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    const done = (v) => {
      clearTimeout(timer);
      port1.onmessage = null;
      port1.close();
      resolve(v);
    };
    const timer = setTimeout(done, wait);
    port1.onmessage = (e) => done(e.data);
    let sent = false;
    try {
      sent = send(port2);
    } catch {}
    if (!sent) done(undefined);
  });
