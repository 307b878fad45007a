package schema

import (
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/veilmcp/veil/wasm/engine/internal/jsontree"
)

// This file holds the sensitivity state machine: what a compiled schema
// says about each location of an instance, whether a value there is
// declared, sensitive, or has something sensitive below it.

// State is what the schema says about one location of an instance: the
// set of subschemas that apply there, closed under the in-place
// applicators ($ref, $dynamicRef, allOf, anyOf, oneOf, if/then/else, not).
//
// The analysis is static and errs toward sensitivity: every branch of
// anyOf, oneOf and if/then/else counts, whichever the value matches, and a
// $dynamicRef counts every schema with its anchor. Schemas reached through
// not, contains or contentSchema can make a value sensitive but never make
// a location declared.
type State struct {
	cs *Schema
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
	below Reach
	// dependent reports whether dependentSchemas may add to the object's
	// set depending on which members are present.
	dependent bool
	// members caches child states by member name; items by index (the
	// last entry serves every index past the tuple).
	members map[string]Transition
	items   []Transition
	tuple   int
}

// Reach says through which kinds of value an x-sensitive lies below a
// location.
type Reach uint8

const (
	reachObject Reach = 1 << iota
	reachArray
)

// Sensitive reports whether a value at this location is sensitive: some
// subschema that applies here has "x-sensitive": true (or reaches one
// through contentSchema).
func (st *State) Sensitive() bool { return st.sensitive }

// KeysSensitive reports whether an object's member names here are
// sensitive (a propertyNames subschema is), and so its members.
func (st *State) KeysSensitive() bool { return st.keysSensitive }

// Below says through which kinds of value sensitivity lies below this
// location; 0 when none does.
func (st *State) Below() Reach { return st.below }

// Takes reports whether a value of kind k at a location whose
// sensitivity lies below it reaches that sensitivity, as the schema's
// author meant: properties and items hold x-sensitive for objects and
// arrays, but JSON Schema applies them to nothing else, so a string
// holding the object's JSON text, or a list of the objects where one was
// described, would pass with nothing withheld. The runtime reads such a
// schema as pinning the kind: a value of another kind there is withheld
// whole. Null holds nothing and passes.
func (r Reach) Takes(k jsontree.Kind) bool {
	switch k {
	case jsontree.Null:
		return true
	case jsontree.Object:
		return r&reachObject != 0
	case jsontree.Array:
		return r&reachArray != 0
	}
	return false
}

// Transition is the state of a child location and whether the schema
// declares that location (names it in properties, matches it by
// patternProperties, or gives additionalProperties, items, prefixItems
// or additionalItems a schema).
type Transition struct {
	State    *State
	Declared bool
}

// closure expands the in-place applicators of a set of schemas.
func (cs *Schema) closure(pos, neg []*jsonschema.Schema) ([]*jsonschema.Schema, []*jsonschema.Schema) {
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
func (cs *Schema) intern(pos, neg []*jsonschema.Schema) *State {
	pos, neg = cs.closure(pos, neg)
	key := cs.key(pos, neg)
	if st, ok := cs.states[key]; ok {
		return st
	}
	st := &State{cs: cs, pos: pos, neg: neg, members: map[string]Transition{}, tuple: -1}
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

func (cs *Schema) key(pos, neg []*jsonschema.Schema) string {
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
func (cs *Schema) reachBelow(s *jsonschema.Schema) Reach {
	var r Reach
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
func (cs *Schema) reachesSensitive(s *jsonschema.Schema) bool {
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

func (cs *Schema) walkSensitive(s *jsonschema.Schema) bool {
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

// WithMembers returns the state of an object whose member names are keys:
// dependentSchemas whose trigger is present join the set.
func (st *State) WithMembers(keys func(func(string) bool)) *State {
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

// Member returns the transition to the member named key.
func (st *State) Member(key string) Transition {
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
	t := Transition{State: st.cs.intern(pos, neg), Declared: declared}
	st.members[key] = t
	return t
}

// Item returns the transition to the array item at index i.
func (st *State) Item(i int) Transition {
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
		st.items = append(st.items, Transition{})
	}
	if st.items[idx].State != nil {
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
	t := Transition{State: st.cs.intern(pos, neg), Declared: declared}
	st.items[idx] = t
	return t
}
