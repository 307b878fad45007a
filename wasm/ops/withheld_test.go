package ops

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/engine"
)

// TestWithheldOp: once a tool's output withheld a card number, the
// Withheld op says which strings of a tool list hold it (an option's
// value and its label) and which do not (a country, a date), in the
// order sent; a malformed request is a TypeError, and an engine that
// lost its set answers an error rather than "none".
func TestWithheldOp(t *testing.T) {
	const card = "4111111111111111"
	s := newServer(t)
	register(t, s, 1, `{"name":"saved_cards","description":"d","outputSchema":{"type":"object","properties":{"number":{"type":"string","x-sensitive":true}}}}`)
	body := `["` + card + `","Visa 4111 1111 1111 1111","Portugal","2026-03-14"]`

	h, b := s.Handle(Withheld, "", body)
	assert.Empty(t, b)
	assert.JSONEq(t, `{"withheld":[false,false,false,false]}`, h, "before anything was withheld")

	d := decide(t, s, Decide, `{"name":"saved_cards"}`, `{}`)
	r, view := output(t, s, d.Call, "returned", `{"number":"`+card+`"}`)
	require.Nil(t, r.Error)
	require.NotContains(t, view, card)

	h, b = s.Handle(Withheld, "", body)
	assert.Empty(t, b)
	var got WithheldReply
	require.NoError(t, json.Unmarshal([]byte(h), &got), "reply %s", h)
	assert.Equal(t, []bool{true, true, false, false}, got.Withheld)

	h, _ = s.Handle(Withheld, "", `[]`)
	assert.JSONEq(t, `{"withheld":[]}`, h, "no strings")

	for _, tt := range []struct{ name, header, body, err string }{
		{"a body that is not an array of strings", "", `["a",1]`, engine.TypeError},
		{"an empty body", "", ``, engine.TypeError},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, b := s.Handle(Withheld, tt.header, tt.body)
			assert.Empty(t, b)
			e := errorOf(t, h)
			require.NotNil(t, e, "reply %s", h)
			assert.Equal(t, tt.err, e.Name)
		})
	}

	t.Run("an engine whose set was lost", func(t *testing.T) {
		lost := NewServer(testHost())
		h, _ := lost.Handle(Init, `{"origin":"https://shop.example","baseURL":"https://shop.example/","scrubLost":true}`, "")
		require.Empty(t, errorName(t, h), h)
		h, b := lost.Handle(Withheld, "", `["Portugal"]`)
		assert.Empty(t, b)
		e := errorOf(t, h)
		require.NotNil(t, e, "reply %s", h)
		assert.Equal(t, engine.InvalidStateError, e.Name)
	})
}
