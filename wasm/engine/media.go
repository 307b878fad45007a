package engine

import "strings"

// This file withholds what no text search reads, beside what a view
// withholds or removes, and in every output once the session withheld
// something: images, audio, blobs, items of unknown types.

// withholdMedia withholds the content items the engine cannot read (an
// image, audio, a resource's blob) of a result from which something was
// withheld: a QR code of a withheld secret, a screenshot of a withheld
// record. The view calls it for every result once the session's set
// holds something, too: a later tool's QR code of the secret an earlier
// output withheld is read by no search either. A tool that says its media never show what it withholds
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

// mayHaveContent reports whether the JSON text data may be a
// CallToolResult with content items, whose media a view withholds once
// the session withheld something: it has the string "content", or
// escapes a character, which a member name can be written with.
func mayHaveContent(data string) bool {
	return strings.Contains(data, `"content"`) || strings.Contains(data, `\u`)
}
