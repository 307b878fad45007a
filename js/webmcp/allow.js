// The "tools" permissions policy as an iframe's allow attribute declares
// it, read by Veil itself where the browser does not know the feature
// (Chromium without its own WebMCP, Firefox, WebKit), which drops the
// directive as unrecognised. The frame that holds the iframe reads the
// attribute (container.js); the framed document cannot.

/** originOf is the origin of url resolved against base, or "null" for none. */
export const originOf = (url, base) => {
  try {
    return new URL(url, base).origin;
  } catch {
    return 'null';
  }
};

/**
 * allowAllows says whether an allow attribute's value lets "tools" reach
 * a document at origin, in the frame of a document at self, as the
 * Permissions Policy spec reads a container policy: the first "tools"
 * directive's allowlist (*, 'self', 'src', 'none' or origins; none given
 * is 'src', the origin src() names), or, with no such directive, the
 * feature's default 'self'. An opaque origin ("null") is only in *.
 *
 * origin undefined is a document of another origin than self that the
 * caller cannot name (a cross-origin frame between it and a frame that
 * asks): the answer is whether the allowlist may hold such an origin at
 * all, so that a list that holds none ('none', 'self', the default)
 * refuses whatever that document is.
 * @param {string} allow
 * @param {string | undefined} origin
 * @param {string} self
 * @param {() => string} src
 */
export const allowAllows = (allow, origin, self, src) => {
  let list;
  for (const directive of allow.split(';')) {
    const [feature, ...tokens] = directive.trim().split(/\s+/);
    if (feature.toLowerCase() === 'tools') {
      list = tokens.length ? tokens : ["'src'"];
      break;
    }
  }
  // Another origin than self, unnamed: any origin the list names but self may be it.
  const is = origin === undefined ? (o) => o !== 'null' && o !== self : (o) => o === origin;
  if (list === undefined) return origin !== 'null' && is(self);
  return list.some((t) => {
    if (t === '*') return true;
    if (origin === 'null') return false;
    const token = t.toLowerCase();
    if (token === "'self'") return is(self);
    if (token === "'src'") return is(src());
    if (token.startsWith("'")) return false;
    return is(originOf(t, undefined));
  });
};
