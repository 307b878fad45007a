package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/webmcp"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/corpus"
	"github.com/veilmcp/veil/wasm/leakcheck"
)

// update rewrites the view files of the data cases from what the runtime
// gives, as go-sdk's conformance tests do. The engine's own test
// (wasm/engine) has the same flag for the cases it runs natively.
var update = flag.Bool("update", false, "rewrite the view expectations of testdata/cases from the runtime's answers")

// casesDir holds the data cases, one txtar archive per case, in the
// format package corpus reads and documents. The engine's test replays
// the cases that need no browser natively; this suite replays them all.
const casesDir = "testdata/cases"

// metaKey is the _meta member under which Veil lists what it withheld.
const metaKey = "dev.veil/withheld"

// loadCases reads every case of testdata/cases.
func loadCases(t *testing.T) []*corpus.Case {
	t.Helper()
	cases, err := corpus.Load(casesDir)
	require.NoError(t, err)
	return cases
}

// pageSpec is what conformance.js needs of a case: its tool and what
// execute returns or throws, as JavaScript expressions, and its earlier
// calls. JSON files are handed over as JSON.parse of their text, as the
// engine's test reads them.
type pageSpec struct {
	Name        string        `json:"name"`
	Tool        string        `json:"tool"`
	Input       string        `json:"input"`
	Returns     *string       `json:"returns,omitempty"`
	Throws      *string       `json:"throws,omitempty"`
	Fixture     *string       `json:"fixture,omitempty"`
	Passthrough bool          `json:"passthrough"`
	Earlier     []earlierSpec `json:"earlier,omitempty"`
}

// earlierSpec is one of a case's earlier calls: its whole tool and what
// execute returns, as JavaScript expressions, and the input as JSON.
type earlierSpec struct {
	Tool    string `json:"tool"`
	Input   string `json:"input"`
	Returns string `json:"returns"`
}

func spec(c *corpus.Case) pageSpec {
	returns := c.ReturnsJS
	if c.Returns != nil {
		s := jsonParse(*c.Returns)
		returns = &s
	}
	var earlier []earlierSpec
	for _, e := range c.Earlier {
		earlier = append(earlier, earlierSpec{jsonParse(e.Definition()), e.Input, jsonParse(e.Returns)})
	}
	return pageSpec{c.Name, jsonParse(c.Definition()), c.Input, returns, c.ThrowsJS, c.Fixture, c.Passthrough, earlier}
}

// jsonParse is a JavaScript expression for the value of a JSON text.
func jsonParse(text string) string {
	return "JSON.parse(" + js(text) + ")"
}

// callResult is one call of one case's tool through one agent path.
type callResult struct {
	OK         bool     `json:"ok"`
	Type       string   `json:"type"`
	Value      string   `json:"value"`
	WellFormed bool     `json:"wellFormed"`
	Same       *bool    `json:"same"`
	Error      *jsError `json:"error"`
	Calls      int      `json:"calls"`
	// Earlier are the case's earlier calls through the same path, made
	// in order right before this one.
	Earlier []*callResult `json:"earlier"`
	// event is the WebMCP.toolResponded event as the browser sent it, for
	// the DevTools path.
	event string
}

type pathResults struct {
	Missing bool                   `json:"missing"`
	Results map[string]*callResult `json:"results"`
}

type oracleResult struct {
	Rule        string   `json:"rule"`
	Native      *string  `json:"native"`
	Same        *bool    `json:"same"`
	NativeError *jsError `json:"nativeError"`
}

// The agent paths, by the names of the subtests. The first three are the
// runtime's own; the last two are Chromium's, which see the runtime's
// tools through the mirrors it registers.
const (
	pathDocument  = "document"
	pathNavigator = "navigator"
	pathTesting   = "testing"
	pathNative    = "native"
	pathDevTools  = "devtools"
)

// pageRun is one page that serves every case: a browser and where the
// engine runs.
type pageRun struct {
	name   string
	b      func() *browser
	mode   string
	native bool
}

var pageRuns = []pageRun{
	{"plain-worker", func() *browser { return plain }, "worker", false},
	{"plain-main", func() *browser { return plain }, "main", false},
	{"native-worker", func() *browser { return native }, "worker", true},
	{"native-main", func() *browser { return native }, "main", true},
}

