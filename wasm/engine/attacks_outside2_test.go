package engine_test

// Inputs written by Python 3's standard library (json.dumps, repr,
// base64.b64encode and urlsafe_b64encode, binascii.hexlify, html.escape,
// urllib.parse.quote, textwrap.wrap), pasted as they came, against what
// the engine reads in a string's JSON text, in encodings cut into lines,
// and in encodings that name secret_reference. TestOutside2Withheld keeps
// the forms the engine handled from the start; each TestAttackOutside2
// test was a leak and holds its fix. What docs/agent-view.md lists as not
// matched (a record's JSON inside base64 or percent-encoding, HTML-escaped
// twice, a Python repr, base64 whose pieces are padded each) is left out.

import (
	"strings"
	"testing"

	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/leakcheck"
)

// The reference whose JSON the reference cases encode, and what of it
// must not reach the agent.
const (
	o2RefID         = "ref_7Hq2Kd9sLmW4"
	o2RefCapability = "Zk93mQp2Lr8vXy1T"
)

// o2Card has read_card return text beside structuredContent holding the
// same card, and returns the view and its text items.
func o2Card(t *testing.T, text string) (engine.Result, []string) {
	t.Helper()
	e := rtEngine(t, nil, outsideReadCard)
	out := `{"content":[{"type":"text","text":` + rtJSON(text) + `}],"structuredContent":{"id":"card_1","last4":"1111","cvv":"737","hivPositive":true}}`
	res := e.OutputOf("read_card", engine.Outcome{Kind: engine.Returned, Data: out})
	if res.Err != nil {
		return res, nil
	}
	if res.Held == 0 {
		t.Fatalf("read_card withheld nothing:\n%s", res.Agent)
	}
	return res, outsideTexts(t, res.Agent)
}

// o2CardLeaks fails when a text item of the view is text as it came or
// still shows the cvv or the flag.
func o2CardLeaks(t *testing.T, text string) {
	t.Helper()
	res, texts := o2Card(t, text)
	for _, x := range texts {
		if x == text || strings.Contains(x, "737") || strings.Contains(x, "True") || strings.Contains(x, "true") || strings.Contains(x, "false") {
			t.Errorf("the card's cvv or flag reached the agent in the text item:\ntext: %q\nview: %s", text, res.Agent)
		}
	}
}

// o2Lines has list_log return the withheld key's encoding cut into
// strings, and fails when the view passes them as they came.
func o2Lines(t *testing.T, output string) {
	t.Helper()
	res := outsideEcho(t, outsideKey, engine.Returned, output)
	rtNoLeak(t, output, res, outsideKey)
	if res.Err == nil && (res.Unchanged || res.Agent == output) {
		t.Errorf("the key's encoding, cut into strings, reached the agent unchanged:\n%s", res.Agent)
	}
}

// o2Ref has list_log return output, and fails when the reference's id or
// capability reaches the agent.
func o2Ref(t *testing.T, output string) {
	t.Helper()
	e := rtEngine(t, nil, rtListLog)
	res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Returned, Data: output})
	if res.Err != nil {
		return
	}
	if res.Unchanged || res.Agent == output {
		t.Errorf("the encoded reference reached the agent unchanged:\n%s", res.Agent)
	}
	for _, v := range []string{o2RefCapability, o2RefID} {
		if where, found := leakcheck.Find(res.Agent, v); found {
			t.Errorf("the reference's %q reached the agent, in %s:\n%s", v, where, res.Agent)
		}
	}
}

