package engine

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// strings returns every string (values and member names) in a JSON text,
// decoded, and recursively the strings of any string that is JSON itself.
func jsonStrings(t testing.TB, text string) []string {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
			out = append(out, jsonStrings(t, v)...)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for k, x := range v {
				out = append(out, k)
				walk(x)
			}
		}
	}
	walk(v)
	return out
}

// assertNoLeak checks that none of secrets appears in the agent view,
// raw or in any JSON-decoded string.
func assertNoLeak(t testing.TB, agent string, secrets ...string) {
	t.Helper()
	decoded := jsonStrings(t, agent)
	for _, s := range secrets {
		assert.NotContains(t, agent, s, "secret %q in the raw agent view", s)
		for _, d := range decoded {
			assert.NotContains(t, d, s, "secret %q in a decoded string of the agent view", s)
		}
	}
}

type viewMeta struct {
	Withheld   []string `json:"withheld"`
	References int      `json:"references"`
	Invalid    int      `json:"invalidReferences"`
}

type callToolResult struct {
	Content []map[string]any `json:"content"`
	Struct  map[string]any   `json:"structuredContent"`
	Meta    map[string]any   `json:"_meta"`
	IsError *bool            `json:"isError"`
}

func decodeView(t testing.TB, agent string) (callToolResult, viewMeta) {
	t.Helper()
	var r callToolResult
	require.NoError(t, json.Unmarshal([]byte(agent), &r), "agent view is a CallToolResult: %s", agent)
	require.NotEmpty(t, r.Content, "agent view has content")
	var m viewMeta
	raw, err := json.Marshal(r.Meta[MetaKey])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &m), "_meta[%q]", MetaKey)
	return r, m
}

