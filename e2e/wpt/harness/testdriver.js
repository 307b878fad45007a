// veil-wpt's stand-in for WPT's testdriver.js: the runner drives no user
// input into pages, so every test_driver call rejects, saying so, and a
// test that needs one fails with that reason rather than a ReferenceError.
'use strict';
window.test_driver = new Proxy({}, {
  get(_, name) {
    if (typeof name !== 'string' || name === 'then') return undefined;
    return () => Promise.reject(new Error(`veil-wpt: test_driver.${name} is not supported`));
  },
});
window.test_driver_internal = window.test_driver;
