package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzNoLeak puts a secret at sensitive locations of an output whose
// other parts the fuzzer controls, including text that embeds the secret,
// and checks that the agent view never holds it, raw or decoded, under
// every rule.
func FuzzNoLeak(f *testing.F) {
	f.Add("abc", "plain text", "k", uint8(0))
	f.Add("", "\u2028\"\\", "key", uint8(1))
	f.Add("é\u0000", "<secret>", "secret", uint8(2))
	f.Add("z", `{"type":"secret_reference"}`, "type", uint8(3))
	f.Add("1", "11111", "n", uint8(4))
	f.Add("r", "with a reference", "k", uint8(8|4))
	f.Add("s", "a result with a reference", "k", uint8(8|4|1))
	f.Add("t", "a reference in text: ", "k", uint8(16))
	f.Add("u", "{", "k", uint8(16|1))

	schemas := []string{
		// b: deny-list
		`"outputSchema":{"type":"object","properties":{"secret":{"x-sensitive":true},"list":{"type":"array","items":{"properties":{"k":{"x-sensitive":true}}}}}}`,
		// a1: allow-list
		`"annotations":{"sensitiveHint":true},"outputSchema":{"type":"object","properties":{"secret":{"x-sensitive":true},"list":{},"text":{},"other":{}},"additionalProperties":true}`,
		// a3: whole
		`"annotations":{"sensitiveHint":true}`,
		// patterns and refs
		`"outputSchema":{"patternProperties":{"^s":{"x-sensitive":true}},"$defs":{"x":{"x-sensitive":true}},"properties":{"list":{"items":{"$ref":"#/$defs/x"}}}}`,
	}
	f.Fuzz(func(t *testing.T, suffix, text, key string, shape uint8) {
		// Tool output is JSON.stringify text of JavaScript strings, which
		// are never invalid UTF-8 once encoded.
		if !utf8.ValidString(suffix) || !utf8.ValidString(text) || !utf8.ValidString(key) {
			t.Skip("not valid UTF-8, which JSON.stringify text never is")
		}
		secret := "SECRET-" + suffix
		out := map[string]any{
			"secret": secret,
			"list":   []any{map[string]any{"k": secret, key: text}, secret},
			"text":   text + secret + text,
			"other":  map[string]any{key: text},
		}
		if shape&8 != 0 {
			// A reference whose id is the secret, among the values.
			out["ref"] = map[string]any{"type": "secret_reference", "id": secret, "label": "Key", "redeemUrl": "/r/" + secret}
		}
		if shape&16 != 0 {
			// The same reference written as JSON text inside a string.
			ref, _ := json.Marshal(map[string]any{"type": "secret_reference", "id": secret, "label": "Key", "redeemUrl": "/r/" + secret})
			out["text"] = text + string(ref) + text
		}
		if shape&1 == 1 {
			out = map[string]any{
				"content":           []any{map[string]any{"type": "text", "text": "mirror " + secret + " " + text}},
				"structuredContent": out,
			}
		}
		data, err := json.Marshal(out)
		if err != nil {
			t.Skipf("json.Marshal: %v", err)
		}
		// JSON.stringify does not escape <, > and &; neither should the
		// text the engine sees.
		str := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(data))
		def := schemas[int(shape>>1&3)%len(schemas)]
		e := New(&Options{Origin: testOrigin})
		mustRegister(t, e, `{"name":"t","description":"d",`+def+`}`)
		res := e.OutputOf("t", Outcome{Kind: Returned, Data: str})
		if res.Err != nil {
			if strings.Contains(res.Err.Message, secret) {
				t.Fatalf("error message leaks the secret: %s", res.Err.Message)
			}
			return
		}
		enc, _ := json.Marshal(secret)
		if strings.Contains(res.Agent, secret) || strings.Contains(res.Agent, string(enc[1:len(enc)-1])) {
			t.Fatalf("agent view holds %q: %s", secret, res.Agent)
		}
		for _, s := range jsonStrings(t, res.Agent) {
			if strings.Contains(s, secret) {
				t.Fatalf("a decoded string of the agent view holds %q: %q", secret, s)
			}
		}
	})
}

// FuzzParse checks that the reader accepts what encoding/json accepts,
// that countValues never counts fewer values than the tree holds (so the
// parser never grows its nodes), and that a tree's value round-trips.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `[1,"a",{"b":null}]`, `"\ud83d\ude00\u0041"`, `-0.5e-3`, `{"a":1,"a":2}`, ` [ ] `, `"\ud800"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tr, err := parseTree(s)
		valid := json.Valid([]byte(s))
		if (err == nil) != valid {
			t.Fatalf("parseTree(%q) error %v, json.Valid %v", s, err, valid)
		}
		if err == nil && countValues(s) < len(tr.nodes) {
			t.Fatalf("countValues(%q) = %d, the tree has %d nodes", s, countValues(s), len(tr.nodes))
		}
		if err != nil || !utf8.ValidString(s) {
			// Text that is not UTF-8 never comes from a page (the bridge
			// from JavaScript makes UTF-8); the reader keeps its bytes
			// where encoding/json writes U+FFFD.
			return
		}
		var want any
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(tr.value(0))
		wantJSON, _ := json.Marshal(want)
		if string(got) != string(wantJSON) {
			t.Fatalf("parseTree(%q) value %s, encoding/json %s", s, got, wantJSON)
		}
	})
}
