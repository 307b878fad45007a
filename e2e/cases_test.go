package e2e

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/webmcp"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/leakcheck"
)

// update rewrites the view files of the data cases from what the runtime
// gives, as go-sdk's conformance tests do.
var update = flag.Bool("update", false, "rewrite the view expectations of testdata/cases from the runtime's answers")

// casesDir holds the data cases, one txtar archive per case.
const casesDir = "testdata/cases"

// metaKey is the _meta member under which Veil lists what it withheld.
const metaKey = "dev.veil/withheld"

// A dataCase is one file of testdata/cases. Its comment says what the case
// guards against; its files are:
//
//	tool         a JavaScript expression for the tool, without execute; name
//	             and description default to the file name and a stock text
//	input        the input, as JSON (default {})
//	returns      a JavaScript expression for what execute returns (it may
//	             use input, and fixture; a Promise is awaited as a page's
//	             would be)
//	fixture      text an encoder wrote (Python's json.dumps, Go's
//	             json.Marshal), which returns and throws read as the
//	             string fixture; TestFixtures checks it is what the
//	             encoder writes
//	throws       a JavaScript expression for what execute throws
//	absent       strings, one per line, that must not be anywhere in what
//	             an agent gets, in any form a reader decodes (package
//	             leakcheck): the view, the error, and the page's console
//	present      strings, one per line, that must be in the view, raw or
//	             decoded
//	error        the name of the error the call rejects with
//	withheld     the JSON Pointers the view lists as withheld, as a JSON
//	             array; the view must then be a CallToolResult whose first
//	             content item is the notice
//	passthrough  (empty) the agent gets exactly what Chromium's own
//	             executeTool gives for the same tool, code unit for code unit
//	view         the exact view Veil gives, rewritten by -update
//
// A line of absent or present that starts and ends with a double quote is a
// Go string literal, for strings with spaces at their ends or escapes.
type dataCase struct {
	name        string
	file        string
	arc         *archive
	tool        string
	input       string
	returns     *string
	throws      *string
	fixture     *string
	absent      []string
	present     []string
	errName     string
	withheld    []string // nil when the case does not say
	passthrough bool
	view        *string
	// skip maps a path the case cannot be observed on to the reason, from
	// lines "path: reason" in the file skip-paths.
	skip map[string]string
}

var caseFiles = []string{"tool", "input", "returns", "throws", "fixture", "absent", "present", "error", "withheld", "passthrough", "view", "skip-paths"}

// toolNameRE is what the draft allows in a tool name.
var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// loadCases reads every case of testdata/cases.
func loadCases(t *testing.T) []*dataCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(casesDir, "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no cases in %s", casesDir)
	var cases []*dataCase
	for _, file := range files {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		c, err := parseCase(file, string(b))
		require.NoError(t, err, "case %s", file)
		cases = append(cases, c)
	}
	return cases
}

