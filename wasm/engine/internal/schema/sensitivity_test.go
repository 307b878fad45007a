package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/engine/internal/jsontree"
)

// TestKindPinnedByTheSchema: the kinds a location takes, by where its
// sensitivity lies below it.
func TestKindPinnedByTheSchema(t *testing.T) {
	tests := []struct {
		r    Reach
		k    jsontree.Kind
		want bool
	}{
		{reachObject, jsontree.Object, true},
		{reachObject, jsontree.Array, false},
		{reachObject, jsontree.String, false},
		{reachObject, jsontree.Number, false},
		{reachObject, jsontree.Bool, false},
		{reachObject, jsontree.Null, true},
		{reachArray, jsontree.Array, true},
		{reachArray, jsontree.Object, false},
		{reachObject | reachArray, jsontree.Array, true},
		{reachObject | reachArray, jsontree.Object, true},
		{reachObject | reachArray, jsontree.String, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.r.Takes(tt.k), "reach %d takes %s", tt.r, tt.k)
	}
}

// TestSensitiveInput: the pointers of an input's x-sensitive values, as
// the confirmation hides them, wherever the schema reaches them.
func TestSensitiveInput(t *testing.T) {
	tests := []struct {
		name, schema, input string
		want                []string
	}{
		{"none marked", `{"properties":{"a":{"type":"string"}}}`, `{"a":"x"}`, nil},
		{"a property", `{"properties":{"pw":{"x-sensitive":true},"user":{}}}`, `{"user":"u","pw":"p"}`, []string{"/pw"}},
		{"writeOnly", `{"properties":{"pw":{"writeOnly":true}}}`, `{"pw":"p"}`, []string{"/pw"}},
		{"password format", `{"properties":{"pw":{"type":"string","format":"password"}}}`, `{"pw":"p"}`, []string{"/pw"}},
		{"items", `{"properties":{"keys":{"items":{"x-sensitive":true}}}}`, `{"keys":["a","b"]}`, []string{"/keys/0", "/keys/1"}},
		{"a name to escape", `{"properties":{"a/b":{"x-sensitive":true}}}`, `{"a/b":"p"}`, []string{"/a~1b"}},
		{"by $ref", `{"$defs":{"s":{"x-sensitive":true}},"properties":{"k":{"$ref":"#/$defs/s"}}}`, `{"k":1}`, []string{"/k"}},
		{"member names", `{"propertyNames":{"x-sensitive":true}}`, `{"k":1}`, []string{""}},
		{"dependentSchemas when present", `{"dependentSchemas":{"mode":{"properties":{"pin":{"x-sensitive":true}}}}}`, `{"mode":"a","pin":"1"}`, []string{"/pin"}},
		{"dependentSchemas when absent", `{"dependentSchemas":{"mode":{"properties":{"pin":{"x-sensitive":true}}}}}`, `{"pin":"1"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := compileForTest(t, tt.schema)
			tr, err := readTree(tt.input)
			require.NoError(t, err)
			assert.Equal(t, tt.want, cs.SensitiveInput(tr))
		})
	}
	var none *Schema
	assert.Nil(t, none.SensitiveInput(nil), "no schema marks nothing")
}

// TestSensitiveNames: the names of the properties that hold an
// x-sensitive at or below them, at any depth, and no others.
func TestSensitiveNames(t *testing.T) {
	cs := compileForTest(t, `{"properties":{"data":{"properties":{"ssn":{"x-sensitive":true},"name":{}}},"id":{},"keys":{"items":{"properties":{"apiKey":{"writeOnly":true}}}}}}`)
	assert.Equal(t, []string{"apiKey", "data", "keys", "ssn"}, cs.SensitiveNames())
	assert.True(t, cs.AnySensitive())
	assert.Empty(t, compileForTest(t, `{"properties":{"a":{}}}`).SensitiveNames())
}
