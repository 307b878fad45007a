package engine

import (
	"crypto/rand"
	"encoding/base64"
	"slices"
)

// vault keeps withheld values and references for the user, keyed by
// opaque handles, until they expire or are forgotten. Values are kept as
// byte slices so that wiping can overwrite them.
type vault struct {
	entries map[string]*entry
}

type entry struct {
	item   Item
	value  []byte
	redeem string
}

func (v *vault) init() { v.entries = map[string]*entry{} }

// newHandle returns 128 random bits, base64url-encoded.
func newHandle() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// hold stores one item and returns it with its handle. The engine's
// lock is held.
func (v *vault) hold(it Item, value, redeem string) Item {
	it.Handle = newHandle()
	v.entries[it.Handle] = &entry{item: it, value: []byte(value), redeem: redeem}
	return it
}

func (en *entry) wipe() {
	clear(en.value)
	en.value = nil
	en.redeem = ""
}

// Items lists what is held for the user, oldest call first, without
// values. Expired items are wiped first.
func (e *Engine) Items() []Item {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sweepLocked()
	out := make([]Item, 0, len(e.vault.entries))
	for _, en := range e.vault.entries {
		out = append(out, en.item)
	}
	slices.SortFunc(out, func(a, b Item) int {
		if c := a.Expires.Compare(b.Expires); c != 0 {
			return c
		}
		if a.Pointer != b.Pointer {
			if a.Pointer < b.Pointer {
				return -1
			}
			return 1
		}
		return 0
	})
	return out
}

// Reveal returns a held item for the user: a withheld value, or the URL
// to redeem a reference. It does not forget the item.
func (e *Engine) Reveal(handle string) (Revealed, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sweepLocked()
	en, ok := e.vault.entries[handle]
	if !ok {
		return Revealed{}, &Error{Name: "NotFoundError", Message: "reveal: no item with that handle is held (it may have expired or been forgotten)"}
	}
	if en.item.Kind == "reference" {
		return Revealed{Kind: "reference", RedeemURL: en.redeem}, nil
	}
	return Revealed{Kind: "value", Value: string(en.value)}, nil
}

// Forget wipes a held item and reports whether it was held.
func (e *Engine) Forget(handle string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	en, ok := e.vault.entries[handle]
	if ok {
		en.wipe()
		delete(e.vault.entries, handle)
	}
	return ok
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
	for h, en := range e.vault.entries {
		if !now.Before(en.item.Expires) {
			en.wipe()
			delete(e.vault.entries, h)
			n++
		}
	}
	return n
}
