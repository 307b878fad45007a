package engine

import (
	"unsafe"

	"github.com/veilmcp/veil/wasm/engine/internal/schema"
	"github.com/veilmcp/veil/wasm/pattern"
)

// This file decides, node by node, what the agent view keeps of an output:
// the walk over the parsed tree, against the tool's outputSchema and its
// mode, and what else rule (d) withholds.

// action is what the view does with one node.
type action uint8

const (
	keep     action = iota
	withhold        // left out, held for the user
	reduce          // a valid secret_reference, shown as {type, label, ttl}
	drop            // an invalid secret_reference, left out
)

// mode is how a sensitive tool's output is filtered.
type mode uint8

const (
	denyMode  mode = iota // withhold x-sensitive locations
	allowMode             // keep only declared, non-sensitive locations
	textMode              // sensitiveHint with references: text items only
	wholeMode             // sensitiveHint: withhold everything
)

// walker decides, in one pass, what happens to every node.
type walker struct {
	e     *Engine
	t     *tool
	call  string // the call's id, under which its items are held
	tr    *tree
	act   []action
	held  []int // withheld nodes
	dirty []bool
	// searchChildren tells the render's emit that the container it
	// writes next is searched part by part, not whole first (emit).
	searchChildren bool
	// rewritten counts the strings the render has written scrubbed.
	rewritten int
	refAt     map[int]int // reduced node -> index in refs
	refs      []reference
	invalid   []string
	// set is what rule (d) removes: the session's set, to which what the
	// view withholds is added as it goes.
	set *scrubSet
	// viewOnly is what this view removes but later views need not: the
	// member names it withholds that are not specific enough for the
	// session's set (addName), and the labels of references it withholds.
	viewOnly *scrubSet
	// own is what the page withholds from this call's output alone
	// (Scrub), whatever its length.
	own      *scrubSet
	scrubber *scrubber // for set, viewOnly and own, once withholdNames has settled it
	// echoed: the view withholds nothing of its own, but a kept string
	// repeats a value withheld earlier in the session.
	echoed bool
	// deep: what is being withheld is sensitive in itself, so JSON text
	// in it gives up its values too (withholdSensitive).
	deep bool
	// hinted: what is withheld is withheld only because the whole output
	// was (sensitiveHint without a schema), so only what looks like a
	// secret or an identifier (hintedParts) joins the session's set; the
	// rest is removed from this view alone.
	hinted bool
	// cuts lists, by string node, the spans of values split across it
	// and its neighbours (joins.go).
	cuts map[int][][2]int
	// local holds, by string node, the fields of the references read in
	// that string: they go from it whatever their length, as rule (c)
	// says no field but type, label and ttl reaches the agent.
	local    map[int]*scrubSet
	mode     mode
	isResult bool // the output is a CallToolResult
	// noMentions: the whole output was searched for secret_reference, in
	// every decoding a string of it gets and one more (mayHaveReference),
	// and names none: no string's own search could find one.
	noMentions bool
	target     int // the node outputSchema describes, or -1
	// shapes remembers, per schema state, the member names of the last
	// object walked there and their transitions: an output repeats one
	// shape thousands of times.
	shapes map[*schema.State]*objectShape
}

type objectShape struct {
	keys  []string
	trans []schema.Transition
}

// transitions returns the transition of each member of object node i,
// whose state is st.
func (w *walker) transitions(st *schema.State, i int) []schema.Transition {
	tr := w.tr
	sh := w.shapes[st]
	if sh != nil {
		k := 0
		for j := i + 1; j < int(tr.nodes[i].next); j = int(tr.nodes[j].next) {
			if k >= len(sh.keys) || sh.keys[k] != tr.key(j) {
				sh = nil
				break
			}
			k++
		}
		if sh != nil && k == len(sh.keys) {
			return sh.trans
		}
	}
	sh = &objectShape{}
	for j := i + 1; j < int(tr.nodes[i].next); j = int(tr.nodes[j].next) {
		sh.keys = append(sh.keys, tr.key(j))
		sh.trans = append(sh.trans, st.Member(tr.key(j)))
	}
	if w.shapes == nil {
		w.shapes = map[*schema.State]*objectShape{}
	}
	w.shapes[st] = sh
	return sh.trans
}

