package engine

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/e2e/corpus"
)

// strings returns every string (values and member names) in a JSON text,
// decoded, and recursively the strings of any string that is JSON itself.
func jsonStrings(t testing.TB, text string) []string {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil
	}
	var out []string
	for s, name := range corpus.Strings(v) {
		out = append(out, s)
		if !name {
			out = append(out, jsonStrings(t, s)...)
		}
	}
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
			res := e.OutputOf(tool, Outcome{Kind: Returned, Data: data})
			require.Nil(t, res.Err, "Output(%s)", data)
			assert.Equal(t, data, res.Agent, "Output(%q, %s) must pass byte for byte", tool, data)
			assert.True(t, res.Unchanged, "Output(%q, %s) says the view is the data", tool, data)
			assert.Empty(t, heldItems(e, res))
		}
	}
	res := e.OutputOf("plain", Outcome{Kind: Text, Data: "raw text {not json"})
	assert.Equal(t, "raw text {not json", res.Agent)
	assert.True(t, res.Unchanged)
	res = e.OutputOf("plain", Outcome{Kind: Text, Data: `a string about secret_references, in {braces}`})
	assert.Equal(t, `a string about secret_references, in {braces}`, res.Agent, "a string that names no secret_reference passes")
	res = e.OutputOf("plain", Outcome{Kind: Text, Data: ""})
	assert.Equal(t, "Operation succeeded", res.Agent, "an empty string, as Chromium answers it")
	res = e.OutputOf("plain", Outcome{Kind: Empty})
	assert.Equal(t, "undefined", res.Agent, "undefined, as Chromium answers it")
}

// The rules of the agent view are data: the corpus (corpus_test.go),
// which the browser suite replays too. What follows is what the corpus
// cannot say natively.

// TestFailsClosed: outcomes no corpus case gives natively (the page's
// throws, results JSON.stringify cannot serialize, timeouts, text that is
// not JSON) fail with an error that carries none of the output.
func TestFailsClosed(t *testing.T) {
	const denySchema = `{"type":"object","properties":{"name":{"type":"string"},"ssn":{"type":"string","x-sensitive":true}}}`
	tests := []struct {
		name    string
		def     string // the tool's members besides name and description
		kind    OutcomeKind
		data    string
		secrets []string
		errName string
	}{
		{"a sensitive tool throws", `"annotations":{"sensitiveHint":true}`, Threw, "database password is hunter2", []string{"hunter2"}, "UnknownError"},
		{"unserializable", `"annotations":{"sensitiveHint":true}`, Unserializable, "", nil, "UnknownError"},
		{"timed out", `"outputSchema":` + denySchema, TimedOut, "", nil, "OperationError"},
		{"not JSON", `"outputSchema":` + denySchema, Returned, `{"ssn":"111-11-1111"`, []string{"111-11-1111"}, "OperationError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEngine(t)
			mustRegister(t, e, `{"name":"tool","description":"d",`+tt.def+`}`)
			res := e.OutputOf("tool", Outcome{Kind: tt.kind, Data: tt.data})
			require.NotNil(t, res.Err, "Output(%s, %q): got the view %q, want an error", tt.kind, tt.data, res.Agent)
			assert.Equal(t, tt.errName, res.Err.Name, "Output(%s, %q)", tt.kind, tt.data)
			assert.Empty(t, res.Agent)
			for _, s := range tt.secrets {
				assert.NotContains(t, res.Err.Message, s, "the error of Output(%s, %q)", tt.kind, tt.data)
			}
		})
	}
}

