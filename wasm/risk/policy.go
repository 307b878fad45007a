package risk

import (
	"fmt"
	"slices"
	"strconv"
)

// The rules of the policy, as decisions and the configuration name them.
const (
	// RuleResolve blocks a call whose resolve callback failed or returned
	// annotations that are not valid: the policy cannot know the call's
	// risk. It cannot be turned off.
	RuleResolve = "resolve"
	// RuleMalicious asks the user before a call that resolve flagged with
	// maliciousActivityHint, and, once any result of the session was
	// flagged, before every call of a tool that may change something or
	// send data out.
	RuleMalicious = "malicious"
	// RuleTrifecta asks the user before a tool that can send data out
	// runs in a session that holds private data and has seen untrusted
	// content.
	RuleTrifecta = "trifecta"
	// RuleConsequential asks the user before a tool whose effects are
	// irreversible, destructive, privileged or consequential; a
	// destructive tool that declares itself reversible gets a notice.
	RuleConsequential = "consequential"
	// RuleAIProcessing tells the user, without asking, when a tool that
	// declares aiProcessingHint runs in a session that holds private data:
	// the data may go to an AI model.
	RuleAIProcessing = "aiProcessing"
	// RuleSpotlight delimits untrusted results in the agent view and
	// labels them as data, not instructions.
	RuleSpotlight = "spotlight"
	// RuleUndecided refuses the agent view of a call that ran without a
	// decision when the policy would not have allowed it.
	RuleUndecided = "undecided"
	// RuleCapacity declines a call, before it runs, while the page has
	// as many calls in progress as its policy allows (MaxCalls). It
	// cannot be turned off: a call is never refused after it ran.
	RuleCapacity = "capacity"
	// RuleFlood declines a call that needs the user's confirmation while
	// as many questions wait for the user as the policy allows
	// (MaxConfirmations).
	RuleFlood = "flood"
	// RuleForeign asks the user before every call while the browser's
	// own registry holds a tool the runtime cannot control (Call.Foreign):
	// such a tool can send out whatever reaches the agent, with no
	// decision of the engine. It can be made to block; it cannot be
	// turned off.
	RuleForeign = "foreign"
)

// The defaults of the policy's bounds.
const (
	DefaultMaxCalls         = 64
	DefaultMaxConfirmations = 8
	// MaxMaxCalls bounds what MaxCalls can be set to.
	MaxMaxCalls = 4096
	// DefaultTimeoutMs is how long a call's execute may run, in
	// milliseconds, before the call fails; DefaultSlowTimeoutMs the same
	// for a call with slowExecutionHint.
	DefaultTimeoutMs     = 120_000
	DefaultSlowTimeoutMs = 600_000
	// MaxTimeoutMs is the longest timeout: the longest delay a browser's
	// setTimeout keeps (a longer one fires at once).
	MaxTimeoutMs = 1<<31 - 1
)

// Outcome is what a decision says to do with a call.
type Outcome string

// The outcomes, weakest first.
const (
	// Allow runs the call.
	Allow Outcome = "allow"
	// Notice runs the call and tells the user it is running.
	Notice Outcome = "notice"
	// Confirm runs the call only once the user approves it.
	Confirm Outcome = "confirm"
	// Block never runs the call.
	Block Outcome = "block"
)

func (o Outcome) rank() int { return slices.Index([]Outcome{Allow, Notice, Confirm, Block}, o) }

// Fact is one thing a rule used. Source is "tool" (the tool's
// annotations), "call" (what its resolve callback returned), "default"
// (MCP's default for a hint the tool left out), "meta" (the tool's _meta)
// or "session" (the trust state); Key names the hint or state and Value is
// its value. Values are the vocabulary's own words and tool names, never
// anything a tool was given or returned.
type Fact struct {
	Rule   string `json:"rule"`
	Source string `json:"source"`
	Key    string `json:"key"`
	Value  string `json:"value"`
}

// Load is what a call's annotations ask of the runtime's scheduling.
type Load struct {
	// Slow: slowExecutionHint. The call gets the longer timeout and the
	// page shows it as in progress.
	Slow bool `json:"slow"`
	// Exclusive: resourceIntensiveHint. Such calls run one at a time.
	Exclusive bool `json:"exclusive"`
	// Retry: idempotentHint or mcp.dev/idempotent, and neither false. The
	// call is retried once after a transient failure.
	Retry bool `json:"retry"`
	// TimeoutMs is how long execute may run, in milliseconds, before the
	// call fails: the policy's timeout, or its slow timeout for a slow
	// call.
	TimeoutMs int `json:"timeoutMs"`
}

