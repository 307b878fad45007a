package build

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// Minified lists the scripts Dist writes minified. The sources in package
// js stay as written; a page loads these from the distribution.
var Minified = []string{"webmcp.js", "worker.js", "wasm_exec.js", "veil-secrets.js", "veil-confirm.js", "veil-forms.js", "veil-frames.js", "veil-redeem.js", "veil-restart.js", "veil-mcp.js"}

// namesSeen are the scripts whose classes a page can see by name (the
// tray's element is a VeilSecrets): they keep their functions' and
// classes' names. webmcp.js names the few it shows the page itself
// (util.js named: ModelContext, ModelContextTesting, Veil), which costs
// far less than keeping every name.
var namesSeen = map[string]bool{"veil-secrets.js": true}

// minified reports whether Dist minifies the file called name.
func minified(name string) bool {
	return slices.Contains(Minified, name)
}

// minify returns the classic script src (file name, for errors) with its
// whitespace and comments removed, its local names shortened and its
// syntax compacted: webmcp.js blocks the page while it loads, and every
// script counts toward the runtime's transfer. The scripts stay classic
// scripts with their 'use strict' directive, nothing is transpiled below
// ES2022 (private fields, static blocks, optional chaining as written),
// and in the scripts of [namesSeen] functions and classes keep their
// names. Those are wrapped in a function of their own, since keeping the
// names adds helpers at the top level, which in a classic script would be
// globals: the page's own variables of those names would replace them
// (wasm_exec.js's Go, while the engine starts on the main thread), and
// they would replace the page's. A leading copyright comment
// (wasm_exec.js's) is kept.
func minify(name string, src []byte) ([]byte, error) {
	format := api.FormatDefault
	if namesSeen[name] {
		format = api.FormatIIFE
	}
	res := api.Transform(string(src), api.TransformOptions{
		Loader:            api.LoaderJS,
		Format:            format,
		Target:            api.ES2022,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		KeepNames:         namesSeen[name],
		Charset:           api.CharsetUTF8,
		LegalComments:     api.LegalCommentsNone,
		Sourcefile:        name,
	})
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return nil, fmt.Errorf("minifying %s: %s", name, strings.Join(msgs, ""))
	}
	return append(copyright(src), res.Code...), nil
}

// copyright is the leading comment of src when it is a copyright notice,
// with the line that ends it.
func copyright(src []byte) []byte {
	if !bytes.HasPrefix(src, []byte("// Copyright ")) {
		return nil
	}
	end := 0
	for end < len(src) && bytes.HasPrefix(src[end:], []byte("//")) {
		nl := bytes.IndexByte(src[end:], '\n')
		if nl < 0 {
			return append(bytes.Clone(src), '\n')
		}
		end += nl + 1
	}
	return bytes.Clone(src[:end])
}
