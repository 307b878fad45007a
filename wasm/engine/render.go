package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/veilmcp/veil/wasm/internal/jsonx"
)

// This file writes the agent view of an output from which something was
// withheld: a CallToolResult whose first TextContent is the runtime's
// notice, whose content keeps what the walk kept, and whose _meta lists
// what was withheld. The shapes' own writers are in mcp.go.

// render writes the view; pointers name what was withheld.
func (w *walker) render(pointers []string) []byte {
	w.markDirty()
	s := w.scrubber
	if s == nil {
		s = w.newScrubber()
	}
	notice := []byte(w.notice())
	pointers = w.agentPointers(pointers)
	// A pointer names members; a name above the last can be a withheld
	// string (a member withholdNames withheld, around one the walk did).
	for i, p := range pointers {
		if w.namesPublic(w.held[i]) {
			continue
		}
		if c, ok := s.scrubPointer(p); ok {
			pointers[i] = c
		}
	}
	meta := w.meta(pointers)

	if w.isResult && w.act[0] == keep {
		return w.renderResult(notice, meta, s)
	}
	// A value, or a result withheld whole, of which the agent gets the
	// notice alone.
	return w.renderValue(notice, meta, s)
}

// renderResult writes the view of an output that is a CallToolResult: its
// own members as the walk kept them, the notice first in its content, and
// meta added to its _meta.
func (w *walker) renderResult(notice, meta []byte, s *scrubber) []byte {
	b := make([]byte, 0, 2*len(w.tr.src)+1024)
	b = append(b, '{')
	first := true
	sep := func() {
		if !first {
			b = append(b, ',')
		}
		first = false
	}
	sawMeta := false
	w.tr.children(0, func(j int) {
		if w.act[j] != keep {
			return
		}
		n := &w.tr.nodes[j]
		sep()
		b = append(b, w.tr.src[n.keyStart:n.start]...)
		switch w.tr.key(j) {
		case "content":
			b = append(b, '[')
			b = appendTextContent(b, notice)
			w.tr.children(j, func(k int) {
				if w.act[k] == withhold || w.act[k] == drop {
					return
				}
				b = append(b, ',')
				b = w.emit(b, k, s)
			})
			b = w.listReferences(b, s)
			if w.mode == allowMode && w.target >= 0 && w.act[w.target] == keep {
				b = append(b, ',')
				b = appendTextContent(b, w.emit(nil, w.target, s))
			}
			b = append(b, ']')
		case "_meta":
			sawMeta = true
			if n.kind == kObject {
				b = w.emit(b, j, s)
				b = b[:len(b)-1]
				if b[len(b)-1] != '{' {
					b = append(b, ',')
				}
				b = append(jsonx.AppendString(b, MetaKey), ':')
				b = append(b, meta...)
				b = append(b, '}')
			} else {
				b = w.emit(b, j, s)
			}
		default:
			b = w.emit(b, j, s)
		}
	})
	if !sawMeta {
		sep()
		b = appendMeta(b, MetaKey, meta)
	}
	b = append(b, '}')
	return b
}

// renderValue writes the view of an output that is not a CallToolResult:
// a CallToolResult of the notice, the value as text, the references, the
// value as structuredContent when it is an object, and meta. The value is
// written first, so that the view's buffer is made its exact size once: a
// view of a large output is as large, and the engine's memory only grows.
func (w *walker) renderValue(notice, meta []byte, s *scrubber) []byte {
	visible := w.act[0] == keep
	if visible && w.tr.nodes[0].kind == kObject {
		return w.renderObject(notice, meta, s)
	}
	object := visible && w.tr.nodes[0].kind == kObject
	var value, text []byte
	if visible {
		value = w.emit(make([]byte, 0, len(w.tr.src)), 0, s)
		text = value
		if w.tr.nodes[0].kind == kString {
			// A string result is its own text, not its JSON.
			str, _ := w.scrubString(0, s)
			text = []byte(str)
		}
	}
	refs := w.listReferences(nil, s)

	size := len(callToolResultStart) + textContentLen(notice) + len(refs) + len("]") +
		len(",") + metaLen(MetaKey, meta) + len("}")
	if visible {
		size += len(",") + textContentLen(text)
	}
	if object {
		size += len(structuredMember) + len(value)
	}
	b := make([]byte, 0, size)
	b = append(b, callToolResultStart...)
	b = appendTextContent(b, notice)
	if visible {
		b = append(b, ',')
		b = appendTextContent(b, text)
	}
	b = append(b, refs...)
	b = append(b, ']')
	if object {
		b = append(b, structuredMember...)
		b = append(b, value...)
	}
	b = appendMeta(append(b, ','), MetaKey, meta)
	return append(b, '}')
}