// TestOutside2Withheld: the forms the engine withholds.
func TestOutside2Withheld(t *testing.T) {
	cards := map[string]string{
		// Python 3: json.dumps({"data": json.dumps({"id": "card_1", "cvv": "737", "score": float("nan")})})
		"NaN in JSON in JSON": `{"data": "{\"id\": \"card_1\", \"cvv\": \"737\", \"score\": NaN}"}`,
		// Python 3: json.dumps(rec).replace('"', "&#34;") (Go's html.EscapeString writes &#34;)
		"&#34; attribute":    `<div data-card="{&#34;id&#34;: &#34;card_1&#34;, &#34;last4&#34;: &#34;1111&#34;, &#34;cvv&#34;: &#34;737&#34;}"></div>`,
		"&#x22; attribute":   `<div data-card="{&#x22;id&#x22;: &#x22;card_1&#x22;, &#x22;last4&#x22;: &#x22;1111&#x22;, &#x22;cvv&#x22;: &#x22;737&#x22;}"></div>`,
		"mixed references":   `<div data-card="{&quot;id&#34;: &#x22;card_1&quot;, &#34;cvv&#x22;: &quot;737&#34;}"></div>`,
		"&quot no semicolon": `<div data-card="{&quotid&quot: &quotcard_1&quot, &quotlast4&quot: &quot1111&quot, &quotcvv&quot: &quot737&quot}"></div>`,
		// Python 3: json.dumps([{"id": "card_1", "hivPositive": True}, {"id": "card_2", "hivPositive": False}])
		"booleans in an array of records": `[{"id": "card_1", "hivPositive": true}, {"id": "card_2", "hivPositive": false}]`,
		"boolean beside -Infinity":        `{"id": "card_1", "hivPositive": false, "score": -Infinity}`,
		"JSON Lines":                      "{\"id\": \"card_0\"}\n{\"id\": \"card_1\", \"cvv\": \"737\"}",
		"cvv as a number":                 `{"id": "card_1", "cvv": 737}`,
		"cvv in \\u escapes":              `{"id": "card_1", "cvv": "\u0037\u0033\u0037"}`,
		"duplicate member":                `{"id": "card_1", "cvv": "737", "cvv": null}`,
	}
	for name, text := range cards {
		t.Run("card/"+name, func(t *testing.T) { o2CardLeaks(t, text) })
	}
	// Python 3: textwrap.wrap(base64.b64encode(key.encode()).decode(), n),
	// and urlsafe_b64encode's output, as JSON lists.
	lines := map[string]string{
		"wrapped at 5":     `["c2tfb", "Gl2ZV", "81MUh", "xTHlq", "V0Rhc", "mp0VD", "F6ZHA", "3ZGM="]`,
		"unequal widths":   `["c2tfbGl2ZV81", "MUhxTHlqV0Rhcmp0VDF6ZH", "A3ZGM="]`,
		"base64url":        `["eHNrX2xpdmVf", "NTFIcUx5aldE", "YXJqdFQxemRw", "N2RjPz8-Pg"]`,
		"indented":         "[\n  \"c2tfbGl2ZV81MUhx\",\n  \"THlqV0Rhcmp0VDF6\",\n  \"ZHA3ZGM=\"\n]",
		"members, escaped": `{"l1": "c2tfbGl2ZV81MUhx", "l2": "THlqV0Rhcmp0VDF6", "l3": "ZHA3ZGM\u003d"}`,
	}
	for name, output := range lines {
		t.Run("lines/"+name, func(t *testing.T) { o2Lines(t, output) })
	}
	refs := map[string]string{
		// Python 3: a JWT (alg none) whose header's kid is the reference
		"JWT header": `"eyJhbGciOiJub25lIiwidHlwIjoiSldUIiwia2lkIjp7InR5cGUiOiJzZWNyZXRfcmVmZXJlbmNlIiwiaWQiOiJyZWZfN0hxMktkOXNMbVc0IiwibGFiZWwiOiJTdHJpcGUga2V5IiwicmVkZWVtVXJsIjoiaHR0cHM6Ly9hcHAuZXhhbXBsZS9yZWRlZW0vcmVmXzdIcTJLZDlzTG1XND9jYXA9Wms5M21RcDJMcjh2WHkxVCJ9fQ.eyJzdWIiOiJ1MSJ9."`,
		// Python 3: binascii.hexlify(json.dumps(ref).encode(), ":")
		"hex with colons": `"7b:22:74:79:70:65:22:3a:20:22:73:65:63:72:65:74:5f:72:65:66:65:72:65:6e:63:65:22:2c:20:22:69:64:22:3a:20:22:72:65:66:5f:37:48:71:32:4b:64:39:73:4c:6d:57:34:22:2c:20:22:6c:61:62:65:6c:22:3a:20:22:53:74:72:69:70:65:20:6b:65:79:22:2c:20:22:72:65:64:65:65:6d:55:72:6c:22:3a:20:22:68:74:74:70:73:3a:2f:2f:61:70:70:2e:65:78:61:6d:70:6c:65:2f:72:65:64:65:65:6d:2f:72:65:66:5f:37:48:71:32:4b:64:39:73:4c:6d:57:34:3f:63:61:70:3d:5a:6b:39:33:6d:51:70:32:4c:72:38:76:58:79:31:54:22:7d"`,
		// Python 3: base64.b64encode(base64.b64encode(json.dumps(ref).encode()))
		"double base64": `"ZXlKMGVYQmxJam9nSW5ObFkzSmxkRjl5WldabGNtVnVZMlVpTENBaWFXUWlPaUFpY21WbVh6ZEljVEpMWkRselRHMVhOQ0lzSUNKc1lXSmxiQ0k2SUNKVGRISnBjR1VnYTJWNUlpd2dJbkpsWkdWbGJWVnliQ0k2SUNKb2RIUndjem92TDJGd2NDNWxlR0Z0Y0d4bEwzSmxaR1ZsYlM5eVpXWmZOMGh4TWt0a09YTk1iVmMwUDJOaGNEMWFhemt6YlZGd01reHlPSFpZZVRGVUluMD0="`,
		// Python 3: urllib.parse.quote(base64.b64encode(json.dumps(ref).encode()), safe="")
		"percent-encoded base64": `"eyJ0eXBlIjogInNlY3JldF9yZWZlcmVuY2UiLCAiaWQiOiAicmVmXzdIcTJLZDlzTG1XNCIsICJsYWJlbCI6ICJTdHJpcGUga2V5IiwgInJlZGVlbVVybCI6ICJodHRwczovL2FwcC5leGFtcGxlL3JlZGVlbS9yZWZfN0hxMktkOXNMbVc0P2NhcD1aazkzbVFwMkxyOHZYeTFUIn0%3D"`,
	}
	for name, output := range refs {
		t.Run("reference/"+name, func(t *testing.T) { o2Ref(t, output) })
	}
}

