package risk

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseAnnotationsErrors(t *testing.T) {
	tests := []struct {
		name, raw string
		wantKey   string
		wantMsg   string
	}{
		{"not an object", `[]`, "annotations", "must be an object, got array"},
		{"not JSON", `{`, "annotations", "is not valid JSON"},
		{"title number", `{"title":5}`, "annotations.title", "must be a string, got number"},
		{"MCP hint as string", `{"readOnlyHint":"true"}`, "annotations.readOnlyHint", "must be a boolean, got string"},
		{"destructiveHint number", `{"destructiveHint":1}`, "annotations.destructiveHint", "must be a boolean"},
		{"idempotentHint object", `{"idempotentHint":{}}`, "annotations.idempotentHint", "got object"},
		{"openWorldHint array", `{"openWorldHint":[]}`, "annotations.openWorldHint", "got array"},
		{"WebMCP untrustedContentHint", `{"untrustedContentHint":"yes"}`, "annotations.untrustedContentHint", "must be a boolean"},
		{"WebMCP consequentialHint", `{"consequentialHint":0}`, "annotations.consequentialHint", "must be a boolean"},
		{"sensitiveHint", `{"sensitiveHint":"true"}`, "annotations.sensitiveHint", "must be a boolean"},
		{"SEP-1984 aiProcessingHint", `{"aiProcessingHint":"no"}`, "annotations.aiProcessingHint", "must be a boolean"},
		{"SEP-1984 slowExecutionHint", `{"slowExecutionHint":2}`, "annotations.slowExecutionHint", "must be a boolean"},
		{"SEP-1984 resourceIntensiveHint", `{"resourceIntensiveHint":[]}`, "annotations.resourceIntensiveHint", "must be a boolean"},
		{"SEP-1984 sensitiveDataHint", `{"sensitiveDataHint":"pii"}`, "annotations.sensitiveDataHint", "must be a boolean"},
		{"SEP-1984 privilegedAccessHint", `{"privilegedAccessHint":{}}`, "annotations.privilegedAccessHint", "must be a boolean"},
		{"SEP-1984 reversibleHint", `{"reversibleHint":"maybe"}`, "annotations.reversibleHint", "must be a boolean"},
		{"maliciousActivityHint", `{"maliciousActivityHint":"true"}`, "annotations.maliciousActivityHint", "is invalid"},
		{"attribution not array", `{"attribution":"https://a.example"}`, "annotations.attribution", "is invalid"},
		{"attribution item", `{"attribution":["ok",7]}`, "annotations.attribution[1]", "is invalid"},
		{"destination unknown", `{"inputMetadata":{"destination":"everywhere","sensitivity":"none","outcomes":"benign"}}`,
			"annotations.inputMetadata.destination", "is invalid"},
		{"destination array item", `{"inputMetadata":{"destination":["user","moon"],"sensitivity":"none","outcomes":"benign"}}`,
			"annotations.inputMetadata.destination[1]", "must be one of"},
		{"inputMetadata missing outcomes", `{"inputMetadata":{"destination":"user","sensitivity":"none"}}`,
			"annotations.inputMetadata", "outcomes"},
		{"inputMetadata extra key", `{"inputMetadata":{"destination":"user","sensitivity":"none","outcomes":"benign","speed":1}}`,
			"annotations.inputMetadata", "speed"},
		{"outcomes unknown", `{"inputMetadata":{"destination":"user","sensitivity":"none","outcomes":"fatal"}}`,
			"annotations.inputMetadata.outcomes", "is invalid"},
		{"source unknown", `{"returnMetadata":{"source":"rumour","sensitivity":"none"}}`,
			"annotations.returnMetadata.source", "is invalid"},
		{"sensitivity unknown class", `{"returnMetadata":{"source":"user","sensitivity":"secret"}}`,
			"annotations.returnMetadata.sensitivity", "is invalid"},
		{"regulated without scopes", `{"returnMetadata":{"source":"user","sensitivity":{"regulated":{}}}}`,
			"annotations.returnMetadata.sensitivity.regulated", "scopes"},
		{"regulated scope not string", `{"returnMetadata":{"source":"user","sensitivity":[{"regulated":{"scopes":[1]}}]}}`,
			"annotations.returnMetadata.sensitivity[0].regulated.scopes[0]", "is invalid"},
		{"returnMetadata not object", `{"returnMetadata":"internal"}`, "annotations.returnMetadata", "is invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseAnnotations([]byte(tt.raw))
			var re *Error
			require.ErrorAs(t, err, &re, "ParseAnnotations(%s)", tt.raw)
			assert.Equal(t, tt.wantKey, re.Key, "ParseAnnotations(%s) key", tt.raw)
			assert.Contains(t, re.Problem, tt.wantMsg, "ParseAnnotations(%s) problem", tt.raw)
		})
	}
}

