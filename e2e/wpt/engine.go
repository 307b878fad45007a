package wpt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// Browser is one running browser with one page that the runner opens
// test files in.
type Browser interface {
	// Open navigates the page to url. It returns once the navigation has
	// started (in Firefox, once DOMContentLoaded has fired), without
	// waiting for the page's load event: the page's posted results, or
	// the runner's timeout, end the file.
	Open(ctx context.Context, url string) error
	// Close stops the browser and everything started for it.
	Close() error
}

// Engine is a browser engine the runner drives.
type Engine struct {
	// Name is how flags name the engine: chromium, firefox, webkit.
	Name string
	// Modes are the modes the engine runs.
	Modes []Mode
	// SkipEnv is the variable that, set to 1, lets TestSubset skip the
	// engine when its browser is missing.
	SkipEnv string
	// Find checks that the engine's programs are installed, and fails
	// naming the one that is not.
	Find func() error
	// Start starts the browser for mode. root is the module root, where
	// node_modules is.
	Start func(ctx context.Context, mode Mode, root string) (Browser, error)
}

// Engines are the engines the runner knows, in the order reports list
// them. Only Chromium has a WebMCP of its own, so only Chromium runs
// native mode.
var Engines = []*Engine{
	{
		Name:  "chromium",
		Modes: []Mode{ModeRuntime, ModeRuntimeMain, ModeLayered, ModeLayeredMain, ModeNative, ModeNone},
		// The browser suite's variable: one setting skips Chromium in both.
		SkipEnv: "VEIL_SKIP_BROWSER",
		Find:    func() error { _, err := findChromium(); return err },
		Start:   startChromium,
	},
	{
		Name:    "firefox",
		Modes:   []Mode{ModeRuntime, ModeRuntimeMain, ModeNone},
		SkipEnv: "VEIL_SKIP_FIREFOX",
		Find:    func() error { _, err := findFirefox(); return err },
		Start:   startFirefox,
	},
	{
		Name:    "webkit",
		Modes:   []Mode{ModeRuntime, ModeRuntimeMain, ModeNone},
		SkipEnv: "VEIL_SKIP_WEBKIT",
		Find:    func() error { _, _, err := findWebKit(); return err },
		Start:   startWebKit,
	},
}

// ParseEngines reads a comma-separated list of engine names
// ("chromium,firefox"), failing on a name it does not know and on an
// empty list.
func ParseEngines(s string) ([]*Engine, error) {
	var out []*Engine
	names := make([]string, len(Engines))
	for i, e := range Engines {
		names[i] = e.Name
	}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		var found *Engine
		for _, e := range Engines {
			if e.Name == name {
				found = e
			}
		}
		if found == nil {
			return nil, fmt.Errorf("unknown engine %q (want %s)", name, strings.Join(names, ", "))
		}
		if !slices.Contains(out, found) {
			out = append(out, found)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no engine named in %q (want %s)", s, strings.Join(names, ", "))
	}
	return out, nil
}

// Runs reports whether e runs mode.
func (e *Engine) Runs(mode Mode) bool {
	return slices.Contains(e.Modes, mode)
}

// lookPath returns the program named by the environment variable env,
// else the first of names on PATH; what fails names both.
func lookPath(env string, names ...string) (string, error) {
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s: %w", env, err)
		}
		return p, nil
	}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("none of %s on PATH, and %s is unset", strings.Join(names, ", "), env)
}
