package wpt

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFileResultCounts(t *testing.T) {
	sub := func(status string) Subtest { return Subtest{Name: "t " + status, Status: status, Message: "m"} }
	tests := []struct {
		name           string
		res            FileResult
		passed, failed int
		failures       []string
	}{
		{"all pass", FileResult{File: "a.html", Harness: HarnessOK, Subtests: []Subtest{sub(StatusPass), sub(StatusPass)}}, 2, 0, nil},
		{"every other status fails", FileResult{File: "a.html", Harness: HarnessOK, Subtests: []Subtest{
			sub(StatusPass), sub(StatusFail), sub(StatusTimeout), sub(StatusNotRun), sub(StatusPreconditionFailed),
		}}, 1, 4, []string{
			"a.html: t FAIL: FAIL: m", "a.html: t TIMEOUT: TIMEOUT: m", "a.html: t NOTRUN: NOTRUN: m",
			"a.html: t PRECONDITION_FAILED: PRECONDITION_FAILED: m",
		}},
		{"harness error", FileResult{File: "a.html", Harness: HarnessError, Message: "Uncaught", Subtests: []Subtest{sub(StatusPass)}}, 1, 1,
			[]string{"a.html: harness ERROR: Uncaught"}},
		{"no results", FileResult{File: "a.html", Harness: HarnessTimeout, Message: "no results within 20s (the runner's timeout)"}, 0, 1,
			[]string{"a.html: harness TIMEOUT: no results within 20s (the runner's timeout)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, f := tt.res.Counts()
			assert.Equal(t, tt.passed, p, "Counts passed")
			assert.Equal(t, tt.failed, f, "Counts failed")
			assert.Equal(t, tt.failures, tt.res.Failures(), "Failures")
		})
	}
	rep := &Report{Mode: ModeRuntime, Engine: "chromium", Files: []FileResult{tests[0].res, tests[2].res}}
	p, f := rep.Counts()
	assert.Equal(t, []int{3, 1}, []int{p, f}, "Report.Counts")
	assert.Equal(t, "runtime chromium: 3 passed, 1 failed (2 files, 0.0s)", rep.String())
}

func TestParseModes(t *testing.T) {
	tests := []struct {
		in      string
		want    []Mode
		wantErr string
	}{
		{"runtime", []Mode{ModeRuntime}, ""},
		{"runtime, none,runtime", []Mode{ModeRuntime, ModeNone}, ""},
		{"native", []Mode{ModeNative}, ""},
		{"runtime-main,runtime", []Mode{ModeRuntimeMain, ModeRuntime}, ""},
		{"runtime-layered,runtime-main-layered", []Mode{ModeLayered, ModeLayeredMain}, ""},
		{"", nil, `no mode named in ""`},
		{"runtime,nativ", nil, `unknown mode "nativ"`},
	}
	for _, tt := range tests {
		got, err := ParseModes(tt.in)
		if tt.wantErr != "" {
			assert.ErrorContains(t, err, tt.wantErr, "ParseModes(%q)", tt.in)
			continue
		}
		if assert.NoError(t, err, "ParseModes(%q)", tt.in) {
			assert.Equal(t, tt.want, got, "ParseModes(%q)", tt.in)
		}
	}
}

func TestParseEngines(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{"chromium,firefox,webkit", []string{"chromium", "firefox", "webkit"}, ""},
		{"webkit, chromium, webkit", []string{"webkit", "chromium"}, ""},
		{",", nil, "no engine named"},
		{"chrome", nil, `unknown engine "chrome" (want chromium, firefox, webkit)`},
	}
	for _, tt := range tests {
		got, err := ParseEngines(tt.in)
		if tt.wantErr != "" {
			assert.ErrorContains(t, err, tt.wantErr, "ParseEngines(%q)", tt.in)
			continue
		}
		var names []string
		for _, e := range got {
			names = append(names, e.Name)
		}
		if assert.NoError(t, err, "ParseEngines(%q)", tt.in) {
			assert.Equal(t, tt.want, names, "ParseEngines(%q)", tt.in)
		}
	}
}

func TestEngineModes(t *testing.T) {
	for _, e := range Engines {
		assert.True(t, e.Runs(ModeRuntime), "%s runs runtime mode", e.Name)
		assert.True(t, e.Runs(ModeRuntimeMain), "%s runs runtime-main mode", e.Name)
		assert.True(t, e.Runs(ModeNone), "%s runs none mode", e.Name)
		assert.Equal(t, e.Name == "chromium", e.Runs(ModeNative), "%s runs native mode: only Chromium has a WebMCP of its own", e.Name)
		assert.Equal(t, e.Name == "chromium", e.Runs(ModeLayered), "%s runs runtime-layered mode", e.Name)
		assert.Equal(t, e.Name == "chromium", e.Runs(ModeLayeredMain), "%s runs runtime-main-layered mode", e.Name)
	}
}

// TestModesNativeAndInjected: the layered modes inject the runtime as the
// runtime modes do and turn the browser's own WebMCP on as native does.
func TestModesNativeAndInjected(t *testing.T) {
	tests := []struct {
		mode            Mode
		runtime, native bool
		tag             string
	}{
		{ModeRuntime, true, false, runtimeTag(ModeRuntime)},
		{ModeRuntimeMain, true, false, runtimeTag(ModeRuntimeMain)},
		{ModeLayered, true, true, runtimeTag(ModeRuntime)},
		{ModeLayeredMain, true, true, runtimeTag(ModeRuntimeMain)},
		{ModeNative, false, true, ""},
		{ModeNone, false, false, ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.runtime, tt.mode.Runtime(), "%s.Runtime()", tt.mode)
		assert.Equal(t, tt.native, tt.mode.nativeOn(), "%s.nativeOn()", tt.mode)
		assert.Equal(t, tt.tag, runtimeTag(tt.mode), "runtimeTag(%s)", tt.mode)
	}
	assert.NotEqual(t, runtimeTag(ModeRuntime), runtimeTag(ModeRuntimeMain), "the two engine modes' tags")
}
