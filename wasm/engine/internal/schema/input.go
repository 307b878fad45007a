package schema

import "github.com/veilmcp/veil/wasm/engine/internal/jsontree"

// SensitiveInput returns the JSON Pointers of the values in a call's input
// that the tool's inputSchema marks x-sensitive: the confirmation shows
// the input and hides those. A nil schema marks nothing.
func (cs *Schema) SensitiveInput(tr Tree) []string {
	if cs == nil || !cs.anySensitive {
		return nil
	}
	var out []string
	var walk func(i int, st *State)
	walk = func(i int, st *State) {
		if st == nil {
			return
		}
		if st.sensitive {
			out = append(out, tr.Pointer(i))
			return
		}
		switch tr.Kind(i) {
		case jsontree.Object:
			st = st.WithMembers(func(yield func(string) bool) {
				for j, end := i+1, tr.Next(i); j < end; j = tr.Next(j) {
					if !yield(tr.Key(j)) {
						return
					}
				}
			})
			if st.keysSensitive {
				out = append(out, tr.Pointer(i))
				return
			}
			for j, end := i+1, tr.Next(i); j < end; j = tr.Next(j) {
				walk(j, st.Member(tr.Key(j)).State)
			}
		case jsontree.Array:
			k := 0
			for j, end := i+1, tr.Next(i); j < end; j = tr.Next(j) {
				walk(j, st.Item(k).State)
				k++
			}
		}
	}
	walk(0, cs.start)
	return out
}
