package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
)

// event is one line of `go test -json`: a test event (`go doc
// cmd/test2json`), or a build event (`go help buildjson`), which names no
// Package; only its Output is used.
type event struct {
	Time        time.Time
	Action      string
	Package     string
	Test        string
	Output      string
	FailedBuild string
	Elapsed     float64 // seconds, of a test or package that ended
}

// A reader follows the output of one command: it counts the results of
// the `go test -json` events into a [Summary] and prints to out what
// `go test` without -v would print.
type reader struct {
	sum    *Summary
	suite  string            // the command's suite
	module string            // trimmed from package paths
	moved  map[string]string // package → suite, from -as
	start  time.Time         // when the command started
	out    io.Writer

	pkgs   map[string]*pkg // packages started and not yet done
	events int             // events read
	failed bool            // a failure of this command was recorded
}

// pkg is a package whose test binary is running.
type pkg struct {
	name   string // import path without the module path
	suite  string
	tests  map[string]*test
	order  []string        // tests in the order they started
	failed bool            // one of its tests failed
	shown  strings.Builder // output of its failed tests
	trail  strings.Builder // output of the binary outside its tests
}

// test is a test, subtest or example that started.
type test struct {
	output    strings.Builder
	subtests  bool
	subFailed bool
	done      bool
	paused    bool // it called t.Parallel
}

func newReader(sum *Summary, suite, module string, moved map[string]string, start time.Time, out io.Writer) *reader {
	return &reader{sum: sum, suite: suite, module: module, moved: moved, start: start, out: out, pkgs: map[string]*pkg{}}
}

// read reads the command's standard output to its end. A line that is not
// an event is printed as it is.
func (r *reader) read(in io.Reader) {
	br := bufio.NewReader(in)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			r.line(line)
		}
		if err != nil {
			return
		}
	}
}

func (r *reader) line(line string) {
	var e event
	if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &e) != nil || e.Action == "" {
		fmt.Fprint(r.out, line)
		return
	}
	r.events++
	r.event(&e)
}

func (r *reader) event(e *event) {
	switch e.Action {
	case "build-output":
		fmt.Fprint(r.out, e.Output)
		return
	case "build-fail":
		return
	}
	if e.Package == "" {
		return
	}
	p := r.pkgs[e.Package]
	if p == nil {
		name := r.rel(e.Package)
		suite := r.suite
		if s, ok := r.moved[name]; ok {
			suite = s
		}
		p = &pkg{name: name, suite: suite, tests: map[string]*test{}}
		r.pkgs[e.Package] = p
	}
	if e.Test == "" {
		switch e.Action {
		case "output":
			if e.Output != "PASS\n" && !strings.HasSuffix(e.Output, "[no test files]\n") {
				p.trail.WriteString(e.Output)
			}
		case "pass", "fail", "skip":
			r.done(p, e)
		}
		return
	}
	t := p.tests[e.Test]
	if t == nil {
		t = new(test)
		p.tests[e.Test] = t
		p.order = append(p.order, e.Test)
		if parent := p.parent(e.Test); parent != nil {
			parent.subtests = true
		}
	}
	if e.Action == "pass" || e.Action == "fail" {
		r.timed(p, e)
	}
	switch e.Action {
	case "pause":
		t.paused = true
	case "output":
		t.output.WriteString(e.Output)
	case "pass":
		t.done = true
		t.output.Reset()
		if !t.subtests {
			r.sum.count(p.suite, passed)
		}
	case "skip":
		t.done = true
		r.sum.count(p.suite, skipped)
		r.sum.skip(Skip{Suites: []string{p.suite}, Package: p.name, Test: e.Test, Reason: skipReason(t.output.String())})
		t.output.Reset()
	case "fail":
		r.fail(p, e.Test, "")
	}
}

// timed records how long a top-level test took, subtests and all. A
// subtest's time is in its test's, and parallel subtests' overlap.
func (r *reader) timed(p *pkg, e *event) {
	if p.parent(e.Test) != nil {
		return
	}
	r.sum.took(Timing{Suite: p.suite, Package: p.name, Test: e.Test, Elapsed: time.Duration(e.Elapsed * float64(time.Second)), Parallel: p.tests[e.Test].paused})
}

// fail records that test name of p failed, with why when the test binary
// did not say so itself.
func (r *reader) fail(p *pkg, name, why string) {
	t := p.tests[name]
	t.done = true
	p.failed = true
	if parent := p.parent(name); parent != nil {
		parent.subFailed = true
	}
	if !t.subFailed {
		r.failure(Failure{Suite: p.suite, Package: p.name, Test: name, Why: why})
	}
	p.shown.WriteString(failBlock(t.output.String(), name, why))
}

