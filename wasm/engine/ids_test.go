package engine

import (
	"bytes"
	"errors"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOneCallID: a call has one id, from Decide to the agent view's
// result to the held items, whichever path the output takes.
func TestOneCallID(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"key","description":"d","annotations":{"sensitiveHint":true}}`)
	mustRegister(t, e, `{"name":"plain","description":"d"}`)

	d, err := e.Decide("key", `{}`, Resolution{})
	require.NoError(t, err)
	require.NotEmpty(t, d.Call)
	assert.Equal(t, d.Call, d.Entry.Call, "the log entry's call")
	res := e.OutputOf("key", Outcome{Kind: Returned, Data: `{"k":"v-123456"}`, Call: d.Call})
	require.Nil(t, res.Err)
	assert.Equal(t, d.Call, res.Call, "Output(...).Call")
	items := e.Items()
	require.Len(t, items, 1)
	assert.Equal(t, d.Call, items[0].Call, "the held item's call")
	assert.Equal(t, d.Call+".0", items[0].Handle)

	// A call whose output passes unchanged keeps its id too.
	d, err = e.Decide("plain", `{}`, Resolution{})
	require.NoError(t, err)
	res = e.OutputOf("plain", Outcome{Kind: Returned, Data: `{"ok":1}`, Call: d.Call})
	assert.True(t, res.Unchanged)
	assert.Equal(t, d.Call, res.Call)

	// So does a refused one.
	d, err = e.Decide("plain", `{}`, Resolution{})
	require.NoError(t, err)
	res = e.OutputOf("plain", Outcome{Kind: Refused, Call: d.Call})
	assert.Equal(t, d.Call, res.Call)

	// Output used directly, with no decision, gives the call an id.
	res = e.OutputOf("key", Outcome{Kind: Returned, Data: `{"k":"v-654321"}`})
	require.Nil(t, res.Err)
	require.NotEmpty(t, res.Call)
	assert.NotEqual(t, d.Call, res.Call)
	assert.Len(t, e.Items(), 2)
}

// TestRandSeedsIDs: the ids come from Options.Rand, and an engine with no
// randomness refuses to start rather than make guessable ids.
func TestRandSeedsIDs(t *testing.T) {
	seed := bytes.Repeat([]byte{7}, 32)
	ids := func() []string {
		e := New(&Options{Rand: bytes.NewReader(seed)})
		_, err := e.Register(`{"name":"t","description":"d"}`)
		require.NoError(t, err)
		var out []string
		for range 3 {
			d, err := e.Decide("t", `{}`, Resolution{})
			require.NoError(t, err)
			out = append(out, d.Call)
		}
		return out
	}
	a, b := ids(), ids()
	assert.Equal(t, a, b, "the same seed gives the same ids")
	assert.Len(t, a[0], 22, "128 bits, base64url")
	assert.NotEqual(t, a[0], a[1])

	assert.PanicsWithValue(t, "engine: no randomness for ids: unexpected EOF", func() {
		New(&Options{Rand: bytes.NewReader(seed[:8])})
	}, "New with too little randomness")
	assert.Panics(t, func() {
		New(&Options{Rand: iotest.ErrReader(errors.New("no entropy"))})
	}, "New with a failing Rand")
}
