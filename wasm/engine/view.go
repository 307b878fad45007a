package engine

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/veilmcp/veil/wasm/pattern"
)

// What Chromium's executeTool answers, matched byte for byte: an empty
// string result, a result JSON.stringify makes nothing of (undefined, a
// function), and a tool that throws or whose result cannot be serialized.
const (
	emptyResult     = "Operation succeeded"
	undefinedResult = "undefined"
	toolFailed      = "Tool was executed but the invocation failed. For example, the script function threw an error"
)

// Output turns what a tool's execute produced into the agent view. It is
// the one function every agent path calls: executeTool on either object,
// the testing API and the native mirror.
//
// The rules, in the order they apply:
//   - A tool that declares nothing sensitive gets its output byte for byte,
//     unless the output holds a secret_reference.
//   - sensitiveHint with an outputSchema that marks fields x-sensitive: only
//     declared, non-sensitive locations reach the agent (an allowlist).
//   - sensitiveHint and secret_reference items: text items and reduced
//     references reach the agent; everything else is withheld.
//   - sensitiveHint otherwise: the whole output is withheld.
//   - No sensitiveHint: values at x-sensitive locations are withheld.
//   - Any secret_reference reaches the agent as {type, label, ttl} at most.
//   - A withheld string is scrubbed from every string the agent gets.
//   - A tool that declares anything sensitive fails closed: output that
//     does not match its outputSchema, cannot be serialized, is too large,
//     or trips the engine becomes an error that carries none of it.
//
// Around them, the risk policy (risk.go): a call the policy did not allow
// gets an error result naming the rule; sensitiveHint is the call's
// effective one (risk.Policy.Withholds); what reaches the agent joins
// the session's trust state; an untrusted result is spotlighted.
func (e *Engine) Output(name string, o Outcome) (res Result) {
	t := e.lookup(name)
	if t == nil {
		return Result{Err: &Error{Name: "NotFoundError", Message: fmt.Sprintf("executeTool: no tool named %q is registered", name)}}
	}
	c, refused := e.startOutput(t, o)
	if refused != nil {
		return *refused
	}
	t = c.tool
	defer func() { res = e.finishOutput(c, o, res) }()
	defer func() {
		if r := recover(); r != nil {
			res = Result{Err: t.failure("the runtime could not process the output")}
		}
	}()
	switch o.Kind {
	case Empty:
		return Result{Agent: undefinedResult}
	case Threw, Unserializable:
		// Never the page's message: it may hold what the tool was
		// asked to keep.
		return Result{Err: &Error{Name: "UnknownError", Message: toolFailed}}
	case Aborted:
		return Result{Err: &Error{Name: "AbortError", Message: fmt.Sprintf("executeTool: the call of tool %q was aborted", name)}}
	case TimedOut:
		return Result{Err: t.failure("the tool did not finish in time")}
	case Text:
		if o.Data == "" {
			return Result{Agent: emptyResult}
		}
		// A string that is the JSON text of a result holding a
		// secret_reference reaches the agent as the same bytes as the
		// object would, and DevTools parses it for the agent: it is
		// judged as that object.
		if mayHaveReference(o.Data, 0) {
			if len(o.Data) > e.opts.MaxOutputBytes {
				return Result{Err: t.failure(fmt.Sprintf("the output may hold a secret_reference and is larger than %d bytes", e.opts.MaxOutputBytes))}
			}
			if tr, err := parseTree(o.Data); err == nil && tr.nodes[0].kind >= kArray && tr.hasReference() {
				return e.view(t, tr, Outcome{Kind: Returned, Data: o.Data, Call: o.Call})
			}
			// Otherwise it is judged as the string it is, whose text may
			// hold references as JSON (see walker.embedded).
		} else if !t.declaresAny {
			return Result{Agent: o.Data, Unchanged: true}
		}
	case Returned:
		if !t.declaresAny && !mayHaveReference(o.Data, 1) && !mayHaveReserved(o.Data) {
			return Result{Agent: o.Data, Unchanged: true}
		}
	default:
		return Result{Err: t.failure("the runtime received an unknown outcome")}
	}
	if len(o.Data) > e.opts.MaxOutputBytes {
		return Result{Err: t.failure(fmt.Sprintf("the output is larger than %d bytes", e.opts.MaxOutputBytes))}
	}
	src := o.Data
	if o.Kind == Text {
		src = string(appendString(nil, o.Data))
	}
	tr, err := parseTree(src)
	if err != nil {
		return Result{Err: t.failure("the output is not valid JSON")}
	}
	return e.view(t, tr, o)
}

