package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/engine/internal/jsontree"
	"github.com/veilmcp/veil/wasm/leakcheck"
)

// assertNoDecodedLeak checks, with the independent decoder of package
// leakcheck, that no decoding of the agent view holds any of secrets.
func assertNoDecodedLeak(t testing.TB, agent string, secrets ...string) bool {
	t.Helper()
	ok := true
	for _, s := range secrets {
		if where, found := leakcheck.Find(agent, s); found {
			ok = assert.Fail(t, "a withheld value reached the agent", "%q found in %s of the view %s", s, where, agent)
		}
	}
	return ok
}

// canonicalSecrets are withheld values of the kinds encoders change:
// non-ASCII, markup and escape characters, a space, digits.
var canonicalSecrets = []string{
	"Müller#4471",
	`p&<w>"d/'z\q`,
	"tok>91&x=1",
	"correct horse ✓ 🐎",
	"Ωμέγα-ключ",
	"sk_live_Q9x2",
}

// TestEchoesThroughEncoders withholds a value at an x-sensitive location
// and echoes it elsewhere in the output written by one encoder, or by two
// one after the other (JSON text in a JSON string, a URL in HTML): in a
// text item, in a record's JSON text in a text item, in another field, in
// _meta and as a member name. No decoding of the view may hold the value,
// and the visible values around each echo stay.
func TestEchoesThroughEncoders(t *testing.T) {
	identity := encoder{"as it is", func(s string) string { return s }}
	outer := append([]encoder{identity}, encoders...)
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"t","description":"d","outputSchema":{"type":"object","properties":{"pw":{"type":"string","x-sensitive":true}}}}`)
	for _, secret := range canonicalSecrets {
		for _, e1 := range encoders {
			for _, e2 := range outer {
				echo := e2.encode(e1.encode(secret))
				name := fmt.Sprintf("%s/%s/%s", secret, e1.name, e2.name)
				placements := map[string]any{
					"text item": map[string]any{
						"content":           []any{map[string]any{"type": "text", "text": "KEEP-before " + echo + " KEEP-after"}},
						"structuredContent": map[string]any{"pw": secret},
					},
					"record JSON in a text item": map[string]any{
						"content":           []any{map[string]any{"type": "text", "text": `{"user":"KEEP-user","pw":"` + echo + `"}`}},
						"structuredContent": map[string]any{"pw": secret},
					},
					"another field": map[string]any{"pw": secret, "note": "KEEP-before " + echo + " KEEP-after"},
					"_meta": map[string]any{
						"content":           []any{map[string]any{"type": "text", "text": "KEEP-text"}},
						"structuredContent": map[string]any{"pw": secret},
						"_meta":             map[string]any{"trace": "KEEP-before " + echo},
					},
					"member name": map[string]any{"pw": secret, "index": map[string]any{echo: "x", "KEEP-name": "y"}},
				}
				for where, out := range placements {
					str := stringify(t, out)
					res := e.OutputOf("t", Outcome{Kind: Returned, Data: str})
					require.Nil(t, res.Err, "%s, %s: %s", name, where, str)
					if !assertNoDecodedLeak(t, res.Agent, secret) {
						t.Logf("%s, %s: output %s", name, where, str)
						continue
					}
					for _, keep := range []string{"KEEP-before", "KEEP-after", "KEEP-user", "KEEP-name", "KEEP-text"} {
						if strings.Contains(str, keep) {
							if _, found := leakcheck.Find(res.Agent, keep); !found {
								assert.Fail(t, "a visible value is gone", "%s, %s: %q is not in %s", name, where, keep, res.Agent)
							}
						}
					}
					e.forgetCall(res.Call)
				}
			}
		}
	}
}

// TestEchoesOfNumbers: a withheld number is found by value wherever it
// stands whole, written as a string or a number, in any notation of it;
// a withheld string of digits is found as a number too. A visible value
// that merely holds a withheld number's digits keeps them.
func TestEchoesOfNumbers(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"t","description":"d","outputSchema":{"type":"object","properties":{"pin":{"x-sensitive":true}}}}`)
	tests := []struct {
		name    string
		data    string
		secrets []string
		visible []string
	}{
		{"a number echoed as a string", `{"pin":4471,"note":"your pin is 4471."}`, []string{"4471"}, []string{"your pin is ."}},
		{"a number echoed as a number", `{"pin":4471,"copy":4471,"other":5}`, []string{"4471"}, []string{`"other":5`}},
		{"a number echoed as 4471.0", `{"pin":4471,"note":"pin=4471.0"}`, []string{"4471"}, []string{"pin="}},
		{"a number echoed in exponent form", `{"pin":123456789,"note":"n=1.23456789e8","n":1.23456789E+8}`, []string{"123456789"}, []string{"n="}},
		{"a fraction echoed", `{"pin":12.75,"note":"12.750 EUR","n":1275e-2}`, []string{"12.75"}, []string{" EUR"}},
		{"a string of digits echoed as a number", `{"pin":"44719920","n":44719920,"m":[44719920.0]}`, []string{"44719920"}, []string{`"m":[]`}},
		{"a number echoed escaped", `{"pin":4471,"note":"\\u0034471 and &#52;471 and %34471"}`, []string{"4471"}, []string{" and "}},
		{"a negative number echoed without its sign", `{"pin":-4471,"note":"owed 4471"}`, []string{"4471"}, []string{"owed "}},
		{"a number echoed as a member name", `{"pin":4471,"by":{"4471":"a","5000":"b"}}`, []string{"4471"}, []string{`"5000":"b"`}},
		{"digits inside longer digits stay", `{"pin":4471,"order":"144712","v":3.4471,"id":44710}`, []string{}, []string{"144712", "3.4471", "44710"}},
		{"a short number is not scrubbed", `{"pin":42,"note":"answer 42"}`, []string{}, []string{"answer 42"}},
		{"a number with a short value is not scrubbed", `{"pin":42,"note":"answer 42"}`, []string{}, []string{"answer 42"}},
		{"a PIN with leading zeros is found as written", `{"pin":"0420","note":"PIN 0420, not 420 or 10420"}`, []string{"0420"}, []string{"not 420 or 10420"}},
		{"a fraction without its leading zero", `{"pin":0.4471,"note":"ratio=.4471"}`, []string{"0.4471"}, []string{"ratio="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.OutputOf("t", Outcome{Kind: Returned, Data: tt.data})
			require.Nil(t, res.Err)
			assertNoDecodedLeak(t, res.Agent, tt.secrets...)
			for _, v := range tt.visible {
				assert.Contains(t, res.Agent, v)
			}
		})
	}
}