// TestReferenceOnPageOrigin: the redeemUrls that must name the page's own
// origin to test what they test. The corpus's cases for them build the URL
// from the page's location and run in the browser only; here the origin
// is fixed.
func TestReferenceOnPageOrigin(t *testing.T) {
	tests := []struct {
		name  string
		url   string
		valid bool
	}{
		{"absolute on the page's origin", testOrigin + "/r/abs-ok", true},
		{"another scheme", "http://app.example/r/scheme", false},
		{"another port", "https://app.example:8443/r/port", false},
		{"user-info on the page's host", "https://user:pw-origin@app.example/r/user", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEngine(t)
			mustRegister(t, e, `{"name":"p","description":"d"}`)
			res := e.OutputOf("p", Outcome{Kind: Returned, Data: `{"content":[{"type":"secret_reference","id":"id-origin-1","label":"Key","redeemUrl":"` + tt.url + `"}]}`})
			require.Nil(t, res.Err, "Output of a reference to %s", tt.url)
			assertNoLeak(t, res.Agent, "id-origin-1", tt.url, "pw-origin")
			_, m := decodeView(t, res.Agent)
			if !tt.valid {
				assert.Equal(t, 1, m.Invalid, "invalid references: got %d, want 1 for %s", m.Invalid, tt.url)
				assert.Len(t, res.Invalid, 1, "the page hears of the invalid reference")
				return
			}
			assert.Equal(t, 1, m.References, "references: got %d, want 1 for %s", m.References, tt.url)
			items := heldItems(e, res)
			require.Len(t, items, 1)
			got, err := e.Reveal(items[0].Handle)
			require.NoError(t, err)
			assert.Equal(t, tt.url, got.RedeemURL)
		})
	}
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
			res := e.OutputOf("tool", Outcome{Kind: Returned, Data: tt.data})
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
	res := e.OutputOf("p", Outcome{Kind: Text, Data: big})
	require.NotNil(t, res.Err, "a string over the cap that may hold a reference")
	assert.NotContains(t, res.Err.Message, "ID-big")
}

func TestSensitiveOutputSize(t *testing.T) {
	e := New(&Options{Origin: testOrigin, MaxOutputBytes: 64})
	mustRegister(t, e, `{"name":"s","description":"d","outputSchema":{"properties":{"k":{"x-sensitive":true}}}}`)
	mustRegister(t, e, `{"name":"p","description":"d"}`)
	big := `{"k":"` + strings.Repeat("x", 100) + `"}`
	res := e.OutputOf("s", Outcome{Kind: Returned, Data: big})
	require.NotNil(t, res.Err)
	assert.Equal(t, "OperationError", res.Err.Name)
	res = e.OutputOf("p", Outcome{Kind: Returned, Data: big})
	assert.Equal(t, big, res.Agent, "a plain tool is not capped")
}

