package e2e

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests hold veil-mcp.js, the MCP server over the tab transport,
// against the real client: @mcp-b/transports' TabClientTransport with the
// MCP TypeScript SDK's Client, at the versions package.json pins, bundled
// for the page by the pinned esbuild.

// envSkipNPM, set to 1, skips the tests that need the packages npm ci
// installs; without it a missing node_modules fails them.
const envSkipNPM = "VEIL_SKIP_NPM"

var (
	bundleOnce sync.Once
	bundleFile string
	bundleErr  error
)

// mcpBundle bundles testdata/mcp/client.js, once per run, with the esbuild
// of node_modules, and returns the bundle's file.
func mcpBundle() (string, error) {
	bundleOnce.Do(func() {
		esbuild, err := filepath.Abs(filepath.Join("..", "node_modules", ".bin", "esbuild"))
		if err != nil {
			bundleErr = err
			return
		}
		if _, err := os.Stat(esbuild); err != nil {
			bundleErr = fmt.Errorf("%s is missing: run npm ci at the module root (make test does), or set %s=1 to skip", esbuild, envSkipNPM)
			return
		}
		dir, err := os.MkdirTemp("", "veil-e2e-mcp-")
		if err != nil {
			bundleErr = err
			return
		}
		bundleFile = filepath.Join(dir, "client.bundle.js")
		cmd := exec.Command(esbuild, filepath.Join("testdata", "mcp", "client.js"),
			"--bundle", "--format=iife", "--platform=browser", "--target=chrome120", "--log-level=warning", "--outfile="+bundleFile)
		if out, err := cmd.CombinedOutput(); err != nil {
			bundleErr = fmt.Errorf("bundling the MCP client: %w\n%s", err, out)
		}
	})
	return bundleFile, bundleErr
}

// needNPM skips the test when VEIL_SKIP_NPM=1, and fails it when the MCP
// client cannot be bundled.
func needNPM(t *testing.T) {
	t.Helper()
	if os.Getenv(envSkipNPM) == "1" {
		t.Skipf("%s=1: the npm packages are not used", envSkipNPM)
	}
	_, err := mcpBundle()
	require.NoError(t, err)
}

// handleMCPBundle serves the bundled MCP client.
func handleMCPBundle(w http.ResponseWriter, r *http.Request) {
	f, err := mcpBundle()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/javascript")
	http.ServeFile(w, r, f)
}

