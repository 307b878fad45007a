package engine

import (
	"slices"
	"strings"

	"github.com/veilmcp/veil/wasm/risk"
)

// This file is Output's entry and exit under the risk policy: startOutput
// refuses the output of a call that was not allowed and makes the call's
// sensitiveHint the effective one; finishOutput adds what reached the agent
// to the session's trust state and spotlights an untrusted result.

// riskCall is a call as Output sees it.
type riskCall struct {
	id   string
	tool *tool // the registered tool, its sensitiveHint made effective
	ann  *risk.Annotations
	own  *scrubSet // decided.own
}

// startOutput finds the call o belongs to and checks that it was allowed.
// It returns the call, or the agent view of a refused one.
func (e *Engine) startOutput(o Outcome) (riskCall, *Result) {
	rs := &e.risk
	rs.mu.Lock()
	c := rs.calls[o.Call]
	delete(rs.calls, o.Call)
	rs.mu.Unlock()
	refused := func(r Result) (riskCall, *Result) {
		r.Call = o.Call
		return riskCall{id: o.Call}, &r
	}
	if c == nil {
		return refused(Result{Err: &Error{Name: OperationError, Message: "executeTool: the call was not decided, or its output was already given"}})
	}
	t := c.tool
	switch {
	case o.Kind == Aborted:
		return e.effective(o.Call, t, c.ann), nil
	case c.state == "resolving":
		return refused(refusal(t.name, risk.RuleUndecided, "blocked"))
	case c.state == "allowed" || c.state == "approved":
		if o.Kind == Refused {
			return refused(refusal(t.name, "", "refused"))
		}
		rc := e.effective(o.Call, t, c.ann)
		rc.own = c.own
		return rc, nil
	}
	outcome := c.state
	if outcome == "pending" {
		// The user was never asked, or never answered.
		outcome = "declined"
	}
	return refused(refusal(t.name, c.rule, outcome))
}

// effective returns the call: t, or a copy of t whose sensitiveHint is
// what the policy makes of the call's annotations.
func (e *Engine) effective(id string, t *tool, a *risk.Annotations) riskCall {
	// A call's annotations come from resolve, which runs on the agent's
	// input. They may narrow a declared set of labels (a read_file that
	// may return credentials or nothing) to some of its members, but never
	// step outside it: labels the tool did not declare only add.
	// While a foreign tool is present, so is a private result
	// (foreign.go).
	hint := e.withholds(a) || e.foreignWithholds(a)
	if !narrows(t.ann, a) {
		hint = hint || e.withholds(t.ann) || e.foreignWithholds(t.ann)
	}
	if hint == t.hint {
		return riskCall{id: id, tool: t, ann: a}
	}
	c := *t
	c.hint = hint
	c.declaresAny = hint || (t.output != nil && t.output.AnySensitive())
	return riskCall{id: id, tool: &c, ann: a}
}

// narrows reports whether call's sensitivity labels are some of those the
// tool declared. No labels at all is no narrowing.
func narrows(tool, call *risk.Annotations) bool {
	if tool == call {
		return true
	}
	got := call.Classes()
	if len(got) == 0 {
		return false
	}
	declared := tool.Classes()
	for _, c := range got {
		if !slices.Contains(declared, c) {
			return false
		}
	}
	return true
}

// finishOutput adds what reached the agent to the session's trust state
// and spotlights an untrusted result. A failure here fails the call
// closed.
func (e *Engine) finishOutput(c riskCall, o Outcome, res Result) (out Result) {
	if res.Err != nil || (o.Kind != Returned && o.Kind != Text) || o.Data == "" {
		return res
	}
	defer func() {
		if recover() != nil {
			out = Result{Err: c.tool.failure("the runtime could not process the output")}
		}
	}()
	// The output is parsed once: by the rules, or here when they passed
	// it as it came and it may carry annotations.
	tr := res.parsed
	if tr == nil && o.Kind == Returned && mayHaveAnnotations(o.Data) {
		tr, _ = parseTree(o.Data)
	}
	var ra risk.ResultAnnotations
	if o.Kind == Returned {
		ra = resultAnnotations(tr)
	}
	untrusted := len(risk.Untrusted(c.ann, ra)) > 0

	rs := &e.risk
	rs.mu.Lock()
	if rs.session.Observe(rs.policy, c.tool.name, c.ann, ra) {
		s := rs.session.Clone()
		res.Trust = &s
	}
	spot := rs.policy.Spotlight() && untrusted
	var marker string
	if spot || ra.MaliciousActivity {
		marker = "untrusted-content-" + e.ids.next()
	}
	rs.mu.Unlock()

	res.Malicious = ra.MaliciousActivity
	if marker != "" {
		for strings.Contains(res.Agent, marker) {
			// Never seen; but a result must not hold its own marker.
			rs.mu.Lock()
			marker = "untrusted-content-" + e.ids.next()
			rs.mu.Unlock()
		}
		raw := o.Kind == Text && !res.noticed
		var view *tree // the agent view's, when the engine holds it
		if res.Unchanged && o.Kind == Returned {
			view = tr
		}
		res.Agent = spotlight(c.tool.name, res.Agent, view, raw, res.noticed, ra.MaliciousActivity, marker)
		res.Unchanged = false
	}
	return res
}

// mayHaveAnnotations is a fast test for result annotations. It misses a
// name spelled with \u escapes, which JSON.stringify never writes; unlike a
// secret_reference, a missed annotation is only a page's claim the policy
// does not see, and it spares a second scan of every output.
func mayHaveAnnotations(s string) bool {
	return strings.Contains(s, "annotations")
}

// resultAnnotations reads _meta.annotations of a CallToolResult, from
// its tree; none when it has none, or no tree.
func resultAnnotations(tr *tree) risk.ResultAnnotations {
	if tr == nil || tr.nodes[0].kind != kObject {
		return risk.ResultAnnotations{}
	}
	m := tr.member(0, "_meta")
	if m < 0 || tr.nodes[m].kind != kObject {
		return risk.ResultAnnotations{}
	}
	a := tr.member(m, "annotations")
	if a < 0 {
		return risk.ResultAnnotations{}
	}
	return risk.ReadResultAnnotations(tr.value(a))
}
