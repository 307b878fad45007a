package wpt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/bound"
)

// envSkipNPM skips the browser tests when npm ci has not run, as in
// package e2e.
const envSkipNPM = "VEIL_SKIP_NPM"

// subsetGlobs choose TestSubset's files under the tree's root: a file
// of the suite's agent view, and of its redemptions the one that leans
// on the engine most (a window it opens, cookies across sites, Fetch
// Metadata); else the samples the runner was first tested with.
var subsetGlobs = [][]string{
	{"webmcp/sensitive/agent-view-a1.html", "webmcp/sensitive/redeem-fetch-*.html"},
	{"testdata/sample/*.html"},
}

// subsetFiles returns the first of subsetGlobs that names files: the
// first file each of its patterns matches.
func subsetFiles(t *testing.T) []string {
	for _, globs := range subsetGlobs {
		var files []string
		for _, g := range globs {
			m, err := filepath.Glob(filepath.FromSlash(g))
			require.NoError(t, err, "glob %s", g)
			if len(m) > 0 && len(globs) > 1 {
				m = m[:1]
			}
			for _, p := range m {
				files = append(files, filepath.ToSlash(p))
			}
		}
		if len(files) > 0 {
			return files
		}
	}
	require.FailNow(t, "no test files", "none of %v", subsetGlobs)
	return nil
}

// browserSlots lets three of the package's browsers run at once: make
// test runs the package beside the browser suite on two cores, where six
// browsers starting together have taken more than thirty seconds each.
var browserSlots = make(chan struct{}, 3)

// needBrowser skips or fails t when e's programs or node_modules are
// missing: it skips only when the engine's SkipEnv (or VEIL_SKIP_NPM
// for node_modules) is 1. Otherwise it waits for one of browserSlots,
// held until t ends.
func needBrowser(t *testing.T, e *Engine) string {
	t.Helper()
	root, err := ModuleRoot()
	require.NoError(t, err, "ModuleRoot")
	if _, err := os.Stat(TestharnessPath(root)); err != nil {
		if os.Getenv(envSkipNPM) == "1" {
			t.Skipf("skipping: testharness.js is not installed (%s=1)", envSkipNPM)
		}
		t.Fatalf("testharness.js is not installed: run npm ci, or set %s=1 to skip: %v", envSkipNPM, err)
	}
	if err := e.Find(); err != nil {
		if os.Getenv(e.SkipEnv) == "1" {
			t.Skipf("skipping: %v (%s=1)", err, e.SkipEnv)
		}
		t.Fatalf("%v; set %s=1 to skip %s", err, e.SkipEnv, e.Name)
	}
	browserSlots <- struct{}{}
	t.Cleanup(func() { <-browserSlots })
	return root
}

var (
	distOnce sync.Once
	distDir  string
	distErr  error
)

// testDist builds the runtime once for the package's tests.
func testDist(t *testing.T) string {
	distOnce.Do(func() {
		distDir, distErr = os.MkdirTemp("", "veil-wpt-test-dist-")
		if distErr == nil {
			distErr = BuildDist(distDir)
		}
	})
	require.NoError(t, distErr, "building the runtime")
	return distDir
}

func TestMain(m *testing.M) {
	if _, err := bound.Factor(); err != nil {
		fmt.Fprintln(os.Stderr, "wpt:", err)
		os.Exit(1)
	}
	code := m.Run()
	if distDir != "" {
		os.RemoveAll(distDir)
	}
	os.Exit(code)
}

// subsetTimeoutMultiplier multiplies the subset's timeouts, and the
// factor of bound.Of multiplies it: make test runs it beside the browser
// suite on shared cores, where WebKit has been seen to take more than
// testharness.js's 10 s over a page's first test while it compiles the
// engine.
const subsetTimeoutMultiplier = 3

// engineTimeout bounds one engine's run of a few files: its start, and
// each file within its own timeout; bound.Of scales it.
const engineTimeout = 5 * time.Minute

// factor is the factor of bound.Of; TestMain has checked it.
func factor() float64 {
	f, _ := bound.Factor()
	return f
}

// TestSubset runs a few files of the suite in runtime mode in every
// engine, side by side, and fails on any failed subtest.
func TestSubset(t *testing.T) {
	files := subsetFiles(t)
	for _, e := range Engines {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			root := needBrowser(t, e)
			cfg := &Config{Dir: ".", Files: files, Dist: testDist(t), Root: root, TimeoutMultiplier: subsetTimeoutMultiplier * factor()}
			ctx, cancel := context.WithTimeout(context.Background(), bound.Of(engineTimeout))
			defer cancel()
			rep, err := RunEngine(ctx, cfg, ModeRuntime, e)
			require.NoError(t, err, "RunEngine")
			t.Log(rep)
			for _, f := range rep.Failures() {
				t.Error(f)
			}
			passed, _ := rep.Counts()
			assert.NotZero(t, passed, "no subtest passed")
		})
	}
}

// TestTimeouts checks, in every engine, that a page that never reports,
// one whose harness times out, one with an uncaught error and one that
// is not there end as such, in time, and that the next file still runs.
// The runner's timeout and the time it may take past it scale with
// bound.Of.
func TestTimeouts(t *testing.T) {
	timeout := bound.Of(4 * time.Second)
	late := bound.Of(5 * time.Second)
	noResults := fmt.Sprintf("no results within %v (the runner's timeout)", timeout)
	want := []FileResult{
		{File: "silent.html", Harness: HarnessTimeout, Message: noResults, Subtests: []Subtest{}},
		{File: "harness-timeout.html", Harness: HarnessTimeout, Subtests: []Subtest{{Name: "never ends", Status: StatusTimeout}, {Name: "fails", Status: StatusFail}}},
		{File: "error.html", Harness: HarnessError, Subtests: []Subtest{{Name: "passes", Status: StatusPass}}},
		{File: "missing.html", Harness: HarnessTimeout, Message: noResults, Subtests: []Subtest{}},
		{File: "error.html", Harness: HarnessError, Subtests: []Subtest{{Name: "passes", Status: StatusPass}}},
	}
	for _, e := range Engines {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			root := needBrowser(t, e)
			cfg := &Config{Dir: "testdata/timeout", Timeout: timeout, Root: root}
			for _, w := range want {
				cfg.Files = append(cfg.Files, w.File)
			}
			ctx, cancel := context.WithTimeout(context.Background(), bound.Of(engineTimeout))
			defer cancel()
			rep, err := RunEngine(ctx, cfg, ModeNone, e)
			require.NoError(t, err, "RunEngine")
			require.Len(t, rep.Files, len(want))
			for i, got := range rep.Files {
				assert.Less(t, got.Duration, timeout+late, "%s: duration", got.File)
				// Messages from the browser vary; check only that there is one.
				if want[i].Message == "" {
					assert.NotEmpty(t, got.Message+fmt.Sprint(got.Subtests), "%s: message", got.File)
					got.Message = ""
				}
				for j := range got.Subtests {
					got.Subtests[j].Message = ""
				}
				got.Duration = 0
				assert.Equal(t, want[i], got, "%s", got.File)
			}
		})
	}
}
