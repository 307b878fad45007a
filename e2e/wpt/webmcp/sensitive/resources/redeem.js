// redeem.js: helpers for the tests of the redemption endpoint of secret
// references (redeem-*.html). They need the fixture endpoints of the
// runner, on the page's own origin:
//
//   POST /wpt/issue   {"owner", "value", "label", "ttl"?} stores a secret
//                     for its owner and answers with the secret_reference
//                     ({"type", "id", "label", "redeemUrl", "ttl"})
//   GET  /redeem/{id} the redemption endpoint; the cookie wpt_user names
//                     the user who asks
//   GET  /wpt/origins {"same", "remote"}: this origin, and a second,
//                     cross-site origin that serves the same tree and
//                     endpoints, sharing their store
//
// It defines one global, `redeem`. Load it after testharness.js.
"use strict";

(() => {
  /** token is a random word, for owners and values no other test uses. */
  const token = () => crypto.randomUUID().replaceAll("-", "");

  /**
   * user makes a user of its own for the test: its name, for issue's
   * owner. signIn makes the page's requests carry it.
   */
  const user = (who = "alice") => `${who}-${token()}`;

  /**
   * signIn sets the cookie the endpoint reads the user from. It is
   * SameSite=None where the browser takes it (Secure, which a loopback
   * origin may set over http), so that a request another site makes
   * carries it too, as a cookie set by a site that needs it cross-site
   * would be: a refusal of that request then owes nothing to a missing
   * cookie. Elsewhere it is the default, Lax.
   */
  function signIn(name) {
    document.cookie = `wpt_user=${name}; path=/; SameSite=None; Secure`;
    if (!document.cookie.split("; ").includes(`wpt_user=${name}`)) document.cookie = `wpt_user=${name}; path=/; SameSite=Lax`;
  }

  /**
   * issue stores a secret for owner and returns its reference and the
   * value: {ref, value}.
   */
  async function issue({ owner, value = `secret-${token()}`, label = "API key", ttl } = {}) {
    const response = await fetch("/wpt/issue", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ owner, value, label, ...(ttl !== undefined && { ttl }) }),
    });
    assert_equals(response.status, 200, "POST /wpt/issue (the runner's fixture endpoint) answers 200");
    const ref = await response.json();
    assert_equals(ref.type, "secret_reference", "the fixture answers with a secret_reference");
    assert_equals(typeof ref.id, "string", "the reference's id");
    assert_equals(typeof ref.redeemUrl, "string", "the reference's redeemUrl");
    return { ref, value };
  }

  /** fetchSecret fetches a redeemUrl as the user's browser does: a same-origin GET. */
  const fetchSecret = (url, init = {}) => fetch(url, { credentials: "same-origin", cache: "no-store", ...init });

  /**
   * assertRedeems checks that the owner's same-origin fetch of the
   * redeemUrl gets 200 and the value: nothing before it consumed it.
   */
  async function assertRedeems(url, value, what = "the owner's same-origin fetch") {
    const response = await fetchSecret(url);
    assert_equals(response.status, 200, `${what} gets 200`);
    const body = await response.json();
    assert_equals(body.value, value, `${what} gets {"value": the secret}`);
  }

  /** assertStatus fetches url and checks the status; the body must not hold value. */
  async function assertStatus(url, status, value, init = {}, what = "the fetch") {
    const response = await fetchSecret(url, init);
    assert_equals(response.status, status, `${what}: status`);
    const text = await response.text();
    if (value !== undefined) assert_false(text.includes(value), `${what}: the body does not hold the secret`);
    return response;
  }

  /** origins gives {same, remote}, the fixture's two origins. */
  async function origins() {
    const response = await fetch("/wpt/origins");
    assert_equals(response.status, 200, "GET /wpt/origins (the runner's fixture endpoint) answers 200");
    return response.json();
  }

  /** load waits for an element's load or error event, and says which. */
  const load = (el) =>
    new Promise((resolve) => {
      el.addEventListener("load", () => resolve("load"), { once: true });
      el.addEventListener("error", () => resolve("error"), { once: true });
    });

  /** wait resolves after ms milliseconds. */
  const wait = (ms) => new Promise((resolve) => step_timeout(resolve, ms));

  globalThis.redeem = { token, user, signIn, issue, fetchSecret, assertRedeems, assertStatus, origins, load, wait };
})();
