package suite

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/corpus"
)

// update rewrites the generated files, as the corpus runners' -update
// rewrites their expectations.
var update = flag.Bool("update", false, "rewrite the generated tests of webmcp/sensitive from the corpus")

// The corpus and the tests, relative to this package.
const (
	casesDir = "../../testdata/cases"
	specDir  = "../../testdata/spec"
	outDir   = "../" + Dir
)

// TestGenerated fails when the committed tests differ from what Generate
// writes, or when a generated file is there that Generate no longer
// writes; -update rewrites them and removes such files.
func TestGenerated(t *testing.T) {
	files, err := Generate(casesDir, specDir, outDir)
	require.NoError(t, err, "Generate")
	want := map[string]bool{}
	for _, f := range files {
		want[f.Name] = true
		path := filepath.Join(outDir, filepath.FromSlash(f.Name))
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, f.Data, 0o644))
			continue
		}
		got, err := os.ReadFile(path)
		if !assert.NoError(t, err, "reading %s (go test -run TestGenerated -update writes it)", f.Name) {
			continue
		}
		assert.Equal(t, string(f.Data), string(got), "%s differs from what the generator writes (go test -run TestGenerated -update rewrites it)", f.Name)
	}
	entries, err := os.ReadDir(outDir)
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() || want[e.Name()] {
			continue
		}
		path := filepath.Join(outDir, e.Name())
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		if !strings.Contains(string(b), Generated) {
			continue // written by hand
		}
		if *update {
			require.NoError(t, os.Remove(path))
			continue
		}
		t.Errorf("%s is generated but the generator no longer writes it (go test -run TestGenerated -update removes it)", e.Name())
	}
}

// TestEveryCaseOnce checks that every rule case is in exactly one file or
// left out, and that the suite holds at least the tests it promises.
func TestEveryCaseOnce(t *testing.T) {
	cases, err := corpus.Load(casesDir)
	require.NoError(t, err)
	files, err := Generate(casesDir, specDir, outDir)
	require.NoError(t, err)
	tests := map[string]int{}
	total := 0
	for _, f := range files {
		if !strings.HasSuffix(f.Name, ".html") {
			continue
		}
		for _, line := range strings.Split(string(f.Data), "\n") {
			if name, ok := strings.CutPrefix(line, "}, \""); ok {
				tests[strings.TrimSuffix(name, "\");")]++
				total++
			}
		}
	}
	for _, c := range cases {
		_, out := leftOut[c.Name]
		switch {
		case out:
			assert.Zero(t, tests[c.Name], "%s is left out but has a test", c.Name)
		default:
			assert.Equal(t, 1, tests[c.Name], "tests named %s", c.Name)
		}
	}
	assert.GreaterOrEqual(t, total, 60, "tests in the suite")
}

func TestGroups(t *testing.T) {
	view := func(s string) *string { return &s }
	tests := []struct {
		name string
		view *string
		want string
	}{
		{"a1-allowlist", nil, "agent-view-a1.html"},
		{"c-reference-deep", view(`{"_meta":{"x":{"references":1,"invalidReferences":0}}}`), "agent-view-c.html"},
		{"c-reference-kebab-type", view(`{"_meta":{"x":{"references":0,"invalidReferences":1}}}`), "agent-view-c-prime.html"},
		{"c-mention-withheld", view(`{"_meta":{"x":{"references":0,"invalidReferences":2}}}`), "agent-view-c-prime.html"},
		{"d-scrub-key", nil, "agent-view-d.html"},
		{"d-session-jwt", nil, "session-d.html"},
		{"s-items", nil, "schema-constructs.html"},
		{"pass-null", nil, "pass-through.html"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &corpus.Case{Name: tt.name, View: tt.view}
			var got string
			for _, g := range groupOrder {
				if g.match(c) {
					got = g.file
					break
				}
			}
			assert.Equal(t, tt.want, got, "the file of %s", tt.name)
		})
	}
}

