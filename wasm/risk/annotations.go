// Package risk reads what a WebMCP tool declares about its risk, keeps the
// trust state of a page's agent session, and decides, call by call, whether
// a tool may run.
//
// The vocabulary comes from five sources, all read from the tool's
// annotations except the last:
//
//   - MCP's tool hints: title, readOnlyHint, destructiveHint,
//     idempotentHint, openWorldHint, with MCP's defaults;
//   - the WebMCP draft: untrustedContentHint, consequentialHint, and the
//     runtime's sensitiveHint;
//   - SEP-1984's governance hints: aiProcessingHint, slowExecutionHint,
//     resourceIntensiveHint, sensitiveDataHint, privilegedAccessHint,
//     reversibleHint, where unset means no claim;
//   - SEP-1913's trust and sensitivity metadata: maliciousActivityHint,
//     attribution, inputMetadata, returnMetadata, validated against the
//     JSON Schema the SEP publishes;
//   - the policy-hint convention's keys in the tool's _meta:
//     mcp.dev/effect, mcp.dev/idempotent, mcp.dev/requiresConfirmation,
//     mcp.dev/resultSensitivity.
//
// [ParseAnnotations] and [ParseMeta] validate and normalize them at
// registration. A [Session] accumulates what the agent has seen, following
// SEP-1913's propagation rules, and a [Policy] turns a call's annotations
// and the session into a [Decision].
//
// The package never sees a tool's input or output values: it works on
// annotations alone, so a decision, its facts and the session state can be
// shown and logged without leaking anything a tool returned.
//
// Nothing here is safe for concurrent use; the engine holds a lock.
package risk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/veilmcp/veil/wasm/internal/jsonx"
)

// Annotations is what the runtime reads from a tool's annotations and
// _meta, or from what its resolve callback returned for one call. Every
// *bool is nil when the page made no claim; the accessors apply MCP's
// defaults where MCP has them.
type Annotations struct {
	// Title is annotations.title.
	Title string

	// MCP's hints. Defaults, when nil: ReadOnly false, Destructive true,
	// Idempotent false, OpenWorld true.
	ReadOnly    *bool
	Destructive *bool
	Idempotent  *bool
	OpenWorld   *bool

	// The WebMCP draft's hints, and the runtime's sensitiveHint.
	UntrustedContent *bool
	Consequential    *bool
	Sensitive        *bool

	// SEP-1984's hints. Nil means no claim either way.
	AIProcessing      *bool
	SlowExecution     *bool
	ResourceIntensive *bool
	SensitiveData     *bool
	PrivilegedAccess  *bool
	Reversible        *bool

	// SEP-1913's trust and sensitivity metadata.
	MaliciousActivity *bool
	Attribution       []string
	Input             *InputMetadata
	Return            *ReturnMetadata

	// Meta holds the policy hints of the tool's _meta.
	Meta Meta

	// Unknown lists, sorted, the keys the runtime does not read, which
	// pass through as they are.
	Unknown []string

	// set lists the known keys the page gave, for refinement and facts.
	set map[string]bool
}

// InputMetadata is SEP-1913's contract for a tool's input. A single value
// and an array of possible values both become a list.
type InputMetadata struct {
	Destination []string
	Sensitivity []DataClass
	Outcomes    []string
}

// ReturnMetadata is SEP-1913's contract for a tool's output.
type ReturnMetadata struct {
	Source      []string
	Sensitivity []DataClass
}

// DataClass is one of SEP-1913's data classes: a name ("none", "user",
// "pii", "financial", "credentials"), or "regulated" with its scopes.
type DataClass struct {
	Name   string
	Scopes []string
}

// Meta holds the mcp.dev/ policy hints of a tool's _meta.
type Meta struct {
	// Effect is mcp.dev/effect: "read", "write", "delete", "external",
	// or "" when unset.
	Effect string
	// Idempotent is mcp.dev/idempotent.
	Idempotent *bool
	// RequiresConfirmation is mcp.dev/requiresConfirmation.
	RequiresConfirmation *bool
	// ResultSensitivity is mcp.dev/resultSensitivity: "public",
	// "internal", "confidential", "restricted", or "" when unset.
	ResultSensitivity string
	// SafeMedia is dev.veil/safeMedia: the tool says its images, audio
	// and blobs never show what it withholds, so they reach the agent
	// beside a notice. Default: false.
	SafeMedia bool
}

// The keys of the _meta policy hints.
const (
	MetaEffect               = "mcp.dev/effect"
	MetaIdempotent           = "mcp.dev/idempotent"
	MetaRequiresConfirmation = "mcp.dev/requiresConfirmation"
	MetaResultSensitivity    = "mcp.dev/resultSensitivity"
	// MetaSafeMedia is the runtime's own: not a policy hint, but the
	// tool's word on its non-text content (Meta.SafeMedia).
	MetaSafeMedia = "dev.veil/safeMedia"
)