// view makes the agent view of output tr of tool t. own, when not nil,
// holds values the page withholds from this call's output alone (Scrub):
// they are removed as the session's values are. noMentions says that
// mayHaveReference(tr.src, 1) is false.
func (e *Engine) view(t *tool, tr *tree, o Outcome, own *scrubSet, noMentions bool) Result {
	// What the view withholds joins the session's set as it goes, and
	// what it keeps is scrubbed of all the set holds.
	e.session.mu.Lock()
	defer e.session.mu.Unlock()
	defer e.session.settle()
	e.session.nextView()
	w := &walker{e: e, t: t, call: o.Call, tr: tr, act: make([]action, len(tr.nodes)), set: &e.session.set, own: own, target: 0, noMentions: noMentions}
	sessionHeld := !e.session.set.empty() || !own.empty()
	if e.session.full {
		// Nothing it withholds could be recognised again: it keeps its
		// own set, and withholds everything.
		w.set = &scrubSet{}
	}
	root := &tr.nodes[0]
	if root.kind == kObject {
		if c := tr.member(0, "content"); c >= 0 && tr.nodes[c].kind == kArray {
			w.isResult = true
			w.target = tr.member(0, "structuredContent")
		}
	}

	if t.declaresAny && t.output != nil {
		e.patternWork.Store(pattern.MaxBacktrackingWork)
		if w.target < 0 {
			return Result{Err: t.failure("the result has no structuredContent to match the outputSchema")}
		}
		if !t.output.Conforms(tr, w.target) {
			return Result{Err: t.failure("the output does not match the outputSchema")}
		}
	}

	switch {
	case e.session.full:
		// A value withheld once the session's set was full could not be
		// recognised again: nothing passes.
		w.mode = wholeMode
	case t.hint && t.output != nil && t.output.AnySensitive():
		w.mode = allowMode
	case t.hint && w.hasValidReference(0):
		w.mode = textMode
	case t.hint:
		w.mode = wholeMode
	}
	w.hinted = t.hint && !e.session.full && (w.mode == wholeMode || w.mode == textMode)

	var start *schema.State
	if t.output != nil {
		start = t.output.Start()
	}
	reserved := w.dropReserved()
	if w.mode == wholeMode || (w.mode == textMode && !w.isResult) {
		// A plain value has no text items: all of it is withheld, and
		// its references reach the agent in the notice's company.
		w.withholdSensitive(0)
	} else if !w.isResult {
		w.walk(0, start, true)
	} else {
		w.result(start)
	}
	if w.mode != wholeMode {
		w.mentionLines()
	}

	embedded := w.mode != wholeMode && t.output != nil && t.output.AnySensitive() && w.embeddedValues(start)
	if !w.withholdNames() {
		return Result{Err: t.failure("the output's withheld values name each other more than the runtime follows")}
	}
	joined := w.joins(w.scrubber)
	withheld := len(w.held) > 0 || len(w.refs) > 0 || len(w.invalid) > 0
	// What repeats a value withheld earlier in the session, or that the
	// schema makes sensitive in a string's JSON text, is removed.
	w.echoed = !withheld && (embedded || sessionHeld && (joined || w.echoes(w.scrubber)))
	if w.isResult && (withheld || w.echoed || joined || sessionHeld) && w.withholdMedia() {
		// The media beside what was withheld or removed go too, and so
		// do those of every output once the session withheld something:
		// no search reads an image, and any tool can draw one of a value
		// withheld earlier (media.go).
		if !w.withholdNames() {
			return Result{Err: t.failure("the output's withheld values name each other more than the runtime follows")}
		}
		withheld = true
	}
	if !withheld {
		// Nothing withheld: the output passes as the tool wrote it, but
		// for the runtime's own keys and what repeats a value withheld
		// earlier in the session.
		if !w.echoed {
			if reserved > 0 {
				w.markDirty()
				b := w.emit(nil, 0, w.scrubber)
				return Result{Agent: string(b), Reserved: reserved}
			}
			return Result{Agent: o.Data, Unchanged: true}
		}
	}
	res := w.build()
	res.Reserved = reserved
	return res
}

