package engine

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/veilmcp/veil/wasm/risk"
)

// This file holds the engine's side of package risk: the policy, the
// session's trust state, the decision log and the table of the calls
// decided and not yet finished. decide.go decides each call before its
// execute runs, outputgate.go lets its output through (or not) after,
// configure.go reads the page's policy and refusal.go writes what the
// agent gets of a refused call.

// riskState is the engine's policy, the session's trust state and the
// decision log. It has its own lock, never held with Engine.mu.
type riskState struct {
	mu     sync.Mutex
	policy *risk.Policy
	// settings are the members of the policy's configuration the page
	// set, as it wrote them.
	settings map[string]json.RawMessage
	session  risk.State
	log      risk.Log
	// calls are the calls decided and not yet finished: never more than
	// the policy's MaxCalls, and never dropped, since a call is never
	// refused after it ran.
	calls map[string]*decided
	// foreign names the tools in the browser's own registry the runtime
	// cannot control (foreign.go).
	foreign []string
}

// decided is a call the policy has decided, or will once resolve has
// run, and whose output is awaited.
type decided struct {
	tool  *tool
	ann   *risk.Annotations // the call's annotations: the tool's, refined
	state string            // "resolving", "allowed", "pending", "approved", "declined"
	rule  string
	// sensitive are the pointers of the input's x-sensitive values, kept
	// for the question while the call waits for its resolution.
	sensitive []string
	// own are the values the page withholds from this call's output
	// alone (Scrub): those too short for the session's set.
	own *scrubSet
	// deadline is when the page's side of the call has surely ended: its
	// resolve or execute timed out and the output had time to cross. A
	// call the page never closes (a glue that failed halfway) is dropped
	// after it when the calls are at their bound. Zero while the call
	// waits for the user, who may take their time.
	deadline time.Time
}

// The page's bounds on the ops it sends, which the page's glue takes from
// the contract (wasm/ops, js/webmcp/contract.js) rather than setting its
// own: past OpTimeout the page stops waiting for any op, start-up
// included, and fails what waited; past OutputTimeout, for the op that
// makes a call's agent view.
const (
	OpTimeout     = time.Minute
	OutputTimeout = 30 * time.Second
)

// callGrace is how long after its timeout a call's last op may take to
// arrive: the page waits no longer for any op.
const callGrace = OpTimeout

// deadline is when a call of annotations a, starting now, has surely
// ended.
func (e *Engine) deadline(a *risk.Annotations) time.Time {
	return e.opts.Now().Add(time.Duration(e.risk.policy.Load(a).TimeoutMs)*time.Millisecond + callGrace)
}

// reclaim drops the calls past their deadline, when the calls are at
// their bound: the page never closed them. Their outputs, should they
// come, are refused. r.mu is held.
func (r *riskState) reclaim(now time.Time) {
	if len(r.calls) < r.policy.MaxCalls() {
		return
	}
	for id, c := range r.calls {
		if !c.deadline.IsZero() && now.After(c.deadline) {
			delete(r.calls, id)
		}
	}
}

func (r *riskState) init() {
	r.policy, _ = risk.NewPolicy(nil)
	r.calls = map[string]*decided{}
}

// withholds reports whether the policy withholds results of a call with
// annotations a as sensitiveHint's are.
func (e *Engine) withholds(a *risk.Annotations) bool {
	e.risk.mu.Lock()
	defer e.risk.mu.Unlock()
	return e.risk.policy.Withholds(a)
}

// declarationError turns a risk.Error into the TypeError registerTool
// rejects with, naming the tool and the key.
func declarationError(name string, err error) error {
	if re, ok := err.(*risk.Error); ok {
		return typeError("registerTool: %s of tool %q %s", re.Key, name, re.Problem)
	}
	return typeError("registerTool: the annotations of tool %q are invalid: %v", name, err)
}

// pending counts the calls waiting for the user's answer. r.mu is held.
func (r *riskState) pending() int {
	n := 0
	for _, c := range r.calls {
		if c.state == "pending" {
			n++
		}
	}
	return n
}

// Trust returns the session's trust state.
func (e *Engine) Trust() risk.State {
	e.risk.mu.Lock()
	defer e.risk.mu.Unlock()
	return e.risk.session.Clone()
}

// Decisions returns the decision log, oldest first.
func (e *Engine) Decisions() []risk.Entry {
	e.risk.mu.Lock()
	defer e.risk.mu.Unlock()
	return e.risk.log.Entries()
}
