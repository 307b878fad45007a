package risk

import (
	"slices"
	"strconv"
)

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