// Rule (d): "Consecutive strings written in base64's or hex's alphabet
// alone ... are read as one encoding cut into lines", for "consecutive
// members of one object" too. The members of an object with no escapes
// pass the fast path unread: hasEncodingLines looks for strings with
// only a comma between them, and members have their names between. The
// same object with one \u escape in it is parsed, and scrubbed.
func TestAttackOutside2EncodingLinesInObjectMembers(t *testing.T) {
	// Python 3: dict(zip(names, textwrap.wrap(base64.b64encode(key.encode()).decode(), 16)))
	for _, output := range []string{
		`{"l1": "c2tfbGl2ZV81MUhx", "l2": "THlqV0Rhcmp0VDF6", "l3": "ZHA3ZGM="}`,
		`{"first": "c2tfbGl2ZV81MUhx", "second": "THlqV0Rhcmp0VDF6", "third": "ZHA3ZGM="}`,
	} {
		o2Lines(t, output)
	}
}

// The same, for lines of three characters (textwrap.wrap(b64, 3)):
// encodingLine takes only strings of four bytes or more, and the docs set
// no width.
func TestAttackOutside2EncodingLinesOfThree(t *testing.T) {
	o2Lines(t, `["c2t", "fbG", "l2Z", "V81", "MUh", "xTH", "lqV", "0Rh", "cmp", "0VD", "F6Z", "HA3", "ZGM", "="]`)
}

