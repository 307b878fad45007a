package engine

import (
	"strings"
	"time"
	"unsafe"
)

// This file keeps what a view withholds for the user: the JSON Pointers
// that name each value, and the items in the vault.

// The pointers of what a view withholds take at most maxPointerBytes
// times the output's size, and maxPointerSlack; past that the call fails
// closed.
const (
	maxPointerBytes = 4
	maxPointerSlack = 1 << 20
)

// pointers returns the JSON Pointer of every withheld node, sharing one
// buffer, or an error when they would take more than the bounds allow.
func (w *walker) pointers() ([]string, *Error) {
	// The pointers share one buffer, which is never written again.
	ptrs := make([]byte, 0, 16*len(w.held))
	ends := make([]int, len(w.held))
	// Held values are often siblings: their parent's pointer is written
	// once and copied.
	parent, from, to := -2, 0, 0
	limit := maxPointerBytes*len(w.tr.src) + maxPointerSlack
	for k, h := range w.held {
		switch p := int(w.tr.nodes[h].parent); {
		case p < 0:
		case p == parent:
			ptrs = w.tr.appendToken(append(ptrs, ptrs[from:to]...), h)
		default:
			parent, from = p, len(ptrs)
			ptrs = w.tr.appendPointer(ptrs, p)
			to = len(ptrs)
			ptrs = w.tr.appendToken(ptrs, h)
		}
		ends[k] = len(ptrs)
		if len(ptrs) > limit {
			// Withheld members at every level of a deep object: their
			// pointers grow with the square of the depth.
			return nil, w.t.failure("the pointers to what was withheld are too long")
		}
	}
	all := unsafe.String(unsafe.SliceData(ptrs), len(ptrs))
	pointers := make([]string, len(w.held))
	start := 0
	for k := range w.held {
		pointers[k] = all[start:ends[k]]
		start = ends[k]
	}
	return pointers, nil
}

// hold keeps the withheld values and the references in the vault, under
// the call's id, and returns how many items it holds.
func (w *walker) hold(pointers []string) int {
	if len(w.held) == 0 && len(w.refs) == 0 {
		return 0
	}
	size := 0
	for _, h := range w.held {
		size += int(w.tr.nodes[h].end - w.tr.nodes[h].start)
	}
	ptrs := 0
	for _, p := range pointers {
		ptrs += len(p)
	}
	now := w.e.opts.Now()
	w.e.mu.Lock()
	labels := len(w.t.label)
	for _, r := range w.refs {
		labels += len(r.label) + len(r.redeem) + len(r.pointer)
	}
	w.e.vault.MakeRoom(size+ptrs+labels, w.e.opts.MaxHeldBytes)
	c := w.e.vault.NewCall(w.call, w.t.name, len(w.held)+len(w.refs), size+ptrs)
	for k, h := range w.held {
		ptr := pointers[k]
		n := &w.tr.nodes[h]
		value := w.tr.text(h)
		if n.kind == kString {
			value = w.tr.str(h)
		}
		c.HoldValue(w.label(ptr), ptr, now.Add(w.e.opts.HoldTTL), value)
	}
	for _, r := range w.refs {
		// A reference is held at least until its server lets it lapse, so
		// the user hears "expired" from the server instead of losing it.
		exp := now.Add(w.e.opts.HoldTTL)
		var by time.Time
		if r.ttlSecs > 0 {
			by = now.Add(secondsDuration(r.ttlSecs))
			if by.After(exp) {
				exp = by
			}
		}
		c.HoldReference(r.label, r.pointer, exp, by, r.redeem)
	}
	held := c.Live()
	w.e.mu.Unlock()

	return held
}

func secondsDuration(s float64) time.Duration {
	return time.Duration(s * float64(time.Second))
}

// label names a withheld value for the user: the last pointer token, or
// the tool's title for the whole output.
func (w *walker) label(ptr string) string {
	if ptr == "" {
		return w.t.label
	}
	last := ptr[strings.LastIndexByte(ptr, '/')+1:]
	return strings.ReplaceAll(strings.ReplaceAll(last, "~1", "/"), "~0", "~")
}
