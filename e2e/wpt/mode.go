package wpt

import (
	"fmt"
	"slices"
	"strings"
)

// Mode says what implementation of WebMCP is under test.
type Mode string

// The modes.
const (
	// ModeRuntime injects Veil's runtime into every page; it runs its
	// engine in a Worker, as it does wherever a Worker can run.
	ModeRuntime Mode = "runtime"
	// ModeRuntimeMain injects Veil's runtime with its engine forced onto
	// the page's main thread (data-veil-mode="main"), the runtime's other
	// engine mode.
	ModeRuntimeMain Mode = "runtime-main"
	// ModeLayered is ModeRuntime in front of the browser's own WebMCP
	// (Chromium only), as a page with Veil meets it in a Chromium whose
	// WebMCP is on: the browser knows the "tools" permissions policy,
	// without which the runtime keeps cross-origin frames apart.
	ModeLayered Mode = "runtime-layered"
	// ModeLayeredMain is ModeRuntimeMain in front of the browser's own
	// WebMCP, as ModeLayered is.
	ModeLayeredMain Mode = "runtime-main-layered"
	// ModeNative injects nothing and turns on the browser's own WebMCP
	// (Chromium's --enable-features=WebMCP).
	ModeNative Mode = "native"
	// ModeNone injects nothing and turns nothing on: what a page sees
	// without any WebMCP.
	ModeNone Mode = "none"
)

// Modes lists every mode in the order reports list them.
var Modes = []Mode{ModeRuntime, ModeRuntimeMain, ModeLayered, ModeLayeredMain, ModeNative, ModeNone}

// Runtime reports whether m injects Veil's runtime, whose failures are
// the ones that count.
func (m Mode) Runtime() bool {
	return m == ModeRuntime || m == ModeRuntimeMain || m == ModeLayered || m == ModeLayeredMain
}

// nativeOn reports whether m turns on the browser's own WebMCP.
func (m Mode) nativeOn() bool {
	return m == ModeNative || m == ModeLayered || m == ModeLayeredMain
}

// valid reports whether m is one of Modes.
func (m Mode) valid() bool {
	return slices.Contains(Modes, m)
}

// ParseModes reads a comma-separated list of modes ("runtime,none"),
// failing on any name that is not a mode and on an empty list.
func ParseModes(s string) ([]Mode, error) {
	var out []Mode
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		m := Mode(name)
		if !m.valid() {
			return nil, fmt.Errorf("unknown mode %q (want %s)", name, join(Modes))
		}
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no mode named in %q (want %s)", s, join(Modes))
	}
	return out, nil
}

func join[T ~string](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}
