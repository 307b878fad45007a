package schema

import (
	"fmt"
	"regexp"
	"sync/atomic"
	"unicode/utf16"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/veilmcp/veil/wasm/pattern"
)

// RegexpEngine is the jsonschema.RegexpEngine the engine compiles a
// page's patterns with (package pattern): Go's RE2, in linear time,
// wherever it gives a pattern its ECMA-262 meaning; else page's engine
// (the browser's RegExp), for a pattern that cannot backtrack without
// bound, on strings of at most pattern.MaxBacktrackingInput characters.
// A nil page runs only what RE2 can.
// work is what the current validation may still match with page's engine,
// in UTF-16 code units: CheckInput and Output set it to
// pattern.MaxBacktrackingWork.
func RegexpEngine(page jsonschema.RegexpEngine, work *atomic.Int64) jsonschema.RegexpEngine {
	return func(p string) (jsonschema.Regexp, error) {
		if re2, ok := pattern.Translate(p); ok {
			if r, err := regexp.Compile(re2); err == nil {
				return &linearRegexp{re: r, src: p}, nil
			}
		}
		if page == nil {
			return nil, fmt.Errorf("pattern %q needs what only the browser's RegExp has (lookaround, backreferences)", p)
		}
		if err := pattern.CheckBacktracking(p); err != nil {
			return nil, fmt.Errorf("pattern %q %v", p, err)
		}
		r, err := page(p)
		if err != nil {
			return nil, err
		}
		return &boundedRegexp{re: r, src: p, work: work}, nil
	}
}

// linearRegexp is a pattern RE2 runs.
type linearRegexp struct {
	re  *regexp.Regexp
	src string
}

func (r *linearRegexp) MatchString(s string) bool { return r.re.MatchString(s) }
func (r *linearRegexp) String() string            { return r.src }

// boundedRegexp is a pattern the page's RegExp runs, on short strings only.
type boundedRegexp struct {
	re   jsonschema.Regexp
	src  string
	work *atomic.Int64
}

func (r *boundedRegexp) MatchString(s string) bool {
	n := utf16Len(s)
	if n > pattern.MaxBacktrackingInput || r.work.Add(-int64(n)) < 0 {
		// Validation unwinds to CheckInput or Output, which fail closed.
		panic(&TooLongForPattern{Pattern: r.src, Length: n, Total: n <= pattern.MaxBacktrackingInput})
	}
	return r.re.MatchString(s)
}

func (r *boundedRegexp) String() string { return r.src }

func utf16Len(s string) int {
	n := 0
	for _, c := range s {
		n += utf16.RuneLen(c)
	}
	return n
}

// TooLongForPattern is a string past what a backtracking pattern is
// matched against: a validation that meets one panics with it, for its
// caller to recover and fail closed.
type TooLongForPattern struct {
	// Pattern is the pattern's source; Length the string's, in UTF-16
	// code units.
	Pattern string
	Length  int
	// Total: the string was short enough, the validation's strings in all
	// were not.
	Total bool
}