// TestEchoesOfMemberNames: the member names inside a withheld value are
// withheld elsewhere too, however written; the names the tool's schema
// declares and MCP's own are not.
func TestEchoesOfMemberNames(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"t","description":"d","outputSchema":{"type":"object","properties":{"keys":{"x-sensitive":true},"owner":{"type":"string"}}}}`)
	tests := []struct {
		name    string
		data    string
		secrets []string
		visible []string
	}{
		{"a name echoed in text", `{"keys":{"tok_Müller_7":{"scope":"all"}},"owner":"Ada","note":"revoke tok_M\u00fcller_7"}`, []string{"tok_Müller_7"}, []string{"Ada", "revoke "}},
		{"a name echoed escaped in text", `{"keys":{"tok_Müller_7":1},"note":"revoke tok_M\\u00fcller_7 now"}`, []string{"tok_Müller_7"}, []string{"revoke ", " now"}},
		{"a name echoed as a name", `{"keys":{"tok-5150-x":1},"audit":{"tok-5150-x":"seen","other":"kept"}}`, []string{"tok-5150-x"}, []string{"kept"}},
		{"declared names stay", `{"keys":{"owner":"Zed-private"},"owner":"Ada"}`, []string{"Zed-private"}, []string{`"owner":"Ada"`}},
		{"MCP's names stay", `{"content":[{"type":"text","text":"kept text"}],"structuredContent":{"keys":{"text":"x-private","type":"y-private"},"owner":"Ada"}}`, []string{"x-private", "y-private"}, []string{"kept text", "Ada"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.OutputOf("t", Outcome{Kind: Returned, Data: tt.data})
			require.Nil(t, res.Err)
			assertNoDecodedLeak(t, res.Agent, tt.secrets...)
			for _, v := range tt.visible {
				assert.Contains(t, res.Agent, v, "a visible value is gone")
			}
		})
	}
}

// TestReferenceNotations writes a secret_reference in each notation a
// tool's text may hold it in. The engine reads one written as JSON, at any
// nesting and escaped; any other notation it cannot read is withheld
// whole, as an invalid reference. Either way its id and redeemUrl never
// reach the agent.
func TestReferenceNotations(t *testing.T) {
	const id, path = "ID-Nötation-7f3a", "/redeem/ID-Nötation-7f3a"
	ref := `{"type":"secret_reference","id":"` + id + `","label":"API key","redeemUrl":"` + path + `","ttl":60}`
	jsonText := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	textItem := func(text string) string {
		return `{"content":[{"type":"text","text":` + jsonText(text) + `},{"type":"text","text":"KEEP-other"}]}`
	}
	tests := []struct {
		name    string
		kind    OutcomeKind
		data    string
		refs    int // held
		invalid int
	}{
		{"JSON in a text item", Returned, textItem("Created: " + ref), 1, 0},
		{"JSON with an escaped type", Returned, textItem(strings.Replace(ref, "secret_reference", `secret\u005freference`, 1)), 1, 0},
		{"JSON with an escaped id, as Python writes it", Returned, textItem(escapeNonASCII(ref)), 1, 0},
		{"JSON in JSON in a text item", Returned, textItem(`{"result":` + jsonText(ref) + `}`), 1, 0},
		{"two references", Returned, textItem(ref + " and " + strings.ReplaceAll(ref, "7f3a", "8e4b")), 2, 0},
		{"HTML-escaped JSON", Returned, textItem(strings.ReplaceAll(ref, `"`, "&quot;")), 0, 1},
		{"a Python dict", Returned, textItem(`{'type': 'secret_reference', 'id': '` + id + `', 'redeemUrl': '` + path + `'}`), 0, 1},
		{"a JavaScript object literal", Returned, textItem(`{type: "secret_reference", id: "` + id + `", redeemUrl: "` + path + `"}`), 0, 1},
		{"a cut-off object", Returned, textItem(ref[:len(ref)-20]), 0, 1},
		{"percent-encoded in a URL", Returned, textItem("https://app.example/show?r=" + url_(ref)), 0, 1},
		{"a reference and a mention", Returned, textItem(ref + " (a secret_reference)"), 0, 1},
		{"an invalid reference in text", Returned, textItem(strings.Replace(ref, path, "https://evil.example"+path, 1)), 0, 1},
		{"a type in another case", Returned, `{"content":[{"type":"Secret_Reference","id":"` + id + `","label":"k","redeemUrl":"` + path + `"},{"type":"text","text":"KEEP-other"}]}`, 0, 1},
		{"a type as an HTML reference", Returned, `{"content":[{"type":"secret&#95;reference","id":"` + id + `","label":"k","redeemUrl":"` + path + `"},{"type":"text","text":"KEEP-other"}]}`, 0, 1},
		{"a string result in Python's notation", Text, `{'type': 'secret_reference', 'id': '` + id + `', 'redeemUrl': '` + path + `'} KEEP-other`, 0, 1},
		{"a string result of escaped JSON", Text, escapeNonASCII(ref) + " KEEP-other", 1, 0},
		{"a type as a zero-padded reference", Returned, textItem(strings.Replace(ref, "secret_reference", "&#"+strings.Repeat("0", 60)+"115;ecret_reference", 1)), 0, 1},
		{"a type as a zero-padded \\u{}", Returned, textItem(strings.Replace(ref, "secret_reference", `\u{0000000073}ecret_reference`, 1)), 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEngine(t)
			mustRegister(t, e, `{"name":"t","description":"d"}`)
			res := e.OutputOf("t", Outcome{Kind: tt.kind, Data: tt.data})
			require.Nil(t, res.Err)
			assertNoDecodedLeak(t, res.Agent, id, path, "7f3a", "8e4b")
			_, m := decodeView(t, res.Agent)
			assert.Equal(t, tt.refs, m.References, "references held: %s", res.Agent)
			assert.Equal(t, tt.invalid, m.Invalid, "invalid references: %s", res.Agent)
			if tt.kind == Returned || tt.refs > 0 {
				assert.Contains(t, res.Agent, "KEEP-other", "the rest of the output reaches the agent")
			}
		})
	}
}

