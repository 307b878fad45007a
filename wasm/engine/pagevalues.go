package engine

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// This file holds Scrub: rule (d) for values the page, not a view, knows
// must not reach the agent. A form tool's answer is written by the page's
// submit listener, which often hands back every control of the form
// (Object.fromEntries(new FormData(form))): what the user typed, a
// password, a one-time code, a hidden CSRF token. The page's glue
// (veil-forms.js) sends those values before the answer, and the answer's
// view, and every later one, is scrubbed of them.

// Scrub adds values that the open calls of tool (decided, their output not
// yet given) must not give the agent, and that no later output of the
// session may repeat: rule (d), for values the page withholds rather than
// values a view withheld. Nothing is held for the user, who knows them.
//
// A value of minScrubLength characters or more joins the session's scrub
// set, as a view's withheld values do, and is found as they are: in any
// case, with separators inside, escaped, encoded, in base64. A shorter one
// ("123", a card's security code) is not specific enough to take from
// every later output, so it is taken from the output of the tool's open
// calls only, as written and in the decodings the view reads through, and
// a number by its value. Values are given as the page read them; white
// space around one is not part of it, and empty ones are skipped.
//
// It fails, and the page must then withhold the call's output whole, when
// tool is empty (a TypeError), when the values together are larger than
// Options.MaxOutputBytes (a DataError, and nothing is added), or when a
// value is shorter than minScrubLength and no call of tool is open to take
// it from (an InvalidStateError; the longer values have joined the set).
// No error quotes a value.
func (e *Engine) Scrub(tool string, values []string) error {
	if tool == "" {
		return typeError("scrub: the tool's name is empty")
	}
	total := 0
	for _, v := range values {
		total += len(v)
	}
	if total > e.opts.MaxOutputBytes {
		return &Error{Name: DataError, Message: fmt.Sprintf("scrub: the values of tool %q are larger than %d bytes", tool, e.opts.MaxOutputBytes)}
	}
	var short []string
	s := &e.session
	s.mu.Lock()
	s.nextView()
	for _, v := range values {
		t := strings.TrimSpace(v)
		if t == "" {
			continue
		}
		if len(t) < minScrubLength || utf8.RuneCountInString(t) < minScrubLength {
			short = append(short, v)
			continue
		}
		s.set.addString(v)
	}
	s.settle()
	s.mu.Unlock()
	if len(short) == 0 {
		return nil
	}
	rs := &e.risk
	rs.mu.Lock()
	defer rs.mu.Unlock()
	open := 0
	for _, c := range rs.calls {
		if c.tool.name != tool {
			continue
		}
		if c.own == nil {
			c.own = &scrubSet{noMin: true}
		}
		for _, v := range short {
			c.own.addString(v)
		}
		open++
	}
	if open == 0 {
		return &Error{Name: InvalidStateError, Message: fmt.Sprintf("scrub: no call of tool %q is open to take its short values from", tool)}
	}
	return nil
}