func TestThrowMatchesChromium(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"p","description":"d"}`)
	res := e.OutputOf("p", Outcome{Kind: Threw, Data: "boom"})
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
		res := e.OutputOf("p", Outcome{Kind: Returned, Data: `{"type":"secret_reference","id":"id1","label":"L","redeemUrl":"` + tt.url + `"}`})
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
	res := e.OutputOf("p", Outcome{Kind: Returned, Data: `{"type":"secret_reference","id":"x1","label":"L","redeemUrl":"/r"}`})
	require.Nil(t, res.Err)
	_, m := decodeView(t, res.Agent)
	assert.Equal(t, 1, m.Invalid)
	assertNoLeak(t, res.Agent, "x1", "/r")
}

// TestScrubberMatchesNaive holds the scrubber's windowed search, on text
// with nothing to decode, to a plain one. Each round drops, left to
// right, the longest value written there as it is (ASCII case aside) for
// values with a short skeleton, and the longest whose skeleton starts at
// a character there for the others (the span of the characters it takes),
// both searched in the text the round started with; again until nothing
// changes.
func TestScrubberMatchesNaive(t *testing.T) {
	naive := func(secrets []string, str string) (string, int) {
		for rounds := 0; ; rounds++ {
			drop := make([]bool, len(str))
			lower := strings.ToLower(str)
			for i := 0; i < len(str); {
				best := 0
				for _, x := range secrets {
					if len(skeleton(x)) < minSkeleton && len(x) > best && strings.HasPrefix(lower[i:], strings.ToLower(x)) {
						best = len(x)
					}
				}
				for k := range best {
					drop[i+k] = true
				}
				i += max(best, 1)
			}
			for i := 0; i < len(str); {
				end := -1
				if skeleton(str[i:i+utf8RuneLen(str, i)]) != "" {
					for _, x := range secrets {
						sk := skeleton(x)
						if len(sk) < minSkeleton {
							continue
						}
						for j := i; j <= len(str); j++ {
							if skeleton(str[i:j]) == sk {
								end = max(end, j)
								break
							}
						}
					}
				}
				if end < 0 {
					i += utf8RuneLen(str, i)
					continue
				}
				for k := i; k < end; k++ {
					drop[k] = true
				}
				i = end
			}
			var b strings.Builder
			for i := range len(str) {
				if !drop[i] {
					b.WriteByte(str[i])
				}
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

func utf8RuneLen(s string, i int) int {
	_, n := utf8.DecodeRuneInString(s[i:])
	return n
}

// TestViewTextIsItsStructuredContent: the view of an object or array from
// which a value was withheld holds the value's text as its second content
// item and, for an object, the same value as structuredContent, however
// much its text escapes (a value of control characters writes its text
// six times its size), with the notice first and _meta last.
func TestViewTextIsItsStructuredContent(t *testing.T) {
	const schema = `{"type":"object","properties":{"k":{"type":"string","x-sensitive":true}}}`
	controls, err := json.Marshal(strings.Repeat("\u0001\u0002\"\\", 5000))
	require.NoError(t, err)
	tests := []struct {
		name, def, data string
		object          bool
	}{
		{"object", `{"name":"t","description":"d","outputSchema":` + schema + `}`, `{"k":"sk_live_9f8e7d6cQ","a":"x\"y\\z é \u2028","n":[1,2,{"b":null}]}`, true},
		{"object whose text escapes much", `{"name":"t","description":"d","outputSchema":` + schema + `}`, `{"k":"sk_live_9f8e7d6cQ","c":` + string(controls) + `}`, true},
		{"array", `{"name":"t","description":"d","outputSchema":{"type":"array","items":` + schema + `}}`, `[{"k":"sk_live_9f8e7d6cQ","a":"x\"y"},{"a":"b"}]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(&Options{Origin: testOrigin})
			mustRegister(t, e, tt.def)
			res := e.OutputOf("t", Outcome{Kind: Returned, Data: tt.data})
			require.Nil(t, res.Err)
			require.Equal(t, 1, res.Held, "%.300s", res.Agent)
			var view struct {
				Content []struct {
					Type, Text string
				} `json:"content"`
				StructuredContent json.RawMessage            `json:"structuredContent"`
				Meta              map[string]json.RawMessage `json:"_meta"`
			}
			require.NoError(t, json.Unmarshal([]byte(res.Agent), &view), "the view is JSON: %.200s", res.Agent)
			require.Len(t, view.Content, 2)
			assert.Contains(t, view.Content[0].Text, "1 value was withheld")
			assert.NotContains(t, res.Agent, "sk_live_9f8e7d6cQ")
			var text, want any
			require.NoError(t, json.Unmarshal([]byte(view.Content[1].Text), &text))
			var data map[string]any
			var items []any
			if tt.object {
				require.NoError(t, json.Unmarshal([]byte(tt.data), &data))
				delete(data, "k")
				want = data
				var structured any
				require.NoError(t, json.Unmarshal(view.StructuredContent, &structured))
				assert.Equal(t, want, structured)
			} else {
				require.NoError(t, json.Unmarshal([]byte(tt.data), &items))
				delete(items[0].(map[string]any), "k")
				want = items
				assert.Nil(t, view.StructuredContent)
			}
			assert.Equal(t, want, text)
			assert.Contains(t, view.Meta, MetaKey)
			assert.True(t, strings.HasSuffix(res.Agent, "}}}"), "%.200s", res.Agent[max(0, len(res.Agent)-200):])
		})
	}
}