// stringify writes v as JSON.stringify would: without Go's HTML-safe
// escapes.
func stringify(t testing.TB, v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return strings.TrimSuffix(b.String(), "\n")
}

// url_ percent-encodes s for a query.
func url_(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAlnum(c) || c == '-' || c == '_' || c == '.' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// TestScrubKeepsJSONText: a text item that was JSON text is still JSON
// text after scrubbing, rewritten from its parsed form where a removal
// would break it (a withheld number, a member name), and the rest of it
// is kept.
func TestScrubKeepsJSONText(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"t","description":"d","outputSchema":{"type":"object","properties":{"pin":{"x-sensitive":true},"pw":{"x-sensitive":true}}}}`)
	texts := []string{
		`{"pin":4471,"user":"Ada"}`,
		`{"list":[4471,{"n":4471.0}],"user":"Ada"}`,
		`{"by":{"tok-Müller-9":1},"user":"Ada"}`,
		`{"record":"{\"pw\":\"tok-M\\u00fcller-9\",\"pin\":4471}","user":"Ada"}`,
		"{\n  \"pw\": \"tok-M\\u00fcller-9\",\n  \"user\": \"Ada\"\n}",
	}
	for _, text := range texts {
		out := stringify(t, map[string]any{
			"content":           []any{map[string]any{"type": "text", "text": text}},
			"structuredContent": map[string]any{"pin": 4471, "pw": "tok-Müller-9"},
		})
		res := e.OutputOf("t", Outcome{Kind: Returned, Data: out})
		require.Nil(t, res.Err)
		assertNoDecodedLeak(t, res.Agent, "4471", "tok-Müller-9")
		r, _ := decodeView(t, res.Agent)
		require.Len(t, r.Content, 2, "the notice and the text item")
		got, _ := r.Content[1]["text"].(string)
		assert.True(t, json.Valid([]byte(got)), "the text %q became %q, not JSON", text, got)
		assert.Contains(t, got, "Ada", "the text %q lost its visible values: %q", text, got)
	}
}

// TestEchoesInOtherForms holds what a review found leaking, each now
// withheld: a PIN with leading zeros, a name in a JSON Pointer, octal and
// \x{} escapes, a fraction without its zero, a redeemUrl written relative
// or with its default port, the label of a reference that stood inside a
// withheld value, a ttl equal to a withheld number.
func TestEchoesInOtherForms(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		secrets []string
		visible []string
	}{
		{"a PIN with leading zeros", `{"pw":"0420","note":"your PIN is 0420"}`, []string{"0420"}, []string{"your PIN is "}},
		{"a name in a pointer, / written ~1", `{"pw":"https://hooks.example/T0/B9/XyZ","index":{"https://hooks.example/T0/B9/XyZ":1,"kept":2}}`, []string{"https://hooks.example/T0/B9/XyZ", "XyZ"}, []string{"kept"}},
		{"octal escapes, as git and bash write bytes", `{"pw":"Müller#4471","note":"git: M\\303\\274ller#4471"}`, []string{"Müller#4471"}, []string{"git: "}},
		{"octal escapes of ASCII", `{"pw":"sk_live_Q9x2","note":"\\163\\153\\137\\154\\151\\166\\145\\137\\121\\071\\170\\062"}`, []string{"sk_live_Q9x2"}, nil},
		{"Perl's \\x{}", `{"pw":"Müller#4471","note":"perl: M\\x{fc}ller#4471"}`, []string{"Müller#4471"}, []string{"perl: "}},
		{"a fraction without its leading zero", `{"pw":0.4471,"note":"ratio=.4471"}`, []string{"0.4471"}, []string{"ratio="}},
		{"a redeemUrl written relative", `{"key":{"type":"secret_reference","id":"ref-1","label":"API key","redeemUrl":"https://app.example/redeem?token=Zq81mKx"},"note":"or open /redeem?token=Zq81mKx"}`, []string{"Zq81mKx"}, []string{"or open "}},
		{"a redeemUrl with its default port", `{"key":{"type":"secret_reference","id":"ref-1","label":"API key","redeemUrl":"/redeem?token=Zq81mKx"},"note":"https://app.example:443/redeem?token=Zq81mKx"}`, []string{"Zq81mKx"}, nil},
		{"the label of a reference inside a withheld value", `{"pw":{"type":"secret_reference","id":"ref-1","label":"Chase checking 4471-9920","redeemUrl":"/redeem/ref-1"},"note":"Your Chase checking 4471-9920 is ready"}`, []string{"Chase checking 4471-9920"}, []string{"is ready"}},
		{"a reference padded with 120 zeros", `{"pw":"Müller#4471","note":"see M&#` + strings.Repeat("0", 120) + `252;ller#4471"}`, []string{"Müller#4471"}, []string{"see "}},
		{"JavaScript's \\u{} with leading zeros", `{"pw":"Müller#4471","note":"see M\\u{00000000fc}ller#4471"}`, []string{"Müller#4471"}, []string{"see "}},
		{"Perl's \\x{} with leading zeros", `{"pw":"Müller#4471","note":"see M\\x{0000000fc}ller#4471"}`, []string{"Müller#4471"}, []string{"see "}},
		{"a ttl equal to a withheld number", `{"pw":3599,"key":{"type":"secret_reference","id":"ref-1","label":"API key","redeemUrl":"/redeem/ref-1","ttl":3599}}`, []string{"3599"}, []string{"API key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEngine(t)
			mustRegister(t, e, `{"name":"t","description":"d","outputSchema":{"type":"object","properties":{"pw":{"x-sensitive":true}}}}`)
			res := e.OutputOf("t", Outcome{Kind: Returned, Data: tt.data})
			require.Nil(t, res.Err)
			assertNoDecodedLeak(t, res.Agent, tt.secrets...)
			for _, s := range tt.secrets {
				assert.NotContains(t, res.Agent, jsontree.EscapePointer(s), "the view holds %q as a pointer token", s)
			}
			for _, v := range tt.visible {
				assert.Contains(t, res.Agent, v)
			}
		})
	}
}

// TestEscapeRichText: a text with HTML, a URL and JavaScript escapes, each
// nested two and three deep, a few bytes apart, is not taken for a
// reference, and reaches the agent.
func TestEscapeRichText(t *testing.T) {
	page := "KEEP " + strings.Repeat("lorem ipsum dolor sit amet ", 40) +
		`<pre>&amp;lt;div&amp;gt;</pre> <a href='/r?next=%252Fhome'> <script>var re = "a\\\\nb";</script>`
	for _, def := range []string{
		`{"name":"t","description":"d"}`,
		`{"name":"t","description":"d","outputSchema":{"type":"object","properties":{"pw":{"x-sensitive":true}}}}`,
	} {
		e := newTestEngine(t)
		mustRegister(t, e, def)
		res := e.OutputOf("t", Outcome{Kind: Returned, Data: stringify(t, map[string]any{
			"content":           []any{map[string]any{"type": "text", "text": page}},
			"structuredContent": map[string]any{"pw": "hunter22", "page": page},
		})})
		require.Nil(t, res.Err)
		assert.Empty(t, res.Invalid, "no secret_reference anywhere")
		assert.Contains(t, res.Agent, "KEEP lorem", "the text reaches the agent")
	}
}

// TestManyReferencesInOneText: a text item holding the JSON of a list of
// 1,100 references holds each, once, though the same references stand in
// structuredContent too.
func TestManyReferencesInOneText(t *testing.T) {
	var refs []any
	for i := range 1100 {
		refs = append(refs, map[string]any{"type": "secret_reference", "id": fmt.Sprintf("ref-%d", i), "label": fmt.Sprintf("key %d", i), "redeemUrl": fmt.Sprintf("/redeem/ref-%d", i)})
	}
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"t","description":"d"}`)
	res := e.OutputOf("t", Outcome{Kind: Returned, Data: stringify(t, map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": stringify(t, refs)}},
		"structuredContent": map[string]any{"refs": refs},
	})})
	require.Nil(t, res.Err)
	assert.Empty(t, res.Invalid)
	assert.Equal(t, 1100, res.Held, "each reference held once")
	assertNoDecodedLeak(t, res.Agent, "/redeem/ref-1099", "ref-1099")
}

