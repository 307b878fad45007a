package engine

import (
	"strings"
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

// TestMediaOnceTheSessionWithheld: once an output withheld a key, a later
// tool's result whose only content is an image (a QR code drawn from the
// key) has it withheld, whatever its tool declares, also where the result
// spells its member names with escapes or comes as JSON text; a tool that
// says its media are safe keeps it, and before anything was withheld the
// image passes as it came.
func TestMediaOnceTheSessionWithheld(t *testing.T) {
	const png = "iVBORw0KGgoQRCODE="
	const image = `{"type":"image","data":"` + png + `","mimeType":"image/png"}`
	tests := []struct {
		name, def string
		o         Outcome
		held      bool
	}{
		{"an image alone", `{"name":"show_qr","description":"d"}`, Outcome{Kind: Returned, Data: `{"content":[` + image + `]}`}, true},
		{"member names escaped", `{"name":"show_qr","description":"d"}`, Outcome{Kind: Returned, Data: `{"\u0063ontent":[{"typ\u0065":"image","data":"` + png + `","mimeType":"image/png"}]}`}, true},
		{"as JSON text", `{"name":"show_qr","description":"d"}`, Outcome{Kind: Text, Data: `{"content":[` + image + `]}`}, true},
		{"beside text", `{"name":"show_qr","description":"d"}`, Outcome{Kind: Returned, Data: `{"content":[{"type":"text","text":"scan this"},` + image + `]}`}, true},
		{"safe media", `{"name":"show_qr","description":"d","_meta":{"dev.veil/safeMedia":true}}`, Outcome{Kind: Returned, Data: `{"content":[` + image + `]}`}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fresh := newTestEngine(t)
			mustRegister(t, fresh, tt.def)
			res := fresh.OutputOf("show_qr", tt.o)
			require.Nil(t, res.Err)
			assert.True(t, res.Unchanged || strings.Contains(res.Agent, png), "before anything was withheld: %s", res.Agent)

			e := sessionEngine(t)
			mustRegister(t, e, tt.def)
			res = e.OutputOf("show_qr", tt.o)
			require.Nil(t, res.Err)
			if !tt.held {
				assert.True(t, res.Unchanged || strings.Contains(res.Agent, png), "kept: %s", res.Agent)
				return
			}
			assert.False(t, res.Unchanged)
			assert.NotContains(t, res.Agent, png, "the image once the session withheld a key")
			_, m := decodeView(t, res.Agent)
			assert.NotEmpty(t, m.Withheld, "the view says what it withheld")
		})
	}
}