// Error says which key of a tool's declaration is malformed: Key is a path
// such as "annotations.inputMetadata.destination" or
// `_meta["mcp.dev/effect"]`, and Problem completes the sentence.
type Error struct {
	Key     string
	Problem string
}

func (e *Error) Error() string { return e.Key + " " + e.Problem }

// boolHint returns where the known boolean annotation k is kept, or nil.
func (a *Annotations) boolHint(k string) **bool {
	switch k {
	case "readOnlyHint":
		return &a.ReadOnly
	case "destructiveHint":
		return &a.Destructive
	case "idempotentHint":
		return &a.Idempotent
	case "openWorldHint":
		return &a.OpenWorld
	case "untrustedContentHint":
		return &a.UntrustedContent
	case "consequentialHint":
		return &a.Consequential
	case "sensitiveHint":
		return &a.Sensitive
	case "aiProcessingHint":
		return &a.AIProcessing
	case "slowExecutionHint":
		return &a.SlowExecution
	case "resourceIntensiveHint":
		return &a.ResourceIntensive
	case "sensitiveDataHint":
		return &a.SensitiveData
	case "privilegedAccessHint":
		return &a.PrivilegedAccess
	case "reversibleHint":
		return &a.Reversible
	}
	return nil
}

// ParseAnnotations validates a tool's annotations, given as JSON text
// (empty or null: none), and returns what the runtime reads from them and
// their normalized JSON text: the page's object with every known key
// checked and every null dropped (null means no claim, as leaving the key
// out does). Unknown keys pass through as they are. A known key with the
// wrong type or value is an *Error naming it.
func ParseAnnotations(raw []byte) (*Annotations, []byte, error) {
	obj, err := decodeObject(raw, "annotations")
	if err != nil {
		return nil, nil, err
	}
	a := &Annotations{set: map[string]bool{}}
	sep := map[string]any{}
	for k, v := range obj {
		if v == nil {
			delete(obj, k)
			continue
		}
		if field := a.boolHint(k); field != nil {
			b, ok := v.(bool)
			if !ok {
				return nil, nil, &Error{"annotations." + k, "must be a boolean, got " + jsonx.TypeOf(v)}
			}
			*field = &b
			a.set[k] = true
			continue
		}
		switch k {
		case "title":
			s, ok := v.(string)
			if !ok {
				return nil, nil, &Error{"annotations.title", "must be a string, got " + jsonx.TypeOf(v)}
			}
			a.Title = s
			a.set[k] = true
		case "maliciousActivityHint", "attribution", "inputMetadata", "returnMetadata":
			sep[k] = v
			a.set[k] = true
		default:
			if near, ok := Resembles(k, annotationKeys...); ok {
				return nil, nil, &Error{"annotations." + k, fmt.Sprintf("is not an annotation the runtime reads, and looks like a misspelling of %q, which would then not apply", near)}
			}
			if MeansSensitive(k) {
				return nil, nil, &Error{"annotations." + k, `is not an annotation the runtime reads, so the output would not be withheld; to mark it sensitive, use "sensitiveHint": true`}
			}
			a.Unknown = append(a.Unknown, k)
		}
	}
	slices.Sort(a.Unknown)
	if len(sep) > 0 {
		if err := validateSEP1913(sep); err != nil {
			return nil, nil, err
		}
		a.readSEP1913(sep)
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, nil, &Error{"annotations", "cannot be normalized: " + err.Error()}
	}
	return a, out, nil
}

// readSEP1913 fills a from SEP-1913 values the schema has accepted.
func (a *Annotations) readSEP1913(sep map[string]any) {
	if v, ok := sep["maliciousActivityHint"].(bool); ok {
		a.MaliciousActivity = &v
	}
	if v, ok := sep["attribution"].([]any); ok {
		a.Attribution = strs(v)
	}
	if m, ok := sep["inputMetadata"].(map[string]any); ok {
		a.Input = &InputMetadata{
			Destination: oneOrMany(m["destination"]),
			Sensitivity: dataClasses(m["sensitivity"]),
			Outcomes:    oneOrMany(m["outcomes"]),
		}
	}
	if m, ok := sep["returnMetadata"].(map[string]any); ok {
		a.Return = &ReturnMetadata{
			Source:      oneOrMany(m["source"]),
			Sensitivity: dataClasses(m["sensitivity"]),
		}
	}
}

// metaValues lists the values each string-valued _meta hint may take.
var metaValues = map[string][]string{
	MetaEffect:            {"read", "write", "delete", "external"},
	MetaResultSensitivity: {"public", "internal", "confidential", "restricted"},
}

