package vault

import (
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// holdOne starts call id holding one value, as the engine does.
func holdOne(v *Vault, id string, now time.Time, ttl time.Duration, value string) {
	c := v.NewCall(id, "make_key", 1, len(value)+2)
	c.HoldValue("key", "/key", now.Add(ttl), value)
}

// oneCall starts a vault holding call "abc" of tool t, whose first item
// is the value "secret-a" at /a, for a minute.
func oneCall() (*Vault, *Call, time.Time) {
	now := time.Now()
	v := &Vault{}
	v.Init(now)
	c := v.NewCall("abc", "t", 2, 64)
	c.HoldValue("a", "/a", now.Add(time.Minute), "secret-a")
	return v, c, now
}

// TestVaultLetsGoOfGoneCalls: a page runs for hours, and every call that
// holds values leaves the vault once they expire or are forgotten; what
// the vault keeps follows what it holds, not how many calls there were.
// (Its list of call ids once grew by one id per call for the life of the
// page.)
func TestVaultLetsGoOfGoneCalls(t *testing.T) {
	now := time.Now()
	var v Vault
	v.Init(now)
	for round := range 20 {
		for i := range 500 {
			id := fmt.Sprintf("c%d", round*500+i)
			holdOne(&v, id, now, time.Minute, fmt.Sprintf("sk-live-%032d", round*500+i))
			if i%2 == 0 {
				// Half are forgotten by the user, the rest expire.
				require.True(t, v.Forget(id+".0"), "forget %s", id)
			}
		}
		now = now.Add(2 * time.Minute)
		assert.Equal(t, 250, v.Sweep(now), "round %d: the calls not forgotten expire", round)
		require.Zero(t, len(v.calls), "round %d: every call's values are gone", round)
		require.LessOrEqual(t, len(v.order), 64, "round %d: the ids of calls gone are let go", round)
	}
	assert.Empty(t, v.Items())
}

// TestHandles: a handle is a held call's id and an item's index written
// as strconv writes it; anything else, and an item forgotten, names
// nothing.
func TestHandles(t *testing.T) {
	v, c, now := oneCall()
	c.HoldReference("b", "/b", now.Add(time.Minute), time.Time{}, "https://app.example/redeem/1")
	v.Forget("abc.0")
	tests := []struct {
		handle    string
		held      bool
		reference bool
		text      string
	}{
		{"abc.1", true, true, "https://app.example/redeem/1"},
		{"abc.0", false, false, ""},
		{"abc.01", false, false, ""},
		{"abc.-1", false, false, ""},
		{"abc.2", false, false, ""},
		{"abc", false, false, ""},
		{"xyz.1", false, false, ""},
		{"", false, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.handle, func(t *testing.T) {
			text, reference, ok := v.Reveal(tt.handle)
			assert.Equal(t, tt.held, ok, "held")
			assert.Equal(t, tt.reference, reference, "reference")
			assert.Equal(t, tt.text, text, "text")
		})
	}
}

// TestForgetWipesTheValue: forgetting an item overwrites its value in
// the call's buffer, not only the index that finds it.
func TestForgetWipesTheValue(t *testing.T) {
	v, c, now := oneCall()
	c.HoldValue("b", "/b", now.Add(time.Minute), "secret-b")
	require.True(t, v.Forget("abc.0"))
	assert.NotContains(t, string(c.buf), "secret-a")
	assert.Contains(t, string(c.buf), "secret-b", "the other item stays")
	assert.Equal(t, 1, c.Live())
	assert.False(t, v.Forget("abc.0"), "an item is forgotten once")
}

// TestMakeRoomWipesTheOldestCalls: past the bytes it may hold, the vault
// wipes whole calls, oldest first.
func TestMakeRoomWipesTheOldestCalls(t *testing.T) {
	now := time.Now()
	var v Vault
	v.Init(now)
	for i := range 4 {
		holdOne(&v, fmt.Sprintf("c%d", i), now, time.Minute, fmt.Sprintf("%d%031d", i, 0))
	}
	// Each call takes 32 bytes of value and 4 of pointer: two calls go
	// before 36 more bytes fit under 108.
	assert.Equal(t, 2, v.MakeRoom(36, 3*36))
	items := v.Items()
	require.Len(t, items, 2)
	assert.Equal(t, "c2", items[0].Call)
	assert.Equal(t, "c3", items[1].Call)
}

// TestItemsTimes: an item lists when it expires, and a reference when
// its server lets it lapse.
func TestItemsTimes(t *testing.T) {
	v, c, now := oneCall()
	c.HoldReference("ref", "/b", now.Add(time.Hour), now.Add(time.Hour), "https://app.example/redeem/1")
	items := v.Items()
	require.Len(t, items, 2)
	assert.Equal(t, Item{Handle: "abc.0", Call: "abc", Tool: "t", Kind: "value", Label: "a", Pointer: "/a", Expires: now.Add(time.Minute)}, items[0])
	assert.Equal(t, Item{Handle: "abc.1", Call: "abc", Tool: "t", Kind: "reference", Label: "ref", Pointer: "/b", Expires: now.Add(time.Hour), RedeemBy: now.Add(time.Hour)}, items[1])
}

// TestItemStaysWithin24Bytes: a held item stays small, since a call can
// hold thousands and the engine's memory only grows.
func TestItemStaysWithin24Bytes(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(heldItem{}), uintptr(24))
}