func TestParseAnnotationsNormalizes(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"none", ``, `{}`},
		{"null", `null`, `{}`},
		{"unknown keys pass through", `{"custom":{"x":1},"debugging":true,"n":1.50}`, `{"custom":{"x":1},"debugging":true,"n":1.50}`},
		{"null is no claim", `{"slowExecutionHint":null,"readOnlyHint":true,"inputMetadata":null}`, `{"readOnlyHint":true}`},
		{"MCP defaults are not filled in", `{"title":"T"}`, `{"title":"T"}`},
		{"SEP-1913 forms kept", `{"inputMetadata":{"destination":["internal","public"],"sensitivity":[{"regulated":{"scopes":["GDPR"]}},"pii"],"outcomes":"irreversible"}}`,
			`{"inputMetadata":{"destination":["internal","public"],"sensitivity":[{"regulated":{"scopes":["GDPR"]}},"pii"],"outcomes":"irreversible"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got, err := ParseAnnotations([]byte(tt.raw))
			require.NoError(t, err, "ParseAnnotations(%s)", tt.raw)
			assert.JSONEq(t, tt.want, string(got), "ParseAnnotations(%s)", tt.raw)
		})
	}
}

func TestParseAnnotationsReads(t *testing.T) {
	a, _, err := ParseAnnotations([]byte(`{
		"title": "Send",
		"readOnlyHint": false, "openWorldHint": true, "reversibleHint": false,
		"maliciousActivityHint": false,
		"attribution": ["mcp://mail.example/outbox"],
		"inputMetadata": {"destination": "public", "sensitivity": ["pii", "user"], "outcomes": ["consequential", "irreversible"]},
		"returnMetadata": {"source": "system", "sensitivity": {"regulated": {"scopes": ["GDPR", "HIPAA"]}}}
	}`))
	require.NoError(t, err)
	assert.Equal(t, "Send", a.Title)
	assert.False(t, a.IsReadOnly())
	assert.True(t, a.IsOpenWorld())
	require.NotNil(t, a.Reversible, "an explicit false is a claim")
	assert.False(t, *a.Reversible)
	assert.Nil(t, a.SlowExecution, "unset is no claim")
	assert.Equal(t, []string{"mcp://mail.example/outbox"}, a.Attribution)
	assert.Equal(t, &InputMetadata{
		Destination: []string{"public"},
		Sensitivity: []DataClass{{Name: "pii"}, {Name: "user"}},
		Outcomes:    []string{"consequential", "irreversible"},
	}, a.Input)
	assert.Equal(t, &ReturnMetadata{
		Source:      []string{"system"},
		Sensitivity: []DataClass{{Name: "regulated", Scopes: []string{"GDPR", "HIPAA"}}},
	}, a.Return)
	assert.Equal(t, []string{"regulated"}, a.Classes())
}

func TestMCPDefaults(t *testing.T) {
	a, _, err := ParseAnnotations(nil)
	require.NoError(t, err)
	assert.False(t, a.IsReadOnly(), "readOnlyHint default")
	assert.True(t, a.IsDestructive(), "destructiveHint default")
	assert.False(t, a.IsIdempotent(), "idempotentHint default")
	assert.True(t, a.IsOpenWorld(), "openWorldHint default")

	a, _, err = ParseAnnotations([]byte(`{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`))
	require.NoError(t, err)
	assert.True(t, a.IsReadOnly())
	assert.False(t, a.IsDestructive())
	assert.True(t, a.IsIdempotent())
	assert.False(t, a.IsOpenWorld())
}

func TestParseMeta(t *testing.T) {
	tests := []struct {
		name, raw string
		want      Meta
		wantJSON  string // "" for no _meta
		wantKey   string // non-empty for an error
	}{
		{"absent", ``, Meta{}, "", ""},
		{"null", `null`, Meta{}, "", ""},
		{"all hints", `{"mcp.dev/effect":"external","mcp.dev/idempotent":true,"mcp.dev/requiresConfirmation":false,"mcp.dev/resultSensitivity":"restricted","com.example/x":[1]}`,
			Meta{Effect: "external", Idempotent: ptr(true), RequiresConfirmation: ptr(false), ResultSensitivity: "restricted"},
			`{"mcp.dev/effect":"external","mcp.dev/idempotent":true,"mcp.dev/requiresConfirmation":false,"mcp.dev/resultSensitivity":"restricted","com.example/x":[1]}`, ""},
		{"null hint dropped", `{"mcp.dev/effect":null}`, Meta{}, `{}`, ""},
		{"not an object", `"x"`, Meta{}, "", "_meta"},
		{"effect unknown", `{"mcp.dev/effect":"remove"}`, Meta{}, "", `_meta["mcp.dev/effect"]`},
		{"effect number", `{"mcp.dev/effect":1}`, Meta{}, "", `_meta["mcp.dev/effect"]`},
		{"idempotent string", `{"mcp.dev/idempotent":"yes"}`, Meta{}, "", `_meta["mcp.dev/idempotent"]`},
		{"requiresConfirmation number", `{"mcp.dev/requiresConfirmation":1}`, Meta{}, "", `_meta["mcp.dev/requiresConfirmation"]`},
		{"resultSensitivity unknown", `{"mcp.dev/resultSensitivity":"secret"}`, Meta{}, "", `_meta["mcp.dev/resultSensitivity"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, got, err := ParseMeta([]byte(tt.raw))
			if tt.wantKey != "" {
				var re *Error
				require.ErrorAs(t, err, &re, "ParseMeta(%s)", tt.raw)
				assert.Equal(t, tt.wantKey, re.Key, "ParseMeta(%s) key", tt.raw)
				return
			}
			require.NoError(t, err, "ParseMeta(%s)", tt.raw)
			assert.Equal(t, tt.want, m, "ParseMeta(%s)", tt.raw)
			if tt.wantJSON == "" {
				assert.Nil(t, got, "ParseMeta(%s) JSON", tt.raw)
			} else {
				assert.JSONEq(t, tt.wantJSON, string(got), "ParseMeta(%s) JSON", tt.raw)
			}
		})
	}
}