// structuredMember opens the structuredContent member of a
// CallToolResult, after the member before it.
const structuredMember = `,"structuredContent":`

// renderObject is renderValue for a kept object, written in one buffer:
// the value is emitted where its text goes, moved to where it ends up as
// structuredContent, and its text written before it from there. A call's
// peak then holds the view once, not the value beside a view that holds
// it twice. (An array's view holds it once, as text: the value beside it
// costs no more.)
func (w *walker) renderObject(notice, meta []byte, s *scrubber) []byte {
	src := len(w.tr.src)
	// The value is about the output's size; its text escapes its quotes.
	guess := len(callToolResultStart) + textContentLen(notice) + len(",") + len(`{"type":"text","text":""}`) + src + src/8 +
		len("]") + len(structuredMember) + src + len(",") + metaLen(MetaKey, meta) + len("}") + 256
	b := make([]byte, 0, guess)
	b = append(b, callToolResultStart...)
	b = appendTextContent(b, notice)
	b = append(b, ',')
	p := len(b)
	b = w.emit(b, 0, s)
	v := len(b) - p
	refs := w.listReferences(nil, s)
	// Where the value goes: after its text, the references, the end of
	// content and the member's name.
	at := p + textContentLen(b[p:]) + len(refs) + len("]") + len(structuredMember)
	if need := at + v + len(",") + metaLen(MetaKey, meta) + len("}"); cap(b) < need {
		nb := make([]byte, len(b), need)
		copy(nb, b)
		b = nb
	}
	b = b[:max(len(b), at+v)]
	copy(b[at:at+v], b[p:p+v])
	// The text lies before the value's new place: nothing it writes is
	// read after.
	b = appendTextContent(b[:p], b[at:at+v])
	b = append(b, refs...)
	b = append(b, ']')
	b = append(b, structuredMember...)
	b = b[:at+v]
	b = appendMeta(append(b, ','), MetaKey, meta)
	return append(b, '}')
}

// agentPointers returns the pointers of what was withheld as the agent
// reads them: a withheld member whose name the agent does not read, in
// the tool's schemas or MCP's vocabulary, is named by its position, "#2",
// not by a name that may itself be what was withheld (a map keyed by
// session tokens). The names above it are those of members the view
// keeps, which the agent reads anyway. The vault keeps the real pointers,
// which the user sees.
func (w *walker) agentPointers(pointers []string) []string {
	tr := w.tr
	var out []string
	for k, h := range w.held {
		n := &tr.nodes[h]
		if n.parent < 0 || tr.nodes[n.parent].kind != kObject || w.t.publicName(tr.key(h)) {
			continue
		}
		if out == nil {
			out = slices.Clone(pointers)
		}
		b := tr.appendPointer(nil, int(n.parent))
		out[k] = string(strconv.AppendInt(append(b, "/#"...), int64(n.index), 10))
	}
	if out == nil {
		return pointers
	}
	return out
}

// namesPublic reports whether every member name above node i is one the
// agent reads anyway, in the tool's schemas or MCP's vocabulary.
func (w *walker) namesPublic(i int) bool {
	tr := w.tr
	for p := int(tr.nodes[i].parent); p > 0; p = int(tr.nodes[p].parent) {
		if pp := tr.nodes[p].parent; tr.nodes[pp].kind == kObject && !w.t.publicName(tr.key(p)) {
			return false
		}
	}
	return true
}

// listReferences appends, in text mode, the references that stood inside
// withheld values, reduced.
func (w *walker) listReferences(b []byte, s *scrubber) []byte {
	if w.mode != textMode {
		return b
	}
	for _, r := range w.refs {
		if !r.visible {
			b = append(b, ',')
			b = appendSecretReference(b, r, s)
		}
	}
	return b
}

// markDirty marks every node that holds, at or below it, something the
// view changes; the rest can be copied as whole spans.
func (w *walker) markDirty() {
	w.dirty = make([]bool, len(w.tr.nodes))
	w.searchChildren = false
	mark := func(i int) {
		for p := i; p >= 0 && !w.dirty[p]; p = int(w.tr.nodes[p].parent) {
			w.dirty[p] = true
		}
	}
	for i, a := range w.act {
		if a != keep {
			mark(i)
		}
	}
	for i := range w.local {
		mark(i)
	}
	for i := range w.cuts {
		mark(i)
	}
}