// TestCases replays every data case of testdata/cases through every agent
// path: in Chromium as shipped, the runtime's document.modelContext,
// navigator.modelContext and navigator.modelContextTesting; with native
// WebMCP on, also Chromium's own executeTool and the DevTools protocol's
// WebMCP.invokeTool. One page per engine mode and browser serves all cases.
func TestCases(t *testing.T) {
	t.Parallel() // beside the other tests; its pages side by side too
	cases := loadCases(t)
	if *update && conformanceTarget != "" {
		t.Fatal("-update rewrites Veil's expectations; it cannot run against a conformance target")
	}
	var mu sync.Mutex
	views := map[string]string{}
	if *update {
		// After every page, which run side by side.
		t.Cleanup(func() { updateViews(t, cases, views) })
	}
	for _, run := range pageRuns {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel() // each page in its own tab
			got := runCases(t, run, cases)
			for _, c := range cases {
				t.Run(c.Name, func(t *testing.T) {
					checkCase(t, got, c)
					if r := got.results[pathDocument][c.Name]; r != nil && r.OK && r.WellFormed {
						mu.Lock()
						views[c.Name] = r.Value
						mu.Unlock()
					}
				})
			}
			checkConsole(t, got.console, cases)
		})
	}
}

// updateViews writes each case's view as the plain page's document path
// gave it, where it changed (-update).
func updateViews(t *testing.T, cases []*corpus.Case, views map[string]string) {
	for _, c := range cases {
		v, ok := views[c.Name]
		if !ok || c.Error != "" {
			continue
		}
		if c.View != nil && *c.View == v {
			continue
		}
		c.Set("view", v+"\n")
		require.NoError(t, c.Write())
		t.Logf("updated %s", c.File)
	}
}

// caseRun is what one page gave for every case.
type caseRun struct {
	paths   []string
	results map[string]map[string]*callResult // by path, then case
	oracle  map[string]oracleResult
	console []string
	// registerErrs are the errors of registerTool, by case.
	registerErrs map[string]jsError
}

// caseCallTimeout bounds each call in the tab of a run of the cases: the
// page's load, one case's registration, its calls through one path, or
// its oracle; bound.Of scales it. Every case through every path takes
// about 11 s on a quiet machine of two CPUs, whose load can triple it; no
// bound covers them all. The largest case (pass-large, 1 MiB) has taken
// more than 15 s through one path with four pages side by side on a
// loaded machine.
const caseCallTimeout = time.Minute

// runCases opens the conformance page of the run, registers every case's
// tool and its earlier tools, and calls each through every path, the
// earlier tools in order right before the case's own. Each step takes one
// case at a time, in the order of cases, so that each has its own bound.
func runCases(t *testing.T, run pageRun, cases []*corpus.Case) *caseRun {
	tb := openCorpusTab(t, run.b(), caseCallTimeout)
	if run.native {
		// Chromium logs every failed tool; the console check below makes
		// sure that what it logs carries nothing a case withholds.
		tb.allowConsole(failedExecute)
	}
	tb.navigate(conformancePage(run.mode))
	require.True(t, eval[bool](tb, `conformance.ready()`), "the implementation under test is not ready")
	if run.native {
		require.True(t, eval[bool](tb, `conformance.hasNative()`), "Chromium's native document.modelContext")
	}

	names := make([]string, len(cases))
	got := &caseRun{results: map[string]map[string]*callResult{}, registerErrs: map[string]jsError{}, oracle: map[string]oracleResult{}}
	for i, c := range cases {
		names[i] = c.Name
		maps.Copy(got.registerErrs, eval[map[string]jsError](tb, `conformance.load(`+js([]pageSpec{spec(c)})+`)`))
	}
	inPage := []string{pathDocument, pathNavigator, pathTesting}
	if run.native {
		inPage = append(inPage, pathNative)
	}
paths:
	for _, path := range inPage {
		results := map[string]*callResult{}
		for _, name := range names {
			res := eval[pathResults](tb, fmt.Sprintf(`conformance.run(%s, %s)`, js(path), js([]string{name})))
			if res.Missing {
				if conformanceTarget != "" && path != pathDocument {
					t.Logf("the conformance target has no %s path", path)
					continue paths
				}
				t.Errorf("the %s path is missing", path)
				continue paths
			}
			maps.Copy(results, res.Results)
		}
		got.paths = append(got.paths, path)
		got.results[path] = results
	}
	if run.native {
		got.paths = append(got.paths, pathDevTools)
		got.results[pathDevTools] = tb.invokeAll(cases)
	}
	for _, name := range names {
		maps.Copy(got.oracle, eval[map[string]oracleResult](tb, `conformance.oracle(`+js([]string{name})+`)`))
	}
	tb.flushConsole()
	got.console = tb.consoleTexts()
	return got
}

