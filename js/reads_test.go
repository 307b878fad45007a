package js_test

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/js"
)

// comments matches JavaScript comments: a block, or a line comment that
// does not follow a colon (a URL in a string).
var comments = regexp.MustCompile(`(?s:/\*.*?\*/)|(?m:(^|[^:])//.*$)`)

// runtimeSources returns the code of every script of the runtime that
// runs in the page, its comments removed, by path.
func runtimeSources(t *testing.T) map[string]string {
	t.Helper()
	srcs := map[string]string{}
	require.NoError(t, fs.WalkDir(js.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".js") {
			return err
		}
		b, err := fs.ReadFile(js.Files, p)
		srcs[p] = comments.ReplaceAllString(string(b), "$1")
		return err
	}))
	require.NotEmpty(t, srcs)
	return srcs
}

// TestPageReadsNamesWhatTheRuntimeCaptures: every getter and method the
// runtime takes from the DOM's prototypes, and every global it reads as
// the window's own property, is one of js.PageReads, which the browser
// suite shadows with markup.
func TestPageReadsNamesWhatTheRuntimeCaptures(t *testing.T) {
	captured := []*regexp.Regexp{
		regexp.MustCompile(`\bget\(\w+, '(\w+)'\)`),                   // dom.js's getters
		regexp.MustCompile(`\bfn\(\w+(?:\.prototype)?\.(\w+)\)`),      // dom.js's methods
		regexp.MustCompile(`\bperKind\('(\w+)'\)`),                    // dom.js's methods of every kind of node
		regexp.MustCompile(`\b(?:own|define)\('(\w+)'`),               // the window's own properties
		regexp.MustCompile(`getOwnPropertyDescriptor\(D, '(\w+)'\)`),  // veil-confirm.js's getters
		regexp.MustCompile(`\bReflect\.get\(\w+\.prototype, '(\w+)'`), // a getter called on the document
	}
	seen := 0
	for p, src := range runtimeSources(t) {
		for _, re := range captured {
			for _, m := range re.FindAllStringSubmatch(src, -1) {
				seen++
				assert.Contains(t, js.PageReads, m[1], "%s reads %s, which js.PageReads does not list", p, m[1])
			}
		}
	}
	assert.Greater(t, seen, 20, "the patterns found too few reads: they no longer match the runtime's code")
}

// TestRuntimeLooksNothingUpByName: no script of the runtime reads a
// member of document, of a form (a control named for it shadows it), or
// a global by globalThis.name, where markup can shadow it; the window's
// members (named elements come after them) are read by name.
func TestRuntimeLooksNothingUpByName(t *testing.T) {
	windowOwn := []string{"length", "dispatchEvent", "addEventListener", "postMessage", "onmessage", "parent", "top", "frames", "document", "location"}
	byName := regexp.MustCompile(`(delete\s+)?\b(document|form|globalThis|window|self)\.([A-Za-z_$][\w$]*)(\s*=[^=])?`)
	// A single-quoted string names no member it reads; a global read
	// after Object.hasOwn found it the window's own is not an element.
	quoted := regexp.MustCompile(`'[^'\n]*'`)
	ownRead := regexp.MustCompile(`Object\.hasOwn\(globalThis, '(\w+)'\) \? globalThis\.(\w+)`)
	for p, src := range runtimeSources(t) {
		src = ownRead.ReplaceAllStringFunc(src, func(s string) string {
			m := ownRead.FindStringSubmatch(s)
			if m[1] != m[2] {
				return s
			}
			return "OWN"
		})
		src = quoted.ReplaceAllString(src, "''")
		for _, m := range byName.FindAllStringSubmatch(src, -1) {
			switch {
			case m[2] == "form":
				t.Errorf("%s reads form.%s by name, which a control named %s shadows: read it through webmcp/dom.js", p, m[3], m[3])
			case m[1] != "": // delete removes what the runtime defined
			case m[2] == "globalThis" && m[4] != "": // an assignment defines the window's own
			case (m[2] == "window" || m[2] == "self") && slices.Contains(windowOwn, m[3]):
			default:
				t.Errorf("%s reads %s.%s by name, which an element can shadow: read it through webmcp/dom.js", p, m[2], m[3])
			}
		}
	}
}

// TestCommentsStripped: the comment pattern keeps a URL in a string.
func TestCommentsStripped(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"a; // document.head\nb", "a; \nb"},
		{"/* document.body */x", "x"},
		{"u = 'https://example.com/x'", "u = 'https://example.com/x'"},
	} {
		assert.Equal(t, tt.want, comments.ReplaceAllString(tt.in, "$1"), tt.in)
	}
}
