package engine

import (
	"errors"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	jskind "github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// This file validates a value against a compiled schema and describes the
// first failure, with the JSON Pointers of the value and of the keyword.

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
	// One pass over the bytes: strings.ContainsAny builds a set on every
	// call, and every withheld node's pointer asks.
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		plain = s[i] != '~' && s[i] != '/'
	}
	if plain {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
