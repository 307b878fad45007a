package engine

import "github.com/veilmcp/veil/wasm/risk"

// OutputOf is [Engine.Output] for tests, which name the tool: with
// o.Call set it is Output (name is not checked); with none, the call of
// tool name is decided as its output arrives, on the tool's own
// annotations, given an id, and refused (rule "undecided") if the policy
// would not have let it run. The page always decides a call first; the
// tests of what a view withholds need not.
func (e *Engine) OutputOf(name string, o Outcome) Result {
	if o.Call != "" {
		return e.Output(o)
	}
	c, refused := e.startUndecided(name, o)
	if refused != nil {
		return *refused
	}
	return e.output(c, o)
}

// startUndecided is startOutput for a call that was not decided.
func (e *Engine) startUndecided(name string, o Outcome) (riskCall, *Result) {
	t := e.lookup(name)
	if t == nil {
		return riskCall{}, &Result{Err: noTool(name)}
	}
	if o.Kind == Refused {
		return riskCall{}, &Result{Err: typeError("executeTool: a refused call of tool %q has no call id", t.name)}
	}
	id := e.ids.next()
	if o.Kind != Returned && o.Kind != Text {
		return e.effective(id, t, t.ann), nil
	}
	rs := &e.risk
	rs.mu.Lock()
	d := rs.policy.Decide(risk.Call{Tool: t.name, Static: t.ann, Foreign: rs.foreign}, &rs.session)
	if d.Outcome == risk.Confirm || d.Outcome == risk.Block {
		facts := append(d.Facts, risk.Fact{Rule: risk.RuleUndecided, Source: "call", Key: "decision", Value: "none"})
		rs.log.Add(risk.Entry{Call: id, Tool: t.name, Time: e.opts.Now(), Outcome: "block", Rule: risk.RuleUndecided, Facts: facts})
		rs.mu.Unlock()
		r := refusal(t.name, risk.RuleUndecided, "blocked")
		r.Call = id
		return riskCall{id: id}, &r
	}
	rs.mu.Unlock()
	return e.effective(id, t, t.ann), nil
}