func TestRefine(t *testing.T) {
	static := mustParse(t, `{"sensitiveHint":true,"openWorldHint":true,"title":"Read",
		"returnMetadata":{"source":["internal","untrustedPublic"],"sensitivity":["none","financial"]}}`)
	static.Meta.Effect = "read"
	call := mustParse(t, `{"sensitiveHint":false,"openWorldHint":false,"returnMetadata":{"source":"internal","sensitivity":"financial"}}`)
	got := static.Refine(call)
	assert.True(t, is(got.Sensitive), "resolve cannot lower sensitiveHint")
	assert.False(t, got.IsOpenWorld(), "resolve narrows openWorldHint")
	assert.Equal(t, []string{"internal"}, got.Return.Source, "resolve narrows returnMetadata")
	assert.Equal(t, "Read", got.Title, "keys resolve leaves out stay")
	assert.Equal(t, "read", got.Meta.Effect, "_meta hints stay the tool's")
	assert.True(t, got.Has("openWorldHint"))
	assert.Same(t, static, static.Refine(nil))
	assert.True(t, is(static.OpenWorld), "Refine leaves the tool's annotations alone")

	raised := mustParse(t, `{}`).Refine(mustParse(t, `{"sensitiveHint":true}`))
	assert.True(t, is(raised.Sensitive), "resolve can raise sensitiveHint")
}

func TestClasses(t *testing.T) {
	a := mustParse(t, `{"sensitiveDataHint":true,"returnMetadata":{"source":"user","sensitivity":["pii","credentials","pii"]}}`)
	a.Meta.ResultSensitivity = "confidential"
	assert.Equal(t, []string{"pii", "credentials", "confidential", "sensitiveDataHint"}, a.Classes())
	assert.Empty(t, mustParse(t, `{"sensitiveDataHint":false}`).Classes())
}

func mustParse(t testing.TB, raw string) *Annotations {
	t.Helper()
	a, _, err := ParseAnnotations([]byte(raw))
	require.NoError(t, err, "ParseAnnotations(%s)", raw)
	return a
}

func ptr[T any](v T) *T { return &v }
