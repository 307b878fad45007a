// Package corpus reads the rule cases of e2e/testdata/cases, one txtar
// archive (golang.org/x/tools/txtar) per case. Two runners replay the same
// files: the engine's own test, in-process (wasm/engine), and the browser
// suite, through every agent path in Chromium (e2e). Both check a case's
// view byte for byte.
//
// A case's comment says what it guards against; its files are:
//
//	tool.json     the tool without execute, as JSON; name and description
//	              default to the file name and "conformance case <name>"
//	input         the input, as JSON (default {})
//	returns.json  what execute returns, as JSON: a string is returned as
//	              a string (the page's "text" outcome), anything else as
//	              the value JSON.parse makes of it
//	returns       what execute returns, as a JavaScript expression, for a
//	              value JSON cannot write (a Promise, which is awaited, a
//	              BigInt, a cycle, a toJSON method, a lone surrogate); it
//	              may use input and fixture
//	throws        what execute throws, as a JavaScript expression
//	fixture       text an encoder wrote (Python's json.dumps, Go's
//	              json.Marshal); returns reads it as the string fixture,
//	              and a returns.json must hold it in one of its strings.
//	              The browser suite's TestFixtures checks it is what the
//	              encoder writes
//	browser       why the case runs only in the browser; required with
//	              returns or throws
//	absent        strings, one per line, that must not be anywhere in what
//	              an agent gets, in any form a reader decodes (package
//	              leakcheck)
//	present       strings, one per line, that must be in the view, raw or
//	              decoded ([Present])
//	error         the name of the error the call rejects with
//	withheld      the JSON Pointers the view lists as withheld, as a JSON
//	              array; the view must then be a CallToolResult whose
//	              first content item is the notice
//	passthrough   (empty) the agent gets exactly what Chromium's own
//	              executeTool gives for the same tool
//	view          the exact view the runtime gives; each runner's -update
//	              rewrites it
//	skip-paths    lines "path: reason" naming an agent path of the browser
//	              suite on which the case cannot be observed
//	earlier.json  calls made before the case's own, in order, on the same
//	              page and through the same path, as a JSON array of
//	              objects: "tool", the tool without execute as in
//	              tool.json (name and description default to
//	              "<name>-earlier-<i>", i from 0, and "conformance case
//	              <name>-earlier-<i>"); "returns", what execute returns,
//	              as in returns.json; "input", the input (default {}).
//	              Each call must resolve, and absent holds for its view
//	              too
//
// Without returns, returns.json and throws, execute returns undefined.
// A line of absent or present that starts and ends with a double quote is
// a Go string literal, for strings with spaces at their ends or escapes.
//
// The JSON files (tool.json, input, returns.json, earlier.json) must be
// [Canonical]: exactly what JSON.stringify writes for JSON.parse of them.
// The engine's test hands their text to the engine as the page would after
// JSON.stringify; the browser parses them: the two read the same value
// only when the text is already what JSON.stringify writes.
//
// One page registers the tools of every case, so [Load] refuses two tools
// of the same name, a case's or an earlier call's.
package corpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/txtar"
)

// DescriptionPrefix starts the description a case's tool gets when
// tool.json gives none; the case's name follows.
const DescriptionPrefix = "conformance case "

// A Case is one file of the corpus.
type Case struct {
	// Name is the file name less ".txtar": the tool's name.
	Name string
	// File is the path the case was read from.
	File string
	// Comment is what the case guards against.
	Comment string

	// Tool is tool.json.
	Tool string
	// Input is the input, "{}" when the case gives none.
	Input string
	// Returns is returns.json; nil when the case has none.
	Returns *string
	// ReturnsJS and ThrowsJS are the JavaScript expressions of returns and
	// throws; nil when the case has none.
	ReturnsJS, ThrowsJS *string
	// Fixture is the text an encoder wrote, without its final newline.
	Fixture *string
	// Browser says why the case runs only in the browser; empty when it
	// runs natively too.
	Browser string

	// Absent and Present are the lines of absent and present.
	Absent, Present []string
	// Error is the name of the error the call rejects with; empty when it
	// resolves.
	Error string
	// Withheld is the JSON Pointers the view lists as withheld; nil when
	// the case does not say.
	Withheld []string
	// Passthrough: the agent gets what Chromium's own executeTool gives.
	Passthrough bool
	// View is the exact view; nil when the case has none yet.
	View *string
	// Skip maps a path the case cannot be observed on to the reason.
	Skip map[string]string
	// Earlier is earlier.json: the calls made, in order, on the same page
	// or engine before the case's own call; nil when the case has none.
	Earlier []Call

	archive *txtar.Archive
}

