package suite

import (
	"encoding/json"
	"fmt"
	"html"
	"maps"
	"slices"
	"strings"

	"github.com/veilmcp/veil/e2e/corpus"
)

// head writes a test file's head: the doctype, the marker of a generated
// file, its title, the proposal, what it checks, and testharness.js.
func head(b *strings.Builder, title, assert string, long bool) {
	b.WriteString("<!DOCTYPE html>\n")
	fmt.Fprintf(b, "<!-- %s -->\n", Generated)
	b.WriteString("<meta charset=\"utf-8\">\n")
	fmt.Fprintf(b, "<title>WebMCP sensitive output: %s</title>\n", html.EscapeString(title))
	fmt.Fprintf(b, "<link rel=\"help\" href=\"%s\">\n", Help)
	fmt.Fprintf(b, "<meta name=\"assert\" content=\"%s\">\n", html.EscapeString(assert))
	if long {
		b.WriteString("<meta name=\"timeout\" content=\"long\">\n")
	}
	b.WriteString("<script src=\"/resources/testharness.js\"></script>\n")
	b.WriteString("<script src=\"/resources/testharnessreport.js\"></script>\n")
	b.WriteString("<script src=\"resources/sensitive.js\"></script>\n")
	b.WriteString("<script>\n\"use strict\";\n")
}

// ruleFile writes the tests of a group's rule cases.
func ruleFile(g group, cases []*corpus.Case) ([]byte, error) {
	var b strings.Builder
	head(&b, g.title, g.assert, g.long)
	for _, c := range cases {
		b.WriteString("\n")
		if err := ruleTest(&b, c); err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
	}
	b.WriteString("</script>\n")
	return []byte(b.String()), nil
}

// ruleTest writes one rule case as a promise_test named by the case, its
// comment above it.
func ruleTest(b *strings.Builder, c *corpus.Case) error {
	if err := comment(b, "", c.Name+"\n"+c.Comment); err != nil {
		return err
	}
	if note, ok := notes[c.Name]; ok {
		if err := comment(b, "", "Note: "+note+"."); err != nil {
			return err
		}
	}
	for _, path := range slices.Sorted(maps.Keys(c.Skip)) {
		if err := comment(b, "", fmt.Sprintf("Note: Veil's runners do not check this case on the %s path: %s.", path, c.Skip[path])); err != nil {
			return err
		}
	}
	b.WriteString("promise_test(async t => {\n")
	if c.Fixture != nil && (c.ReturnsJS != nil || c.ThrowsJS != nil) {
		// The expression reads the fixture; a returns.json holds it
		// already.
		fmt.Fprintf(b, "  const fixture = %s;\n", jsString(*c.Fixture))
	}
	if len(c.Absent) > 0 {
		fmt.Fprintf(b, "  const absent = %s;\n", jsStrings(c.Absent))
	}
	if len(c.Earlier) > 0 {
		b.WriteString("  await sensitive.callEarlier(t, [\n")
		for _, e := range c.Earlier {
			fmt.Fprintf(b, "    {tool: %s, input: %s, execute: () => (%s)},\n", jsJSON(e.Definition()), jsJSON(e.Input), jsJSON(e.Returns))
		}
		if len(c.Absent) > 0 {
			b.WriteString("  ], absent);\n")
		} else {
			b.WriteString("  ], []);\n")
		}
	}
	fmt.Fprintf(b, "  const input = %s;\n", jsJSON(c.Input))
	execute, err := executeSource(c)
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "  const execute = %s;\n", execute)
	fmt.Fprintf(b, "  const outcome = await sensitive.callTool(t, {tool: %s, input, execute});\n", jsJSON(c.Definition()))
	if len(c.Absent) > 0 {
		b.WriteString("  sensitive.assertAbsent(outcome, absent);\n")
	}
	if c.Error != "" {
		fmt.Fprintf(b, "  sensitive.assertRejects(outcome, %s);\n", jsString(c.Error))
	} else {
		b.WriteString("  sensitive.assertResolved(outcome);\n")
		if len(c.Present) > 0 {
			fmt.Fprintf(b, "  sensitive.assertPresent(outcome, %s);\n", jsStrings(c.Present))
		}
		if c.Passthrough {
			b.WriteString("  sensitive.assertPassedThrough(outcome, await execute(input));\n")
		}
		if c.Withheld != nil {
			output := "undefined"
			if changed(c) {
				output = "await execute(input)"
			}
			fmt.Fprintf(b, "  sensitive.assertWithheld(outcome, %s, %s);\n", jsStrings(c.Withheld), output)
		}
	}
	fmt.Fprintf(b, "}, %s);\n", jsString(c.Name))
	return nil
}

