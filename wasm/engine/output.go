package engine

import (
	"fmt"

	"github.com/veilmcp/veil/wasm/internal/jsonx"
	"github.com/veilmcp/veil/wasm/pattern"
)

// This file holds Output, the one function every agent path calls, and
// the outcomes it answers without a view.

// What Chromium's executeTool answers, matched byte for byte: an empty
// string result, a result JSON.stringify makes nothing of (undefined, a
// function), and a tool that throws or whose result cannot be serialized.
const (
	emptyResult     = "Operation succeeded"
	undefinedResult = "undefined"
	toolFailed      = "Tool was executed but the invocation failed. For example, the script function threw an error"
)

// Output turns what a tool's execute produced into the agent view. It is
// the one function every agent path calls: executeTool on either object,
// the testing API and the native mirror. o.Call names the call
// [Engine.Decide] decided, which knows its tool; the output of a call that
// was not decided, or whose output was already given, is refused.
//
// The rules, in the order they apply:
//   - A tool that declares nothing sensitive gets its output byte for byte,
//     unless the output holds a secret_reference.
//   - sensitiveHint with an outputSchema that marks fields x-sensitive: only
//     declared, non-sensitive locations reach the agent (an allowlist).
//   - sensitiveHint and secret_reference items: text items and reduced
//     references reach the agent; everything else is withheld.
//   - sensitiveHint otherwise: the whole output is withheld.
//   - No sensitiveHint: values at x-sensitive locations are withheld.
//   - Any secret_reference reaches the agent as {type, label, ttl} at most.
//   - A withheld string is scrubbed from every string the agent gets.
//   - A tool that declares anything sensitive fails closed: output that
//     does not match its outputSchema, cannot be serialized, is too large,
//     or trips the engine becomes an error that carries none of it.
//
// Around them, the risk policy (outputgate.go): a call the policy did not allow
// gets an error result naming the rule; sensitiveHint is the call's
// effective one (risk.Policy.Withholds); what reaches the agent joins
// the session's trust state; an untrusted result is spotlighted.
func (e *Engine) Output(o Outcome) Result {
	c, refused := e.startOutput(o)
	if refused != nil {
		return *refused
	}
	return e.output(c, o)
}

