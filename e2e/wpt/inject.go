package wpt

import (
	"path"
	"regexp"
	"strings"
)

// runtimeTag returns what mode injects, if anything: Veil's runtime,
// which finds worker.js, veil.wasm and wasm_exec.js beside itself under
// /dist/.
func runtimeTag(mode Mode) string {
	switch mode {
	case ModeRuntime, ModeLayered:
		return `<script src="/dist/webmcp.js"></script>`
	case ModeRuntimeMain, ModeLayeredMain:
		return `<script src="/dist/webmcp.js" data-veil-mode="main"></script>`
	}
	return ""
}

var (
	// headTag and htmlTag match the start tag of head and of html: the
	// name must end there, so that <header> is not <head>.
	headTag = regexp.MustCompile(`(?i)<head(?:[\s/][^>]*)?>`)
	htmlTag = regexp.MustCompile(`(?i)<html(?:[\s/][^>]*)?>`)
	// prologue is what may precede the first element: a byte order
	// mark, white space, comments and the doctype.
	prologue = regexp.MustCompile(`(?is)^(?:\x{FEFF}|\s|<!--.*?-->)*(?:<!doctype[^>]*>)?`)
)

// inject returns page with tag as the first element of its head, as
// wptrunner's --inject-script does: right after <head>, else right after
// <html>, else after the doctype (the parser then opens the head for it),
// so that the implementation runs before anything the test loads.
// Nothing before it changes, so a doctype keeps the page in no-quirks
// mode and a <meta charset> stays within the first 1024 bytes.
func inject(page []byte, tag string) []byte {
	at := -1
	if loc := headTag.FindIndex(page); loc != nil {
		at = loc[1]
	} else if loc := htmlTag.FindIndex(page); loc != nil {
		at = loc[1]
	} else {
		at = prologue.FindIndex(page)[1]
	}
	out := make([]byte, 0, len(page)+len(tag))
	out = append(out, page[:at]...)
	out = append(out, tag...)
	return append(out, page[at:]...)
}

// isPage reports whether a served file is an HTML page, into which the
// implementation is injected.
func isPage(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".html" || ext == ".htm"
}