// Decision is the policy's answer for one call.
type Decision struct {
	Outcome Outcome `json:"outcome"`
	// Rule names the rule that decided; "" when the call is allowed.
	Rule string `json:"rule,omitempty"`
	// Facts are what every rule that fired used, in rule order.
	Facts []Fact `json:"facts"`
	Load  Load   `json:"load"`
}

// Config is a page's policy configuration, as JSON from veil.configure.
// The zero Config is the default policy. Lists add to the defaults; they
// never take anything away from them.
type Config struct {
	// Rules makes a rule stricter: "block" instead of asking the user.
	// Keys: "malicious", "trifecta", "consequential", "foreign"; values "confirm"
	// (the default) or "block".
	Rules map[string]string `json:"rules"`
	// InsecureDisableRules turns rules off: "malicious", "trifecta",
	// "consequential", "aiProcessing", "spotlight".
	InsecureDisableRules []string `json:"insecureDisableRules"`
	// Withhold adds sensitivity labels whose results are withheld from
	// the agent as sensitiveHint's are. Default: "credentials",
	// "restricted".
	Withhold []string `json:"withhold"`
	// Private adds sensitivity labels that mark the session as holding
	// private data. Default: "pii", "financial", "regulated",
	// "confidential", "sensitiveDataHint".
	Private []string `json:"private"`
	// MaxCalls bounds the calls in progress at once (decided, not yet
	// finished); more are declined before they run (RuleCapacity). Zero
	// means DefaultMaxCalls; at most MaxMaxCalls.
	MaxCalls int `json:"maxCalls"`
	// MaxConfirmations bounds the calls waiting for the user's answer;
	// more that need one are declined (RuleFlood). Zero means
	// DefaultMaxConfirmations; at most MaxCalls.
	MaxConfirmations int `json:"maxConfirmations"`
	// TimeoutMs is how long a call's execute may run, in milliseconds,
	// before the call fails. Zero means DefaultTimeoutMs.
	TimeoutMs int `json:"timeoutMs"`
	// SlowTimeoutMs is TimeoutMs for a call with slowExecutionHint. Zero
	// means DefaultSlowTimeoutMs.
	SlowTimeoutMs int `json:"slowTimeoutMs"`
}

// The default sensitivity mapping.
var (
	DefaultWithhold = []string{"credentials", "restricted"}
	DefaultPrivate  = []string{"pii", "financial", "regulated", "confidential", "sensitiveDataHint"}
)

// Labels are the sensitivity labels a Config may name: SEP-1913's data
// classes, mcp.dev/resultSensitivity's values and sensitiveDataHint.
var Labels = []string{
	"none", "user", "pii", "financial", "credentials", "regulated",
	"public", "internal", "confidential", "restricted",
	"sensitiveDataHint",
}

// Policy is a checked Config. Its zero value is not usable: use
// [NewPolicy].
type Policy struct {
	// The modes of the rules: Confirm, Block, or Allow when off.
	malicious, trifecta, consequential, foreign Outcome
	spot, ai                                    bool
	withhold                                    []string
	private                                     []string
	maxCalls, maxConfirmations                  int
	timeoutMs, slowTimeoutMs                    int
}

// MaxCalls is how many calls may be in progress at once.
func (p *Policy) MaxCalls() int { return p.maxCalls }

// MaxConfirmations is how many calls may wait for the user's answer.
func (p *Policy) MaxConfirmations() int { return p.maxConfirmations }

