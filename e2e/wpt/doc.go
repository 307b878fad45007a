// Package wpt runs a test suite written in the format of web-platform-tests
// (testharness.js pages) against Veil in real browsers, the way wptrunner
// runs WPT: it serves a WPT-style tree, injects the implementation under
// test into every page, opens each test file in a browser and collects the
// results that the page posts back.
//
// Three modes say what is under test:
//
//   - [ModeRuntime]: Veil's runtime, <script src="/dist/webmcp.js"> as the
//     first element of every page's head, with dist/ built by
//     [github.com/veilmcp/veil/js/build.Dist] and served under /dist/;
//     [ModeRuntimeMain] is the same with the runtime's engine on the
//     page's main thread instead of a Worker (data-veil-mode="main");
//     [ModeLayered] and [ModeLayeredMain] are these two in front of
//     Chromium's own WebMCP, which knows the "tools" permissions policy
//     the runtime needs before it lets cross-origin frames use tools;
//   - [ModeNative]: nothing injected; Chromium with its own WebMCP
//     (--enable-features=WebMCP);
//   - [ModeNone]: nothing injected and no WebMCP: the baseline.
//
// Three engines run them: Chromium over the DevTools protocol (chromedp),
// Firefox over WebDriver BiDi (puppeteer-core, driven by firefox.mjs under
// Node) and WebKit over W3C WebDriver (WebKitWebDriver under Xvfb).
// [Engines] lists them with the modes each runs.
//
// The [Server] serves the tree and, whatever the tree holds:
//
//	/resources/testharness.js        from the npm package wpt-runner (npm ci)
//	/resources/testharnessreport.js  ours: posts each page's results back
//	/common/get-host-info.sub.js     a stand-in naming the two origins
//	/common/blank.html               an empty page, unless the tree has one
//	/dist/                           the runtime, in runtime mode
//	/redeem/{id}                     a redeem.Handler, memory store; the
//	                                 principal is the cookie wpt_user
//	POST /wpt/issue                  {"owner","value","label","ttl"} → the
//	                                 Handler.Issue reference as JSON
//	GET /wpt/origins                 {"same":…,"remote":…}
//	POST /wpt/results                where testharnessreport.js posts
//
// on two origins, http://127.0.0.1:P and http://localhost:Q: cross-site to
// each other, both secure contexts, serving the same tree and the same
// redeem handler.
//
// Command veil-wpt (js/cmd/veil-wpt) and `make wpt` run every mode in every
// engine that runs it; TestSubset runs a few files in runtime mode in all
// three engines as part of `go test ./...`.
//
// Environment:
//
//	CHROME_PATH          Chromium; else chromium, chromium-browser or
//	                     google-chrome on PATH
//	VEIL_FIREFOX_PATH    Firefox; else firefox-esr or firefox on PATH
//	VEIL_WEBKIT_DRIVER   WebKitWebDriver; else WebKitWebDriver on PATH
//	VEIL_XVFB_PATH       Xvfb; else Xvfb on PATH
//	VEIL_SKIP_BROWSER    set to 1 to skip Chromium in the tests when it is
//	                     missing (as in package e2e); without it a
//	                     missing Chromium fails them
//	VEIL_SKIP_FIREFOX    the same for Firefox (and Node)
//	VEIL_SKIP_WEBKIT     the same for WebKitWebDriver and Xvfb
//	VEIL_SKIP_NPM        set to 1 to skip the tests when npm ci has not
//	                     run (testharness.js and puppeteer-core come
//	                     from node_modules)
package wpt