func TestPassThroughByteForByte(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"plain","description":"d"}`)
	mustRegister(t, e, `{"name":"schema","description":"d","outputSchema":{"type":"object"}}`)
	for _, data := range []string{
		`{"b":1.50,"a":"\u0000 é \ud800","c":[1e+21,-0,{"z":null}]}`,
		`[3,2,1]`,
		`"a string made by JSON.stringify"`,
		`{"type":"secret_reference_like","text":"secret_references and my_secret_reference_id name none"}`,
		`123456789012345678901234567890`,
	} {
		for _, tool := range []string{"plain", "schema"} {
			res := e.Output(tool, Outcome{Kind: Returned, Data: data})
			require.Nil(t, res.Err, "Output(%s)", data)
			assert.Equal(t, data, res.Agent, "Output(%q, %s) must pass byte for byte", tool, data)
			assert.True(t, res.Unchanged, "Output(%q, %s) says the view is the data", tool, data)
			assert.Empty(t, heldItems(e, res))
		}
	}
	res := e.Output("plain", Outcome{Kind: Text, Data: "raw text {not json"})
	assert.Equal(t, "raw text {not json", res.Agent)
	assert.True(t, res.Unchanged)
	res = e.Output("plain", Outcome{Kind: Text, Data: `a string about secret_references, in {braces}`})
	assert.Equal(t, `a string about secret_references, in {braces}`, res.Agent, "a string that names no secret_reference passes")
	res = e.Output("plain", Outcome{Kind: Text, Data: ""})
	assert.Equal(t, "Operation succeeded", res.Agent, "an empty string, as Chromium answers it")
	res = e.Output("plain", Outcome{Kind: Empty})
	assert.Equal(t, "undefined", res.Agent, "undefined, as Chromium answers it")
}

func TestRules(t *testing.T) {
	const (
		allowSchema = `{"type":"object","properties":{"id":{"type":"string"},"name":{"type":"string"},"secret":{"type":"string","x-sensitive":true}}}`
		denySchema  = `{"type":"object","properties":{"name":{"type":"string"},"ssn":{"type":"string","x-sensitive":true},"dob":{"x-sensitive":true}}}`
	)
	ref := func(id, url string, extra string) string {
		return fmt.Sprintf(`{"type":"secret_reference","id":%q,"label":"API Key","redeemUrl":%q%s}`, id, url, extra)
	}
	tests := []struct {
		name       string
		def        string // tool definition without name/description
		kind       OutcomeKind
		data       string
		secrets    []string // must not reach the agent
		visible    []string // must reach the agent
		pointers   []string // withheld, in order
		refs       int
		invalid    int
		errName    string // the call fails with this error
		passAsText bool   // the agent gets data unchanged
	}{
		{
			name: "a1 allowlist keeps declared non-sensitive values only",
			def:  `"annotations":{"sensitiveHint":true},"outputSchema":` + allowSchema,
			kind: Returned, data: `{"id":"key_123","name":"production","secret":"plr_abc123","note":"undeclared-xyz"}`,
			secrets: []string{"plr_abc123", "undeclared-xyz"}, visible: []string{"key_123", "production"},
			pointers: []string{"/secret", "/note"},
		},
		{
			name: "a1 allowlist on a CallToolResult drops mirroring text",
			def:  `"annotations":{"sensitiveHint":true},"outputSchema":` + allowSchema,
			kind: Returned, data: `{"content":[{"type":"text","text":"{\"id\":\"key_9\",\"secret\":\"plr_mirror9\"}"}],"structuredContent":{"id":"key_9","secret":"plr_mirror9"}}`,
			secrets: []string{"plr_mirror9"}, visible: []string{"key_9"},
			pointers: []string{"/content/0", "/structuredContent/secret"},
		},
		{
			name: "a2 sensitiveHint with references passes text items",
			def:  `"annotations":{"sensitiveHint":true}`,
			kind: Returned, data: `{"content":[{"type":"text","text":"Created API key prod"},` + ref("ref_77", "/redeem/ref_77", `,"ttl":120`) + `,{"type":"image","data":"aW1hZ2U=","mimeType":"image/png"}],"structuredContent":{"k":"sk_struct"}}`,
			secrets: []string{"ref_77", "/redeem/", "aW1hZ2U=", "sk_struct"}, visible: []string{"Created API key prod", "API Key", `"ttl":120`},
			pointers: []string{"/content/2", "/structuredContent"}, refs: 1,
		},
		{
			name: "a2 a plain value with a reference: everything but the reference is withheld",
			def:  `"annotations":{"sensitiveHint":true}`,
			kind: Returned, data: `{"key":"sk_live_plain","nested":{"ref":` + ref("ref_plain", "/redeem/ref_plain", "") + `}}`,
			secrets: []string{"sk_live_plain", "ref_plain", "/redeem/", "nested"}, visible: []string{"API Key", "secret_reference"},
			pointers: []string{""}, refs: 1,
		},
		{
			name: "a2 a reference inside withheld structuredContent is listed",
			def:  `"annotations":{"sensitiveHint":true}`,
			kind: Returned, data: `{"content":[{"type":"text","text":"made a key"}],"structuredContent":{"raw":"sk_struct2","ref":` + ref("ref_sc", "/redeem/ref_sc", `,"extra":"extra-field-secret"`) + `}}`,
			secrets: []string{"sk_struct2", "ref_sc", "extra-field-secret"}, visible: []string{"made a key", "API Key"},
			pointers: []string{"/structuredContent"}, refs: 1,
		},
		{
			name: "a3 sensitiveHint without schema withholds everything",
			def:  `"annotations":{"sensitiveHint":true}`,
			kind: Returned, data: `{"diagnosis":"condition-x","notes":"private"}`,
			secrets: []string{"condition-x", "private", "diagnosis"}, pointers: []string{""},
		},
		{
			name: "a3 a string result",
			def:  `"annotations":{"sensitiveHint":true}`,
			kind: Text, data: "the medical record text",
			secrets: []string{"medical record"}, pointers: []string{""},
		},
		{
			name: "a3 sensitiveHint with a schema that marks nothing",
			def:  `"annotations":{"sensitiveHint":true},"outputSchema":{"type":"object"}`,
			kind: Returned, data: `{"v":"whole-thing"}`,
			secrets: []string{"whole-thing"}, pointers: []string{""},
		},
		{
			name: "a4 a throwing sensitive tool fails generically",
			def:  `"annotations":{"sensitiveHint":true}`,
			kind: Threw, data: "database password is hunter2",
			secrets: []string{"hunter2"}, errName: "UnknownError",
		},
		{
			name: "b without sensitiveHint only x-sensitive locations are withheld",
			def:  `"outputSchema":` + denySchema,
			kind: Returned, data: `{"name":"Ada","ssn":"123-45-6789","dob":{"y":1815},"extra":"kept"}`,
			secrets: []string{"123-45-6789", "1815"}, visible: []string{"Ada", "kept"},
			pointers: []string{"/ssn", "/dob"},
		},
		{
			name: "b with nothing sensitive present passes unchanged",
			def:  `"outputSchema":` + denySchema,
			kind: Returned, data: `{"name":"Ada"}`,
			passAsText: true,
		},
		{
			name: "c a reference in a plain tool is reduced",
			def:  ``,
			kind: Returned, data: `{"deep":{"list":[` + ref("ref_deep", "https://app.example/r/1?x=ref_deep_q", "") + `]}}`,
			secrets: []string{"ref_deep", "/r/1", "redeemUrl"}, visible: []string{"secret_reference", "API Key", "deep"},
			refs: 1,
		},
		{
			name: "c a reference's other fields never pass",
			def:  ``,
			kind: Returned, data: `{"content":[{"type":"secret_reference","id":"i1","label":"L","redeemUrl":"/r","value":"leaked-value","ttl":5}]}`,
			secrets: []string{"leaked-value", `"i1"`}, visible: []string{`"ttl":5`},
			refs: 1,
		},
		{
			name: "d scrub removes a withheld value mirrored in text and other fields",
			def:  `"outputSchema":` + denySchema,
			kind: Returned, data: `{"content":[{"type":"text","text":"Your SSN is 123-45-6789."}],"structuredContent":{"name":"Ada 123-45-6789","ssn":"123-45-6789"}}`,
			secrets: []string{"123-45-6789"}, visible: []string{"Your SSN is .", "Ada "},
			pointers: []string{"/structuredContent/ssn"},
		},
		{
			name: "d scrub reaches into a subtree with nothing withheld",
			def:  `"outputSchema":` + denySchema,
			kind: Returned, data: `{"ssn":"123-45-6789","audit":{"log":["viewed 123-45-6789",{"deep":"x123-45-6789y"}]}}`,
			secrets: []string{"123-45-6789"}, visible: []string{"viewed ", `"xy"`},
			pointers: []string{"/ssn"},
		},
		{
			name: "d scrub reaches into a subtree with escapes",
			def:  `"outputSchema":` + denySchema,
			kind: Returned, data: `{"ssn":"987-65-4321","audit":{"log":"line\n987-65-4321\t\"q\""}}`,
			secrets: []string{"987-65-4321"}, visible: []string{`line\n\t\"q\"`},
			pointers: []string{"/ssn"},
		},
		{
			name: "d a withheld value used as a member name elsewhere",
			def:  `"outputSchema":` + denySchema,
			kind: Returned, data: `{"ssn":"tok-5150","byToken":{"tok-5150":{"owner":"ada"}},"other":"kept"}`,
			secrets: []string{"tok-5150", "ada"}, visible: []string{"kept", "byToken"},
			pointers: []string{"/ssn", "/byToken/"},
		},
		{
			name: "c a string result that is the JSON of a result holding a reference",
			def:  ``,
			kind: Text, data: `{"content":[{"type":"text","text":"Created"},` + ref("ref_text", "/redeem/ref_text", "") + `]}`,
			secrets: []string{"ref_text", "/redeem/"}, visible: []string{"Created", "API Key"},
			refs: 1,
		},
		{
			name: "c a reference written as JSON in a text item",
			def:  ``,
			kind: Returned, data: `{"content":[{"type":"text","text":"{\"type\":\"secret_reference\",\"id\":\"ID-emb1\",\"label\":\"key\",\"redeemUrl\":\"/redeem/ID-emb1\"}"}]}`,
			secrets: []string{"ID-emb1", "/redeem/"}, refs: 1,
		},
		{
			name: "c a reference written as JSON inside prose in a string value",
			def:  ``,
			kind: Returned, data: `["Here it is: {\"type\":\"secret_reference\",\"id\":\"ID-emb2\",\"label\":\"key\",\"redeemUrl\":\"/redeem/ID-emb2\"} enjoy"]`,
			secrets: []string{"ID-emb2", "/redeem/"}, visible: []string{"Here it is"}, refs: 1,
		},
		{
			name: "c a reference as JSON in JSON in a text item",
			def:  ``,
			kind: Returned, data: `{"content":[{"type":"text","text":"{\"wrapped\":\"{\\\"type\\\":\\\"secret_reference\\\",\\\"id\\\":\\\"ID-emb3\\\",\\\"label\\\":\\\"k\\\",\\\"redeemUrl\\\":\\\"/redeem/ID-emb3\\\"}\"}"}]}`,
			secrets: []string{"ID-emb3", "/redeem/"}, refs: 1,
		},
		{
			name: "c an object with a string that names secret_reference is withheld as an invalid reference",
			def:  ``,
			kind: Returned, data: `{"doc":{"note":"a secret_reference is an object; see the docs","id":"doc-id-77"},"other":"kept"}`,
			secrets: []string{"see the docs", "doc-id-77"}, visible: []string{"kept"}, pointers: []string{"/doc"}, invalid: 1,
		},
		{
			name: "c a reference in another spelling goes with its object",
			def:  ``,
			kind: Returned, data: `{"key":{"Type":"secret_reference","Id":"tok_9f8e7d","RedeemUrl":"/redeem/tok_9f8e7d"},"list":[{"object":"secret_reference","id":"tok_8e7d6c"},{"type":["secret_reference"],"id":"tok_7d6c5b"}],"other":"kept"}`,
			secrets: []string{"tok_9f8e7d", "tok_8e7d6c", "tok_7d6c5b"}, visible: []string{"kept"}, pointers: []string{"/key", "/list/0", "/list/1"}, invalid: 3,
		},
		{
			name: "c a member named secret_reference is withheld as an invalid reference",
			def:  ``,
			kind: Returned, data: `{"secret_reference":{"id":"tok_6c5b4a","redeem_url":"/redeem/tok_6c5b4a"},"other":"kept"}`,
			secrets: []string{"tok_6c5b4a"}, visible: []string{"kept"}, pointers: []string{"/secret_reference"}, invalid: 1,
		},
		{
			name: "c a string result of prose that names secret_reference is withheld",
			def:  ``,
			kind: Text, data: `Use a Secret_Reference for keys`,
			secrets: []string{"for keys"}, pointers: []string{""}, invalid: 1,
		},
		{
			name: "c a string result of prose holding a reference as JSON",
			def:  ``,
			kind: Text, data: `Created. {"type":"secret_reference","id":"ID-emb4","label":"key","redeemUrl":"/redeem/ID-emb4"}`,
			secrets: []string{"ID-emb4", "/redeem/"}, visible: []string{`"text":"Created. {`}, refs: 1,
		},
		{
			name: "d scrub removes a reference id mirrored in text",
			def:  ``,
			kind: Returned, data: `{"content":[{"type":"text","text":"key ref_mirror at /redeem/ref_mirror"},` + ref("ref_mirror", "/redeem/ref_mirror", "") + `]}`,
			secrets: []string{"ref_mirror"}, visible: []string{"key  at "},
			refs: 1,
		},
		{
			name: "d scrub repeats until no withheld string is left",
			def:  `"outputSchema":` + denySchema,
			kind: Returned, data: `{"name":"aSSSSNXNXb","ssn":"SSNX"}`,
			secrets: []string{"SSNX"}, visible: []string{`"ab"`}, pointers: []string{"/ssn"},
		},
		{
			name: "e output not matching the schema fails closed",
			def:  `"outputSchema":` + denySchema,
			kind: Returned, data: `{"name":42,"ssn":"999-99-9999"}`,
			secrets: []string{"999-99-9999", "42"}, errName: "OperationError",
		},
		{
			name: "e a CallToolResult without structuredContent fails closed",
			def:  `"annotations":{"sensitiveHint":true},"outputSchema":` + allowSchema,
			kind: Returned, data: `{"content":[{"type":"text","text":"plr_nostruct"}]}`,
			secrets: []string{"plr_nostruct"}, errName: "OperationError",
		},
		{
			name: "e unserializable output fails closed",
			def:  `"annotations":{"sensitiveHint":true}`,
			kind: Unserializable, errName: "UnknownError",
		},
		{
			name: "e a timeout fails closed",
			def:  `"outputSchema":` + denySchema,
			kind: TimedOut, errName: "OperationError",
		},
		{
			name: "e invalid JSON fails closed",
			def:  `"outputSchema":` + denySchema,
			kind: Returned, data: `{"ssn":"111-11-1111"`,
			secrets: []string{"111-11-1111"}, errName: "OperationError",
		},
		{
			name: "invalid reference: other origin",
			def:  ``,
			kind: Returned, data: `{"content":[` + ref("bad1", "https://evil.example/steal", "") + `]}`,
			secrets: []string{"bad1", "evil.example"}, invalid: 1,
		},
		{
			name: "invalid reference: javascript URL",
			def:  ``,
			kind: Returned, data: `{"content":[` + ref("bad2", "javascript:alert(1)", "") + `]}`,
			secrets: []string{"bad2", "alert"}, invalid: 1,
		},
		{
			name: "invalid reference: user-info",
			def:  ``,
			kind: Returned, data: `{"content":[` + ref("bad3", "https://user:pw@app.example/r", "") + `]}`,
			secrets: []string{"bad3", "pw@"}, invalid: 1,
		},
		{
			name: "invalid reference: protocol-relative to another host",
			def:  ``,
			kind: Returned, data: `{"content":[` + ref("bad4", "//evil.example/r", "") + `]}`,
			secrets: []string{"bad4"}, invalid: 1,
		},
		{
			name: "invalid reference: backslash",
			def:  ``,
			kind: Returned, data: `{"content":[` + ref("bad5", `/\\evil.example/r`, "") + `]}`,
			secrets: []string{"bad5"}, invalid: 1,
		},
		{
			name: "invalid reference: negative ttl",
			def:  ``,
			kind: Returned, data: `{"content":[` + ref("bad6", "/r", `,"ttl":-1`) + `]}`,
			secrets: []string{"bad6"}, invalid: 1,
		},
		{
			name: "invalid reference: empty id",
			def:  ``,
			kind: Returned, data: `{"content":[` + ref("", "/r/zz", "") + `]}`,
			secrets: []string{"/r/zz"}, invalid: 1,
		},
		{
			name: "reference ttl is clamped",
			def:  ``,
			kind: Returned, data: `{"content":[` + ref("long", "/r/long", `,"ttl":999999`) + `]}`,
			secrets: []string{"999999"}, visible: []string{`"ttl":3600`}, refs: 1,
		},
		{
			name: "a reference at a sensitive location is held but not shown in place",
			def:  `"outputSchema":{"properties":{"k":{"x-sensitive":true}}}`,
			kind: Returned, data: `{"k":` + ref("hidden_ref", "/r/h", "") + `}`,
			secrets: []string{"hidden_ref", "/r/h", "API Key"}, pointers: []string{"/k"}, refs: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEngine(t)
			def := `{"name":"tool","description":"d"`
			if tt.def != "" {
				def += "," + tt.def
			}
			mustRegister(t, e, def+"}")
			res := e.Output("tool", Outcome{Kind: tt.kind, Data: tt.data})
			if tt.errName != "" {
				require.NotNil(t, res.Err, "Output(%s) must fail", tt.data)
				assert.Equal(t, tt.errName, res.Err.Name)
				assert.Empty(t, res.Agent)
				for _, s := range tt.secrets {
					assert.NotContains(t, res.Err.Message, s, "error message leaks %q", s)
				}
				return
			}
			require.Nil(t, res.Err, "Output(%s)", tt.data)
			if tt.passAsText {
				assert.Equal(t, tt.data, res.Agent)
				return
			}
			assertNoLeak(t, res.Agent, tt.secrets...)
			for _, v := range tt.visible {
				assert.Contains(t, res.Agent, v, "agent view lacks %q", v)
			}
			r, m := decodeView(t, res.Agent)
			text, _ := r.Content[0]["text"].(string)
			assert.Equal(t, "text", r.Content[0]["type"], "the first content item is the notice")
			if len(tt.pointers) > 0 {
				assert.Contains(t, text, "withheld")
				assert.Contains(t, text, "reveal")
			}
			assert.NotContains(t, strings.ToLower(res.Agent), "[hidden]")
			assert.NotContains(t, strings.ToLower(res.Agent), "redacted")
			assert.Equal(t, tt.pointers, nilIfEmpty(m.Withheld), "withheld pointers")
			assert.Equal(t, tt.refs, m.References, "references")
			assert.Equal(t, tt.invalid, m.Invalid, "invalid references")
			assert.Len(t, res.Invalid, tt.invalid, "the page hears of invalid references")
			assert.Len(t, heldItems(e, res), len(tt.pointers)+tt.refs, "held items")
			assert.Equal(t, len(tt.pointers)+tt.refs, res.Held, "held count")
			for _, it := range heldItems(e, res) {
				got, err := e.Reveal(it.Handle)
				require.NoError(t, err)
				assert.Equal(t, it.Kind, got.Kind)
				if it.Kind == "reference" {
					assert.True(t, strings.HasPrefix(got.RedeemURL, testOrigin+"/"), "redeem URL %q is absolute and same-origin", got.RedeemURL)
				}
			}
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestSchemaConstructs checks that x-sensitive is found through every
// construct that can apply a subschema to a value.
func TestSchemaConstructs(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		data    string
		secret  string
		visible string
	}{
		{"root", `{"x-sensitive":true}`, `{"a":"ROOTSECRET"}`, "ROOTSECRET", ""},
		{"properties", `{"properties":{"s":{"x-sensitive":true}}}`, `{"s":"PSECRET","v":"pvis"}`, "PSECRET", "pvis"},
		{"patternProperties", `{"patternProperties":{"^tok_":{"x-sensitive":true}}}`, `{"tok_a":"PPSECRET","other":"ppvis"}`, "PPSECRET", "ppvis"},
		{"additionalProperties", `{"properties":{"v":{}},"additionalProperties":{"x-sensitive":true}}`, `{"v":"apvis","x":"APSECRET"}`, "APSECRET", "apvis"},
		{"items", `{"properties":{"codes":{"type":"array","items":{"x-sensitive":true}}}}`, `{"codes":["ITSECRET1","ITSECRET2"],"n":"itvis"}`, "ITSECRET", "itvis"},
		{"prefixItems", `{"prefixItems":[{},{"x-sensitive":true}]}`, `["pivis","PISECRET"]`, "PISECRET", "pivis"},
		{"items after prefixItems", `{"prefixItems":[{}],"items":{"x-sensitive":true}}`, `["pi2vis","PI2SECRET","PI2SECRET"]`, "PI2SECRET", "pi2vis"},
		{"$ref and $defs", `{"properties":{"s":{"$ref":"#/$defs/secret"}},"$defs":{"secret":{"x-sensitive":true}}}`, `{"s":"REFSECRET","t":"refvis"}`, "REFSECRET", "refvis"},
		{"$ref by $anchor", `{"properties":{"s":{"$ref":"#sec"}},"$defs":{"x":{"$anchor":"sec","x-sensitive":true}}}`, `{"s":"ANCSECRET","t":"ancvis"}`, "ANCSECRET", "ancvis"},
		{"$dynamicRef", `{"$dynamicAnchor":"node","properties":{"s":{"$dynamicRef":"#node"},"leaf":{"x-sensitive":true}}}`, `{"s":{"leaf":"DYNSECRET"},"t":"dynvis"}`, "DYNSECRET", "dynvis"},
		{"$dynamicRef to another anchor owner", `{"$defs":{"a":{"$dynamicAnchor":"item","x-sensitive":true}},"properties":{"s":{"$dynamicRef":"#item"}}}`, `{"s":"DYN2SECRET","t":"dyn2vis"}`, "DYN2SECRET", "dyn2vis"},
		{"allOf", `{"allOf":[{"properties":{"s":{"x-sensitive":true}}}]}`, `{"s":"ALLSECRET","t":"allvis"}`, "ALLSECRET", "allvis"},
		{"anyOf", `{"anyOf":[{"type":"number"},{"properties":{"s":{"x-sensitive":true}}}]}`, `{"s":"ANYSECRET","t":"anyvis"}`, "ANYSECRET", "anyvis"},
		{"oneOf", `{"oneOf":[{"properties":{"s":{"x-sensitive":true}}},{"type":"array"}]}`, `{"s":"ONESECRET","t":"onevis"}`, "ONESECRET", "onevis"},
		{"if/then", `{"if":{"required":["s"]},"then":{"properties":{"s":{"x-sensitive":true}}}}`, `{"s":"THENSECRET","t":"thenvis"}`, "THENSECRET", "thenvis"},
		{"if/else branch counted whichever applies", `{"if":{"required":["zzz"]},"then":{},"else":{"properties":{"s":{"x-sensitive":true}}}}`, `{"s":"ELSESECRET","t":"elsevis"}`, "ELSESECRET", "elsevis"},
		{"dependentSchemas", `{"dependentSchemas":{"card":{"properties":{"cvv":{"x-sensitive":true}}}}}`, `{"card":"cardvis","cvv":"CVVSECRET"}`, "CVVSECRET", "cardvis"},
		{"recursive", `{"$defs":{"n":{"properties":{"secret":{"x-sensitive":true},"child":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`, `{"child":{"child":{"child":{"secret":"RECSECRET","v":"recvis"}}}}`, "RECSECRET", "recvis"},
		{"draft-07 items tuple and additionalItems", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}],"additionalItems":{"x-sensitive":true}}`, `["d7vis","D7SECRET"]`, "D7SECRET", "d7vis"},
		{"draft-07 definitions", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"s":{"$ref":"#/definitions/x"}},"definitions":{"x":{"x-sensitive":true}}}`, `{"s":"DEFSECRET","t":"defvis"}`, "DEFSECRET", "defvis"},
		{"draft 2019-09 $recursiveRef", `{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"properties":{"c":{"$recursiveRef":"#"},"s":{"x-sensitive":true}}}`, `{"c":{"s":"R19SECRET"},"t":"r19vis"}`, "R19SECRET", "r19vis"},
		{"unevaluatedProperties", `{"properties":{"v":{}},"unevaluatedProperties":{"x-sensitive":true}}`, `{"v":"uevis","w":"UESECRET"}`, "UESECRET", "uevis"},
		{"contains", `{"contains":{"x-sensitive":true}}`, `["CONTSECRET"]`, "CONTSECRET", ""},
		{"not", `{"not":{"properties":{"s":{"type":"number","x-sensitive":true}}}}`, `{"s":"NOTSECRET","t":"notvis"}`, "NOTSECRET", "notvis"},
		{"propertyNames", `{"propertyNames":{"x-sensitive":true}}`, `{"KEYSECRET":1}`, "KEYSECRET", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEngine(t)
			mustRegister(t, e, `{"name":"tool","description":"d","outputSchema":`+tt.schema+`}`)
			res := e.Output("tool", Outcome{Kind: Returned, Data: tt.data})
			require.Nil(t, res.Err, "Output(%s) under %s", tt.data, tt.schema)
			assertNoLeak(t, res.Agent, tt.secret)
			if tt.visible != "" {
				assert.Contains(t, res.Agent, tt.visible, "a non-sensitive value is withheld")
			}
			require.NotEmpty(t, heldItems(e, res), "nothing held for the user")
		})
	}
}