// invokeAll calls every case's tool over the DevTools protocol, one after
// the other, each right after the case's earlier tools, in order, as an
// agent that drives the browser does.
//
// The WebMCP.toolResponded events are read as the browser sent them, not
// through cdproto's decoder: Chromium sends a lone surrogate in a tool's
// output as a \ud800-style escape, which is valid JSON text but which a
// strict decoder refuses, and an agent that reads the protocol with a
// lenient one gets it. The page then judges each output, code unit for
// code unit (see conformance.devtools).
func (tb *tab) invokeAll(cases []*corpus.Case) map[string]*callResult {
	tb.t.Helper()
	ctx, cancel := tb.call()
	frame, err := chromedp.Call(ctx, page.GetFrameTree, cdp.Empty{})
	require.NoError(tb.t, err, "Page.getFrameTree")
	_, err = chromedp.Call(ctx, webmcp.Enable, cdp.Empty{})
	require.NoError(tb.t, err, "WebMCP.enable")
	cancel()
	events, stop := chromedp.FromContext(tb.ctx).Target.Subscribe(webmcp.ToolResponded.Method)
	defer stop()
	out := map[string]*callResult{}
	var outputs []string // the cases whose call gave an output, in order
	type judgement struct {
		WellFormed bool  `json:"wellFormed"`
		Same       *bool `json:"same"`
	}
	for _, c := range cases {
		if _, ok := c.Skip[pathDevTools]; ok {
			continue
		}
		// The case's earlier calls and its own share one bound.
		ctx, cancel := tb.call()
		invoke := func(name, input string) *callResult {
			return tb.invokeRaw(ctx, frame.FrameTree.Frame.ID, events, name, input)
		}
		earlier := make([]*callResult, len(c.Earlier))
		for i, e := range c.Earlier {
			earlier[i] = invoke(e.Name, e.Input)
		}
		r := invoke(c.Name, c.Input)
		cancel()
		r.Earlier = earlier
		if r.OK {
			outputs = append(outputs, c.Name)
		}
		out[c.Name] = r
	}
	// After every call, as an agent would read them, a case at a time.
	for _, name := range outputs {
		judged := eval[map[string]judgement](tb, `conformance.devtools(`+js(map[string]string{name: out[name].Value})+`)`)
		for name, j := range judged {
			out[name].WellFormed, out[name].Same = j.WellFormed, j.Same
		}
	}
	return out
}

// invokeRaw calls one tool over the DevTools protocol and waits for its
// WebMCP.toolResponded among the events.
func (tb *tab) invokeRaw(ctx context.Context, frameID cdp.FrameID, events <-chan jsonv2.Value, name, input string) *callResult {
	tb.t.Helper()
	res, err := chromedp.Call(ctx, webmcp.InvokeTool, webmcp.InvokeToolParams{
		FrameID:  frameID,
		ToolName: name,
		Input:    jsonv2.Value(input),
	})
	if err != nil {
		return &callResult{Error: &jsError{Name: "DevToolsError", Message: err.Error()}}
	}
	for {
		var raw []byte
		select {
		case v, ok := <-events:
			require.True(tb.t, ok, "the WebMCP.toolResponded events ended")
			raw = v
		case <-ctx.Done():
			require.NoError(tb.t, ctx.Err(), "waiting for WebMCP.toolResponded of %q", name)
		}
		// encoding/json takes a lone surrogate escape; Output keeps the
		// bytes.
		var ev struct {
			InvocationID string          `json:"invocationId"`
			Status       string          `json:"status"`
			ErrorText    string          `json:"errorText"`
			Output       json.RawMessage `json:"output"`
			Exception    struct {
				ObjectID string `json:"objectId"`
			} `json:"exception"`
		}
		require.NoError(tb.t, json.Unmarshal(raw, &ev), "decoding WebMCP.toolResponded: %s", raw)
		if ev.InvocationID != string(res.InvocationID) {
			continue
		}
		r := &callResult{event: withoutBrowserIDs(string(raw), ev.InvocationID, ev.Exception.ObjectID), OK: ev.Status == string(webmcp.InvocationStatusCompleted), Type: "string"}
		if r.OK {
			// The output as JSON: see assertDevToolsOutput.
			r.Value = string(ev.Output)
		} else {
			r.Error = &jsError{Name: ev.Status, Message: ev.ErrorText}
		}
		return r
	}
}

