package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Summary is what the suites came to.
type Summary struct {
	suites   []*Suite
	skips    []Skip
	failures []Failure
	timings  []Timing
}

// Timing is how long a top-level test took, from its start (after its
// wait, for a parallel test) to its end, its subtests included.
type Timing struct {
	Suite, Package, Test string
	Elapsed              time.Duration
	// Parallel is set for a test that called t.Parallel: it ran side by
	// side with the package's other parallel tests, after those that did
	// not, which ran one at a time.
	Parallel bool
}

// Alone is the time a package spent in its tests that ran one at a time
// (those that did not call t.Parallel), in a package where others ran side
// by side: while they run, the parallel tests wait.
type Alone struct {
	Suite, Package string
	Tests          int
	Elapsed        time.Duration
}

// Slowest is how many tests the report lists as the slowest.
const Slowest = 10

// slowFloor is the least time a test takes to be listed among the slowest:
// below it a test is not worth a line.
const slowFloor = time.Second

// Suite is one line of the report.
type Suite struct {
	Name                    string
	Passed, Failed, Skipped int
	// Elapsed runs from the start of the command that ran the suite's
	// tests to the end of its last package (of the command, for a command
	// that is one check).
	Elapsed time.Duration
}

// Skip is a test that was skipped, in each of Suites, for Reason (the
// message of its t.Skip; "" when it gave none).
type Skip struct {
	Suites                []string
	Package, Test, Reason string
}

// Failure is a test that failed, a package that failed without a failing
// test (Test is ""), or a command that exited non-zero (Package and Test
// are ""). Why says what went wrong when no test output shows it.
type Failure struct {
	Suite, Package, Test, Why string
}

type outcome int

const (
	passed outcome = iota
	failed
	skipped
)

// suite returns the named suite, adding it after the others the first time.
func (s *Summary) suite(name string) *Suite {
	for _, su := range s.suites {
		if su.Name == name {
			return su
		}
	}
	su := &Suite{Name: name}
	s.suites = append(s.suites, su)
	return su
}

func (s *Summary) count(suite string, o outcome) {
	su := s.suite(suite)
	switch o {
	case passed:
		su.Passed++
	case failed:
		su.Failed++
	case skipped:
		su.Skipped++
	}
}

// ran records that suite was still running elapsed after its command
// started.
func (s *Summary) ran(suite string, elapsed time.Duration) {
	su := s.suite(suite)
	su.Elapsed = max(su.Elapsed, elapsed)
}

// skip records a skipped test; the same test skipped for the same reason
// in another suite (the engine natively and under Node) is listed once.
func (s *Summary) skip(k Skip) {
	for i, o := range s.skips {
		if o.Package == k.Package && o.Test == k.Test && o.Reason == k.Reason {
			for _, su := range k.Suites {
				if !slices.Contains(o.Suites, su) {
					s.skips[i].Suites = append(s.skips[i].Suites, su)
				}
			}
			return
		}
	}
	s.skips = append(s.skips, k)
}

func (s *Summary) fail(f Failure) { s.failures = append(s.failures, f) }

func (s *Summary) took(t Timing) { s.timings = append(s.timings, t) }

// slowest returns the n slowest tests that took slowFloor or more, the
// slowest first.
func (s *Summary) slowest(n int) []Timing {
	var slow []Timing
	for _, t := range s.timings {
		if t.Elapsed >= slowFloor {
			slow = append(slow, t)
		}
	}
	slices.SortStableFunc(slow, func(a, b Timing) int { return cmp.Compare(b.Elapsed, a.Elapsed) })
	return slow[:min(n, len(slow))]
}

// alone returns, for each package with tests that ran side by side, the
// tests that ran one at a time, when they took slowFloor or more in all;
// the most time first.
func (s *Summary) alone() []Alone {
	type key struct{ suite, pkg string }
	parallel := map[key]bool{}
	sums := map[key]*Alone{}
	var order []key
	for _, t := range s.timings {
		k := key{t.Suite, t.Package}
		if t.Parallel {
			parallel[k] = true
			continue
		}
		a := sums[k]
		if a == nil {
			a = &Alone{Suite: t.Suite, Package: t.Package}
			sums[k] = a
			order = append(order, k)
		}
		a.Tests++
		a.Elapsed += t.Elapsed
	}
	var out []Alone
	for _, k := range order {
		if a := sums[k]; parallel[k] && a.Elapsed >= slowFloor {
			out = append(out, *a)
		}
	}
	slices.SortStableFunc(out, func(a, b Alone) int { return cmp.Compare(b.Elapsed, a.Elapsed) })
	return out
}

