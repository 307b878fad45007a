package schema

import (
	"errors"
	"fmt"
	"maps"
	neturl "net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/veilmcp/veil/wasm/engine/internal/jsontree"
	"github.com/veilmcp/veil/wasm/internal/jsonx"
	"github.com/veilmcp/veil/wasm/risk"
)

// sensitiveKeyword is the extension keyword that marks the values a
// subschema applies to as sensitive.
const sensitiveKeyword = "x-sensitive"

// schemaBase is the base URL schemas are compiled under. It is never
// fetched: the compiler has a loader that loads nothing.
const schemaBase = "https://schema.veil.invalid/"

var printer = message.NewPrinter(language.English)

// sensitiveExt is the compiled form of "x-sensitive": true.
type sensitiveExt struct{}

func (sensitiveExt) Validate(*jsonschema.ValidatorContext, any) {}

var (
	vocabOnce sync.Once
	vocab     *jsonschema.Vocabulary
)

// sensitiveVocab is the vocabulary that gives "x-sensitive" its meaning.
func sensitiveVocab() *jsonschema.Vocabulary {
	vocabOnce.Do(func() {
		c := jsonschema.NewCompiler()
		c.UseLoader(jsonx.NoLoader{})
		meta := map[string]any{
			"properties": map[string]any{sensitiveKeyword: map[string]any{"type": "boolean"}},
		}
		const url = schemaBase + "vocab/x-sensitive"
		if err := c.AddResource(url, meta); err != nil {
			panic(err)
		}
		vocab = &jsonschema.Vocabulary{
			URL:    url,
			Schema: c.MustCompile(url),
			Compile: func(_ *jsonschema.CompilerContext, obj map[string]any) (jsonschema.SchemaExt, error) {
				// JSON Schema's own words for a secret mean x-sensitive
				// too: writeOnly (a value never read back), and the
				// password format OpenAPI generators write.
				if obj["writeOnly"] == true || obj["format"] == "password" {
					return sensitiveExt{}, nil
				}
				v, ok := obj[sensitiveKeyword]
				if !ok {
					return nil, nil
				}
				b, ok := v.(bool)
				if !ok {
					return nil, fmt.Errorf("%s must be a boolean, got %s", sensitiveKeyword, jsonx.TypeOf(v))
				}
				if !b {
					return nil, nil
				}
				return sensitiveExt{}, nil
			},
		}
	})
	return vocab
}

// Schema is one of a tool's schemas, compiled once at registration.
type Schema struct {
	root *jsonschema.Schema
	// ids numbers every subschema reachable from root; sets of schemas are
	// interned by their sorted ids.
	ids map[*jsonschema.Schema]int
	// dynamic lists the schemas with each $dynamicAnchor (and, under
	// draft 2019-09, "$recursiveAnchor": true as the anchor "").
	dynamic map[string][]*jsonschema.Schema
	// anySensitive reports whether any reachable subschema has
	// "x-sensitive": true.
	anySensitive bool
	// fast validates parsed trees without the library, where it can
	// (fastvalidate.go); nil where it cannot.
	fast *fastSchema
	// names are the member names the schema declares (properties,
	// required, dependentRequired): the agent reads them in the tool's
	// definition, so they are no values to withhold.
	names map[string]bool
	// lowerNames are names in lower case.
	lowerNames map[string]bool
	// sensitiveNames are the names of properties that hold an
	// x-sensitive at or below them (SensitiveNames).
	sensitiveNames map[string]bool

	mu     sync.Mutex
	states map[string]*State
	start  *State
	// reaches keeps reachesSensitive's answers.
	reaches map[*jsonschema.Schema]bool
}

// Compile compiles a page's schema document (already decoded by
// jsonschema.UnmarshalJSON) under the name given.
func Compile(doc any, name string, re jsonschema.RegexpEngine) (*Schema, error) {
	if _, ok := doc.(map[string]any); !ok {
		return nil, fmt.Errorf("must be an object, got %s", jsonx.TypeOf(doc))
	}
	var marked []string
	if err := checkSensitiveKeywords(doc, "", &marked); err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonx.NoLoader{})
	if re != nil {
		c.UseRegexpEngine(re)
	}
	c.RegisterVocabulary(sensitiveVocab())
	c.AssertVocabs()
	url := schemaBase + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	root, err := c.Compile(url)
	if err != nil {
		return nil, errors.New(compileMessage(err))
	}
	cs := &Schema{
		root:    root,
		ids:     map[*jsonschema.Schema]int{},
		dynamic: map[string][]*jsonschema.Schema{},
		states:  map[string]*State{},
	}
	cs.collect(root)
	cs.lowerNames = map[string]bool{}
	for name := range cs.names {
		cs.lowerNames[strings.ToLower(name)] = true
	}
	for sch := range cs.ids {
		for name, sub := range sch.Properties {
			if cs.reachesSensitive(sub) {
				if cs.sensitiveNames == nil {
					cs.sensitiveNames = map[string]bool{}
				}
				cs.sensitiveNames[name] = true
			}
		}
	}
	if err := cs.checkApplied(marked, url); err != nil {
		return nil, err
	}
	cs.start = cs.intern([]*jsonschema.Schema{root}, nil)
	cs.fast = compileFast(root)
	return cs, nil
}

