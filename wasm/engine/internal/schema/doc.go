// Package schema is the engine's JSON Schema stage: it compiles a tool's
// inputSchema or outputSchema once at registration (schema.go, with the
// tree validator's form, fastcompile.go), says for each location of an
// instance whether the schema declares it and marks it x-sensitive
// (sensitivity.go, input.go), and validates values against it
// (validate.go; fastvalidate.go on a parsed tree, with jsonschema/v6 as
// the authority), running its patterns on RE2 or, bounded, on the page's
// RegExp (regexp.go).
//
// It reads a parsed output through the small [Tree] interface and knows
// nothing of the engine's views, matching or vault.
package schema