// commandFailed records that the command of suite ended with err after
// elapsed.
func (s *Summary) commandFailed(suite string, err error, elapsed time.Duration) {
	s.count(suite, failed)
	s.fail(Failure{Suite: suite, Why: exitError(err)})
	s.ran(suite, elapsed)
}

// merge adds what part recorded: its suites' counts and times, its skips
// and its failures.
func (s *Summary) merge(part *Summary) {
	for _, su := range part.suites {
		to := s.suite(su.Name)
		to.Passed += su.Passed
		to.Failed += su.Failed
		to.Skipped += su.Skipped
		to.Elapsed = max(to.Elapsed, su.Elapsed)
	}
	for _, k := range part.skips {
		s.skip(k)
	}
	s.failures = append(s.failures, part.failures...)
	s.timings = append(s.timings, part.timings...)
}

// Failed reports whether anything failed.
func (s *Summary) Failed() bool { return len(s.failures) > 0 }

// Report writes the skipped tests with their reasons, the failures, the
// slowest tests, the time each package spent in tests that ran one at a
// time while others waited to run side by side, then a line per suite
// and the total, which took elapsed.
func (s *Summary) Report(w io.Writer, elapsed time.Duration) {
	if len(s.skips) > 0 {
		fmt.Fprintln(w, "\nskipped:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, k := range s.skips {
			reason := k.Reason
			if reason == "" {
				reason = "no reason given"
			}
			fmt.Fprintf(tw, "  %s\t%s: %s\n", strings.Join(k.Suites, ","), name(k.Package, k.Test), reason)
		}
		tw.Flush()
	}
	if len(s.failures) > 0 {
		fmt.Fprintln(w, "\nfailed:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, f := range s.failures {
			line := name(f.Package, f.Test)
			switch {
			case line == "":
				line = f.Why
			case f.Why != "":
				line += ": " + f.Why
			}
			fmt.Fprintf(tw, "  %s\t%s\n", f.Suite, line)
		}
		tw.Flush()
	}

	if slow := s.slowest(Slowest); len(slow) > 0 {
		fmt.Fprintln(w, "\nslowest:")
		wTime := 0
		for _, t := range slow {
			wTime = max(wTime, len(duration(t.Elapsed)))
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, t := range slow {
			fmt.Fprintf(tw, "  %*s  %s\t%s\n", wTime, duration(t.Elapsed), t.Suite, name(t.Package, t.Test))
		}
		tw.Flush()
	}

	if alone := s.alone(); len(alone) > 0 {
		fmt.Fprintln(w, "\none at a time, before the tests that run side by side:")
		wTime := 0
		for _, a := range alone {
			wTime = max(wTime, len(duration(a.Elapsed)))
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, a := range alone {
			fmt.Fprintf(tw, "  %*s  %s\t%s: %d tests\n", wTime, duration(a.Elapsed), a.Suite, a.Package, a.Tests)
		}
		tw.Flush()
	}

	total := Suite{Name: "total", Elapsed: elapsed}
	for _, su := range s.suites {
		total.Passed += su.Passed
		total.Failed += su.Failed
		total.Skipped += su.Skipped
	}
	rows := append(slices.Clone(s.suites), &total)
	var wName, wPassed, wFailed, wSkipped, wTime int
	for _, su := range rows {
		wName = max(wName, len(su.Name))
		wPassed = max(wPassed, digits(su.Passed))
		wFailed = max(wFailed, digits(su.Failed))
		wSkipped = max(wSkipped, digits(su.Skipped))
		wTime = max(wTime, len(duration(su.Elapsed)))
	}
	fmt.Fprintln(w)
	for _, su := range rows {
		fmt.Fprintf(w, "%-*s  %*d passed, %*d failed, %*d skipped  %*s\n",
			wName, su.Name, wPassed, su.Passed, wFailed, su.Failed, wSkipped, su.Skipped, wTime, duration(su.Elapsed))
	}
}

func digits(n int) int { return len(fmt.Sprint(n)) }

// name names a test as "package Test", or a package alone.
func name(pkg, test string) string {
	return strings.TrimSpace(pkg + " " + test)
}

// duration writes d as 4.2s under a minute and as 1m52s from a minute on.
func duration(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}