// ParseMeta validates a tool's _meta, given as JSON text (empty or null:
// none), and returns its policy hints and normalized JSON text (nil when
// there is no _meta). Other keys pass through as they are, but one that
// looks like a misspelled policy hint is an error; a null policy hint is
// dropped.
func ParseMeta(raw []byte) (Meta, []byte, error) {
	var m Meta
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return m, nil, nil
	}
	obj, err := decodeObject(raw, "_meta")
	if err != nil {
		return m, nil, err
	}
	for k, v := range obj {
		key := fmt.Sprintf("_meta[%q]", k)
		switch k {
		case MetaEffect, MetaResultSensitivity:
			if v == nil {
				delete(obj, k)
				continue
			}
			s, ok := v.(string)
			if !ok || !slices.Contains(metaValues[k], s) {
				return m, nil, &Error{key, "must be one of " + quoteAll(metaValues[k]) + ", got " + describe(v)}
			}
			if k == MetaEffect {
				m.Effect = s
			} else {
				m.ResultSensitivity = s
			}
		case MetaIdempotent, MetaRequiresConfirmation, MetaSafeMedia:
			if v == nil {
				delete(obj, k)
				continue
			}
			b, ok := v.(bool)
			if !ok {
				return m, nil, &Error{key, "must be a boolean, got " + jsonx.TypeOf(v)}
			}
			switch k {
			case MetaIdempotent:
				m.Idempotent = &b
			case MetaRequiresConfirmation:
				m.RequiresConfirmation = &b
			default:
				m.SafeMedia = b
			}
		default:
			if near, ok := Resembles(k, metaKeys...); ok {
				return m, nil, &Error{key, fmt.Sprintf("is not a policy hint the runtime reads, and looks like a misspelling of %q, which would then not apply", near)}
			}
		}
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return m, nil, &Error{"_meta", "cannot be normalized: " + err.Error()}
	}
	return m, out, nil
}

// Refine returns the annotations of one call: a's, with every key that r
// sets (r comes from the tool's resolve callback) taking r's value, as
// SEP-1913's tool resolution narrows a declared set to the call's value.
// The one exception is sensitiveHint, which a call can raise but never
// lower. The _meta hints are the tool's. A nil r returns a.
func (a *Annotations) Refine(r *Annotations) *Annotations {
	if r == nil {
		return a
	}
	out := *a
	out.set = make(map[string]bool, len(a.set)+len(r.set))
	for k := range a.set {
		out.set[k] = true
	}
	for k := range r.set {
		out.set[k] = true
		switch k {
		case "title":
			out.Title = r.Title
		case "sensitiveHint":
			if !is(a.Sensitive) {
				out.Sensitive = r.Sensitive
			}
		case "maliciousActivityHint":
			out.MaliciousActivity = r.MaliciousActivity
		case "attribution":
			out.Attribution = r.Attribution
		case "inputMetadata":
			out.Input = r.Input
		case "returnMetadata":
			out.Return = r.Return
		default:
			*out.boolHint(k) = *r.boolHint(k)
		}
	}
	return &out
}

// Has reports whether the page gave the key, a top-level annotation name.
func (a *Annotations) Has(key string) bool { return a.set[key] }

// IsReadOnly is readOnlyHint with MCP's default, false.
func (a *Annotations) IsReadOnly() bool { return is(a.ReadOnly) }

// IsOpenWorld is openWorldHint with MCP's default, true.
func (a *Annotations) IsOpenWorld() bool { return a.OpenWorld == nil || *a.OpenWorld }

// IsDestructive is destructiveHint with MCP's default, true. MCP gives it
// meaning only for tools that are not read-only.
func (a *Annotations) IsDestructive() bool { return a.Destructive == nil || *a.Destructive }

// IsIdempotent is idempotentHint with MCP's default, false.
func (a *Annotations) IsIdempotent() bool { return is(a.Idempotent) }

// Classes returns the sensitivity labels a result of the tool may carry:
// the names of returnMetadata.sensitivity ("regulated" for regulated
// data), mcp.dev/resultSensitivity, and "sensitiveDataHint" when that hint
// is true. They are the labels a [Config] maps.
func (a *Annotations) Classes() []string {
	var out []string
	if a.Return != nil {
		for _, c := range a.Return.Sensitivity {
			out = appendNew(out, c.Name)
		}
	}
	if a.Meta.ResultSensitivity != "" {
		out = appendNew(out, a.Meta.ResultSensitivity)
	}
	if is(a.SensitiveData) {
		out = appendNew(out, "sensitiveDataHint")
	}
	return out
}

func is(b *bool) bool { return b != nil && *b }

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func decodeObject(raw []byte, what string) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &Error{what, "is not valid JSON: " + err.Error()}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, &Error{what, "must be an object, got " + jsonx.TypeOf(v)}
	}
	return obj, nil
}

func oneOrMany(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		return strs(v)
	}
	return nil
}

func strs(v []any) []string {
	out := make([]string, 0, len(v))
	for _, x := range v {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func dataClasses(v any) []DataClass {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	var out []DataClass
	for _, x := range list {
		switch x := x.(type) {
		case string:
			out = append(out, DataClass{Name: x})
		case map[string]any:
			reg, _ := x["regulated"].(map[string]any)
			scopes, _ := reg["scopes"].([]any)
			out = append(out, DataClass{Name: "regulated", Scopes: strs(scopes)})
		}
	}
	return out
}

// describe names a wrong value: a string quoted, anything else by type.
func describe(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return jsonx.TypeOf(v)
}

func quoteAll(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
