package risk

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// States of a session, for the rule tables.
var (
	fresh     = State{}
	untrusted = State{UntrustedContent: true, UntrustedFrom: []string{"list_inbox"}}
	private   = State{PrivateData: []string{"pii"}, PrivateFrom: []string{"read_drafts"}}
	trifecta  = State{UntrustedContent: true, PrivateData: []string{"pii"}}
	malicious = State{MaliciousActivity: true, MaliciousFrom: []string{"fetch_page"}}
)

const (
	sendEmail = `{"inputMetadata":{"destination":"public","sensitivity":["pii","user"],"outcomes":"irreversible"},
		"returnMetadata":{"source":"system","sensitivity":"none"}}`
	readDrafts = `{"inputMetadata":{"destination":"ephemeral","sensitivity":"none","outcomes":"benign"},
		"returnMetadata":{"source":"user","sensitivity":"pii"}}`
	readOnly = `{"readOnlyHint":true}`
)

func TestDecide(t *testing.T) {
	tests := []struct {
		name     string
		static   string // annotations
		meta     Meta
		resolved string // "" for none
		failed   bool   // resolve failed
		state    State
		config   *Config
		want     Outcome
		wantRule string
		facts    []string // "rule source key=value", in order; nil: not checked
	}{
		// No hints: nothing to ask.
		{name: "no hints", static: `{}`, state: fresh, want: Allow, facts: []string{}},
		{name: "no hints, untrusted session", static: `{}`, state: untrusted, want: Allow},
		{name: "no hints, private session", static: `{}`, state: private, want: Allow},

		// Consequential tools.
		{name: "irreversible outcomes", static: `{"inputMetadata":{"destination":"user","sensitivity":"none","outcomes":["benign","irreversible"]}}`,
			want: Confirm, wantRule: RuleConsequential, facts: []string{"consequential tool inputMetadata.outcomes=irreversible"}},
		{name: "consequential outcomes: notice", static: `{"inputMetadata":{"destination":"user","sensitivity":"none","outcomes":"consequential"}}`,
			want: Notice, wantRule: RuleConsequential},
		{name: "destructiveHint", static: `{"destructiveHint":true}`, want: Confirm, wantRule: RuleConsequential,
			facts: []string{"consequential tool destructiveHint=true"}},
		{name: "destructiveHint left out is not a claim", static: `{"readOnlyHint":false}`, want: Allow},
		{name: "destructiveHint false", static: `{"destructiveHint":false}`, want: Allow},
		{name: "reversible destructive: notice", static: `{"destructiveHint":true,"reversibleHint":true}`, want: Notice, wantRule: RuleConsequential,
			facts: []string{"consequential tool destructiveHint=true", "consequential tool reversibleHint=true"}},
		{name: "reversibleHint false stays confirm", static: `{"destructiveHint":true,"reversibleHint":false}`, want: Confirm, wantRule: RuleConsequential},
		{name: "reversible does not lower irreversible outcomes", static: `{"reversibleHint":true,"destructiveHint":true,"inputMetadata":{"destination":"user","sensitivity":"none","outcomes":"irreversible"}}`,
			want: Confirm, wantRule: RuleConsequential},
		{name: "reversible does not lower privileged access", static: `{"reversibleHint":true,"privilegedAccessHint":true}`, want: Confirm, wantRule: RuleConsequential},
		{name: "privilegedAccessHint", static: `{"privilegedAccessHint":true}`, want: Confirm, wantRule: RuleConsequential,
			facts: []string{"consequential tool privilegedAccessHint=true"}},
		{name: "consequentialHint", static: `{"consequentialHint":true}`, want: Confirm, wantRule: RuleConsequential},
		{name: "consequentialHint false", static: `{"consequentialHint":false,"privilegedAccessHint":false}`, want: Allow},
		{name: "requiresConfirmation", static: `{}`, meta: Meta{RequiresConfirmation: ptr(true)}, want: Confirm, wantRule: RuleConsequential,
			facts: []string{"consequential meta mcp.dev/requiresConfirmation=true"}},
		{name: "effect delete", static: `{}`, meta: Meta{Effect: "delete"}, want: Confirm, wantRule: RuleConsequential},
		{name: "effect delete, reversible", static: `{"reversibleHint":true}`, meta: Meta{Effect: "delete"}, want: Notice, wantRule: RuleConsequential},
		{name: "consequential as block", static: `{"destructiveHint":true}`, config: &Config{Rules: map[string]string{"consequential": "block"}},
			want: Block, wantRule: RuleConsequential},
		{name: "a notice is not made a block", static: `{"destructiveHint":true,"reversibleHint":true}`, config: &Config{Rules: map[string]string{"consequential": "block"}},
			want: Notice, wantRule: RuleConsequential},
		{name: "consequential off", static: `{"destructiveHint":true}`, config: &Config{InsecureDisableRules: []string{"consequential"}}, want: Allow},

		// The trifecta.
		{name: "trifecta: public destination", static: sendEmail, state: trifecta, want: Confirm, wantRule: RuleTrifecta,
			facts: []string{"trifecta session privateData=pii", "trifecta session untrustedContent=true",
				"trifecta tool inputMetadata.destination=public", "trifecta tool inputMetadata.sensitivity=pii", "trifecta tool inputMetadata.sensitivity=user",
				"consequential tool inputMetadata.outcomes=irreversible"}},
		{name: "public destination, untrusted only", static: `{"inputMetadata":{"destination":"public","sensitivity":"none","outcomes":"benign"}}`,
			state: untrusted, want: Allow},
		{name: "public destination, private only", static: `{"inputMetadata":{"destination":"public","sensitivity":"none","outcomes":"benign"}}`,
			state: private, want: Allow},
		{name: "trifecta: effect external", static: `{"readOnlyHint":true}`, meta: Meta{Effect: "external"}, state: trifecta,
			want: Confirm, wantRule: RuleTrifecta, facts: []string{"trifecta session privateData=pii", "trifecta session untrustedContent=true",
				"trifecta meta mcp.dev/effect=external"}},
		{name: "trifecta: open-world and not read-only", static: `{"openWorldHint":true,"readOnlyHint":false}`, state: trifecta,
			want: Confirm, wantRule: RuleTrifecta},
		{name: "trifecta: no hints at all, MCP defaults", static: `{}`, state: trifecta, want: Confirm, wantRule: RuleTrifecta,
			facts: []string{"trifecta session privateData=pii", "trifecta session untrustedContent=true",
				"trifecta default openWorldHint=true", "trifecta default readOnlyHint=false"}},
		{name: "trifecta: read-only open-world tool may run", static: `{"openWorldHint":true,"readOnlyHint":true}`, state: trifecta, want: Allow},
		{name: "trifecta: closed-world tool may run", static: `{"openWorldHint":false}`, state: trifecta, want: Allow},
		{name: "trifecta: declared ephemeral destination may run", static: readDrafts, state: trifecta, want: Allow},
		{name: "trifecta: effect write says where input goes", static: `{}`, meta: Meta{Effect: "write"}, state: trifecta, want: Allow},
		{name: "trifecta as block", static: sendEmail, state: trifecta, config: &Config{Rules: map[string]string{"trifecta": "block"}},
			want: Block, wantRule: RuleTrifecta},
		{name: "trifecta off, consequential still asks", static: sendEmail, state: trifecta, config: &Config{InsecureDisableRules: []string{"trifecta"}},
			want: Confirm, wantRule: RuleConsequential},

		// Malicious activity.
		{name: "malicious session: tool that may change things", static: `{"openWorldHint":false}`, state: malicious, want: Confirm, wantRule: RuleMalicious,
			facts: []string{"malicious session maliciousActivity=true", "malicious default readOnlyHint=false"}},
		{name: "malicious session: reversible tool loses its notice", static: `{"destructiveHint":true,"reversibleHint":true}`, state: malicious,
			want: Confirm, wantRule: RuleMalicious},
		{name: "malicious session: read-only tool may run", static: readOnly, state: malicious, want: Allow},
		{name: "malicious session: effect read may run", static: `{"openWorldHint":false}`, meta: Meta{Effect: "read"}, state: malicious, want: Allow},
		{name: "malicious session: read-only tool that sends out", static: readOnly, meta: Meta{Effect: "external"}, state: malicious,
			want: Confirm, wantRule: RuleMalicious},
		{name: "malicious request from resolve", static: readOnly, resolved: `{"maliciousActivityHint":true}`, want: Confirm, wantRule: RuleMalicious,
			facts: []string{"malicious call maliciousActivityHint=true"}},
		{name: "a static maliciousActivityHint is only a possibility", static: `{"maliciousActivityHint":true,"readOnlyHint":true}`, want: Allow},
		{name: "malicious as block", static: `{}`, state: malicious, config: &Config{Rules: map[string]string{"malicious": "block"}},
			want: Block, wantRule: RuleMalicious},
		{name: "malicious off", static: `{"openWorldHint":false}`, state: malicious, config: &Config{InsecureDisableRules: []string{"malicious"}}, want: Allow},

		// resolve.
		{name: "resolve failed", static: readOnly, failed: true, want: Block, wantRule: RuleResolve,
			facts: []string{"resolve call resolve=failed"}},
		{name: "resolve failed cannot be configured away", static: `{}`, failed: true,
			config: &Config{InsecureDisableRules: []string{"malicious", "trifecta", "consequential", "spotlight"}}, want: Block, wantRule: RuleResolve},
		{name: "resolve narrows a possible public destination", static: `{"inputMetadata":{"destination":["internal","public"],"sensitivity":"none","outcomes":"benign"}}`,
			resolved: `{"inputMetadata":{"destination":"internal","sensitivity":"none","outcomes":"benign"}}`, state: trifecta, want: Allow},
		{name: "resolve raises a call to irreversible", static: `{"inputMetadata":{"destination":"internal","sensitivity":"none","outcomes":"benign"}}`,
			resolved: `{"inputMetadata":{"destination":"internal","sensitivity":"none","outcomes":"irreversible"}}`, want: Confirm, wantRule: RuleConsequential,
			facts: []string{"consequential call inputMetadata.outcomes=irreversible"}},

		// AI processing.
		{name: "AI tool, private session: notice", static: `{"aiProcessingHint":true,"readOnlyHint":true}`, state: private, want: Notice, wantRule: RuleAIProcessing,
			facts: []string{"aiProcessing tool aiProcessingHint=true", "aiProcessing session privateData=pii"}},
		{name: "AI tool, fresh session", static: `{"aiProcessingHint":true,"readOnlyHint":true}`, state: fresh, want: Allow},
		{name: "AI tool off", static: `{"aiProcessingHint":true,"readOnlyHint":true}`, state: private,
			config: &Config{InsecureDisableRules: []string{"aiProcessing"}}, want: Allow},
		{name: "AI tool that also needs confirmation", static: `{"aiProcessingHint":true,"privilegedAccessHint":true}`, state: private,
			want: Confirm, wantRule: RuleConsequential},

		// The strongest outcome wins, and the first rule with it names the decision.
		{name: "malicious before trifecta", static: sendEmail, state: State{MaliciousActivity: true, UntrustedContent: true, PrivateData: []string{"pii"}},
			want: Confirm, wantRule: RuleMalicious},
		{name: "block beats confirm", static: sendEmail, state: trifecta, config: &Config{Rules: map[string]string{"consequential": "block"}},
			want: Block, wantRule: RuleConsequential},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPolicy(tt.config)
			require.NoError(t, err, "NewPolicy(%+v)", tt.config)
			c := Call{Tool: "t", Static: mustParse(t, tt.static), ResolveFailed: tt.failed}
			c.Static.Meta = tt.meta
			if tt.resolved != "" {
				c.Resolved = mustParse(t, tt.resolved)
			}
			d := p.Decide(c, &tt.state)
			assert.Equal(t, tt.want, d.Outcome, "Decide(%s) outcome; facts %v", tt.static, d.Facts)
			assert.Equal(t, tt.wantRule, d.Rule, "Decide(%s) rule", tt.static)
			assert.NotNil(t, d.Facts, "facts are a list, never null")
			if tt.facts != nil {
				var got []string
				for _, f := range d.Facts {
					got = append(got, f.Rule+" "+f.Source+" "+f.Key+"="+f.Value)
				}
				if len(tt.facts) == 0 {
					assert.Empty(t, got)
				} else {
					assert.Equal(t, tt.facts, got, "Decide(%s) facts", tt.static)
				}
			}
		})
	}
}

