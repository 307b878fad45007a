package engine

import (
	"strings"
	"time"
)

// This file says what a withheld node gives rule (d): its strings,
// numbers and names, the values its JSON text holds, and what of it is
// the tool's or MCP's own words rather than what it holds.

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
		w.addValue(tr.str(i))
		if w.deep {
			w.collectJSONText(tr.str(i), 0)
		}
	case kNumber:
		w.addNumber(tr.text(i))
	case kObject:
		if w.referenceKind(i) != notReference {
			// A reference's fields are declared what they are: they
			// join the session's set however its output was withheld.
			hinted := w.hinted
			w.hinted = false
			w.reference(i, refWithheld)
			w.hinted = hinted
			return
		}
		item := isContentItem(tr, i)
		ref := w.referenceLike(i)
		if ref {
			hinted := w.hinted
			w.hinted = false
			defer func() { w.hinted = hinted }()
		}
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
	// A descriptor, a member of the object itself (descriptors.go), joins
	// with the text and not on its own.
	var described map[string]bool
	if w.hinted && tr.nodes[0].kind == kObject {
		described = descriptorWords(str)
	}
	for i := range tr.nodes {
		n := &tr.nodes[i]
		if n.parent >= 0 && tr.nodes[n.parent].kind == kObject {
			w.addName(tr.key(i))
		}
		switch n.kind {
		case kString:
			if v := tr.str(i); n.parent == 0 && described[v] {
				w.viewOnlySet().addString(v)
			} else {
				w.addValue(v)
			}
			w.collectJSONText(tr.str(i), depth+1)
		case kNumber:
			w.addNumber(tr.text(i))
		}
	}
}

// addValue adds a withheld string to what rule (d) removes: to the
// session's set, unless it is withheld only because its whole output was.
// Of such a value only what is not ordinary joins (hintedParts), each part
// whose skeleton is an ordinary word as written only (wordSkeleton); the
// value itself is removed from this view in any form, as rule (d) has it
// within one output.
func (w *walker) addValue(v string) {
	if !w.hinted {
		w.set.addString(v)
		return
	}
	// This view loses the value in any form a reader decodes, whatever of
	// it joins the session's set.
	w.viewOnlySet().addString(v)
	parts := hintedParts(v)
	for _, p := range parts {
		if wordSkeleton(p) {
			w.set.addAsWritten(p)
		} else {
			w.set.addString(p)
		}
	}
}

// addNumber is addValue for a withheld number (secretLikeNumber).
func (w *walker) addNumber(text string) {
	if !w.hinted || secretLikeNumber(text) {
		w.set.addNumber(text)
		return
	}
	w.viewOnlySet().addNumber(text)
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
func (w *walker) newScrubber() *scrubber { return newScrubber(w.set, w.viewOnly, w.own) }

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
	if t.output != nil && t.output.Declares(name) || t.input != nil && t.input.Declares(name) {
		return true
	}
	lower := strings.ToLower(name)
	return mcpNames[lower] || t.output != nil && t.output.DeclaresLower(lower) || t.input != nil && t.input.DeclaresLower(lower)
}
