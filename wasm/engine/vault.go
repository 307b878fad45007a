package engine

import (
	"encoding/base64"
	mrand "math/rand/v2"
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
	// rng makes ids: ChaCha8, seeded once from the platform's
	// cryptographic source, is a cryptographically strong generator and
	// costs no call into JavaScript per id.
	rng *mrand.ChaCha8
}

type heldCall struct {
	id    string
	tool  string
	buf   []byte
	items []heldItem
	live  int
}

type heldItem struct {
	kind       string // "value" or "reference"; "" once forgotten
	label      string
	pointer    string
	expires    time.Time
	redeemBy   time.Time
	start, end int    // the value in buf
	redeem     string // a reference's URL
}

func (v *vault) init() {
	v.calls = map[string]*heldCall{}
	var s [32]byte
	if err := seed(s[:]); err != nil {
		panic("engine: no randomness for handles: " + err.Error())
	}
	v.rng = mrand.NewChaCha8(s)
}

// newID returns 128 random bits, base64url-encoded.
func (v *vault) newID() string {
	var b [16]byte
	_, _ = v.rng.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// newCall starts the held items of one call. The engine's lock is held.
func (v *vault) newCall(tool string) *heldCall {
	c := &heldCall{id: v.newID(), tool: tool}
	v.calls[c.id] = c
	return c
}

func (c *heldCall) holdValue(label, pointer string, expires time.Time, value string) {
	start := len(c.buf)
	c.buf = append(c.buf, value...)
	c.items = append(c.items, heldItem{kind: "value", label: label, pointer: pointer, expires: expires, start: start, end: len(c.buf)})
	c.live++
}

func (c *heldCall) holdReference(label, pointer string, expires, redeemBy time.Time, redeem string) {
	c.items = append(c.items, heldItem{kind: "reference", label: label, pointer: pointer, expires: expires, redeemBy: redeemBy, redeem: redeem})
	c.live++
}

func (c *heldCall) item(i int) Item {
	it := &c.items[i]
	return Item{
		Handle: c.id + "." + strconv.Itoa(i), CallID: c.id, Tool: c.tool, Kind: it.kind,
		Label: it.label, Pointer: it.pointer, Expires: it.expires, RedeemBy: it.redeemBy,
	}
}

func (c *heldCall) list() []Item {
	out := make([]Item, 0, c.live)
	for i := range c.items {
		if c.items[i].kind != "" {
			out = append(out, c.item(i))
		}
	}
	return out
}

// wipe overwrites and forgets item i.
func (c *heldCall) wipe(i int) {
	it := &c.items[i]
	if it.kind == "" {
		return
	}
	clear(c.buf[it.start:it.end])
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
	if err != nil || i < 0 || i >= len(c.items) || c.items[i].kind == "" || strconv.Itoa(i) != handle[dot+1:] {
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
		if c := strings.Compare(a.CallID, b.CallID); c != 0 {
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
		return Revealed{}, &Error{Name: "NotFoundError", Message: "reveal: no item with that handle is held (it may have expired or been forgotten)"}
	}
	it := &c.items[i]
	if it.kind == "reference" {
		return Revealed{Kind: "reference", RedeemURL: it.redeem}, nil
	}
	return Revealed{Kind: "value", Value: string(c.buf[it.start:it.end])}, nil
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
		delete(e.vault.calls, c.id)
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
	now := e.opts.Now()
	n := 0
	for id, c := range e.vault.calls {
		for i := range c.items {
			if c.items[i].kind != "" && !now.Before(c.items[i].expires) {
				c.wipe(i)
				n++
			}
		}
		if c.live == 0 {
			delete(e.vault.calls, id)
		}
	}
	return n
}
