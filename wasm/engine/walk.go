package engine

import (
	"strings"
	"time"
	"unsafe"

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
	e       *Engine
	t       *tool
	call    string // the call's id, under which its items are held
	tr      *tree
	act     []action
	held    []int // withheld nodes
	dirty   []bool
	refAt   map[int]int // reduced node -> index in refs
	refs    []reference
	invalid []string
	// set is what rule (d) removes: the session's set, to which what the
	// view withholds is added as it goes.
	set *scrubSet
	// viewOnly is what this view removes but later views need not: the
	// member names it withholds that are not specific enough for the
	// session's set (addName), and the labels of references it withholds.
	viewOnly *scrubSet
	scrubber *scrubber // for set and viewOnly, once withholdNames has settled it
	// echoed: the view withholds nothing of its own, but a kept string
	// repeats a value withheld earlier in the session.
	echoed bool
	// deep: what is being withheld is sensitive in itself, so JSON text
	// in it gives up its values too (withholdSensitive).
	deep bool
	// cuts lists, by string node, the spans of values split across it
	// and its neighbours (joins.go).
	cuts map[int][][2]int
	// local holds, by string node, the fields of the references read in
	// that string: they go from it whatever their length, as rule (c)
	// says no field but type, label and ttl reaches the agent.
	local    map[int]*scrubSet
	mode     mode
	isResult bool // the output is a CallToolResult
	target   int  // the node outputSchema describes, or -1
	// shapes remembers, per schema state, the member names of the last
	// object walked there and their transitions: an output repeats one
	// shape thousands of times.
	shapes map[*sstate]*objectShape
}

type objectShape struct {
	keys  []string
	trans []transition
}

// transitions returns the transition of each member of object node i,
// whose state is st.
func (w *walker) transitions(st *sstate, i int) []transition {
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
		sh.trans = append(sh.trans, st.member(tr.key(j)))
	}
	if w.shapes == nil {
		w.shapes = map[*sstate]*objectShape{}
	}
	w.shapes[st] = sh
	return sh.trans
}

