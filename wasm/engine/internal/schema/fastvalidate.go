package schema

import (
	"math/big"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/veilmcp/veil/wasm/engine/internal/jsontree"
)

// This file validates a parsed tree directly against a compiled schema,
// without building the map[string]any that jsonschema/v6 validates: for a
// 1 MiB output that map and the library's walk over it cost several times
// the rest of the view under WebAssembly.
//
// It is a fast path, never the authority. It covers the keywords whose
// meaning for a parsed tree is plain (types, properties, items, lengths,
// bounds, patterns, string enums, the in-place applicators) and reads them
// from jsonschema/v6's compiled *jsonschema.Schema, so the library still
// does all the compiling: drafts, $ref resolution, the page's RegExp. A
// schema using anything else gets no fast path. And the fast path only
// ever says "valid": when it finds a value invalid, the library validates
// the same value and has the last word (and writes the message). A test
// and a fuzz target hold the two to the same answers.

// fastSchema is a compiled subschema the tree validator reads.
type fastSchema struct {
	// always, never: a boolean schema.
	always, never bool
	// types is a set of kind bits, 0 for any; integer admits numbers
	// whose value is an integer.
	types   uint8
	integer bool
	enum    []constant
	hasEnum bool

	// In-place applicators.
	ref                  *fastSchema
	allOf, anyOf, oneOf  []*fastSchema
	not, cond, then, els *fastSchema

	// Objects.
	required     []string
	properties   map[string]*fastSchema
	patterns     []patternSchema
	additional   *fastSchema
	noAdditional bool

	// Arrays: prefix schemas, then rest (or none allowed past the prefix).
	minItems, maxItems int
	prefix             []*fastSchema
	rest               *fastSchema
	noRest             bool

	// Strings.
	minLength, maxLength int
	pattern              jsonschema.Regexp

	// Numbers.
	minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf *big.Rat
}

type patternSchema struct {
	re jsonschema.Regexp
	s  *fastSchema
}

// constant is a string, boolean or null value of enum or const.
type constant struct {
	kind jsontree.Kind
	str  string
	b    bool
}

// fastFields are the fields of jsonschema.Schema the fast path reads, and
// the ones that never change a value's validity (annotations, identity).
// A schema with any other field set gets no fast path, so a keyword a
// later version of the library adds is never skipped silently.
var fastFields = map[string]bool{
	"Bool": true, "Types": true, "Enum": true, "Const": true,
	"Ref": true, "Not": true, "AllOf": true, "AnyOf": true, "OneOf": true, "If": true, "Then": true, "Else": true,
	"Required": true, "Properties": true, "PatternProperties": true, "AdditionalProperties": true,
	"MinItems": true, "MaxItems": true, "Items": true, "AdditionalItems": true, "PrefixItems": true, "Items2020": true,
	"MinLength": true, "MaxLength": true, "Pattern": true,
	"Maximum": true, "Minimum": true, "ExclusiveMaximum": true, "ExclusiveMinimum": true, "MultipleOf": true,
	"Extensions": true,
	// Never change validity.
	"DraftVersion": true, "Location": true, "ID": true, "Anchor": true, "DynamicAnchor": true, "RecursiveAnchor": true,
	"Title": true, "Description": true, "Default": true, "Comment": true, "ReadOnly": true, "WriteOnly": true,
	"Examples": true, "Deprecated": true,
}