// NewPolicy checks c and returns the policy it configures. A nil c means
// the default policy.
func NewPolicy(c *Config) (*Policy, error) {
	p := &Policy{
		malicious:     Confirm,
		trifecta:      Confirm,
		consequential: Confirm,
		foreign:       Confirm,
		spot:          true,
		ai:            true,
		withhold:      slices.Clone(DefaultWithhold),
		private:       slices.Clone(DefaultPrivate),

		maxCalls:         DefaultMaxCalls,
		maxConfirmations: DefaultMaxConfirmations,
		timeoutMs:        DefaultTimeoutMs,
		slowTimeoutMs:    DefaultSlowTimeoutMs,
	}
	if c == nil {
		return p, nil
	}
	switch {
	case c.MaxCalls < 0 || c.MaxCalls > MaxMaxCalls:
		return nil, fmt.Errorf("maxCalls: must be between 1 and %d, got %d", MaxMaxCalls, c.MaxCalls)
	case c.MaxCalls > 0:
		p.maxCalls = c.MaxCalls
	}
	switch {
	case c.MaxConfirmations < 0 || c.MaxConfirmations > p.maxCalls:
		return nil, fmt.Errorf("maxConfirmations: must be between 1 and maxCalls (%d), got %d", p.maxCalls, c.MaxConfirmations)
	case c.MaxConfirmations > 0:
		p.maxConfirmations = c.MaxConfirmations
	}
	p.maxConfirmations = min(p.maxConfirmations, p.maxCalls)
	for _, t := range []struct {
		key     string
		got     int
		setting *int
	}{{"timeoutMs", c.TimeoutMs, &p.timeoutMs}, {"slowTimeoutMs", c.SlowTimeoutMs, &p.slowTimeoutMs}} {
		switch {
		case t.got < 0 || t.got > MaxTimeoutMs:
			return nil, fmt.Errorf("%s: must be a positive number of milliseconds, at most %d, got %d", t.key, MaxTimeoutMs, t.got)
		case t.got > 0:
			*t.setting = t.got
		}
	}
	for rule, v := range c.Rules {
		m := p.mode(rule)
		if m == nil {
			return nil, fmt.Errorf("rules: unknown rule %q (known: malicious, trifecta, consequential, foreign)", rule)
		}
		switch v {
		case "confirm":
			*m = Confirm
		case "block":
			*m = Block
		default:
			return nil, fmt.Errorf("rules.%s: must be \"confirm\" or \"block\", got %q", rule, v)
		}
	}
	for _, rule := range c.InsecureDisableRules {
		switch m := p.mode(rule); {
		case rule == RuleForeign:
			return nil, fmt.Errorf("insecureDisableRules: rule %q cannot be turned off (make it \"block\" in rules instead)", rule)
		case m != nil:
			*m = Allow
		case rule == RuleSpotlight:
			p.spot = false
		case rule == RuleAIProcessing:
			p.ai = false
		default:
			return nil, fmt.Errorf("insecureDisableRules: unknown rule %q (known: malicious, trifecta, consequential, aiProcessing, spotlight)", rule)
		}
	}
	for _, l := range [][]string{c.Withhold, c.Private} {
		for _, s := range l {
			if !slices.Contains(Labels, s) {
				return nil, fmt.Errorf("unknown sensitivity label %q (known: %s)", s, quoteAll(Labels))
			}
		}
	}
	for _, s := range c.Withhold {
		p.withhold = appendNew(p.withhold, s)
	}
	for _, s := range c.Private {
		p.private = appendNew(p.private, s)
	}
	return p, nil
}

// mode returns where the mode of a configurable rule is kept, or nil.
func (p *Policy) mode(rule string) *Outcome {
	switch rule {
	case RuleMalicious:
		return &p.malicious
	case RuleTrifecta:
		return &p.trifecta
	case RuleConsequential:
		return &p.consequential
	case RuleForeign:
		return &p.foreign
	}
	return nil
}

// Spotlight reports whether untrusted results are spotlighted.
func (p *Policy) Spotlight() bool { return p.spot }

// Withholds reports whether a result of a call with annotations a is
// withheld from the agent as sensitiveHint's results are: sensitiveHint
// itself, or a sensitivity label in the withhold list.
func (p *Policy) Withholds(a *Annotations) bool {
	if is(a.Sensitive) {
		return true
	}
	for _, c := range a.Classes() {
		if slices.Contains(p.withhold, c) {
			return true
		}
	}
	return false
}

// PrivateClasses returns the labels of a that mark the session as holding
// private data.
func (p *Policy) PrivateClasses(a *Annotations) []string {
	var out []string
	for _, c := range a.Classes() {
		if slices.Contains(p.private, c) {
			out = append(out, c)
		}
	}
	return out
}

