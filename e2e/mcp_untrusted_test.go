package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMCPUntrustedEvents: a MessageEvent page script makes (isTrusted
// false) can name this window as its source and an allowed origin; the
// server answers none, and runs no call for one. The same messages posted
// for real are answered, so the crafting is sound. Chromium as shipped
// and with its own WebMCP on.
func TestMCPUntrustedEvents(t *testing.T) {
	t.Parallel() // in a tab of its own
	needNPM(t)
	for _, b := range []struct {
		name string
		b    func() *browser
	}{{"plain", func() *browser { return plain }}, {"native", func() *browser { return native }}} {
		t.Run(b.name, func(t *testing.T) {
			tb := openTab(t, b.b())
			tb.navigate("mcp/page.html?mode=worker&origins=" + urlQuery(server.URL))
			require.Equal(t, "worker", eval[string](tb, `veil.ready.then(() => veil.mode)`))
			registerMCPTools(t, tb)
			tb.poll(`performance.getEntriesByType("resource").some((e) => new URL(e.name).pathname === "/dist/veil-mcp.js")`)
			// The server said it is ready once, as it started.
			tb.poll(`window.posted.length === 1`)

			messages := `[
				"mcp-check-ready",
				{jsonrpc: "2.0", id: 1, method: "initialize", params: {protocolVersion: "2025-11-25", capabilities: {}, clientInfo: {name: "x", version: "1"}}},
				{jsonrpc: "2.0", id: 2, method: "tools/call", params: {name: "list_orders", arguments: {}}},
				{jsonrpc: "2.0", id: 3, method: "ping"},
			].map((payload) => ({channel: "mcp-default", type: "mcp", direction: "client-to-server", payload}))`
			eval[bool](tb, `(() => {
				for (const data of `+messages+`)
					dispatchEvent(new MessageEvent("message", {data, origin: location.origin, source: window}));
				return true;
			})()`)
			// Barriers: a message round trip, then two calls through the
			// engine (an accepted tools/call would have reached it first).
			eval[bool](tb, `new Promise((resolve) => {
				addEventListener("message", function f(e) {
					if (e.data === "barrier") resolve(true);
				});
				postMessage("barrier", "*");
			})`)
			for range 2 {
				eval[settled](tb, `e2e.execute("document", "list_orders", {})`).String(t)
			}
			assert.Equal(t, 1, eval[int](tb, `window.posted.length`), "the server answered a MessageEvent page script made")
			assert.Equal(t, 2, eval[int](tb, `e2e.calls.filter((c) => c.tool === "list_orders").length`), "only the page's own calls ran")

			eval[bool](tb, `(() => {
				for (const data of `+messages+`) postMessage(data, location.origin);
				return true;
			})()`)
			tb.poll(`window.posted.length === 5`)
			tb.poll(`e2e.calls.filter((c) => c.tool === "list_orders").length === 3`)
		})
	}
}
