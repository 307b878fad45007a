package engine

import "strings"

// This file keeps the runtime's own _meta keys its own.

// ReservedPrefix starts the _meta keys only the runtime writes
// (MetaKey, PolicyMetaKey, RiskMetaKey): a tool's result that carries one
// has it removed, so that no tool can forge what the runtime says.
const ReservedPrefix = "dev.veil/"

// dropReserved leaves out every member, at any depth, whose name starts
// with ReservedPrefix in any case, and returns how many there were.
func (w *walker) dropReserved() int {
	tr := w.tr
	n := 0
	for i := 1; i < len(tr.nodes); {
		if tr.nodes[tr.nodes[i].parent].kind == kObject && isReserved(tr.key(i)) {
			w.act[i] = drop
			n++
			i = int(tr.nodes[i].next)
			continue
		}
		i++
	}
	return n
}

func isReserved(key string) bool {
	return len(key) >= len(ReservedPrefix) && strings.EqualFold(key[:len(ReservedPrefix)], ReservedPrefix)
}

// mayHaveReserved is a fast, sound test for a member isReserved names in
// the JSON text JSON.stringify wrote, which never escapes the letters,
// dot and slash of the prefix.
func mayHaveReserved(s string) bool {
	const before = len(ReservedPrefix) - 1
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '/')
		if j < 0 {
			return false
		}
		i += j + 1
		if k := i - 1 - before; k >= 0 && strings.EqualFold(s[k:i-1], ReservedPrefix[:before]) {
			return true
		}
	}
	return false
}
