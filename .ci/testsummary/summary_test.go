package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the output and report of testdata/*.txtar from what the summary makes of their events")

// module is the module path of the recorded events in testdata.
const module = "example.com/m"

// TestRecorded replays `go test -json` streams recorded from packages of
// example.com/m. Each testdata/<name>.txtar holds:
//
//	events  the stream
//	as      optional lines package=suite, as -as gives them
//	output  what a person sees while the suite runs
//	report  the summary at the end
//
// The command's suite is "go". -update rewrites output and report.
func TestRecorded(t *testing.T) {
	tests := []struct {
		name                    string
		passed, failed, skipped int
		shown                   []string // in the output or the report
	}{
		{"pass", 3, 0, 4, []string{
			"ok  \texample.com/m/ok\t",
			"no browser\n",
			"  go  ok TestSkip: redis-server is not on PATH\n",
			"  go  ok TestSkipf: two lines\n",
			"  go  ok TestSub/b: not here\n",
			"  go  ok TestParallel/y: y skipped\n",
		}},
		{"fail", 2, 2, 0, []string{
			"--- FAIL: TestFail (0.00s)\n    bad_test.go:6: some context\n    bad_test.go:7: got 1, want 2\n",
			"--- FAIL: TestSubFail/no (0.00s)\n    bad_test.go:11: boom\n",
			"  go  bad TestFail\n",
			"  go  bad TestSubFail/no\n",
		}},
		{"build", 0, 1, 0, []string{
			"broken/broken_test.go:5:32: declared and not used: x\n",
			"FAIL\texample.com/m/broken [build failed]\n",
			"  go  broken: build failed\n",
		}},
		{"vet", 0, 1, 0, []string{
			`fmt.Printf format %d has arg "x" of wrong type string`,
			"  go  vetbad: build failed\n",
		}},
		{"panic", 1, 1, 0, []string{
			"--- FAIL: TestPanic (0.00s)\npanic: assignment to entry in nil map",
			"/src/m/panics/p_test.go:6",
			"  go  panics TestPanic\n",
		}},
		{"timeout", 1, 1, 0, []string{
			"--- FAIL: TestSlow (did not finish)\n    t_test.go:6: waiting\npanic: test timed out after 1s\n",
			"  go  timeout TestSlow: did not finish\n",
		}},
		{"testmain", 1, 1, 0, []string{
			"leaked goroutine\nFAIL\texample.com/m/mainfail\t",
			"  go  mainfail: failed outside its tests\n",
		}},
		{"slow", 6, 1, 0, []string{
			"\nslowest:\n  1m15s  go     slow TestBrowser\n  31.5s  go     slow TestCorpus\n",
			"   1.0s  other  b TestOther\n",
		}},
		{"alone", 5, 0, 0, []string{
			"\none at a time, before the tests that run side by side:\n  3.5s  go  mixed: 2 tests\n\n",
		}},
		{"as", 5, 2, 4, []string{
			"\ngo       3 passed, 0 failed, 4 skipped",
			"\nbrowser  2 passed, 2 failed, 0 skipped",
			"  browser  bad TestFail\n",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join("testdata", tt.name+".txtar")
			a, err := txtar.ParseFile(file)
			require.NoError(t, err)
			files := map[string]string{}
			for _, f := range a.Files {
				files[f.Name] = string(f.Data)
			}
			sum, output, report := replay(t, files["events"], files["as"])

			var total Suite
			for _, su := range sum.suites {
				total.Passed += su.Passed
				total.Failed += su.Failed
				total.Skipped += su.Skipped
			}
			assert.Equal(t, []int{tt.passed, tt.failed, tt.skipped}, []int{total.Passed, total.Failed, total.Skipped}, "passed, failed, skipped")
			assert.Equal(t, tt.failed > 0, sum.Failed(), "Failed()")
			for _, s := range tt.shown {
				assert.Contains(t, output+report, s)
			}

			if *update {
				set(a, "output", output)
				set(a, "report", report)
				require.NoError(t, os.WriteFile(file, txtar.Format(a), 0o644))
				return
			}
			assert.Equal(t, files["output"], output, "output; go test -update rewrites it")
			assert.Equal(t, files["report"], report, "report; go test -update rewrites it")
		})
	}
}

// replay reads events as the output of the command of suite "go", with
// the packages of as moved, and returns the summary, what was printed
// while it ran and the report. The command runs from its earliest event
// to its latest.
func replay(t *testing.T, events, as string) (*Summary, string, string) {
	t.Helper()
	sum := new(Summary)
	sum.suite("go")
	moved := map[string]string{}
	for line := range strings.Lines(as) {
		pkg, suite, ok := strings.Cut(strings.TrimSpace(line), "=")
		require.True(t, ok, "as: %q", line)
		moved[pkg] = suite
		sum.suite(suite)
	}
	var first, last time.Time
	sc := bufio.NewScanner(strings.NewReader(events))
	for sc.Scan() {
		var e event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
		if e.Time.IsZero() {
			continue
		}
		if first.IsZero() || e.Time.Before(first) {
			first = e.Time
		}
		if e.Time.After(last) {
			last = e.Time
		}
	}
	var out, rep bytes.Buffer
	r := newReader(sum, "go", module, moved, first, &out)
	r.read(strings.NewReader(events))
	r.finish(nil, last.Sub(first))
	sum.Report(&rep, last.Sub(first))
	return sum, out.String(), rep.String()
}

func set(a *txtar.Archive, name, data string) {
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files[i].Data = []byte(data)
			return
		}
	}
	a.Files = append(a.Files, txtar.File{Name: name, Data: []byte(data)})
}

// TestRunAll: the commands run side by side (the first waits for a file
// the third writes, which it would wait for in vain were they run one
// after the other), each suite's output comes whole and in the order
// given, and every result reaches the summary.
func TestRunAll(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "mark")
	sum := new(Summary)
	var out bytes.Buffer
	runAll(sum, []command{
		{"waits", "for i in $(seq 100); do [ -e " + mark + " ] && break; sleep 0.1; done; [ -e " + mark + " ] && echo saw it"},
		{"failing", "echo failing says; exit 3"},
		{"writes", "touch " + mark + " && echo wrote it"},
	}, module, nil, &out)
	assert.Equal(t, "== waits\nsaw it\n== failing\nfailing says\n== writes\nwrote it\n", out.String())
	require.Len(t, sum.suites, 3)
	assert.Equal(t, []string{"waits", "failing", "writes"}, []string{sum.suites[0].Name, sum.suites[1].Name, sum.suites[2].Name})
	assert.Equal(t, []int{1, 0}, []int{sum.suites[0].Passed, sum.suites[0].Failed}, "the first saw the third's file")
	assert.Equal(t, 1, sum.suites[1].Failed)
	assert.True(t, sum.Failed(), "a command that failed fails the run")
}

// TestCommand runs commands as make test does, through sh.
func TestCommand(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"pass", "fail"} {
		a, err := txtar.ParseFile(filepath.Join("testdata", name+".txtar"))
		require.NoError(t, err)
		for _, f := range a.Files {
			if f.Name == "events" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name+".jsonl"), f.Data, 0o644))
			}
		}
	}
	tests := []struct {
		name                    string
		command                 string
		passed, failed, skipped int
		why                     string // of the command's failure; "" for none
		shown                   string
	}{
		{"a check that passes", "true", 1, 0, 0, "", ""},
		{"a check that fails", "echo 'error TS2322: not assignable'; exit 2", 0, 1, 0, "exited with status 2", "error TS2322: not assignable\n"},
		{"a command that is not there", "./not-there", 0, 1, 0, "exited with status 127", ""},
		{"tests pass, the command fails", "cat pass.jsonl; exit 1", 3, 1, 4, "exited with status 1", "ok  \texample.com/m/ok\t"},
		{"tests fail, the exit status counts no more", "cat fail.jsonl; exit 1", 2, 2, 0, "", "--- FAIL: TestFail"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum := new(Summary)
			var out bytes.Buffer
			run(sum, command{"go", "cd " + dir + " && " + tt.command}, module, nil, &out)
			require.Len(t, sum.suites, 1)
			su := sum.suites[0]
			assert.Equal(t, []int{tt.passed, tt.failed, tt.skipped}, []int{su.Passed, su.Failed, su.Skipped}, "passed, failed, skipped")
			var why string
			for _, f := range sum.failures {
				if f.Package == "" && f.Test == "" {
					why = f.Why
				}
			}
			assert.Equal(t, tt.why, why, "the command's failure")
			assert.Contains(t, out.String(), tt.shown)
		})
	}
}

func TestSkipReason(t *testing.T) {
	tests := []struct {
		name, output, want string
	}{
		{"t.Skip", "=== RUN   TestX\n    x_test.go:3: no redis\n--- SKIP: TestX (0.00s)\n", "no redis"},
		{"a log before the skip", "    x_test.go:3: first\n    x_test.go:4: second\n--- SKIP: TestX (0.00s)\n", "second"},
		{"on two lines", "    x_test.go:4: two\n        lines\n--- SKIP: TestX (0.00s)\n", "two lines"},
		{"a colon in the message", "    x_test.go:3: needs the browser: a Promise\n--- SKIP: TestX (0.00s)\n", "needs the browser: a Promise"},
		{"after parallel framing", "=== PAUSE TestX\n=== CONT  TestX\n    x_test.go:3: later\n--- SKIP: TestX (0.00s)\n", "later"},
		{"printed, not logged", "=== RUN   TestX\nplain text\n--- SKIP: TestX (0.00s)\n", ""},
		{"t.SkipNow", "=== RUN   TestX\n--- SKIP: TestX (0.00s)\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, skipReason(tt.output), "skipReason(%q)", tt.output)
		})
	}
}

// TestSkipListedOnce: the engine's corpus runs natively and under Node and
// skips the same cases for the same reasons; each is listed once.
func TestSkipListedOnce(t *testing.T) {
	sum := new(Summary)
	for _, suite := range []string{"go", "wasm"} {
		sum.count(suite, skipped)
		sum.skip(Skip{Suites: []string{suite}, Package: "wasm/engine", Test: "TestCorpus/a3-async", Reason: "needs the browser: execute returns a Promise"})
	}
	sum.skip(Skip{Suites: []string{"wasm"}, Package: "wasm/engine", Test: "TestOther"})
	var rep bytes.Buffer
	sum.Report(&rep, 3*time.Second)
	assert.Equal(t, `
skipped:
  go,wasm  wasm/engine TestCorpus/a3-async: needs the browser: execute returns a Promise
  wasm     wasm/engine TestOther: no reason given

go     0 passed, 0 failed, 1 skipped  0.0s
wasm   0 passed, 0 failed, 1 skipped  0.0s
total  0 passed, 0 failed, 2 skipped  3.0s
`, rep.String())
}

func TestDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0.0s"},
		{4210 * time.Millisecond, "4.2s"},
		{59940 * time.Millisecond, "59.9s"},
		{61600 * time.Millisecond, "1m2s"},
		{10*time.Minute + 400*time.Millisecond, "10m0s"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, duration(tt.d), "duration(%v)", tt.d)
	}
}