// A Call is one of a case's earlier calls (earlier.json): a tool of its
// own, called before the case's tool. Its view is checked only against
// the case's absent strings.
type Call struct {
	// Name is the tool's name: the name "tool" gives, else
	// "<case>-earlier-<i>".
	Name string
	// Tool is the call's "tool", canonical JSON: the tool without execute.
	Tool string
	// Input is the call's "input", "{}" when it gives none.
	Input string
	// Returns is the call's "returns", canonical JSON, read as
	// returns.json is: a string is returned as a string, anything else as
	// the value JSON.parse makes of it.
	Returns string

	// defaultName is "<case>-earlier-<i>", which the default description
	// names.
	defaultName string
}

// files are the files a case may hold.
var files = []string{"tool.json", "input", "returns.json", "returns", "throws", "fixture", "browser", "absent", "present", "error", "withheld", "passthrough", "view", "skip-paths", "earlier.json"}

// callMembers are the members an earlier call may have.
var callMembers = []string{"tool", "returns", "input"}

// toolNameRE is what the WebMCP draft allows in a tool name.
var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// Load reads every case of dir, in the order of their file names.
func Load(dir string) ([]*Case, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no cases in %s", dir)
	}
	var cases []*Case
	// tools maps each tool name to the case that registers it: one page
	// registers the tools of every case.
	tools := map[string]string{}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		c, err := Parse(name, b)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", name, err)
		}
		for _, tool := range c.toolNames() {
			if other, ok := tools[tool]; ok {
				return nil, fmt.Errorf("case %s: the tool name %q is case %s's too", name, tool, other)
			}
			tools[tool] = c.Name
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// Parse reads one case from its file's contents; file names it.
func Parse(file string, data []byte) (*Case, error) {
	a := txtar.Parse(data)
	c := &Case{Name: strings.TrimSuffix(filepath.Base(file), ".txtar"), File: file, Comment: string(a.Comment), archive: a}
	if !toolNameRE.MatchString(c.Name) {
		return nil, fmt.Errorf("the file name %q is not a valid tool name", c.Name)
	}
	if strings.TrimSpace(c.Comment) == "" {
		return nil, errors.New("the case does not open with what it guards against")
	}
	seen := map[string]bool{}
	for _, f := range a.Files {
		if !slices.Contains(files, f.Name) {
			return nil, fmt.Errorf("unknown file %q (want one of %v)", f.Name, files)
		}
		if seen[f.Name] {
			return nil, fmt.Errorf("file %q twice", f.Name)
		}
		seen[f.Name] = true
	}

	var err error
	tool, ok := c.file("tool.json")
	if !ok {
		return nil, errors.New("no tool.json file")
	}
	if c.Tool, err = canonicalFile("tool.json", tool); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(c.Tool, "{") {
		return nil, fmt.Errorf("tool.json: got %s, want an object", c.Tool)
	}
	c.Input = "{}"
	if s, ok := c.file("input"); ok {
		if c.Input, err = canonicalFile("input", s); err != nil {
			return nil, err
		}
	}
	if s, ok := c.file("returns.json"); ok {
		s, err = canonicalFile("returns.json", s)
		if err != nil {
			return nil, err
		}
		c.Returns = &s
	}
	if s, ok := c.file("returns"); ok {
		c.ReturnsJS = &s
	}
	if s, ok := c.file("throws"); ok {
		c.ThrowsJS = &s
	}
	if n := countTrue(c.Returns != nil, c.ReturnsJS != nil, c.ThrowsJS != nil); n > 1 {
		return nil, errors.New("more than one of returns.json, returns and throws")
	}
	if s, ok := c.file("browser"); ok {
		c.Browser = strings.TrimSpace(s)
		if c.Browser == "" {
			return nil, errors.New("browser: say why the case needs a browser")
		}
	}
	if (c.ReturnsJS != nil || c.ThrowsJS != nil) && c.Browser == "" {
		return nil, errors.New("a case written in JavaScript (returns, throws) needs a browser file saying why it cannot be written in JSON")
	}
	if s, ok := c.file("fixture"); ok {
		s = strings.TrimSuffix(s, "\n")
		c.Fixture = &s
		if c.Returns != nil && !HoldsString(*c.Returns, s) {
			return nil, errors.New("returns.json does not hold the fixture in any of its strings")
		}
	}
	if c.Absent, err = c.lines("absent"); err != nil {
		return nil, err
	}
	if c.Present, err = c.lines("present"); err != nil {
		return nil, err
	}
	if s, ok := c.file("error"); ok {
		c.Error = strings.TrimSpace(s)
	}
	if s, ok := c.file("withheld"); ok {
		c.Withheld = []string{}
		if err := json.Unmarshal([]byte(s), &c.Withheld); err != nil {
			return nil, fmt.Errorf("withheld is not a JSON array of strings: %w", err)
		}
	}
	_, c.Passthrough = c.file("passthrough")
	skips, err := c.lines("skip-paths")
	if err != nil {
		return nil, err
	}
	for _, l := range skips {
		path, reason, ok := strings.Cut(l, ":")
		if !ok || strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("skip-paths: want lines \"path: reason\", got %q", l)
		}
		if c.Skip == nil {
			c.Skip = map[string]string{}
		}
		c.Skip[strings.TrimSpace(path)] = strings.TrimSpace(reason)
	}
	if s, ok := c.file("view"); ok {
		s = strings.TrimSuffix(s, "\n")
		c.View = &s
	}
	if s, ok := c.file("earlier.json"); ok {
		if c.Earlier, err = c.earlier(s); err != nil {
			return nil, err
		}
	}
	if c.Error != "" && (c.Passthrough || c.View != nil || c.Withheld != nil || len(c.Present) > 0) {
		return nil, errors.New("a case that expects an error has no view, withheld, present or passthrough")
	}
	return c, nil
}

