package engine

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// liveHeap is the heap live after a garbage collection.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestGoneCallsLeaveOnlyTheScrubSet: a page runs for hours, and every
// call that holds values leaves the engine once they expire or are
// forgotten; what stays on the heap is the session's scrub set, not one
// entry per call. (The vault's own bound on its bookkeeping is
// internal/vault's TestVaultLetsGoOfGoneCalls.)
func TestGoneCallsLeaveOnlyTheScrubSet(t *testing.T) {
	now := time.Now()
	e := New(&Options{Origin: testOrigin, HoldTTL: time.Minute, Now: func() time.Time { return now }})
	mustRegister(t, e, `{"name":"make_key","description":"d","annotations":{"sensitiveHint":true}}`)
	hold := func(i int) string {
		d, err := e.Decide("make_key", `{}`, Resolution{})
		require.NoError(t, err)
		res := e.OutputOf("make_key", Outcome{Kind: Text, Data: fmt.Sprintf("sk-live-%032d", i), Call: d.Call})
		require.Nil(t, res.Err)
		require.Equal(t, 1, res.Held)
		return d.Call
	}
	before := liveHeap()
	for round := range 20 {
		for i := range 500 {
			id := hold(round*500 + i)
			if i%2 == 0 {
				// Half are forgotten by the user, the rest expire.
				require.True(t, e.Forget(id+".0"), "forget %s", id)
			}
		}
		now = now.Add(2 * time.Minute)
		e.Sweep()
		require.Empty(t, e.Items(), "round %d: every call's values are gone", round)
	}
	// The decision log is full now (risk.DefaultLogSize entries), and
	// bounded; so is the session's scrub set, which keeps a hash of each
	// of the 10,000 values for the life of the page. Nothing else the
	// calls made stays.
	e.session.mu.Lock()
	scrub := e.session.set.bytes()
	e.session.mu.Unlock()
	assert.Less(t, liveHeap(), before+256<<10+uint64(scrub), "the live heap after 10,000 calls that held values, all gone, less the session's scrub set (%d bytes)", scrub)
	assert.Empty(t, e.Items())
}