func parseCase(file, text string) (*dataCase, error) {
	c := &dataCase{file: file, name: strings.TrimSuffix(filepath.Base(file), ".txtar"), arc: parseArchive(text)}
	if !toolNameRE.MatchString(c.name) {
		return nil, fmt.Errorf("the file name %q is not a valid tool name", c.name)
	}
	if strings.TrimSpace(c.arc.comment) == "" {
		return nil, fmt.Errorf("the case does not open with what it guards against")
	}
	seen := map[string]bool{}
	for _, f := range c.arc.files {
		if !slices.Contains(caseFiles, f.name) {
			return nil, fmt.Errorf("unknown file %q (want one of %v)", f.name, caseFiles)
		}
		if seen[f.name] {
			return nil, fmt.Errorf("file %q twice", f.name)
		}
		seen[f.name] = true
	}
	var ok bool
	if c.tool, ok = c.arc.file("tool"); !ok {
		return nil, fmt.Errorf("no tool file")
	}
	c.input, _ = c.arc.file("input")
	if strings.TrimSpace(c.input) == "" {
		c.input = "{}"
	}
	var input bytes.Buffer
	if err := json.Compact(&input, []byte(c.input)); err != nil {
		return nil, fmt.Errorf("input is not JSON: %w", err)
	}
	c.input = input.String()
	if s, ok := c.arc.file("returns"); ok {
		c.returns = &s
	}
	if s, ok := c.arc.file("throws"); ok {
		c.throws = &s
	}
	if c.returns != nil && c.throws != nil {
		return nil, fmt.Errorf("both returns and throws")
	}
	if s, ok := c.arc.file("fixture"); ok {
		s = strings.TrimSuffix(s, "\n")
		c.fixture = &s
	}
	var err error
	if c.absent, err = lines(c.arc, "absent"); err != nil {
		return nil, err
	}
	if c.present, err = lines(c.arc, "present"); err != nil {
		return nil, err
	}
	if s, ok := c.arc.file("error"); ok {
		c.errName = strings.TrimSpace(s)
	}
	if s, ok := c.arc.file("withheld"); ok {
		c.withheld = []string{}
		if err := json.Unmarshal([]byte(s), &c.withheld); err != nil {
			return nil, fmt.Errorf("withheld is not a JSON array of strings: %w", err)
		}
	}
	_, c.passthrough = c.arc.file("passthrough")
	skips, err := lines(c.arc, "skip-paths")
	if err != nil {
		return nil, err
	}
	for _, l := range skips {
		path, reason, ok := strings.Cut(l, ":")
		if !ok || strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("skip-paths: want lines \"path: reason\", got %q", l)
		}
		if c.skip == nil {
			c.skip = map[string]string{}
		}
		c.skip[strings.TrimSpace(path)] = strings.TrimSpace(reason)
	}
	if s, ok := c.arc.file("view"); ok {
		s = strings.TrimSuffix(s, "\n")
		c.view = &s
	}
	if c.errName != "" && (c.passthrough || c.view != nil || c.withheld != nil || len(c.present) > 0) {
		return nil, fmt.Errorf("a case that expects an error has no view, withheld, present or passthrough")
	}
	return c, nil
}

func lines(a *archive, name string) ([]string, error) {
	s, _ := a.file(name)
	var out []string
	for line := range strings.Lines(s) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			continue
		}
		if len(line) >= 2 && line[0] == '"' && line[len(line)-1] == '"' {
			u, err := strconv.Unquote(line)
			if err != nil {
				return nil, fmt.Errorf("%s: %w: %s", name, err, line)
			}
			line = u
		}
		out = append(out, line)
	}
	return out, nil
}

// pageSpec is what conformance.js needs of a case.
type pageSpec struct {
	Name        string  `json:"name"`
	Tool        string  `json:"tool"`
	Input       string  `json:"input"`
	Returns     *string `json:"returns,omitempty"`
	Throws      *string `json:"throws,omitempty"`
	Fixture     *string `json:"fixture,omitempty"`
	Passthrough bool    `json:"passthrough"`
}

