package main

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/wpt"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"defaults", nil, ""},
		{"unknown engine", []string{"-engines", "chromium,safari"}, `-engines: unknown engine "safari"`},
		{"unknown mode", []string{"-modes", "runtime,polyfill"}, `-modes: unknown mode "polyfill"`},
		{"no mode", []string{"-modes", ""}, "-modes: no mode named"},
		{"bad regexp", []string{"-run", "("}, "-run: error parsing regexp"},
		{"zero timeout", []string{"-timeout", "0s"}, "-timeout 0s: want a positive duration"},
		{"zero multiplier", []string{"-timeout-multiplier", "0"}, "-timeout-multiplier 0: want a positive number"},
		{"zero parallel", []string{"-parallel", "0"}, "-parallel 0: want 1 or more"},
		{"serve two modes", []string{"-serve", "127.0.0.1:0", "-modes", "runtime,none"}, "-serve serves one mode, and -modes names 2"},
		{"arguments", []string{"e2e/wpt"}, `unexpected arguments ["e2e/wpt"]`},
		{"unknown flag", []string{"-engine", "chromium"}, "flag provided but not defined: -engine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.args, io.Discard)
			if tt.wantErr == "" {
				assert.NoError(t, err, "parse(%q)", tt.args)
				return
			}
			assert.ErrorContains(t, err, tt.wantErr, "parse(%q)", tt.args)
		})
	}
}

func TestParseServeMode(t *testing.T) {
	f, err := parse([]string{"-serve", "127.0.0.1:0"}, io.Discard)
	require.NoError(t, err, "parse")
	assert.Equal(t, []wpt.Mode{wpt.ModeRuntime}, f.modes, "-serve without -modes serves runtime mode")
	f, err = parse([]string{"-serve", "127.0.0.1:0", "-modes", "none"}, io.Discard)
	require.NoError(t, err, "parse")
	assert.Equal(t, []wpt.Mode{wpt.ModeNone}, f.modes, "-serve -modes none")
}

func TestReport(t *testing.T) {
	chromium := wpt.Engines[0]
	fail := wpt.FileResult{File: "a.html", Harness: wpt.HarnessOK, Subtests: []wpt.Subtest{{Name: "t", Status: wpt.StatusFail, Message: "no\nway"}}}
	pass := wpt.FileResult{File: "a.html", Harness: wpt.HarnessOK, Subtests: []wpt.Subtest{{Name: "t", Status: wpt.StatusPass}}}
	tests := []struct {
		name       string
		outs       []*outcome
		wantStatus int
		wantOut    string
	}{
		{"all pass", []*outcome{{mode: wpt.ModeRuntime, engine: chromium, report: &wpt.Report{Files: []wpt.FileResult{pass}}}}, 0, "runtime  chromium  1 passed, 0 failed"},
		{"a runtime failure", []*outcome{{mode: wpt.ModeRuntime, engine: chromium, report: &wpt.Report{Files: []wpt.FileResult{fail}}}}, 1, "runtime chromium failures:\n  a.html: t: FAIL: no way\n"},
		{"other modes may fail", []*outcome{{mode: wpt.ModeNone, engine: chromium, report: &wpt.Report{Files: []wpt.FileResult{fail}}}}, 0, "none  chromium  0 passed, 1 failed"},
		{"did not run", []*outcome{{mode: wpt.ModeNone, engine: chromium, err: io.ErrUnexpectedEOF}}, 2, "none  chromium  did not run: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			got := report(tt.outs, false, &out, io.Discard)
			assert.Equal(t, tt.wantStatus, got, "report: exit status")
			assert.Contains(t, out.String(), tt.wantOut, "report: output")
		})
	}
}