// valid reports whether node i of tr is valid against f. It errs toward
// "invalid" (duplicate member names are each checked, where the library
// keeps the last), never toward "valid".
func (f *fastSchema) valid(tr Tree, i int) bool {
	if f.always {
		return true
	}
	if f.never {
		return false
	}
	k := tr.Kind(i)
	if f.types != 0 || f.integer {
		ok := f.types&(1<<k) != 0 || (f.integer && k == jsontree.Number && isIntegerText(tr.Text(i)))
		if !ok {
			return false
		}
	}
	if f.hasEnum && !f.inEnum(tr, i) {
		return false
	}
	if f.ref != nil && !f.ref.valid(tr, i) {
		return false
	}
	switch k {
	case jsontree.Object:
		if !f.validObject(tr, i) {
			return false
		}
	case jsontree.Array:
		if !f.validArray(tr, i) {
			return false
		}
	case jsontree.String:
		if !f.validString(tr.Str(i)) {
			return false
		}
	case jsontree.Number:
		if !f.validNumber(tr.Text(i)) {
			return false
		}
	}
	for _, s := range f.allOf {
		if !s.valid(tr, i) {
			return false
		}
	}
	if len(f.anyOf) > 0 {
		matched := false
		for _, s := range f.anyOf {
			if s.valid(tr, i) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	if len(f.oneOf) > 0 {
		matched := 0
		for _, s := range f.oneOf {
			if s.valid(tr, i) {
				matched++
			}
		}
		if matched != 1 {
			return false
		}
	}
	if f.not != nil && f.not.valid(tr, i) {
		return false
	}
	if f.cond != nil {
		if f.cond.valid(tr, i) {
			if f.then != nil && !f.then.valid(tr, i) {
				return false
			}
		} else if f.els != nil && !f.els.valid(tr, i) {
			return false
		}
	}
	return true
}

func (f *fastSchema) inEnum(tr Tree, i int) bool {
	k := tr.Kind(i)
	for _, c := range f.enum {
		if c.kind != k {
			continue
		}
		switch k {
		case jsontree.Null:
			return true
		case jsontree.Bool:
			if c.b == (tr.Text(i)[0] == 't') {
				return true
			}
		case jsontree.String:
			if c.str == tr.Str(i) {
				return true
			}
		}
	}
	return false
}

func (f *fastSchema) validObject(tr Tree, i int) bool {
	for _, name := range f.required {
		if tr.Member(i, name) < 0 {
			return false
		}
	}
	if f.properties == nil && f.patterns == nil && f.additional == nil && !f.noAdditional {
		return true
	}
	for j, end := i+1, tr.Next(i); j < end; j = tr.Next(j) {
		key := tr.Key(j)
		evaluated := false
		if s, ok := f.properties[key]; ok {
			evaluated = true
			if !s.valid(tr, j) {
				return false
			}
		}
		for _, p := range f.patterns {
			if p.re.MatchString(key) {
				evaluated = true
				if !p.s.valid(tr, j) {
					return false
				}
			}
		}
		if !evaluated {
			if f.noAdditional {
				return false
			}
			if f.additional != nil && !f.additional.valid(tr, j) {
				return false
			}
		}
	}
	return true
}

func (f *fastSchema) validArray(tr Tree, i int) bool {
	if f.minItems >= 0 || f.maxItems >= 0 {
		n := tr.Count(i)
		if (f.minItems >= 0 && n < f.minItems) || (f.maxItems >= 0 && n > f.maxItems) {
			return false
		}
	}
	if f.prefix == nil && f.rest == nil && !f.noRest {
		return true
	}
	k := 0
	for j, end := i+1, tr.Next(i); j < end; j = tr.Next(j) {
		switch {
		case k < len(f.prefix):
			if !f.prefix[k].valid(tr, j) {
				return false
			}
		case f.noRest:
			return false
		case f.rest != nil:
			if !f.rest.valid(tr, j) {
				return false
			}
		}
		k++
	}
	return true
}

func (f *fastSchema) validString(s string) bool {
	if f.minLength >= 0 || f.maxLength >= 0 {
		n := utf8.RuneCountInString(s)
		if (f.minLength >= 0 && n < f.minLength) || (f.maxLength >= 0 && n > f.maxLength) {
			return false
		}
	}
	return f.pattern == nil || f.pattern.MatchString(s)
}

func (f *fastSchema) validNumber(text string) bool {
	if f.minimum == nil && f.maximum == nil && f.exclusiveMinimum == nil && f.exclusiveMaximum == nil && f.multipleOf == nil {
		return true
	}
	// The library compares the number's text as an exact rational.
	num, ok := new(big.Rat).SetString(text)
	if !ok {
		return false
	}
	switch {
	case f.minimum != nil && num.Cmp(f.minimum) < 0,
		f.maximum != nil && num.Cmp(f.maximum) > 0,
		f.exclusiveMinimum != nil && num.Cmp(f.exclusiveMinimum) <= 0,
		f.exclusiveMaximum != nil && num.Cmp(f.exclusiveMaximum) >= 0:
		return false
	}
	if f.multipleOf != nil {
		if f.multipleOf.Sign() == 0 || !new(big.Rat).Quo(num, f.multipleOf).IsInt() {
			return false
		}
	}
	return true
}

// isIntegerText reports whether a JSON number's text has an integer value,
// as the library decides it (1.0 and 1e2 are integers).
func isIntegerText(text string) bool {
	plain := true
	for i := 0; i < len(text) && plain; i++ {
		plain = text[i] != '.' && text[i] != 'e' && text[i] != 'E'
	}
	if plain {
		return true
	}
	r, ok := new(big.Rat).SetString(text)
	return ok && r.IsInt()
}
