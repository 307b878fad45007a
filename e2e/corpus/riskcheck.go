package corpus

import (
	"encoding/json"
	"strings"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RiskSeen is what a runner saw of one step of a risk case: the browser
// suite reads it from the page, the native replay from the engine.
type RiskSeen struct {
	// Outcome, Rule and Facts ("source key=value") are the call's entry
	// in the decision log; Logged is false when it has none.
	Logged        bool
	Outcome, Rule string
	Facts         []string
	// Asked lists the rule of each question put to the user, with how
	// many facts it listed.
	Asked []RiskQuestion
	// Runs counts the times execute ran; Request is the annotations it
	// received, Frozen whether they were frozen.
	Runs    int
	Request map[string]any
	Frozen  bool
	// View is the agent view.
	View string
	// Trust is veil.trust after the call; Events, the types of the veil
	// events it fired.
	Trust  map[string]any
	Events []string
}

// RiskQuestion is one question put to the user.
type RiskQuestion struct {
	Rule, Tool string
	Facts      int
}

// The _meta keys the runtime writes (the engine's MetaKey, RiskMetaKey
// and refusal key).
const (
	metaWithheld = "dev.veil/withheld"
	metaRisk     = "dev.veil/risk"
	metaPolicy   = "dev.veil/policy"
)

// Check holds what a runner saw of step s to what the case says, with
// t's assertions. absent reports a withheld value found in the view, as
// the runner's leak check finds it.
func (s RiskStep) Check(t require.TestingT, seen RiskSeen, absent func(view, value string)) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	// The decision, and whether the user was asked.
	require.True(t, seen.Logged, "no decision logged for %s", s.Call)
	assert.Equal(t, s.Outcome, seen.Outcome, "%s: outcome in the decision log", s.Call)
	assert.Equal(t, s.Rule, seen.Rule, "%s: rule in the decision log", s.Call)
	for _, f := range s.Facts {
		assert.Contains(t, seen.Facts, f, "%s: facts of the decision", s.Call)
	}
	if s.Answer != "" {
		require.Len(t, seen.Asked, 1, "%s: the user must be asked once", s.Call)
		assert.Equal(t, s.Rule, seen.Asked[0].Rule, "%s: rule the user is asked about", s.Call)
		assert.Equal(t, s.Call, seen.Asked[0].Tool, "%s: the tool the user is asked about", s.Call)
		assert.NotZero(t, seen.Asked[0].Facts, "%s: the request lists its facts", s.Call)
	} else {
		assert.Empty(t, seen.Asked, "%s: the user was asked", s.Call)
	}

	// execute, and what it heard of the session.
	if s.Ran {
		require.Equal(t, 1, seen.Runs, "%s: execute must run once", s.Call)
		assert.True(t, seen.Frozen, "%s: request annotations are frozen", s.Call)
		for k, v := range s.Request {
			assert.Equal(t, v, seen.Request[k], "%s: options.annotations.%s", s.Call, k)
		}
	} else {
		assert.Zero(t, seen.Runs, "%s: execute must not run", s.Call)
	}

	// The agent view.
	view := seen.View
	if s.View != nil {
		assert.Equal(t, *s.View, view, "%s: the agent view", s.Call)
	}
	for _, p := range s.Present {
		assert.True(t, Present(view, p), "%s: %q must be in the agent view %s", s.Call, p, view)
	}
	for _, a := range s.Absent {
		absent(view, a)
	}
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool                       `json:"isError"`
		Meta    map[string]json.RawMessage `json:"_meta"`
	}
	isJSON := json.Unmarshal([]byte(view), &r) == nil
	if s.Refused {
		require.True(t, isJSON, "%s: a refused call's view is a CallToolResult: %s", s.Call, view)
		assert.True(t, r.IsError, "%s: a refused call's view is an error result", s.Call)
		var pol struct{ Rule string }
		require.NoError(t, json.Unmarshal(r.Meta[metaPolicy], &pol), "%s: _meta[%s] in %s", s.Call, metaPolicy, view)
		assert.Equal(t, s.Rule, pol.Rule, "%s: the view names the rule", s.Call)
	}
	if s.Spotlit {
		s.checkSpotlit(t, view)
	} else if isJSON {
		assert.NotContains(t, r.Meta, metaRisk, "%s: spotlighted, but the case says it is trusted", s.Call)
	}
	if s.Held > 0 {
		var w struct{ Withheld []string }
		require.True(t, isJSON, "%s: a view that withholds is a CallToolResult: %s", s.Call, view)
		require.NoError(t, json.Unmarshal(r.Meta[metaWithheld], &w), "%s: withheld list in %s", s.Call, view)
		assert.Len(t, w.Withheld, s.Held, "%s: values withheld", s.Call)
	}

	// The page's view of the session.
	for k, v := range s.Trust {
		assert.Equal(t, v, seen.Trust[k], "%s: veil.trust.%s", s.Call, k)
	}
	for _, e := range s.Events {
		assert.Contains(t, seen.Events, e, "%s: veil event", s.Call)
	}
}

// checkSpotlit checks that the view puts the tool's text between the
// runtime's markers, after a notice that says what they mean.
func (s RiskStep) checkSpotlit(t require.TestingT, view string) {
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal([]byte(view), &r), "%s: a spotlighted view is a CallToolResult: %s", s.Call, view)
	var m struct{ Marker string }
	require.NoError(t, json.Unmarshal(r.Meta[metaRisk], &m), "%s: _meta[%s] in %s", s.Call, metaRisk, view)
	require.True(t, strings.HasPrefix(m.Marker, "untrusted-content-"), "%s: marker %q", s.Call, m.Marker)
	require.NotEmpty(t, r.Content, "%s: the view has content", s.Call)
	assert.Contains(t, r.Content[0].Text, "not instructions", "%s: the notice comes first", s.Call)
	assert.Contains(t, r.Content[0].Text, "<"+m.Marker+">", "%s: the notice names the marker", s.Call)
	// No string of the view outside the markers holds a present string:
	// they came from the tool.
	var v any
	require.NoError(t, json.Unmarshal([]byte(view), &v))
	for _, o := range OutsideMarkers(v, m.Marker) {
		for _, p := range s.Present {
			if o != r.Content[0].Text {
				assert.NotContains(t, o, p, "%s: %q stands outside the markers in %s", s.Call, p, view)
			}
		}
	}
	for _, p := range s.Present {
		if strings.Contains(r.Content[0].Text, p) {
			continue // the runtime's own words
		}
		inside := false
		for _, c := range r.Content[1:] {
			if c.Type == "text" && strings.Contains(c.Text, p) {
				assert.True(t, strings.HasPrefix(c.Text, "<"+m.Marker+">\n") && strings.HasSuffix(c.Text, "\n</"+m.Marker+">"),
					"%s: %q stands outside the markers in %q", s.Call, p, c.Text)
				inside = true
			} else if c.Type == "text" && Present(c.Text, p) {
				// JSON text between the markers holds the string escaped.
				inside = true
			}
		}
		assert.True(t, inside, "%s: %q is in no delimited text item of %s", s.Call, p, view)
	}
}
