package schema

import (
	"reflect"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/veilmcp/veil/wasm/engine/internal/jsontree"
)

// This file compiles a schema into its fastSchema (fastvalidate.go), or
// into none when some subschema uses what the fast path does not cover.

// compileFast returns the fast form of root, or nil when some reachable
// subschema uses what the fast path does not cover.
func compileFast(root *jsonschema.Schema) *fastSchema {
	if inPlaceCycle(root) {
		// The library reports a $ref cycle that never moves into the
		// value; the fast path would never end.
		return nil
	}
	b := fastBuilder{done: map[*jsonschema.Schema]*fastSchema{}}
	f := b.build(root)
	if b.unsupported {
		return nil
	}
	return f
}

type fastBuilder struct {
	done        map[*jsonschema.Schema]*fastSchema
	unsupported bool
}

func (b *fastBuilder) build(s *jsonschema.Schema) *fastSchema {
	if s == nil || b.unsupported {
		return nil
	}
	if f, ok := b.done[s]; ok {
		return f
	}
	f := &fastSchema{minItems: -1, maxItems: -1, minLength: -1, maxLength: -1}
	b.done[s] = f
	if !b.supported(s) {
		b.unsupported = true
		return nil
	}
	if s.Bool != nil {
		f.always, f.never = *s.Bool, !*s.Bool
		return f
	}
	if s.Types != nil {
		for _, t := range s.Types.ToStrings() {
			switch t {
			case "null":
				f.types |= 1 << jsontree.Null
			case "boolean":
				f.types |= 1 << jsontree.Bool
			case "number":
				f.types |= 1 << jsontree.Number
			case "integer":
				f.integer = true
			case "string":
				f.types |= 1 << jsontree.String
			case "array":
				f.types |= 1 << jsontree.Array
			case "object":
				f.types |= 1 << jsontree.Object
			default:
				b.unsupported = true
			}
		}
	}
	if s.Enum != nil {
		f.hasEnum = true
		for _, v := range s.Enum.Values {
			f.enum = append(f.enum, b.constant(v))
		}
	}
	if s.Const != nil {
		// const is an enum of one.
		if f.hasEnum {
			b.unsupported = true
		}
		f.hasEnum = true
		f.enum = []constant{b.constant(*s.Const)}
	}
	f.ref = b.build(s.Ref)
	f.allOf = b.list(s.AllOf)
	f.anyOf = b.list(s.AnyOf)
	f.oneOf = b.list(s.OneOf)
	f.not = b.build(s.Not)
	f.cond = b.build(s.If)
	f.then = b.build(s.Then)
	f.els = b.build(s.Else)

	f.required = s.Required
	if len(s.Properties) > 0 {
		f.properties = make(map[string]*fastSchema, len(s.Properties))
		for k, sub := range s.Properties {
			f.properties[k] = b.build(sub)
		}
	}
	for re, sub := range s.PatternProperties {
		f.patterns = append(f.patterns, patternSchema{re: re, s: b.build(sub)})
	}
	switch a := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		f.noAdditional = !a
	case *jsonschema.Schema:
		f.additional = b.build(a)
	default:
		b.unsupported = true
	}

	if s.MinItems != nil {
		f.minItems = *s.MinItems
	}
	if s.MaxItems != nil {
		f.maxItems = *s.MaxItems
	}
	if s.DraftVersion >= 2020 {
		f.prefix = b.list(s.PrefixItems)
		f.rest = b.build(s.Items2020)
	} else {
		// As the library reads items and additionalItems before 2020-12.
		switch items := s.Items.(type) {
		case nil:
			b.additionalItems(f, s.AdditionalItems)
		case *jsonschema.Schema:
			f.rest = b.build(items)
		case []*jsonschema.Schema:
			f.prefix = b.list(items)
			b.additionalItems(f, s.AdditionalItems)
		default:
			b.unsupported = true
		}
	}

	if s.MinLength != nil {
		f.minLength = *s.MinLength
	}
	if s.MaxLength != nil {
		f.maxLength = *s.MaxLength
	}
	f.pattern = s.Pattern
	f.minimum, f.maximum = s.Minimum, s.Maximum
	f.exclusiveMinimum, f.exclusiveMaximum = s.ExclusiveMinimum, s.ExclusiveMaximum
	f.multipleOf = s.MultipleOf
	return f
}

func (b *fastBuilder) additionalItems(f *fastSchema, a any) {
	switch a := a.(type) {
	case nil:
	case bool:
		f.noRest = !a
	case *jsonschema.Schema:
		f.rest = b.build(a)
	default:
		b.unsupported = true
	}
}

func (b *fastBuilder) list(l []*jsonschema.Schema) []*fastSchema {
	if len(l) == 0 {
		return nil
	}
	out := make([]*fastSchema, len(l))
	for i, s := range l {
		out[i] = b.build(s)
	}
	return out
}

// constant converts an enum or const value; numbers, arrays and objects
// compare by value in the library and get no fast path.
func (b *fastBuilder) constant(v any) constant {
	switch v := v.(type) {
	case nil:
		return constant{kind: jsontree.Null}
	case bool:
		return constant{kind: jsontree.Bool, b: v}
	case string:
		return constant{kind: jsontree.String, str: v}
	}
	b.unsupported = true
	return constant{}
}

// supported reports whether every field s sets is one the fast path reads
// or one that never changes validity.
func (b *fastBuilder) supported(s *jsonschema.Schema) bool {
	if s.Ref != nil && s.DraftVersion < 2019 {
		// Before 2019-09, $ref hides some of its siblings, not all.
		return false
	}
	for _, ext := range s.Extensions {
		if _, ok := ext.(sensitiveExt); !ok {
			return false
		}
	}
	v := reflect.ValueOf(s).Elem()
	t := v.Type()
	for i := range t.NumField() {
		fld := t.Field(i)
		if !fld.IsExported() || fastFields[fld.Name] {
			continue
		}
		if !v.Field(i).IsZero() {
			return false
		}
	}
	return true
}

// inPlaceCycle reports whether the applicators that stay at the same
// value ($ref, allOf, anyOf, oneOf, not, if, then, else) form a cycle
// anywhere in the schema.
func inPlaceCycle(root *jsonschema.Schema) bool {
	var all []*jsonschema.Schema
	seen := map[*jsonschema.Schema]bool{}
	var collect func(s *jsonschema.Schema)
	collect = func(s *jsonschema.Schema) {
		if seen[s] {
			return
		}
		seen[s] = true
		all = append(all, s)
		eachSubschema(s, collect)
	}
	collect(root)

	const (
		white = iota
		grey
		black
	)
	color := make(map[*jsonschema.Schema]int, len(all))
	var visit func(s *jsonschema.Schema) bool
	visit = func(s *jsonschema.Schema) bool {
		if s == nil {
			return false
		}
		switch color[s] {
		case grey:
			return true
		case black:
			return false
		}
		color[s] = grey
		for _, x := range slices.Concat([]*jsonschema.Schema{s.Ref, s.Not, s.If, s.Then, s.Else}, s.AllOf, s.AnyOf, s.OneOf) {
			if visit(x) {
				return true
			}
		}
		color[s] = black
		return false
	}
	for _, s := range all {
		if visit(s) {
			return true
		}
	}
	return false
}
