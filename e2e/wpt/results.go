package wpt

import (
	"fmt"
	"time"
)

// Subtest statuses, as testharness.js names them (Test.statuses).
const (
	StatusPass               = "PASS"
	StatusFail               = "FAIL"
	StatusTimeout            = "TIMEOUT"
	StatusNotRun             = "NOTRUN"
	StatusPreconditionFailed = "PRECONDITION_FAILED"
)

// Harness statuses, as testharness.js names them (TestsStatus.statuses).
// The runner gives a file the same: HarnessTimeout when the page posts
// no results within the runner's timeout, HarnessError when it cannot be
// opened, each with a Message that says so.
const (
	HarnessOK                 = "OK"
	HarnessError              = "ERROR"
	HarnessTimeout            = "TIMEOUT"
	HarnessPreconditionFailed = "PRECONDITION_FAILED"
)

// Subtest is one test of a file, as testharnessreport.js posts it.
type Subtest struct {
	Name    string `json:"name"`
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// FileResult is what one test file reported: its harness status and its
// subtests.
type FileResult struct {
	// File is the test file's path under the tree's root, with slashes.
	File string `json:"file"`
	// Harness is the harness status: HarnessOK, HarnessError,
	// HarnessTimeout or HarnessPreconditionFailed.
	Harness string `json:"harness"`
	// Message explains a harness status other than HarnessOK.
	Message string `json:"message,omitempty"`
	// Subtests are the file's tests in the order the page ran them.
	Subtests []Subtest `json:"subtests"`
	// Duration is from the file's page being open (DOMContentLoaded) to
	// its results, the span the runner's timeout bounds; for a file that
	// did not open, the time spent trying.
	Duration time.Duration `json:"duration"`
}

// Counts returns the file's passed and failed subtests. Every status but
// PASS is a failure, and a harness status other than OK counts as one
// more failed test: a harness error or timeout, or a page that never
// reported, is never a pass.
func (r *FileResult) Counts() (passed, failed int) {
	for _, t := range r.Subtests {
		if t.Status == StatusPass {
			passed++
		} else {
			failed++
		}
	}
	if r.Harness != HarnessOK {
		failed++
	}
	return passed, failed
}

// Failures names each failure that Counts counts, one line each:
// "file: name: STATUS: message", and "file: harness STATUS: message" for
// the harness.
func (r *FileResult) Failures() []string {
	var out []string
	if r.Harness != HarnessOK {
		out = append(out, line(r.File, "harness "+r.Harness, r.Message))
	}
	for _, t := range r.Subtests {
		if t.Status != StatusPass {
			out = append(out, line(r.File, t.Name+": "+t.Status, t.Message))
		}
	}
	return out
}

func line(file, what, message string) string {
	if message == "" {
		return fmt.Sprintf("%s: %s", file, what)
	}
	return fmt.Sprintf("%s: %s: %s", file, what, message)
}

// Report is the outcome of one mode in one engine.
type Report struct {
	Mode     Mode
	Engine   string
	Files    []FileResult
	Duration time.Duration
}

// Counts sums the files' Counts.
func (r *Report) Counts() (passed, failed int) {
	for i := range r.Files {
		p, f := r.Files[i].Counts()
		passed += p
		failed += f
	}
	return passed, failed
}

// Failures lists every file's Failures.
func (r *Report) Failures() []string {
	var out []string
	for i := range r.Files {
		out = append(out, r.Files[i].Failures()...)
	}
	return out
}

// String is the report's summary line: "runtime chromium: 12 passed,
// 1 failed (3 files, 4.2s)".
func (r *Report) String() string {
	p, f := r.Counts()
	return fmt.Sprintf("%s %s: %d passed, %d failed (%d files, %.1fs)", r.Mode, r.Engine, p, f, len(r.Files), r.Duration.Seconds())
}
