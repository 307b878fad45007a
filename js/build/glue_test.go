package build

import (
	"io/fs"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/js"
	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/ops"
	"github.com/veilmcp/veil/wasm/risk"
)

// The page's side of the contract is JavaScript: js/webmcp/contract.js,
// which js/cmd/veil-contract generates from package ops (its test fails
// when the file is stale), and the modules that import its names. These
// tests hold the modules to it: an op, an outcome kind, a decision's
// outcome or an error name is written as the contract's name, never as a
// string of its own, and the headers the glue writes are the requests'.

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

// TestGlueHeaders: the members the glue writes in each op's header are
// the request's, so that decode's strictness never trips on the page.
func TestGlueHeaders(t *testing.T) {
	src := glue(t)
	tests := []struct {
		op      string
		members []string
	}{
		{ops.Decide, []string{"name"}},
		{ops.Output, []string{"call", "kind"}},
		{ops.Settle, []string{"call", "approved"}},
		{ops.Unregister, []string{"name", "registration"}},
		{ops.Reveal, []string{"handle"}},
		{ops.Forget, []string{"handle"}},
		{ops.Scrub, []string{"tool"}},
		{ops.Foreign, []string{"names"}},
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			re := regexp.MustCompile(sends + tt.op + `',\s*\{([^}]*)\}`)
			sites := matches(re, src)
			require.NotEmpty(t, sites, "call('%s', {…})", tt.op)
			for _, site := range sites {
				got := matches(regexp.MustCompile(`(?:^|,)\s*([A-Za-z]+)\s*(?::|,|$)`), site)
				assert.ElementsMatch(t, tt.members, got, "call('%s', {%s})", tt.op, site)
			}
		})
	}
}

// jsonNames lists the JSON member names of struct type v, with those of
// its embedded structs, as encoding/json reads them.
func jsonNames(v any) []string {
	var names []string
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case tag == "-":
			case f.Anonymous && tag == "":
				walk(f.Type)
			case tag != "":
				names = append(names, tag)
			case f.IsExported():
				names = append(names, f.Name)
			}
		}
	}
	walk(reflect.TypeOf(v))
	return names
}

// TestGlueMembers: the members the glue writes into headers it builds
// from variables, and the reply members it reads, are the contract's.
func TestGlueMembers(t *testing.T) {
	src := glue(t)
	tests := []struct {
		what   string
		glue   string // a regexp whose first group is a member name
		go_    any
		always []string // members the glue must use
	}{
		{"register header", `call\('register', \{ ([a-z]+):`, ops.RegisterRequest{}, []string{"registration"}},
		{"register header, spread", `\(refine && \{ ([a-z]+): true \}\)`, ops.RegisterRequest{}, []string{"resolve"}},
		{"resolve header", `\bhd\.([a-z]+) =`, ops.ResolveRequest{}, []string{"resolved", "failed"}},
		{"resolve header, first member", `const hd = \{ ([a-z]+):`, ops.ResolveRequest{}, []string{"call"}},
		{"decide reply", `(?:^|[^\w.])d\.([a-zA-Z]+)\b`, ops.DecideReply{}, []string{"call", "outcome", "registration", "load", "request", "entry", "trust", "rule", "facts", "sensitive", "resolveError", "error"}},
		{"output reply", `\bh\.(same|held|invalid|reserved|malicious|warnings)\b`, ops.OutputReply{}, []string{"same", "held", "invalid", "reserved", "malicious", "warnings"}},
		{"register reply", `\bh\.(notes|unknown)\b`, ops.RegisterReply{}, []string{"notes"}},
		{"load", `\bd\.load\.([a-zA-Z]+)`, risk.Load{}, []string{"timeoutMs", "slow", "exclusive", "retry"}},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			names := append(jsonNames(tt.go_), "error")
			used := matches(regexp.MustCompile(tt.glue), src)
			for _, m := range used {
				assert.Contains(t, names, m, "js uses member %q", m)
			}
			for _, m := range tt.always {
				assert.Contains(t, used, m, "js no longer uses member %q", m)
			}
		})
	}
}