// Call is what the policy knows of one call: the tool's annotations and
// what its resolve callback made of the input.
type Call struct {
	Tool   string
	Static *Annotations
	// Resolved is what resolve returned, nil when the tool has none or
	// it returned nothing.
	Resolved *Annotations
	// ResolveFailed: resolve threw, or returned annotations that are
	// not valid.
	ResolveFailed bool
	// Foreign names the tools in the browser's own registry that the
	// runtime cannot control, when the call is made: none in a page
	// whose native registry holds only the runtime's mirrors.
	Foreign []string
}

// Decide decides a call in a session whose trust state is s. Every rule
// that fires adds its facts; the strongest outcome wins, and the first
// rule in the order resolve, foreign, malicious, trifecta, consequential,
// aiProcessing with that outcome names the decision.
func (p *Policy) Decide(c Call, s *State) Decision {
	a := c.Static.Refine(c.Resolved)
	d := Decision{Outcome: Allow, Facts: []Fact{}, Load: p.Load(a)}
	fire := func(rule string, o Outcome, facts []Fact) {
		if o == Allow {
			return
		}
		for i := range facts {
			facts[i].Rule = rule
		}
		d.Facts = append(d.Facts, facts...)
		if o.rank() > d.Outcome.rank() {
			d.Outcome, d.Rule = o, rule
		}
	}
	src := func(key string) string {
		if c.Resolved != nil && c.Resolved.Has(key) {
			return "call"
		}
		return "tool"
	}

	if c.ResolveFailed {
		fire(RuleResolve, Block, []Fact{{Source: "call", Key: "resolve", Value: "failed"}})
		return d
	}

	if len(c.Foreign) > 0 {
		fire(RuleForeign, p.foreign, foreignFacts(c.Foreign))
	}

	if m := p.malicious; m != Allow {
		var facts []Fact
		if c.Resolved != nil && is(c.Resolved.MaliciousActivity) {
			facts = append(facts, Fact{Source: "call", Key: "maliciousActivityHint", Value: "true"})
		}
		if s.MaliciousActivity {
			if mut, sends := mutates(a, src), sendsOut(a, src); len(mut) > 0 || len(sends) > 0 {
				facts = append(facts, Fact{Source: "session", Key: "maliciousActivity", Value: "true"})
				facts = append(facts, mut...)
				facts = append(facts, sends...)
			}
		}
		if len(facts) > 0 {
			fire(RuleMalicious, m, facts)
		}
	}

	if m := p.trifecta; m != Allow && len(s.PrivateData) > 0 && s.UntrustedContent {
		if sends := sendsOut(a, src); len(sends) > 0 {
			facts := privateFacts(s)
			facts = append(facts, Fact{Source: "session", Key: "untrustedContent", Value: "true"})
			facts = append(facts, sends...)
			if a.Input != nil {
				// What the tool says it takes, for the user to weigh.
				for _, c := range a.Input.Sensitivity {
					if c.Name != "none" {
						facts = append(facts, Fact{Source: src("inputMetadata"), Key: "inputMetadata.sensitivity", Value: c.Name})
					}
				}
			}
			fire(RuleTrifecta, m, facts)
		}
	}

	if m := p.consequential; m != Allow {
		o, facts := consequential(a, src)
		if o == Confirm {
			o = m
		}
		fire(RuleConsequential, o, facts)
	}

	if p.ai && is(a.AIProcessing) && len(s.PrivateData) > 0 {
		facts := []Fact{{Source: src("aiProcessingHint"), Key: "aiProcessingHint", Value: "true"}}
		fire(RuleAIProcessing, Notice, append(facts, privateFacts(s)...))
	}
	return d
}

// privateFacts lists the private data the session holds.
func privateFacts(s *State) []Fact {
	var facts []Fact
	for _, c := range s.PrivateData {
		facts = append(facts, Fact{Source: "session", Key: "privateData", Value: c})
	}
	return facts
}

// Load is what a call with annotations a asks of the runtime's
// scheduling, with the policy's timeout for it.
func (p *Policy) Load(a *Annotations) Load {
	idem := []*bool{a.Idempotent, a.Meta.Idempotent}
	retry := slices.ContainsFunc(idem, is) && !slices.ContainsFunc(idem, func(b *bool) bool { return b != nil && !*b })
	l := Load{Slow: is(a.SlowExecution), Exclusive: is(a.ResourceIntensive), Retry: retry, TimeoutMs: p.timeoutMs}
	if l.Slow {
		l.TimeoutMs = p.slowTimeoutMs
	}
	return l
}

