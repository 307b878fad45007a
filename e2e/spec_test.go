package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/bound"
)

// specDir holds the spec-behaviour cases.
const specDir = "testdata/spec"

// envSpecReport names a file to write the runtime-versus-native report to,
// as Markdown. The report is always in the test log (go test -v).
const envSpecReport = "VEIL_SPEC_REPORT"

// A specCase is one file of testdata/spec: a behaviour of the page-facing
// API (registration errors, input handling, events, abort) that runs
// against Chromium's own WebMCP and against the runtime, so that the report
// shows where they agree and where the runtime differs on purpose. Its
// comment says what it guards against; its files are:
//
//	script   the body of an async function of mc, the ModelContext under
//	         test, and h, the helpers of spec.js; it returns the outcome as
//	         JSON-able data (error messages stay out of it: attempt
//	         records them for the report)
//	want     the outcome the runtime must give, as JSON (rewritten by
//	         -update)
//	native   Chromium's outcome, when it differs from want (rewritten by
//	         -update)
//	differs  why the runtime differs from Chromium; required with native
type specCase struct {
	name    string
	file    string
	arc     *archive
	script  string
	want    string
	native  string // "" when Chromium gives want
	differs string
}

var specFiles = []string{"script", "want", "native", "differs"}

func loadSpecCases(t *testing.T) []*specCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(specDir, "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no cases in %s", specDir)
	var cases []*specCase
	for _, file := range files {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		c := &specCase{file: file, name: strings.TrimSuffix(filepath.Base(file), ".txtar"), arc: parseArchive(string(b))}
		require.NotEmpty(t, strings.TrimSpace(c.arc.comment), "%s does not open with what it guards against", file)
		for _, f := range c.arc.files {
			require.Contains(t, specFiles, f.name, "%s: unknown file", file)
		}
		var ok bool
		c.script, ok = c.arc.file("script")
		require.True(t, ok, "%s has no script", file)
		c.want, _ = c.arc.file("want")
		c.native, _ = c.arc.file("native")
		c.differs, _ = c.arc.file("differs")
		c.want, c.native, c.differs = strings.TrimSpace(c.want), strings.TrimSpace(c.native), strings.TrimSpace(c.differs)
		cases = append(cases, c)
	}
	return cases
}

// specOutcome is what one case gave against one implementation.
type specOutcome struct {
	Outcome  json.RawMessage `json:"outcome"`
	Messages []string        `json:"messages"`
}

// specTarget is one implementation the spec cases run against.
type specTarget struct {
	name string
	b    func() *browser
	page string
	mc   string // "native" or "page", for spec.run
}

var specTargets = []specTarget{
	{"native", func() *browser { return native }, "native.html", "native"},
	{"runtime", func() *browser { return plain }, conformancePage("worker"), "page"},
	{"runtime-main", func() *browser { return plain }, conformancePage("main"), "page"},
	{"layered", func() *browser { return native }, conformancePage("worker"), "page"},
}

