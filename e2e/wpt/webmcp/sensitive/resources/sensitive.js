// sensitive.js: helpers for the tests of webmcp/sensitive, which check that
// a WebMCP implementation keeps what a tool declares sensitive out of what
// executeTool gives an agent.
//
// Everything here goes through the draft's page API only:
// document.modelContext.registerTool (with a signal that ends the
// registration when the test ends), getTools and executeTool. Nothing
// reads an implementation's own objects.
//
// It defines one global, `sensitive`. Load it after testharness.js.
"use strict";

(() => {
  /** maxDepth bounds how many decodings deep a reading of an output goes. */
  const maxDepth = 4;
  /** maxReadings bounds how many readings of one output are searched. */
  const maxReadings = 4096;
  /**
   * maxDecodedLength bounds the texts that are decoded: a longer one (an
   * output of megabytes) is searched as it is and read as JSON only.
   */
  const maxDecodedLength = 1 << 20;
  /** maxPresentDepth bounds how deep JSON text in JSON strings is read. */
  const maxPresentDepth = 8;

  /**
   * registerTool registers def with the execute callback for the length
   * of the test t, and returns the tool as getTools lists it.
   */
  async function registerTool(t, def, execute) {
    const registration = new AbortController();
    await document.modelContext.registerTool({ ...def, execute }, { signal: registration.signal });
    t.add_cleanup(() => registration.abort());
    const tool = (await document.modelContext.getTools()).find((x) => x.name === def.name);
    assert_true(tool !== undefined, `getTools() lists the tool ${def.name}`);
    return tool;
  }

  /**
   * @typedef {{ok: true, value: any, calls: number} | {ok: false, error: any, calls: number}} Outcome
   * What one executeTool call gave: the value it resolved with or the
   * error it rejected with, and how many times execute ran.
   */

  /**
   * callTool registers the tool of c ({tool, input, execute}) and calls it
   * once through executeTool. A thrown execute is c.execute throwing.
   * @returns {Promise<Outcome>}
   */
  async function callTool(t, c) {
    let calls = 0;
    const tool = await registerTool(t, c.tool, (input, client) => {
      calls++;
      return c.execute(input, client);
    });
    try {
      const value = await document.modelContext.executeTool(tool, c.input ?? {});
      return { ok: true, value, calls };
    } catch (error) {
      return { ok: false, error, calls };
    }
  }

  /**
   * callEarlier makes a case's earlier calls, in order, each on a tool of
   * its own, and checks that each resolved, ran execute once and gave
   * none of the absent strings.
   */
  async function callEarlier(t, calls, absent) {
    for (const [i, c] of calls.entries()) {
      const outcome = await callTool(t, c);
      const what = `earlier call ${i} (${c.tool.name})`;
      assertResolved(outcome, what);
      assertAbsent(outcome, absent, what);
    }
  }

  /** text is what an agent reads of a value executeTool gave. */
  function text(value) {
    if (typeof value === "string") return value;
    try {
      const s = JSON.stringify(value);
      if (s !== undefined) return s;
    } catch {}
    return String(value);
  }

  /** seen is everything an agent could read of an outcome. */
  function seen(outcome) {
    if (outcome.ok) return [text(outcome.value)];
    const e = outcome.error;
    const out = [];
    for (const read of [() => e?.name, () => e?.message, () => String(e), () => JSON.stringify(e)]) {
      try {
        const s = read();
        if (typeof s === "string") out.push(s);
      } catch {}
    }
    return out;
  }

  /** assertResolved checks that the call resolved and ran execute once. */
  function assertResolved(outcome, what = "executeTool") {
    assert_true(outcome.ok, `${what} resolves (it rejected with ${outcome.ok ? "" : describe(outcome.error)})`);
    assert_equals(outcome.calls, 1, `${what} ran execute once`);
  }

  /**
   * assertRejects checks that the call rejected with an error of the
   * name; for an input the call refuses, that execute never ran.
   */
  function assertRejects(outcome, name, what = "executeTool") {
    assert_false(outcome.ok, `${what} rejects (it resolved with ${outcome.ok ? JSON.stringify(text(outcome.value)).slice(0, 200) : ""})`);
    assert_equals(outcome.error?.name, name, `the name of the error ${what} rejects with (${describe(outcome.error)})`);
    if (name === "DataError" || name === "TypeError") assert_equals(outcome.calls, 0, `execute ran for input ${what} refused`);
  }

  function describe(e) {
    try {
      return `${e?.name}: ${e?.message}`;
    } catch {
      return typeof e;
    }
  }

  /**
   * assertAbsent checks that no string of absent is anywhere in what the
   * outcome gives, as it is or in any reading of it (see readings).
   */
  function assertAbsent(outcome, absent, what = "executeTool") {
    if (absent.length === 0) return;
    for (const s of seen(outcome)) {
      const all = readings(s);
      for (const a of absent) {
        const found = findIn(all, a);
        assert_true(found === null, `${JSON.stringify(a)} must not be in what ${what} gives, but it is there, read ${found}: ${JSON.stringify(s).slice(0, 300)}`);
      }
    }
  }

  /**
   * findIn returns how a string is found among the readings, as the name
   * of the decodings that led to it, or null.
   */
  function findIn(all, s) {
    const lower = s.toLowerCase();
    for (const [reading, how] of all) {
      if (reading.includes(s) || reading.toLowerCase().includes(lower)) return how || "as it is";
    }
    return null;
  }

  /**
   * readings decodes a text as a reader would, to maxDepth decodings
   * deep: JSON text and JSON or JavaScript escapes, percent-encoding,
   * HTML character references, base64 and base64url, hex, Unicode
   * compatibility forms and invisible characters. It returns each
   * reading with the decodings that made it.
   * @returns {Map<string, string>}
   */
  function readings(s) {
    const out = new Map([[s, ""]]);
    let frontier = [s];
    for (let depth = 0; depth < maxDepth && frontier.length > 0; depth++) {
      const next = [];
      for (const from of frontier) {
        for (const [name, decode] of decoders) {
          if (from.length > maxDecodedLength && decode !== json) continue;
          for (const r of attempt(decode, from)) {
            if (typeof r !== "string" || r === "" || out.has(r)) continue;
            if (out.size >= maxReadings) return out;
            const how = out.get(from);
            out.set(r, how ? `${how}, then ${name}` : name);
            next.push(r);
          }
        }
      }
      frontier = next;
    }
    return out;
  }

  /**
   * attempt gives the readings of one decoder; a decoder that fails (a
   * regular expression out of stack on a text of megabytes) gives none.
   */
  function attempt(decode, s) {
    try {
      return [...decode(s)];
    } catch {
      return [];
    }
  }

  /** strings yields every string and member name of a JSON value. */
  function* strings(v) {
    if (typeof v === "string") yield v;
    else if (Array.isArray(v)) for (const x of v) yield* strings(x);
    else if (v !== null && typeof v === "object")
      for (const [k, x] of Object.entries(v)) {
        yield k;
        yield* strings(x);
      }
  }

  /** json reads a text as JSON: each string and name it holds. */
  function* json(s) {
    const t = s.trim();
    if (!/^[\[{"]/.test(t)) return;
    let v;
    try {
      v = JSON.parse(t);
    } catch {
      return;
    }
    yield* strings(v);
  }

  const simpleEscapes = { n: "\n", r: "\r", t: "\t", b: "\b", f: "\f", v: "\v", 0: "\0" };

  /**
   * escapes undoes JSON's, JavaScript's and Python's backslash escapes
   * wherever they stand, without reading the text as JSON.
   */
  function* escapes(s) {
    if (!s.includes("\\")) return;
    yield s.replace(/\\(?:u\{([0-9A-Fa-f]{1,6})\}|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|x([0-9A-Fa-f]{2})|(.))/gs, (m, braced, u4, u8, x2, other) => {
      const hex = braced ?? u4 ?? u8 ?? x2;
      if (hex !== undefined) {
        const cp = parseInt(hex, 16);
        return cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
      }
      return simpleEscapes[other] ?? other;
    });
  }

  /** percent undoes percent-encoding, as UTF-8 and byte by byte, and %uXXXX. */
  function* percent(s) {
    if (!/%[0-9A-Fa-f]{2}|%u[0-9A-Fa-f]{4}/.test(s)) return;
    const u = s.replace(/%u([0-9A-Fa-f]{4})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
    const utf8 = u.replace(/(?:%[0-9A-Fa-f]{2})+/g, (m) => {
      try {
        return decodeURIComponent(m);
      } catch {
        return utf8Bytes(m.match(/%([0-9A-Fa-f]{2})/g).map((p) => parseInt(p.slice(1), 16)));
      }
    });
    yield utf8;
    yield u.replace(/%([0-9A-Fa-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
    if (utf8.includes("+")) yield utf8.replaceAll("+", " ");
  }

  /** decodedReference caches what the browser reads an HTML character reference as. */
  const decodedReference = new Map();

  /** html undoes HTML character references, as the browser's parser reads them. */
  function* html(s) {
    if (!/&(?:#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);?/.test(s)) return;
    yield s.replace(/&(?:#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);?/g, (ref) => {
      if (!decodedReference.has(ref)) {
        // A textarea's content is text: the reference alone, which holds
        // no "<", is read as the parser reads it in a page.
        const area = document.createElement("textarea");
        area.innerHTML = ref;
        decodedReference.set(ref, area.value);
      }
      return decodedReference.get(ref);
    });
  }

  /** utf8Bytes reads bytes as UTF-8, with U+FFFD where they are not. */
  function utf8Bytes(bytes) {
    return new TextDecoder("utf-8").decode(new Uint8Array(bytes));
  }

  /** latin1Bytes reads bytes as Latin-1, one character a byte. */
  function latin1Bytes(bytes) {
    let out = "";
    for (const b of bytes) out += String.fromCharCode(b);
    return out;
  }

  /**
   * base64 decodes each run of base64 or base64url of eight characters or
   * more, from each of its first four characters (one of them starts its
   * groups), as UTF-8 and as Latin-1. Lines a run is wrapped in are joined
   * first.
   */
  function* base64(s) {
    const joined = s.replace(/([A-Za-z0-9+/_-])(?:\\r|\\n|\r|\n)+[ \t]*(?=[A-Za-z0-9+/_-])/g, "$1");
    for (const text of joined === s ? [s] : [s, joined]) {
      for (const [run] of text.matchAll(/[A-Za-z0-9+/_-]{8,}={0,2}/g)) {
        const bare = run.replace(/=+$/, "").replaceAll("-", "+").replaceAll("_", "/");
        for (let start = 0; start < 4 && bare.length - start >= 6; start++) {
          let part = bare.slice(start);
          part = part.slice(0, part.length - (part.length % 4 === 1 ? 1 : 0));
          let bytes;
          try {
            bytes = Uint8Array.from(atob(part + "=".repeat((4 - (part.length % 4)) % 4)), (c) => c.charCodeAt(0));
          } catch {
            continue;
          }
          yield utf8Bytes(bytes);
          yield latin1Bytes(bytes);
        }
      }
    }
  }

  /**
   * hex decodes each run of hex digits of eight or more, with or without a
   * ":", "-" or space between bytes, from its first and second digit, as
   * UTF-8 and as Latin-1.
   */
  function* hex(s) {
    for (const [run] of s.matchAll(/[0-9A-Fa-f]{2}(?:[:\- ]?[0-9A-Fa-f]{2}){3,}[0-9A-Fa-f]?/g)) {
      const digits = run.replace(/[:\- ]/g, "");
      for (const start of [0, 1]) {
        const bytes = [];
        for (let i = start; i + 1 < digits.length; i += 2) bytes.push(parseInt(digits.slice(i, i + 2), 16));
        yield utf8Bytes(bytes);
        yield latin1Bytes(bytes);
      }
    }
  }

  /** unicode reads compatibility forms (fullwidth) and composed forms as one. */
  function* unicode(s) {
    if (/^[\x00-\x7f]*$/.test(s)) return;
    yield s.normalize("NFKC");
    yield s.normalize("NFKD").replace(/\p{M}/gu, "");
  }

  /** invisible takes out the characters a reader does not see. */
  function* invisible(s) {
    const r = s.replace(/[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u206a-\u206f\ufeff]/g, "");
    if (r !== s) yield r;
  }

  const decoders = [
    ["JSON text", json],
    ["escapes", escapes],
    ["percent-encoding", percent],
    ["HTML references", html],
    ["base64", base64],
    ["hex", hex],
    ["Unicode forms", unicode],
    ["invisible characters", invisible],
  ];

  /**
   * present reports whether s is in text, as it is or in a string or
   * member name of text read as JSON, or of JSON text such a string holds.
   */
  function present(t, s, depth = 0) {
    if (t.includes(s)) return true;
    if (depth >= maxPresentDepth) return false;
    let v;
    try {
      v = JSON.parse(t);
    } catch {
      return false;
    }
    for (const x of strings(v)) if (present(x, s, depth + 1)) return true;
    return false;
  }

  /** assertPresent checks that every string of want reaches the agent. */
  function assertPresent(outcome, want) {
    const t = text(outcome.value);
    for (const s of want) assert_true(present(t, s), `${JSON.stringify(s)} is in what executeTool gives: ${JSON.stringify(t).slice(0, 500)}`);
  }

  /**
   * serialized is what an agent gets of a value when nothing is withheld:
   * a string as it is ("" as "Operation succeeded", as the draft's
   * implementation in Chromium gives it), anything else as JSON.stringify
   * writes it, "undefined" when that writes nothing.
   */
  function serialized(v) {
    if (typeof v === "string") return v === "" ? "Operation succeeded" : v;
    const s = JSON.stringify(v);
    return s === undefined ? "undefined" : s;
  }

  /** assertPassedThrough checks that the agent got the output as it is. */
  function assertPassedThrough(outcome, output) {
    const want = serialized(output);
    assert_equals(typeof outcome.value, "string", "executeTool resolves with a string");
    assert_true(outcome.value === want, `executeTool gives the output as it is: got ${JSON.stringify(outcome.value).slice(0, 300)}, want ${JSON.stringify(want).slice(0, 300)}`);
  }

  /**
   * listedWithheld returns the JSON Pointers a result lists as withheld in
   * its _meta, under whichever key the implementation uses, or null.
   */
  function listedWithheld(value) {
    let v;
    try {
      v = JSON.parse(text(value));
    } catch {
      return null;
    }
    const meta = v?._meta;
    if (meta === null || typeof meta !== "object") return null;
    for (const m of Object.values(meta)) if (m !== null && typeof m === "object" && Array.isArray(m.withheld)) return m.withheld;
    return null;
  }

  /**
   * assertWithheld checks that something was taken out of the output: the
   * agent does not get it as it is. An implementation that lists the
   * withheld locations in _meta ({"withheld": [JSON Pointers]}, under a key
   * of its own) must list as many as the case withholds.
   */
  function assertWithheld(outcome, pointers, output) {
    if (output !== undefined) assert_not_equals(outcome.value, serialized(output), "executeTool does not give the output as it is");
    const listed = listedWithheld(outcome.value);
    if (listed !== null) assert_equals(listed.length, pointers.length, `the number of withheld locations listed in _meta (${JSON.stringify(listed)}; want ${JSON.stringify(pointers)})`);
  }

  // --- Registration scripts ---

  /** tick waits for one task. */
  const tick = () => new Promise((resolve) => step_timeout(resolve, 0));

  /**
   * scriptHelpers are what a registration script may use beside mc, the
   * document's ModelContext.
   */
  const scriptHelpers = {
    /** tool makes a definition: name, description "d", execute returning "x". */
    tool: (name, extra = {}) => ({ name, description: "d", execute: () => "x", ...extra }),
    /** attempt runs f and gives {ok: true, value?} or {error: name}. */
    async attempt(f) {
      try {
        const value = await f();
        return value === undefined ? { ok: true } : { ok: true, value };
      } catch (e) {
        return { error: e && e.name !== undefined ? String(e.name) : typeof e };
      }
    },
    tick,
    /** until waits, a task at a time, at most 200 tasks, for cond(). */
    async until(cond) {
      for (let i = 0; i < 200; i++) {
        if (cond()) return true;
        await tick();
      }
      return false;
    },
    /** settledWithin gives "resolved", "rejected:<name>" or "pending" after at most n tasks. */
    async settledWithin(p, n = 50) {
      let state = "pending";
      p.then(
        () => (state = "resolved"),
        (e) => (state = `rejected:${e?.name}`),
      );
      for (let i = 0; i < n && state === "pending"; i++) await tick();
      return state;
    },
    /** registered finds a tool of getTools() by name. */
    registered: async (mc, name) => (await mc.getTools()).find((x) => x.name === name),
  };

  /** script runs a registration script against document.modelContext. */
  async function script(body) {
    return body(document.modelContext, scriptHelpers);
  }

  /** canonical writes a JSON value with its members sorted, for comparing. */
  function canonical(v) {
    if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
    if (v !== null && typeof v === "object")
      return `{${Object.keys(v)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
        .join(",")}}`;
    return JSON.stringify(v);
  }

  /** assertOutcome checks a script's outcome, as JSON, against want. */
  function assertOutcome(outcome, want) {
    const got = outcome === undefined ? null : JSON.parse(JSON.stringify(outcome));
    assert_equals(canonical(got), canonical(want), "the outcome of the script");
  }

  globalThis.sensitive = {
    registerTool,
    callTool,
    callEarlier,
    assertResolved,
    assertRejects,
    assertAbsent,
    assertPresent,
    assertPassedThrough,
    assertWithheld,
    serialized,
    readings,
    script,
    assertOutcome,
  };
})();
