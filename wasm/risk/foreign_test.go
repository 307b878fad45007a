package risk

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecideForeign: while a foreign tool is present, every call asks
// the user (or is blocked, where the page made the rule block), whatever
// the tool declares and whatever the session holds; the facts name the
// foreign tools and nothing else of them.
func TestDecideForeign(t *testing.T) {
	planted := []string{"exfiltrate"}
	tests := []struct {
		name     string
		static   string
		resolved string
		failed   bool
		state    State
		foreign  []string
		config   *Config
		want     Outcome
		wantRule string
		facts    []string // "rule source key=value", in order; nil: not checked
	}{
		{name: "none: a read-only tool runs", static: readOnly, want: Allow, facts: []string{}},
		{name: "empty list is none", static: readOnly, foreign: []string{}, want: Allow},
		{name: "read-only tool asks", static: readOnly, foreign: planted, want: Confirm, wantRule: RuleForeign,
			facts: []string{"foreign session foreignTool=exfiltrate"}},
		{name: "no hints asks", static: `{}`, foreign: planted, want: Confirm, wantRule: RuleForeign},
		{name: "every tool named", static: readOnly, foreign: []string{"a", "b"}, want: Confirm, wantRule: RuleForeign,
			facts: []string{"foreign session foreignTool=a", "foreign session foreignTool=b"}},
		{name: "named before the trifecta", static: sendEmail, state: trifecta, foreign: planted, want: Confirm, wantRule: RuleForeign},
		{name: "the trifecta's facts join", static: `{"readOnlyHint":false}`, state: trifecta, foreign: planted, want: Confirm, wantRule: RuleForeign,
			facts: []string{"foreign session foreignTool=exfiltrate", "trifecta session privateData=pii", "trifecta session untrustedContent=true",
				"trifecta default openWorldHint=true", "trifecta tool readOnlyHint=false"}},
		{name: "block configured", static: readOnly, foreign: planted, config: &Config{Rules: map[string]string{"foreign": "block"}},
			want: Block, wantRule: RuleForeign},
		{name: "a stronger rule names the decision", static: sendEmail, foreign: planted, config: &Config{Rules: map[string]string{"consequential": "block"}},
			want: Block, wantRule: RuleConsequential},
		{name: "other rules off: still asks", static: sendEmail, state: trifecta, foreign: planted,
			config: &Config{InsecureDisableRules: []string{"malicious", "trifecta", "consequential", "aiProcessing", "spotlight"}}, want: Confirm, wantRule: RuleForeign},
		{name: "resolve failed: blocked", static: readOnly, failed: true, foreign: planted, want: Block, wantRule: RuleResolve,
			facts: []string{"resolve call resolve=failed"}},
		{name: "resolve cannot lower it", static: `{"readOnlyHint":false}`, resolved: readOnly, foreign: planted, want: Confirm, wantRule: RuleForeign},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPolicy(tt.config)
			require.NoError(t, err)
			c := Call{Tool: "t", Static: mustParse(t, tt.static), ResolveFailed: tt.failed, Foreign: tt.foreign}
			if tt.resolved != "" {
				c.Resolved = mustParse(t, tt.resolved)
			}
			d := p.Decide(c, &tt.state)
			assert.Equal(t, tt.want, d.Outcome, "outcome; facts %v", d.Facts)
			assert.Equal(t, tt.wantRule, d.Rule)
			if tt.facts != nil {
				got := []string{}
				for _, f := range d.Facts {
					got = append(got, f.Rule+" "+f.Source+" "+f.Key+"="+f.Value)
				}
				assert.Equal(t, tt.facts, got)
			}
		})
	}
}

// TestDecideForeignBounded: the facts name at most MaxToolNames foreign
// tools; the rule fires all the same.
func TestDecideForeignBounded(t *testing.T) {
	p, err := NewPolicy(nil)
	require.NoError(t, err)
	var names []string
	for i := range MaxToolNames + 10 {
		names = append(names, fmt.Sprintf("tool%d", i))
	}
	d := p.Decide(Call{Tool: "t", Static: mustParse(t, readOnly), Foreign: names}, &State{})
	assert.Equal(t, Confirm, d.Outcome)
	assert.Len(t, d.Facts, MaxToolNames)
}

// TestForeignConfig: the rule can be made to block, and cannot be turned
// off.
func TestForeignConfig(t *testing.T) {
	tests := []struct {
		name    string
		c       Config
		wantErr string
	}{
		{"confirm", Config{Rules: map[string]string{"foreign": "confirm"}}, ""},
		{"block", Config{Rules: map[string]string{"foreign": "block"}}, ""},
		{"allow is no mode", Config{Rules: map[string]string{"foreign": "allow"}}, `rules.foreign: must be "confirm" or "block"`},
		{"cannot be turned off", Config{InsecureDisableRules: []string{"foreign"}}, `rule "foreign" cannot be turned off`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewPolicy(&tt.c)
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

// TestWithholdsWhileForeign: while a foreign tool is present, a result
// with a private label is withheld as sensitiveHint's are, besides what
// is withheld anyway; the page's private list counts.
func TestWithholdsWhileForeign(t *testing.T) {
	tests := []struct {
		name        string
		annotations string
		meta        Meta
		config      *Config
		want        bool
	}{
		{"nothing", `{}`, Meta{}, nil, false},
		{"read-only", readOnly, Meta{}, nil, false},
		{"sensitiveHint", `{"sensitiveHint":true}`, Meta{}, nil, true},
		{"credentials", `{"returnMetadata":{"source":"internal","sensitivity":"credentials"}}`, Meta{}, nil, true},
		{"pii", readDrafts, Meta{}, nil, true},
		{"confidential", `{}`, Meta{ResultSensitivity: "confidential"}, nil, true},
		{"sensitiveDataHint", `{"sensitiveDataHint":true}`, Meta{}, nil, true},
		{"user is not private by default", `{"returnMetadata":{"source":"user","sensitivity":"user"}}`, Meta{}, nil, false},
		{"user made private", `{"returnMetadata":{"source":"user","sensitivity":"user"}}`, Meta{}, &Config{Private: []string{"user"}}, true},
		{"public", `{}`, Meta{ResultSensitivity: "public"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPolicy(tt.config)
			require.NoError(t, err)
			a := mustParse(t, tt.annotations)
			a.Meta = tt.meta
			assert.Equal(t, tt.want, p.WithholdsWhileForeign(a))
		})
	}
}