// compileMessage makes a compile error one readable line without the
// invented base URL.
func compileMessage(err error) string {
	var ve *jsonschema.SchemaValidationError
	if errors.As(err, &ve) {
		if v, ok := ve.Err.(*jsonschema.ValidationError); ok {
			leaf := firstLeaf(v)
			return fmt.Sprintf("at %s: %s", pointer(leaf.InstanceLocation), leaf.ErrorKind.LocalizedString(printer))
		}
	}
	return strings.ReplaceAll(err.Error(), schemaBase, "")
}

// checkSensitiveKeywords rejects a non-boolean x-sensitive anywhere a
// subschema can stand, including $defs nothing refers to, which the
// compiler never visits, and adds to marked the pointer of every
// "x-sensitive": true.
func checkSensitiveKeywords(v any, at string, marked *[]string) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if x, ok := obj[sensitiveKeyword]; ok {
		b, ok := x.(bool)
		if !ok {
			return fmt.Errorf("at %s: %s must be a boolean, got %s", jsontree.OrRoot(at), sensitiveKeyword, jsonx.TypeOf(x))
		}
		if b {
			*marked = append(*marked, at)
		}
	}
	for k, sub := range obj {
		p := at + "/" + jsontree.EscapePointer(k)
		if near, ok := risk.Resembles(k, sensitiveKeyword); ok {
			return fmt.Errorf("at %s: %q is not a keyword the runtime reads, and looks like a misspelling of %q, which would then not apply", jsontree.OrRoot(at), k, near)
		}
		if sub == true && k != sensitiveKeyword && k != "writeOnly" && k != "readOnly" && risk.MeansSensitive(k) {
			return fmt.Errorf("at %s: %q is not a keyword the runtime reads, so nothing would be withheld; mark the value with \"%s\": true", jsontree.OrRoot(at), k, sensitiveKeyword)
		}
		switch k {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			if m, ok := sub.(map[string]any); ok {
				for name, s := range m {
					if err := checkSensitiveKeywords(s, p+"/"+jsontree.EscapePointer(name), marked); err != nil {
						return err
					}
				}
			}
		case "items", "prefixItems", "allOf", "anyOf", "oneOf":
			if arr, ok := sub.([]any); ok {
				for i, s := range arr {
					if err := checkSensitiveKeywords(s, p+"/"+strconv.Itoa(i), marked); err != nil {
						return err
					}
				}
				continue
			}
			if err := checkSensitiveKeywords(sub, p, marked); err != nil {
				return err
			}
		case "additionalProperties", "additionalItems", "unevaluatedProperties", "unevaluatedItems",
			"propertyNames", "contains", "not", "if", "then", "else", "contentSchema":
			if err := checkSensitiveKeywords(sub, p, marked); err != nil {
				return err
			}
		case "const", "enum", "default", "examples", sensitiveKeyword:
			// Data, not subschemas.
		default:
			// A keyword the compiler does not read as holding a subschema
			// (a typo, or one of the page's own): an x-sensitive inside it
			// would never apply, and the value it means to mark would
			// Reach the agent.
			if q := findSensitive(sub, p); q != "" {
				return fmt.Errorf("at %s: %s is under %q, which holds no subschema, so it would never apply", q, sensitiveKeyword, k)
			}
		}
	}
	return nil
}

// findSensitive returns the pointer of the first x-sensitive member inside
// v, at pointer at, or "".
func findSensitive(v any, at string) string {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v[sensitiveKeyword]; ok {
			return jsontree.OrRoot(at)
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if q := findSensitive(v[k], at+"/"+jsontree.EscapePointer(k)); q != "" {
				return q
			}
		}
	case []any:
		for i, e := range v {
			if q := findSensitive(e, at+"/"+strconv.Itoa(i)); q != "" {
				return q
			}
		}
	}
	return ""
}