func (c *dataCase) spec() pageSpec {
	return pageSpec{c.name, c.tool, c.input, c.returns, c.throws, c.fixture, c.passthrough}
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
	cases := loadCases(t)
	if *update && conformanceTarget != "" {
		t.Fatal("-update rewrites Veil's expectations; it cannot run against a conformance target")
	}
	views := map[string]string{}
	for _, run := range pageRuns {
		t.Run(run.name, func(t *testing.T) {
			got := runCases(t, run, cases)
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					if e, ok := got.registerErrs[c.name]; ok {
						t.Fatalf("registerTool: %s: %s", e.Name, e.Message)
					}
					for _, path := range got.paths {
						t.Run(path, func(t *testing.T) {
							if reason, ok := c.skip[path]; ok {
								t.Skip(reason)
							}
							r := got.results[path][c.name]
							require.NotNil(t, r, "no result")
							checkCall(t, c, path, r, got.oracle[c.name])
							if path == pathDocument && r.OK && r.WellFormed {
								views[c.name] = r.Value
							}
						})
					}
				})
			}
			checkConsole(t, got.console, cases)
		})
	}
	if *update {
		for _, c := range cases {
			v, ok := views[c.name]
			if !ok || c.errName != "" {
				continue
			}
			if c.view != nil && *c.view == v {
				continue
			}
			c.arc.set("view", v+"\n")
			require.NoError(t, os.WriteFile(c.file, c.arc.format(), 0o644))
			t.Logf("updated %s", c.file)
		}
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

// runCases opens the conformance page of the run, registers every case's
// tool and calls each through every path.
func runCases(t *testing.T, run pageRun, cases []*dataCase) *caseRun {
	tb := openTab(t, run.b())
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

	specs := make([]pageSpec, len(cases))
	names := make([]string, len(cases))
	for i, c := range cases {
		specs[i], names[i] = c.spec(), c.name
	}
	got := &caseRun{results: map[string]map[string]*callResult{}}
	got.registerErrs = eval[map[string]jsError](tb, `conformance.load(`+js(specs)+`)`)
	inPage := []string{pathDocument, pathNavigator, pathTesting}
	if run.native {
		inPage = append(inPage, pathNative)
	}
	for _, path := range inPage {
		res := eval[pathResults](tb, fmt.Sprintf(`conformance.run(%s, %s)`, js(path), js(names)))
		if res.Missing {
			if conformanceTarget != "" && path != pathDocument {
				t.Logf("the conformance target has no %s path", path)
				continue
			}
			t.Errorf("the %s path is missing", path)
			continue
		}
		got.paths = append(got.paths, path)
		got.results[path] = res.Results
	}
	if run.native {
		got.paths = append(got.paths, pathDevTools)
		got.results[pathDevTools] = tb.invokeAll(cases)
	}
	got.oracle = eval[map[string]oracleResult](tb, `conformance.oracle(`+js(names)+`)`)
	tb.flushConsole()
	got.console = tb.consoleTexts()
	return got
}

// invokeAll calls every case's tool over the DevTools protocol, one after
// the other, as an agent that drives the browser does.
//
// The WebMCP.toolResponded events are read as the browser sent them, not
// through cdproto's decoder: Chromium sends a lone surrogate in a tool's
// output as a \ud800-style escape, which is valid JSON text but which a
// strict decoder refuses, and an agent that reads the protocol with a
// lenient one gets it. The page then judges each output, code unit for
// code unit (see conformance.devtools).
func (tb *tab) invokeAll(cases []*dataCase) map[string]*callResult {
	tb.t.Helper()
	frame, err := chromedp.Call(tb.ctx, page.GetFrameTree, cdp.Empty{})
	require.NoError(tb.t, err, "Page.getFrameTree")
	_, err = chromedp.Call(tb.ctx, webmcp.Enable, cdp.Empty{})
	require.NoError(tb.t, err, "WebMCP.enable")
	events, stop := chromedp.FromContext(tb.ctx).Target.Subscribe(webmcp.ToolResponded.Method)
	defer stop()
	out := map[string]*callResult{}
	outputs := map[string]string{}
	for _, c := range cases {
		if _, ok := c.skip[pathDevTools]; ok {
			continue
		}
		res, err := chromedp.Call(tb.ctx, webmcp.InvokeTool, webmcp.InvokeToolParams{
			FrameID:  frame.FrameTree.Frame.ID,
			ToolName: c.name,
			Input:    jsonv2.Value(c.input),
		})
		if err != nil {
			out[c.name] = &callResult{Error: &jsError{Name: "DevToolsError", Message: err.Error()}}
			continue
		}
		for {
			var raw []byte
			select {
			case v, ok := <-events:
				require.True(tb.t, ok, "the WebMCP.toolResponded events ended")
				raw = v
			case <-tb.ctx.Done():
				require.NoError(tb.t, tb.ctx.Err(), "waiting for WebMCP.toolResponded of %q", c.name)
			}
			// encoding/json takes a lone surrogate escape; Output keeps
			// the bytes.
			var ev struct {
				InvocationID string          `json:"invocationId"`
				Status       string          `json:"status"`
				ErrorText    string          `json:"errorText"`
				Output       json.RawMessage `json:"output"`
			}
			require.NoError(tb.t, json.Unmarshal(raw, &ev), "decoding WebMCP.toolResponded: %s", raw)
			if ev.InvocationID != string(res.InvocationID) {
				continue
			}
			r := &callResult{event: string(raw), OK: ev.Status == string(webmcp.InvocationStatusCompleted), Type: "string"}
			if r.OK {
				// The output as JSON: see assertDevToolsOutput.
				r.Value = string(ev.Output)
				outputs[c.name] = r.Value
			} else {
				r.Error = &jsError{Name: ev.Status, Message: ev.ErrorText}
			}
			out[c.name] = r
			break
		}
	}
	judged := eval[map[string]struct {
		WellFormed bool  `json:"wellFormed"`
		Same       *bool `json:"same"`
	}](tb, `conformance.devtools(`+js(outputs)+`)`)
	for name, j := range judged {
		out[name].WellFormed, out[name].Same = j.WellFormed, j.Same
	}
	return out
}

// checkCall checks one call of a case's tool through one path.
func checkCall(t *testing.T, c *dataCase, path string, r *callResult, o oracleResult) {
	// What an agent could read of the call: for the DevTools path, the
	// whole event, exception and all.
	seen := r.Value
	if r.Error != nil {
		seen = r.Error.Name + ": " + r.Error.Message
	}
	if r.event != "" {
		seen = r.event
	}
	for _, s := range c.absent {
		assertWithheld(t, seen, s, c.name+" through "+path)
	}

	if c.errName != "" {
		require.False(t, r.OK, "got %q, want the call to fail with %s", r.Value, c.errName)
		switch path {
		case pathNative:
			// Chromium reports every failed tool as this one error.
			assert.Equal(t, "UnknownError", r.Error.Name, "error of Chromium's executeTool: %s", r.Error.Message)
		case pathDevTools:
			assert.Equal(t, string(webmcp.InvocationStatusError), r.Error.Name, "status of WebMCP.toolResponded")
		default:
			assert.Equal(t, c.errName, r.Error.Name, "error: %s", r.Error.Message)
		}
		if c.errName == "DataError" || c.errName == "TypeError" {
			assert.Zero(t, r.Calls, "execute ran for input the call refused")
		}
		return
	}
	require.True(t, r.OK, "the call failed: %+v", r.Error)
	require.Equal(t, "string", r.Type, "type of the result")
	if path != pathDevTools {
		assert.Equal(t, 1, r.Calls, "calls of execute")
	}

	for _, s := range c.present {
		if _, ok := findSecret(r.Value, s, 0); !ok {
			assert.Fail(t, "a value the agent must get is missing", "%q not in the view %q", s, r.Value)
		}
	}

	if c.passthrough {
		checkPassthrough(t, path, r, o)
	}

	if c.withheld != nil {
		view := r.Value
		if path == pathDevTools {
			view = devToolsText(r.Value)
		}
		checkNotice(t, c, view)
	}

	if c.view != nil && conformanceTarget == "" && r.WellFormed {
		if path == pathDevTools {
			assertDevToolsOutput(t, *c.view, r.Value, "the view (run with -update to accept a change)")
		} else {
			assert.Equal(t, *c.view, r.Value, "the view (run with -update to accept a change)")
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
func checkNotice(t *testing.T, c *dataCase, view string) {
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
	if len(c.withheld) > 0 {
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
	assert.Equal(t, c.withheld, meta.Withheld, "the withheld pointers")
}

// checkConsole fails for any console message that carries a string a case
// withholds: agents that drive a browser read the console too.
func checkConsole(t *testing.T, console []string, cases []*dataCase) {
	for _, text := range console {
		for _, c := range cases {
			for _, s := range c.absent {
				if where, found := leakcheck.Find(text, s); found {
					t.Errorf("case %s: %q is in %s of the page's console: %s", c.name, s, where, text)
				}
			}
		}
	}
}
