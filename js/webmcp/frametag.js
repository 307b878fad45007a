// What every part of the frames code agrees on, the page's and the lazily
// loaded veil-frames.js: the tag of its messages, the mark of a window
// whose Veil answers them, and whether a window is within reach.

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
