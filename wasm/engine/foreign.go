package engine

import (
	"slices"
	"unicode/utf8"

	"github.com/veilmcp/veil/wasm/risk"
)

// This file holds the session's foreign tools: the tools in the browser's
// own registry that the runtime cannot control, as the page last reported
// them (ops' foreign op). While there is one, the policy asks before
// every call (risk.RuleForeign), and a result that carries private data
// is withheld from the agent as sensitiveHint's are
// (risk.Policy.WithholdsWhileForeign). Unlike the trust state, the list
// can shrink: a foreign tool that left the registry can send nothing more.

// MaxForeignNameBytes bounds a foreign tool's name as the engine keeps it;
// Chromium's own registry refuses a longer one.
const MaxForeignNameBytes = 128

// SetForeign replaces the session's foreign tools with names: each cut to
// MaxForeignNameBytes, each once, sorted, at most risk.MaxToolNames of
// them. An empty list says none remains. It reports whether the list
// changed.
func (e *Engine) SetForeign(names []string) bool {
	list := make([]string, 0, len(names))
	for _, n := range names {
		list = append(list, cutName(n))
	}
	// Sorted, then each once: a long list costs its sort, not a search
	// of the list per name.
	slices.Sort(list)
	list = slices.Compact(list)
	if len(list) > risk.MaxToolNames {
		list = list[:risk.MaxToolNames]
	}
	rs := &e.risk
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if slices.Equal(list, rs.foreign) {
		return false
	}
	rs.foreign = slices.Clone(list) // not the whole input's array
	return true
}

// Foreign returns the session's foreign tools, never nil.
func (e *Engine) Foreign() []string {
	e.risk.mu.Lock()
	defer e.risk.mu.Unlock()
	return append([]string{}, e.risk.foreign...)
}

// foreignWithholds reports whether a result of a call with annotations a
// is withheld because a foreign tool is present.
func (e *Engine) foreignWithholds(a *risk.Annotations) bool {
	e.risk.mu.Lock()
	defer e.risk.mu.Unlock()
	return len(e.risk.foreign) > 0 && e.risk.policy.WithholdsWhileForeign(a)
}

// cutName cuts a name to MaxForeignNameBytes, at a character boundary.
func cutName(n string) string {
	if len(n) <= MaxForeignNameBytes {
		return n
	}
	n = n[:MaxForeignNameBytes]
	for len(n) > 0 && !utf8.ValidString(n) {
		n = n[:len(n)-1]
	}
	return n
}
