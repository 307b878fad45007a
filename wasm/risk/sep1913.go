package risk

import (
	"bytes"
	_ "embed"
	"errors"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/veilmcp/veil/wasm/internal/jsonx"
)

// sep1913Schema is the JSON Schema that SEP-1913 ("Trust and Sensitivity
// Annotations", modelcontextprotocol/modelcontextprotocol#1913, by Sam
// Morrow and Robert Reichel) adds to MCP's ToolAnnotations, as the SEP
// publishes it. We only placed its definitions under $defs, where its own
// $refs point, and made ToolAnnotations the root.
//
//go:embed sep1913.schema.json
var sep1913Schema []byte

// sep1913URL names the schema inside the compiler; nothing is fetched.
const sep1913URL = "https://schema.veil.invalid/sep-1913.json"

var (
	sepOnce   sync.Once
	sepSchema *jsonschema.Schema
	sepErr    error
	printer   = message.NewPrinter(language.English)
)

// compiledSEP1913 compiles the schema once per process, on first use, so
// pages that use none of SEP-1913's keys never pay for it.
func compiledSEP1913() (*jsonschema.Schema, error) {
	sepOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(sep1913Schema))
		if err != nil {
			sepErr = err
			return
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.UseLoader(jsonx.NoLoader{})
		if err := c.AddResource(sep1913URL, doc); err != nil {
			sepErr = err
			return
		}
		sepSchema, sepErr = c.Compile(sep1913URL)
	})
	return sepSchema, sepErr
}

// validateSEP1913 validates the SEP-1913 members of a tool's annotations
// and names the deepest failing key.
func validateSEP1913(v map[string]any) error {
	s, err := compiledSEP1913()
	if err != nil {
		return &Error{"annotations", "cannot be checked: " + err.Error()}
	}
	err = s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &Error{"annotations", "are invalid: " + err.Error()}
	}
	leaf := deepestLeaf(ve)
	key := "annotations"
	for _, tok := range leaf.InstanceLocation {
		if tok != "" && strings.Trim(tok, "0123456789") == "" {
			key += "[" + tok + "]"
		} else {
			key += "." + tok
		}
	}
	return &Error{key, "is invalid: " + leaf.ErrorKind.LocalizedString(printer)}
}

// deepestLeaf returns the leaf error at the deepest instance location, the
// first of those: of oneOf's branches, the one that got furthest into the
// value says best what is wrong.
func deepestLeaf(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return e
	}
	var best *jsonschema.ValidationError
	for _, c := range e.Causes {
		l := deepestLeaf(c)
		if best == nil || len(l.InstanceLocation) > len(best.InstanceLocation) {
			best = l
		}
	}
	return best
}