func TestFirstSentence(t *testing.T) {
	tests := []struct{ comment, want string }{
		{"Rule (a1): only declared\nvalues reach the agent. Guards against more.", "Rule (a1): only declared values reach the agent."},
		{"A 1.5 s wait, e.g. a timer. Then more.", "A 1.5 s wait, e.g. a timer."},
		{"No period at all", "No period at all"},
		{"Ends here.\n", "Ends here."},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, firstSentence(tt.comment), "firstSentence(%q)", tt.comment)
	}
}

func TestInScript(t *testing.T) {
	tests := []struct {
		text string
		ok   bool
	}{
		{`"a" + "b"`, true},
		{`x < y`, true},
		{`"</script>"`, false},
		{`"</SCRIPT "`, false},
		{`"<!-- x"`, false},
		{`"<script>"`, false},
	}
	for _, tt := range tests {
		err := inScript(tt.text)
		assert.Equal(t, tt.ok, err == nil, "inScript(%q): %v", tt.text, err)
	}
}

func TestJSJSON(t *testing.T) {
	tests := []struct{ text, want string }{
		{`{"a":"</script>"}`, `{"a":"\u003c/script>"}`},
		{`"plain"`, `"plain"`},
		{`["<!--"]`, `["\u003c!--"]`},
	}
	for _, tt := range tests {
		got := jsJSON(tt.text)
		assert.Equal(t, tt.want, got, "jsJSON(%s)", tt.text)
		assert.NoError(t, inScript(got), "jsJSON(%s) in a <script>", tt.text)
	}
}

func TestRegistrationError(t *testing.T) {
	tests := []struct {
		want string
		is   bool
	}{
		{`{"error":"InvalidStateError"}`, true},
		{`{"a":{"ok":true},"b":{"error":"TypeError"}}`, true},
		{`["TypeError: sensitiveHint","ok"]`, true},
		{`{"order":["returned"],"listed":true}`, false},
		{`{"isPromise":true}`, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.is, registrationError(spec{want: tt.want}), "registrationError(%s)", tt.want)
	}
}

func TestReadWritten(t *testing.T) {
	tests := []struct {
		name, text string
		want       writtenFile
	}{
		{"redeem-a.html", "<title>WebMCP sensitive output: A &amp; B</title>\n<meta name=\"assert\" content=\"it says &quot;x&quot;\">", writtenFile{"redeem-a.html", "A & B", `it says "x"`}},
		{"redeem-b.html", "<title>Other</title>", writtenFile{"redeem-b.html", "Other", ""}},
		{"redeem-c.html", "", writtenFile{name: "redeem-c.html"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, readWritten(tt.name, tt.text), "readWritten(%s)", tt.name)
	}
}

func TestIndent(t *testing.T) {
	tests := []struct{ src, want string }{
		{"a\nb", "  a\n  b"},
		{"a\n\nb\n", "  a\n\n  b\n"},
		{"`x ${y}`", "  `x ${y}`"},
		{"`x\ny`", "`x\ny`"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, indent(tt.src, "  "), "indent(%q)", tt.src)
	}
}

// TestConformanceDoc checks the test counts docs/conformance.md gives for
// the generated files, and its total of generated tests, against what
// Generate writes.
func TestConformanceDoc(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/conformance.md")
	require.NoError(t, err)
	files, err := Generate(casesDir, specDir, outDir)
	require.NoError(t, err)
	total := 0
	for _, f := range files {
		if !strings.HasSuffix(f.Name, ".html") {
			continue
		}
		n := strings.Count(string(f.Data), "\npromise_test(")
		total += n
		row := fmt.Sprintf("| `%s` | %d |", f.Name, n)
		assert.Contains(t, string(doc), row, "docs/conformance.md's row of %s", f.Name)
	}
	assert.Contains(t, string(doc), fmt.Sprintf("- %d tests in %d files are generated", total, len(files)-1), "docs/conformance.md's count of generated tests")
}