// TestShortFieldsOfReferencesInText: the fields of a reference read in a
// text go from that text however short: rule (c) lets only type, label
// and ttl through, while rule (d)'s minimum length is for elsewhere.
func TestShortFieldsOfReferencesInText(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"t","description":"d"}`)
	text := `Stored. {"type":"secret_reference","id":"k9Z","label":"API key","redeemUrl":"/redeem/k9Z","pin":"731"} for 7310 days`
	res := e.OutputOf("t", Outcome{Kind: Returned, Data: stringify(t, map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})})
	require.Nil(t, res.Err)
	require.Equal(t, 1, res.Held)
	assert.NotContains(t, res.Agent, "k9Z", "the reference's id")
	assert.NotContains(t, res.Agent, `"731"`, "the reference's other field")
	assert.Contains(t, res.Agent, "for 7310 days", "a number that merely holds the field's digits")
}

// TestMentioningNamesInPointers: a member withheld because its name names
// secret_reference is not spelled out by its pointer in _meta.
func TestMentioningNamesInPointers(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"t","description":"d"}`)
	res := e.OutputOf("t", Outcome{Kind: Returned, Data: `{"refs":{"/redeem/9f8e7d6c?type=secret_reference":{"label":"API key"},"secret_reference id=ab12cd34":1,"kept":2}}`})
	require.Nil(t, res.Err)
	assert.NotContains(t, res.Agent, "9f8e7d6c")
	assert.NotContains(t, res.Agent, "ab12cd34")
	assert.Contains(t, res.Agent, `"kept":2`)
}