// checkApplied refuses an x-sensitive the compiled schema never applies:
// one under a keyword the schema's draft does not read (prefixItems in
// draft-07, a sibling of $ref there, additionalItems in 2020-12), or in a
// definition nothing refers to. Such a mark would silently protect
// nothing. marked lists the document's marks; url is the document's.
func (cs *Schema) checkApplied(marked []string, url string) error {
	applied := map[string]bool{}
	count := 0
	located := true
	for s := range cs.ids {
		if !isSensitive(s) {
			continue
		}
		count++
		frag, ok := strings.CutPrefix(s.Location, url+"#")
		if ok {
			frag, ok = unescapeFragment(frag)
		}
		located = located && ok
		applied[frag] = true
	}
	for _, p := range marked {
		if located && !applied[p] || !located && count < len(marked) {
			where := jsontree.OrRoot(p)
			if !located {
				where = "some location"
			}
			return fmt.Errorf("at %s: %s never applies: the schema's draft does not read the keyword it stands under, or nothing refers to it", where, sensitiveKeyword)
		}
	}
	return nil
}

// SensitiveNames returns, sorted, the names of the properties that hold
// an x-sensitive at or below them. A member so named, in any case or
// spelling (apiKey, api_key, APIKEY), where the schema declares nothing
// (an envelope the schema does not describe, such as
// {"data": {"ssn": …}}) is to be withheld; how names compare is the
// caller's.
func (cs *Schema) SensitiveNames() []string {
	return slices.Sorted(maps.Keys(cs.sensitiveNames))
}

// AnySensitive reports whether any subschema the schema reaches has
// "x-sensitive": true.
func (cs *Schema) AnySensitive() bool { return cs.anySensitive }

// Start is the state of the schema's root location.
func (cs *Schema) Start() *State { return cs.start }

// Declares reports whether the schema declares the member name (in
// properties, required or dependentRequired): the agent reads such names
// in the tool's definition, so they are no values to withhold.
func (cs *Schema) Declares(name string) bool { return cs.names[name] }

// DeclaresLower reports whether the schema declares a member name whose
// lower case is lower.
func (cs *Schema) DeclaresLower(lower string) bool { return cs.lowerNames[lower] }

// unescapeFragment reads a URL fragment's JSON Pointer, as the compiler
// writes it in a Location.
func unescapeFragment(f string) (string, bool) {
	p, err := neturl.PathUnescape(f)
	return p, err == nil
}

// collect numbers every subschema reachable from s.
func (cs *Schema) collect(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if _, ok := cs.ids[s]; ok {
		return
	}
	cs.ids[s] = len(cs.ids)
	if isSensitive(s) {
		cs.anySensitive = true
	}
	if s.DynamicAnchor != "" {
		cs.dynamic[s.DynamicAnchor] = append(cs.dynamic[s.DynamicAnchor], s)
	}
	if s.RecursiveAnchor {
		cs.dynamic[""] = append(cs.dynamic[""], s)
	}
	if cs.names == nil {
		cs.names = map[string]bool{}
	}
	for name := range s.Properties {
		cs.names[name] = true
	}
	for _, name := range s.Required {
		cs.names[name] = true
	}
	for name, deps := range s.DependentRequired {
		cs.names[name] = true
		for _, d := range deps {
			cs.names[d] = true
		}
	}
	eachSubschema(s, func(sub *jsonschema.Schema) { cs.collect(sub) })
}

// eachSubschema calls f with every subschema s refers to.
func eachSubschema(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	one := func(v any) {
		switch v := v.(type) {
		case *jsonschema.Schema:
			if v != nil {
				f(v)
			}
		case []*jsonschema.Schema:
			for _, x := range v {
				f(x)
			}
		}
	}
	one(s.Ref)
	one(s.RecursiveRef)
	if s.DynamicRef != nil {
		one(s.DynamicRef.Ref)
	}
	one(s.Not)
	one(s.AllOf)
	one(s.AnyOf)
	one(s.OneOf)
	one(s.If)
	one(s.Then)
	one(s.Else)
	one(s.PropertyNames)
	for _, k := range slices.Sorted(mapKeys(s.Properties)) {
		f(s.Properties[k])
	}
	for _, sub := range s.PatternProperties {
		f(sub)
	}
	one(s.AdditionalProperties)
	for _, k := range slices.Sorted(mapKeys(s.Dependencies)) {
		one(s.Dependencies[k])
	}
	for _, k := range slices.Sorted(mapKeys(s.DependentSchemas)) {
		f(s.DependentSchemas[k])
	}
	one(s.UnevaluatedProperties)
	one(s.Contains)
	one(s.Items)
	one(s.AdditionalItems)
	one(s.PrefixItems)
	one(s.Items2020)
	one(s.UnevaluatedItems)
	one(s.ContentSchema)
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func isSensitive(s *jsonschema.Schema) bool {
	for _, e := range s.Extensions {
		if _, ok := e.(sensitiveExt); ok {
			return true
		}
	}
	return false
}
