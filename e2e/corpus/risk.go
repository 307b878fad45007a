package corpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/txtar"
)

// A risk case (e2e/testdata/risk) is one flow of calls through the risk
// policy, one txtar archive per flow, whose comment says what it guards
// against and whose files are
//
//	tools  a JavaScript expression: the tool definitions, each with
//	       returns (a value, or a function of input and options) in place
//	       of execute; resolve, when given, is the tool's own
//	steps  the calls, in order, one JSON object (a RiskStep) per line
//
// The browser suite (e2e) replays every case through each agent path; the
// engine's test (wasm/engine) replays natively the cases whose tools are
// literals ([RiskCase.LiteralTools]).
type RiskCase struct {
	Name    string
	File    string
	Comment string
	// Tools is the tools file, the JavaScript expression.
	Tools string
	Steps []RiskStep
}

// RiskStep is one call of a risk case and what must come of it.
type RiskStep struct {
	// Call names the tool; Input is its input (default {}).
	Call  string          `json:"call"`
	Input json.RawMessage `json:"input"`
	// Answer is what the page answers when the runtime asks the user:
	// "approve" or "decline". The runtime must ask exactly when it is set.
	Answer string `json:"answer"`
	// Outcome and Rule are the call's entry in the decision log.
	Outcome string `json:"outcome"`
	Rule    string `json:"rule"`
	// Facts are facts the decision must list, as "source key=value".
	Facts []string `json:"facts"`
	// Ran says whether execute ran.
	Ran bool `json:"ran"`
	// View is the exact agent view; Present and Absent are strings that
	// must be in it (raw or decoded), or nowhere in it.
	View    *string  `json:"view"`
	Present []string `json:"present"`
	Absent  []string `json:"absent"`
	// Spotlit: the view is spotlighted, and every Present string stands
	// between the runtime's markers.
	Spotlit bool `json:"spotlit"`
	// Refused: the view is an error result that names Rule.
	Refused bool `json:"refused"`
	// Held is how many values the view lists as withheld.
	Held int `json:"held"`
	// Trust holds members that veil.trust must have after the call;
	// Request, members of the annotations execute received.
	Trust   map[string]any `json:"trust"`
	Request map[string]any `json:"request"`
	// Events are veil events the call must fire.
	Events []string `json:"events"`
}

// LoadRisk reads every risk case of dir, in the order of their file
// names.
func LoadRisk(dir string) ([]*RiskCase, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no cases in %s", dir)
	}
	var cases []*RiskCase
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		c, err := ParseRisk(name, b)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", name, err)
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// ParseRisk reads one risk case from its file's contents; file names it.
func ParseRisk(file string, data []byte) (*RiskCase, error) {
	a := txtar.Parse(data)
	c := &RiskCase{Name: strings.TrimSuffix(filepath.Base(file), ".txtar"), File: file, Comment: string(a.Comment)}
	if strings.TrimSpace(c.Comment) == "" {
		return nil, errors.New("the case does not open with what it guards against")
	}
	var steps string
	var haveTools, haveSteps bool
	for _, f := range a.Files {
		switch f.Name {
		case "tools":
			c.Tools, haveTools = string(f.Data), true
		case "steps":
			steps, haveSteps = string(f.Data), true
		default:
			return nil, fmt.Errorf("unknown file %q", f.Name)
		}
	}
	if !haveTools {
		return nil, errors.New("no tools file")
	}
	if !haveSteps {
		return nil, errors.New("no steps file")
	}
	for i, line := range strings.Split(strings.TrimSpace(steps), "\n") {
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		var s RiskStep
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("step %d: %w", i+1, err)
		}
		if len(s.Input) == 0 {
			s.Input = json.RawMessage(`{}`)
		}
		c.Steps = append(c.Steps, s)
	}
	return c, nil
}

// RiskTool is a tool of a risk case whose definition is a literal.
type RiskTool struct {
	Name string
	// Definition is the tool without returns, as the JSON text
	// JSON.stringify writes of it: what the page hands the engine.
	Definition string
	// Returns is JSON.stringify of what execute returns; nil when it
	// returns undefined.
	Returns *string
}

// LiteralTools reads the case's tools without a JavaScript engine, when
// the expression is literals only: objects, arrays, strings, numbers,
// true, false, null and undefined. When it is more (a function, such as
// resolve or a returns of input, or a template literal) the error is a
// *[ScriptError] that says where: only the browser can run the case.
func (c *RiskCase) LiteralTools() ([]RiskTool, error) {
	v, err := ParseLiteral(c.Tools)
	if err != nil {
		return nil, err
	}
	if v.Kind != LiteralArray {
		return nil, errors.New("the tools are not an array")
	}
	var tools []RiskTool
	for i, t := range v.Elems {
		if t.Kind != LiteralObject {
			return nil, fmt.Errorf("tool %d is not an object", i)
		}
		var rt RiskTool
		def := &Literal{Kind: LiteralObject}
		for j, k := range t.Keys {
			switch {
			case k == "returns":
				if t.Values[j].Kind != LiteralUndefined {
					s, err := t.Values[j].JSON()
					if err != nil {
						return nil, fmt.Errorf("tool %d: returns: %w", i, err)
					}
					rt.Returns = &s
				}
				continue
			case k == "name" && t.Values[j].Kind == LiteralString:
				rt.Name = t.Values[j].String
			}
			def.Keys = append(def.Keys, k)
			def.Values = append(def.Values, t.Values[j])
		}
		if rt.Definition, err = def.JSON(); err != nil {
			return nil, fmt.Errorf("tool %d: %w", i, err)
		}
		tools = append(tools, rt)
	}
	return tools, nil
}