// output makes the agent view of call c's output o, which the policy let
// through (startOutput), and hands it to finishOutput.
func (e *Engine) output(c riskCall, o Outcome) (res Result) {
	t := c.tool
	o.Call = c.id
	defer func() {
		res = e.finishOutput(c, o, res)
		res.Call = c.id
		// Asked of the set, not of the view: a view that failed may have
		// added to it.
		res.Scrubbing = e.session.isActive()
	}()
	defer func() {
		if r := recover(); r != nil {
			res = Result{Err: t.failure("the runtime could not process the output")}
		}
	}()
	// A call with values of its own to withhold (Scrub) takes the view's
	// road, as one that may repeat the session's would.
	active := e.session.isActive() || c.own != nil
	mayRepeat := func(data string, isJSON bool) bool { return c.own != nil || e.mayRepeat(data, isJSON) }
	// noMentions: mayHaveReference found that no decoding of the output
	// names secret_reference.
	noMentions := false
	switch o.Kind {
	case Empty:
		return Result{Agent: undefinedResult}
	case Threw, Unserializable:
		// Never the page's message: it may hold what the tool was
		// asked to keep.
		return Result{Err: &Error{Name: UnknownError, Message: toolFailed}}
	case Aborted:
		return Result{Err: &Error{Name: AbortError, Message: fmt.Sprintf("executeTool: the call of tool %q was aborted", t.name)}}
	case TimedOut:
		return Result{Err: t.failure("the tool did not finish in time")}
	case Text:
		if o.Data == "" {
			return Result{Agent: emptyResult}
		}
		// A string that is JSON text reaches the agent as the same bytes
		// as the value would, and DevTools and MCP clients parse it: it is
		// judged as that value wherever anything could apply to it (its
		// schema, a secret_reference, a reserved key, the session's
		// withheld values).
		if looksLikeJSON(o.Data) && (t.declaresAny || active || mayHaveReference(o.Data, 1) || mayHaveReserved(o.Data) || mayHaveMentionLines(o.Data)) {
			if len(o.Data) > e.opts.MaxOutputBytes {
				return Result{Err: t.failure(fmt.Sprintf("the output is larger than %d bytes", e.opts.MaxOutputBytes))}
			}
			if tr, err := parseReadable(o.Data); err == nil && tr.nodes[0].kind >= kArray && e.judgedAsValue(t, tr) {
				return e.view(t, tr, Outcome{Kind: Returned, Data: o.Data, Call: o.Call}, c.own, false)
			}
			// Otherwise it is judged as the string it is, whose text may
			// hold references as JSON (see walker.embedded).
		}
		if !t.declaresAny && !mayHaveReference(o.Data, 0) && (!active || !mayRepeat(o.Data, false)) {
			return Result{Agent: o.Data, Unchanged: true}
		}
	case Returned:
		if !t.declaresAny {
			// The test reads every string of the output, and what they
			// decode to: the view need not search them one by one again.
			noMentions = !mayHaveReference(o.Data, 1)
			if noMentions && !mayHaveReserved(o.Data) && !mayHaveMentionLines(o.Data) && (!active || !mayRepeat(o.Data, true) && !mayHaveContent(o.Data)) {
				return Result{Agent: o.Data, Unchanged: true}
			}
		}
	default:
		return Result{Err: t.failure("the runtime received an unknown outcome")}
	}
	if len(o.Data) > e.opts.MaxOutputBytes {
		return Result{Err: t.failure(fmt.Sprintf("the output is larger than %d bytes", e.opts.MaxOutputBytes))}
	}
	src := o.Data
	if o.Kind == Text {
		src = string(jsonx.AppendString(nil, o.Data))
	}
	tr, err := parseTree(src)
	if err != nil {
		return Result{Err: t.failure("the output is not valid JSON")}
	}
	r := e.view(t, tr, o, c.own, noMentions)
	if o.Kind == Returned {
		r.parsed = tr
	}
	return r
}

// judgedAsValue reports whether a string result that parsed as tr is
// judged as that value rather than as the string: always, but for a tool
// whose outputSchema takes the string and not the value (a schema of
// "type": "string" for a tool that returns JSON text on purpose).
func (e *Engine) judgedAsValue(t *tool, tr *tree) bool {
	if t.output == nil || !t.declaresAny {
		return true
	}
	if tr.nodes[0].kind == kObject {
		if c := tr.member(0, "content"); c >= 0 && tr.nodes[c].kind == kArray {
			return true // a CallToolResult, whose structuredContent the schema describes
		}
	}
	e.patternWork.Store(pattern.MaxBacktrackingWork)
	if t.output.Conforms(tr, 0) {
		return true
	}
	str := string(jsonx.AppendString(nil, tr.src))
	st, err := parseTree(str)
	return err != nil || !t.output.Conforms(st, 0)
}

// failure is the error of a failed call. For a tool that declares anything
// sensitive it says nothing of the output.
func (t *tool) failure(why string) *Error {
	if t.declaresAny {
		return &Error{Name: OperationError, Message: fmt.Sprintf("tool %q failed; its output was withheld because it may be sensitive", t.name)}
	}
	return &Error{Name: OperationError, Message: fmt.Sprintf("tool %q failed: %s", t.name, why)}
}

// mayHaveReference is a sound test for a secret_reference, or a mention
// of one that rule (c) must look at: s, or a decoding of it, names
// secret_reference. A JSON text needs one decoding more than its strings
// (extraDepth 1).
func mayHaveReference(s string, extraDepth int) bool {
	if !mayMention(s) {
		return false
	}
	spans, ok := mentions(s, extraDepth)
	return !ok || len(spans) > 0
}
