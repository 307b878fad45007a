package engine

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/veilmcp/veil/wasm/engine/internal/jsontree"
)

// This file holds rule (c): secret_references, found as JSON objects, as
// JSON text in strings, and by any mention of their type, validated and
// held, or withheld as invalid.

type reference struct {
	node    int
	pointer string
	label   string
	ttl     string // JSON number text, or ""
	ttlSecs float64
	redeem  string // absolute URL
	visible bool
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
		// What a reference read here holds is declared what it is.
		hinted := w.hinted
		w.hinted = false
		w.set.shadow = local
		ok = w.extract(&x, str, 0)
		w.set.shadow = nil
		w.hinted = hinted
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
		w.invalid = append(w.invalid, fmt.Sprintf("tool %q: the string at %s names secret_reference where no valid reference could be read, so it was withheld", w.t.name, jsontree.OrRoot(ptr)))
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
	w.invalid = append(w.invalid, fmt.Sprintf("tool %q: the member at %s names secret_reference in its name, so it was withheld", w.t.name, jsontree.OrRoot(w.tr.pointer(j))))
	// The name goes from the pointer too: it may carry what the member
	// held (an id, a URL).
	w.addName(key)
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

// hasValidReference reports whether node i holds a secret_reference
// whose type is exactly secret_reference: one that can be valid, which
// sensitiveHint's text mode (a2) needs; a reference spelled otherwise is
// withheld, and leaves the tool's output withheld whole (a3).
func (w *walker) hasValidReference(i int) bool {
	for j := i; j < int(w.tr.nodes[i].next); j++ {
		if w.referenceKind(j) == exactReference {
			return true
		}
	}
	return false
}

func (w *walker) hasReference(i int) bool {
	for j := i; j < int(w.tr.nodes[i].next); j++ {
		if w.referenceKind(j) != notReference {
			return true
		}
	}
	return false
}

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
	// A reference's fields are declared what they are: they join the
	// session's set whole, however its output was withheld.
	hinted := w.hinted
	w.hinted = false
	defer func() { w.hinted = hinted }()
	tr.children(i, func(j int) {
		switch key := tr.key(j); strings.ToLower(key) {
		case "type", "label", "ttl":
			if key != strings.ToLower(key) {
				// What a reference written another way shows: this
				// view's to remove (the exact names are hideShown's).
				w.addName(key)
				w.collectViewOnly(j)
			}
		case "id", "redeemurl":
			w.collect(j)
		default:
			w.addName(key)
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
	// What a valid one shows, where the agent gets none of it: removed
	// from this view, but not from later ones, since a label ("API
	// key") and a ttl are the page's words, not what it keeps.
	hideShown := func() {
		for _, key := range []string{"label", "ttl"} {
			if j := tr.member(i, key); j >= 0 {
				w.collectViewOnly(j)
			}
		}
	}
	if !shown {
		hideShown()
	}
	if urlOK {
		// What the URL carries goes from every string, valid or not.
		w.addURLParts(rawURL)
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
		w.invalid = append(w.invalid, fmt.Sprintf("tool %q: the secret_reference at %s was withheld: %s", w.t.name, jsontree.OrRoot(tr.pointer(i)), why))
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
		// default port.
		w.set.addString(u.RequestURI())
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

// addURLParts adds what a redeemUrl carries besides itself: its path and
// query, each query name and value, each segment of its path and each of
// a segment's matrix parameters (;tok=…) that may be a capability of its
// own, and its fragment and the fragment's parameters (#k=…&v=1), which
// never reach the server and which the view never shows.
func (w *walker) addURLParts(raw string) {
	u, err := url.Parse(raw)
	if err != nil {
		// What cannot be read as a URL is searched for as written.
		w.set.addString(raw)
		return
	}
	w.set.addString(u.RequestURI())
	w.addQuery(u.RawQuery)
	for _, seg := range strings.Split(u.Path, "/") {
		for _, part := range strings.FieldsFunc(seg, urlSeparator) {
			if w.e.capabilitySegment(part) {
				w.set.addString(part)
			}
		}
	}
	if u.Fragment != "" {
		w.set.addString(u.Fragment)
		w.set.addString(u.EscapedFragment())
		w.addQuery(u.Fragment)
	}
}

func urlSeparator(r rune) bool { return r == ';' || r == '=' || r == ',' || r == '&' }

// addQuery adds the names and values of a query's parameters, split at &
// and ; both: a bare ?token is a name with no value.
func (w *walker) addQuery(q string) {
	for _, pair := range strings.FieldsFunc(q, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(pair, "=")
		for _, x := range []string{k, v} {
			w.set.addString(x)
			if d, err := url.QueryUnescape(x); err == nil && d != x {
				w.set.addString(d)
			}
		}
	}
}

// collectViewOnly adds the string or number at node j to what this view
// alone removes; anything else it collects as withheld.
func (w *walker) collectViewOnly(j int) {
	switch tr := w.tr; tr.nodes[j].kind {
	case kString:
		w.viewOnlySet().addString(tr.str(j))
	case kNumber:
		w.viewOnlySet().addNumber(tr.text(j))
	default:
		w.collect(j)
	}
}

// capabilitySegment reports whether a segment of a redeemUrl's path may
// be a capability that rule (d) removes from every string: four
// characters or more, and not a segment of the page's redeem path, nor a
// plain word (lower-case letters and dashes, at most twelve) such as
// "redeem" or "api-keys", which would otherwise go from every later text.
func (e *Engine) capabilitySegment(seg string) bool {
	if len(seg) < minScrubLength {
		return false
	}
	if p := e.opts.RedeemPath; p != "" && slices.Contains(strings.Split(p, "/"), seg) {
		return false
	}
	if len(seg) > 12 {
		return true
	}
	for i := 0; i < len(seg); i++ {
		if c := seg[i]; !(c >= 'a' && c <= 'z' || c == '-') {
			return true
		}
	}
	return false
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