// TestSharedPrefixesKeepVisibleText: withheld values that share a long
// prefix (presigned URLs) cost only the bytes compared, so the visible
// text that lists the public URLs is searched in full and kept.
func TestSharedPrefixesKeepVisibleText(t *testing.T) {
	def := `{"name":"t","description":"d","outputSchema":{"type":"object","properties":{"files":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"public":{"type":"string"},"signed":{"type":"string","x-sensitive":true}}}},"summary":{"type":"string"}}}}`
	var files []any
	var summary strings.Builder
	summary.WriteString("Uploaded files:\n")
	for i := range 1000 {
		name := fmt.Sprintf("report-%04d.pdf", i)
		files = append(files, map[string]any{
			"name":   name,
			"public": "https://cdn.example.com/files/" + name,
			"signed": "https://cdn.example.com/files/" + name + "?X-Amz-Signature=" + strings.Repeat("0123456789abcdef", 8) + fmt.Sprint(i),
		})
		summary.WriteString("- https://cdn.example.com/files/" + name + "\n")
	}
	e := newTestEngine(t)
	mustRegister(t, e, def)
	res := e.OutputOf("t", Outcome{Kind: Returned, Data: stringify(t, map[string]any{"files": files, "summary": summary.String()})})
	require.Nil(t, res.Err)
	assert.Contains(t, res.Agent, "report-0999.pdf\\n", "the visible summary is kept")
	assertNoDecodedLeak(t, res.Agent, "X-Amz-Signature")
}