func TestLargeStringWithReferenceFailsClosed(t *testing.T) {
	e := New(&Options{Origin: testOrigin, MaxOutputBytes: 64})
	mustRegister(t, e, `{"name":"p","description":"d"}`)
	big := `{"type":"secret_reference","id":"ID-big","label":"k","redeemUrl":"/r/ID-big","pad":"` + strings.Repeat("x", 100) + `"}`
	res := e.Output("p", Outcome{Kind: Text, Data: big})
	require.NotNil(t, res.Err, "a string over the cap that may hold a reference")
	assert.NotContains(t, res.Err.Message, "ID-big")
}

func TestSensitiveOutputSize(t *testing.T) {
	e := New(&Options{Origin: testOrigin, MaxOutputBytes: 64})
	mustRegister(t, e, `{"name":"s","description":"d","outputSchema":{"properties":{"k":{"x-sensitive":true}}}}`)
	mustRegister(t, e, `{"name":"p","description":"d"}`)
	big := `{"k":"` + strings.Repeat("x", 100) + `"}`
	res := e.Output("s", Outcome{Kind: Returned, Data: big})
	require.NotNil(t, res.Err)
	assert.Equal(t, "OperationError", res.Err.Name)
	res = e.Output("p", Outcome{Kind: Returned, Data: big})
	assert.Equal(t, big, res.Agent, "a plain tool is not capped")
}

