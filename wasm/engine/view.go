package engine

import (
	"cmp"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"
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
		if mayHaveReference(o.Data) {
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
		if !t.declaresAny && !mayHaveReference(o.Data) {
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

// mayHaveReference is a fast, sound test for a secret_reference: the type
// can only be spelled literally or with a \u escape.
func mayHaveReference(s string) bool {
	return strings.Contains(s, "secret_reference") || strings.Contains(s, `\u`)
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
	secrets  map[string]struct{}
	scrubber *scrubber // for secrets, once withholdNames has settled it
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
	w := &walker{e: e, t: t, tr: tr, act: make([]action, len(tr.nodes)), secrets: map[string]struct{}{}, target: 0}
	root := &tr.nodes[0]
	if root.kind == kObject {
		if c := tr.member(0, "content"); c >= 0 && tr.nodes[c].kind == kArray {
			w.isResult = true
			w.target = tr.member(0, "structuredContent")
		}
	}

	if t.declaresAny && t.output != nil {
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
		// as the tool wrote it.
		return Result{Agent: o.Data, Unchanged: true}
	}
	w.withholdNames()
	return w.build()
}

// withholdNames withholds every member whose name holds a withheld string:
// rule (d) reaches member names too, and a name cannot be emptied without
// making another. What it withholds can hold more strings to scrub, so it
// repeats until nothing changes.
func (w *walker) withholdNames() {
	for {
		s := newScrubber(w.secrets)
		// Until it finds a name to withhold, it is the scrubber for the
		// final set.
		w.scrubber = s
		if !s.any {
			return
		}
		found := false
		tr := w.tr
		for i := 0; i < len(tr.nodes); {
			if w.act[i] != keep {
				i = int(tr.nodes[i].next)
				continue
			}
			if p := tr.nodes[i].parent; p >= 0 && tr.nodes[p].kind == kObject && s.contains(tr.key(i)) {
				w.withhold(i)
				found = true
				i = int(tr.nodes[i].next)
				continue
			}
			i++
		}
		if !found {
			return
		}
	}
}

// result walks a CallToolResult member by member.
func (w *walker) result(start *sstate) {
	tr := w.tr
	tr.children(0, func(j int) {
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
	case w.isReference(k):
		w.reference(k, true)
	case w.mode == denyMode:
		w.walk(k, nil, true)
	case w.mode == textMode && w.isText(k):
		// Text items reach the agent, scrubbed.
		if text := w.tr.member(k, "text"); suspicious(w.tr.str(text)) {
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
	if st != nil && st.sensitive {
		w.withhold(i)
		return
	}
	if w.mode == allowMode && !declared {
		w.withhold(i)
		return
	}
	switch n.kind {
	case kObject:
		if w.isReference(i) {
			w.reference(i, true)
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
			// its names join the scrub set, so no pointer names them.
			w.withhold(i)
			tr.children(i, func(j int) { w.secret(tr.key(j)) })
			return
		}
		trans := w.transitions(st, i)
		for k, j := 0, i+1; j < int(n.next); k, j = k+1, int(tr.nodes[j].next) {
			w.walk(j, trans[k].st, trans[k].declared)
		}
	case kString:
		if suspicious(tr.str(i)) {
			w.embedded(i, i)
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

// suspicious reports whether a string may hold a secret_reference written
// as JSON text: it names one, or holds \u escapes, which can spell one, and
// a brace.
func suspicious(s string) bool {
	return strings.Contains(s, "secret_reference") || (strings.Contains(s, `\u`) && strings.IndexByte(s, '{') >= 0)
}

// maxEmbedded bounds the search for JSON inside a string: the JSON objects
// tried, and how deep JSON text may nest in JSON text.
const (
	maxEmbeddedTries = 1024
	maxEmbeddedDepth = 4
)

// embedded handles the string at node i, which may hold secret_references
// written as JSON text (MCP tools often put their JSON in a text item).
// Each one is held for the user and its id and URL join the scrub set, so
// the agent gets the string without them. Prose that only mentions
// secret_reference is no reference. When the search goes past its bounds,
// node at (the string, or the item holding it) is withheld whole.
func (w *walker) embedded(i, at int) {
	if !w.extract(w.tr.str(i), w.tr.pointer(i), 0) {
		w.withhold(at)
	}
}

// extract finds the JSON objects in s and holds the references in them. It
// reports false when the search went past its bounds.
func (w *walker) extract(s, ptr string, depth int) bool {
	if depth > maxEmbeddedDepth {
		return false
	}
	tries := 0
	for pos := 0; pos < len(s); {
		j := strings.IndexByte(s[pos:], '{')
		if j < 0 {
			break
		}
		start := pos + j
		if tries++; tries > maxEmbeddedTries {
			return false
		}
		sub, end, err := parsePrefix(s[start:])
		if err != nil {
			pos = start + 1
			continue
		}
		sw := &walker{e: w.e, t: w.t, tr: sub, act: make([]action, len(sub.nodes)), secrets: w.secrets}
		for k := range sub.nodes {
			n := &sub.nodes[k]
			switch {
			case sw.isReference(k):
				sw.reference(k, false)
			case n.kind == kString && suspicious(sub.str(k)):
				if !w.extract(sub.str(k), ptr, depth+1) {
					return false
				}
			}
		}
		for _, r := range sw.refs {
			r.pointer = ptr
			w.refs = append(w.refs, r)
		}
		w.invalid = append(w.invalid, sw.invalid...)
		pos = start + end
	}
	return true
}

// withhold holds node i for the user. Its strings join the scrub set, and
// the references inside it are held too. In text mode they reach the agent
// reduced, after the content; otherwise the agent learns only their
// number, as their labels stood at a withheld location.
func (w *walker) withhold(i int) {
	w.act[i] = withhold
	w.held = append(w.held, i)
	w.collect(i)
}

func (w *walker) collect(i int) {
	n := &w.tr.nodes[i]
	switch n.kind {
	case kString:
		w.secret(w.tr.str(i))
	case kNumber:
		// Short numbers would strip every such digit from the view.
		if t := w.tr.text(i); len(t) >= 4 {
			w.secret(t)
		}
	case kObject:
		if w.isReference(i) {
			// Its label may reach the agent (in text mode), so it is not
			// scrubbed; every other field is.
			w.reference(i, false)
			w.tr.children(i, func(j int) {
				if k := w.tr.key(j); k != "label" && k != "type" {
					w.collect(j)
				}
			})
			return
		}
		w.tr.children(i, w.collect)
	case kArray:
		w.tr.children(i, w.collect)
	}
}

// secret adds s to the scrub set, with the forms JSON text nested in
// strings spells it in (each level escapes it again), so a string that
// holds JSON is scrubbed too.
func (w *walker) secret(s string) {
	for range maxEmbeddedDepth + 1 {
		if s == "" {
			return
		}
		w.secrets[s] = struct{}{}
		if !needsEscape(s) {
			return
		}
		esc := string(appendString(nil, s))
		s = esc[1 : len(esc)-1]
	}
}

// isReference reports whether node i is an object whose type is
// "secret_reference".
func (w *walker) isReference(i int) bool {
	if w.tr.nodes[i].kind != kObject {
		return false
	}
	typ := w.tr.member(i, "type")
	return typ >= 0 && w.tr.nodes[typ].kind == kString && w.tr.str(typ) == "secret_reference"
}

func (w *walker) hasReference(i int) bool {
	for j := i; j < int(w.tr.nodes[i].next); j++ {
		if w.isReference(j) {
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

// reference validates the secret_reference at node i and holds it. Its id
// and URL join the scrub set whether it is valid or not.
func (w *walker) reference(i int, visible bool) {
	tr := w.tr
	str := func(key string) (string, bool) {
		j := tr.member(i, key)
		if j < 0 || tr.nodes[j].kind != kString {
			return "", false
		}
		return tr.str(j), true
	}
	id, idOK := str("id")
	rawURL, urlOK := str("redeemUrl")
	w.secret(id)
	w.secret(rawURL)
	label, labelOK := str("label")
	invalid := func(why string) {
		if visible {
			w.act[i] = drop
		}
		w.invalid = append(w.invalid, fmt.Sprintf("tool %q: the secret_reference at %s was withheld: %s", w.t.name, orRoot(tr.pointer(i)), why))
	}
	switch {
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
	w.secret(redeem)
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
	if visible {
		w.act[i] = reduce
		if w.refAt == nil {
			w.refAt = map[int]int{}
		}
		w.refAt[i] = len(w.refs)
	}
	w.refs = append(w.refs, ref)
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
	now := w.e.opts.Now()
	w.e.mu.Lock()
	c := w.e.vault.newCall(w.t.name)
	c.items = make([]heldItem, 0, len(w.held)+len(w.refs))
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
	}
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
		s = newScrubber(w.secrets)
	}
	b := make([]byte, 0, 2*len(w.tr.src)+1024)
	notice := []byte(w.notice())
	// A pointer names members; a name can be a withheld string (a
	// sensitive propertyNames, a name that withholdNames withheld).
	for i, p := range pointers {
		if c, ok := s.scrub(p); ok {
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
				text, _ := s.scrub(w.tr.str(0))
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
	for i, a := range w.act {
		if a == keep {
			continue
		}
		for p := i; p >= 0 && !w.dirty[p]; p = int(w.tr.nodes[p].parent) {
			w.dirty[p] = true
		}
	}
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
		// A span with no escapes holds each string as its characters, so
		// a search of the raw text finds every withheld string in it.
		span := tr.src[n.start:n.end]
		if !strings.Contains(span, `\`) && !s.contains(span) {
			return append(b, span...)
		}
	}
	switch n.kind {
	case kString:
		if c, ok := s.scrub(tr.str(i)); ok {
			return appendString(b, c)
		}
		return append(b, tr.src[n.start:n.end]...)
	case kObject, kArray:
		begin, end := byte('['), byte(']')
		if n.kind == kObject {
			begin, end = '{', '}'
		}
		b = append(b, begin)
		first := true
		for j := i + 1; j < int(n.next); j = int(tr.nodes[j].next) {
			if w.act[j] == withhold || w.act[j] == drop {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			if n.kind == kObject {
				b = append(b, tr.src[tr.nodes[j].keyStart:tr.nodes[j].start]...)
			}
			b = w.emit(b, j, s)
		}
		return append(b, end)
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
	if r.ttl != "" {
		b = append(b, `,"ttl":`...)
		b = append(b, r.ttl...)
	}
	return append(b, '}')
}

// scrubber removes withheld strings from the strings the agent gets.
//
// Most strings hold none, so finding one must be cheap: a string of four
// bytes or more is found through a bloom filter over the four-byte window
// it starts with, and a shorter one through a table of first bytes.
type scrubber struct {
	long  map[uint32][]string // by first four bytes, longest first
	bloom []uint64
	short [4]map[string]bool // by length
	first [256]bool          // first bytes of short strings
	any   bool
}

const bloomBits = 1 << 16

func window(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

func bloomIndex(w uint32) uint32 { return (w * 2654435761) >> (32 - 16) }

func newScrubber(secrets map[string]struct{}) *scrubber {
	s := &scrubber{}
	for x := range secrets {
		if x == "" {
			continue
		}
		s.any = true
		if len(x) < 4 {
			if s.short[len(x)] == nil {
				s.short[len(x)] = map[string]bool{}
			}
			s.short[len(x)][x] = true
			s.first[x[0]] = true
			continue
		}
		if s.long == nil {
			s.long = map[uint32][]string{}
			s.bloom = make([]uint64, bloomBits/64)
		}
		w := window(x, 0)
		s.long[w] = append(s.long[w], x)
		bi := bloomIndex(w)
		s.bloom[bi/64] |= 1 << (bi % 64)
	}
	for _, l := range s.long {
		slices.SortFunc(l, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	}
	return s
}

// match returns the length of the longest withheld string at str[i:], or 0.
func (s *scrubber) match(str string, i int) int {
	if s.long != nil && i+4 <= len(str) {
		w := window(str, i)
		bi := bloomIndex(w)
		if s.bloom[bi/64]&(1<<(bi%64)) != 0 {
			for _, p := range s.long[w] {
				if strings.HasPrefix(str[i:], p) {
					return len(p)
				}
			}
		}
	}
	if s.first[str[i]] {
		for n := 3; n >= 1; n-- {
			if i+n <= len(str) && s.short[n][str[i:i+n]] {
				return n
			}
		}
	}
	return 0
}

// find returns where the first withheld string in str at or after from
// starts, and the length of the longest one there; -1 when there is none.
// It slides a four-byte window over str and looks closer only where the
// bloom filter or the first-byte table lets a secret start.
func (s *scrubber) find(str string, from int) (int, int) {
	if !s.any {
		return -1, 0
	}
	n := len(str)
	long := s.long != nil
	var w uint32
	if long && n-from >= 4 {
		w = (uint32(str[from]) | uint32(str[from+1])<<8 | uint32(str[from+2])<<16) << 8
	}
	for i := from; i < n; i++ {
		maybe := s.first[str[i]]
		if long && i+4 <= n {
			w = w>>8 | uint32(str[i+3])<<24
			bi := bloomIndex(w)
			maybe = maybe || s.bloom[bi/64]&(1<<(bi%64)) != 0
		}
		if maybe {
			if m := s.match(str, i); m > 0 {
				return i, m
			}
		}
	}
	return -1, 0
}

// contains reports whether str holds a withheld string.
func (s *scrubber) contains(str string) bool {
	i, _ := s.find(str, 0)
	return i >= 0
}

// scrub returns str without any withheld string, and whether it changed.
// Removing one can join the halves of another, so it repeats until
// nothing changes.
func (s *scrubber) scrub(str string) (string, bool) {
	changed := false
	for {
		i, m := s.find(str, 0)
		if i < 0 {
			return str, changed
		}
		b := make([]byte, 0, len(str))
		last := 0
		for i >= 0 {
			b = append(b, str[last:i]...)
			last = i + m
			i, m = s.find(str, last)
		}
		b = append(b, str[last:]...)
		str, changed = string(b), true
	}
}
