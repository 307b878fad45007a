package engine

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// vault keeps withheld values and references for the user until they
// expire or are forgotten. Each call's items live in one entry: their
// values share one buffer, which wiping overwrites, and their handles are
// the call's random id and the item's index, so holding thousands of
// values costs a few allocations.
type vault struct {
	calls map[string]*heldCall
	// order lists call ids, oldest first, for making room; ids of calls
	// gone since are skipped.
	order []string
	// epoch is when the vault started; items keep their times as offsets
	// from it, which keeps the monotonic clock's reading (a change of the
	// wall clock neither keeps nor drops anything).
	epoch time.Time
}

type heldCall struct {
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

func (v *vault) init(now time.Time) {
	v.calls = map[string]*heldCall{}
	v.epoch = now
}

// newCall starts the held items of call id. The engine's lock is held.
func (v *vault) newCall(id, tool string) *heldCall {
	c := &heldCall{id: id, tool: tool, epoch: v.epoch}
	v.calls[c.id] = c
	v.order = append(v.order, c.id)
	return c
}

// drop removes call id, all of whose items are gone. Neither a Go map nor
// a slice gives memory back as it empties, and calls come and go for the
// life of the page: once most ids in order are of calls gone, order is
// copied without them, and an empty map is made anew, so what the vault
// takes follows what it holds. The engine's lock is held.
func (v *vault) drop(id string) {
	delete(v.calls, id)
	if len(v.calls) == 0 {
		v.calls = map[string]*heldCall{}
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

// makeRoom wipes the items of the oldest calls until need more bytes fit
// under max, and returns how many items it wiped. The engine's lock is
// held.
func (v *vault) makeRoom(need, max int) int {
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
		v.calls = map[string]*heldCall{}
	}
	return wiped
}

// add appends s to the call's buffer.
func (c *heldCall) add(s string) bufSpan {
	start := len(c.buf)
	c.buf = append(c.buf, s...)
	return bufSpan{int32(start), int32(len(c.buf))}
}

// labelOf is item it's label.
func (c *heldCall) labelOf(it *heldItem) bufSpan {
	if it.label >= 0 {
		return bufSpan{it.pointer.end - it.label, it.pointer.end}
	}
	return bufSpan{it.pointer.end, it.pointer.end - it.label}
}

// timesOf is item i's times.
func (c *heldCall) timesOf(i int) heldTimes {
	k, _ := slices.BinarySearch(c.starts, int32(i)+1)
	return c.times[k-1]
}

func (c *heldCall) text(s bufSpan) string { return string(c.buf[s.start:s.end]) }

// hold appends an item. A label that ends its pointer (the usual case:
// the last reference token) shares its bytes.
func (c *heldCall) hold(kind itemKind, label, pointer string, expires, redeemBy time.Time, value string) {
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

func (c *heldCall) holdValue(label, pointer string, expires time.Time, value string) {
	c.hold(valueItem, label, pointer, expires, time.Time{}, value)
}

func (c *heldCall) holdReference(label, pointer string, expires, redeemBy time.Time, redeem string) {
	c.hold(referenceItem, label, pointer, expires, redeemBy, redeem)
}

func (c *heldCall) item(i int) Item {
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

func (c *heldCall) list() []Item {
	out := make([]Item, 0, c.live)
	for i := range c.items {
		if c.items[i].kind != forgotten {
			out = append(out, c.item(i))
		}
	}
	return out
}

// wipe overwrites and forgets item i.
func (c *heldCall) wipe(i int) {
	it := &c.items[i]
	if it.kind == forgotten {
		return
	}
	clear(c.buf[it.value.start:it.value.end])
	*it = heldItem{}
	c.live--
}

// find resolves a handle. The engine's lock is held.
func (v *vault) find(handle string) (*heldCall, int, bool) {
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

// Items lists what is held for the user, without values, oldest call
// first. Expired items are wiped first.
func (e *Engine) Items() []Item {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sweepLocked()
	var out []Item
	for _, c := range e.vault.calls {
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

// Reveal returns a held item for the user: a withheld value, or the URL
// to redeem a reference. It does not forget the item.
func (e *Engine) Reveal(handle string) (Revealed, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sweepLocked()
	c, i, ok := e.vault.find(handle)
	if !ok {
		return Revealed{}, &Error{Name: NotFoundError, Message: "reveal: no item with that handle is held (it may have expired or been forgotten)"}
	}
	it := &c.items[i]
	if it.kind == referenceItem {
		return Revealed{Kind: "reference", RedeemURL: c.text(it.value)}, nil
	}
	return Revealed{Kind: "value", Value: c.text(it.value)}, nil
}

// Forget wipes a held item and reports whether it was held.
func (e *Engine) Forget(handle string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, i, ok := e.vault.find(handle)
	if !ok {
		return false
	}
	c.wipe(i)
	if c.live == 0 {
		e.vault.drop(c.id)
	}
	return true
}

// Sweep wipes every expired item and returns how many it wiped.
func (e *Engine) Sweep() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sweepLocked()
}

func (e *Engine) sweepLocked() int {
	now := e.opts.Now().Sub(e.vault.epoch)
	n := 0
	for id, c := range e.vault.calls {
		for i := range c.items {
			if c.items[i].kind != forgotten && now >= c.timesOf(i).expires {
				c.wipe(i)
				n++
			}
		}
		if c.live == 0 {
			e.vault.drop(id)
		}
	}
	return n
}