// failure is the error of a failed call. For a tool that declares anything
// sensitive it says nothing of the output.
func (t *tool) failure(why string) *Error {
	if t.declaresAny {
		return &Error{Name: "OperationError", Message: fmt.Sprintf("tool %q failed; its output was withheld because it may be sensitive", t.name)}
	}
	return &Error{Name: "OperationError", Message: fmt.Sprintf("tool %q failed: %s", t.name, why)}
}

// mayHaveReference is a sound test for a secret_reference, or a mention
// of one that rule (c) must look at: s, or a decoding of it, names
// secret_reference. A JSON text needs one decoding more than its strings
// (extraDepth 1).
func mayHaveReference(s string, extraDepth int) bool {
	if !mayMention(s) {
		return false
	}
	spans, ok := mentions(s, extraDepth)
	return !ok || len(spans) > 0
}

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

type reference struct {
	node    int
	pointer string
	label   string
	ttl     string // JSON number text, or ""
	ttlSecs float64
	redeem  string // absolute URL
	visible bool
}

// walker decides, in one pass, what happens to every node.
type walker struct {
	e        *Engine
	t        *tool
	tr       *tree
	act      []action
	held     []int // withheld nodes
	dirty    []bool
	refAt    map[int]int // reduced node -> index in refs
	refs     []reference
	invalid  []string
	set      *scrubSet
	scrubber *scrubber // for set, once withholdNames has settled it
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
	w := &walker{e: e, t: t, tr: tr, act: make([]action, len(tr.nodes)), set: &scrubSet{}, target: 0}
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
	case t.hint && t.output != nil && t.output.anySensitive:
		w.mode = allowMode
	case t.hint && w.hasReference(0):
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
		w.withhold(0)
	} else if !w.isResult {
		w.walk(0, start, true)
	} else {
		w.result(start)
	}

	if len(w.held) == 0 && len(w.refs) == 0 && len(w.invalid) == 0 {
		// Nothing withheld, so nothing to scrub either: the output passes
		// as the tool wrote it, but for the runtime's own keys.
		if reserved > 0 {
			w.markDirty()
			b := w.emit(nil, 0, newScrubber(w.set))
			return Result{Agent: string(b), Reserved: reserved}
		}
		return Result{Agent: o.Data, Unchanged: true}
	}
	if !w.withholdNames() {
		return Result{Err: t.failure("the output's withheld values name each other more than the runtime follows")}
	}
	res := w.build()
	res.Reserved = reserved
	return res
}

// The pointers of what a view withholds take at most maxPointerBytes
// times the output's size, and maxPointerSlack; past that the call fails
// closed.
const (
	maxPointerBytes = 4
	maxPointerSlack = 1 << 20
)

// maxNamePasses bounds withholdNames: real outputs settle in one or two
// passes; a chain of members each named by the last one withheld is made
// to stall the engine, and fails closed.
const maxNamePasses = 16

// ReservedPrefix starts the _meta keys only the runtime writes
// (MetaKey, PolicyMetaKey, RiskMetaKey): a tool's result that carries one
// has it removed, so that no tool can forge what the runtime says.
const ReservedPrefix = "dev.veil/"

