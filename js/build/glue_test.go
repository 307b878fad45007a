package build

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/js"
	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/ops"
)

// The page's side of the contract is JavaScript: js/webmcp/contract.js,
// which js/cmd/veil-contract generates from package ops (its test fails
// when the file is stale), and the modules that import its names. This
// test holds the modules to it: an op, an outcome kind, a decision's
// outcome or an error name is written as the contract's name, never as a
// string of its own. The members of the headers the modules write and of
// the replies they read are checked by make test-types: the contract
// types them from ops.Shapes, and tsc type checks the modules
// (js/types/tsconfig.runtime.json, docs/testing.md says what it catches).

// contract reads the names js/webmcp/contract.js exports, with their values.
func contract(t *testing.T) map[string]string {
	t.Helper()
	b, err := fs.ReadFile(js.Files, "webmcp/contract.js")
	require.NoError(t, err)
	names := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^export const ([A-Z_]+) = '([^']*)';$`).FindAllStringSubmatch(string(b), -1) {
		names[m[1]] = m[2]
	}
	require.NotEmpty(t, names, "the exports of contract.js")
	return names
}

// modules reads the page's glue, the files that talk to the engine, but
// the contract.
func modules(t *testing.T) string {
	t.Helper()
	mods, err := fs.Glob(js.Files, "webmcp/*.js")
	require.NoError(t, err)
	mods = append(mods, "worker.js")
	var all string
	for _, m := range mods {
		if m == "webmcp/contract.js" {
			continue
		}
		b, err := fs.ReadFile(js.Files, m)
		require.NoError(t, err)
		all += string(b)
	}
	return all
}

// glue is the page's glue with each of the contract's names written as
// its value, as the engine reads the ops it is sent.
func glue(t *testing.T) string {
	t.Helper()
	names := contract(t)
	return regexp.MustCompile(`\b[A-Z][A-Z_]+\b`).ReplaceAllStringFunc(modules(t), func(w string) string {
		if v, ok := names[w]; ok {
			return "'" + v + "'"
		}
		return w
	})
}

// matches returns the first group of every match of re in s.
func matches(re *regexp.Regexp, s string) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// sends matches the glue's op-sending sites, call(OP_…, …) and, where an
// op must go to one engine only, op(OP_…, …), with the op's name first,
// once glue has written the name as its value.
const sends = `\b(?:call|op)\(\s*'`

// TestGlueNamesTheContract: the glue writes no op, outcome kind, outcome
// or error name of its own where it sends an op or reads a reply, and it
// sends every op of the contract, reports every way execute can end and
// handles every outcome of a decision.
func TestGlueNamesTheContract(t *testing.T) {
	src := modules(t)
	for _, re := range []string{
		sends,                      // call('decide', …)
		`\boutput\(\s*'`,           // output('aborted')
		`\.outcome [!=]==? '`,      // d.outcome === 'block'
		`error\??\.name [!=]==? '`, // h.error.name === 'NotFoundError'
		`"engine failure"`,         // the failure reply
	} {
		assert.Empty(t, regexp.MustCompile(re).FindAllString(src, -1), "the glue writes a string of the contract's (%s) rather than its name", re)
	}
	for name := range contract(t) {
		if strings.HasPrefix(name, "OP_") || strings.HasPrefix(name, "KIND_") || strings.HasPrefix(name, "OUTCOME_") {
			assert.Regexp(t, `\b`+name+`\b`, src, "the glue never uses %s", name)
		}
	}
	for _, re := range []string{sends + `([^']*)'`, `\boutput\('([a-z]+)'`} {
		for _, v := range matches(regexp.MustCompile(re), glue(t)) {
			assert.True(t, slices.Contains(ops.All, v) || slices.ContainsFunc(ops.Kinds, func(k engine.OutcomeKind) bool { return string(k) == v }), "js sends %q", v)
		}
	}
}
