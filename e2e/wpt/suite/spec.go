package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/txtar"
)

// A spec is one case of e2e/testdata/spec: a script run against mc, the
// document's ModelContext, and the outcome it must give. The browser
// suite's spec_test.go documents the format; the suite reads the files it
// needs: script and want.
type spec struct {
	name, comment string
	// script is the body of an async function of mc and the helpers
	// tool, attempt, tick, until, settledWithin and registered.
	script string
	// want is the outcome, as JSON.
	want string
	// differs says why Chromium's own WebMCP gives another outcome; empty
	// when it gives want.
	differs string
}

// loadSpecs reads every case of dir, in the order of their file names.
func loadSpecs(dir string) ([]spec, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no cases in %s", dir)
	}
	var out []spec
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		s, err := parseSpec(name, b)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", name, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// parseSpec reads one spec case from its file's contents.
func parseSpec(file string, data []byte) (spec, error) {
	a := txtar.Parse(data)
	s := spec{name: strings.TrimSuffix(filepath.Base(file), ".txtar"), comment: string(a.Comment)}
	for _, f := range a.Files {
		switch f.Name {
		case "script":
			s.script = string(f.Data)
		case "want":
			s.want = strings.TrimSpace(string(f.Data))
		case "differs":
			s.differs = strings.TrimSpace(string(f.Data))
		}
	}
	switch {
	case strings.TrimSpace(s.comment) == "":
		return spec{}, errors.New("the case does not open with what it guards against")
	case strings.TrimSpace(s.script) == "":
		return spec{}, errors.New("no script")
	case !json.Valid([]byte(s.want)):
		return spec{}, fmt.Errorf("want is not JSON: %q", s.want)
	}
	return s, nil
}

// registrationError reports whether a registration case expects a
// refusal: its outcome names an error somewhere.
func registrationError(s spec) bool {
	var v any
	if json.Unmarshal([]byte(s.want), &v) != nil {
		return false
	}
	return hasError(v)
}

// hasError reports whether a script's outcome holds an {"error": name},
// or a string that starts with an error's name, at any depth.
func hasError(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["error"].(string); ok {
			return true
		}
		for _, x := range v {
			if hasError(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if hasError(x) {
				return true
			}
		}
	case string:
		return strings.HasPrefix(v, "TypeError")
	}
	return false
}
