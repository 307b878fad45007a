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
	"github.com/veilmcp/veil/wasm/ops"
	"github.com/veilmcp/veil/wasm/risk"
)

// The page's side of the contract is JavaScript: these tests read it and
// hold it to package ops, so that an op renamed, dropped or added on one
// side fails here rather than in a browser.

// glue reads the page's glue, the files that talk to the engine.
func glue(t *testing.T) string {
	t.Helper()
	var all string
	b, err := Source("webmcp.js")
	require.NoError(t, err)
	all += string(b)
	b, err = fs.ReadFile(js.Files, "worker.js")
	require.NoError(t, err)
	all += string(b)
	return all
}

// matches returns the first group of every match of re in s.
func matches(re *regexp.Regexp, s string) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// sends matches the glue's op-sending sites, call('op', …) and, where an
// op must go to one engine only, op('op', …), with the op's name first.
const sends = `\b(?:call|op)\(\s*'`

// TestGlueSendsTheOps: every op the glue sends is one of ops.All, and it sends
// every one but those the host sends: ops.Sweep, ops.Exit and ops.Stats.
func TestGlueSendsTheOps(t *testing.T) {
	sent := matches(regexp.MustCompile(sends+`([^']*)'`), glue(t))
	require.NotEmpty(t, sent, "the glue's call('op', …) sites")
	for _, op := range sent {
		assert.Contains(t, ops.All, op, "js sends op %q", op)
	}
	for _, op := range ops.All {
		if op != ops.Sweep && op != ops.Exit && op != ops.Stats {
			assert.Contains(t, sent, op, "js never sends op %q", op)
		}
	}
}

// TestGlueFailure: the glue's failure reply is ops.Failure, written once.
func TestGlueFailure(t *testing.T) {
	src := glue(t)
	defs := matches(regexp.MustCompile(`const FAILURE = '([^']*)'`), src)
	require.Len(t, defs, 1, "one FAILURE in the glue")
	assert.Equal(t, ops.Failure, defs[0])
	assert.Equal(t, 1, len(regexp.MustCompile(`engine failure`).FindAllString(src, -1)), "the failure's message is written once")
}

// TestGlueErrorNames: an error name the glue compares a reply's error
// with is one the engine sends.
func TestGlueErrorNames(t *testing.T) {
	names := matches(regexp.MustCompile(`error\??\.name === '([A-Za-z]+)'`), glue(t))
	require.NotEmpty(t, names, "the glue reads error names")
	for _, n := range names {
		assert.True(t, slices.Contains(ops.ErrorNames, n), "js compares with error name %q, which the engine never sends", n)
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

// TestGlueKinds: every way the glue reports execute ended is one of
// ops.Kinds, and it reports each of them.
func TestGlueKinds(t *testing.T) {
	src := glue(t)
	var sent []string
	sent = append(sent, matches(regexp.MustCompile(`\boutput\('([a-z]+)'`), src)...)
	// classify's and run's [kind, data] pairs.
	sent = append(sent, matches(regexp.MustCompile(`\['([a-z]+)', (?:''|v|s)\]`), src)...)
	var kinds []string
	for _, k := range ops.Kinds {
		kinds = append(kinds, string(k))
	}
	for _, k := range sent {
		assert.Contains(t, kinds, k, "js reports outcome kind %q", k)
	}
	for _, k := range kinds {
		assert.Contains(t, sent, k, "js never reports outcome kind %q", k)
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
		{"output reply", `\bh\.(same|held|invalid|reserved|malicious)\b`, ops.OutputReply{}, []string{"same", "held", "invalid", "reserved", "malicious"}},
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
