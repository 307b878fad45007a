// The browser's side of Reveal and Copy: the user's activation and the
// clipboard.

/** active says whether the user just clicked or pressed a key, as veil.reveal asks. */
export const active = () => !!navigator.userActivation?.isActive;

/**
 * clipboardAccess is what the browser says of writing to the clipboard:
 * "granted", "denied", "prompt", or "unknown" where it can't be asked
 * (Firefox and Safari know no clipboard-write permission).
 * @returns {Promise<string>}
 */
export const clipboardAccess = async () => {
  try {
    return (await navigator.permissions.query({ name: /** @type {PermissionName} */ ('clipboard-write') })).state;
  } catch {
    return 'unknown';
  }
};

/**
 * write puts text that is still to come on the clipboard, and resolves
 * with whether the browser took it. Call it within the click: Safari lets
 * a page write only there, and a ClipboardItem takes the text as a
 * promise, so the write can start before the value has arrived.
 * @param {Promise<string>} text
 * @returns {Promise<boolean>}
 */
export const write = (text) => {
  let done;
  try {
    const blob = text.then((t) => new Blob([t], { type: 'text/plain' }));
    // The write reports a value that never came; this promise need not.
    blob.catch(() => {});
    done = navigator.clipboard.write([new ClipboardItem({ 'text/plain': blob })]);
  } catch {
    // No ClipboardItem, or one that takes no promise: write the text once it is here.
    done = text.then((t) => navigator.clipboard.writeText(t));
  }
  return done.then(
    () => true,
    () => false,
  );
};
