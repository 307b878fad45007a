package engine

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/corpus"
	"github.com/veilmcp/veil/wasm/leakcheck"
	"github.com/veilmcp/veil/wasm/risk"
)

// update rewrites the view files of the corpus from the engine's answers;
// the browser suite (e2e) checks them too.
var update = flag.Bool("update", false, "rewrite the view expectations of the corpus (e2e/testdata/cases) from the engine's answers")

// corpusDir is the corpus the browser suite replays too.
const corpusDir = "../../e2e/testdata/cases"

// The browser suite's conformance page is on 127.0.0.1, at a port its
// server picks when it starts, and its base URL is the page's. No case
// that runs here depends on the port: a case that writes the page's own
// origin into a redeemUrl builds it from location, and needs the browser.
const (
	corpusOrigin  = "http://127.0.0.1:8000"
	corpusBaseURL = corpusOrigin + "/conformance.html?mode=worker"
)

// TestCorpus replays every case of the corpus that does not need a
// browser against the engine, as the page runs a call: the input checked
// and the call decided (Decide), execute's result classified as the
// page's classify does, then Output. It checks what the browser suite
// checks of the view (absent, present, the error, the withheld pointers,
// pass-through, the exact view), and what only the engine shows: that
// what the view says was withheld is what is held for the user's reveal.
//
// A case's earlier calls are made first, in order, on the same engine,
// and each of their views is checked against the case's absent strings.
func TestCorpus(t *testing.T) {
	replayCorpus(t, func() *Engine { return New(&Options{Origin: corpusOrigin, BaseURL: corpusBaseURL}) })
}

// TestCorpusOneSession replays the corpus as the browser suite does: every
// case on one engine, one after the other, so that the session's scrub
// set carries each case's withheld values into every later case. Every
// view must still be the one the case expects: what the session removes
// from later outputs is what was withheld, not the words and labels
// around it.
func TestCorpusOneSession(t *testing.T) {
	e := New(&Options{Origin: corpusOrigin, BaseURL: corpusBaseURL})
	replayCorpus(t, func() *Engine { return e })
}

// replayCorpus runs every case that needs no browser on the engine that
// engine gives.
func replayCorpus(t *testing.T, engine func() *Engine) {
	cases, err := corpus.Load(corpusDir)
	require.NoError(t, err)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.Browser != "" {
				t.Skip("needs the browser: " + c.Browser)
			}
			e := engine()
			for _, call := range c.Earlier {
				_, err := e.Register(call.Definition())
				require.NoError(t, err, "Register(%s)", call.Definition())
			}
			_, err := e.Register(c.Definition())
			require.NoError(t, err, "Register(%s)", c.Definition())
			for i, call := range c.Earlier {
				res := runCall(t, e, call.Name, call.Input, jsonOutcome(t, &call.Returns))
				seen := res.Agent
				if res.Err != nil {
					seen = res.Err.Name + ": " + res.Err.Message
				}
				assertAbsent(t, c, seen, fmt.Sprintf("earlier call %d (%s)", i, call.Name))
				require.Nil(t, res.Err, "earlier call %d (%s) failed: %+v", i, call.Name, res.Err)
			}
			res := runCase(t, e, c)
			checkCase(t, e, c, res)
		})
	}
}

// runCase makes the case's call as the page does.
func runCase(t *testing.T, e *Engine, c *corpus.Case) Result {
	return runCall(t, e, c.Name, c.Input, caseOutcome(t, c))
}

// runCall calls the named tool with the input as the page does, its
// execute giving the outcome.
func runCall(t *testing.T, e *Engine, name, input string, o Outcome) Result {
	d, err := e.Decide(name, input, Resolution{})
	if err != nil {
		var ee *Error
		require.True(t, errors.As(err, &ee), "Decide(%s) failed with %T: %v", input, err, err)
		return Result{Err: ee}
	}
	require.Contains(t, []risk.Outcome{risk.Allow, risk.Notice}, d.Outcome, "Decide(%s): the call must run", input)
	o.Call = d.Call
	return e.OutputOf(name, o)
}

// caseOutcome is what the page's classify reports for what the case's
// execute returns (jsonOutcome).
func caseOutcome(t *testing.T, c *corpus.Case) Outcome {
	return jsonOutcome(t, c.Returns)
}

// jsonOutcome is what the page's classify reports for what an execute
// returns, given as the JSON text of a corpus file: a string as text,
// undefined (nil) as empty, anything else as its JSON.stringify text,
// which a corpus file already is.
func jsonOutcome(t *testing.T, returns *string) Outcome {
	if returns == nil {
		return Outcome{Kind: Empty}
	}
	if strings.HasPrefix(*returns, `"`) {
		var s string
		require.NoError(t, json.Unmarshal([]byte(*returns), &s))
		return Outcome{Kind: Text, Data: s}
	}
	return Outcome{Kind: Returned, Data: *returns}
}