func TestThrowMatchesChromium(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"p","description":"d"}`)
	res := e.Output("p", Outcome{Kind: Threw, Data: "boom"})
	require.NotNil(t, res.Err)
	assert.Equal(t, &Error{Name: "UnknownError", Message: toolFailed}, res.Err, "a throw is reported as Chromium does, without the message")
}

func TestRedeemPath(t *testing.T) {
	e := New(&Options{Origin: testOrigin, RedeemPath: "/redeem/"})
	mustRegister(t, e, `{"name":"p","description":"d"}`)
	for _, tt := range []struct {
		url   string
		valid bool
	}{
		{"/redeem/abc", true},
		{"https://app.example/redeem/abc?x=1", true},
		{"/account/delete?yes=1", false},
		{"/redeemx/abc", false},
		{"/redeem/../account/delete", false},
		{"/redeem/%2e%2e/account/delete", false},
		{"/redeem/%2E./account/delete", false},
	} {
		res := e.Output("p", Outcome{Kind: Returned, Data: `{"type":"secret_reference","id":"id1","label":"L","redeemUrl":"` + tt.url + `"}`})
		require.Nil(t, res.Err)
		_, m := decodeView(t, res.Agent)
		if tt.valid {
			assert.Equal(t, 1, m.References, "redeemUrl %q is under the redeem path", tt.url)
		} else {
			assert.Equal(t, 1, m.Invalid, "redeemUrl %q is not under the redeem path", tt.url)
		}
	}
}

func TestOriginUnknownRejectsReferences(t *testing.T) {
	e := New(nil)
	mustRegister(t, e, `{"name":"p","description":"d"}`)
	res := e.Output("p", Outcome{Kind: Returned, Data: `{"type":"secret_reference","id":"x1","label":"L","redeemUrl":"/r"}`})
	require.Nil(t, res.Err)
	_, m := decodeView(t, res.Agent)
	assert.Equal(t, 1, m.Invalid)
	assertNoLeak(t, res.Agent, "x1", "/r")
}

// TestScrubberMatchesNaive holds the scrubber's windowed search, on text
// with nothing to decode, to a plain one: at each position, drop the
// longest withheld string there, and again until nothing changes.
func TestScrubberMatchesNaive(t *testing.T) {
	naive := func(secrets []string, str string) (string, int) {
		for rounds := 0; ; rounds++ {
			var b strings.Builder
			for i := 0; i < len(str); {
				best := 0
				for _, x := range secrets {
					if len(x) > best && strings.HasPrefix(str[i:], x) {
						best = len(x)
					}
				}
				if best > 0 {
					i += best
					continue
				}
				b.WriteByte(str[i])
				i++
			}
			if b.String() == str {
				return str, rounds
			}
			str = b.String()
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcd-/\"é"
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(string([]rune(alphabet)[rng.IntN(len([]rune(alphabet)))]))
		}
		return b.String()
	}
	for range 4000 {
		var secrets []string
		set := &scrubSet{}
		for range 1 + rng.IntN(4) {
			x := word(minScrubLength + rng.IntN(4))
			secrets = append(secrets, x)
			set.addString(x)
		}
		str := word(rng.IntN(60))
		s := newScrubber(set)
		got, changed := s.scrub(str)
		want, rounds := naive(secrets, str)
		if rounds > maxScrubRounds {
			want = ""
		}
		require.Equal(t, want, got, "scrub(%q) of %q", str, secrets)
		assert.Equal(t, want != str, changed)
		assert.Equal(t, want != str, s.contains(str), "contains(%q) of %q", str, secrets)
	}
}