// echoes reports whether a string the view keeps holds a value withheld
// before. Member names and numbers that do are withheld already
// (withholdNames).
func (w *walker) echoes(s *scrubber) bool {
	if !s.any {
		return false
	}
	tr := w.tr
	if span := tr.src; !hasEscapes(span, s.plus) && !s.containsRaw(span) {
		return false
	}
	for i := 0; i < len(tr.nodes); {
		if w.act[i] != keep {
			i = int(tr.nodes[i].next)
			continue
		}
		if tr.nodes[i].kind == kString && s.contains(tr.str(i)) {
			return true
		}
		i++
	}
	return false
}

// maxNamePasses bounds withholdNames: real outputs settle in one or two
// passes; a chain of members each named by the last one withheld is made
// to stall the engine, and fails closed.
const maxNamePasses = 16

// withholdNames withholds every member whose name holds a withheld value,
// every number that has a withheld value and every array of byte values
// whose bytes hold one (byteArrayHolds): rule (d) reaches member names,
// numbers and bytes too, and none can be emptied as a string can. What
// it withholds can hold more values to scrub, so it repeats until nothing
// changes, at most maxNamePasses times; it reports false past that.
func (w *walker) withholdNames() bool {
	for pass := 0; ; pass++ {
		if pass == maxNamePasses {
			return false
		}
		s := w.newScrubber()
		// Until it finds a node to withhold, it is the scrubber for the
		// final set.
		w.scrubber = s
		if !s.any {
			return true
		}
		found := false
		tr := w.tr
		// An output repeats its member names thousands of times: each is
		// searched once a pass.
		names := map[string]bool{}
		holds := func(key string) bool {
			h, ok := names[key]
			if !ok {
				h = s.contains(key)
				names[key] = h
			}
			return h
		}
		for i := 0; i < len(tr.nodes); {
			if w.act[i] != keep {
				i = int(tr.nodes[i].next)
				continue
			}
			n := &tr.nodes[i]
			if p := n.parent; p >= 0 && tr.nodes[p].kind == kObject && !w.t.publicName(tr.key(i)) && holds(tr.key(i)) ||
				n.kind == kNumber && s.numberHolds(tr.text(i)) && !yearMember(tr, i) || s.byteArrayHolds(tr, i) {
				w.withhold(i)
				found = true
				i = int(n.next)
				continue
			}
			i++
		}
		if !found {
			return true
		}
	}
}

// result walks a CallToolResult member by member.
func (w *walker) result(start *schema.State) {
	tr := w.tr
	tr.children(0, func(j int) {
		if w.act[j] == drop {
			return
		}
		switch key := tr.key(j); {
		case key == "content":
			tr.children(j, w.contentItem)
		case key == "structuredContent":
			if w.mode == textMode {
				w.withholdSensitive(j)
			} else {
				w.walk(j, start, true)
			}
		case key == "isError" && tr.nodes[j].kind == kBool:
		case w.mode == denyMode:
			// A member MCP does not define, which the schema does not
			// describe either.
			w.walk(j, nil, false)
		default:
			w.withhold(j)
		}
	})
}

func (w *walker) contentItem(k int) {
	switch {
	case w.referenceKind(k) != notReference:
		w.reference(k, refInPlace)
	case w.mode == denyMode:
		// A text item whose text names secret_reference without a valid
		// one goes whole, as in text mode.
		if text := w.tr.member(k, "text"); text >= 0 && w.tr.nodes[text].kind == kString && mayMention(w.tr.str(text)) {
			if w.embedded(text, k); w.act[k] != withhold {
				w.tr.children(k, func(j int) {
					if j != text {
						w.walk(j, nil, false)
					}
				})
			}
			return
		}
		w.walk(k, nil, true)
	case w.mode == textMode && w.isText(k):
		// Text items reach the agent, scrubbed.
		if text := w.tr.member(k, "text"); mayMention(w.tr.str(text)) {
			w.embedded(text, k)
		}
	default:
		w.withhold(k)
	}
}