// Definition is the tool's definition as JSON text: tool.json, with the
// name and description it does not give.
func (c *Case) Definition() string {
	return definition(c.Tool, c.Name)
}

// Definition is the earlier call's tool as JSON text: its "tool", with the
// name and description it does not give.
func (e Call) Definition() string {
	return definition(e.Tool, e.defaultName)
}

// definition adds to a tool, canonical JSON text of an object, the name
// and the description it does not give: name, and DescriptionPrefix and
// name.
func definition(tool, name string) string {
	var def map[string]json.RawMessage
	if err := json.Unmarshal([]byte(tool), &def); err != nil {
		panic(fmt.Sprintf("tool %s: the tool was checked: %v", name, err))
	}
	var add []string
	if _, ok := def["name"]; !ok {
		add = append(add, `"name":`+Quote(name))
	}
	if _, ok := def["description"]; !ok {
		add = append(add, `"description":`+Quote(DescriptionPrefix+name))
	}
	if len(add) == 0 {
		return tool
	}
	rest := tool[1:]
	if rest != "}" {
		rest = "," + rest
	}
	return "{" + strings.Join(add, ",") + rest
}

// earlier reads earlier.json.
func (c *Case) earlier(data string) ([]Call, error) {
	text, err := canonicalFile("earlier.json", data)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if !strings.HasPrefix(text, "[") || json.Unmarshal([]byte(text), &items) != nil {
		return nil, fmt.Errorf("earlier.json: got %s, want an array of calls", text)
	}
	if len(items) == 0 {
		return nil, errors.New("earlier.json: an empty array; give the calls or leave the file out")
	}
	names := map[string]bool{c.Name: true}
	calls := make([]Call, len(items))
	for i, item := range items {
		call, err := c.earlierCall(i, item)
		if err != nil {
			return nil, fmt.Errorf("earlier.json: call %d: %w", i, err)
		}
		if names[call.Name] {
			return nil, fmt.Errorf("earlier.json: call %d: the tool name %q is taken by another tool of the case", i, call.Name)
		}
		names[call.Name] = true
		calls[i] = call
	}
	return calls, nil
}

