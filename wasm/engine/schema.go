package engine

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
	jskind "github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

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

// compiledSchema is one of a tool's schemas, compiled once at registration.
type compiledSchema struct {
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
	// sensitiveNames are the skeletons (fold.go) of the names of
	// properties that hold an x-sensitive at or below them. A member so
	// named, in any case or spelling (apiKey, api_key, APIKEY), where the
	// schema declares nothing (an envelope the schema does not describe,
	// such as {"data": {"ssn": …}}) is withheld.
	sensitiveNames map[string]bool

	mu     sync.Mutex
	states map[string]*sstate
	start  *sstate
	// reaches keeps reachesSensitive's answers.
	reaches map[*jsonschema.Schema]bool
}

// compileSchema compiles a page's schema document (already decoded by
// jsonschema.UnmarshalJSON) under the name given.
func compileSchema(doc any, name string, re jsonschema.RegexpEngine) (*compiledSchema, error) {
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
	cs := &compiledSchema{
		root:    root,
		ids:     map[*jsonschema.Schema]int{},
		dynamic: map[string][]*jsonschema.Schema{},
		states:  map[string]*sstate{},
	}
	cs.collect(root)
	cs.lowerNames = map[string]bool{}
	delete(cs.sensitiveNames, "")
	for name := range cs.names {
		cs.lowerNames[strings.ToLower(name)] = true
	}
	for sch := range cs.ids {
		for name, sub := range sch.Properties {
			if cs.reachesSensitive(sub) {
				if cs.sensitiveNames == nil {
					cs.sensitiveNames = map[string]bool{}
				}
				cs.sensitiveNames[skeleton(name)] = true
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
			return fmt.Errorf("at %s: %s must be a boolean, got %s", orRoot(at), sensitiveKeyword, jsonx.TypeOf(x))
		}
		if b {
			*marked = append(*marked, at)
		}
	}
	for k, sub := range obj {
		p := at + "/" + escapePointer(k)
		if near, ok := risk.Resembles(k, sensitiveKeyword); ok {
			return fmt.Errorf("at %s: %q is not a keyword the runtime reads, and looks like a misspelling of %q, which would then not apply", orRoot(at), k, near)
		}
		if sub == true && k != sensitiveKeyword && k != "writeOnly" && k != "readOnly" && risk.MeansSensitive(k) {
			return fmt.Errorf("at %s: %q is not a keyword the runtime reads, so nothing would be withheld; mark the value with \"%s\": true", orRoot(at), k, sensitiveKeyword)
		}
		switch k {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			if m, ok := sub.(map[string]any); ok {
				for name, s := range m {
					if err := checkSensitiveKeywords(s, p+"/"+escapePointer(name), marked); err != nil {
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
			// reach the agent.
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
			return orRoot(at)
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if q := findSensitive(v[k], at+"/"+escapePointer(k)); q != "" {
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
func (cs *compiledSchema) checkApplied(marked []string, url string) error {
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
			where := orRoot(p)
			if !located {
				where = "some location"
			}
			return fmt.Errorf("at %s: %s never applies: the schema's draft does not read the keyword it stands under, or nothing refers to it", where, sensitiveKeyword)
		}
	}
	return nil
}

// namesSensitive reports whether a member name is, in any case or
// spelling, that of a property the schema makes sensitive.
func (cs *compiledSchema) namesSensitive(name string) bool {
	if len(cs.sensitiveNames) == 0 {
		return false
	}
	var buf [64]byte
	return cs.sensitiveNames[string(appendSkeleton(buf[:0], name))]
}

// unescapeFragment reads a URL fragment's JSON Pointer, as the compiler
// writes it in a Location.
func unescapeFragment(f string) (string, bool) {
	p, err := neturl.PathUnescape(f)
	return p, err == nil
}

func orRoot(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

// collect numbers every subschema reachable from s.
func (cs *compiledSchema) collect(s *jsonschema.Schema) {
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

// sstate is what the schema says about one location of an instance: the
// set of subschemas that apply there, closed under the in-place
// applicators ($ref, $dynamicRef, allOf, anyOf, oneOf, if/then/else, not).
//
// The analysis is static and errs toward sensitivity: every branch of
// anyOf, oneOf and if/then/else counts, whichever the value matches, and a
// $dynamicRef counts every schema with its anchor. Schemas reached through
// not, contains or contentSchema can make a value sensitive but never make
// a location declared.
type sstate struct {
	cs *compiledSchema
	// pos applies positively; neg only lends sensitivity.
	pos, neg []*jsonschema.Schema
	// sensitive: some applying subschema has "x-sensitive": true.
	sensitive bool
	// keysSensitive: a propertyNames subschema is sensitive, so the
	// member names, and so the members, are.
	keysSensitive bool
	// below says through which kinds of value sensitivity lies below
	// this location: an object's members (reachObject), an array's items
	// (reachArray).
	below reach
	// dependent reports whether dependentSchemas may add to the object's
	// set depending on which members are present.
	dependent bool
	// members caches child states by member name; items by index (the
	// last entry serves every index past the tuple).
	members map[string]transition
	items   []transition
	tuple   int
}

// reach says through which kinds of value an x-sensitive lies below a
// location.
type reach uint8

const (
	reachObject reach = 1 << iota
	reachArray
)

// takes reports whether a value of kind k at a location whose
// sensitivity lies below it reaches that sensitivity, as the schema's
// author meant: properties and items hold x-sensitive for objects and
// arrays, but JSON Schema applies them to nothing else, so a string
// holding the object's JSON text, or a list of the objects where one was
// described, would pass with nothing withheld. The runtime reads such a
// schema as pinning the kind: a value of another kind there is withheld
// whole. Null holds nothing and passes.
func (r reach) takes(k kind) bool {
	switch k {
	case kNull:
		return true
	case kObject:
		return r&reachObject != 0
	case kArray:
		return r&reachArray != 0
	}
	return false
}

// transition is the state of a child location and whether the schema
// declares that location (names it in properties, matches it by
// patternProperties, or gives additionalProperties, items, prefixItems
// or additionalItems a schema).
type transition struct {
	st       *sstate
	declared bool
}

// closure expands the in-place applicators of a set of schemas.
func (cs *compiledSchema) closure(pos, neg []*jsonschema.Schema) ([]*jsonschema.Schema, []*jsonschema.Schema) {
	seenPos := map[*jsonschema.Schema]bool{}
	seenNeg := map[*jsonschema.Schema]bool{}
	var outPos, outNeg []*jsonschema.Schema
	var visit func(s *jsonschema.Schema, negative bool)
	visit = func(s *jsonschema.Schema, negative bool) {
		if s == nil {
			return
		}
		if !negative && seenPos[s] {
			return
		}
		if negative && (seenNeg[s] || seenPos[s]) {
			return
		}
		if negative {
			seenNeg[s] = true
			outNeg = append(outNeg, s)
		} else {
			seenPos[s] = true
			outPos = append(outPos, s)
		}
		visit(s.Ref, negative)
		visit(s.RecursiveRef, negative)
		if s.RecursiveRef != nil {
			for _, d := range cs.dynamic[""] {
				visit(d, negative)
			}
		}
		if s.DynamicRef != nil {
			visit(s.DynamicRef.Ref, negative)
			if s.DynamicRef.Anchor != "" {
				for _, d := range cs.dynamic[s.DynamicRef.Anchor] {
					visit(d, negative)
				}
			}
		}
		for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
			for _, x := range l {
				visit(x, negative)
			}
		}
		visit(s.If, negative)
		visit(s.Then, negative)
		visit(s.Else, negative)
		visit(s.Not, true)
	}
	for _, s := range pos {
		visit(s, false)
	}
	for _, s := range neg {
		visit(s, true)
	}
	// A schema reached both ways counts as positive.
	outNeg = slices.DeleteFunc(outNeg, func(s *jsonschema.Schema) bool { return seenPos[s] })
	return outPos, outNeg
}

// intern returns the state for the closure of pos and neg.
func (cs *compiledSchema) intern(pos, neg []*jsonschema.Schema) *sstate {
	pos, neg = cs.closure(pos, neg)
	key := cs.key(pos, neg)
	if st, ok := cs.states[key]; ok {
		return st
	}
	st := &sstate{cs: cs, pos: pos, neg: neg, members: map[string]transition{}, tuple: -1}
	for _, s := range slices.Concat(pos, neg) {
		if isSensitive(s) {
			st.sensitive = true
		}
		if s.ContentSchema != nil && cs.reachesSensitive(s.ContentSchema) {
			st.sensitive = true
		}
		if s.PropertyNames != nil && cs.reachesSensitive(s.PropertyNames) {
			st.keysSensitive = true
		}
		if len(s.DependentSchemas) > 0 {
			st.dependent = true
		}
		st.below |= cs.reachBelow(s)
		for _, d := range s.Dependencies {
			if _, ok := d.(*jsonschema.Schema); ok {
				st.dependent = true
			}
		}
	}
	cs.states[key] = st
	return st
}

func (cs *compiledSchema) key(pos, neg []*jsonschema.Schema) string {
	ids := func(l []*jsonschema.Schema) []int {
		out := make([]int, len(l))
		for i, s := range l {
			out[i] = cs.ids[s]
		}
		slices.Sort(out)
		return out
	}
	var b strings.Builder
	for _, id := range ids(pos) {
		b.WriteString(strconv.Itoa(id))
		b.WriteByte(',')
	}
	b.WriteByte('|')
	for _, id := range ids(neg) {
		b.WriteString(strconv.Itoa(id))
		b.WriteByte(',')
	}
	return b.String()
}

// reachBelow says through which kinds of value s's own keywords lead to
// an x-sensitive: those of objects, and those of arrays.
func (cs *compiledSchema) reachBelow(s *jsonschema.Schema) reach {
	var r reach
	reachesAny := func(l ...*jsonschema.Schema) bool {
		for _, x := range l {
			if x != nil && cs.reachesSensitive(x) {
				return true
			}
		}
		return false
	}
	var obj []*jsonschema.Schema
	for _, x := range s.Properties {
		obj = append(obj, x)
	}
	for _, x := range s.PatternProperties {
		obj = append(obj, x)
	}
	for _, x := range s.DependentSchemas {
		obj = append(obj, x)
	}
	for _, d := range s.Dependencies {
		if x, ok := d.(*jsonschema.Schema); ok {
			obj = append(obj, x)
		}
	}
	if x, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
		obj = append(obj, x)
	}
	obj = append(obj, s.UnevaluatedProperties, s.PropertyNames)
	if reachesAny(obj...) {
		r |= reachObject
	}
	arr := append([]*jsonschema.Schema{s.Items2020, s.UnevaluatedItems, s.Contains}, s.PrefixItems...)
	switch x := s.Items.(type) {
	case *jsonschema.Schema:
		arr = append(arr, x)
	case []*jsonschema.Schema:
		arr = append(arr, x...)
	}
	if x, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
		arr = append(arr, x)
	}
	if reachesAny(arr...) {
		r |= reachArray
	}
	return r
}

// reachesSensitive reports whether any subschema reachable from s is
// sensitive. The answer is kept for each s.
func (cs *compiledSchema) reachesSensitive(s *jsonschema.Schema) bool {
	if r, ok := cs.reaches[s]; ok {
		return r
	}
	r := cs.walkSensitive(s)
	if cs.reaches == nil {
		cs.reaches = map[*jsonschema.Schema]bool{}
	}
	cs.reaches[s] = r
	return r
}

func (cs *compiledSchema) walkSensitive(s *jsonschema.Schema) bool {
	seen := map[*jsonschema.Schema]bool{}
	var walk func(*jsonschema.Schema) bool
	walk = func(s *jsonschema.Schema) bool {
		if s == nil || seen[s] {
			return false
		}
		seen[s] = true
		if isSensitive(s) {
			return true
		}
		found := false
		eachSubschema(s, func(sub *jsonschema.Schema) {
			if !found && walk(sub) {
				found = true
			}
		})
		return found
	}
	return walk(s)
}

// withMembers returns the state of an object whose member names are keys:
// dependentSchemas whose trigger is present join the set.
func (st *sstate) withMembers(keys func(func(string) bool)) *sstate {
	if !st.dependent {
		return st
	}
	var addPos, addNeg []*jsonschema.Schema
	present := map[string]bool{}
	keys(func(k string) bool { present[k] = true; return true })
	add := func(l []*jsonschema.Schema, negative bool) {
		for _, s := range l {
			for k, d := range s.DependentSchemas {
				if present[k] {
					if negative {
						addNeg = append(addNeg, d)
					} else {
						addPos = append(addPos, d)
					}
				}
			}
			for k, d := range s.Dependencies {
				if d, ok := d.(*jsonschema.Schema); ok && present[k] {
					if negative {
						addNeg = append(addNeg, d)
					} else {
						addPos = append(addPos, d)
					}
				}
			}
		}
	}
	add(st.pos, false)
	add(st.neg, true)
	if len(addPos) == 0 && len(addNeg) == 0 {
		return st
	}
	st.cs.mu.Lock()
	defer st.cs.mu.Unlock()
	return st.cs.intern(slices.Concat(st.pos, addPos), slices.Concat(st.neg, addNeg))
}

// member returns the transition to the member named key.
func (st *sstate) member(key string) transition {
	st.cs.mu.Lock()
	defer st.cs.mu.Unlock()
	if t, ok := st.members[key]; ok {
		return t
	}
	var pos, neg []*jsonschema.Schema
	declared := false
	visit := func(s *jsonschema.Schema, negative bool) {
		add := func(x *jsonschema.Schema, declares bool) {
			if negative {
				neg = append(neg, x)
				return
			}
			pos = append(pos, x)
			declared = declared || declares
		}
		matched := false
		if sub, ok := s.Properties[key]; ok {
			add(sub, true)
			matched = true
		}
		for re, sub := range s.PatternProperties {
			if re.MatchString(key) {
				add(sub, true)
				matched = true
			}
		}
		if !matched {
			if sub, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
				add(sub, true)
				matched = true
			}
		}
		if !matched && s.UnevaluatedProperties != nil {
			add(s.UnevaluatedProperties, true)
		}
	}
	for _, s := range st.pos {
		visit(s, false)
	}
	for _, s := range st.neg {
		visit(s, true)
	}
	t := transition{st: st.cs.intern(pos, neg), declared: declared}
	st.members[key] = t
	return t
}

// item returns the transition to the array item at index i.
func (st *sstate) item(i int) transition {
	st.cs.mu.Lock()
	defer st.cs.mu.Unlock()
	if st.tuple < 0 {
		st.tuple = 0
		for _, s := range slices.Concat(st.pos, st.neg) {
			st.tuple = max(st.tuple, len(s.PrefixItems))
			if l, ok := s.Items.([]*jsonschema.Schema); ok {
				st.tuple = max(st.tuple, len(l))
			}
		}
	}
	idx := min(i, st.tuple)
	for len(st.items) <= idx {
		st.items = append(st.items, transition{})
	}
	if st.items[idx].st != nil {
		return st.items[idx]
	}
	var pos, neg []*jsonschema.Schema
	declared := false
	visit := func(s *jsonschema.Schema, negative bool) {
		add := func(x *jsonschema.Schema, declares bool) {
			if x == nil {
				return
			}
			if negative {
				neg = append(neg, x)
				return
			}
			pos = append(pos, x)
			declared = declared || declares
		}
		evaluated := false
		switch {
		case idx < len(s.PrefixItems):
			add(s.PrefixItems[idx], true)
			evaluated = true
		case s.Items2020 != nil:
			add(s.Items2020, true)
			evaluated = true
		}
		switch items := s.Items.(type) {
		case *jsonschema.Schema:
			add(items, true)
			evaluated = true
		case []*jsonschema.Schema:
			if idx < len(items) {
				add(items[idx], true)
				evaluated = true
			} else if sub, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
				add(sub, true)
				evaluated = true
			}
		}
		if !evaluated && s.UnevaluatedItems != nil {
			add(s.UnevaluatedItems, true)
		}
		// contains applies to some items; which ones depends on
		// validation, so it lends sensitivity to all of them.
		if s.Contains != nil {
			neg = append(neg, s.Contains)
		}
	}
	for _, s := range st.pos {
		visit(s, false)
	}
	for _, s := range st.neg {
		visit(s, true)
	}
	t := transition{st: st.cs.intern(pos, neg), declared: declared}
	st.items[idx] = t
	return t
}

// conforms reports whether node i of tr is valid against the schema: by
// the fast path where it applies and says so, by the library otherwise.
func (cs *compiledSchema) conforms(tr *tree, i int) bool {
	if cs.fast != nil && cs.fast.valid(tr, i) {
		return true
	}
	return cs.validate(tr.value(i)) == nil
}

// validate validates a decoded value and describes the first failure.
func (cs *compiledSchema) validate(v any) *Failure {
	err := cs.root.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &Failure{Reason: err.Error()}
	}
	leaf := firstLeaf(ve)
	schemaPath := ""
	if i := strings.IndexByte(leaf.SchemaURL, '#'); i >= 0 {
		schemaPath = leaf.SchemaURL[i+1:]
	}
	if _, ok := leaf.ErrorKind.(*jskind.Reference); !ok {
		for _, k := range leaf.ErrorKind.KeywordPath() {
			schemaPath += "/" + escapePointer(k)
		}
	}
	return &Failure{
		Path:       pointer(leaf.InstanceLocation),
		Reason:     leaf.ErrorKind.LocalizedString(printer),
		SchemaPath: schemaPath,
	}
}

// Failure locates the first place a value fails its schema: the JSON
// Pointers of the value and of the failing keyword.
type Failure struct {
	Path       string `json:"path"`
	Reason     string `json:"reason"`
	SchemaPath string `json:"schemaPath"`
}

func firstLeaf(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	for len(e.Causes) > 0 {
		e = e.Causes[0]
	}
	return e
}

// pointer makes a JSON Pointer of reference tokens.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapePointer(t))
	}
	return b.String()
}

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