func (w *walker) isText(k int) bool {
	tr := w.tr
	if tr.nodes[k].kind != kObject {
		return false
	}
	typ := tr.member(k, "type")
	text := tr.member(k, "text")
	if typ < 0 || tr.nodes[typ].kind != kString || tr.str(typ) != "text" || text < 0 || tr.nodes[text].kind != kString {
		return false
	}
	// Only type and text: anything else rides along unseen.
	n := 0
	tr.children(k, func(int) { n++ })
	return n == 2
}

// walk decides node i at a location whose schema state is st (nil: no
// schema) and which the schema declares or not.
func (w *walker) walk(i int, st *schema.State, declared bool) {
	tr := w.tr
	n := &tr.nodes[i]
	if w.act[i] == drop {
		return
	}
	if st != nil && (st.Sensitive() || st.Below() != 0 && !st.Below().Takes(n.kind)) {
		w.withholdSensitive(i)
		return
	}
	if p := n.parent; p >= 0 && tr.nodes[p].kind == kObject {
		if w.nameMentions(i) {
			return
		}
		if !declared && w.t.output != nil && w.t.namesSensitive(tr.key(i)) {
			// Named as a sensitive property, where the schema declares
			// nothing: the value it describes, in an envelope.
			w.withholdSensitive(i)
			return
		}
	}
	if w.mode == allowMode && !declared {
		w.withhold(i)
		return
	}
	switch n.kind {
	case kObject:
		if w.referenceKind(i) != notReference {
			w.reference(i, refInPlace)
			return
		}
		if st == nil {
			tr.children(i, func(j int) { w.walk(j, nil, false) })
			return
		}
		st = st.WithMembers(func(yield func(string) bool) {
			for j := i + 1; j < int(tr.nodes[i].next); j = int(tr.nodes[j].next) {
				if !yield(tr.key(j)) {
					return
				}
			}
		})
		if st.KeysSensitive() {
			// The member names are sensitive: the object goes whole, and
			// its names join the scrub set as the values they are, so no
			// pointer names them and no later output repeats them.
			w.withholdSensitive(i)
			tr.children(i, func(j int) { w.set.addString(tr.key(j)) })
			return
		}
		trans := w.transitions(st, i)
		for k, j := 0, i+1; j < int(n.next); k, j = k+1, int(tr.nodes[j].next) {
			w.walk(j, trans[k].State, trans[k].Declared)
		}
	case kString:
		if !w.noMentions && mayMention(tr.str(i)) {
			w.embedded(i, w.mentionUnit(i))
		}
	case kArray:
		idx := 0
		tr.children(i, func(j int) {
			if st == nil {
				w.walk(j, nil, false)
			} else {
				t := st.Item(idx)
				w.walk(j, t.State, t.Declared)
			}
			idx++
		})
	}
}

// withhold holds node i for the user. Its strings, numbers and member
// names join the scrub set, and the references inside it are held too.
// In text mode they reach the agent reduced, after the content; otherwise
// the agent learns only their number, as their labels stood at a withheld
// location.
func (w *walker) withhold(i int) {
	w.act[i] = withhold
	w.held = append(w.held, i)
	w.collect(i)
}

// build makes the agent view of an output from which something was
// withheld: the values are held for the user (hold.go), and the view is
// written (render.go).
func (w *walker) build() Result {
	pointers, err := w.pointers()
	if err != nil {
		return Result{Err: err}
	}
	held := w.hold(pointers)
	b := w.render(pointers)
	// b is never written again, so the view can share its bytes.
	return Result{Agent: unsafe.String(unsafe.SliceData(b), len(b)), Held: held, Invalid: w.invalid, noticed: true}
}