// earlierCall reads the ith call of earlier.json, canonical JSON text.
func (c *Case) earlierCall(i int, item json.RawMessage) (Call, error) {
	var m map[string]json.RawMessage
	if !strings.HasPrefix(string(item), "{") || json.Unmarshal(item, &m) != nil {
		return Call{}, fmt.Errorf("got %s, want an object", item)
	}
	var unknown []string
	for k := range m {
		if !slices.Contains(callMembers, k) {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return Call{}, fmt.Errorf("unknown members %s (want %v)", strings.Join(unknown, ", "), callMembers)
	}
	call := Call{defaultName: fmt.Sprintf("%s-earlier-%d", c.Name, i), Input: "{}"}
	tool, ok := m["tool"]
	if !ok {
		return Call{}, errors.New("no tool")
	}
	if !strings.HasPrefix(string(tool), "{") {
		return Call{}, fmt.Errorf("tool: got %s, want an object", tool)
	}
	call.Tool = string(tool)
	returns, ok := m["returns"]
	if !ok {
		return Call{}, errors.New("no returns")
	}
	call.Returns = string(returns)
	if input, ok := m["input"]; ok {
		call.Input = string(input)
	}
	call.Name = call.defaultName
	var def map[string]json.RawMessage
	if err := json.Unmarshal(tool, &def); err != nil {
		return Call{}, fmt.Errorf("tool: %w", err)
	}
	if name, ok := def["name"]; ok {
		if err := json.Unmarshal(name, &call.Name); err != nil {
			return Call{}, fmt.Errorf("tool: the name is %s, want a string", name)
		}
	}
	if !toolNameRE.MatchString(call.Name) {
		return Call{}, fmt.Errorf("the tool name %q is not a valid tool name", call.Name)
	}
	return call, nil
}

// toolNames are the names of the tools the case registers: its own and
// its earlier calls'.
func (c *Case) toolNames() []string {
	names := []string{c.Name}
	for _, e := range c.Earlier {
		names = append(names, e.Name)
	}
	return names
}

// Set replaces the named file of the case, or adds it, in what Write
// writes. The case's fields are left as they are.
func (c *Case) Set(name, data string) {
	for i := range c.archive.Files {
		if c.archive.Files[i].Name == name {
			c.archive.Files[i].Data = []byte(data)
			return
		}
	}
	c.archive.Files = append(c.archive.Files, txtar.File{Name: name, Data: []byte(data)})
}

// Write writes the case back to its file.
func (c *Case) Write() error {
	return os.WriteFile(c.File, txtar.Format(c.archive), 0o644)
}

func (c *Case) file(name string) (string, bool) {
	for _, f := range c.archive.Files {
		if f.Name == name {
			return string(f.Data), true
		}
	}
	return "", false
}

// lines reads a file of strings, one per line; a line in double quotes is
// a Go string literal.
func (c *Case) lines(name string) ([]string, error) {
	s, _ := c.file(name)
	var out []string
	for line := range strings.Lines(s) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			continue
		}
		if len(line) >= 2 && line[0] == '"' && line[len(line)-1] == '"' {
			u, err := strconv.Unquote(line)
			if err != nil {
				return nil, fmt.Errorf("%s: %w: %s", name, err, line)
			}
			line = u
		}
		out = append(out, line)
	}
	return out, nil
}

// canonicalFile checks that a JSON file holds its canonical text and
// returns it.
func canonicalFile(name, data string) (string, error) {
	text := strings.TrimSuffix(data, "\n")
	want, err := Canonical(text)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if text != want {
		return "", fmt.Errorf("%s: got %s, want it as JSON.stringify writes it: %s", name, text, want)
	}
	return text, nil
}

// HoldsString reports whether a string of the JSON text, a value or a
// member name, holds s.
func HoldsString(text, s string) bool {
	var v any
	if json.Unmarshal([]byte(text), &v) != nil {
		return false
	}
	for x := range Strings(v) {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

func countTrue(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
