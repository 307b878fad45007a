package engine_test

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/corpus"
	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/leakcheck"
	"github.com/veilmcp/veil/wasm/risk"
)

// riskCorpusDir holds the risk cases the browser suite replays through
// every agent path (e2e/risk_test.go).
const riskCorpusDir = "../../e2e/testdata/risk"

// TestRiskCorpus replays the risk cases against the engine, in-process,
// as the page runs a call: Decide, the user's answer (Settle) when the
// runtime asks, execute's result classified as the page's classify does,
// then Output; every step of a case on one engine, as the browser suite
// runs them on one page. It checks what the browser suite checks that the
// engine decides: the decision log, whether the user is asked and
// execute runs, the request annotations, the agent view, the trust state
// and the events the page fires from the engine's answers. A case whose
// tools are more than literals (resolve, or a returns that is a
// function) needs a JavaScript engine to run them, so it runs only in the
// browser.
func TestRiskCorpus(t *testing.T) {
	cases, err := corpus.LoadRisk(riskCorpusDir)
	require.NoError(t, err)
	native := 0
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			tools, err := c.LiteralTools()
			if se := (*corpus.ScriptError)(nil); errors.As(err, &se) {
				t.Skip("needs the browser: the tools file's " + se.Error())
			}
			require.NoError(t, err, "the tools file")
			native++
			r := newRiskReplay(t, tools)
			for i, s := range c.Steps {
				t.Run(fmt.Sprintf("%d-%s", i+1, s.Call), func(t *testing.T) { r.step(t, s) })
			}
		})
	}
	assert.NotZero(t, native, "no risk case ran natively")
}

// riskReplay is one page's engine and what the page has seen of it.
type riskReplay struct {
	e     *engine.Engine
	tools map[string]corpus.RiskTool
	// version is the trust state's version the page holds: a newer one
	// fires trustchange.
	version int
}

func newRiskReplay(t *testing.T, tools []corpus.RiskTool) *riskReplay {
	r := &riskReplay{e: engine.New(&engine.Options{Rand: rand.Reader}), tools: map[string]corpus.RiskTool{}}
	for _, tool := range tools {
		_, err := r.e.Register(tool.Definition)
		require.NoError(t, err, "Register(%s)", tool.Definition)
		r.tools[tool.Name] = tool
	}
	r.version = r.e.Trust().Version
	return r
}

// setTrust is the page's setTrust: a newer state fires trustchange.
func (r *riskReplay) setTrust(s *risk.State, events *[]string) {
	if s != nil && s.Version > r.version {
		r.version = s.Version
		*events = append(*events, "trustchange")
	}
}

// outcome is what the page's classify reports for what the tool's
// execute returns: a string as text, undefined as empty, anything else as
// its JSON.stringify text.
func (r *riskReplay) outcome(t *testing.T, name string) engine.Outcome {
	tool, ok := r.tools[name]
	require.True(t, ok, "the case calls %q, which it does not define", name)
	switch {
	case tool.Returns == nil:
		return engine.Outcome{Kind: engine.Empty}
	case strings.HasPrefix(*tool.Returns, `"`):
		var s string
		require.NoError(t, json.Unmarshal([]byte(*tool.Returns), &s))
		return engine.Outcome{Kind: engine.Text, Data: s}
	}
	return engine.Outcome{Kind: engine.Returned, Data: *tool.Returns}
}

func (r *riskReplay) step(t *testing.T, s corpus.RiskStep) {
	e := r.e
	input, err := corpus.Canonical(string(s.Input))
	require.NoError(t, err, "%s: the input", s.Call)

	var events []string
	d, err := e.Decide(s.Call, input, engine.Resolution{})
	require.NoError(t, err, "%s: Decide", s.Call)
	require.NotEqual(t, engine.Resolving, d.Outcome, "%s: a tool without resolve is decided at once", s.Call)
	events = append(events, "decision")
	r.setTrust(d.Trust, &events)

	asked, ran := false, false
	var view string
	var res engine.Result
	switch d.Outcome {
	case risk.Block:
		view = d.Refusal
	case risk.Confirm:
		asked = true
		approved := s.Answer == "approve"
		_, err := e.Settle(d.Call, approved)
		require.NoError(t, err, "%s: Settle", s.Call)
		events = append(events, "decision")
		if !approved {
			res = e.Output(engine.Outcome{Kind: engine.Refused, Call: d.Call})
			require.Nil(t, res.Err, "%s: the refused call's output", s.Call)
			view = res.Agent
			break
		}
		fallthrough
	default:
		ran = true
		o := r.outcome(t, s.Call)
		o.Call = d.Call
		res = e.Output(o)
		require.Nil(t, res.Err, "%s: the call failed: %+v", s.Call, res.Err)
		view = res.Agent
		r.setTrust(res.Trust, &events)
		if res.Malicious {
			events = append(events, "malicious")
		}
	}

	seen := corpus.RiskSeen{View: view, Trust: jsonMap(t, e.Trust()), Events: events}
	log := e.Decisions()
	for j := len(log) - 1; j >= 0; j-- {
		if l := log[j]; l.Tool == s.Call {
			seen.Logged, seen.Outcome, seen.Rule = true, string(l.Outcome), l.Rule
			for _, f := range l.Facts {
				seen.Facts = append(seen.Facts, f.Source+" "+f.Key+"="+f.Value)
			}
			break
		}
	}
	if asked {
		seen.Asked = []corpus.RiskQuestion{{Rule: d.Rule, Tool: s.Call, Facts: len(d.Facts)}}
	}
	if ran {
		// The engine hands the page its annotations, which the page freezes.
		seen.Runs, seen.Request, seen.Frozen = 1, jsonMap(t, d.Request), true
	}
	s.Check(t, seen, func(view, value string) {
		if where, found := leakcheck.Find(view, value); found {
			assert.Fail(t, "a withheld value reached the agent", "%s: %q found in %s of %q", s.Call, value, where, view)
		}
	})
	if s.Held > 0 {
		assert.Equal(t, s.Held, res.Held, "%s: values held for the user", s.Call)
	}
}

// jsonMap is v as JSON.parse of its JSON text makes it: what the page reads.
func jsonMap(t *testing.T, v any) map[string]any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}