// References: "A run of base64 ... that decodes to a text naming it counts
// too", and rule (d) reads base64 "cut into lines of one string each" as
// one encoding. A reference's JSON in base64, cut into two items or into
// 16-character lines, is not read as one: in two items, the first (which
// names secret_reference) is withheld and the second, holding redeemUrl
// with its capability, reaches the agent; in lines, no line names the
// type and all pass unchanged.
func TestAttackOutside2ReferenceSplitAcrossItems(t *testing.T) {
	tests := map[string]string{
		// Python 3: b = base64.b64encode(json.dumps(ref).encode()).decode(); [b[:104], b[104:]]
		"two items": `["eyJ0eXBlIjogInNlY3JldF9yZWZlcmVuY2UiLCAiaWQiOiAicmVmXzdIcTJLZDlzTG1XNCIsICJsYWJlbCI6ICJTdHJpcGUga2V5Iiwg", "InJlZGVlbVVybCI6ICJodHRwczovL2FwcC5leGFtcGxlL3JlZGVlbS9yZWZfN0hxMktkOXNMbVc0P2NhcD1aazkzbVFwMkxyOHZYeTFUIn0="]`,
		// Python 3: textwrap.wrap(b, 16)
		"16-character lines": `["eyJ0eXBlIjogInNl", "Y3JldF9yZWZlcmVu", "Y2UiLCAiaWQiOiAi", "cmVmXzdIcTJLZDlz", "TG1XNCIsICJsYWJl", "bCI6ICJTdHJpcGUg", "a2V5IiwgInJlZGVl", "bVVybCI6ICJodHRw", "czovL2FwcC5leGFt", "cGxlL3JlZGVlbS9y", "ZWZfN0hxMktkOXNM", "bVc0P2NhcD1aazkz", "bVFwMkxyOHZYeTFU", "In0="]`,
	}
	for name, output := range tests {
		t.Run(name, func(t *testing.T) {
			o2Ref(t, output)
			if strings.Contains(output, "InJlZGVlbVVybCI6ICJodHRwczovL2FwcC5leGFtcGxlL3JlZGVlbS9yZWZfN0hxMktkOXNMbVc0P2NhcD1aazkzbVFwMkxyOHZYeTFUIn0=") {
				e := rtEngine(t, nil, rtListLog)
				res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Returned, Data: output})
				if res.Err == nil && strings.Contains(res.Agent, "P2NhcD1aazkzbVFwMkxyOHZYeTFU") {
					t.Errorf("the base64 of redeemUrl's ?cap=%s reached the agent:\n%s", o2RefCapability, res.Agent)
				}
			}
		})
	}
}

// "JSON quoted in a sentence" is read against the schema, and "past a
// bound the engine fails closed". Past 1,024 braces that start no JSON
// (template placeholders, "{x}"), the record after them is not read, and
// the cvv stays in the text beside the structuredContent it was withheld
// from.
func TestAttackOutside2EmbeddedJSONPastBraces(t *testing.T) {
	// Python 3: "{x} " * 1100 + json.dumps({"id": "card_1", "cvv": "737"})
	o2CardLeaks(t, strings.Repeat("{x} ", 1100)+`{"id": "card_1", "cvv": "737"}`)
}

// The same lines as a string result that is JSON text (a tool that
// returns JSON.stringify of its list): judged as the list it holds.
func TestAttackOutside2ReferenceLinesInStringResult(t *testing.T) {
	lines := `["eyJ0eXBlIjogInNl", "Y3JldF9yZWZlcmVu", "Y2UiLCAiaWQiOiAi", "cmVmXzdIcTJLZDlz", "TG1XNCIsICJsYWJl", "bCI6ICJTdHJpcGUg", "a2V5IiwgInJlZGVl", "bVVybCI6ICJodHRw", "czovL2FwcC5leGFt", "cGxlL3JlZGVlbS9y", "ZWZfN0hxMktkOXNM", "bVc0P2NhcD1aazkz", "bVFwMkxyOHZYeTFU", "In0="]`
	e := rtEngine(t, nil, rtListLog)
	res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: lines})
	if res.Err == nil && strings.Contains(res.Agent, "bVFwMkxyOHZYeTFU") {
		t.Errorf("the encoded reference's lines reached the agent:\n%s", res.Agent)
	}
}

