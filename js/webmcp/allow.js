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
 * @param {string} allow
 * @param {string} origin
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
  if (list === undefined) return origin !== 'null' && origin === self;
  return list.some((t) => {
    if (t === '*') return true;
    if (origin === 'null') return false;
    const token = t.toLowerCase();
    if (token === "'self'") return origin === self;
    if (token === "'src'") return origin === src();
    if (token.startsWith("'")) return false;
    return originOf(t, undefined) === origin;
  });
};
