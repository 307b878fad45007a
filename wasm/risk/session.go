package risk

import (
	"slices"

	"github.com/veilmcp/veil/wasm/internal/jsonx"
)

// The bounds of what a session keeps from results and declarations. Past
// them a source or a name is counted, not kept; nothing already kept is
// evicted, and no bound ever lowers a taint (UntrustedContent, PrivateData
// and MaliciousActivity only grow).
const (
	// MaxAttribution bounds the attribution sources a session keeps.
	MaxAttribution = 256
	// MaxAttributionBytes bounds their total length, in bytes.
	MaxAttributionBytes = 64 << 10
	// MaxSourceBytes bounds one source: a longer one is not kept.
	MaxSourceBytes = 1024
	// MaxSourcesPerResult bounds what one result adds, so that one
	// untrusted result cannot take every place.
	MaxSourcesPerResult = 16
	// MaxToolNames bounds each list of tool names (UntrustedFrom,
	// PrivateFrom, MaliciousFrom).
	MaxToolNames = 256
)

// State is the trust state of a page's agent session: what has reached the
// agent so far. Every part only grows: once untrusted content has been
// seen, the session stays untrusted, as SEP-1913's propagation rules
// require.
type State struct {
	// UntrustedContent: a result from an untrusted source reached the
	// agent. UntrustedFrom names the tools it came from.
	UntrustedContent bool     `json:"untrustedContent"`
	UntrustedFrom    []string `json:"untrustedFrom"`
	// PrivateData lists the sensitivity labels of the private data that
	// reached the agent; PrivateFrom names the tools it came from.
	PrivateData []string `json:"privateData"`
	PrivateFrom []string `json:"privateFrom"`
	// Attribution is the union of the sources results were attributed
	// to, within the bounds above; AttributionDropped counts the rest.
	Attribution        []string `json:"attribution"`
	AttributionDropped int      `json:"attributionDropped"`
	attributionBytes   int
	// MaliciousActivity: a result, or a call's resolved annotations,
	// carried maliciousActivityHint. MaliciousFrom names the tools.
	MaliciousActivity bool     `json:"maliciousActivity"`
	MaliciousFrom     []string `json:"maliciousFrom"`
	// Version counts the changes; it is 0 for a fresh session.
	Version int `json:"version"`
}

// Clone returns a deep copy of s whose lists are never nil, so they are
// arrays in JSON.
func (s State) Clone() State {
	s.UntrustedFrom = jsonx.NonNil(slices.Clone(s.UntrustedFrom))
	s.PrivateData = jsonx.NonNil(slices.Clone(s.PrivateData))
	s.PrivateFrom = jsonx.NonNil(slices.Clone(s.PrivateFrom))
	s.Attribution = jsonx.NonNil(slices.Clone(s.Attribution))
	s.MaliciousFrom = jsonx.NonNil(slices.Clone(s.MaliciousFrom))
	return s
}

// RequestAnnotations is what a tool's execute receives as
// options.annotations: SEP-1913's request annotations (openWorldHint and
// attribution) and two of the runtime's own, so that a page's tool can
// refuse by its own policy.
type RequestAnnotations struct {
	// OpenWorldHint: untrusted content has reached the agent.
	OpenWorldHint bool     `json:"openWorldHint"`
	Attribution   []string `json:"attribution"`
	// MaliciousActivityHint: something in the session was flagged.
	MaliciousActivityHint bool `json:"maliciousActivityHint"`
	// PrivateData lists the labels of private data the agent holds.
	PrivateData []string `json:"privateData"`
}

// Request returns the request annotations of a call made in state s.
func (s State) Request() RequestAnnotations {
	return RequestAnnotations{
		OpenWorldHint:         s.UntrustedContent,
		Attribution:           jsonx.NonNil(slices.Clone(s.Attribution)),
		MaliciousActivityHint: s.MaliciousActivity,
		PrivateData:           jsonx.NonNil(slices.Clone(s.PrivateData)),
	}
}

// ResultAnnotations are the annotations a result carries in
// _meta.annotations (SEP-1913's result annotations).
type ResultAnnotations struct {
	OpenWorld         bool
	MaliciousActivity bool
	Attribution       []string
}

// ReadResultAnnotations reads a result's _meta.annotations, decoded. It is
// lenient, as output is not the place to reject a page: a value of the
// wrong type is ignored.
func ReadResultAnnotations(v any) ResultAnnotations {
	var r ResultAnnotations
	m, ok := v.(map[string]any)
	if !ok {
		return r
	}
	r.OpenWorld, _ = m["openWorldHint"].(bool)
	r.MaliciousActivity, _ = m["maliciousActivityHint"].(bool)
	if list, ok := m["attribution"].([]any); ok {
		r.Attribution = strs(list)
	}
	return r
}