// Node's Buffer in JSON ({"type":"Buffer","data":[…]}, what res.json
// writes for {token: buf}) and a plain list of a string's bytes hold a key
// withheld earlier as byte values: the array goes, and what is around it
// stays. Each output was written by Node 20:
//
//	JSON.stringify({token: Buffer.from(key)})
//	JSON.stringify({content: [{type: "text", text: JSON.stringify({ok: true, key: Buffer.from(key)})}]})
//	JSON.stringify({bytes: Array.from(new TextEncoder().encode(key))})
func TestAttackOutsideByteValues(t *testing.T) {
	const bytes = "115,107,95,108,105,118,101,95,53,49,72,113,76,121,106,87,68,97,114,106,116,84,49,122,100,112,55,100,99"
	tests := []struct {
		name, output, keep string
	}{
		{"Node 20: Buffer in res.json", `{"token":{"type":"Buffer","data":[115,107,95,108,105,118,101,95,53,49,72,113,76,121,106,87,68,97,114,106,116,84,49,122,100,112,55,100,99]}}`, `"Buffer"`},
		{"Node 20: Buffer in a text item's JSON", `{"content":[{"type":"text","text":"{\"ok\":true,\"key\":{\"type\":\"Buffer\",\"data\":[115,107,95,108,105,118,101,95,53,49,72,113,76,121,106,87,68,97,114,106,116,84,49,122,100,112,55,100,99]}}"}]}`, `ok\":true`},
		{"Node 20: TextEncoder's bytes as a list", `{"bytes":[115,107,95,108,105,118,101,95,53,49,72,113,76,121,106,87,68,97,114,106,116,84,49,122,100,112,55,100,99]}`, `withheld`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := outsideEcho(t, outsideKey, engine.Returned, tc.output)
			if res.Err != nil {
				t.Fatalf("list_log failed: %v", res.Err)
			}
			outsideAbsent(t, res.Agent, bytes, strings.ReplaceAll(bytes, ",", ", "))
			if !strings.Contains(res.Agent, tc.keep) {
				t.Errorf("%s is gone from the view:\n%s", tc.keep, res.Agent)
			}
		})
	}
}

// A Uint8Array in JSON is an object of its bytes by index: it holds a key
// withheld earlier as a Buffer's data does, and goes whole. Written by
// Node 20:
//
//	JSON.stringify({token: new TextEncoder().encode(key)})
//	JSON.stringify({content: [{type: "text", text: JSON.stringify({ok: true, key: new TextEncoder().encode(key)})}]})
func TestAttackOutsideUint8ArrayInJSON(t *testing.T) {
	const bytes = `"0":115,"1":107,"2":95,"3":108,"4":105,"5":118,"6":101,"7":95,"8":53,"9":49,"10":72,"11":113,"12":76,"13":121,"14":106,"15":87,"16":68,"17":97,"18":114,"19":106,"20":116,"21":84,"22":49,"23":122,"24":100,"25":112,"26":55,"27":100,"28":99`
	tests := []struct {
		name, output, keep string
	}{
		{"Node 20: a Uint8Array in JSON", `{"token":{` + bytes + `},"ok":true}`, `"ok":true`},
		{"Node 20: a Uint8Array in a text item's JSON", `{"content":[{"type":"text","text":"{\"ok\":true,\"key\":{\"0\":115,\"1\":107,\"2\":95,\"3\":108,\"4\":105,\"5\":118,\"6\":101,\"7\":95,\"8\":53,\"9\":49,\"10\":72,\"11\":113,\"12\":76,\"13\":121,\"14\":106,\"15\":87,\"16\":68,\"17\":97,\"18\":114,\"19\":106,\"20\":116,\"21\":84,\"22\":49,\"23\":122,\"24\":100,\"25\":112,\"26\":55,\"27\":100,\"28\":99}}"}]}`, `ok\":true`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := outsideEcho(t, outsideKey, engine.Returned, tc.output)
			if res.Err != nil {
				t.Fatalf("list_log failed: %v", res.Err)
			}
			outsideAbsent(t, res.Agent, `"10":72,"11":113`, `\"10\":72,\"11\":113`)
			if !strings.Contains(res.Agent, tc.keep) {
				t.Errorf("%s is gone from the view:\n%s", tc.keep, res.Agent)
			}
		})
	}
}

