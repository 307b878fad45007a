// Package js holds Veil's browser scripts: webmcp.js, the one script a
// page includes, written as the ES modules of webmcp/ (webmcp/main.js is
// its entry); worker.js, which runs the engine off the main thread, or
// starts it on the main thread where no Worker can run; veil-secrets.js,
// the <veil-secrets> element with which the user reveals what was
// withheld, written as the ES modules of secrets/ (secrets/main.js);
// veil-confirm.js, the dialog in which the user allows or declines a
// risky call; veil-forms.js, which makes a <form toolname> a tool,
// written as the ES modules of forms/ (forms/main.js); veil-mcp.js, the
// MCP server agents reach over the tab transport; and webmcp.d.ts, their
// TypeScript types. They are plain modern JavaScript;
// [github.com/veilmcp/veil/js/build] writes them, minified, each written
// as modules bundled into one script (webmcp.js and veil-secrets.js
// classic scripts, veil-forms.js the ES module webmcp.js imports), and
// with the engine, into a directory a server can serve. Pages load that
// directory's copies, not these.
package js

import "embed"

// Files holds the scripts and their type declarations, at the root, and
// the modules of the scripts bundled from them, in their folders.
//
//go:embed webmcp/*.js secrets/*.js forms/*.js frames/*.js reveal/*.js restart/*.js worker.js veil-confirm.js veil-mcp.js webmcp.d.ts
var Files embed.FS
