// veil-wpt's testharnessreport.js: when testharness.js has run a page's
// tests, post their results to the server that served the page, which
// hands them to the runner waiting for this file. Only the top-level
// page reports: a test page inside a frame is someone else's fixture.
'use strict';
(() => {
  const statuses = ['PASS', 'FAIL', 'TIMEOUT', 'NOTRUN', 'PRECONDITION_FAILED'];
  const harnessStatuses = ['OK', 'ERROR', 'TIMEOUT', 'PRECONDITION_FAILED'];
  const text = (v) => (v == null ? '' : String(v));
  if (window !== window.top) return;
  add_completion_callback((tests, harness) => {
    const body = JSON.stringify({
      path: location.pathname,
      harness: {
        status: harnessStatuses[harness.status] ?? `UNKNOWN(${harness.status})`,
        message: text(harness.message),
      },
      tests: tests.map((t) => ({
        name: t.name,
        status: statuses[t.status] ?? `UNKNOWN(${t.status})`,
        message: text(t.message),
      })),
    });
    fetch('/wpt/results', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
      keepalive: body.length < 60000,
    }).catch((e) => console.error('veil-wpt: posting the results:', e));
  });
})();