func TestDecideLoad(t *testing.T) {
	const normal, slow = DefaultTimeoutMs, DefaultSlowTimeoutMs
	tests := []struct {
		name, static, resolved string
		meta                   Meta
		want                   Load
	}{
		{"none", `{}`, "", Meta{}, Load{TimeoutMs: normal}},
		{"slow", `{"slowExecutionHint":true}`, "", Meta{}, Load{Slow: true, TimeoutMs: slow}},
		{"slow false", `{"slowExecutionHint":false}`, "", Meta{}, Load{TimeoutMs: normal}},
		{"resource intensive", `{"resourceIntensiveHint":true}`, "", Meta{}, Load{Exclusive: true, TimeoutMs: normal}},
		{"idempotentHint", `{"idempotentHint":true}`, "", Meta{}, Load{Retry: true, TimeoutMs: normal}},
		{"mcp.dev/idempotent", `{}`, "", Meta{Idempotent: ptr(true)}, Load{Retry: true, TimeoutMs: normal}},
		{"idempotent hints disagree: no retry", `{"idempotentHint":true}`, "", Meta{Idempotent: ptr(false)}, Load{TimeoutMs: normal}},
		{"idempotentHint default: no retry", `{"readOnlyHint":true}`, "", Meta{}, Load{TimeoutMs: normal}},
		{"resolve makes one call slow", `{}`, `{"slowExecutionHint":true}`, Meta{}, Load{Slow: true, TimeoutMs: slow}},
		{"all three", `{"slowExecutionHint":true,"resourceIntensiveHint":true,"idempotentHint":true}`, "", Meta{}, Load{Slow: true, Exclusive: true, Retry: true, TimeoutMs: slow}},
	}
	p, err := NewPolicy(nil)
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Call{Tool: "t", Static: mustParse(t, tt.static)}
			c.Static.Meta = tt.meta
			if tt.resolved != "" {
				c.Resolved = mustParse(t, tt.resolved)
			}
			assert.Equal(t, tt.want, p.Decide(c, &State{}).Load, "Decide(%s).Load", tt.static)
		})
	}
}

