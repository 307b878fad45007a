package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/risk"
)

func TestSetForeign(t *testing.T) {
	long := strings.Repeat("n", MaxForeignNameBytes+5)
	many := make([]string, risk.MaxToolNames+3)
	for i := range many {
		many[i] = fmt.Sprintf("t%03d", i)
	}
	tests := []struct {
		name  string
		names []string
		want  []string
	}{
		{"none", nil, []string{}},
		{"empty", []string{}, []string{}},
		{"sorted, each once", []string{"b", "a", "b"}, []string{"a", "b"}},
		{"a long name is cut", []string{long}, []string{long[:MaxForeignNameBytes]}},
		{"cut at a character boundary", []string{strings.Repeat("é", 70)}, []string{strings.Repeat("é", 64)}},
		{"bounded", many, many[:risk.MaxToolNames]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEngine(t)
			assert.Equal(t, len(tt.want) > 0, e.SetForeign(tt.names), "changed")
			assert.Equal(t, tt.want, e.Foreign())
			assert.False(t, e.SetForeign(tt.names), "the same list again changes nothing")
		})
	}
}

// TestForeignCalls: while a foreign tool is present every call asks, and
// a private result is withheld from the agent even once approved; once
// none remains, the session is as before. Calls that never went through
// Decide are refused.
func TestForeignCalls(t *testing.T) {
	const (
		draft    = "Draft: salary figures 93k"
		readOnly = `{"name":"lookup","description":"Looks up","annotations":{"readOnlyHint":true}}`
	)
	tests := []struct {
		name     string
		def      string
		tool     string
		foreign  []string
		approve  bool
		out      Outcome
		want     risk.Outcome
		wantRule string
		kept     bool // the output reaches the agent
	}{
		{"private, none foreign", readDrafts, "read_drafts", nil, false, Outcome{Kind: Text, Data: draft}, risk.Allow, "", true},
		{"private, approved", readDrafts, "read_drafts", []string{"exfiltrate"}, true, Outcome{Kind: Text, Data: draft}, risk.Confirm, risk.RuleForeign, false},
		{"private JSON, approved", readDrafts, "read_drafts", []string{"exfiltrate"}, true, Outcome{Kind: Returned, Data: `{"draft":"` + draft + `"}`}, risk.Confirm, risk.RuleForeign, false},
		{"private, declined", readDrafts, "read_drafts", []string{"exfiltrate"}, false, Outcome{Kind: Text, Data: draft}, risk.Confirm, risk.RuleForeign, false},
		{"not private, approved", readOnly, "lookup", []string{"exfiltrate"}, true, Outcome{Kind: Text, Data: draft}, risk.Confirm, risk.RuleForeign, true},
		{"not private, declined", readOnly, "lookup", []string{"exfiltrate"}, false, Outcome{Kind: Text, Data: draft}, risk.Confirm, risk.RuleForeign, false},
		{"gone again", readDrafts, "read_drafts", []string{}, false, Outcome{Kind: Text, Data: draft}, risk.Allow, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEngine(t)
			mustRegister(t, e, tt.def)
			if tt.foreign != nil {
				e.SetForeign([]string{"earlier"})
				e.SetForeign(tt.foreign)
			}
			d, res := call(t, e, tt.tool, tt.out, tt.approve)
			assert.Equal(t, tt.want, d.Outcome)
			assert.Equal(t, tt.wantRule, d.Rule)
			require.Nil(t, res.Err)
			if tt.kept {
				assert.Contains(t, res.Agent+map[bool]string{true: tt.out.Data}[res.Unchanged], draft)
				return
			}
			assert.NotContains(t, res.Agent, "salary")
			assert.False(t, res.Unchanged, "the output passed as it came")
			if tt.wantRule != "" && !tt.approve {
				assert.Contains(t, res.Agent, `\"foreign\": a tool the runtime cannot control`, "the refusal names the rule")
			}
		})
	}
}

// TestForeignFacts: the decision names the foreign tools, as facts of the
// session, and the log keeps them.
func TestForeignFacts(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, readDrafts)
	e.SetForeign([]string{"b_tool", "a_tool"})
	d, err := e.Decide("read_drafts", `{}`, Resolution{})
	require.NoError(t, err)
	assert.Equal(t, []risk.Fact{
		{Rule: risk.RuleForeign, Source: "session", Key: "foreignTool", Value: "a_tool"},
		{Rule: risk.RuleForeign, Source: "session", Key: "foreignTool", Value: "b_tool"},
	}, d.Facts)
	log := e.Decisions()
	require.Len(t, log, 1)
	assert.Equal(t, risk.RuleForeign, log[0].Rule)
}

// TestForeignUndecided: output for a call that was never decided is
// refused while a foreign tool is present: the policy would have asked.
func TestForeignUndecided(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"lookup","description":"Looks up","annotations":{"readOnlyHint":true}}`)
	res := e.OutputOf("lookup", Outcome{Kind: Text, Data: "fine"})
	assert.Equal(t, "fine", map[bool]string{true: "fine", false: res.Agent}[res.Unchanged], "no foreign tool: passed")
	e.SetForeign([]string{"exfiltrate"})
	res = e.OutputOf("lookup", Outcome{Kind: Text, Data: "fine"})
	assert.NotContains(t, res.Agent, "fine")
	assert.Contains(t, res.Agent, risk.RuleUndecided)
}