// dropReserved leaves out every member, at any depth, whose name starts
// with ReservedPrefix in any case, and returns how many there were.
func (w *walker) dropReserved() int {
	tr := w.tr
	n := 0
	for i := 1; i < len(tr.nodes); {
		if tr.nodes[tr.nodes[i].parent].kind == kObject && isReserved(tr.key(i)) {
			w.act[i] = drop
			n++
			i = int(tr.nodes[i].next)
			continue
		}
		i++
	}
	return n
}

func isReserved(key string) bool {
	return len(key) >= len(ReservedPrefix) && strings.EqualFold(key[:len(ReservedPrefix)], ReservedPrefix)
}

// mayHaveReserved is a fast, sound test for a member isReserved names in
// the JSON text JSON.stringify wrote, which never escapes the letters,
// dot and slash of the prefix.
func mayHaveReserved(s string) bool {
	const before = len(ReservedPrefix) - 1
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '/')
		if j < 0 {
			return false
		}
		i += j + 1
		if k := i - 1 - before; k >= 0 && strings.EqualFold(s[k:i-1], ReservedPrefix[:before]) {
			return true
		}
	}
	return false
}

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
		s := newScrubber(w.set)
		// Until it finds a node to withhold, it is the scrubber for the
		// final set.
		w.scrubber = s
		if !s.any {
			return true
		}
		found := false
		tr := w.tr
		for i := 0; i < len(tr.nodes); {
			if w.act[i] != keep {
				i = int(tr.nodes[i].next)
				continue
			}
			n := &tr.nodes[i]
			if p := n.parent; p >= 0 && tr.nodes[p].kind == kObject && s.contains(tr.key(i)) ||
				n.kind == kNumber && s.isWithheldNumber(tr.text(i)) {
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
				w.withhold(j)
			} else {
				w.walk(j, start, true)
			}
		case key == "isError" && tr.nodes[j].kind == kBool:
		case w.mode == denyMode:
			w.walk(j, nil, true)
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
	if st != nil && st.sensitive {
		w.withhold(i)
		return
	}
	if p := n.parent; p >= 0 && tr.nodes[p].kind == kObject && w.nameMentions(i) {
		return
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
			// its names join the scrub set (collect), so no pointer names
			// them.
			w.withhold(i)
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

// maxEmbedded bounds the search for JSON inside a string: the objects
// that fail to parse, the bytes read in all (a multiple of the string's
// length, and some), and how deep JSON text may nest in JSON text.
const (
	maxEmbeddedTries = 1024
	maxEmbeddedRead  = 4
	maxEmbeddedSlack = 64 << 10
	maxEmbeddedDepth = 4
)

// embedded handles the string at node i, which may name secret_reference
// in some decoding (MCP tools often put their JSON in a text item). The
// references written in it as JSON text are read. If every mention is a
// valid reference read there, each is held for the user and its fields
// join the scrub set, so the agent gets the string without them.
// Otherwise (a reference written in another notation, cut off, escaped
// past reading, invalid, or more mentions than references) node at (the
// string, or the item holding it) is withheld as an invalid reference:
// what cannot be read might be one.
func (w *walker) embedded(i, at int) {
	str := w.tr.str(i)
	spans, ok := mentions(str, 0)
	if ok && len(spans) == 0 {
		return
	}
	ptr := w.tr.pointer(i)
	var x extraction
	local := &scrubSet{noMin: true}
	if ok {
		w.set.shadow = local
		ok = w.extract(&x, str, 0)
		w.set.shadow = nil
	}
	if ok && len(x.invalid) == 0 && len(x.refs) == len(spans) {
		for _, r := range x.refs {
			r.pointer = ptr
			w.addReference(r)
		}
		if w.local == nil {
			w.local = map[int]*scrubSet{}
		}
		w.local[i] = local
		return
	}
	if len(x.invalid) > 0 {
		w.invalid = append(w.invalid, x.invalid...)
	} else {
		w.invalid = append(w.invalid, fmt.Sprintf("tool %q: the string at %s names secret_reference where no valid reference could be read, so it was withheld", w.t.name, orRoot(ptr)))
	}
	w.withhold(at)
}

// mentionUnit is what goes when the string at node i names
// secret_reference without a valid reference: the nearest object around
// it, which a reader may take for a reference (a type in another case, or
// under another key, or in an array); the string itself outside any
// object. A CallToolResult itself is never the unit: its member is.
func (w *walker) mentionUnit(i int) int {
	tr := w.tr
	prev := i
	for p := int(tr.nodes[i].parent); p >= 0; prev, p = p, int(tr.nodes[p].parent) {
		if tr.nodes[p].kind != kObject {
			continue
		}
		if p == 0 && w.isResult {
			return prev
		}
		return p
	}
	return i
}

// nameMentions withholds the member at node j, as an invalid reference,
// when its name names secret_reference (a wrapper such as Rails writes,
// {"secret_reference": {...}}), and reports whether it did.
func (w *walker) nameMentions(j int) bool {
	key := w.tr.key(j)
	if !mayMention(key) {
		return false
	}
	if spans, ok := mentions(key, 0); ok && len(spans) == 0 {
		return false
	}
	w.invalid = append(w.invalid, fmt.Sprintf("tool %q: the member at %s names secret_reference in its name, so it was withheld", w.t.name, orRoot(w.tr.pointer(j))))
	// The name goes from the pointer too: it may carry what the member
	// held (an id, a URL).
	w.set.addString(key)
	w.withhold(j)
	return true
}

// extraction is what extract read in a string.
type extraction struct {
	refs    []reference
	invalid []string
}

// extract reads the JSON objects in s, at any nesting of JSON text in its
// strings, and the references among them. It reports false when the
// search went past its bounds.
func (w *walker) extract(x *extraction, s string, depth int) bool {
	if depth > maxEmbeddedDepth {
		return false
	}
	failed, read := 0, 0
	for pos := 0; pos < len(s); {
		j := strings.IndexByte(s[pos:], '{')
		if j < 0 {
			break
		}
		start := pos + j
		sub, end, err := parsePrefix(s[start:])
		if read += end; read > maxEmbeddedRead*len(s)+maxEmbeddedSlack {
			return false
		}
		if err != nil {
			if failed++; failed > maxEmbeddedTries {
				return false
			}
			pos = start + 1
			continue
		}
		sw := &walker{e: w.e, t: w.t, tr: sub, act: make([]action, len(sub.nodes)), set: w.set}
		for k := 0; k < len(sub.nodes); {
			n := &sub.nodes[k]
			switch {
			case sw.referenceKind(k) != notReference:
				sw.reference(k, refInText)
				k = int(n.next)
				continue
			case n.kind == kString && mayMention(sub.str(k)):
				if !w.extract(x, sub.str(k), depth+1) {
					return false
				}
			}
			k++
		}
		x.refs = append(x.refs, sw.refs...)
		x.invalid = append(x.invalid, sw.invalid...)
		pos = start + end
	}
	return true
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

// collect adds what node i holds to the scrub set: strings, numbers and
// member names, at any depth. Names the agent reads anyway, in the tool's
// schemas or in MCP's own vocabulary, are no values; nor is the type of
// an MCP content item.
func (w *walker) collect(i int) {
	tr := w.tr
	switch tr.nodes[i].kind {
	case kString:
		w.set.addString(tr.str(i))
	case kNumber:
		w.set.addNumber(tr.text(i))
	case kObject:
		if w.referenceKind(i) != notReference {
			w.reference(i, refWithheld)
			return
		}
		tr.children(i, func(j int) {
			key := tr.key(j)
			if !w.t.publicName(key) {
				w.set.addString(key)
			}
			if key == "type" && tr.nodes[j].kind == kString && contentTypes[tr.str(j)] {
				return
			}
			w.collect(j)
		})
	case kArray:
		tr.children(i, w.collect)
	}
}

// mcpNames are the member names of MCP's results, content items and
// annotations, and of a secret_reference.
var mcpNames = map[string]bool{
	"content": true, "structuredContent": true, "isError": true, "_meta": true,
	"type": true, "text": true, "data": true, "mimeType": true, "resource": true,
	"uri": true, "name": true, "title": true, "description": true, "annotations": true,
	"audience": true, "priority": true, "lastModified": true, "size": true, "blob": true,
	"icons": true, "src": true, "sizes": true, "theme": true,
	"id": true, "label": true, "redeemUrl": true, "ttl": true,
}

// contentTypes are the types of MCP's content items, and secret_reference.
var contentTypes = map[string]bool{
	"text": true, "image": true, "audio": true, "resource": true, "resource_link": true, referenceType: true,
}

// publicName reports whether the agent reads name anyway: in MCP's
// vocabulary, or declared in the tool's inputSchema or outputSchema.
func (t *tool) publicName(name string) bool {
	return mcpNames[name] || t.output != nil && t.output.names[name] || t.input != nil && t.input.names[name]
}

// refKind says whether an object is a secret_reference.
type refKind uint8

const (
	notReference refKind = iota
	// exactReference: its type is "secret_reference".
	exactReference
	// spelledReference: its type names secret_reference otherwise (in
	// another case, escaped, amid other text). It is an invalid
	// reference: a reader may take it for one.
	spelledReference
)

// referenceKind says whether node i is an object whose type names
// secret_reference.
func (w *walker) referenceKind(i int) refKind {
	tr := w.tr
	if tr.nodes[i].kind != kObject {
		return notReference
	}
	typ := tr.member(i, "type")
	if typ < 0 || tr.nodes[typ].kind != kString {
		return notReference
	}
	switch t := tr.str(typ); {
	case t == referenceType:
		return exactReference
	case mayMention(t):
		if spans, ok := mentions(t, 0); !ok || len(spans) > 0 {
			return spelledReference
		}
	}
	return notReference
}

func (w *walker) hasReference(i int) bool {
	for j := i; j < int(w.tr.nodes[i].next); j++ {
		if w.referenceKind(j) != notReference {
			return true
		}
	}
	return false
}

// hasReference reports whether the tree holds a secret_reference.
func (t *tree) hasReference() bool {
	w := walker{tr: t}
	return w.hasReference(0)
}

// referenceFields are the members a secret_reference defines.
var referenceFields = map[string]bool{"type": true, "id": true, "label": true, "redeemUrl": true, "ttl": true}

// refPlace is where a secret_reference stands, which says what the agent
// may see of it.
type refPlace uint8

const (
	// refInPlace: where the agent gets it, reduced to {type, label, ttl}.
	refInPlace refPlace = iota
	// refWithheld: inside a withheld value. In text mode the agent gets it
	// reduced after the content; otherwise only their number.
	refWithheld
	// refInText: written as JSON text in a string the agent gets, whose
	// label stays.
	refInText
)

// reference validates the secret_reference at node i and holds it. Every
// field joins the scrub set, and every member name the proposal does not
// define, except what the agent may see of a valid one: its type, and its
// label and ttl where it is shown.
func (w *walker) reference(i int, where refPlace) {
	visible := where == refInPlace
	shown := where != refWithheld || w.mode == textMode
	tr := w.tr
	tr.children(i, func(j int) {
		switch key := tr.key(j); {
		case key == "type" || key == "label" || key == "ttl":
		case referenceFields[key]:
			w.collect(j)
		default:
			w.set.addString(key)
			w.collect(j)
		}
	})
	str := func(key string) (string, bool) {
		j := tr.member(i, key)
		if j < 0 || tr.nodes[j].kind != kString {
			return "", false
		}
		return tr.str(j), true
	}
	id, idOK := str("id")
	rawURL, urlOK := str("redeemUrl")
	label, labelOK := str("label")
	hideShown := func() {
		for _, key := range []string{"label", "ttl"} {
			if j := tr.member(i, key); j >= 0 {
				w.collect(j)
			}
		}
	}
	if !shown {
		hideShown()
	}
	invalid := func(why string) {
		if visible {
			w.act[i] = drop
		}
		// Nothing of it reaches the agent, so what a valid one shows is
		// withheld too.
		if shown {
			hideShown()
		}
		w.invalid = append(w.invalid, fmt.Sprintf("tool %q: the secret_reference at %s was withheld: %s", w.t.name, orRoot(tr.pointer(i)), why))
	}
	switch {
	case w.referenceKind(i) != exactReference:
		invalid(`type must be exactly "secret_reference"`)
		return
	case !idOK || id == "":
		invalid("id must be a non-empty string")
		return
	case !labelOK:
		invalid("label must be a string")
		return
	case !urlOK:
		invalid("redeemUrl must be a string")
		return
	}
	redeem, why := w.e.resolveRedeemURL(rawURL)
	if why != "" {
		invalid(why)
		return
	}
	w.set.addString(redeem)
	if u, err := url.Parse(redeem); err == nil {
		// The same URL written relative to the origin, or with its
		// default port; and what its query carries.
		w.set.addString(u.RequestURI())
		for _, vs := range u.Query() {
			for _, v := range vs {
				w.set.addString(v)
			}
		}
	}
	ref := reference{node: i, pointer: tr.pointer(i), label: label, redeem: redeem, visible: visible}
	if j := tr.member(i, "ttl"); j >= 0 {
		if tr.nodes[j].kind != kNumber {
			invalid("ttl must be a number")
			return
		}
		secs, err := strconv.ParseFloat(tr.text(j), 64)
		if err != nil || !(secs > 0) || math.IsInf(secs, 0) {
			invalid("ttl must be a positive number of seconds")
			return
		}
		ref.ttl = tr.text(j)
		if max := w.e.opts.MaxReferenceTTL.Seconds(); secs > max {
			secs = max
			ref.ttl = strconv.FormatFloat(secs, 'f', -1, 64)
		}
		ref.ttlSecs = secs
	}
	k := w.addReference(ref)
	if visible {
		w.act[i] = reduce
		if w.refAt == nil {
			w.refAt = map[int]int{}
		}
		w.refAt[i] = k
	}
}

// addReference holds r and returns its index in w.refs. The same secret
// written twice in one output (a reference, and its JSON in a text item)
// is held once.
func (w *walker) addReference(r reference) int {
	for k := range w.refs {
		if w.refs[k].redeem == r.redeem {
			w.refs[k].visible = w.refs[k].visible || r.visible
			return k
		}
	}
	w.refs = append(w.refs, r)
	return len(w.refs) - 1
}

// resolveRedeemURL resolves a redeemUrl against the document's base URL
// and requires the page's own origin over http(s), with no user-info.
// Characters that browsers and Go's parser read differently (backslashes,
// spaces, controls) are refused outright, so the URL fetched is the URL
// checked.
func (e *Engine) resolveRedeemURL(raw string) (string, string) {
	if e.origin == nil {
		return "", "the runtime does not know the page's origin"
	}
	if raw == "" {
		return "", "redeemUrl is empty"
	}
	for _, r := range raw {
		if r <= 0x20 || r == 0x7f || r == '\\' {
			return "", "redeemUrl contains a space, a control character or a backslash"
		}
	}
	u, err := e.base.Parse(raw)
	if err != nil {
		return "", "redeemUrl is not a valid URL"
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", "redeemUrl must be http or https"
	}
	if u.User != nil {
		return "", "redeemUrl must not carry user-info"
	}
	if u.Opaque != "" || !strings.EqualFold(u.Scheme, e.origin.Scheme) || !strings.EqualFold(u.Host, e.origin.Host) {
		return "", "redeemUrl is not on the page's origin"
	}
	// Browsers read %2e%2e as "..", which Go's parser leaves in the path:
	// no dot segment may remain, so the path checked is the path fetched.
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return "", "redeemUrl has a dot segment"
		}
	}
	if p := e.opts.RedeemPath; p != "" && !strings.HasPrefix(u.Path, p) {
		return "", "redeemUrl is not under the page's redeem path"
	}
	u.Fragment = ""
	u.RawFragment = ""
	return (&url.URL{Scheme: e.origin.Scheme, Host: e.origin.Host, Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery}).String(), ""
}

// build writes the agent view of an output from which something was
// withheld: an MCP CallToolResult whose text says what was withheld, and
// whose _meta lists where.
func (w *walker) build() Result {
	size := 0
	for _, h := range w.held {
		size += int(w.tr.nodes[h].end - w.tr.nodes[h].start)
	}
	// The pointers share one buffer, which is never written again.
	ptrs := make([]byte, 0, 16*len(w.held))
	ends := make([]int, len(w.held))
	// Held values are often siblings: their parent's pointer is written
	// once and copied.
	parent, from, to := -2, 0, 0
	limit := maxPointerBytes*len(w.tr.src) + maxPointerSlack
	for k, h := range w.held {
		switch p := int(w.tr.nodes[h].parent); {
		case p < 0:
		case p == parent:
			ptrs = w.tr.appendToken(append(ptrs, ptrs[from:to]...), h)
		default:
			parent, from = p, len(ptrs)
			ptrs = w.tr.appendPointer(ptrs, p)
			to = len(ptrs)
			ptrs = w.tr.appendToken(ptrs, h)
		}
		ends[k] = len(ptrs)
		if len(ptrs) > limit {
			// Withheld members at every level of a deep object: their
			// pointers grow with the square of the depth.
			return Result{Err: w.t.failure("the pointers to what was withheld are too long")}
		}
	}
	now := w.e.opts.Now()
	w.e.mu.Lock()
	labels := len(w.t.label)
	for _, r := range w.refs {
		labels += len(r.label) + len(r.redeem) + len(r.pointer)
	}
	w.e.vault.makeRoom(size+len(ptrs)+labels, w.e.opts.MaxHeldBytes)
	c := w.e.vault.newCall(w.t.name)
	c.items = make([]heldItem, 0, len(w.held)+len(w.refs))
	all := unsafe.String(unsafe.SliceData(ptrs), len(ptrs))
	c.buf = make([]byte, 0, size+len(ptrs))
	pointers := make([]string, len(w.held))
	start := 0
	for k, h := range w.held {
		ptr := all[start:ends[k]]
		start = ends[k]
		pointers[k] = ptr
		n := &w.tr.nodes[h]
		value := w.tr.text(h)
		if n.kind == kString {
			value = w.tr.str(h)
		}
		c.holdValue(w.label(ptr), ptr, now.Add(w.e.opts.HoldTTL), value)
	}
	for _, r := range w.refs {
		// A reference is held at least until its server lets it lapse, so
		// the user hears "expired" from the server instead of losing it.
		exp := now.Add(w.e.opts.HoldTTL)
		var by time.Time
		if r.ttlSecs > 0 {
			by = now.Add(secondsDuration(r.ttlSecs))
			if by.After(exp) {
				exp = by
			}
		}
		c.holdReference(r.label, r.pointer, exp, by, r.redeem)
	}
	held := c.live
	w.e.mu.Unlock()

	w.markDirty()
	s := w.scrubber
	if s == nil {
		s = newScrubber(w.set)
	}
	b := make([]byte, 0, 2*len(w.tr.src)+1024)
	notice := []byte(w.notice())
	// A pointer names members; a name can be a withheld string (a
	// sensitive propertyNames, a name that withholdNames withheld).
	for i, p := range pointers {
		if c, ok := s.scrubPointer(p); ok {
			pointers[i] = c
		}
	}
	meta := w.meta(pointers)

	if w.isResult {
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
				b = appendText(b, notice)
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
					b = appendText(b, w.emit(nil, w.target, s))
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
					b = append(appendString(b, MetaKey), ':')
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
			b = append(b, `"_meta":{`...)
			b = append(appendString(b, MetaKey), ':')
			b = append(b, meta...)
			b = append(b, '}')
		}
		b = append(b, '}')
	} else {
		b = append(b, `{"content":[`...)
		b = appendText(b, notice)
		visible := w.act[0] == keep
		var value []byte
		if visible {
			value = w.emit(make([]byte, 0, len(w.tr.src)), 0, s)
			b = append(b, ',')
			if w.tr.nodes[0].kind == kString {
				// A string result is its own text, not its JSON.
				text, _ := w.scrubString(0, s)
				b = appendText(b, []byte(text))
			} else {
				b = appendText(b, value)
			}
		}
		b = w.listReferences(b, s)
		b = append(b, ']')
		if visible && w.tr.nodes[0].kind == kObject {
			b = append(b, `,"structuredContent":`...)
			b = append(b, value...)
		}
		b = append(b, `,"_meta":{`...)
		b = append(appendString(b, MetaKey), ':')
		b = append(b, meta...)
		b = append(b, `}}`...)
	}
	// b is never written again, so the view can share its bytes.
	return Result{Agent: unsafe.String(unsafe.SliceData(b), len(b)), CallID: c.id, Held: held, Invalid: w.invalid}
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
			b = appendReference(b, r, s)
		}
	}
	return b
}

