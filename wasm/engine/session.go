package engine

import (
	"strings"
	"sync"
)

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
	// scrubber is set's, made when set held cached needles.
	scrubber *scrubber
	cached   int
}

// search returns the scrubber of the set as it is now. The caller holds
// mu.
func (s *session) search() *scrubber {
	if n := s.set.needles(); s.scrubber == nil || n != s.cached {
		s.scrubber, s.cached = newScrubber(&s.set), n
	}
	return s.scrubber
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

// nextView starts a view: what it adds is its own output's, and what the
// set held before is earlier outputs'. The caller holds mu.
func (s *session) nextView() {
	s.set.exact.gen++
	s.set.skel.gen++
}

// settle marks the set full once a view took it past its bound. The
// caller holds mu. A view adds its own needles before this check, so the
// set can exceed the bound by one output's needles.
func (s *session) settle() {
	if s.set.values() > s.max {
		s.full = true
	}
}

// ScrubNeedles reports how many needles the session's scrub set holds,
// and whether it is full.
func (e *Engine) ScrubNeedles() (int, bool) {
	e.session.mu.Lock()
	defer e.session.mu.Unlock()
	return e.session.set.values(), e.session.full
}

// mayRepeat reports whether an output of a tool that declares nothing may
// repeat something the session's set holds, without parsing it: the
// common answer, no, lets it pass as it came. data is JSON text when
// isJSON, else a string result. When unsure it says yes, and the output
// takes the view's road.
func (e *Engine) mayRepeat(data string, isJSON bool) bool {
	e.session.mu.Lock()
	defer e.session.mu.Unlock()
	if e.session.full {
		return true
	}
	s := e.session.search()
	switch {
	case !s.any:
		return false
	case !isJSON:
		return s.contains(data)
	case hasEscapes(data, s.plus):
		// Its strings must be decoded one by one: the parser does that.
		return true
	}
	// A search of the text as it is finds a value in a string, a name or
	// a number, and one split across the items of an array (their
	// skeletons meet across the quotes and commas); the members of an
	// object have their names between them, so they are read apart.
	return s.containsRaw(data) || memberRuns(data, s) || hasEncodingLines(data) || byteListsHold(data, s) || textItemsMayJoin(data) && len(s.skels) > 0
}

// byteListsHold reports whether the JSON text data has an array of byte
// values, or an object of them by index, whose bytes hold a value of s
// (byteArrayHolds). Only a text with an array that starts with a digit,
// or a member named "0", is parsed.
func byteListsHold(data string, s *scrubber) bool {
	if strings.Contains(data, `"0"`) {
		tr, err := parseTree(data)
		return err != nil || s.byteArrays(tr, func(int) bool { return true })
	}
	for i := strings.IndexByte(data, '['); i >= 0; {
		j := i + 1
		for j < len(data) && (data[j] == ' ' || data[j] == '\n' || data[j] == '\r' || data[j] == '\t') {
			j++
		}
		if j < len(data) && isDigit(data[j]) {
			tr, err := parseTree(data)
			return err != nil || s.byteArrays(tr, func(int) bool { return true })
		}
		k := strings.IndexByte(data[j:], '[')
		if k < 0 {
			return false
		}
		i = j + k
	}
	return false
}

// memberRuns reports whether consecutive string members of an object in
// the JSON text data, which has no escapes, hold a value split across
// them. Only the container open last has a run: a container ends the run
// of the one around it.
func memberRuns(data string, s *scrubber) bool {
	if len(s.skels) == 0 {
		return false
	}
	var (
		objects [64]bool // whether the container at each depth is an object
		depth   int
		// The run: where each of its strings stands in data.
		run [][2]int32
		buf [8][2]int32
	)
	run = buf[:0]
	// end ends the run, and reports whether it held a split value.
	end := func() bool {
		if len(run) < 2 {
			run = run[:0]
			return false
		}
		strs := make([]string, len(run))
		for k, r := range run {
			strs[k] = data[r[0]:r[1]]
		}
		run = run[:0]
		return splitAcross(strs, s, matchBudget*len(data)+matchSlack)
	}
	for i := 0; i < len(data); {
		switch c := data[i]; c {
		case '{', '[':
			if end() || depth+1 == len(objects) {
				return true // too deep to follow: unsure
			}
			depth++
			objects[depth] = c == '{'
			i++
		case '}', ']':
			if end() {
				return true
			}
			depth = max(depth-1, 0)
			i++
		case '"':
			j := strings.IndexByte(data[i+1:], '"')
			if j < 0 {
				return true
			}
			str := data[i+1 : i+1+j]
			i += j + 2
			switch {
			case i < len(data) && data[i] == ':', !objects[depth]:
				// A member name, or an array's item.
			case str == "":
				if end() {
					return true
				}
			default:
				run = append(run, [2]int32{int32(i - 1 - len(str)), int32(i - 1)})
			}
		case ',', ':', ' ', '\t', '\n', '\r':
			i++
		default:
			// A number, true, false or null ends a run.
			if end() {
				return true
			}
			for i < len(data) && data[i] != ',' && data[i] != ']' && data[i] != '}' {
				i++
			}
		}
	}
	return false
}

// splitAcross reports whether a value of s is split across strs, one
// after the other, or finding out costs more than budget.
func splitAcross(strs []string, s *scrubber, budget int) bool {
	j := joined{s: s, strs: strs, budget: budget}
	found := false
	return !j.scan(func(pos, pos) { found = true }) || found
}
