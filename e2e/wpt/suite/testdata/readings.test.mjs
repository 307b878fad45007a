// readings.test.mjs checks what webmcp/sensitive/resources/sensitive.js
// reads an output as, under Node's own test runner: each decoding finds a
// secret written in it, and a text that holds no secret gives none.
// TestSensitiveJS runs it (node --test).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import vm from "node:vm";

const source = fs.readFileSync(new URL("../../webmcp/sensitive/resources/sensitive.js", import.meta.url), "utf8");

/**
 * load runs sensitive.js in a context of its own, with the little of a
 * page it needs: testharness.js's assertions, which the readings do not
 * call, and a textarea that reads numeric character references (the
 * browser's parser reads every other one).
 */
function load() {
  const fail = () => {
    throw new Error("an assertion ran");
  };
  const textarea = () => {
    const el = {};
    Object.defineProperty(el, "innerHTML", {
      set(v) {
        el.value = v
          .replace(/^&#[xX]([0-9A-Fa-f]+);?$/, (_, h) => String.fromCodePoint(parseInt(h, 16)))
          .replace(/^&#([0-9]+);?$/, (_, d) => String.fromCodePoint(Number(d)))
          .replace(/^&amp;?$/, "&");
      },
    });
    return el;
  };
  const context = {
    document: { createElement: textarea },
    step_timeout: setTimeout,
    assert_true: fail,
    assert_false: fail,
    assert_equals: fail,
    assert_not_equals: fail,
    TextDecoder,
    atob,
    crypto,
  };
  context.globalThis = context;
  vm.runInNewContext(source, context);
  return context.sensitive;
}

const sensitive = load();
const secret = "sk_live_Zq81vT0pLm42";
const hex = Buffer.from(secret).toString("hex");
const basic = Buffer.from(`ada:${secret}`).toString("base64");

/** found gives the decodings a text was read through to find s, or null. */
function found(text, s) {
  for (const [reading, how] of sensitive.readings(text)) if (reading.toLowerCase().includes(s.toLowerCase())) return how || "as it is";
  return null;
}

const written = [
  ["as it is", `key ${secret} here`, "as it is"],
  ["in another case", secret.toUpperCase(), "as it is"],
  ["as JSON text in JSON text", JSON.stringify({ text: JSON.stringify({ key: secret }) }), "as it is"],
  ["with \\u escapes", [...secret].map((c) => `\\u00${c.charCodeAt(0).toString(16)}`).join(""), "escapes"],
  ["with \\x escapes", [...secret].map((c) => `\\x${c.charCodeAt(0).toString(16)}`).join(""), "escapes"],
  ["percent-encoded", encodeURIComponent(secret).replaceAll("_", "%5F"), "percent-encoding"],
  ["as decimal references", [...secret].map((c) => `&#${c.charCodeAt(0)};`).join(""), "HTML references"],
  ["as hex references", [...secret].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join(""), "HTML references"],
  ["in base64", `Authorization: Basic ${basic}`, "base64"],
  ["in base64url", Buffer.from(`??>${secret}`).toString("base64url"), "base64"],
  ["in base64 wrapped in lines", `${basic.slice(0, 10)}\n  ${basic.slice(10)}`, "base64"],
  ["in hex", `0x${hex}`, "hex"],
  ["in hex with colons", hex.match(/../g).join(":"), "hex"],
  ["in hex from an odd digit", `f${hex}`, "hex"],
  ["in fullwidth letters", [...secret].map((c) => (/[A-Za-z0-9]/.test(c) ? String.fromCodePoint(c.codePointAt(0) + 0xfee0) : c)).join(""), "Unicode forms"],
  ["with a zero-width space", `${secret.slice(0, 6)}\u200b${secret.slice(6)}`, "invisible characters"],
  ["in base64 of hex", Buffer.from(hex).toString("base64"), "base64, then hex"],
];

for (const [name, text, how] of written) {
  test(`a secret ${name} is found`, () => {
    assert.equal(found(text, secret), how, `found(${JSON.stringify(text)})`);
  });
}

test("a text without the secret gives no reading that holds it", () => {
  for (const text of ["nothing here, 4111 and SGVsbG8gV29ybGQ=", "sk_live_ and Zq81vT0p but not together", ""]) assert.equal(found(text, secret), null, text);
});

test("an output of megabytes is searched as it is", () => {
  const big = "x".repeat(2 << 20) + secret;
  assert.equal(found(big, secret), "as it is");
  assert.equal(found("x".repeat(2 << 20) + hex, secret), null, "a long text is not decoded");
});

test("serialized is what an agent gets when nothing is withheld", () => {
  const cases = [
    ["a", "a"],
    ["", "Operation succeeded"],
    [undefined, "undefined"],
    [null, "null"],
    [{ k: [1.5] }, '{"k":[1.5]}'],
    [() => 1, "undefined"],
  ];
  for (const [value, want] of cases) assert.equal(sensitive.serialized(value), want, String(value));
});
