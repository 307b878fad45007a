package engine

import "fmt"

// This file holds Withheld: rule (d) for what the runtime lists rather
// than what a tool returns. A form's tool lists the options of its
// <select> as its input schema's enum; a saved card offered as an option
// would give the agent, in getTools, the number an earlier output had
// withheld. The page's glue asks before it lists (js/webmcp/listing.js)
// and leaves out what holds a withheld value.

// Withheld reports, for each of values, whether it holds a value the
// session's scrub set holds, in any decoding a later output is searched
// in (scrubber.contains). It reads the set and changes nothing.
//
// It fails with an InvalidStateError when the set is full, or was lost
// with an earlier engine (Options.ScrubLost): a value withheld since
// could not be recognised, so nothing can be said to hold none. It fails
// with a DataError when the values together are larger than
// Options.MaxOutputBytes. No error quotes a value.
func (e *Engine) Withheld(values []string) ([]bool, error) {
	total := 0
	for _, v := range values {
		total += len(v)
	}
	if total > e.opts.MaxOutputBytes {
		return nil, &Error{Name: DataError, Message: fmt.Sprintf("withheld: the values are larger than %d bytes", e.opts.MaxOutputBytes)}
	}
	s := &e.session
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.full {
		return nil, &Error{Name: InvalidStateError, Message: "withheld: the session's scrub set is full, or was lost with an earlier engine"}
	}
	out := make([]bool, len(values))
	if s.set.empty() {
		return out, nil
	}
	search := s.search()
	for i, v := range values {
		out[i] = search.contains(v)
	}
	return out, nil
}
