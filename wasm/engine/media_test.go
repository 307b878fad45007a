package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/leakcheck"
)

// TestMediaBesideWithheld: an image, audio, a blob or an item of a type
// the engine does not know, in a result from which something was
// withheld, is withheld too (a QR code of the withheld secret); a text
// item or a link stays; a tool that says its media are safe keeps them,
// and a result that withholds nothing keeps them.
func TestMediaBesideWithheld(t *testing.T) {
	const result = `{"content":[{"type":"text","text":"scan this"},` +
		`{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},` +
		`{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"},` +
		`{"type":"resource","resource":{"uri":"file:///k.bin","blob":"AAEC"}},` +
		`{"type":"resource","resource":{"uri":"file:///k.txt","text":"notes"}},` +
		`{"type":"resource_link","uri":"https://app.example/k","name":"k"},` +
		`{"type":"hologram","data":"x"}],` +
		`"structuredContent":{"otp":"JBSWY3DPEHPK3PXP","label":"Acme"}}`
	schema := `"outputSchema":{"type":"object","properties":{"otp":{"type":"string","x-sensitive":true},"label":{"type":"string"}}}`
	tests := []struct {
		name, def string
		held      []string
	}{
		{"withheld beside", `{"name":"t","description":"d",` + schema + `}`, []string{"/structuredContent/otp", "/content/1", "/content/2", "/content/3", "/content/6"}},
		{"safe media", `{"name":"t","description":"d",` + schema + `,"_meta":{"dev.veil/safeMedia":true}}`, []string{"/structuredContent/otp"}},
	}
	for _, tt := range tests {
		e := newTestEngine(t)
		mustRegister(t, e, tt.def)
		res := e.OutputOf("t", Outcome{Kind: Returned, Data: result})
		require.Nil(t, res.Err)
		_, m := decodeView(t, res.Agent)
		assert.ElementsMatch(t, tt.held, m.Withheld, tt.name)
		assert.Contains(t, res.Agent, "scan this", tt.name)
		assert.Contains(t, res.Agent, "notes", tt.name)
		assert.Contains(t, res.Agent, "resource_link", tt.name)
	}
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"t","description":"d"}`)
	res := e.OutputOf("t", Outcome{Kind: Returned, Data: result})
	assert.True(t, res.Unchanged, "nothing withheld, nothing taken: %s", res.Agent)

	_, err := e.Register(`{"name":"u","description":"d","_meta":{"dev.veil/safeMedia":"yes"}}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `_meta["dev.veil/safeMedia"] of tool "u" must be a boolean`)
}

// TestPointersNameNoWithheldKey: a withheld member whose name the agent
// does not read in the schemas (a map keyed by session tokens) is named by
// its position in _meta; the user's item keeps the real name.
func TestPointersNameNoWithheldKey(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"t","description":"d","outputSchema":{"type":"object","properties":{"user":{"type":"string"},"sessions":{"type":"object","additionalProperties":{"x-sensitive":true}}}}}`)
	res := e.OutputOf("t", Outcome{Kind: Returned, Data: `{"user":"ada","sessions":{"tok_A1b2C3d4e5":{"ip":"10.0.0.7"},"tok_Z9y8X7w6v5":{"ip":"10.0.0.9"}}}`})
	require.Nil(t, res.Err)
	_, m := decodeView(t, res.Agent)
	assert.Equal(t, []string{"/sessions/#0", "/sessions/#1"}, m.Withheld)
	for _, tok := range []string{"tok_A1b2C3d4e5", "tok_Z9y8X7w6v5"} {
		_, found := leakcheck.Find(res.Agent, tok)
		assert.False(t, found, "%s in the view %s", tok, res.Agent)
	}
	var labels []string
	for _, it := range e.Items() {
		labels = append(labels, it.Label)
	}
	assert.ElementsMatch(t, []string{"tok_A1b2C3d4e5", "tok_Z9y8X7w6v5"}, labels, "the user sees the real names")
}