// sendsOut returns the facts that say the tool can send data out of the
// session, none when it cannot: mcp.dev/effect "external", an
// inputMetadata.destination of "public", or a tool that is open-world and
// not read-only. The last applies MCP's defaults (open-world, not
// read-only) to a tool that leaves both hints out, unless its
// inputMetadata.destination or mcp.dev/effect already says where its input
// goes: a tool that says nothing is not assumed harmless.
func sendsOut(a *Annotations, src func(string) string) []Fact {
	var facts []Fact
	if a.Meta.Effect == "external" {
		facts = append(facts, Fact{Source: "meta", Key: MetaEffect, Value: "external"})
	}
	if a.Input != nil && slices.Contains(a.Input.Destination, "public") {
		facts = append(facts, Fact{Source: src("inputMetadata"), Key: "inputMetadata.destination", Value: "public"})
	}
	if len(facts) > 0 || a.IsReadOnly() || !a.IsOpenWorld() {
		return facts
	}
	if a.OpenWorld == nil && (a.Input != nil || a.Meta.Effect != "") {
		return nil
	}
	return append(facts, hint(a, "openWorldHint", a.OpenWorld, src), hint(a, "readOnlyHint", a.ReadOnly, src))
}

// mutates returns the facts that say the tool may change something: it is
// not read-only (MCP's default) and its mcp.dev/effect, if any, is not
// "read".
func mutates(a *Annotations, src func(string) string) []Fact {
	if a.IsReadOnly() || a.Meta.Effect == "read" {
		return nil
	}
	return []Fact{hint(a, "readOnlyHint", a.ReadOnly, src)}
}

// consequential applies the consequential-tool rule: Confirm for
// irreversible outcomes, destructiveHint or mcp.dev/effect "delete" (unless
// reversibleHint is true), privilegedAccessHint, consequentialHint or
// mcp.dev/requiresConfirmation; Notice for a destructive tool that
// declares itself reversible, or for "consequential" outcomes.
func consequential(a *Annotations, src func(string) string) (Outcome, []Fact) {
	var confirm, notice []Fact
	if a.Input != nil {
		switch {
		case slices.Contains(a.Input.Outcomes, "irreversible"):
			confirm = append(confirm, Fact{Source: src("inputMetadata"), Key: "inputMetadata.outcomes", Value: "irreversible"})
		case slices.Contains(a.Input.Outcomes, "consequential"):
			notice = append(notice, Fact{Source: src("inputMetadata"), Key: "inputMetadata.outcomes", Value: "consequential"})
		}
	}
	var destructive []Fact
	if is(a.Destructive) {
		destructive = append(destructive, Fact{Source: src("destructiveHint"), Key: "destructiveHint", Value: "true"})
	}
	if a.Meta.Effect == "delete" {
		destructive = append(destructive, Fact{Source: "meta", Key: MetaEffect, Value: "delete"})
	}
	if len(destructive) > 0 {
		if is(a.Reversible) {
			notice = append(notice, destructive...)
			notice = append(notice, Fact{Source: src("reversibleHint"), Key: "reversibleHint", Value: "true"})
		} else {
			confirm = append(confirm, destructive...)
		}
	}
	for _, h := range []struct {
		key string
		b   *bool
	}{{"privilegedAccessHint", a.PrivilegedAccess}, {"consequentialHint", a.Consequential}} {
		if is(h.b) {
			confirm = append(confirm, Fact{Source: src(h.key), Key: h.key, Value: "true"})
		}
	}
	if is(a.Meta.RequiresConfirmation) {
		confirm = append(confirm, Fact{Source: "meta", Key: MetaRequiresConfirmation, Value: "true"})
	}
	switch {
	case len(confirm) > 0:
		return Confirm, append(confirm, notice...)
	case len(notice) > 0:
		return Notice, notice
	}
	return Allow, nil
}

// hint is the fact of a boolean hint, from MCP's default when unset.
func hint(a *Annotations, key string, b *bool, src func(string) string) Fact {
	if b == nil {
		// MCP's defaults: open-world, not read-only.
		return Fact{Source: "default", Key: key, Value: strconv.FormatBool(key == "openWorldHint")}
	}
	return Fact{Source: src(key), Key: key, Value: strconv.FormatBool(*b)}
}
