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
)

// emptyResult is what Chromium answers for a tool that returns nothing.
const emptyResult = "Operation succeeded"

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
func (e *Engine) Output(name string, o Outcome) (res Result) {
	t := e.lookup(name)
	if t == nil {
		return Result{Err: &Error{Name: "NotFoundError", Message: fmt.Sprintf("executeTool: no tool named %q is registered", name)}}
	}
	defer func() {
		if r := recover(); r != nil {
			res = Result{Err: t.failure("the runtime could not process the output")}
		}
	}()
	switch o.Kind {
	case Empty:
		return Result{Agent: emptyResult}
	case Threw:
		if t.declaresAny {
			return Result{Err: t.failure("the tool reported an error")}
		}
		return Result{Err: &Error{Name: "OperationError", Message: o.Data}}
	case Aborted:
		return Result{Err: &Error{Name: "AbortError", Message: fmt.Sprintf("executeTool: the call of tool %q was aborted", name)}}
	case TimedOut:
		return Result{Err: t.failure("the tool did not finish in time")}
	case Unserializable:
		return Result{Err: t.failure("the tool's result cannot be serialized (a cycle or a BigInt)")}
	case Text:
		if !t.declaresAny {
			return Result{Agent: o.Data}
		}
	case Returned:
		if !t.declaresAny && !mayHaveReference(o.Data) {
			return Result{Agent: o.Data}
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

type withheld struct {
	pointer string
	node    int
}

type reference struct {
	node     int
	pointer  string
	label    string
	ttl      string // JSON number text, or ""
	ttlSecs  float64
	redeem   string // absolute URL
	visible  bool
	rawID    string
	rawURL   string
	resolved string
}

// walker decides, in one pass, what happens to every node.
type walker struct {
	e        *Engine
	t        *tool
	tr       *tree
	act      []action
	held     []withheld
	refs     []reference
	invalid  []string
	secrets  map[string]struct{}
	mode     mode
	isResult bool // the output is a CallToolResult
	target   int  // the node outputSchema describes, or -1
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
		if f := t.output.validate(tr.value(w.target)); f != nil {
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
	if w.mode == wholeMode {
		w.withhold(0, "")
	} else if !w.isResult {
		w.walk(0, start, true, "")
	} else {
		w.result(start)
	}

	if len(w.held) == 0 && len(w.refs) == 0 && len(w.invalid) == 0 {
		// Nothing withheld, so nothing to scrub either: the output passes
		// as the tool wrote it.
		return Result{Agent: o.Data}
	}
	return w.build()
}

// result walks a CallToolResult member by member.
func (w *walker) result(start *sstate) {
	tr := w.tr
	tr.children(0, func(j int) {
		key := tr.nodes[j].key
		ptr := "/" + escapePointer(key)
		switch {
		case key == "content":
			idx := 0
			tr.children(j, func(k int) {
				w.contentItem(k, ptr+"/"+strconv.Itoa(idx))
				idx++
			})
		case key == "structuredContent":
			if w.mode == textMode {
				w.withhold(j, ptr)
			} else {
				w.walk(j, start, true, ptr)
			}
		case key == "isError" && tr.nodes[j].kind == kBool:
		case w.mode == denyMode:
			w.walk(j, nil, true, ptr)
		default:
			w.withhold(j, ptr)
		}
	})
}

func (w *walker) contentItem(k int, ptr string) {
	switch {
	case w.isReference(k):
		w.reference(k, ptr, true)
	case w.mode == denyMode:
		w.walk(k, nil, true, ptr)
	case w.mode == textMode && w.isText(k):
		// Text items reach the agent, scrubbed.
	default:
		w.withhold(k, ptr)
	}
}

func (w *walker) isText(k int) bool {
	tr := w.tr
	if tr.nodes[k].kind != kObject {
		return false
	}
	typ := tr.member(k, "type")
	text := tr.member(k, "text")
	if typ < 0 || tr.nodes[typ].kind != kString || tr.nodes[typ].str != "text" || text < 0 || tr.nodes[text].kind != kString {
		return false
	}
	// Only type and text: anything else rides along unseen.
	n := 0
	tr.children(k, func(int) { n++ })
	return n == 2
}

// walk decides node i at a location whose schema state is st (nil: no
// schema) and which the schema declares or not.
func (w *walker) walk(i int, st *sstate, declared bool, ptr string) {
	n := &w.tr.nodes[i]
	if st != nil && st.sensitive {
		w.withhold(i, ptr)
		return
	}
	if w.mode == allowMode && !declared {
		w.withhold(i, ptr)
		return
	}
	if w.isReference(i) {
		w.reference(i, ptr, true)
		return
	}
	switch n.kind {
	case kObject:
		if st != nil {
			st = st.withMembers(func(yield func(string) bool) {
				for j := i + 1; j < w.tr.nodes[i].next; j = w.tr.nodes[j].next {
					if !yield(w.tr.nodes[j].key) {
						return
					}
				}
			})
		}
		if st != nil && st.keysSensitive {
			// The member names are sensitive: the object goes whole, and
			// its names join the scrub set, so no pointer names them.
			w.withhold(i, ptr)
			w.tr.children(i, func(j int) { w.secret(w.tr.nodes[j].key) })
			return
		}
		w.tr.children(i, func(j int) {
			key := w.tr.nodes[j].key
			cptr := ptr + "/" + escapePointer(key)
			if st == nil {
				w.walk(j, nil, false, cptr)
				return
			}
			t := st.member(key)
			w.walk(j, t.st, t.declared, cptr)
		})
	case kArray:
		idx := 0
		w.tr.children(i, func(j int) {
			cptr := ptr + "/" + strconv.Itoa(idx)
			if st == nil {
				w.walk(j, nil, false, cptr)
			} else {
				t := st.item(idx)
				w.walk(j, t.st, t.declared, cptr)
			}
			idx++
		})
	}
}

// withhold holds node i for the user. Its strings join the scrub set, and
// the references inside it are held too; the agent learns only their
// number, as their labels stood at a withheld location.
func (w *walker) withhold(i int, ptr string) {
	w.act[i] = withhold
	w.held = append(w.held, withheld{pointer: ptr, node: i})
	w.collect(i, ptr)
}

func (w *walker) collect(i int, ptr string) {
	n := &w.tr.nodes[i]
	switch n.kind {
	case kString:
		w.secret(n.str)
	case kNumber:
		w.secret(w.tr.text(i))
	case kObject:
		if w.isReference(i) {
			w.reference(i, ptr, false)
		}
		w.tr.children(i, func(j int) { w.collect(j, ptr+"/"+escapePointer(w.tr.nodes[j].key)) })
	case kArray:
		idx := 0
		w.tr.children(i, func(j int) { w.collect(j, ptr+"/"+strconv.Itoa(idx)); idx++ })
	}
}

func (w *walker) secret(s string) {
	if s != "" {
		w.secrets[s] = struct{}{}
	}
}

// isReference reports whether node i is an object whose type is
// "secret_reference".
func (w *walker) isReference(i int) bool {
	if w.tr.nodes[i].kind != kObject {
		return false
	}
	typ := w.tr.member(i, "type")
	return typ >= 0 && w.tr.nodes[typ].kind == kString && w.tr.nodes[typ].str == "secret_reference"
}

func (w *walker) hasReference(i int) bool {
	for j := i; j < w.tr.nodes[i].next; j++ {
		if w.isReference(j) {
			return true
		}
	}
	return false
}

// reference validates the secret_reference at node i and holds it. Its id
// and URL join the scrub set whether it is valid or not.
func (w *walker) reference(i int, ptr string, visible bool) {
	tr := w.tr
	str := func(key string) (string, bool) {
		j := tr.member(i, key)
		if j < 0 || tr.nodes[j].kind != kString {
			return "", false
		}
		return tr.nodes[j].str, true
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
		w.invalid = append(w.invalid, fmt.Sprintf("tool %q: the secret_reference at %s was withheld: %s", w.t.name, orRoot(ptr), why))
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
	ref := reference{node: i, pointer: ptr, label: label, redeem: redeem, visible: visible}
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
	u.Fragment = ""
	u.RawFragment = ""
	return (&url.URL{Scheme: e.origin.Scheme, Host: e.origin.Host, Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery}).String(), ""
}

// build writes the agent view of an output from which something was
// withheld: an MCP CallToolResult whose text says what was withheld, and
// whose _meta lists where.
func (w *walker) build() Result {
	now := w.e.opts.Now()
	callID := newHandle()
	w.e.mu.Lock()
	defer w.e.mu.Unlock()
	var items []Item
	var pointers []string
	for _, h := range w.held {
		pointers = append(pointers, h.pointer)
		n := &w.tr.nodes[h.node]
		value := w.tr.text(h.node)
		if n.kind == kString {
			value = n.str
		}
		items = append(items, w.e.vault.hold(Item{
			CallID: callID, Tool: w.t.name, Kind: "value", Label: w.label(h.pointer), Pointer: h.pointer,
			Expires: now.Add(w.e.opts.HoldTTL),
		}, value, ""))
	}
	for _, r := range w.refs {
		exp := now.Add(w.e.opts.HoldTTL)
		if r.ttlSecs > 0 {
			exp = now.Add(secondsDuration(r.ttlSecs))
		}
		items = append(items, w.e.vault.hold(Item{
			CallID: callID, Tool: w.t.name, Kind: "reference", Label: r.label, Pointer: r.pointer, Expires: exp,
		}, "", r.redeem))
	}

	s := newScrubber(w.secrets)
	var b []byte
	notice := w.notice()
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
			switch n.key {
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
				if w.mode == allowMode && w.target >= 0 && w.act[w.target] == keep {
					b = append(b, ',')
					b = appendText(b, string(w.emit(nil, w.target, s)))
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
			value = w.emit(nil, 0, s)
			b = append(b, ',')
			b = appendText(b, string(value))
		}
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
	return Result{Agent: string(b), CallID: callID, Items: items, Invalid: w.invalid}
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
		b.WriteString(". The user can reveal them on the page; they were not sent to you, so do not guess them or ask the user to share them.")
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
		for _, r := range w.refs {
			if r.node == i {
				return appendReference(b, r, s)
			}
		}
	}
	switch n.kind {
	case kString:
		if c, ok := s.scrub(n.str); ok {
			return appendString(b, c)
		}
		return append(b, tr.src[n.start:n.end]...)
	case kObject:
		b = append(b, '{')
		first := true
		tr.children(i, func(j int) {
			if w.act[j] == withhold || w.act[j] == drop {
				return
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, tr.src[tr.nodes[j].keyStart:tr.nodes[j].start]...)
			b = w.emit(b, j, s)
		})
		return append(b, '}')
	case kArray:
		b = append(b, '[')
		first := true
		tr.children(i, func(j int) {
			if w.act[j] == withhold || w.act[j] == drop {
				return
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = w.emit(b, j, s)
		})
		return append(b, ']')
	default:
		return append(b, tr.src[n.start:n.end]...)
	}
}

func appendText(b []byte, text string) []byte {
	b = append(b, `{"type":"text","text":`...)
	b = appendString(b, text)
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
type scrubber struct {
	r *strings.Replacer
	// first marks the bytes a withheld string can start with, so most
	// strings are passed over without a search.
	first [256]bool
}

func newScrubber(secrets map[string]struct{}) *scrubber {
	if len(secrets) == 0 {
		return &scrubber{}
	}
	list := make([]string, 0, len(secrets))
	for s := range secrets {
		list = append(list, s)
	}
	// Longest first, so a secret that contains another goes whole.
	slices.SortFunc(list, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b))
	})
	s := &scrubber{}
	args := make([]string, 0, 2*len(list))
	for _, x := range list {
		args = append(args, x, "")
		s.first[x[0]] = true
	}
	s.r = strings.NewReplacer(args...)
	return s
}

// scrub returns str without any withheld string, and whether it changed.
// Removing one can join the halves of another, so it repeats until
// nothing changes.
func (s *scrubber) scrub(str string) (string, bool) {
	if s.r == nil {
		return str, false
	}
	found := false
	for i := 0; i < len(str); i++ {
		if s.first[str[i]] {
			found = true
			break
		}
	}
	if !found {
		return str, false
	}
	changed := false
	for {
		out := s.r.Replace(str)
		if out == str {
			return str, changed
		}
		str, changed = out, true
	}
}
