package e2e

import (
	"encoding/json"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/veilmcp/veil/e2e/bound"
)

// The frames tests put a child frame in a parent page, of the same origin
// (the test server, on 127.0.0.1) or of another (the same server as
// localhost: another origin, and as potentially trustworthy), and drive
// both: the parent through the DevTools protocol, the child through the
// parent (testdata/frames.js, fx.in). A child of another origin sees its
// parent's tools, and the reverse, only where the browser knows the
// "tools" permissions policy: Chromium's own with native WebMCP on, and
// in Chromium as shipped, which does not know the feature, as the
// parent's Veil reads it from the child's iframe's allow attribute.

// framesHTML is the page of the frames tests, as parent and as child:
// the harness, frames.js (which records the page's raw message traffic
// before anything else runs), and the runtime unless it is left out to
// see Chromium's own WebMCP.
var framesHTML = template.Must(template.New("frames").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>frames</title>
<link rel="icon" href="data:,">
<style>body { margin: 0 } iframe { display: block; border: 0; width: 300px; height: 80px }</style>
<script src="/harness.js"></script>
<script src="/frames.js" data-until="{{.Until}}"></script>
{{if .Veil}}<script src="/dist/webmcp.js" data-veil-mode="{{.Mode}}" data-veil-redeem-path="/redeem/"{{if .Wait}} data-veil-frame-wait="{{.Wait}}"{{end}}></script>{{end}}
<script>if (document.modelContext) fx.listen();</script>
</head>
<body>
<button id="reveal" style="display: block; width: 120px; height: 30px">Reveal</button>
<script>
  // Reveals the first withheld value this page holds, on a trusted click.
  document.getElementById("reveal").onclick = async () => {
    const [item] = (await veil.items()).filter((i) => i.kind === "value");
    window.revealed = item ? await veil.reveal(item.handle) : null;
    window.onRevealed?.(window.revealed);
  };
</script>
</body>
</html>
`))

// fxUntil is how long fx.until (testdata/frames.js) waits for a condition,
// on a quiet machine; the page gets it scaled by bound.Of.
const fxUntil = 10 * time.Second

// handleFrames serves framesHTML: mode=main runs the engine on the main
// thread, veil=0 leaves the runtime out, wait=<ms> is how long its frames
// wait for another (data-veil-frame-wait; the runtime's second if none).
func handleFrames(w http.ResponseWriter, r *http.Request) {
	mode := r.URL.Query().Get("mode")
	if mode != "main" {
		mode = "worker"
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	wait := ""
	if n, err := strconv.Atoi(r.URL.Query().Get("wait")); err == nil && n > 0 {
		wait = strconv.Itoa(n)
	}
	until := bound.Millis(fxUntil)
	if err := framesHTML.Execute(w, map[string]any{"Mode": mode, "Veil": r.URL.Query().Get("veil") != "0", "Wait": wait, "Until": until}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// A frameRun is one implementation the frames tests run against.
type frameRun struct {
	name string
	b    func() *browser
	mode string
	veil bool
}

var (
	// runWorker and runMain are the runtime in Chromium as shipped, with
	// its engine in a worker and on the main thread.
	runWorker = frameRun{"worker", func() *browser { return plain }, "worker", true}
	runMain   = frameRun{"main", func() *browser { return plain }, "main", true}
	// runLayered is the runtime in front of Chromium's own WebMCP, which
	// knows the "tools" permissions policy.
	runLayered = frameRun{"layered", func() *browser { return native }, "worker", true}
	// runNative is Chromium's own WebMCP, with no runtime.
	runNative = frameRun{"native", func() *browser { return native }, "", false}
)

// page is the path of the frames page for the run.
func (r frameRun) page() string {
	if !r.veil {
		return "frames.html?veil=0"
	}
	return "frames.html?mode=" + r.mode
}

// crossOrigin is the test server at another origin: localhost rather than
// 127.0.0.1.
func crossOrigin(t testing.TB) string {
	t.Helper()
	require.True(t, strings.HasPrefix(server.URL, "http://127.0.0.1:"), "the test server is on 127.0.0.1: %s", server.URL)
	return strings.Replace(server.URL, "127.0.0.1", "localhost", 1)
}

// patient is the query that makes a frames page wait lazyAnswerWait,
// scaled, for another frame's answer (handleFrames): for the tests whose
// frame must hear the frames above it about its "tools" policy, so that a
// parent that a busy machine slows is not taken for one that cannot tell.
func patient() string {
	return "&wait=" + strconv.FormatInt(bound.Millis(lazyAnswerWait), 10)
}

// frames is a parent page with one child, in one tab.
type frames struct {
	*tab
	parent, child string // origins
}

// openFrames opens the parent page of run and a child at childOrigin, its
// iframe with the allow attribute given ("" for none).
func openFrames(t *testing.T, run frameRun, childOrigin, allow string) *frames {
	t.Helper()
	return openFramesChild(t, run, childOrigin, "", allow)
}

// openFramesChild is openFrames with query added to the child's page.
//
// The child comes once the parent's engine has started: a child of
// another origin asks the frames above it for its "tools" policy as it
// starts, and waits the runtime's second for the answer (unless query
// makes it patient()). A parent whose engine still starts on its main
// thread (mode=main) may answer after that second on a busy machine, and
// the child, taking no answer for one that cannot tell, would fail closed
// for the rest of its life: a test would see the outcome of a race with
// the parent's start, not the behaviour it checks.
func openFramesChild(t *testing.T, run frameRun, childOrigin, query, allow string) *frames {
	t.Helper()
	tb := openTab(t, run.b())
	tb.navigate(run.page())
	if run.veil {
		require.Equal(t, run.mode, eval[string](tb, `veil.ready.then(() => veil.mode)`), "the parent's engine runs")
	}
	src := childOrigin + "/" + run.page() + query
	var allowArg any
	if allow != "" {
		allowArg = allow
	}
	i := eval[int](tb, `fx.open(`+js(src)+`, `+js(allowArg)+`)`)
	require.Equal(t, 0, i, "the child's index")
	return &frames{tab: tb, parent: server.URL, child: childOrigin}
}

// inParent runs body, the body of an async function, in the parent.
func (f *frames) inParent(body string) settled {
	f.t.Helper()
	return eval[settled](f.tab, `fx.run(`+js(body)+`)`)
}

// inChild runs body, the body of an async function, in the child.
func (f *frames) inChild(body string) settled {
	f.t.Helper()
	return eval[settled](f.tab, `fx.in(0, `+js(body)+`)`)
}

// value decodes what a settled promise resolved with, and fails the test
// when it rejected.
func value[T any](t testing.TB, s settled, what string) T {
	t.Helper()
	require.Nil(t, s.Error, "%s rejected", what)
	var v T
	require.NoError(t, json.Unmarshal(s.Value, &v), "%s resolved with %s", what, s.Value)
	return v
}

// errorName is the name of the error a settled promise rejected with.
func errorName(t testing.TB, s settled, what string) string {
	t.Helper()
	require.NotNil(t, s.Error, "%s resolved with %s, want an error", what, s.Value)
	return s.Error.Name
}

// TestFramesSameOrigin: a parent and a same-origin child see each other's
// tools by default (no exposedTo, or an empty one), each with the window
// and origin of the frame that registered it; each runs the other's tool;
// toolchange fires in the other frame when a tool comes or goes. Chromium's
// own WebMCP gives the same.
func TestFramesSameOrigin(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, run := range []frameRun{runWorker, runMain, runLayered, runNative} {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel() // a tab of its own
			f := openFrames(t, run, server.URL, "")
			o := server.URL
			require.Nil(t, f.inParent(`await fx.register({name: "p_tool", description: "Parent tool", annotations: {readOnlyHint: true},
				inputSchema: {type: "object", properties: {q: {type: "string"}}}, execute: ({q}) => "hello " + q})`).Error)

			assert.Equal(t, []string{"p_tool@parent:" + o}, value[[]string](t, f.inChild(`return fx.names()`), "getTools in the child"))
			assert.Equal(t, map[string]any{"description": "Parent tool", "readOnly": true, "schema": map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}},
				value[map[string]any](t, f.inChild(`const [t] = await document.modelContext.getTools();
					return {description: t.description, readOnly: t.annotations.readOnlyHint, schema: t.inputSchema}`), "the parent's tool, seen from the child"))
			assert.Equal(t, "hello child", value[string](t, f.inChild(`const [t] = await document.modelContext.getTools();
				return document.modelContext.executeTool(t, {q: "child"})`), "the child runs the parent's tool"))

			// The child registers; the parent hears of it and runs it.
			got := value[[]string](t, f.inParent(`const changed = fx.changed();
				const r = await fx.in(0, 'await fx.register({name: "c_tool", description: "Child tool", execute: () => "hello from the child"}, {exposedTo: []})');
				if (!r.ok) throw new Error(r.error.message);
				await changed;
				return fx.names()`), "getTools in the parent after the child registered")
			assert.Equal(t, []string{"c_tool@0:" + o, "p_tool@self:" + o}, got, "sorted by name, each with its frame")
			assert.Equal(t, "hello from the child", value[string](t, f.inParent(`const t = (await document.modelContext.getTools()).find((t) => t.name === "c_tool");
				return document.modelContext.executeTool(t)`), "the parent runs the child's tool"))

			// Each unregistration reaches the other frame.
			assert.Equal(t, []string{"p_tool@self:" + o}, value[[]string](t, f.inParent(`const changed = fx.changed();
				await fx.in(0, 'fx.unregister("c_tool")');
				await changed;
				return fx.names()`), "getTools in the parent after the child unregistered"))
			assert.Equal(t, []string{}, value[[]string](t, f.inChild(`const changed = fx.changed();
				parent.fx.unregister("p_tool");
				await changed;
				return fx.names()`), "getTools in the child after the parent unregistered"))
			if run.veil {
				// With native WebMCP on, Chromium's getTools lists the other
				// frame's mirrors too: they are not foreign to this frame.
				foreign := `return e2e.events.filter((e) => e.startsWith("foreigntool"))`
				assert.Empty(t, value[[]string](t, f.inParent(foreign), "foreigntool events in the parent"))
				assert.Empty(t, value[[]string](t, f.inChild(foreign), "foreigntool events in the child"))
			}
		})
	}
}

// TestFramesCrossOrigin: a cross-origin child whose iframe allows "tools"
// sees the parent's tool only when the parent exposes it to the child's
// origin and the child asks for the parent's origin, and the reverse;
// each runs the other's tool, and toolchange reaches the other frame.
// Chromium's own WebMCP gives the same, and the runtime in Chromium as
// shipped, where the parent's Veil reads the allow attribute.
func TestFramesCrossOrigin(t *testing.T) {
	t.Parallel() // in a tab of its own
	for _, run := range []frameRun{runLayered, runNative, runWorker, runMain} {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel() // a tab of its own
			f := openFrames(t, run, crossOrigin(t), "tools *")
			require.Nil(t, f.inParent(`await fx.register({name: "p_x", description: "Parent tool", execute: () => "hello"}, {exposedTo: [`+js(f.child)+`]})`).Error)

			from := `{fromOrigins: [` + js(f.parent) + `]}`
			assert.Equal(t, []string{}, value[[]string](t, f.inChild(`return fx.names()`), "getTools in the child without fromOrigins"))
			assert.Equal(t, []string{"p_x@parent:" + f.parent}, value[[]string](t, f.inChild(`return fx.names(`+from+`)`), "getTools in the child"))
			assert.Equal(t, "hello", value[string](t, f.inChild(`const [t] = await document.modelContext.getTools(`+from+`);
				return document.modelContext.executeTool(t)`), "the child runs the parent's tool"))

			got := value[[]string](t, f.inParent(`const changed = fx.changed();
				const r = await fx.in(0, 'await fx.register({name: "c_x", description: "Child tool", execute: () => "hello from the child"}, {exposedTo: [' + JSON.stringify(`+js(f.parent)+`) + ']})');
				if (!r.ok) throw new Error(r.error.message);
				await changed;
				return fx.names({fromOrigins: [`+js(f.child)+`]})`), "getTools in the parent after the child registered")
			assert.Equal(t, []string{"c_x@0:" + f.child, "p_x@self:" + f.parent}, got)
			assert.Equal(t, []string{"p_x@self:" + f.parent}, value[[]string](t, f.inParent(`return fx.names()`), "getTools in the parent without fromOrigins"))
			assert.Equal(t, "hello from the child", value[string](t, f.inParent(`const t = (await document.modelContext.getTools({fromOrigins: [`+js(f.child)+`]})).find((t) => t.name === "c_x");
				return document.modelContext.executeTool(t)`), "the parent runs the child's tool"))

			assert.Equal(t, []string{"p_x@self:" + f.parent}, value[[]string](t, f.inParent(`const changed = fx.changed();
				await fx.in(0, 'fx.unregister("c_x")');
				await changed;
				return fx.names({fromOrigins: [`+js(f.child)+`]})`), "getTools in the parent after the child unregistered"))
			require.Nil(t, f.inChild(`window.gone = fx.changed()`).Error)
			require.Nil(t, f.inParent(`fx.unregister("p_x")`).Error)
			assert.Equal(t, []string{}, value[[]string](t, f.inChild(`await window.gone; return fx.names(`+from+`)`), "getTools in the child after the parent unregistered"))
		})
	}
}

// toolchanges is how many toolchange events a page's document.modelContext
// fired.
const toolchanges = `return e2e.events.filter((e) => e === "toolchange").length`

// TestFramesHidden: a frame that may not see a tool learns nothing of it,
// neither from getTools nor from a toolchange: a cross-origin frame the
// tool is not exposed to, whether the browser knows the "tools" policy or
// the parent's Veil reads it. Messages between two windows keep their order, so a
// toolchange the other frame was sent would have fired before the next
// command the test sends it. (A frame whose iframe does not allow "tools"
// cannot use the API at all: TestFramesNotAllowed.)
func TestFramesHidden(t *testing.T) {
	t.Parallel() // in a tab of its own
	tests := []struct {
		name  string
		run   frameRun
		allow string
	}{
		{"exposed to another origin", runLayered, "tools *"},
		{"exposed to another origin, policy unknown to the browser", runWorker, "tools *"},
		{"exposed to another origin, policy unknown to the browser, main thread", runMain, "tools *"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // a tab of its own
			f := openFrames(t, tt.run, crossOrigin(t), tt.allow)
			// The tools are exposed to an origin of no frame.
			exposed := func(string) string { return js("https://other.example") }
			require.Nil(t, f.inParent(`await fx.register({name: "p_hidden", description: "d", execute: () => "x"}, {exposedTo: [`+exposed(f.child)+`]})`).Error)
			assert.Equal(t, 0, value[int](t, f.inChild(toolchanges), "toolchange events in the child"))
			assert.Equal(t, []string{}, value[[]string](t, f.inChild(`return fx.names({fromOrigins: [`+js(f.parent)+`]})`), "getTools in the child"))
			assert.Equal(t, "UnknownError", errorName(t, f.inChild(`return document.modelContext.executeTool({name: "p_hidden", description: "d", origin: `+js(f.parent)+`, window: parent})`),
				"the child runs the parent's tool by hand"))

			require.Nil(t, f.inChild(`await fx.register({name: "c_hidden", description: "d", execute: () => "x"}, {exposedTo: [`+exposed(f.parent)+`]})`).Error)
			assert.Equal(t, 1, value[int](t, f.inParent(toolchanges), "toolchange events in the parent: its own registration only"))
			assert.Equal(t, []string{"p_hidden@self:" + f.parent}, value[[]string](t, f.inParent(`return fx.names({fromOrigins: [`+js(f.child)+`]})`), "getTools in the parent"))
			assert.Equal(t, "UnknownError", errorName(t, f.inParent(`return document.modelContext.executeTool({name: "c_hidden", description: "d", origin: `+js(f.child)+`, window: fx.children[0].frame.contentWindow})`),
				"the parent runs the child's tool by hand"))

			require.Nil(t, f.inParent(`fx.unregister("p_hidden")`).Error)
			require.Nil(t, f.inChild(`fx.unregister("c_hidden")`).Error)
			assert.Equal(t, 2, value[int](t, f.inChild(toolchanges), "toolchange events in the child: its own two only"))
			assert.Equal(t, 2, value[int](t, f.inParent(toolchanges), "toolchange events in the parent: its own two only"))
		})
	}
}

// TestFramesNotRequested: a cross-origin frame that exposes a tool to the
// parent is heard of (toolchange), but its tools are listed only when the
// parent names its origin in fromOrigins.
func TestFramesNotRequested(t *testing.T) {
	t.Parallel() // in a tab of its own
	f := openFrames(t, runLayered, crossOrigin(t), "tools *")
	got := value[[]string](t, f.inParent(`const changed = fx.changed();
		await fx.in(0, 'await fx.register({name: "c_tool", description: "d", execute: () => "x"}, {exposedTo: [' + JSON.stringify(`+js(f.parent)+`) + ']})');
		await changed;
		return [...await fx.names(), ...await fx.names({fromOrigins: ["https://other.example"]}), "|", ...await fx.names({fromOrigins: [`+js(f.child)+`]})]`), "getTools in the parent")
	assert.Equal(t, []string{"|", "c_tool@0:" + f.child}, got)
}