func (e *Engine) view(t *tool, tr *tree, o Outcome) Result {
	// What the view withholds joins the session's set as it goes, and
	// what it keeps is scrubbed of all the set holds.
	e.session.mu.Lock()
	defer e.session.mu.Unlock()
	defer e.session.settle()
	e.session.nextView()
	w := &walker{e: e, t: t, call: o.Call, tr: tr, act: make([]action, len(tr.nodes)), set: &e.session.set, target: 0}
	sessionHeld := !e.session.set.empty()
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
		if !t.output.conforms(tr, w.target) {
			return Result{Err: t.failure("the output does not match the outputSchema")}
		}
	}

	switch {
	case e.session.full:
		// A value withheld once the session's set was full could not be
		// recognised again: nothing passes.
		w.mode = wholeMode
	case t.hint && t.output != nil && t.output.anySensitive:
		w.mode = allowMode
	case t.hint && w.hasValidReference(0):
		w.mode = textMode
	case t.hint:
		w.mode = wholeMode
	}

	var start *sstate
	if t.output != nil {
		start = t.output.start
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

	embedded := w.mode != wholeMode && t.output != nil && t.output.anySensitive && w.embeddedValues(start)
	if !w.withholdNames() {
		return Result{Err: t.failure("the output's withheld values name each other more than the runtime follows")}
	}
	joined := w.joins(w.scrubber)
	withheld := len(w.held) > 0 || len(w.refs) > 0 || len(w.invalid) > 0
	// What repeats a value withheld earlier in the session, or that the
	// schema makes sensitive in a string's JSON text, is removed.
	w.echoed = !withheld && (embedded || sessionHeld && (joined || w.echoes(w.scrubber)))
	if w.isResult && (withheld || w.echoed || joined) && w.withholdMedia() {
		// The media beside what was withheld or removed go too.
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

// withholdMedia withholds the content items the engine cannot read (an
// image, audio, a resource's blob) of a result from which something was
// withheld: a QR code of a withheld secret, a screenshot of a withheld
// record. A tool that says its media never show what it withholds
// (dev.veil/safeMedia in its _meta) keeps them. It reports whether it
// withheld any.
func (w *walker) withholdMedia() bool {
	if w.t.ann.Meta.SafeMedia {
		return false
	}
	tr := w.tr
	c := tr.member(0, "content")
	if c < 0 || w.act[c] != keep {
		return false
	}
	found := false
	tr.children(c, func(k int) {
		if w.act[k] == keep && isMedia(tr, k) {
			w.withhold(k)
			found = true
		}
	})
	return found
}

// isMedia reports whether content item k holds what no text search reads:
// an image, audio, an embedded resource with a blob, or an item of a type
// the engine does not know.
func isMedia(tr *tree, k int) bool {
	if tr.nodes[k].kind != kObject {
		return false
	}
	typ := tr.member(k, "type")
	if typ < 0 || tr.nodes[typ].kind != kString {
		return true // not an MCP content item: nothing says what it is
	}
	switch tr.str(typ) {
	case "text", "resource_link", referenceType:
		return false
	case "resource":
		r := tr.member(k, "resource")
		return r < 0 || tr.nodes[r].kind != kObject || tr.member(r, "blob") >= 0
	}
	// An image, audio, or a type the engine does not know.
	return true
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
// and every number that has a withheld value: rule (d) reaches member
// names and numbers too, and neither can be emptied as a string can. What
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
				n.kind == kNumber && s.numberHolds(tr.text(i)) {
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
func (w *walker) result(start *sstate) {
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
func (w *walker) walk(i int, st *sstate, declared bool) {
	tr := w.tr
	n := &tr.nodes[i]
	if w.act[i] == drop {
		return
	}
	if st != nil && (st.sensitive || st.below != 0 && !st.below.takes(n.kind)) {
		w.withholdSensitive(i)
		return
	}
	if p := n.parent; p >= 0 && tr.nodes[p].kind == kObject {
		if w.nameMentions(i) {
			return
		}
		if !declared && w.t.output != nil && w.t.output.namesSensitive(tr.key(i)) {
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
		st = st.withMembers(func(yield func(string) bool) {
			for j := i + 1; j < int(tr.nodes[i].next); j = int(tr.nodes[j].next) {
				if !yield(tr.key(j)) {
					return
				}
			}
		})
		if st.keysSensitive {
			// The member names are sensitive: the object goes whole, and
			// its names join the scrub set as the values they are, so no
			// pointer names them and no later output repeats them.
			w.withholdSensitive(i)
			tr.children(i, func(j int) { w.set.addString(tr.key(j)) })
			return
		}
		trans := w.transitions(st, i)
		for k, j := 0, i+1; j < int(n.next); k, j = k+1, int(tr.nodes[j].next) {
			w.walk(j, trans[k].st, trans[k].declared)
		}
	case kString:
		if mayMention(tr.str(i)) {
			w.embedded(i, w.mentionUnit(i))
		}
	case kArray:
		idx := 0
		tr.children(i, func(j int) {
			if st == nil {
				w.walk(j, nil, false)
			} else {
				t := st.item(idx)
				w.walk(j, t.st, t.declared)
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

// embeddedValues reads the JSON text in each string of the output (the
// MCP convention of a text item holding the result's JSON, a resource's
// text, a payload member, JSON Lines, JSON quoted in prose, JSON text
// stringified twice) as the value outputSchema describes, and adds what
// the schema makes sensitive there to what rule (d) removes: from a
// string the view keeps, which is rewritten without it, and from every
// later output, also when the string itself is withheld (an undeclared
// member in an allowlist). It reports whether a string the view keeps
// held any.
func (w *walker) embeddedValues(start *sstate) bool {
	tr := w.tr
	found := false
	withheldUntil := 0 // the end of the withheld subtree the walk is in
	for i := 0; i < len(tr.nodes); i++ {
		switch w.act[i] {
		case drop:
			i = int(tr.nodes[i].next) - 1
			continue
		case withhold:
			withheldUntil = max(withheldUntil, int(tr.nodes[i].next))
		}
		if tr.nodes[i].kind == kString && w.jsonTextValues(tr.str(i), start, 0) && i >= withheldUntil {
			found = true
		}
	}
	return found
}

// jsonTextValues reads each JSON value written in str against the schema
// (embeddedValues), at depth of JSON text in JSON text, and reports
// whether the schema makes any of it sensitive.
func (w *walker) jsonTextValues(str string, start *sstate, depth int) bool {
	if depth > maxEmbeddedDepth || !strings.ContainsAny(str, "{[\"") {
		return false
	}
	found := false
	if t := strings.TrimSpace(str); strings.HasPrefix(t, `"`) {
		// JSON text stringified again.
		if sub, err := parseTree(t); err == nil && sub.nodes[0].kind == kString {
			return w.jsonTextValues(sub.str(0), start, depth+1)
		}
	}
	read, failed := 0, 0
	for pos := 0; pos < len(str); {
		j := strings.IndexAny(str[pos:], "{[")
		if j < 0 {
			break
		}
		begin := pos + j
		sub, end, err := parsePrefix(str[begin:])
		if read += end; read > maxEmbeddedRead*len(str)+maxEmbeddedSlack {
			break
		}
		if err != nil || sub.nodes[0].kind < kArray {
			if failed++; failed > maxEmbeddedTries {
				break
			}
			pos = begin + 1
			continue
		}
		sw := &walker{e: w.e, t: w.t, tr: sub, act: make([]action, len(sub.nodes)), set: w.set, viewOnly: w.viewOnlySet(), mode: denyMode}
		sw.walk(0, start, true)
		found = found || len(sw.held) > 0
		for k := range sub.nodes {
			if sub.nodes[k].kind == kString && sw.act[k] == keep && w.jsonTextValues(sub.str(k), start, depth+1) {
				found = true
			}
		}
		pos = begin + max(end, 1)
	}
	return found
}

// withholdSensitive withholds node i for what it is, not for where it
// stands: its strings that are JSON text give up what they hold too
// (collectJSONText).
func (w *walker) withholdSensitive(i int) {
	w.deep = true
	w.withhold(i)
	w.deep = false
}

// collect adds what node i holds to the scrub set: strings, numbers and
// member names, at any depth. Names the agent reads anyway, in the tool's
// schemas or in MCP's own vocabulary, are no values; nor is the type of
// an MCP content item.
func (w *walker) collect(i int) {
	tr := w.tr
	switch tr.nodes[i].kind {
	case kString:
		w.set.addString(tr.str(i))
		if w.deep {
			w.collectJSONText(tr.str(i), 0)
		}
	case kNumber:
		w.set.addNumber(tr.text(i))
	case kObject:
		if w.referenceKind(i) != notReference {
			w.reference(i, refWithheld)
			return
		}
		item := isContentItem(tr, i)
		ref := w.referenceLike(i)
		tr.children(i, func(j int) {
			key := tr.key(j)
			w.addName(key)
			switch lower := strings.ToLower(key); {
			case item && lower == "annotations" && tr.nodes[j].kind == kObject:
				// MCP's annotations say who an item is for and how much
				// it matters, in MCP's words; anything else in them is
				// what it holds.
				tr.children(j, func(k int) {
					if !mcpAnnotation(tr, k) {
						w.addName(tr.key(k))
						w.collect(k)
					}
				})
			case item && contentMeta[lower] && mcpWord(tr, j):
				// A content item's type and MIME type, in MCP's words,
				// are not what it holds.
			case ref && (lower == "label" || lower == "ttl"):
				// What a reference written another way shows ("API
				// key"): this view's to remove, not every later one's.
				w.collectViewOnly(j)
			default:
				w.collect(j)
			}
		})
	case kArray:
		tr.children(i, w.collect)
	}
}

// referenceLike reports whether object node i is a secret_reference or
// says it is one in another spelling: its type, object or kind names
// secret_reference.
func (w *walker) referenceLike(i int) bool {
	if w.referenceKind(i) != notReference {
		return true
	}
	tr := w.tr
	found := false
	tr.children(i, func(j int) {
		if k := strings.ToLower(tr.key(j)); !found && (k == "type" || k == "object" || k == "kind") && tr.nodes[j].kind == kString && mayMention(tr.str(j)) {
			spans, ok := mentions(tr.str(j), 0)
			found = !ok || len(spans) > 0
		}
	})
	return found
}

// collectJSONText adds what a withheld string holds when it is JSON text
// (a service account's key file, a record serialized into a field): its
// strings, numbers and names, as if they had stood in the output, so that
// a later output that holds the JSON, or a part of it, is scrubbed of
// them.
func (w *walker) collectJSONText(str string, depth int) {
	if depth >= maxEmbeddedDepth || !looksLikeJSON(str) {
		return
	}
	tr, err := parseTree(str)
	if err != nil || tr.nodes[0].kind < kArray {
		return
	}
	for i := range tr.nodes {
		n := &tr.nodes[i]
		if n.parent >= 0 && tr.nodes[n.parent].kind == kObject {
			w.addName(tr.key(i))
		}
		switch n.kind {
		case kString:
			w.set.addString(tr.str(i))
			w.collectJSONText(tr.str(i), depth+1)
		case kNumber:
			w.set.addNumber(tr.text(i))
		}
	}
}

// addName adds a member name inside what the view withholds to what rule
// (d) removes, unless the agent reads it anyway (publicName). A name that
// is specific (specificName: a token, an id) joins the session's set; any
// other, a word such as "note" or "owner", is removed from this view only,
// or it would strip that word from every later output of the session.
func (w *walker) addName(key string) {
	switch {
	case w.t.publicName(key):
	case specificName(key):
		w.set.addString(key)
	default:
		w.viewOnlySet().addString(key)
	}
}

// viewOnlySet returns the set of what this view removes but later views
// need not.
func (w *walker) viewOnlySet() *scrubSet {
	if w.viewOnly == nil {
		w.viewOnly = &scrubSet{}
	}
	return w.viewOnly
}

// specificName reports whether a member name is specific enough to
// remove from every later output: a token or an id (keyLike), an e-mail
// address, or six digits or more (an SSN, a phone number), rather than a
// word such as note, line1 or notificationSettings.
func specificName(key string) bool {
	if keyLike(key) || strings.IndexByte(key, '@') > 0 {
		return true
	}
	digits := 0
	for i := 0; i < len(key); i++ {
		if isDigit(key[i]) {
			digits++
		}
	}
	return digits >= 6
}

// newScrubber returns the scrubber of what the view withholds so far:
// the session's set, and what this view alone removes.
func (w *walker) newScrubber() *scrubber { return newScrubber(w.set, w.viewOnly) }

// mcpWord reports whether node j, a content item's type or MIME type, is
// written as MCP writes one: a content type, or a MIME type.
func mcpWord(tr *tree, j int) bool {
	if tr.nodes[j].kind != kString {
		return false
	}
	v := tr.str(j)
	return contentTypes[strings.ToLower(v)] || isMIMEType(v)
}

// mcpAnnotation reports whether member k of a content item's annotations
// is one of MCP's, with a value as MCP writes it: audience, a list of
// "user" and "assistant"; priority, a number; lastModified, a date.
func mcpAnnotation(tr *tree, k int) bool {
	switch strings.ToLower(tr.key(k)) {
	case "audience":
		ok := tr.nodes[k].kind == kArray
		tr.children(k, func(j int) {
			ok = ok && tr.nodes[j].kind == kString && (tr.str(j) == "user" || tr.str(j) == "assistant")
		})
		return ok
	case "priority":
		return tr.nodes[k].kind == kNumber
	case "lastmodified":
		if tr.nodes[k].kind != kString {
			return false
		}
		_, err := time.Parse(time.RFC3339, tr.str(k))
		return err == nil
	}
	return false
}

// contentMeta are the members of an MCP content item that describe it.
var contentMeta = map[string]bool{"type": true, "mimetype": true}

// isContentItem reports whether node i is an MCP content item: an object
// whose type, in any case, is one of contentTypes.
func isContentItem(tr *tree, i int) bool {
	typ := -1
	tr.children(i, func(j int) {
		if strings.EqualFold(tr.key(j), "type") {
			typ = j
		}
	})
	return typ >= 0 && tr.nodes[typ].kind == kString && contentTypes[strings.ToLower(tr.str(typ))]
}

// mcpNames are the member names of MCP's results, content items and
// annotations, and of a secret_reference, in lower case.
var mcpNames = map[string]bool{
	"content": true, "structuredcontent": true, "iserror": true, "_meta": true,
	"type": true, "text": true, "data": true, "mimetype": true, "resource": true,
	"uri": true, "name": true, "title": true, "description": true, "annotations": true,
	"audience": true, "priority": true, "lastModified": true, "size": true, "blob": true,
	"icons": true, "src": true, "sizes": true, "theme": true,
	"id": true, "label": true, "redeemurl": true, "ttl": true, "lastmodified": true,
}

// contentTypes are the types of MCP's content items, and secret_reference.
var contentTypes = map[string]bool{
	"text": true, "image": true, "audio": true, "resource": true, "resource_link": true, referenceType: true,
}

// publicName reports whether the agent reads name anyway, in any case
// (rule (d) compares names so): in MCP's vocabulary, or declared in the
// tool's inputSchema or outputSchema.
func (t *tool) publicName(name string) bool {
	if t.output != nil && t.output.names[name] || t.input != nil && t.input.names[name] {
		return true
	}
	lower := strings.ToLower(name)
	return mcpNames[lower] || t.output != nil && t.output.lowerNames[lower] || t.input != nil && t.input.lowerNames[lower]
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
