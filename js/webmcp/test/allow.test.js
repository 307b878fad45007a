// node --test: the "tools" policy an iframe's allow attribute declares.
import test from 'node:test';
import assert from 'node:assert/strict';
import { allowAllows } from '../allow.js';

const self = 'https://parent.test';
const src = () => 'https://child.test';

test('allowAllows reads the first tools directive of an allow attribute', () => {
  const cases = [
    // [allow, origin, want, why]
    ['', self, true, "no directive: the default 'self'"],
    ['', 'https://child.test', false, "no directive: another origin is not 'self'"],
    ['camera *', 'https://child.test', false, 'a directive of another feature only'],
    ['tools', 'https://child.test', true, "no allowlist is 'src'"],
    ['tools', 'https://other.test', false, "no allowlist is 'src', not any origin"],
    ['tools *', 'https://other.test', true, '* is every origin'],
    ['tools *', 'null', true, '* takes an opaque origin too'],
    ['tools https://child.test', 'https://child.test', true, 'an origin listed'],
    ['tools https://child.test/path?q', 'https://child.test', true, 'a URL listed counts by its origin'],
    ['tools https://child.test', 'https://other.test', false, 'an origin not listed (a frame navigated away)'],
    ["tools 'self'", self, true, "'self' is the embedding document's origin"],
    ["tools 'self'", 'https://child.test', false, "'self' is not the child's"],
    ["tools 'none'", self, false, "'none' is no origin"],
    ["tools 'src'", 'https://child.test', true, "'src' is the src attribute's origin"],
    ['camera *; TOOLS https://child.test', 'https://child.test', true, 'the feature name in any case, after another directive'],
    ['tools https://a.test; tools *', 'https://child.test', false, 'the first tools directive wins'],
    ['tools', 'null', false, 'an opaque origin is only in *'],
    ['', 'null', false, "an opaque origin is not 'self'"],
    ['tools not-a-url', 'https://child.test', false, 'a token that is no URL names no origin'],
  ];
  for (const [allow, origin, want, why] of cases) assert.equal(allowAllows(allow, origin, self, src), want, `${JSON.stringify(allow)} for ${origin}: ${why}`);
});

test('allowAllows for a document of another origin it cannot name asks whether the list may hold one', () => {
  const cases = [
    // [allow, want, why]
    ['', false, "no directive: the default 'self' holds no other origin"],
    ["tools 'self'", false, "'self' is the embedding document's origin only"],
    ["tools 'none'", false, "'none' is no origin"],
    ['camera *', false, 'a directive of another feature only: the default'],
    ['tools *', true, '* is every origin'],
    ['tools', true, "no allowlist is 'src', another origin"],
    ["tools 'src'", true, "'src' is another origin"],
    ['tools https://child.test', true, 'an origin listed, which it may be'],
    [`tools ${self}`, false, 'an origin listed that is self'],
    ['tools not-a-url', false, 'a token that is no URL names no origin'],
  ];
  for (const [allow, want, why] of cases) assert.equal(allowAllows(allow, undefined, self, src), want, `${JSON.stringify(allow)}: ${why}`);
  assert.equal(allowAllows('tools', undefined, self, () => self), false, "'src' naming self's own origin holds no other");
});
