package engine

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWithheldListsWhatTheSessionHolds: once an output withheld a card
// number, the strings a tool list would carry that hold it (an option's
// value, its label with the number grouped, its base64) are reported,
// and ordinary options (a country, a date, a word of the withholding
// output's neighbours) are not; before anything is withheld, nothing is.
func TestWithheldListsWhatTheSessionHolds(t *testing.T) {
	const card = "4111111111111111"
	const cardsDef = `{"name":"saved_cards","description":"d","outputSchema":{"type":"object","properties":{"brand":{"type":"string"},"number":{"type":"string","x-sensitive":true}}}}`
	tests := []struct {
		value string
		want  bool
	}{
		{card, true},
		{"Visa 4111 1111 1111 1111", true},
		{"4111-1111-1111-1111", true},
		{base64.StdEncoding.EncodeToString([]byte(card)), true},
		{"Visa", false},
		{"Portugal", false},
		{"2026-03-14", false},
		{"Visa ending 1111", false},
		{"", false},
	}
	values := make([]string, len(tests))
	for i, tt := range tests {
		values[i] = tt.value
	}

	e := newTestEngine(t)
	mustRegister(t, e, cardsDef)
	got, err := e.Withheld(values)
	require.NoError(t, err)
	assert.Equal(t, make([]bool, len(values)), got, "Withheld before anything was withheld")

	res := e.OutputOf("saved_cards", Outcome{Kind: Returned, Data: `{"brand":"Visa","number":"` + card + `"}`})
	require.Nil(t, res.Err)
	require.Equal(t, 1, res.Held)
	got, err = e.Withheld(values)
	require.NoError(t, err)
	for i, tt := range tests {
		assert.Equal(t, tt.want, got[i], "Withheld(%q)", tt.value)
	}
}

// TestWithheldFailsClosed: an engine that cannot say what its session
// withheld (its set full, or lost with an earlier engine) answers an
// error, never "holds none"; so do values larger than an output may be.
// No error quotes a value.
func TestWithheldFailsClosed(t *testing.T) {
	const value = "Portugal"
	tests := []struct {
		name   string
		opts   Options
		values []string
		err    string
	}{
		{"a set lost with an earlier engine", Options{Origin: testOrigin, ScrubLost: true}, []string{value}, InvalidStateError},
		{"values past the output bound", Options{Origin: testOrigin, MaxOutputBytes: 16}, []string{value, strings.Repeat("x", 16)}, DataError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := New(&tt.opts).Withheld(tt.values)
			assert.Nil(t, got)
			var ee *Error
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, tt.err, ee.Name)
			assert.NotContains(t, ee.Message, value)
		})
	}

	t.Run("a full set", func(t *testing.T) {
		e := New(&Options{Origin: testOrigin, MaxScrubNeedles: 1})
		mustRegister(t, e, `{"name":"keys","description":"d","annotations":{"sensitiveHint":true}}`)
		res := e.OutputOf("keys", Outcome{Kind: Returned, Data: `["sk_live_Zq81vT0pLm42","sk_live_Hy62kR9wQe17","sk_live_Pp03nB5vXc88"]`})
		require.Nil(t, res.Err)
		_, full := e.ScrubNeedles()
		require.True(t, full)
		_, err := e.Withheld([]string{value})
		var ee *Error
		require.ErrorAs(t, err, &ee)
		assert.Equal(t, InvalidStateError, ee.Name)
	})
}

// BenchmarkWithheldList: what the page pays after each output once the
// session withheld something: the strings of twenty form tools of ten
// options each, against a set of a hundred withheld keys.
func BenchmarkWithheldList(b *testing.B) {
	e := newTestEngine(b)
	mustRegister(b, e, `{"name":"keys","description":"d","outputSchema":{"type":"object","properties":{"keys":{"type":"array","items":{"type":"string","x-sensitive":true}}}}}`)
	keys := make([]string, 100)
	for i := range keys {
		keys[i] = fmt.Sprintf("sk_live_%016x", uint64(i)*0x9e3779b97f4a7c15)
	}
	res := e.OutputOf("keys", Outcome{Kind: Returned, Data: jsonText(map[string]any{"keys": keys})})
	require.Nil(b, res.Err)
	var values []string
	for t := range 20 {
		values = append(values, fmt.Sprintf("tool_%d", t), "Pays the order for the signed-in user")
		for o := range 10 {
			values = append(values, fmt.Sprintf("opt-%d-%d", t, o), fmt.Sprintf("Option %d of tool %d", o, t))
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Withheld(values); err != nil {
			b.Fatal(err)
		}
	}
}