// TestConfiguredTimeouts: the policy's timeouts reach every decision's
// Load, the slow one for a slow call.
func TestConfiguredTimeouts(t *testing.T) {
	p, err := NewPolicy(&Config{TimeoutMs: 1500, SlowTimeoutMs: 9000})
	require.NoError(t, err)
	fast := Call{Tool: "t", Static: mustParse(t, `{}`)}
	slow := Call{Tool: "t", Static: mustParse(t, `{"slowExecutionHint":true}`)}
	assert.Equal(t, 1500, p.Decide(fast, &State{}).Load.TimeoutMs, "Decide(fast).Load.TimeoutMs")
	assert.Equal(t, 9000, p.Decide(slow, &State{}).Load.TimeoutMs, "Decide(slow).Load.TimeoutMs")
}

func TestNewPolicyErrors(t *testing.T) {
	tests := []struct {
		name string
		c    Config
		want string
	}{
		{"unknown rule", Config{Rules: map[string]string{"speed": "block"}}, `unknown rule "speed"`},
		{"spotlight has no mode", Config{Rules: map[string]string{"spotlight": "block"}}, `unknown rule "spotlight"`},
		{"unknown mode", Config{Rules: map[string]string{"trifecta": "allow"}}, `rules.trifecta: must be "confirm" or "block"`},
		{"resolve cannot be disabled", Config{InsecureDisableRules: []string{"resolve"}}, `unknown rule "resolve"`},
		{"unknown withhold label", Config{Withhold: []string{"secret"}}, `unknown sensitivity label "secret"`},
		{"unknown private label", Config{Private: []string{"PII"}}, `unknown sensitivity label "PII"`},
		{"negative timeout", Config{TimeoutMs: -1}, `timeoutMs: must be a positive number of milliseconds, at most 2147483647, got -1`},
		{"negative slow timeout", Config{SlowTimeoutMs: -5}, `slowTimeoutMs: must be a positive number of milliseconds, at most 2147483647, got -5`},
		{"timeout past what a timer keeps", Config{TimeoutMs: 1 << 31}, `timeoutMs: must be a positive number of milliseconds, at most 2147483647, got 2147483648`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewPolicy(&tt.c)
			assert.ErrorContains(t, err, tt.want, "NewPolicy(%+v)", tt.c)
		})
	}
}