var mcpPage = template.Must(template.New("mcp").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>mcp: the tab transport</title>
<link rel="icon" href="data:,">
{{if not .Bench}}<script src="/mcp/traffic.js"></script>
<script src="/harness.js"></script>{{end}}
<script src="/dist/webmcp.js" data-veil-mode="{{.Mode}}" data-veil-mcp="tab"{{if .HasOrigins}} data-veil-mcp-origins="{{.Origins}}"{{end}}></script>
<script src="/mcp/client.bundle.js"></script>
</head>
<body>
{{if .Frame}}<iframe src="{{.Frame}}"></iframe>{{end}}
<veil-secrets></veil-secrets>
</body>
</html>
`))

// handleMCPPage serves a page with the runtime serving MCP: ?mode= the
// engine's mode, ?origins= the allowed origins (left out without it),
// ?frame= a frame to load, ?bench without the test's recorder and harness.
func handleMCPPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	err := mcpPage.Execute(w, map[string]any{
		"Mode": q.Get("mode"), "Origins": q.Get("origins"), "HasOrigins": q.Has("origins"), "Frame": q.Get("frame"), "Bench": q.Has("bench"),
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// otherOrigin is the test server under another origin: localhost instead
// of 127.0.0.1.
func otherOrigin() string {
	return strings.Replace(server.URL, "127.0.0.1", "localhost", 1)
}

// openMCP opens the MCP page in mode with the allowed origins.
func openMCP(t *testing.T, mode, origins string, query ...string) *tab {
	t.Helper()
	tb := openTab(t, plain)
	path := "mcp/page.html?mode=" + mode
	if origins != "-" {
		path += "&origins=" + urlQuery(origins)
	}
	for _, q := range query {
		path += "&" + q
	}
	tb.navigate(path)
	require.Equal(t, mode, eval[string](tb, `veil.ready.then(() => veil.mode)`), "veil.mode")
	return tb
}

func urlQuery(s string) string {
	return strings.NewReplacer("%", "%25", "&", "%26", "+", "%2B", " ", "+", "#", "%23", "=", "%3D").Replace(s)
}

// The tools the MCP tests register, with what each returns.
const (
	mcpSecret    = "sk-live-mcp-7Hq2-Zx91"
	mcpRecord    = "DOB 1961-04-09 mcp"
	mcpRefID     = "ref-mcp-4471"
	mcpRefURL    = "/redeem/ref-mcp-4471"
	mcpToolsJSON = `[
	[{name: "list_orders", description: "Lists orders", annotations: {readOnlyHint: true}}, {returns: {orders: [{id: 1, total: "9.50"}]}}],
	[{name: "make_key", description: "Makes an API key", inputSchema: {type: "object", properties: {name: {type: "string"}}},
	  outputSchema: {type: "object", properties: {id: {type: "string"}, secret: {type: "string", "x-sensitive": true}}}},
	 {returns: {id: "key_7Hq2", secret: "` + mcpSecret + `"}}],
	[{name: "issue_token", description: "Issues a token the user redeems"},
	 {returns: {content: [{type: "text", text: "Your token is ready."}, {type: "secret_reference", id: "` + mcpRefID + `", label: "Token", redeemUrl: "` + mcpRefURL + `", ttl: 60}]}}],
	[{name: "read_record", description: "Reads the medical record", annotations: {sensitiveHint: true}}, {returns: {record: "` + mcpRecord + `"}}],
	[{name: "drop_table", description: "Drops a table", annotations: {destructiveHint: true}}, {returns: "dropped"}]
]`
)

// registerMCPTools registers the tools of mcpToolsJSON and makes the
// page's confirmation handler wait for the test: window.asked holds the
// question and its answer function.
func registerMCPTools(t *testing.T, tb *tab) {
	t.Helper()
	got := eval[settled](tb, `e2e.settle(async () => {
		for (const [def, behaviour] of `+mcpToolsJSON+`) {
			const r = await e2e.register(def, behaviour);
			if (!r.ok) throw new Error(def.name + ": " + r.error.message);
		}
		await veil.configure({confirm: (q) => new Promise((answer) => (window.asked = {tool: q.tool, answer}))});
	})`)
	require.True(t, got.OK, "registering the tools: %+v", got.Error)
}

// callToolResult is what the client's callTool resolved with, or how it
// failed.
type callToolResult struct {
	OK     bool           `json:"ok"`
	Result map[string]any `json:"result"`
	Error  string         `json:"error"`
}

// mcpCall calls a tool through the MCP client.
func mcpCall(tb *tab, name, args string) callToolResult {
	tb.t.Helper()
	return eval[callToolResult](tb, fmt.Sprintf(`client.callTool({name: %s, arguments: %s}).then(
		(result) => ({ok: true, result}), (e) => ({ok: false, error: String(e?.message ?? e)}))`, js(name), args))
}

// wantResult is the CallToolResult an agent view makes, written from the
// documented mapping (docs/mcp-b.md): a view that is a CallToolResult is
// it, with any content item of a type MCP lacks as a text item holding its
// JSON; any other view is one text item with its text, and its object as
// structuredContent when the tool declares an outputSchema.
func wantResult(t *testing.T, view string, outputSchema bool) map[string]any {
	t.Helper()
	var v any
	if json.Unmarshal([]byte(view), &v) == nil {
		if o, ok := v.(map[string]any); ok {
			if content, ok := o["content"].([]any); ok {
				for i, item := range content {
					m, _ := item.(map[string]any)
					switch m["type"] {
					case "text", "image", "audio", "resource_link", "resource":
					default:
						b, err := json.Marshal(item)
						require.NoError(t, err)
						content[i] = map[string]any{"type": "text", "text": string(b)}
					}
				}
				return o
			}
		}
	}
	r := map[string]any{"content": []any{map[string]any{"type": "text", "text": view}}}
	if o, ok := v.(map[string]any); ok && outputSchema {
		r["structuredContent"] = o
	}
	return r
}

// assertResult compares a client's result with the one the view makes. A
// text item that holds JSON is compared as JSON: JavaScript and Go write
// an object's members in different orders.
func assertResult(t *testing.T, want, got map[string]any, msg string) {
	t.Helper()
	norm := func(r map[string]any) string {
		c := map[string]any{}
		for k, v := range r {
			c[k] = v
		}
		if content, ok := r["content"].([]any); ok {
			items := make([]any, len(content))
			for i, item := range content {
				m, _ := item.(map[string]any)
				var parsed any
				if text, ok := m["text"].(string); ok && strings.HasPrefix(text, "{") && json.Unmarshal([]byte(text), &parsed) == nil {
					items[i] = map[string]any{"type": m["type"], "json": parsed}
				} else {
					items[i] = item
				}
			}
			c["content"] = items
		}
		b, err := json.Marshal(c)
		require.NoError(t, err)
		return string(b)
	}
	assert.JSONEq(t, norm(want), norm(got), msg)
}

func TestMCPTab(t *testing.T) {
	t.Parallel() // in a tab of its own
	needNPM(t)
	for _, mode := range []string{"worker", "main"} {
		t.Run(mode, func(t *testing.T) { testMCPTab(t, mode) })
	}
}

func testMCPTab(t *testing.T, mode string) {
	origin := server.URL
	tb := openMCP(t, mode, "https://a.example "+origin)
	registerMCPTools(t, tb)
	require.True(t, eval[bool](tb, `mcp.connect().then((c) => ((window.client = c), true))`), "the client connects")

	t.Run("tools/list", func(t *testing.T) {
		names := eval[[]string](tb, `client.listTools().then((r) => r.tools.map((t) => t.name))`)
		// The SDK's client drops annotations it has no field for, such as
		// sensitiveHint: the server's own answer is read off the wire.
		listed := eval[[]map[string]any](tb, `traffic.map((m) => JSON.parse(m.data)).findLast((d) => d.direction === "server-to-client" && d.payload.result?.tools).payload.result.tools`)
		registered := eval[[]map[string]any](tb, `e2e.tools()`)
		assert.Equal(t, []string{"drop_table", "issue_token", "list_orders", "make_key", "read_record"}, names, "the client's tools/list")
		require.Len(t, listed, len(registered), "tools/list lists the registry")
		for i, r := range registered {
			l := listed[i]
			assert.Equal(t, r["name"], l["name"])
			assert.Equal(t, r["description"], l["description"], "%s: description", r["name"])
			assert.Equal(t, r["inputSchema"], l["inputSchema"], "%s: inputSchema", r["name"])
			assert.Equal(t, r["outputSchema"], l["outputSchema"], "%s: outputSchema", r["name"])
			assert.Equal(t, r["annotations"], l["annotations"], "%s: annotations", r["name"])
		}
		byName := map[string]map[string]any{}
		for _, l := range listed {
			byName[l["name"].(string)] = l
		}
		assert.Equal(t, true, byName["read_record"]["annotations"].(map[string]any)["sensitiveHint"], "Veil's risk hints are listed")
		assert.Equal(t, true, byName["drop_table"]["annotations"].(map[string]any)["destructiveHint"])
	})

	calls := []struct {
		name, args   string
		outputSchema bool
		absent       []string
		held         bool
	}{
		{"list_orders", `{}`, false, nil, false},
		{"make_key", `{name: "ci"}`, true, []string{mcpSecret}, true},
		{"issue_token", `{}`, false, []string{mcpRefID, mcpRefURL}, true},
		{"read_record", `{}`, false, []string{mcpRecord}, true},
	}
	for _, c := range calls {
		t.Run("tools/call "+c.name, func(t *testing.T) {
			heldBefore := eval[int](tb, `veil.items().then((i) => i.length)`)
			got := mcpCall(tb, c.name, c.args)
			require.True(t, got.OK, "callTool %s: %s", c.name, got.Error)
			view := eval[settled](tb, `e2e.execute("document", `+js(c.name)+`, `+c.args+`)`).String(t)
			assertResult(t, wantResult(t, view, c.outputSchema), got.Result, "the client gets the agent view, as a CallToolResult")
			if c.name == "list_orders" {
				assert.Equal(t, []any{map[string]any{"type": "text", "text": view}}, got.Result["content"], "the page's own executeTool result, byte for byte")
			}
			traffic := eval[string](tb, `JSON.stringify(traffic)`)
			for _, s := range c.absent {
				assertWithheld(t, traffic, s, "the tab transport's messages")
			}
			if c.held {
				// The MCP call and the page's own call each hold their values.
				assert.Greater(t, eval[int](tb, `veil.items().then((i) => i.length)`), heldBefore+1, "the MCP call's values are in the tray")
			}
		})
	}

	t.Run("confirmation", func(t *testing.T) {
		ask := func() {
			t.Helper()
			eval[bool](tb, `(window.asked = null, window.answered = null, client.callTool({name: "drop_table", arguments: {}}).then(
				(result) => (window.answered = {ok: true, result}), (e) => (window.answered = {ok: false, error: String(e)})), true)`)
			tb.poll(`window.asked?.tool === "drop_table"`)
			assert.Nil(t, eval[any](tb, `window.answered`), "the client waits for the user")
			assert.Zero(t, eval[int](tb, `e2e.calls.filter((c) => c.tool === "drop_table").length`), "execute waits for the user")
		}
		answered := func() callToolResult {
			t.Helper()
			tb.poll(`window.answered`)
			return eval[callToolResult](tb, `window.answered`)
		}

		ask()
		eval[bool](tb, `(asked.answer(false), true)`)
		declined := answered()
		require.True(t, declined.OK, "callTool: %s", declined.Error)
		assert.Equal(t, true, declined.Result["isError"], "a declined call is an error result")
		assert.Zero(t, eval[int](tb, `e2e.calls.filter((c) => c.tool === "drop_table").length`), "a declined call never runs")
		eval[bool](tb, `(window.asked = null, window.page = e2e.execute("document", "drop_table", {}), true)`)
		tb.poll(`window.asked?.tool === "drop_table"`)
		eval[bool](tb, `(asked.answer(false), true)`)
		pageView := eval[settled](tb, `window.page`).String(t)
		assertResult(t, wantResult(t, pageView, false), declined.Result, "the same refusal as the page's own executeTool")

		ask()
		eval[bool](tb, `(asked.answer(true), true)`)
		approved := answered()
		require.True(t, approved.OK, "callTool: %s", approved.Error)
		assert.Equal(t, []any{map[string]any{"type": "text", "text": "dropped"}}, approved.Result["content"])
		assert.Equal(t, 1, eval[int](tb, `e2e.calls.filter((c) => c.tool === "drop_table").length`), "an approved call runs once")
	})

	t.Run("notifications/tools/list_changed", func(t *testing.T) {
		before := eval[int](tb, `mcp.listChanged`)
		got := eval[settled](tb, `e2e.register({name: "late_tool", description: "Registered after the client connected"}, {returns: "late"})`)
		require.True(t, got.OK, "registering late_tool: %+v", got.Error)
		tb.poll(fmt.Sprintf(`mcp.listChanged > %d`, before))
		names := eval[[]string](tb, `client.listTools().then((r) => r.tools.map((t) => t.name))`)
		assert.Contains(t, names, "late_tool")
	})

	// The server keeps the registry's list between toolchanges: a call
	// after one must see the registry as it now is.
	t.Run("tools/call after toolchange", func(t *testing.T) {
		changed := func(do string) {
			t.Helper()
			before := eval[int](tb, `mcp.listChanged`)
			got := eval[settled](tb, do)
			require.True(t, got.OK, "%s: %+v", do, got.Error)
			tb.poll(fmt.Sprintf(`mcp.listChanged > %d`, before))
		}
		changed(`e2e.register({name: "swap", description: "Answers an object"}, {returns: {v: 1}})`)
		first := mcpCall(tb, "swap", `{}`)
		require.True(t, first.OK, "callTool swap: %s", first.Error)
		assert.Nil(t, first.Result["structuredContent"], "no outputSchema, no structuredContent")

		changed(`e2e.settle(() => e2e.unregister("swap"))`)
		gone := mcpCall(tb, "swap", `{}`)
		assert.False(t, gone.OK, "callTool of an unregistered tool: %+v", gone.Result)
		assert.Contains(t, gone.Error, `unknown tool "swap"`, "callTool of an unregistered tool")

		changed(`e2e.register({name: "swap", description: "Answers an object", outputSchema: {type: "object", properties: {v: {type: "number"}}}}, {returns: {v: 2}})`)
		again := mcpCall(tb, "swap", `{}`)
		require.True(t, again.OK, "callTool swap: %s", again.Error)
		assert.Equal(t, map[string]any{"v": float64(2)}, again.Result["structuredContent"], "the new registration's outputSchema")
	})

	t.Run("no message to *", func(t *testing.T) {
		targets := eval[[]string](tb, `[...new Set(posted)]`)
		assert.Equal(t, []string{origin}, targets, "every server message goes to the client's exact origin")
		assert.Greater(t, eval[int](tb, `posted.filter((o) => o === `+js(origin)+`).length`), 10, "the answers went to the client's origin")
	})
}

// TestMCPOriginNotAllowed: a client whose origin is not allowed, and a
// frame of an allowed origin posting from another window, get no answer at
// all, and nothing runs; the console names the refused client's origin,
// once, and never the frame's.
func TestMCPOriginNotAllowed(t *testing.T) {
	t.Parallel() // in a tab of its own
	needNPM(t)
	for _, mode := range []string{"worker", "main"} {
		t.Run(mode, func(t *testing.T) {
			other := otherOrigin()
			tb := openMCP(t, mode, other, "frame="+urlQuery(other+"/mcp/frame.html"))
			tb.allowConsole(`^veil: an MCP client of origin ` + regexp.QuoteMeta(server.URL) + ` gets no answer`)
			registerMCPTools(t, tb)
			// The module loaded and the server runs, for other's clients.
			tb.poll(`performance.getEntriesByType("resource").some((e) => new URL(e.name).pathname === "/dist/veil-mcp.js")`)

			eval[bool](tb, `(window.connected = null, mcp.connect().then(() => (window.connected = true), () => (window.connected = false)), true)`)
			eval[bool](tb, `(() => {
				const post = (payload) => window.postMessage({channel: "mcp-default", type: "mcp", direction: "client-to-server", payload}, "*");
				post("mcp-check-ready");
				post({jsonrpc: "2.0", id: 1, method: "initialize", params: {protocolVersion: "2025-11-25", capabilities: {}, clientInfo: {name: "x", version: "1"}}});
				post({jsonrpc: "2.0", id: 2, method: "tools/call", params: {name: "list_orders", arguments: {}}});
				post({jsonrpc: "2.0", id: 3, method: "ping"});
				return true;
			})()`)
			// The frame (of the allowed origin) posted the same to this window.
			tb.poll(`window.frameDone === true`)
			// Barriers: two message round trips (an answer to a dropped
			// message would be posted synchronously, before the second),
			// then two calls through the engine (an accepted tools/call
			// would have reached it first).
			eval[bool](tb, `new Promise((resolve) => {
				addEventListener("message", function f(e) {
					if (e.data === "barrier 1") postMessage("barrier 2", "*");
					if (e.data === "barrier 2") resolve(true);
				});
				postMessage("barrier 1", "*");
			})`)
			for range 2 {
				eval[settled](tb, `e2e.execute("document", "list_orders", {})`).String(t)
			}

			answers := eval[[]string](tb, `traffic.filter((m) => JSON.parse(m.data).direction === "server-to-client").map((m) => m.data)`)
			assert.Empty(t, answers, "the server answered a client it does not allow")
			assert.Nil(t, eval[any](tb, `window.connected`), "the client is still waiting for the server")
			assert.Equal(t, 2, eval[int](tb, `e2e.calls.filter((c) => c.tool === "list_orders").length`), "only the page's own calls ran")

			tb.flushConsole()
			var named []string
			for _, m := range tb.consoleTexts() {
				if strings.Contains(m, "an MCP client of origin") {
					named = append(named, m)
				}
			}
			require.Len(t, named, 1, "the console names the refused origin once, for the client's many messages: %v", tb.consoleTexts())
			assert.Contains(t, named[0], "an MCP client of origin "+server.URL+" gets no answer: data-veil-mcp-origins does not list it ("+other+"); add it, or self")
		})
	}
}

// TestMCPOriginSelf: self in data-veil-mcp-origins is the page's own
// origin: a client of the page connects with nothing else in the list,
// and gets the agent view; the console stays quiet.
func TestMCPOriginSelf(t *testing.T) {
	t.Parallel() // in a tab of its own
	needNPM(t)
	for _, origins := range []string{"self", "https://a.example 'self'"} {
		t.Run(origins, func(t *testing.T) {
			tb := openMCP(t, "worker", origins)
			registerMCPTools(t, tb)
			require.True(t, eval[bool](tb, `mcp.connect().then((c) => ((window.client = c), true))`), "the client connects")
			got := mcpCall(tb, "make_key", `{name: "ci"}`)
			require.True(t, got.OK, "callTool make_key: %s", got.Error)
			assert.Equal(t, map[string]any{"id": "key_7Hq2"}, got.Result["structuredContent"])
			assertWithheld(t, eval[string](tb, `JSON.stringify(traffic)`), mcpSecret, "the tab transport's messages")
			assert.Equal(t, []string{server.URL}, eval[[]string](tb, `[...new Set(posted)]`), "every server message goes to the page's exact origin")
			tb.flushConsole()
			for _, m := range tb.consoleTexts() {
				assert.NotContains(t, m, "MCP", "the console")
			}
		})
	}
}

// TestMCPOriginsRequired: without a valid list of allowed origins the
// server does not start, and the console says why.
func TestMCPOriginsRequired(t *testing.T) {
	t.Parallel() // in a tab of its own
	needNPM(t)
	for _, c := range []struct{ name, origins, want string }{
		{"missing", "-", "data-veil-mcp-origins is missing or empty"},
		{"empty", "", "data-veil-mcp-origins is missing or empty"},
		{"any", "*", `"*" is not an origin`},
		{"a path", server.URL + "/app", "is not an origin"},
		{"one bad of two", server.URL + " ftp://a.example", `"ftp://a.example" is not an origin`},
		{"self in double quotes", `"self"`, `"\"self\"" is not an origin`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // a tab of its own
			tb := openMCP(t, "worker", c.origins)
			tb.allowConsole(`the MCP server is off`)
			tb.poll(`performance.getEntriesByType("resource").some((e) => new URL(e.name).pathname === "/dist/veil-mcp.js")`)
			registerMCPTools(t, tb)
			eval[bool](tb, `(window.connected = null, mcp.connect().then(() => (window.connected = true), () => (window.connected = false)), true)`)
			tb.flushConsole()
			var off []string
			for _, m := range tb.consoleTexts() {
				if strings.Contains(m, "the MCP server is off") {
					off = append(off, m)
				}
			}
			require.Len(t, off, 1, "the console says the server is off: %v", tb.consoleTexts())
			assert.Contains(t, off[0], c.want)
			for range 2 {
				eval[settled](tb, `e2e.execute("document", "list_orders", {})`).String(t)
			}
			assert.Nil(t, eval[any](tb, `window.connected`), "no server answered")
			assert.Empty(t, eval[[]string](tb, `traffic.filter((m) => JSON.parse(m.data).direction === "server-to-client").map((m) => m.data)`))
		})
	}
}
