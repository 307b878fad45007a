package ops

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/risk"
)

// TestForeignOp: the foreign op sets the session's foreign tools, the
// whole list each time; while one is present a call asks under rule
// "foreign", naming the tools, and once the list is empty it does not.
func TestForeignOp(t *testing.T) {
	s := newServer(t)
	register(t, s, 1, `{"name":"lookup","description":"d","annotations":{"readOnlyHint":true}}`)
	tests := []struct {
		name     string
		header   string
		wantErr  string
		want     risk.Outcome
		wantRule string
		facts    []string
	}{
		{"none yet", "", "", risk.Allow, "", nil},
		{"one", `{"names":["exfiltrate"]}`, "", risk.Confirm, risk.RuleForeign, []string{"exfiltrate"}},
		{"two", `{"names":["zz","exfiltrate"]}`, "", risk.Confirm, risk.RuleForeign, []string{"exfiltrate", "zz"}},
		{"malformed: the list stands", `{"names":"exfiltrate"}`, engine.TypeError, risk.Confirm, risk.RuleForeign, []string{"exfiltrate", "zz"}},
		{"unknown member: the list stands", `{"names":[],"window":1}`, engine.TypeError, risk.Confirm, risk.RuleForeign, []string{"exfiltrate", "zz"}},
		{"gone", `{"names":[]}`, "", risk.Allow, "", nil},
		{"again", `{"names":["late"]}`, "", risk.Confirm, risk.RuleForeign, []string{"late"}},
		{"null is none", `{"names":null}`, "", risk.Allow, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.header != "" {
				h, b := s.Handle(Foreign, tt.header, "")
				assert.Empty(t, b)
				if tt.wantErr != "" {
					assert.Equal(t, tt.wantErr, errorName(t, h), "foreign %s: %s", tt.header, h)
				} else {
					require.Equal(t, okReply, h)
				}
			}
			d := decide(t, s, Decide, `{"name":"lookup"}`, `{}`)
			assert.Equal(t, tt.want, d.Outcome)
			assert.Equal(t, tt.wantRule, d.Rule)
			var names []string
			for _, f := range d.Facts {
				if f.Key == "foreignTool" {
					names = append(names, f.Value)
				}
			}
			assert.Equal(t, tt.facts, names)
			if d.Outcome == risk.Confirm {
				s.Handle(Settle, `{"call":"`+d.Call+`","approved":false}`, "")
			}
			output(t, s, d.Call, map[bool]string{true: "refused", false: "text"}[d.Outcome == risk.Confirm], "x")
		})
	}
}
