package engine

// sensitiveInput returns the JSON Pointers of the values in a call's input
// that the tool's inputSchema marks x-sensitive: the confirmation shows
// the input and hides those. A nil schema marks nothing.
func (cs *compiledSchema) sensitiveInput(tr *tree) []string {
	if cs == nil || !cs.anySensitive {
		return nil
	}
	var out []string
	var walk func(i int, st *sstate)
	walk = func(i int, st *sstate) {
		if st == nil {
			return
		}
		if st.sensitive {
			out = append(out, tr.pointer(i))
			return
		}
		switch tr.nodes[i].kind {
		case kObject:
			st = st.withMembers(func(yield func(string) bool) {
				for j := i + 1; j < int(tr.nodes[i].next); j = int(tr.nodes[j].next) {
					if !yield(tr.key(j)) {
						return
					}
				}
			})
			if st.keysSensitive {
				out = append(out, tr.pointer(i))
				return
			}
			tr.children(i, func(j int) { walk(j, st.member(tr.key(j)).st) })
		case kArray:
			k := 0
			tr.children(i, func(j int) {
				walk(j, st.item(k).st)
				k++
			})
		}
	}
	walk(0, cs.start)
	return out
}
