// Package vault keeps what the engine withholds for the user: each call's
// values and references, their labels and pointers, until they expire or
// are forgotten. It knows nothing of schemas, outputs or the agent; the
// engine holds its lock around every use.
package vault

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Vault keeps withheld values and references for the user until they
// expire or are forgotten. Each call's items live in one entry: their
// values share one buffer, which wiping overwrites, and their handles are
// the call's random id and the item's index, so holding thousands of
// values costs a few allocations. It is not safe for concurrent use: the
// engine's lock is held around every method.
type Vault struct {
	calls map[string]*Call
	// order lists call ids, oldest first, for making room; ids of calls
	// gone since are skipped.
	order []string
	// epoch is when the vault started; items keep their times as offsets
	// from it, which keeps the monotonic clock's reading (a change of the
	// wall clock neither keeps nor drops anything).
	epoch time.Time
}

// Call is what one call holds: its items, whose strings share one buffer.
type Call struct {
	id    string
	tool  string
	epoch time.Time
	buf   []byte
	items []heldItem
	// times are the items' times: times[k] applies from item starts[k]
	// on. A call's values share one time, so most calls keep one entry.
	times  []heldTimes
	starts []int32
	live   int
}

// heldTimes are an item's times, offsets from the vault's epoch; redeemBy
// is 0 when the reference gave no ttl.
type heldTimes struct{ expires, redeemBy time.Duration }

// heldItem is one held value or reference, in 24 bytes: a call can hold
// thousands, and the engine's memory only grows. It holds no pointers (its
// strings are spans of the call's buf), so they cost the garbage
// collector nothing to scan.
type heldItem struct {
	// value is the withheld value, or a reference's URL.
	value, pointer bufSpan
	// label is the length of the item's label: the last label bytes of
	// the pointer when positive, else the -label bytes after it.
	label int32
	kind  itemKind
}

type bufSpan struct{ start, end int32 }

type itemKind uint8

const (
	forgotten itemKind = iota
	valueItem
	referenceItem
)

func (k itemKind) String() string { return [...]string{"", "value", "reference"}[k] }

// Item is one held item as the user's list shows it, without its value.
type Item struct {
	Handle  string `json:"handle"`
	Call    string `json:"call"`
	Tool    string `json:"tool"`
	Kind    string `json:"kind"` // "value" or "reference"
	Label   string `json:"label"`
	Pointer string `json:"pointer"`
	// Expires is when the item is wiped.
	Expires time.Time `json:"expires"`
	// RedeemBy is when a reference's ttl runs out on its server; zero
	// when it gave none. The item is held at least that long.
	RedeemBy time.Time `json:"redeemBy,omitzero"`
}

// Init empties the vault and starts its clock at now.
func (v *Vault) Init(now time.Time) {
	v.calls = map[string]*Call{}
	v.epoch = now
}

// NewCall starts the held items of call id, made by tool, with room for
// items items whose strings take size bytes.
func (v *Vault) NewCall(id, tool string, items, size int) *Call {
	c := &Call{id: id, tool: tool, epoch: v.epoch, items: make([]heldItem, 0, items), buf: make([]byte, 0, size)}
	v.calls[c.id] = c
	v.order = append(v.order, c.id)
	return c
}

// drop removes call id, all of whose items are gone. Neither a Go map nor
// a slice gives memory back as it empties, and calls come and go for the
// life of the page: once most ids in order are of calls gone, order is
// copied without them, and an empty map is made anew, so what the vault
// takes follows what it holds.
func (v *Vault) drop(id string) {
	delete(v.calls, id)
	if len(v.calls) == 0 {
		v.calls = map[string]*Call{}
	}
	if len(v.order) > 2*len(v.calls)+64 {
		live := make([]string, 0, 2*len(v.calls))
		for _, id := range v.order {
			if _, ok := v.calls[id]; ok {
				live = append(live, id)
			}
		}
		v.order = live
	}
}

// MakeRoom wipes the items of the oldest calls until need more bytes fit
// under max, and returns how many items it wiped.
func (v *Vault) MakeRoom(need, max int) int {
	total := 0
	for _, c := range v.calls {
		total += len(c.buf)
	}
	wiped := 0
	k := 0
	for ; k < len(v.order) && total+need > max; k++ {
		c, ok := v.calls[v.order[k]]
		if !ok {
			continue
		}
		for i := range c.items {
			if c.items[i].kind != forgotten {
				c.wipe(i)
				wiped++
			}
		}
		total -= len(c.buf)
		delete(v.calls, c.id)
	}
	// Drop the ids of calls gone, now and before.
	live := v.order[:0]
	for _, id := range v.order[k:] {
		if _, ok := v.calls[id]; ok {
			live = append(live, id)
		}
	}
	clear(v.order[len(live):])
	v.order = live
	if len(v.calls) == 0 {
		v.calls = map[string]*Call{}
	}
	return wiped
}

// add appends s to the call's buffer.
func (c *Call) add(s string) bufSpan {
	start := len(c.buf)
	c.buf = append(c.buf, s...)
	return bufSpan{int32(start), int32(len(c.buf))}
}

// labelOf is item it's label.
func (c *Call) labelOf(it *heldItem) bufSpan {
	if it.label >= 0 {
		return bufSpan{it.pointer.end - it.label, it.pointer.end}
	}
	return bufSpan{it.pointer.end, it.pointer.end - it.label}
}