// Untrusted returns the facts that make a result of a call with
// annotations a, carrying result annotations r, untrusted content: an
// untrustedContentHint or openWorldHint the tool (or call) states as true,
// a returnMetadata.source that may be "untrustedPublic", or the result's
// own openWorldHint. MCP's default for openWorldHint does not count: a
// tool that says nothing about where its output comes from is not
// spotlighted.
func Untrusted(a *Annotations, r ResultAnnotations) []Fact {
	var facts []Fact
	if is(a.UntrustedContent) {
		facts = append(facts, Fact{Source: "tool", Key: "untrustedContentHint", Value: "true"})
	}
	if is(a.OpenWorld) {
		facts = append(facts, Fact{Source: "tool", Key: "openWorldHint", Value: "true"})
	}
	if a.Return != nil && slices.Contains(a.Return.Source, "untrustedPublic") {
		facts = append(facts, Fact{Source: "tool", Key: "returnMetadata.source", Value: "untrustedPublic"})
	}
	if r.OpenWorld {
		facts = append(facts, Fact{Source: "result", Key: "_meta.annotations.openWorldHint", Value: "true"})
	}
	return facts
}

// Observe adds to s what a result of tool, whose call had annotations a
// and whose output carried result annotations r, brought into the agent's
// context. It reports whether s changed.
func (s *State) Observe(p *Policy, tool string, a *Annotations, r ResultAnnotations) bool {
	before := s.Version
	if len(Untrusted(a, r)) > 0 {
		s.markUntrusted(tool)
	}
	if classes := p.PrivateClasses(a); len(classes) > 0 {
		for _, c := range classes {
			s.add(&s.PrivateData, c)
		}
		s.add(&s.PrivateFrom, tool)
	}
	for k, src := range [][]string{a.Attribution, r.Attribution} {
		for i, at := range src {
			if slices.Contains(s.Attribution, at) {
				continue
			}
			if (k == 1 && i >= MaxSourcesPerResult) || len(at) > MaxSourceBytes ||
				len(s.Attribution) >= MaxAttribution || s.attributionBytes+len(at) > MaxAttributionBytes {
				s.AttributionDropped++
				s.Version++
				continue
			}
			s.attributionBytes += len(at)
			s.add(&s.Attribution, at)
		}
	}
	if r.MaliciousActivity {
		s.FlagMalicious(tool)
	}
	return s.Version != before
}

// FlagMalicious records that tool's result or request was flagged with
// maliciousActivityHint. It reports whether s changed.
func (s *State) FlagMalicious(tool string) bool {
	before := s.Version
	if !s.MaliciousActivity {
		s.MaliciousActivity = true
		s.Version++
	}
	s.add(&s.MaliciousFrom, tool)
	return s.Version != before
}

func (s *State) markUntrusted(tool string) {
	if !s.UntrustedContent {
		s.UntrustedContent = true
		s.Version++
	}
	s.add(&s.UntrustedFrom, tool)
}

// add adds the tool name or label v to a list, up to MaxToolNames.
func (s *State) add(list *[]string, v string) {
	if !slices.Contains(*list, v) && len(*list) < MaxToolNames {
		*list = append(*list, v)
		s.Version++
	}
}

// Resume returns the state a session starts from when it takes over from
// one that was lost (an engine that crashed and was started again): prev's
// taints and lists, so that losing the engine never lowers what the
// session has seen, and a Version no lower than prev's. prev was kept
// outside the engine, so it is read as any input is: held to the bounds
// above, and a list that names a tool taints as its flag would.
func Resume(prev State) State {
	var s State
	if prev.UntrustedContent || len(prev.UntrustedFrom) > 0 {
		s.UntrustedContent = true
	}
	if prev.MaliciousActivity || len(prev.MaliciousFrom) > 0 {
		s.MaliciousActivity = true
	}
	for _, l := range []struct{ to, from *[]string }{
		{&s.UntrustedFrom, &prev.UntrustedFrom},
		{&s.PrivateData, &prev.PrivateData},
		{&s.PrivateFrom, &prev.PrivateFrom},
		{&s.MaliciousFrom, &prev.MaliciousFrom},
	} {
		for _, v := range *l.from {
			s.add(l.to, v)
		}
	}
	s.AttributionDropped = max(prev.AttributionDropped, 0)
	for _, at := range prev.Attribution {
		if slices.Contains(s.Attribution, at) {
			continue
		}
		if len(at) > MaxSourceBytes || len(s.Attribution) >= MaxAttribution || s.attributionBytes+len(at) > MaxAttributionBytes {
			s.AttributionDropped++
			continue
		}
		s.attributionBytes += len(at)
		s.Attribution = append(s.Attribution, at)
	}
	s.Version = max(prev.Version, 0)
	if s.Version == 0 && (s.UntrustedContent || s.MaliciousActivity || len(s.PrivateData) > 0 || len(s.Attribution) > 0 || s.AttributionDropped > 0) {
		s.Version = 1
	}
	return s
}
