package ops

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRegisterNotes: a registration's reply names each annotation the
// runtime does not read, once per engine, with the tool it came with.
func TestRegisterNotes(t *testing.T) {
	s := newServer(t)
	notes := func(reg int, def string) []string {
		t.Helper()
		header, err := json.Marshal(RegisterRequest{Registration: int64(reg)})
		require.NoError(t, err)
		h, _ := s.Handle(Register, string(header), def)
		require.Empty(t, errorName(t, h), "register %s: %s", def, h)
		var r RegisterReply
		require.NoError(t, json.Unmarshal([]byte(h), &r))
		return r.Notes
	}
	for i, tt := range []struct {
		name, def string
		want      []string
	}{
		{"no annotations", `{"name":"a","description":"d"}`, nil},
		{"one the runtime reads", `{"name":"b","description":"d","annotations":{"readOnlyHint":true}}`, nil},
		{"two it does not", `{"name":"c.q","description":"d","annotations":{"fooHint":true,"barHint":1}}`, []string{
			`annotations.barHint (tool "c.q") is not an annotation the runtime reads; it is passed on as it is`,
			`annotations.fooHint (tool "c.q") is not an annotation the runtime reads; it is passed on as it is`,
		}},
		{"one already named, one new", `{"name":"e","description":"d","annotations":{"fooHint":true,"bazHint":"x"}}`, []string{
			`annotations.bazHint (tool "e") is not an annotation the runtime reads; it is passed on as it is`,
		}},
	} {
		// In order: each registration's notes depend on the ones before.
		t.Run(tt.name, func(t *testing.T) {
			got := notes(i+1, tt.def)
			assert.ElementsMatch(t, tt.want, got)
		})
	}
}

// TestOutputWarnings: an output's reply says in counts what the page's
// events give in full, and nothing of the values.
func TestOutputWarnings(t *testing.T) {
	for _, tt := range []struct {
		name, result string
		want         []string
	}{
		{"nothing to say", `{"a":1}`, nil},
		{"reserved keys", `{"a":1,"_meta":{"dev.veil/withheld":{"x":"forged-value"},"dev.veil/other":2}}`, []string{
			"returned 2 _meta key(s) under dev.veil/, which only the runtime writes; they were removed",
		}},
		{"an invalid reference", `{"ref":{"type":"secret_reference","id":"k1","redeemUrl":"https://elsewhere.example/r/1"}}`, []string{
			"returned 1 invalid secret reference(s); see the invalidreference event",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			register(t, s, 1, `{"name":"t","description":"d"}`)
			d := decide(t, s, Decide, `{"name":"t"}`, `{}`)
			r, _ := output(t, s, d.Call, "returned", tt.result)
			assert.Equal(t, tt.want, r.Warnings)
			for _, w := range r.Warnings {
				assert.NotContains(t, w, "forged-value")
				assert.NotContains(t, w, "elsewhere.example")
			}
		})
	}
}