// TestDensePageKept: a 256 KB page with escapes on every line, and a few
// double escapes, holds no withheld value and reaches the agent whole,
// though the withheld name has a space (so a plus is a space too).
func TestDensePageKept(t *testing.T) {
	line := "<li><a href=\"/search?q=caf%C3%A9&amp;page=2\">Caf&eacute; &amp; Cr&egrave;me</a></li>\n"
	quirks := "<script>var d = {\"html\": \"Tom \\u0026amp; Jerry\"};</script>\n" +
		"<a href=\"/r?u=https%3A%2F%2Fx.com%2Fa%2520b\">redirect</a>\n" +
		"<p>Feed: Tom &amp;amp; Jerry</p>\n<pre>printf(\"a\\\\n\");</pre>\n<a href=\"/search?q=tom+jerry\">search</a>\n"
	var b strings.Builder
	for i := 0; b.Len() < 256<<10; i++ {
		b.WriteString(line)
		if i%1000 == 0 {
			b.WriteString(quirks)
		}
	}
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"t","description":"d","outputSchema":{"type":"object","properties":{"pw":{"type":"string","x-sensitive":true},"page":{"type":"string"}}}}`)
	res := e.OutputOf("t", Outcome{Kind: Returned, Data: stringify(t, map[string]any{"pw": "Jane Q. Doe", "page": b.String()})})
	require.Nil(t, res.Err)
	var view struct {
		Structured struct {
			Page string `json:"page"`
		} `json:"structuredContent"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Agent), &view))
	assert.Equal(t, b.String(), view.Structured.Page, "the page reaches the agent whole")
}