// chromiumAnswer is what Chromium's own executeTool resolves with for
// the case's result: a string as it is ("" is "Operation succeeded"),
// undefined as "undefined", anything else as its JSON.stringify text.
func chromiumAnswer(o Outcome) string {
	switch {
	case o.Kind == Empty:
		return "undefined"
	case o.Kind == Text && o.Data == "":
		return "Operation succeeded"
	}
	return o.Data
}

// assertAbsent checks that none of the case's absent strings is in what
// an agent got, in any form a reader decodes; what names it.
func assertAbsent(t *testing.T, c *corpus.Case, seen, what string) {
	t.Helper()
	for _, s := range c.Absent {
		if where, found := leakcheck.Find(seen, s); found {
			assert.Fail(t, "a withheld value reached the agent", "%q found in %s of %s: %q", s, where, what, seen)
		}
	}
}

func checkCase(t *testing.T, e *Engine, c *corpus.Case, res Result) {
	seen := res.Agent
	if res.Err != nil {
		seen = res.Err.Name + ": " + res.Err.Message
	}
	assertAbsent(t, c, seen, "the case's call")

	if c.Error != "" {
		require.NotNil(t, res.Err, "got the view %q, want the call to fail with %s", res.Agent, c.Error)
		assert.Equal(t, c.Error, res.Err.Name, "the error's name (%s)", res.Err.Message)
		assert.Empty(t, res.Agent, "the view of a failed call")
		return
	}
	require.Nil(t, res.Err, "the call failed: %+v", res.Err)

	for _, s := range c.Present {
		assert.True(t, corpus.Present(res.Agent, s), "%q is not in the view %q", s, res.Agent)
	}
	if c.Passthrough {
		assert.Equal(t, chromiumAnswer(caseOutcome(t, c)), res.Agent, "the view of a pass-through case, as Chromium gives it")
	}
	meta := checkHeld(t, e, res)
	if c.Withheld != nil {
		require.NotNil(t, meta, "the view is a CallToolResult that lists what was withheld: %s", res.Agent)
		assert.Equal(t, c.Withheld, meta.Withheld, "the withheld pointers")
	}

	switch {
	case *update:
		if c.View == nil || *c.View != res.Agent {
			c.Set("view", res.Agent+"\n")
			require.NoError(t, c.Write())
			t.Logf("updated %s", c.File)
		}
	case c.View != nil:
		assert.Equal(t, *c.View, res.Agent, "the view (run with -update to accept a change)")
	}
}

// checkHeld checks a view against what the engine holds for the user. A
// view that is a notice says what was withheld (rule f): its first
// content item is the notice, _meta lists the pointers and counts the
// references, and each of them is an item the user can reveal. It returns
// the view's _meta entry, or nil for a view without one, which holds
// nothing.
func checkHeld(t *testing.T, e *Engine, res Result) *viewMeta {
	items := heldItems(e, res)
	assert.Len(t, items, res.Held, "the held count")
	var view struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	raw, ok := json.RawMessage(nil), false
	if json.Unmarshal([]byte(res.Agent), &view) == nil {
		raw, ok = view.Meta[MetaKey]
	}
	if !ok {
		assert.Empty(t, items, "items held for a view that lists none")
		assert.Empty(t, res.Invalid, "invalid references of a view that lists none")
		return nil
	}
	var m viewMeta
	require.NoError(t, json.Unmarshal(raw, &m), "_meta[%q]", MetaKey)
	if m.Withheld == nil {
		m.Withheld = []string{}
	}

	require.NotEmpty(t, view.Content, "the view has no content")
	assert.Equal(t, "text", view.Content[0].Type, "the first content item is the notice")
	notice := view.Content[0].Text
	if len(m.Withheld) > 0 {
		assert.Contains(t, notice, "withheld", "the notice says values were withheld")
		assert.Contains(t, notice, "reveal", "the notice says the user can reveal them")
	}
	lower := strings.ToLower(res.Agent)
	for _, placeholder := range []string{"[hidden]", "[redacted]", "***"} {
		assert.NotContains(t, lower, placeholder, "a placeholder a model may take for the value")
	}

	assert.Len(t, res.Invalid, m.Invalid, "the page hears of each invalid reference")
	assert.Len(t, items, len(m.Withheld)+m.References, "held items: a value per withheld pointer, and the references")
	for _, it := range items {
		got, err := e.Reveal(it.Handle)
		require.NoError(t, err, "Reveal of item %s", it.Pointer)
		assert.Equal(t, it.Kind, got.Kind, "the kind Reveal gives for %s", it.Pointer)
		if it.Kind == "reference" {
			assert.True(t, strings.HasPrefix(got.RedeemURL, corpusOrigin+"/"), "got the redeem URL %q, want it absolute and on %s", got.RedeemURL, corpusOrigin)
		}
	}
	return &m
}
