// node --test: the declarative pseudo-classes in the page's selectors.
import test from 'node:test';
import assert from 'node:assert/strict';
import { rewritten } from '../pseudo.js';

test('rewritten reads each pseudo-class as the attribute Veil sets, and nothing else', () => {
  const cases = [
    // [selectors, want, why]
    [':tool-form-active', '[data-veil-tool-form-active]', 'the form pseudo-class'],
    ['form:tool-form-active button:tool-submit-active', 'form[data-veil-tool-form-active] button[data-veil-tool-submit-active]', 'both, compound'],
    ['a, :tool-form-active > b', 'a, [data-veil-tool-form-active] > b', 'in a list'],
    [':not(:tool-form-active)', ':not([data-veil-tool-form-active])', 'inside a functional pseudo-class'],
    ['[title=":tool-form-active"]', '[title=":tool-form-active"]', 'in a double-quoted string'],
    ["[title=':tool-submit-active']", "[title=':tool-submit-active']", 'in a single-quoted string'],
    ['[title="a\\":tool-form-active"]', '[title="a\\":tool-form-active"]', 'in a string with an escaped quote'],
    ['.x\\:tool-form-active', '.x\\:tool-form-active', 'an escaped colon in a class name'],
    [':tool-form-activex', ':tool-form-activex', 'a longer name'],
    [':tool-form-active-x', ':tool-form-active-x', 'a longer name with a hyphen'],
    ['form:hover', 'form:hover', 'another pseudo-class'],
  ];
  for (const [sel, want, why] of cases) assert.equal(rewritten(sel), want, `${sel}: ${why}`);
});
