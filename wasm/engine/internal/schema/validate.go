package schema

import (
	"errors"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	jskind "github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/veilmcp/veil/wasm/engine/internal/jsontree"
)

// This file validates a value against a compiled schema and describes the
// first failure, with the JSON Pointers of the value and of the keyword.

// Conforms reports whether node i of tr is valid against the schema: by
// the fast path where it applies and says so, by the library otherwise.
func (cs *Schema) Conforms(tr Tree, i int) bool {
	if cs.FastValid(tr, i) {
		return true
	}
	return cs.Validate(tr.Value(i)) == nil
}

// FastValid reports whether the fast path (fastvalidate.go) finds node i
// of tr valid. False says nothing: the schema has no fast path, or the
// library has the last word.
func (cs *Schema) FastValid(tr Tree, i int) bool {
	return cs.fast != nil && cs.fast.valid(tr, i)
}

// Validate validates a decoded value and describes the first failure.
func (cs *Schema) Validate(v any) *Failure {
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
			schemaPath += "/" + jsontree.EscapePointer(k)
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
		b.WriteString(jsontree.EscapePointer(t))
	}
	return b.String()
}
