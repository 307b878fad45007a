package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/webmcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// secret is what the sensitive tools of the smoke tests return. It must
// never reach an agent.
const secret = "sk-live-7f3a9c1e5b2d4680"

// plainResult is a result with nothing sensitive. It reaches agents exactly
// as JSON.stringify writes it: key order, number text and raw U+2028 kept.
const plainResult = `{z: 1, a: 1.50, e: 1e21, s: "quote \" slash / line\u2028sep", nested: {list: [3, "two", null]}}`

// failedExecuteRE matches Chromium's console report of a failed tool.
var failedExecuteRE = regexp.MustCompile(failedExecute)

// agentPaths are the runtime's own agent paths, by the name harness.js
// gives them.
var agentPaths = []string{"document", "navigator", "testing"}

// openRuntime opens the smoke page, whose engine runs in a worker or on the
// main thread, and waits until the page's own registration has settled.
func openRuntime(t *testing.T, b *browser, mode string) *tab {
	t.Helper()
	tb := openTab(t, b)
	tb.navigate("smoke-" + mode + ".html")
	got := eval[settled](tb, `window.nextLine`)
	require.True(t, got.OK, "registerTool on the line after the script tag: %+v", got.Error)
	return tb
}

// registerSmokeTools registers a tool with nothing sensitive and one whose
// whole output is sensitive.
func registerSmokeTools(t *testing.T, tb *tab) {
	t.Helper()
	got := eval[settled](tb, `e2e.register({name: "list_orders", description: "Lists orders"}, {returns: `+plainResult+`})`)
	require.True(t, got.OK, "registering list_orders: %+v", got.Error)
	got = eval[settled](tb, `e2e.register({name: "make_key", description: "Makes an API key",
		annotations: {sensitiveHint: true}}, {returns: {key: `+js(secret)+`, note: "store it safely"}})`)
	require.True(t, got.OK, "registering make_key: %+v", got.Error)
}

func TestSmoke(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, mode := range []string{"worker", "main"} {
		t.Run(mode, func(t *testing.T) {
			tb := openRuntime(t, plain, mode)

			early := eval[settled](tb, `window.early`)
			assert.Equal(t, "Hello, early!", early.String(t), "executeTool right after registerTool resolved")
			assert.Equal(t, mode, eval[string](tb, `veil.ready.then(() => veil.mode)`), "veil.mode")
			// Where the engine runs shows in what the page itself fetched:
			// a worker fetches veil.wasm in its own context. On the main
			// thread, worker.js is a plain script that starts the engine.
			fetched := eval[[]string](tb, `performance.getEntriesByType("resource").map(e => new URL(e.name).pathname)`)
			assert.Contains(t, fetched, "/dist/worker.js")
			if mode == "worker" {
				assert.NotContains(t, fetched, "/dist/veil.wasm")
			} else {
				assert.Contains(t, fetched, "/dist/veil.wasm")
			}

			api := eval[map[string]any](tb, `({
				same: navigator.modelContext === document.modelContext,
				stable: document.modelContext === document.modelContext,
				eventTarget: document.modelContext instanceof EventTarget,
				testing: typeof navigator.modelContextTesting?.executeTool,
			})`)
			assert.Equal(t, map[string]any{"same": true, "stable": true, "eventTarget": true, "testing": "function"}, api)

			tools := eval[[]map[string]any](tb, `e2e.tools()`)
			require.Len(t, tools, 1, "getTools")
			assert.Equal(t, "greet", tools[0]["name"])
			assert.Equal(t, map[string]any{
				"type":       "object",
				"properties": map[string]any{"name": map[string]any{"type": "string"}},
				"required":   []any{"name"},
			}, tools[0]["inputSchema"], "getTools gives inputSchema as an object")

			listed := eval[[]map[string]any](tb, `navigator.modelContextTesting.listTools()`)
			require.Len(t, listed, 1, "listTools")
			schema, ok := listed[0]["inputSchema"].(string)
			require.True(t, ok, "listTools gives inputSchema as JSON text, got %T", listed[0]["inputSchema"])
			assert.JSONEq(t, `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`, schema)

			registerSmokeTools(t, tb)
			want := eval[string](tb, `JSON.stringify(`+plainResult+`)`)
			for _, path := range agentPaths {
				t.Run(path, func(t *testing.T) {
					got := eval[settled](tb, `e2e.execute(`+js(path)+`, "greet", {name: "Ada"})`)
					assert.Equal(t, "Hello, Ada!", got.String(t), "greet")

					got = eval[settled](tb, `e2e.execute(`+js(path)+`, "list_orders", {})`)
					assert.Equal(t, want, got.String(t), "a result with nothing sensitive passes byte for byte")

					got = eval[settled](tb, `e2e.execute(`+js(path)+`, "make_key", {})`)
					view := got.String(t)
					assert.NotEmpty(t, view, "make_key")
					assertWithheld(t, view, secret, "make_key")
				})
			}
			assert.Equal(t, len(agentPaths), eval[int](tb, `e2e.calls.filter(c => c.tool === "make_key").length`),
				"make_key's execute ran once per call")
		})
	}
}

