package suite

import (
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"

	"github.com/veilmcp/veil/e2e/corpus"
)

// An entry is one test of the index: its name and the first sentence of
// what it guards against.
type entry struct {
	name, about string
}

// A section is one test file of the index.
type section struct {
	file, title, assert string
	tests               []entry
}

// index is README.md: the files, their tests, and what the suite leaves
// out.
type index struct {
	sections []section
	// leftOut are the rule cases left out, with why.
	leftOut map[string]string
	// specLeftOut are the spec cases that are not registration errors.
	specLeftOut []string
}

func (x *index) add(file, title, assert string, tests []entry) {
	x.sections = append(x.sections, section{file, title, assert, tests})
}

func casesOf(cs []*corpus.Case) []entry {
	out := make([]entry, len(cs))
	for i, c := range cs {
		out[i] = entry{c.Name, firstSentence(c.Comment)}
	}
	return out
}

func specsOf(ss []spec) []entry {
	out := make([]entry, len(ss))
	for i, s := range ss {
		out[i] = entry{s.name, firstSentence(s.comment)}
	}
	return out
}

// A writtenFile is a test file written by hand, as the index lists it.
type writtenFile struct {
	name, title, assert string
}

var (
	titleRE  = regexp.MustCompile(`(?s)<title>(.*?)</title>`)
	assertRE = regexp.MustCompile(`(?s)<meta name="assert" content="(.*?)">`)
)

// readWritten reads what the index says of a file written by hand: its
// title and its <meta name="assert">.
func readWritten(name, text string) writtenFile {
	f := writtenFile{name: name}
	if m := titleRE.FindStringSubmatch(text); m != nil {
		f.title = html.UnescapeString(strings.TrimPrefix(m[1], "WebMCP sensitive output: "))
	}
	if m := assertRE.FindStringSubmatch(text); m != nil {
		f.assert = html.UnescapeString(m[1])
	}
	return f
}

// markdown writes the index.
func (x *index) markdown(written []writtenFile) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- %s -->\n\n", Generated)
	b.WriteString("# webmcp/sensitive\n\n")
	b.WriteString("testharness.js tests of what a WebMCP implementation gives an agent from a\n")
	b.WriteString("tool that declares its output sensitive, and of the endpoint that redeems\n")
	b.WriteString("a secret reference: the proposal of\n")
	fmt.Fprintf(&b, "[webmachinelearning/webmcp#110](%s). How to run them against\n", Help)
	b.WriteString("an implementation, and what each group checks:\n")
	b.WriteString("[docs/conformance.md](../../../../docs/conformance.md).\n\n")

	total := 0
	for _, s := range x.sections {
		total += len(s.tests)
	}
	fmt.Fprintf(&b, "%d tests in %d files generated from the corpus; %d files written by hand\n", total, len(x.sections), len(written))
	b.WriteString("(redeem-*.html), which need the runner's redeem fixture endpoints.\n\n")

	b.WriteString("| File | Tests | Checks |\n|---|---|---|\n")
	for _, s := range x.sections {
		fmt.Fprintf(&b, "| [%s](%s) | %d | %s |\n", s.file, s.file, len(s.tests), cell(s.assert))
	}
	for _, w := range written {
		fmt.Fprintf(&b, "| [%s](%s) | by hand | %s |\n", w.name, w.name, cell(w.assert))
	}

	for _, s := range x.sections {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", s.file, s.title)
		for _, t := range s.tests {
			fmt.Fprintf(&b, "- `%s`: %s\n", t.name, t.about)
		}
	}

	b.WriteString("\n## Left out\n\n")
	b.WriteString("Rule cases of e2e/testdata/cases the suite does not hold, since what they\n")
	b.WriteString("check is Veil's own rather than the proposal's:\n\n")
	names := make([]string, 0, len(x.leftOut))
	for name := range x.leftOut {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(&b, "- `%s`: %s.\n", name, x.leftOut[name])
	}
	b.WriteString("\nThe cases of e2e/testdata/spec other than registration errors check the\n")
	b.WriteString("draft's lifecycle (abort, events, unregistration, forms, inputs, getTools),\n")
	b.WriteString("not sensitive output; WPT's own webmcp/ tests cover it: ")
	quoted := make([]string, len(x.specLeftOut))
	for i, n := range x.specLeftOut {
		quoted[i] = "`" + n + "`"
	}
	b.WriteString(strings.Join(quoted, ", ") + ".\n")
	return []byte(b.String())
}

// cell makes text fit one cell of a Markdown table.
func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}