// markDirty marks every node that holds, at or below it, something the
// view changes; the rest can be copied as whole spans.
func (w *walker) markDirty() {
	w.dirty = make([]bool, len(w.tr.nodes))
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
}

// scrubString returns the string at node i as the agent gets it: without
// any withheld value, and without the fields of the references read in
// it, however short (local).
func (w *walker) scrubString(i int, s *scrubber) (string, bool) {
	str, changed := s.scrub(w.tr.str(i))
	if l := w.local[i]; l != nil {
		if c, ok := newScrubber(l).scrub(str); ok {
			str, changed = c, true
		}
	}
	return str, changed
}

func secondsDuration(s float64) time.Duration {
	return time.Duration(s * float64(time.Second))
}

// label names a withheld value for the user: the last pointer token, or
// the tool's title for the whole output.
func (w *walker) label(ptr string) string {
	if ptr == "" {
		return w.t.label
	}
	last := ptr[strings.LastIndexByte(ptr, '/')+1:]
	return strings.ReplaceAll(strings.ReplaceAll(last, "~1", "/"), "~0", "~")
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
	b := []byte(`{"withheld":[`)
	for i, p := range pointers {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, p)
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
		return appendReference(b, w.refs[w.refAt[i]], s)
	}
	if !w.dirty[i] {
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
			return appendString(b, c)
		}
		return append(b, tr.src[n.start:n.end]...)
	case kObject, kArray:
		return tr.appendContainer(b, i,
			func(j int) bool { return w.act[j] == withhold || w.act[j] == drop },
			func(b []byte, j int) []byte { return w.emit(b, j, s) })
	default:
		return append(b, tr.src[n.start:n.end]...)
	}
}

func appendText(b []byte, text []byte) []byte {
	b = append(b, `{"type":"text","text":`...)
	b = appendString(b, unsafe.String(unsafe.SliceData(text), len(text)))
	return append(b, '}')
}

func appendReference(b []byte, r reference, s *scrubber) []byte {
	b = append(b, `{"type":"secret_reference","label":`...)
	label := r.label
	if c, ok := s.scrub(label); ok {
		label = c
	}
	b = appendString(b, label)
	if r.ttl != "" && !s.isWithheldNumber(r.ttl) {
		b = append(b, `,"ttl":`...)
		b = append(b, r.ttl...)
	}
	return append(b, '}')
}