func TestSensitivityMapping(t *testing.T) {
	tests := []struct {
		name        string
		annotations string
		meta        Meta
		config      *Config
		withholds   bool
		private     []string
	}{
		{"nothing", `{}`, Meta{}, nil, false, nil},
		{"sensitiveHint", `{"sensitiveHint":true}`, Meta{}, nil, true, nil},
		{"credentials", `{"returnMetadata":{"source":"internal","sensitivity":["none","credentials"]}}`, Meta{}, nil, true, nil},
		{"restricted", `{}`, Meta{ResultSensitivity: "restricted"}, nil, true, nil},
		{"confidential", `{}`, Meta{ResultSensitivity: "confidential"}, nil, false, []string{"confidential"}},
		{"internal is neither", `{}`, Meta{ResultSensitivity: "internal"}, nil, false, nil},
		{"pii", `{"returnMetadata":{"source":"user","sensitivity":"pii"}}`, Meta{}, nil, false, []string{"pii"}},
		{"financial", `{"returnMetadata":{"source":"internal","sensitivity":"financial"}}`, Meta{}, nil, false, []string{"financial"}},
		{"regulated", `{"returnMetadata":{"source":"internal","sensitivity":{"regulated":{"scopes":["HIPAA"]}}}}`, Meta{}, nil, false, []string{"regulated"}},
		{"user is not private by default", `{"returnMetadata":{"source":"user","sensitivity":"user"}}`, Meta{}, nil, false, nil},
		{"sensitiveDataHint", `{"sensitiveDataHint":true}`, Meta{}, nil, false, []string{"sensitiveDataHint"}},
		{"sensitiveDataHint false", `{"sensitiveDataHint":false}`, Meta{}, nil, false, nil},
		{"configured: pii withheld too", `{"returnMetadata":{"source":"user","sensitivity":"pii"}}`, Meta{}, &Config{Withhold: []string{"pii"}}, true, []string{"pii"}},
		{"configured: user is private", `{"returnMetadata":{"source":"user","sensitivity":"user"}}`, Meta{}, &Config{Private: []string{"user"}}, false, []string{"user"}},
		{"configured lists add, never remove", `{"returnMetadata":{"source":"user","sensitivity":["credentials","pii"]}}`, Meta{},
			&Config{Withhold: []string{"user"}, Private: []string{"user"}}, true, []string{"pii"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPolicy(tt.config)
			require.NoError(t, err)
			a := mustParse(t, tt.annotations)
			a.Meta = tt.meta
			assert.Equal(t, tt.withholds, p.Withholds(a), "Withholds(%s)", tt.annotations)
			assert.Equal(t, tt.private, p.PrivateClasses(a), "PrivateClasses(%s)", tt.annotations)
		})
	}
}

func TestSpotlightSwitch(t *testing.T) {
	p, err := NewPolicy(nil)
	require.NoError(t, err)
	assert.True(t, p.Spotlight(), "spotlight is on by default")
	p, err = NewPolicy(&Config{InsecureDisableRules: []string{"spotlight"}})
	require.NoError(t, err)
	assert.False(t, p.Spotlight())
}
