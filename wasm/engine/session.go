package engine

import "sync"

// This file keeps rule (d) for the whole session: every value a view
// withholds joins the session's scrub set, and every later view, of any
// tool on any path, is scrubbed of it too. A key withheld from create_key
// does not come back in an activity log that list_events returns later.
//
// The set keeps keyed hashes, not values (needles.go), so it outlives the
// vault's hold without keeping what the vault wipes. It is bounded: past
// Options.MaxScrubNeedles needles it is full, and from then on every
// output is withheld whole (rule a3's notice), since a value withheld
// after that could not be recognised again. A view adds its own values to
// the set as it withholds them, so one search finds this output's values
// and every earlier one's alike. An engine started after a
// loss starts with an empty set: it cannot scrub what the lost engine
// withheld (how-it-works.md).

// DefaultMaxScrubNeedles bounds the session's scrub set: about 64 bytes a
// needle, 4 MiB in all. A withheld string takes one needle, or a few
// when it holds tokens of its own (a key in a paragraph).
const DefaultMaxScrubNeedles = 1 << 16

// session is the session's scrub set.
type session struct {
	// mu is held while a view is made: the view adds what it withholds
	// to set as it goes, and scrubs what it keeps of everything set
	// holds, its own values and every earlier view's, in one search.
	mu   sync.Mutex
	set  scrubSet
	full bool
	max  int
}

// active reports whether the session has anything to scrub, or is full.
// The caller holds mu.
func (s *session) active() bool { return s.full || !s.set.empty() }

// isActive is active, taking mu.
func (s *session) isActive() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active()
}

// settle marks the set full once a view took it past its bound. The
// caller holds mu. A view adds its own needles before this check, so the
// set can exceed the bound by one output's needles.
func (s *session) settle() {
	if s.set.needles() > s.max {
		s.full = true
	}
}

// ScrubNeedles reports how many needles the session's scrub set holds,
// and whether it is full.
func (e *Engine) ScrubNeedles() (int, bool) {
	e.session.mu.Lock()
	defer e.session.mu.Unlock()
	return e.session.set.needles(), e.session.full
}
