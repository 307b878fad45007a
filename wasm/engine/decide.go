package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/veilmcp/veil/wasm/risk"
)

// This file decides every call before its execute runs: Decide, Resolve
// once a resolve callback has run, and Settle when the user was asked.

// Resolution is what a tool's resolve callback made of one call.
type Resolution struct {
	// Annotations is the JSON text of the annotations resolve returned:
	// "" (or "null") when the tool has no resolve or it returned nothing.
	Annotations string
	// Failed: resolve threw, or returned something that is not an object.
	Failed bool
	// Later: the tool has a resolve callback, which runs only on valid
	// input, so it has not run yet. [Engine.Decide] checks the input and
	// opens the call with the outcome [Resolving]; [Engine.Resolve]
	// decides it once resolve has run.
	Later bool
}

// Resolving is the outcome of a call opened with Resolution.Later: it
// waits for [Engine.Resolve].
const Resolving risk.Outcome = "resolve"

// Decision is the engine's answer to [Engine.Decide].
type Decision struct {
	// Call identifies the call: the glue passes it to Resolve, to Settle
	// and, in Outcome.Call, to Output.
	Call string `json:"call"`
	risk.Decision
	// Request is what execute receives as options.annotations.
	Request risk.RequestAnnotations `json:"request"`
	// Entry is the call's entry in the decision log; none for a call
	// that waits for its resolution.
	Entry *risk.Entry `json:"entry,omitempty"`
	// Trust is the session's trust state when deciding changed it (a
	// call that resolve flagged as malicious).
	Trust *risk.State `json:"trust,omitempty"`
	// ResolveError says why resolve's annotations were refused; the page
	// hears it, the agent does not.
	ResolveError string `json:"resolveError,omitempty"`
	// Refusal is the agent view of a blocked call, which never runs: the
	// call is over, and no output is awaited for it.
	Refusal string `json:"-"`
	// Sensitive lists the JSON Pointers of the input's values that the
	// inputSchema marks x-sensitive, for a call that asks the user: the
	// question shows the input, and hides those.
	Sensitive []string `json:"sensitive,omitempty"`
	// Owner is the registration the call was decided for, whose execute
	// the page runs.
	Owner Owner `json:"-"`
}

// Decide validates a call's input, as JSON text, and decides whether the
// call may run, from the tool's annotations, what its resolve callback
// returned and the session's trust state. Its errors are CheckInput's.
// The decision joins the log. A call decided "confirm" waits for
// [Engine.Settle]; only an allowed or approved call's output reaches the
// agent. With r.Later, the call is opened instead and waits for
// [Engine.Resolve].
func (e *Engine) Decide(name, input string, r Resolution) (Decision, error) {
	t := e.lookup(name)
	if t == nil {
		return Decision{}, noTool(name)
	}
	tr, err := e.checkInput(t, input)
	if err != nil {
		return Decision{}, err
	}
	var sensitive []string
	if tr != nil {
		sensitive = t.input.SensitiveInput(tr)
	}
	rs := &e.risk
	rs.mu.Lock()
	defer rs.mu.Unlock()
	// An open call counts against the policy's bounds; with no room, it
	// is decided now, and blocked.
	rs.reclaim(e.opts.Now())
	r.Later = r.Later || t.owner.Resolve
	if r.Later && len(rs.calls) < rs.policy.MaxCalls() {
		id := e.ids.next()
		rs.calls[id] = &decided{tool: t, state: "resolving", sensitive: sensitive, deadline: e.deadline(t.ann)}
		// resolve runs under the tool's own load, its timeout too.
		d := risk.Decision{Outcome: Resolving, Facts: []risk.Fact{}, Load: rs.policy.Load(t.ann)}
		return Decision{Call: id, Decision: d, Request: rs.session.Request(), Owner: t.owner}, nil
	}
	d := e.decide(e.ids.next(), t, sensitive, r)
	d.Owner = t.owner
	return d, nil
}

