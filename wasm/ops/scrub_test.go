package ops

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/engine"
)

// TestScrubOp: the values a Scrub op carries are taken from the output
// of the tool's open call, long and short alike; a malformed request is
// a TypeError, and short values with no open call to take them from fail
// the op, which the page answers by withholding the output whole.
func TestScrubOp(t *testing.T) {
	const password, code = "Tr0ub4dor&3-horse", "417"
	s := newServer(t)
	register(t, s, 1, `{"name":"sign_in","description":"d"}`)

	tests := []struct {
		name, header, body string
		open               bool
		err                string
	}{
		{"the values", `{"tool":"sign_in"}`, `["` + password + `","` + code + `",""]`, true, ""},
		{"no values", `{"tool":"sign_in"}`, `[]`, false, ""},
		{"an unknown member", `{"tool":"sign_in","call":"x"}`, `[]`, true, engine.TypeError},
		{"no tool", `{}`, `["` + password + `"]`, true, engine.TypeError},
		{"a body that is not an array of strings", `{"tool":"sign_in"}`, `["a",1]`, true, engine.TypeError},
		{"an empty body", `{"tool":"sign_in"}`, ``, true, engine.TypeError},
		{"a short value and no open call", `{"tool":"sign_in"}`, `["` + code + `"]`, false, engine.InvalidStateError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var call string
			if tt.open {
				call = decide(t, s, Decide, `{"name":"sign_in"}`, `{}`).Call
			}
			h, b := s.Handle(Scrub, tt.header, tt.body)
			assert.Empty(t, b)
			if tt.err != "" {
				e := errorOf(t, h)
				require.NotNil(t, e, "reply %s", h)
				assert.Equal(t, tt.err, e.Name)
				assert.NotContains(t, e.Message, password, "the error quotes a value")
			} else {
				assert.JSONEq(t, okReply, h)
			}
			if call == "" {
				return
			}
			r, view := output(t, s, call, "returned", `{"user":"ada","password":"`+password+`","cvc":"`+code+`"}`)
			require.Nil(t, r.Error)
			if tt.err == "" {
				assert.False(t, r.Same, "the answer is scrubbed")
				assert.NotContains(t, view, password)
				assert.NotContains(t, view, code)
				assert.Contains(t, view, "ada")
				assert.True(t, r.Scrubbing, "a lost engine's successor must know")
			}
		})
	}
	// The password stays withheld from every later output of the session.
	register(t, s, 2, `{"name":"list_log","description":"d"}`)
	d := decide(t, s, Decide, `{"name":"list_log"}`, `{}`)
	_, view := output(t, s, d.Call, "text", "login ada "+strings.ToUpper(password))
	assert.NotContains(t, strings.ToUpper(view), strings.ToUpper(password))
}