// A Uint8Array of other text, and an object of small numbers by index,
// pass byte for byte. Written by Node 20:
// JSON.stringify({greeting: new TextEncoder().encode("hello, world"), ids: {0: 3, 1: 1, 2: 4, 3: 1}}).
func TestOutsideUint8ArrayKept(t *testing.T) {
	const output = `{"greeting":{"0":104,"1":101,"2":108,"3":108,"4":111,"5":44,"6":32,"7":119,"8":111,"9":114,"10":108,"11":100},"ids":{"0":3,"1":1,"2":4,"3":1}}`
	res := outsideEcho(t, outsideKey, engine.Returned, output)
	if res.Err != nil {
		t.Fatalf("list_log failed: %v", res.Err)
	}
	if res.Agent != output {
		t.Errorf("byte values that hold nothing withheld were changed:\noutput: %s\nview:   %s", output, res.Agent)
	}
}

// Go's %v of a []byte is a list of byte values in brackets, spaces
// between them, as log lines hold it: a key withheld earlier in one goes,
// in a text and in a JSON string. Written by Go 1.24:
//
//	fmt.Sprintf("buf=%v ok", []byte(key))
//	json.Marshal(map[string]string{"log": fmt.Sprintf("got %v from the vault", []byte(key))})
func TestAttackOutsideGoByteSlice(t *testing.T) {
	const bytes = "115 107 95 108 105 118 101 95 53 49 72 113 76 121 106 87 68 97 114 106 116 84 49 122 100 112 55 100 99"
	tests := []struct {
		name, output string
		kind         engine.OutcomeKind
		keep         string
	}{
		{"Go: %v of a []byte in a log line", "buf=[" + bytes + "] ok", engine.Text, "ok"},
		{"Go: %v of a []byte in a JSON string", `{"log":"got [` + bytes + `] from the vault"}`, engine.Returned, "from the vault"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := outsideEcho(t, outsideKey, tc.kind, tc.output)
			if res.Err != nil {
				t.Fatalf("list_log failed: %v", res.Err)
			}
			outsideAbsent(t, res.Agent, "53 49 72 113 76")
			if !strings.Contains(res.Agent, tc.keep) {
				t.Errorf("%s is gone from the view:\n%s", tc.keep, res.Agent)
			}
		})
	}
}

// Byte values that hold nothing withheld pass byte for byte: a Buffer of
// other text, and a list of small numbers. Written by Node 20:
// JSON.stringify({greeting: Buffer.from("hello, world"), scores: [3,1,4,1,5,9]}).
func TestOutsideByteValuesKept(t *testing.T) {
	const output = `{"greeting":{"type":"Buffer","data":[104,101,108,108,111,44,32,119,111,114,108,100]},"scores":[3,1,4,1,5,9]}`
	res := outsideEcho(t, outsideKey, engine.Returned, output)
	if res.Err != nil {
		t.Fatalf("list_log failed: %v", res.Err)
	}
	if res.Agent != output {
		t.Errorf("byte values that hold nothing withheld were changed:\noutput: %s\nview:   %s", output, res.Agent)
	}
}
