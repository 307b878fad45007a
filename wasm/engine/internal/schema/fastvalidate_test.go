package schema

import (
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func compileForTest(t testing.TB, schema string) *Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	require.NoError(t, err, schema)
	cs, err := Compile(doc, "t", nil)
	require.NoError(t, err, schema)
	return cs
}

// TestFastPathAgrees holds the tree validator to the library's answer for
// every schema it covers, on valid and invalid values alike.
func TestFastPathAgrees(t *testing.T) {
	instances := []string{
		`null`, `true`, `false`, `0`, `1`, `-1`, `1.0`, `1.5`, `1e2`, `1E-2`, `-0`, `12345678901234567890`, `2.5e-1`,
		`""`, `"a"`, `"abc"`, `"ab"`, `"é"`, `"\ud83d\ude00"`, `"a\"b"`, `"secret"`, `"x-1"`, `"\u0000"`,
		`[]`, `[1]`, `[1,"a"]`, `["a","b","c"]`, `[[1],[2,3]]`, `[null,true]`, `[1,2,3,4,5]`,
		`{}`, `{"a":1}`, `{"a":"x"}`, `{"a":1,"b":2}`, `{"b":true}`, `{"x-1":1}`, `{"x-a":"s"}`, `{"a":{"a":{"a":1}}}`,
		`{"a":null,"c":[1,2]}`, `{"kind":"cat","lives":9}`, `{"kind":"dog","lives":9}`, `{"kind":"dog","bark":"woof"}`,
		`{"records":[{"id":1,"ssn":"1-2"}]}`, `{"records":[{"id":1.5,"ssn":"1-2"}]}`, `{"records":[{"id":1,"ssn":2}]}`,
	}
	schemas := []string{
		`{}`,
		`{"properties":{"a":false}}`,
		`{"items":true}`,
		`{"contentMediaType":"application/json","contentSchema":{"type":"object"}}`,
		`{"type":"integer"}`,
		`{"type":"number"}`,
		`{"type":["string","null"]}`,
		`{"type":"boolean"}`,
		`{"type":"array","items":{"type":"integer"}}`,
		`{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":false}`,
		`{"type":"array","prefixItems":[{"type":"integer"}]}`,
		`{"minItems":2,"maxItems":3}`,
		`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`,
		`{"properties":{"a":{"type":"integer"}},"additionalProperties":false}`,
		`{"properties":{"a":true},"additionalProperties":{"type":"integer"}}`,
		`{"patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":false}`,
		`{"minLength":2,"maxLength":3}`,
		`{"pattern":"^a"}`,
		`{"enum":["a","abc",null,true]}`,
		`{"const":"a"}`,
		`{"const":false}`,
		`{"minimum":0,"maximum":10}`,
		`{"exclusiveMinimum":0,"exclusiveMaximum":2}`,
		`{"multipleOf":0.5}`,
		`{"allOf":[{"type":"object"},{"required":["a"]}]}`,
		`{"anyOf":[{"type":"string"},{"type":"integer"}]}`,
		`{"oneOf":[{"type":"integer"},{"type":"number"}]}`,
		`{"not":{"type":"string"}}`,
		`{"if":{"properties":{"kind":{"const":"cat"}}},"then":{"required":["lives"]},"else":{"required":["bark"]}}`,
		`{"$defs":{"n":{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`,
		`{"allOf":[{"properties":{"a":{"$ref":"#"}}}],"type":["object","integer"]}`,
		`{"type":"object","properties":{"records":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"ssn":{"type":"string","x-sensitive":true}},"required":["id"]}}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"integer"}],"additionalItems":false}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","additionalItems":{"type":"integer"}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","items":{"type":"string"}}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","minimum":0,"exclusiveMinimum":true}`,
		`{"title":"t","description":"d","default":1,"examples":[1],"readOnly":true,"deprecated":true,"$comment":"c"}`,
	}
	for _, schema := range schemas {
		cs := compileForTest(t, schema)
		require.NotNil(t, cs.fast, "the fast path covers %s", schema)
		for _, inst := range instances {
			tr, err := readTree(inst)
			require.NoError(t, err, inst)
			want := cs.Validate(tr.Value(0)) == nil
			assert.Equal(t, want, cs.fast.valid(tr, 0), "schema %s, instance %s", schema, inst)
			assert.Equal(t, want, cs.Conforms(tr, 0), "schema %s, instance %s", schema, inst)
		}
	}
}

// TestFastPathDeclines lists schemas the fast path must leave to the
// library: keywords it does not read, and in-place cycles.
func TestFastPathDeclines(t *testing.T) {
	for _, schema := range []string{
		`{"uniqueItems":true}`,
		`{"contains":{"type":"integer"}}`,
		`{"minProperties":1}`,
		`{"maxProperties":1}`,
		`{"propertyNames":{"maxLength":3}}`,
		`{"dependentRequired":{"a":["b"]}}`,
		`{"dependentSchemas":{"a":{"required":["b"]}}}`,
		`{"unevaluatedProperties":false}`,
		`{"unevaluatedItems":false}`,
		`{"enum":[1,2]}`,
		`{"const":{"a":1}}`,
		`{"$defs":{"a":{"$dynamicAnchor":"a"}},"$dynamicRef":"#a"}`,
		`{"allOf":[{"$ref":"#"}]}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"type":"integer"}},"$ref":"#/definitions/a"}`,
		`{"properties":{"deep":{"uniqueItems":true}}}`,
	} {
		cs := compileForTest(t, schema)
		assert.Nil(t, cs.fast, "no fast path for %s", schema)
	}
}

// TestFastFieldsExist fails when jsonschema/v6 renames or drops a field
// the fast path reads, which would otherwise pass unnoticed.
func TestFastFieldsExist(t *testing.T) {
	typ := reflect.TypeFor[jsonschema.Schema]()
	for name := range fastFields {
		_, ok := typ.FieldByName(name)
		assert.True(t, ok, "jsonschema.Schema has no field %s", name)
	}
}

// FuzzFastPath checks that the fast path never calls valid what the
// library calls invalid: that is the direction that would let output
// past rule (e).
func FuzzFastPath(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"integer","minimum":1}},"required":["a"]}`, `{"a":1}`)
	f.Add(`{"items":{"enum":["a","b"]},"maxItems":2}`, `["a","c"]`)
	f.Add(`{"anyOf":[{"type":"string","maxLength":1},{"not":{"type":"null"}}]}`, `"ab"`)
	f.Add(`{"if":{"type":"integer"},"then":{"multipleOf":2},"else":{"pattern":"x"}}`, `3`)
	f.Add(`{"patternProperties":{"^a":{"type":"string"}},"additionalProperties":false}`, `{"ab":"x","a":"y"}`)
	f.Fuzz(func(t *testing.T, schema, instance string) {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
		if err != nil {
			return
		}
		cs, err := Compile(doc, "t", nil)
		if err != nil || cs.fast == nil {
			return
		}
		tr, err := readTree(instance)
		if err != nil {
			return
		}
		if cs.fast.valid(tr, 0) && cs.Validate(tr.Value(0)) != nil {
			t.Fatalf("the fast path passed what the library rejects: schema %s, instance %s", schema, instance)
		}
	})
}
