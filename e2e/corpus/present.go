package corpus

import (
	"encoding/json"
	"strings"
)

// maxPresentDepth bounds how deep Present follows JSON text inside JSON
// strings.
const maxPresentDepth = 8

// Present reports whether s is in the view as an agent reads it: in the
// raw text, or in a string or member name of the view read as JSON, or of
// JSON text such a string holds, at any depth. It is how both runners
// check a case's present lines.
func Present(view, s string) bool {
	return present(view, s, 0)
}

func present(text, s string, depth int) bool {
	if strings.Contains(text, s) {
		return true
	}
	if depth >= maxPresentDepth {
		return false
	}
	var v any
	if json.Unmarshal([]byte(text), &v) != nil {
		return false
	}
	return presentIn(v, s, depth+1)
}

func presentIn(v any, s string, depth int) bool {
	for x := range Strings(v) {
		if present(x, s, depth) {
			return true
		}
	}
	return false
}
