package corpus

import (
	"iter"
	"strings"
)

// Strings yields every string of v, a value as encoding/json decodes it
// into an any, at any depth: each member name, with true, and each string
// value, with false. Members come in map order. It does not look inside
// strings that are JSON text; a caller that does decodes them and walks
// again.
//
// It is the one walk the tests make over decoded JSON for its strings:
// [HoldsString], [Present] and [OutsideMarkers] here, and the browser
// suite's spotlight checks.
func Strings(v any) iter.Seq2[string, bool] {
	return func(yield func(string, bool) bool) {
		walkStrings(v, yield)
	}
}

func walkStrings(v any, yield func(string, bool) bool) bool {
	switch v := v.(type) {
	case string:
		return yield(v, false)
	case []any:
		for _, x := range v {
			if !walkStrings(x, yield) {
				return false
			}
		}
	case map[string]any:
		for k, x := range v {
			if !yield(k, true) || !walkStrings(x, yield) {
				return false
			}
		}
	}
	return true
}

// OutsideMarkers returns the strings of a spotlighted view, decoded into
// v, that a tool's content cannot be in: every member name, and every
// string value that does not stand whole between the view's markers
// ("<marker>\n" before it, "\n</marker>" after).
func OutsideMarkers(v any, marker string) []string {
	var out []string
	for s, name := range Strings(v) {
		if name || !strings.HasPrefix(s, "<"+marker+">\n") || !strings.HasSuffix(s, "\n</"+marker+">") {
			out = append(out, s)
		}
	}
	return out
}
