package risk

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roundTrip is s as the page keeps it: the JSON the engine reported.
func roundTrip(t *testing.T, s State) State {
	t.Helper()
	b, err := json.Marshal(s.Clone())
	require.NoError(t, err)
	var out State
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// TestResumeKeepsWhatWasSeen: a state built by a random run of results,
// written out as the page keeps it and resumed, is the same state, and the
// resumed session goes on as the original would.
func TestResumeKeepsWhatWasSeen(t *testing.T) {
	p, err := NewPolicy(nil)
	require.NoError(t, err)
	annotations := []string{
		`{}`,
		`{"untrustedContentHint":true}`,
		`{"openWorldHint":true,"attribution":["https://a.example/"]}`,
		`{"returnMetadata":{"source":"internal","sensitivity":["pii","financial"]}}`,
		`{"returnMetadata":{"source":"untrustedPublic","sensitivity":"user"}}`,
		`{"attribution":["mail://inbox","mcp://drafts"]}`,
	}
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 1))
		var s State
		var steps []string
		for i := range r.IntN(12) {
			a := mustParse(t, annotations[r.IntN(len(annotations))])
			res := ResultAnnotations{OpenWorld: r.IntN(5) == 0, MaliciousActivity: r.IntN(9) == 0}
			for range r.IntN(3) {
				res.Attribution = append(res.Attribution, fmt.Sprintf("src-%d", r.IntN(40)))
			}
			tool := fmt.Sprintf("tool_%d", r.IntN(5))
			s.Observe(p, tool, a, res)
			steps = append(steps, fmt.Sprint(i, tool, res))
		}
		got := Resume(roundTrip(t, s))
		require.Equal(t, s.Clone(), got.Clone(), "seed %d: %v", seed, steps)

		// The two go on alike.
		next := ResultAnnotations{Attribution: []string{"src-next"}, MaliciousActivity: true}
		s.Observe(p, "after", &Annotations{}, next)
		got.Observe(p, "after", &Annotations{}, next)
		require.Equal(t, s.Clone(), got.Clone(), "seed %d, after one more result", seed)
	}
}

// TestResumeFailsClosed: a state kept outside the engine is held to the
// session's bounds, a list that names a tool taints even if its flag was
// lost, and a resumed state is never fresher than the one it came from.
func TestResumeFailsClosed(t *testing.T) {
	var many []string
	for i := range MaxAttribution + 10 {
		many = append(many, fmt.Sprint("src-", i))
	}
	tests := []struct {
		name  string
		prev  State
		check func(t *testing.T, s State)
	}{
		{"fresh stays fresh", State{}, func(t *testing.T, s State) {
			assert.Equal(t, State{}.Clone(), s.Clone())
		}},
		{"untrusted from a tool, flag lost", State{UntrustedFrom: []string{"web"}}, func(t *testing.T, s State) {
			assert.True(t, s.UntrustedContent)
			assert.Equal(t, 1, s.Version, "a tainted state is never version 0")
		}},
		{"malicious from a tool, flag lost", State{MaliciousFrom: []string{"web"}, Version: 7}, func(t *testing.T, s State) {
			assert.True(t, s.MaliciousActivity)
			assert.Equal(t, 7, s.Version)
		}},
		{"attribution past its bound is counted", State{Attribution: many, AttributionDropped: 2}, func(t *testing.T, s State) {
			assert.Len(t, s.Attribution, MaxAttribution)
			assert.Equal(t, 12, s.AttributionDropped)
		}},
		{"a huge source is not kept", State{Attribution: []string{strings.Repeat("x", MaxSourceBytes+1), "kept"}}, func(t *testing.T, s State) {
			assert.Equal(t, []string{"kept"}, s.Attribution)
			assert.Equal(t, 1, s.AttributionDropped)
		}},
		{"a negative count is not carried", State{AttributionDropped: -5, Version: -3}, func(t *testing.T, s State) {
			assert.Zero(t, s.AttributionDropped)
			assert.Zero(t, s.Version)
		}},
		{"duplicates are kept once", State{PrivateData: []string{"pii", "pii"}, Attribution: []string{"a", "a"}}, func(t *testing.T, s State) {
			assert.Equal(t, []string{"pii"}, s.PrivateData)
			assert.Equal(t, []string{"a"}, s.Attribution)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, Resume(tt.prev)) })
	}
}