// Resolve decides a call that [Engine.Decide] opened with
// Resolution.Later, from what its resolve callback returned.
func (e *Engine) Resolve(call string, r Resolution) (Decision, error) {
	rs := &e.risk
	rs.mu.Lock()
	c := rs.calls[call]
	if c == nil || c.state != "resolving" {
		rs.mu.Unlock()
		return Decision{}, stateError("veil: the call is not waiting for its resolution")
	}
	delete(rs.calls, call)
	rs.mu.Unlock()
	if e.lookup(c.tool.name) != c.tool {
		return Decision{}, noTool(c.tool.name)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	d := e.decide(call, c.tool, c.sensitive, r)
	d.Owner = c.tool.owner
	return d, nil
}

// decide decides call id of tool t, and logs the decision. rs.mu is held.
func (e *Engine) decide(id string, t *tool, sensitive []string, r Resolution) Decision {
	name := t.name
	c := risk.Call{Tool: name, Static: t.ann, ResolveFailed: r.Failed, Foreign: e.risk.foreign}
	var resolveErr string
	if raw := strings.TrimSpace(r.Annotations); !r.Failed && raw != "" && raw != "null" {
		a, _, err := risk.ParseAnnotations([]byte(raw))
		if err != nil {
			c.ResolveFailed = true
			resolveErr = fmt.Sprintf("tool %q: resolve returned %v", name, err)
		} else {
			c.Resolved = a
		}
	}

	rs := &e.risk
	var trust *risk.State
	if c.Resolved != nil && c.Resolved.MaliciousActivity != nil && *c.Resolved.MaliciousActivity && rs.session.FlagMalicious(name) {
		s := rs.session.Clone()
		trust = &s
	}
	var d risk.Decision
	rs.reclaim(e.opts.Now())
	if n := len(rs.calls); n >= rs.policy.MaxCalls() {
		// Before the call runs, never after: no call in progress is
		// dropped to make room.
		d = risk.Decision{Outcome: risk.Block, Rule: risk.RuleCapacity, Facts: []risk.Fact{
			{Rule: risk.RuleCapacity, Source: "session", Key: "callsInProgress", Value: strconv.Itoa(n)},
		}}
	} else {
		d = rs.policy.Decide(c, &rs.session)
		if pending := rs.pending(); d.Outcome == risk.Confirm && pending >= rs.policy.MaxConfirmations() {
			d.Outcome, d.Rule = risk.Block, risk.RuleFlood
			d.Facts = append(d.Facts, risk.Fact{Rule: risk.RuleFlood, Source: "session", Key: "confirmationsWaiting", Value: strconv.Itoa(pending)})
		}
	}
	entry := risk.Entry{Call: id, Tool: name, Time: e.opts.Now(), Outcome: string(d.Outcome), Rule: d.Rule, Facts: d.Facts}
	rs.log.Add(entry)
	res := Decision{Call: id, Decision: d, Request: rs.session.Request(), Entry: &entry, Trust: trust, ResolveError: resolveErr}
	switch d.Outcome {
	case risk.Block:
		res.Refusal = refusal(name, d.Rule, "blocked").Agent
	case risk.Confirm:
		rs.calls[id] = &decided{tool: t, ann: t.ann.Refine(c.Resolved), state: "pending", rule: d.Rule}
		res.Sensitive = sensitive
	default:
		ann := t.ann.Refine(c.Resolved)
		rs.calls[id] = &decided{tool: t, ann: ann, state: "allowed", rule: d.Rule, deadline: e.deadline(ann)}
	}
	return res
}

// Settle records the user's answer to a call decided "confirm" and
// returns its log entry.
func (e *Engine) Settle(call string, approved bool) (risk.Entry, error) {
	rs := &e.risk
	rs.mu.Lock()
	defer rs.mu.Unlock()
	c := rs.calls[call]
	if c == nil || c.state != "pending" {
		return risk.Entry{}, &Error{Name: InvalidStateError, Message: "veil: the call is not waiting for the user"}
	}
	c.state = "declined"
	if approved {
		c.state = "approved"
	}
	c.deadline = e.deadline(c.ann)
	entry, _ := rs.log.Settle(call, c.state)
	return entry, nil
}
