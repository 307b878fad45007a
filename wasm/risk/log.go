package risk

import "time"

// DefaultLogSize is how many decisions a [Log] keeps when its size is
// zero.
const DefaultLogSize = 256

// Entry is one call's decision as the page sees it, for audit: the rule,
// the facts it used and the outcome, never a value.
type Entry struct {
	// Call identifies the call.
	Call string    `json:"call"`
	Tool string    `json:"tool"`
	Time time.Time `json:"time"`
	// Outcome is the decision's ("allow", "notice", "confirm" while the
	// user is asked, "block"), then the user's answer ("approved",
	// "declined").
	Outcome string `json:"outcome"`
	Rule    string `json:"rule,omitempty"`
	Facts   []Fact `json:"facts"`
}

// Log keeps the latest decisions, oldest first.
type Log struct {
	// Size bounds the entries kept. Zero means DefaultLogSize.
	Size    int
	entries []Entry
}

// Add appends e, dropping the oldest entry when the log is full.
func (l *Log) Add(e Entry) {
	size := l.Size
	if size <= 0 {
		size = DefaultLogSize
	}
	if len(l.entries) >= size {
		l.entries = append(l.entries[:0], l.entries[len(l.entries)-size+1:]...)
	}
	l.entries = append(l.entries, e)
}

// Settle sets the outcome of call's entry and returns the entry; ok is
// false when the log no longer has it.
func (l *Log) Settle(call, outcome string) (e Entry, ok bool) {
	for i := len(l.entries) - 1; i >= 0; i-- {
		if l.entries[i].Call == call {
			l.entries[i].Outcome = outcome
			return l.entries[i], true
		}
	}
	return Entry{}, false
}

// Entries returns a copy of the entries, oldest first.
func (l *Log) Entries() []Entry {
	out := make([]Entry, len(l.entries))
	copy(out, l.entries)
	return out
}