// TestSpec runs the spec-behaviour cases against Chromium's own WebMCP
// (native), the runtime in Chromium as shipped (runtime, with its engine in
// a Worker; runtime-main, on the main thread), and the runtime in front of
// Chromium's own (layered). The runtime and layered must give want;
// Chromium must give native, or want when the case has no native. It logs a
// report of where the runtime matches Chromium and where it differs, and
// why.
func TestSpec(t *testing.T) {
	t.Parallel() // in a tab of its own
	cases := loadSpecCases(t)
	scripts := make([]map[string]string, len(cases))
	for i, c := range cases {
		scripts[i] = map[string]string{"name": c.name, "script": c.script}
	}
	got := map[string]map[string]specOutcome{}
	for _, target := range specTargets {
		got[target.name] = runSpecTarget(t, target, scripts)
	}

	var report []specRow
	for _, c := range cases {
		rt, layered, nat := got["runtime"][c.name], got["layered"][c.name], got["native"][c.name]
		row := specRow{c: c, runtime: compact(rt.Outcome), native: compact(nat.Outcome), rtMessages: rt.Messages, natMessages: nat.Messages}
		t.Run(c.name, func(t *testing.T) {
			if *update {
				updateSpecCase(t, c, row.runtime, row.native)
				return
			}
			require.NotEmpty(t, c.want, "no want: run with -update to write it")
			assert.JSONEq(t, c.want, row.runtime, "the runtime's outcome (-update rewrites want)")
			assert.JSONEq(t, c.want, compact(got["runtime-main"][c.name].Outcome), "the outcome of the runtime with its engine on the main thread")
			assert.JSONEq(t, c.want, compact(layered.Outcome), "the outcome of the runtime in front of native WebMCP")
			if c.native == "" {
				assert.JSONEq(t, c.want, row.native, "Chromium's outcome differs from want: if the runtime differs on purpose, add native and say why in differs")
				return
			}
			assert.JSONEq(t, c.native, row.native, "Chromium's outcome (-update rewrites native)")
			assert.False(t, jsonEqual(c.want, c.native), "native equals want: remove native and differs")
			assert.NotEmpty(t, c.differs, "the runtime differs from Chromium: say why in differs")
			assert.False(t, strings.HasPrefix(c.differs, "TODO"), "the runtime differs from Chromium: say why in differs")
		})
		report = append(report, row)
	}
	text := specReport(report)
	t.Log("runtime versus Chromium's native WebMCP:\n" + text)
	if path := os.Getenv(envSpecReport); path != "" {
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
}

// The bounds of a spec case, as on a quiet machine; bound.Of scales each.
const (
	// specCaseTimeout bounds one case in the page, which reports a case
	// that does not settle by its name.
	specCaseTimeout = 15 * time.Second
	// specCallTimeout bounds each call in the tab: one case, with time
	// left over for the page to report it, or the page's load.
	specCallTimeout = 3 * specCaseTimeout
)

// runSpecTarget runs every case against one target, in a tab of its own,
// a case at a time: no bound covers the whole corpus. The tab closes, and
// its console is checked, before the next target's opens.
func runSpecTarget(t *testing.T, target specTarget, scripts []map[string]string) map[string]specOutcome {
	tb := openCorpusTab(t, target.b(), specCallTimeout)
	defer tb.close()
	// Chromium logs every failed tool, with the page's error.
	tb.allowConsole(failedExecute)
	tb.navigate(target.page)
	if target.mc == "native" {
		require.True(t, eval[bool](tb, `spec.hasNative()`), "Chromium's own document.modelContext")
	}
	out := map[string]specOutcome{}
	perCase := js(bound.Millis(specCaseTimeout))
	for _, script := range scripts {
		maps.Copy(out, eval[map[string]specOutcome](tb, `spec.run(`+js(target.mc)+`, `+js([]map[string]string{script})+`, `+perCase+`)`))
	}
	return out
}

// updateSpecCase rewrites want and native from what the runs gave. A new
// difference gets a differs to fill in.
func updateSpecCase(t *testing.T, c *specCase, runtime, nat string) {
	before := string(c.arc.format())
	c.arc.set("want", runtime+"\n")
	if jsonEqual(runtime, nat) {
		c.arc.files = slices.DeleteFunc(c.arc.files, func(f archiveFile) bool { return f.name == "native" || f.name == "differs" })
	} else {
		c.arc.set("native", nat+"\n")
		if c.differs == "" {
			c.arc.set("differs", "TODO: say why the runtime differs from Chromium.\n")
		}
	}
	if after := c.arc.format(); string(after) != before {
		require.NoError(t, os.WriteFile(c.file, after, 0o644))
		t.Logf("updated %s", c.file)
	}
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

type specRow struct {
	c                       *specCase
	runtime, native         string
	rtMessages, natMessages []string
}

// specReport renders the rows as a Markdown table: each case, whether the
// runtime matches Chromium, and the errors each gave.
func specReport(rows []specRow) string {
	var b strings.Builder
	same, differs := 0, 0
	fmt.Fprintln(&b, "| case | runtime vs Chromium | runtime | Chromium |")
	fmt.Fprintln(&b, "|---|---|---|---|")
	for _, r := range rows {
		verdict := "same"
		if !jsonEqual(r.runtime, r.native) {
			verdict = "differs: " + oneLine(r.c.differs)
			differs++
		} else {
			same++
		}
		if !slices.Equal(r.rtMessages, r.natMessages) && len(r.rtMessages)+len(r.natMessages) > 0 {
			verdict += "; error messages differ"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.c.name, verdict, cell(r.runtime, r.rtMessages), cell(r.native, r.natMessages))
	}
	fmt.Fprintf(&b, "\n%d cases: %d the same as Chromium, %d different on purpose.\n", len(rows), same, differs)
	return b.String()
}

func cell(outcome string, messages []string) string {
	s := "`" + outcome + "`"
	for _, m := range messages {
		s += "<br>" + oneLine(m)
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