func TestSmokeNativeLayering(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, mode := range []string{"worker", "main"} {
		t.Run(mode, func(t *testing.T) { testNativeLayering(t, mode) })
	}
}

// testNativeLayering checks that the runtime, installed in front of
// Chromium's native WebMCP, lets Chrome's own agent paths see only the agent
// view.
func testNativeLayering(t *testing.T, mode string) {
	tb := openRuntime(t, native, mode)
	// A failing tool makes Chromium log its error: the runtime's generic
	// failure, checked below to carry nothing of the page's.
	tb.allowConsole(failedExecute)
	registerSmokeTools(t, tb)
	got := eval[settled](tb, `e2e.register({name: "fail_key", description: "Fails with the key in the message",
		annotations: {sensitiveHint: true}}, {throws: "could not store `+secret+`"})`)
	require.True(t, got.OK, "registering fail_key: %+v", got.Error)

	// The page sees the runtime, not the native object: Chromium 156 has
	// no navigator.modelContext or navigator.modelContextTesting.
	api := eval[map[string]any](tb, `({
		same: navigator.modelContext === document.modelContext,
		testing: typeof navigator.modelContextTesting?.executeTool,
	})`)
	assert.Equal(t, map[string]any{"same": true, "testing": "function"}, api)

	// Each tool has a mirror in the native registry.
	for _, name := range []string{"greet", "list_orders", "make_key"} {
		tool := tb.nativeTool(name)
		assert.Equal(t, name, tool.Name)
	}

	t.Run("WebMCP.invokeTool", func(t *testing.T) {
		ev := tb.invokeTool("greet", `{"name":"Ada"}`)
		require.Equal(t, webmcp.InvocationStatusCompleted, ev.Status, "greet: %s", ev.ErrorText)
		assert.Equal(t, "Hello, Ada!", agentText(ev))

		ev = tb.invokeTool("list_orders", `{}`)
		require.Equal(t, webmcp.InvocationStatusCompleted, ev.Status, "list_orders: %s", ev.ErrorText)
		want := eval[string](tb, `JSON.stringify(`+plainResult+`)`)
		assert.JSONEq(t, want, agentText(ev), "list_orders through the native registry")

		ev = tb.invokeTool("make_key", `{}`)
		require.Equal(t, webmcp.InvocationStatusCompleted, ev.Status, "make_key: %s", ev.ErrorText)
		assertWithheld(t, string(ev.Output), secret, "make_key over the DevTools protocol")
		assert.NotEmpty(t, agentText(ev))

		ev = tb.invokeTool("fail_key", `{}`)
		assert.Equal(t, webmcp.InvocationStatusError, ev.Status, "fail_key")
		raw, err := json.Marshal(ev)
		require.NoError(t, err)
		assertWithheld(t, string(raw), secret, "the error report of fail_key over the DevTools protocol")
		tb.flushConsole()
		for _, text := range tb.consoleTexts() {
			if failedExecuteRE.MatchString(strings.TrimPrefix(text, "error: ")) {
				assertWithheld(t, text, secret, "Chromium's console report of fail_key")
			}
		}
	})

	t.Run("every path", func(t *testing.T) {
		// veil.paths lists every agent path the runtime knows, the native
		// executeTool among them.
		names := eval[[]string](tb, `veil.paths.map(p => p.name)`)
		assert.Contains(t, names, "native executeTool")
		for _, name := range names {
			t.Run(name, func(t *testing.T) {
				got := eval[settled](tb, fmt.Sprintf(`e2e.settle(() => veil.paths.find(p => p.name === %s).execute("make_key", "{}"))`, js(name)))
				view := got.String(t)
				assertWithheld(t, view, secret, name)
			})
		}
	})
}
