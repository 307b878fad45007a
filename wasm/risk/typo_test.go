package risk

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResembles(t *testing.T) {
	tests := []struct {
		key, want string
	}{
		{"sensitveHint", "sensitiveHint"},
		{"sensitivehint", "sensitiveHint"},
		{"SensitiveHint", "sensitiveHint"},
		{"sensitive_hint", "sensitiveHint"},
		{"senstiveHnit", "sensitiveHint"},
		{"readonlyHint", "readOnlyHint"},
		{"destructivHint", "destructiveHint"},
		{"openWorldhint", "openWorldHint"},
		{"returnMetaData", "returnMetadata"},
		{"tilte", "title"},
		{"maliciousActivityHnit", "maliciousActivityHint"},
	}
	for _, tt := range tests {
		got, ok := Resembles(tt.key, annotationKeys...)
		assert.True(t, ok, "Resembles(%q)", tt.key)
		assert.Equal(t, tt.want, got, "Resembles(%q)", tt.key)
	}
	for _, key := range []string{"sensitiveHint", "category", "x-vendor", "openWorld", "sensitiveDataHint", "owner", "cost"} {
		_, ok := Resembles(key, annotationKeys...)
		assert.False(t, ok, "Resembles(%q) of a key that is no typo", key)
	}
	for _, tt := range []struct{ key, want string }{
		{"mcp.dev/requireConfirmation", MetaRequiresConfirmation},
		{"mcp.dev/RequiresConfirmation", MetaRequiresConfirmation},
		{"mcp_dev/effect", MetaEffect},
		{"mcp.dev/efect", MetaEffect},
		{"mcp.dev/resultSensitvity", MetaResultSensitivity},
	} {
		got, ok := Resembles(tt.key, metaKeys...)
		assert.True(t, ok, "Resembles(%q)", tt.key)
		assert.Equal(t, tt.want, got)
	}
}

// TestTyposFailClosed: a near miss of a hint rejects the declaration,
// naming the key and the one it resembles; other unknown keys pass and
// are listed.
func TestTyposFailClosed(t *testing.T) {
	_, _, err := ParseAnnotations([]byte(`{"sensitveHint":true}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "annotations.sensitveHint")
	assert.Contains(t, err.Error(), `"sensitiveHint"`)

	_, _, err = ParseMeta([]byte(`{"mcp.dev/requireConfirmation":true}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `_meta["mcp.dev/requireConfirmation"]`)
	assert.Contains(t, err.Error(), `"mcp.dev/requiresConfirmation"`)

	a, out, err := ParseAnnotations([]byte(`{"sensitiveHint":true,"vendorScore":3,"category":"x"}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"category", "vendorScore"}, a.Unknown)
	assert.JSONEq(t, `{"sensitiveHint":true,"vendorScore":3,"category":"x"}`, string(out), "unknown keys pass through")
}