// done ends package p when its binary has exited: a test still running
// failed (the binary panicked or timed out), and so did a package whose
// binary failed with none of its tests failing.
func (r *reader) done(p *pkg, e *event) {
	for _, name := range slices.Backward(p.order) {
		if !p.tests[name].done {
			r.fail(p, name, "did not finish")
		}
	}
	if e.Action == "fail" {
		switch {
		case e.FailedBuild != "":
			r.failure(Failure{Suite: p.suite, Package: p.name, Why: "build failed"})
		case !p.failed:
			r.failure(Failure{Suite: p.suite, Package: p.name, Why: "failed outside its tests"})
		}
	}
	if !e.Time.IsZero() {
		r.sum.ran(p.suite, e.Time.Sub(r.start))
	}
	fmt.Fprint(r.out, p.shown.String(), p.trail.String())
	delete(r.pkgs, e.Package)
}

func (r *reader) failure(f Failure) {
	r.failed = true
	r.sum.count(f.Suite, failed)
	r.sum.fail(f)
}

// finish ends the command, which exited with err after elapsed. A package
// still running never finished. A command that wrote no events is one
// check; one that wrote events and exited non-zero without a failure to
// show for it failed all the same.
func (r *reader) finish(err error, elapsed time.Duration) {
	for _, key := range slices.Sorted(maps.Keys(r.pkgs)) {
		p := r.pkgs[key]
		r.done(p, &event{Action: "fail", Package: key})
	}
	switch {
	case r.events == 0:
		if err != nil {
			r.sum.commandFailed(r.suite, err, elapsed)
			return
		}
		r.sum.count(r.suite, passed)
		r.sum.ran(r.suite, elapsed)
	case err != nil && !r.failed:
		r.sum.commandFailed(r.suite, err, elapsed)
	}
}

// rel returns the import path without the module path.
func (r *reader) rel(importPath string) string {
	if rest, ok := strings.CutPrefix(importPath, r.module+"/"); ok && r.module != "" {
		return rest
	}
	return importPath
}

// parent returns the test whose subtest name is, if it started. A subtest
// name may hold a slash of its own, so each prefix is tried.
func (p *pkg) parent(name string) *test {
	for {
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return nil
		}
		name = name[:i]
		if t := p.tests[name]; t != nil {
			return t
		}
	}
}

// failBlock returns the output of the failed test name as `go test`
// without -v shows it: the --- FAIL line first (one that says why, for a
// test that wrote none), then what the test wrote, without the lines the
// test binary writes for `go test -json` to follow tests (=== RUN,
// === PAUSE, === CONT, === NAME).
func failBlock(output, name, why string) string {
	var head, body strings.Builder
	for line := range strings.Lines(output) {
		switch {
		case isFrame(line):
		case head.Len() == 0 && strings.HasPrefix(strings.TrimLeft(line, " "), "--- FAIL: "+name+" "):
			head.WriteString(line)
		default:
			body.WriteString(line)
		}
	}
	if head.Len() == 0 {
		fmt.Fprintf(&head, "--- FAIL: %s (%s)\n", name, why)
	}
	return head.String() + body.String()
}

func isFrame(line string) bool {
	line = strings.TrimLeft(line, " ")
	for _, f := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(line, f) {
			return true
		}
	}
	return false
}

// logLine is the start of a message of t.Log, t.Skip and the like:
// indented, then file:line.
var logLine = regexp.MustCompile(`^ +[^ :]+\.go:\d+: `)

// skipReason returns the last message the test logged before it was
// skipped (t.Skip's, normally), on one line; "" when it logged none.
func skipReason(output string) string {
	lines := slices.Collect(strings.Lines(output))
	last := -1
	for i, line := range lines {
		if logLine.MatchString(line) {
			last = i
		}
	}
	if last < 0 {
		return ""
	}
	parts := []string{strings.TrimSpace(logLine.ReplaceAllString(lines[last], ""))}
	for _, line := range lines[last+1:] {
		if isFrame(line) || strings.HasPrefix(strings.TrimLeft(line, " "), "--- ") {
			break
		}
		if s := strings.TrimSpace(line); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// exitError says how a command ended.
func exitError(err error) string {
	var ee interface{ ExitCode() int }
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		return fmt.Sprintf("exited with status %d", ee.ExitCode())
	}
	return err.Error()
}