// executeSource is the case's execute callback as JavaScript.
func executeSource(c *corpus.Case) (string, error) {
	switch {
	case c.Returns != nil:
		return "() => (" + jsJSON(*c.Returns) + ")", nil
	case c.ReturnsJS != nil:
		src, err := jsSource(*c.ReturnsJS)
		return "input => (\n" + indent(src, "    ") + "\n  )", err
	case c.ThrowsJS != nil:
		src, err := jsSource(*c.ThrowsJS)
		return "input => {\n    throw (\n" + indent(src, "      ") + "\n    );\n  }", err
	}
	return "() => undefined", nil
}

// changed reports whether the case's view is known to differ from the
// output as Chromium gives it when nothing is withheld: only for a case
// whose output is JSON, whose text it then is.
func changed(c *corpus.Case) bool {
	if c.Returns == nil || c.View == nil {
		return false
	}
	native := *c.Returns
	var s string
	if json.Unmarshal([]byte(native), &s) == nil {
		native = s
		if s == "" {
			native = "Operation succeeded"
		}
	}
	return *c.View != native
}

// registrationTests writes the registration cases, each script run
// against document.modelContext.
func registrationTests(specs []spec) ([]byte, error) {
	var b strings.Builder
	head(&b, "Declarations registerTool refuses", registrationAssert, false)
	for _, s := range specs {
		b.WriteString("\n")
		if err := comment(&b, "", s.name+"\n"+s.comment); err != nil {
			return nil, fmt.Errorf("case %s: %w", s.name, err)
		}
		if s.differs != "" {
			if err := comment(&b, "", "Chromium's own WebMCP, which does not read sensitivity, gives another outcome: "+s.differs); err != nil {
				return nil, fmt.Errorf("case %s: %w", s.name, err)
			}
		}
		src, err := jsSource(s.script)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", s.name, err)
		}
		b.WriteString("promise_test(async t => {\n")
		b.WriteString("  const outcome = await sensitive.script(async (mc, {tool, attempt, tick, until, settledWithin, registered}) => {\n")
		b.WriteString(indent(src, "    ") + "\n")
		b.WriteString("  });\n")
		fmt.Fprintf(&b, "  sensitive.assertOutcome(outcome, %s);\n", jsJSON(s.want))
		fmt.Fprintf(&b, "}, %s);\n", jsString(s.name))
	}
	b.WriteString("</script>\n")
	return []byte(b.String()), nil
}

// indent puts prefix before every line of src that is not blank, unless
// a line holds an odd number of backquotes: a template literal that spans
// lines, which indenting would change, so src is left as it is.
func indent(src, prefix string) string {
	for line := range strings.Lines(src) {
		if strings.Count(line, "`")%2 == 1 {
			return src
		}
	}
	var b strings.Builder
	for line := range strings.Lines(src) {
		if strings.TrimSpace(line) != "" {
			b.WriteString(prefix)
		}
		b.WriteString(line)
	}
	return b.String()
}

// comment writes text as // lines, each line of it on its own, trailing
// blank lines left out.
func comment(b *strings.Builder, indent, text string) error {
	if err := inScript(text); err != nil {
		return err
	}
	for line := range strings.Lines(strings.TrimRight(text, "\n")) {
		line = strings.TrimRight(line, " \n")
		if line == "" {
			b.WriteString(indent + "//\n")
			continue
		}
		b.WriteString(indent + "// " + line + "\n")
	}
	return nil
}

// jsSource checks JavaScript source that goes into a <script> element as
// it is.
func jsSource(src string) (string, error) {
	return strings.TrimRight(src, "\n"), inScript(src)
}

// inScript refuses text that would end a <script> element or change how
// the HTML parser reads it.
func inScript(text string) error {
	lower := strings.ToLower(text)
	for _, s := range []string{"</script", "<!--", "<script"} {
		if strings.Contains(lower, s) {
			return fmt.Errorf("%q in text that goes into a <script> element as it is", s)
		}
	}
	return nil
}

// jsJSON is JSON text as JavaScript source for its value, safe in a
// <script> element: "<", which JSON text holds only inside strings, is
// written \u003c.
func jsJSON(text string) string {
	return strings.ReplaceAll(text, "<", `\u003c`)
}

// jsString is a string as a JavaScript string literal, safe in a <script>
// element.
func jsString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // a string always marshals
	}
	return string(b)
}

// jsStrings is a list of strings as a JavaScript array literal.
func jsStrings(ss []string) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = jsString(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
