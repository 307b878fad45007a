package e2e

import (
	"net/http"
	"path/filepath"
	"testing"
)

// globalPage serves @mcp-b/global's self-contained script, as
// package.json pins it, with the MCP client.
const globalPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>mcp: @mcp-b/global</title>
<link rel="icon" href="data:,">
<script src="/mcp/global.iife.js"></script>
<script src="/mcp/client.bundle.js"></script>
</head>
<body></body>
</html>
`

// handleMCPGlobal serves the @mcp-b/global page and its script.
func handleMCPGlobal(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/mcp/global.iife.js" {
		w.Header().Set("Content-Type", "text/javascript")
		http.ServeFile(w, r, filepath.Join("..", "node_modules", "@mcp-b", "global", "dist", "index.iife.js"))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(globalPage))
}

// mcpRoundTrip is the in-page timing of a small tools/call through the
// tab transport: the mean of 500 calls after 50 warm ones, in milliseconds.
const mcpRoundTrip = `(async () => {
	await document.modelContext.registerTool({name: "small", description: "A small tool", inputSchema: {type: "object", properties: {}},
		execute: () => ({content: [{type: "text", text: "ok"}]})});
	const client = await mcp.connect();
	const once = () => client.callTool({name: "small", arguments: {}});
	for (let i = 0; i < 50; i++) await once();
	// The clock is coarse (0.1 ms) outside cross-origin isolation: the
	// mean over many calls, not each call, is timed.
	const t0 = performance.now();
	for (let i = 0; i < 500; i++) await once();
	return (performance.now() - t0) / 500;
})()`

// BenchmarkMCPTab compares a small tools/call round trip through the tab
// transport, Veil's server (engine in a Worker, and on the main thread)
// against @mcp-b/global's, in the same browser run. Budget: ratio ≤ 1.5.
func BenchmarkMCPTab(b *testing.B) {
	if _, err := mcpBundle(); err != nil {
		b.Fatal(err)
	}
	ms := map[string]float64{}
	for range b.N {
		for _, page := range []string{"worker", "main", "global"} {
			tb := openTab(b, plain)
			if page == "global" {
				tb.navigate("mcp/global.html")
			} else {
				tb.navigate("mcp/page.html?bench&mode=" + page + "&origins=" + urlQuery(server.URL))
			}
			ms[page] = eval[float64](tb, mcpRoundTrip)
			tb.close()
		}
	}
	b.ReportMetric(ms["global"], "global-ms/call")
	b.ReportMetric(ms["worker"], "worker-ms/call")
	b.ReportMetric(ms["main"], "main-ms/call")
	b.ReportMetric(ms["worker"]/ms["global"], "worker-ratio")
	b.ReportMetric(ms["main"]/ms["global"], "main-ratio")
}