// timesOf is item i's times.
func (c *Call) timesOf(i int) heldTimes {
	k, _ := slices.BinarySearch(c.starts, int32(i)+1)
	return c.times[k-1]
}

func (c *Call) text(s bufSpan) string { return string(c.buf[s.start:s.end]) }

// hold appends an item. A label that ends its pointer (the usual case:
// the last reference token) shares its bytes.
func (c *Call) hold(kind itemKind, label, pointer string, expires, redeemBy time.Time, value string) {
	t := heldTimes{expires: expires.Sub(c.epoch)}
	if !redeemBy.IsZero() {
		t.redeemBy = redeemBy.Sub(c.epoch)
	}
	if len(c.times) == 0 || c.times[len(c.times)-1] != t {
		c.times = append(c.times, t)
		c.starts = append(c.starts, int32(len(c.items)))
	}
	it := heldItem{kind: kind, value: c.add(value), pointer: c.add(pointer)}
	if strings.HasSuffix(pointer, label) {
		it.label = int32(len(label))
	} else {
		c.add(label)
		it.label = -int32(len(label))
	}
	c.items = append(c.items, it)
	c.live++
}

// HoldValue holds a withheld value, named for the user by label and by
// its JSON Pointer, until expires.
func (c *Call) HoldValue(label, pointer string, expires time.Time, value string) {
	c.hold(valueItem, label, pointer, expires, time.Time{}, value)
}

// HoldReference holds the URL that redeems a reference, until expires;
// redeemBy, when not zero, is when its server lets it lapse.
func (c *Call) HoldReference(label, pointer string, expires, redeemBy time.Time, redeem string) {
	c.hold(referenceItem, label, pointer, expires, redeemBy, redeem)
}

func (c *Call) item(i int) Item {
	it := &c.items[i]
	t := c.timesOf(i)
	out := Item{
		Handle: c.id + "." + strconv.Itoa(i), Call: c.id, Tool: c.tool, Kind: it.kind.String(),
		Label: c.text(c.labelOf(it)), Pointer: c.text(it.pointer), Expires: c.epoch.Add(t.expires),
	}
	if t.redeemBy != 0 {
		out.RedeemBy = c.epoch.Add(t.redeemBy)
	}
	return out
}

func (c *Call) list() []Item {
	out := make([]Item, 0, c.live)
	for i := range c.items {
		if c.items[i].kind != forgotten {
			out = append(out, c.item(i))
		}
	}
	return out
}

// wipe overwrites and forgets item i.
func (c *Call) wipe(i int) {
	it := &c.items[i]
	if it.kind == forgotten {
		return
	}
	clear(c.buf[it.value.start:it.value.end])
	*it = heldItem{}
	c.live--
}

// find resolves a handle.
func (v *Vault) find(handle string) (*Call, int, bool) {
	dot := strings.LastIndexByte(handle, '.')
	if dot < 0 {
		return nil, 0, false
	}
	c, ok := v.calls[handle[:dot]]
	if !ok {
		return nil, 0, false
	}
	i, err := strconv.Atoi(handle[dot+1:])
	if err != nil || i < 0 || i >= len(c.items) || c.items[i].kind == forgotten || strconv.Itoa(i) != handle[dot+1:] {
		return nil, 0, false
	}
	return c, i, true
}

// Live is how many of the call's items are held.
func (c *Call) Live() int { return c.live }

// Items lists what is held for the user, without values, by time of
// expiry, then call, then pointer.
func (v *Vault) Items() []Item {
	var out []Item
	for _, c := range v.calls {
		out = append(out, c.list()...)
	}
	slices.SortStableFunc(out, func(a, b Item) int {
		if c := a.Expires.Compare(b.Expires); c != 0 {
			return c
		}
		if c := strings.Compare(a.Call, b.Call); c != 0 {
			return c
		}
		return strings.Compare(a.Pointer, b.Pointer)
	})
	return out
}

// Reveal returns the text of the item handle names, a withheld value or
// the URL that redeems a reference (reference says which), and whether
// it is held. It does not forget the item.
func (v *Vault) Reveal(handle string) (text string, reference, ok bool) {
	c, i, ok := v.find(handle)
	if !ok {
		return "", false, false
	}
	it := &c.items[i]
	return c.text(it.value), it.kind == referenceItem, true
}

// Forget wipes a held item and reports whether it was held.
func (v *Vault) Forget(handle string) bool {
	c, i, ok := v.find(handle)
	if !ok {
		return false
	}
	c.wipe(i)
	if c.live == 0 {
		v.drop(c.id)
	}
	return true
}

// ForgetCall wipes every item call id holds.
func (v *Vault) ForgetCall(id string) {
	if c, ok := v.calls[id]; ok {
		for i := range c.items {
			c.wipe(i)
		}
		v.drop(id)
	}
}

// Sweep wipes every item expired at now and returns how many it wiped.
func (v *Vault) Sweep(now time.Time) int {
	at := now.Sub(v.epoch)
	n := 0
	for id, c := range v.calls {
		for i := range c.items {
			if c.items[i].kind != forgotten && at >= c.timesOf(i).expires {
				c.wipe(i)
				n++
			}
		}
		if c.live == 0 {
			v.drop(id)
		}
	}
	return n
}