// withoutBrowserIDs replaces the ids the browser made up for an event
// (the invocation's, and the remote object's of an exception) with fixed
// placeholders. They are random hex and digits that hold no byte of the
// tool's output, and a short withheld value such as "42" turns up in them
// by chance, once in a few dozen calls.
func withoutBrowserIDs(event string, ids ...string) string {
	for _, id := range ids {
		if id != "" {
			event = strings.ReplaceAll(event, `"`+id+`"`, `"<browser id>"`)
		}
	}
	return event
}

// seen is what an agent could read of a call: for the DevTools path, the
// whole event, exception and all.
func (r *callResult) seen() string {
	switch {
	case r.event != "":
		return r.event
	case r.Error != nil:
		return r.Error.Name + ": " + r.Error.Message
	}
	return r.Value
}

// checkEarlier checks the case's earlier calls through one path: each ran
// and resolved, and none of the case's absent strings is in what an agent
// could read of it.
func checkEarlier(t *testing.T, c *corpus.Case, path string, r *callResult) {
	require.Len(t, r.Earlier, len(c.Earlier), "results of the earlier calls")
	for i, e := range c.Earlier {
		er := r.Earlier[i]
		what := fmt.Sprintf("%s's earlier call %d (%s) through %s", c.Name, i, e.Name, path)
		require.NotNil(t, er, "no result of %s", what)
		for _, s := range c.Absent {
			assertWithheld(t, er.seen(), s, what)
		}
		require.True(t, er.OK, "%s failed: %+v", what, er.Error)
		if path != pathDevTools {
			assert.Equal(t, 1, er.Calls, "calls of execute of %s", what)
		}
	}
}

// checkCall checks one call of a case's tool through one path.
func checkCall(t *testing.T, c *corpus.Case, path string, r *callResult, o oracleResult) {
	seen := r.seen()
	for _, s := range c.Absent {
		assertWithheld(t, seen, s, c.Name+" through "+path)
	}

	if c.Error != "" {
		require.False(t, r.OK, "got %q, want the call to fail with %s", r.Value, c.Error)
		switch path {
		case pathNative:
			// Chromium reports every failed tool as this one error.
			assert.Equal(t, "UnknownError", r.Error.Name, "error of Chromium's executeTool: %s", r.Error.Message)
		case pathDevTools:
			assert.Equal(t, string(webmcp.InvocationStatusError), r.Error.Name, "status of WebMCP.toolResponded")
		default:
			assert.Equal(t, c.Error, r.Error.Name, "error: %s", r.Error.Message)
		}
		if c.Error == "DataError" || c.Error == "TypeError" {
			assert.Zero(t, r.Calls, "execute ran for input the call refused")
		}
		return
	}
	require.True(t, r.OK, "the call failed: %+v", r.Error)
	require.Equal(t, "string", r.Type, "type of the result")
	if path != pathDevTools {
		assert.Equal(t, 1, r.Calls, "calls of execute")
	}

	for _, s := range c.Present {
		if !corpus.Present(r.Value, s) {
			assert.Fail(t, "a value the agent must get is missing", "%q not in the view %q", s, r.Value)
		}
	}

	if c.Passthrough {
		checkPassthrough(t, path, r, o)
	}

	if c.Withheld != nil {
		view := r.Value
		if path == pathDevTools {
			view = devToolsText(r.Value)
		}
		checkNotice(t, c, view)
	}

	if c.View != nil && conformanceTarget == "" && r.WellFormed {
		if path == pathDevTools {
			assertDevToolsOutput(t, *c.View, r.Value, "the view (run with -update to accept a change)")
		} else {
			assert.Equal(t, *c.View, r.Value, "the view (run with -update to accept a change)")
		}
	}
}