// scrubString returns the string at node i as the agent gets it: without
// any withheld value, and without the fields of the references read in
// it, however short (local).
func (w *walker) scrubString(i int, s *scrubber) (string, bool) {
	str, cut := w.tr.str(i), false
	if c := w.cuts[i]; c != nil {
		// Part of a value split across this string and its neighbours.
		str, cut = removeSpans(str, slices.Clone(c)), true
	}
	str, changed := s.scrub(str)
	changed = changed || cut
	if l := w.local[i]; l != nil {
		if c, ok := newScrubber(l).scrub(str); ok {
			str, changed = c, true
		}
	}
	return str, changed
}

// notice is the text that tells the model what happened. It never holds a
// placeholder where a value was: a model may take one for the value.
func (w *walker) notice() string {
	var parts []string
	if n := len(w.held); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s withheld from this result because %s sensitive", n, plural(n, "value was", "values were"), plural(n, "it is", "they are")))
	}
	if n := len(w.refs); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s held for the user", n, plural(n, "secret is", "secrets are")))
	}
	var b strings.Builder
	if len(parts) > 0 {
		b.WriteString(strings.Join(parts, "; "))
		if len(w.held)+len(w.refs) == 1 {
			b.WriteString(". The user can reveal it on the page; it was not sent to you, so do not guess it or ask the user to share it.")
		} else {
			b.WriteString(". The user can reveal them on the page; they were not sent to you, so do not guess them or ask the user to share them.")
		}
	}
	if n := len(w.invalid); n > 0 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d secret %s invalid and withheld.", n, plural(n, "reference was", "references were"))
	}
	if b.Len() == 0 && w.echoed {
		b.WriteString("Text that repeats values withheld from you earlier in this session was removed from this result. The user can see them on the page; do not guess them or ask the user to share them.")
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// meta is the value of the MetaKey member of the view's _meta.
func (w *walker) meta(pointers []string) []byte {
	size := 64 + len(pointers)
	for _, p := range pointers {
		size += jsonx.QuotedLen(p)
	}
	b := append(make([]byte, 0, size), `{"withheld":[`...)
	for i, p := range pointers {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonx.AppendString(b, p)
	}
	b = append(b, `],"references":`...)
	b = strconv.AppendInt(b, int64(len(w.refs)), 10)
	b = append(b, `,"invalidReferences":`...)
	b = strconv.AppendInt(b, int64(len(w.invalid)), 10)
	return append(b, '}')
}

// emit appends the JSON of node i as the agent sees it.
func (w *walker) emit(b []byte, i int, s *scrubber) []byte {
	tr := w.tr
	n := &tr.nodes[i]
	if w.act[i] == reduce {
		return appendSecretReference(b, w.refs[w.refAt[i]], s)
	}
	container := n.kind == kObject || n.kind == kArray
	// A string is searched once, by its scrub, which finds what the
	// search of its span would and removes it; one that may be JSON text
	// is scrubbed only when the search of its span finds something.
	filter := !w.dirty[i] && (!container || !w.searchChildren) &&
		(n.kind != kString || looksLikeJSON(tr.str(i)))
	if filter {
		// A span with no escapes holds each string and member name as its
		// characters and has no other decoding, so a search of its bytes
		// finds every withheld value in it.
		span := tr.src[n.start:n.end]
		if !hasEscapes(span, s.plus) && !s.containsRaw(span) {
			return append(b, span...)
		}
	}
	switch n.kind {
	case kString:
		if c, ok := w.scrubString(i, s); ok {
			w.rewritten++
			return jsonx.AppendString(b, c)
		}
		return append(b, tr.src[n.start:n.end]...)
	case kObject, kArray:
		// Its span holds something, or was not searched: a container in
		// it is searched part by part, and so is each after one in which
		// a string was rewritten (an output repeats one shape: where one
		// record echoes a value, the next likely does), while one after a
		// container that was copied unchanged is searched whole first. A
		// search of a whole span that finds something is found again by
		// the searches of its parts.
		hot := true
		return tr.appendContainer(b, i,
			func(j int) bool { return w.act[j] == withhold || w.act[j] == drop },
			func(b []byte, j int) []byte {
				k := tr.nodes[j].kind
				if k != kObject && k != kArray {
					return w.emit(b, j, s)
				}
				before := w.rewritten
				w.searchChildren = hot
				b = w.emit(b, j, s)
				hot = w.rewritten > before
				return b
			})
	default:
		return append(b, tr.src[n.start:n.end]...)
	}
}
