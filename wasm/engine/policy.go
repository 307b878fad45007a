package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/veilmcp/veil/wasm/risk"
)

// This file connects the engine to package risk: the policy decides every
// call before its execute runs (Decide, then Settle when the user was
// asked), and Output refuses the agent view of a call that was not allowed,
// updates the session's trust state from what reached the agent, and
// spotlights untrusted results.

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

// callGrace is how long after its timeout a call's last op may take to
// arrive.
const callGrace = time.Minute

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

// Settings returns the members of the risk policy's configuration the
// page has set, as one object in JSON: what [Engine.Configure] of a fresh
// engine takes to make the same policy.
func (e *Engine) Settings() json.RawMessage {
	e.risk.mu.Lock()
	defer e.risk.mu.Unlock()
	b, err := json.Marshal(e.risk.settings)
	if err != nil || e.risk.settings == nil {
		return json.RawMessage(`{}`)
	}
	return b
}

// Configure changes the page's risk policy: config is JSON text of an
// object with some of the members of a [risk.Config]. A member left out
// keeps its value; a member set to null gets its default back. A
// malformed config, or one the policy refuses, is a TypeError and changes
// nothing.
func (e *Engine) Configure(config string) error {
	var patch map[string]json.RawMessage
	if strings.TrimSpace(config) != "" {
		if err := json.Unmarshal([]byte(config), &patch); err != nil || patch == nil {
			return typeError("veil.configure: the options must be an object")
		}
	}
	rs := &e.risk
	rs.mu.Lock()
	defer rs.mu.Unlock()
	settings := maps.Clone(rs.settings)
	if settings == nil {
		settings = map[string]json.RawMessage{}
	}
	for k, v := range patch {
		if string(v) == "null" {
			delete(settings, k)
		} else {
			settings[k] = v
		}
	}
	c, err := decodeConfig(settings)
	if err != nil {
		return err
	}
	p, err := risk.NewPolicy(&c)
	if err != nil {
		return typeError("veil.configure: %v", err)
	}
	rs.policy, rs.settings = p, settings
	return nil
}

// decodeConfig reads the page's settings into a risk.Config, naming a key
// it does not know, and the key it resembles.
func decodeConfig(settings map[string]json.RawMessage) (risk.Config, error) {
	var c risk.Config
	known := jsonNames(reflect.TypeFor[risk.Config]())
	for k := range settings {
		if slices.Contains(known, k) {
			continue
		}
		if near, ok := risk.Resembles(k, known...); ok {
			return c, typeError("veil.configure: unknown option %q; did you mean %q?", k, near)
		}
		return c, typeError("veil.configure: unknown option %q (known: %s)", k, strings.Join(known, ", "))
	}
	b, _ := json.Marshal(settings)
	if err := json.Unmarshal(b, &c); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return c, typeError("veil.configure: %s must be %s, got %s", te.Field, jsonKind(te.Type), te.Value)
		}
		return c, typeError("veil.configure: %v", err)
	}
	return c, nil
}

// jsonNames lists the JSON member names of struct type t.
func jsonNames(t reflect.Type) []string {
	names := make([]string, t.NumField())
	for i := range names {
		names[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	return names
}

// jsonKind names what a Go type holds, in JSON's words.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "an array"
	case reflect.Map:
		return "an object"
	}
	return t.String()
}

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
		sensitive = t.input.sensitiveInput(tr)
	}
	rs := &e.risk
	rs.mu.Lock()
	defer rs.mu.Unlock()
	// An open call counts against the policy's bounds; with no room, it
	// is decided now, and blocked.
	rs.reclaim(e.opts.Now())
	if r.Later && len(rs.calls) < rs.policy.MaxCalls() {
		id := e.ids.next()
		rs.calls[id] = &decided{tool: t, state: "resolving", sensitive: sensitive, deadline: e.deadline(t.ann)}
		// resolve runs under the tool's own load, its timeout too.
		d := risk.Decision{Outcome: Resolving, Facts: []risk.Fact{}, Load: rs.policy.Load(t.ann)}
		return Decision{Call: id, Decision: d, Request: rs.session.Request()}, nil
	}
	return e.decide(e.ids.next(), t, sensitive, r), nil
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
	return e.decide(call, c.tool, c.sensitive, r), nil
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
		r.CallID = o.Call
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
	c.declaresAny = hint || (t.output != nil && t.output.anySensitive)
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

// PolicyMetaKey is the namespaced _meta key under which the agent view of
// a refused call names the rule.
const PolicyMetaKey = "dev.veil/policy"

// ruleReasons explain each rule to the agent, in the refusal's text.
var ruleReasons = map[string]string{
	risk.RuleTrifecta:      "this session holds private data and has seen untrusted content, and this tool can send data out",
	risk.RuleConsequential: "this tool's effects are irreversible, destructive, privileged or otherwise consequential",
	risk.RuleMalicious:     "activity in this session was flagged as possibly malicious",
	risk.RuleResolve:       "the page could not say what this call would do",
	risk.RuleUndecided:     "the call was not decided before it ran",
	risk.RuleCapacity:      "the page has as many calls in progress as it allows; try again once some have finished",
	risk.RuleFlood:         "as many questions wait for the user as the page allows",
	risk.RuleForeign:       "a tool the runtime cannot control is open to agents on this page, so every call needs the user's approval",
}

// refusal is the agent view of a call that did not run, or whose output
// is refused: an MCP error result that names the rule.
func refusal(tool, rule, outcome string) Result {
	var text string
	switch {
	case rule == risk.RuleUndecided:
		text = fmt.Sprintf("The runtime refused the output of tool %q", tool)
	case outcome == "declined":
		text = fmt.Sprintf("The user declined the call of tool %q, so it did not run", tool)
	case outcome == "refused":
		text = fmt.Sprintf("The call of tool %q did not run", tool)
	default:
		text = fmt.Sprintf("The page's policy blocked the call of tool %q, so it did not run", tool)
	}
	if rule != "" {
		text += fmt.Sprintf(" (rule %q: %s)", rule, ruleReasons[rule])
	}
	text += ". Do not try to get around this; ask the user if the task needs it."
	return Result{Agent: string(appendErrorResult(nil, text, rule, outcome))}
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
