package wpt_test

import (
	"fmt"

	"github.com/veilmcp/veil/e2e/wpt"
)

// A Report counts subtests: every status but PASS fails, and so does a
// harness that did not end OK, or a page that never reported.
func ExampleReport() {
	rep := &wpt.Report{Mode: wpt.ModeRuntime, Engine: "firefox", Files: []wpt.FileResult{
		{File: "webmcp/a.html", Harness: wpt.HarnessOK, Subtests: []wpt.Subtest{
			{Name: "withholds the value", Status: wpt.StatusPass},
			{Name: "redeems once", Status: wpt.StatusFail, Message: "assert_equals: expected 410 but got 200"},
		}},
		{File: "webmcp/b.html", Harness: wpt.HarnessTimeout, Message: "no results within 20s (the runner's timeout)"},
	}}
	passed, failed := rep.Counts()
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	for _, f := range rep.Failures() {
		fmt.Println(f)
	}
	// Output:
	// 1 passed, 2 failed
	// webmcp/a.html: redeems once: FAIL: assert_equals: expected 410 but got 200
	// webmcp/b.html: harness TIMEOUT: no results within 20s (the runner's timeout)
}
