package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/veilmcp/veil/wasm/leakcheck"
)

// assertWithheld fails the test when the secret is anywhere in what an
// agent reads, in any form a reader decodes (package leakcheck): in the
// raw text, in any key, string or number of it read as JSON, also where a
// string holds JSON text of its own, escaped in any notation, HTML- or
// percent-encoded, at any depth.
func assertWithheld(t testing.TB, view, secret, what string) bool {
	t.Helper()
	if where, ok := leakcheck.Find(view, secret); ok {
		return assert.Fail(t, "a withheld value reached the agent",
			"%s: %q found in %s of the agent view %q", what, secret, where, view)
	}
	return true
}