// checkPassthrough checks that the agent got exactly what Chromium gives.
func checkPassthrough(t *testing.T, path string, r *callResult, o oracleResult) {
	if o.Native != nil {
		assert.True(t, *o.Same, "the rule's result %q differs from Chromium's own %q", o.Rule, *o.Native)
	}
	if o.NativeError != nil {
		assert.Fail(t, "Chromium's own executeTool failed on a pass-through case", "%+v", *o.NativeError)
	}
	require.NotNil(t, r.Same, "no comparison")
	if path == pathDevTools {
		// The protocol re-encodes JSON: the page compared values, with
		// their strings code unit for code unit.
		assert.True(t, *r.Same, "got the output %s, want %q, as executeTool gives it", r.Value, o.Rule)
		return
	}
	assert.True(t, *r.Same, "got %q, want exactly %q, as Chromium gives it", r.Value, o.Rule)
}

// checkNotice checks rule (f): what was withheld is said, in a
// CallToolResult whose first content item is the notice, and listed as
// JSON Pointers in _meta.
func checkNotice(t *testing.T, c *corpus.Case, view string) {
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal([]byte(view), &res), "the view is not a CallToolResult: %s", view)
	require.NotEmpty(t, res.Content, "the view has no content")
	assert.Equal(t, "text", res.Content[0].Type, "the first content item is the notice")
	assert.NotEmpty(t, res.Content[0].Text, "the notice")
	lower := strings.ToLower(view)
	for _, placeholder := range []string{"[hidden]", "[redacted]", "***"} {
		assert.NotContains(t, lower, placeholder, "a placeholder a model may take for the value")
	}
	if len(c.Withheld) > 0 {
		assert.Contains(t, res.Content[0].Text, "withheld", "the notice says values were withheld")
		assert.Contains(t, res.Content[0].Text, "reveal", "the notice says the user can reveal them")
	}
	var meta struct {
		Withheld []string `json:"withheld"`
	}
	raw, ok := res.Meta[metaKey]
	if !ok && conformanceTarget != "" {
		// Another implementation names its own _meta key.
		for _, v := range res.Meta {
			if json.Unmarshal(v, &meta) == nil && meta.Withheld != nil {
				raw, ok = v, true
				break
			}
		}
	}
	require.True(t, ok, "_meta lists no withheld pointers: %s", view)
	require.NoError(t, json.Unmarshal(raw, &meta))
	if meta.Withheld == nil {
		meta.Withheld = []string{}
	}
	assert.Equal(t, c.Withheld, meta.Withheld, "the withheld pointers")
}

// checkConsole fails for any console message that carries a string a case
// withholds: agents that drive a browser read the console too.
func checkConsole(t *testing.T, console []string, cases []*corpus.Case) {
	for _, text := range console {
		for _, c := range cases {
			for _, s := range c.Absent {
				if where, found := leakcheck.Find(text, s); found {
					t.Errorf("case %s: %q is in %s of the page's console: %s", c.Name, s, where, text)
				}
			}
		}
	}
}

// checkCase checks one case's results on every agent path of a page run.
func checkCase(t *testing.T, got *caseRun, c *corpus.Case) {
	t.Helper()
	if e, ok := got.registerErrs[c.Name]; ok {
		t.Fatalf("registerTool: %s: %s", e.Name, e.Message)
	}
	for _, path := range got.paths {
		t.Run(path, func(t *testing.T) {
			if reason, ok := c.Skip[path]; ok {
				t.Skip(reason)
			}
			r := got.results[path][c.Name]
			require.NotNil(t, r, "no result")
			checkEarlier(t, c, path, r)
			checkCall(t, c, path, r, got.oracle[c.Name])
		})
	}
}
