package engine_test

// Tests written apart from the engine's own: each input is what a real
// encoder or serializer wrote (Python 3's standard library, Node 20, Go's
// encoding/json), pasted as it came; the case's comment names it. A value
// one tool withheld must not come back in a later output of the session,
// and a later output that repeats nothing withheld must pass unchanged.
// This file holds what held; attack_independent_open_test.go (build tag
// attack) holds what did not, each asserting the secure behaviour.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/veilmcp/veil/wasm/engine"
)

const (
	indCreateKey   = `{"name":"create_key","description":"d","outputSchema":{"type":"object","properties":{"id":{"type":"string"},"key":{"type":"string","x-sensitive":true}}}}`
	indReadProfile = `{"name":"read_profile","description":"d","annotations":{"sensitiveHint":true}}`
	indListLog     = `{"name":"list_log","description":"d"}`
)

// indSession returns an engine with create_key, read_profile and list_log.
func indSession(t *testing.T) *engine.Engine {
	t.Helper()
	e := engine.New(&engine.Options{Origin: "https://app.example"})
	for _, d := range []string{indCreateKey, indReadProfile, indListLog} {
		if _, err := e.Register(d); err != nil {
			t.Fatalf("Register: %v", err)
		}
	}
	return e
}

// indWithholdKey has create_key withhold value at its x-sensitive key.
func indWithholdKey(t *testing.T, e *engine.Engine, value string) {
	t.Helper()
	data, _ := json.Marshal(map[string]string{"id": "k1", "key": value})
	r := e.OutputOf("create_key", engine.Outcome{Kind: engine.Returned, Data: string(data)})
	if r.Err != nil || r.Held != 1 || strings.Contains(r.Agent, value) {
		t.Fatalf("create_key did not withhold its key: %+v", r)
	}
}

// indWithholdWhole has read_profile, a sensitiveHint tool without a
// schema, return data, which its view withholds whole.
func indWithholdWhole(t *testing.T, e *engine.Engine, kind engine.OutcomeKind, data string) {
	t.Helper()
	r := e.OutputOf("read_profile", engine.Outcome{Kind: kind, Data: data})
	if r.Err != nil || r.Held == 0 {
		t.Fatalf("read_profile was not withheld: %+v", r)
	}
}

// indLater returns list_log's view of data.
func indLater(t *testing.T, e *engine.Engine, kind engine.OutcomeKind, data string) string {
	t.Helper()
	r := e.OutputOf("list_log", engine.Outcome{Kind: kind, Data: data})
	if r.Err != nil {
		t.Fatalf("list_log failed: %v", r.Err)
	}
	return r.Agent
}

// indStrings returns every string of the view, member names included,
// each also without NULs, and the texts of its text items joined.
func indStrings(t *testing.T, view string) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(view), &v); err != nil {
		return []string{view, strings.ReplaceAll(view, "\x00", "")}
	}
	var out []string
	var joined strings.Builder
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			out = append(out, x, strings.ReplaceAll(x, "\x00", ""))
		case []any:
			for _, y := range x {
				walk(y)
			}
		case map[string]any:
			for k, y := range x {
				out = append(out, k)
				walk(y)
			}
			if x["type"] == "text" {
				if s, ok := x["text"].(string); ok {
					joined.WriteString(s)
				}
			}
		}
	}
	walk(v)
	return append(out, joined.String())
}

// indNoSecret fails when the view gives secret back: as written in any of
// its strings (NULs between characters aside, text items joined), or any
// of forms, the encoded shapes the output wrote it in, as written in the
// view's JSON text.
func indNoSecret(t *testing.T, view, secret string, forms ...string) {
	t.Helper()
	for _, s := range indStrings(t, view) {
		if strings.Contains(strings.ToLower(s), strings.ToLower(secret)) {
			t.Errorf("%q reached the agent:\n%s", secret, view)
			return
		}
	}
	for _, f := range forms {
		q, _ := json.Marshal(f)
		if strings.Contains(view, f) || strings.Contains(view, string(q[1:len(q)-1])) {
			t.Errorf("%q, an encoding of %q, reached the agent:\n%s", f, secret, view)
		}
	}
}

// indLeakCase is a value one output withholds and a later output that
// writes it again.
type indLeakCase struct {
	name   string
	whole  bool   // withheld by a sensitiveHint output withheld whole (data is its JSON), not at an x-sensitive key
	secret string // the value withheld
	data   string // what read_profile returns, when whole
	text   bool   // read_profile returns data as a string, not JSON
	kind   engine.OutcomeKind
	later  string   // list_log's output
	forms  []string // the secret as the later output encodes it
}

func runIndLeakCases(t *testing.T, cases []indLeakCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := indSession(t)
			if c.whole {
				kind := engine.Returned
				if c.text {
					kind = engine.Text
				}
				indWithholdWhole(t, e, kind, c.data)
			} else {
				indWithholdKey(t, e, c.secret)
			}
			indNoSecret(t, indLater(t, e, c.kind, c.later), c.secret, c.forms...)
		})
	}
}

// indOrdinaryCase is a sensitiveHint output withheld whole and a later
// output that repeats its ordinary values, which must pass unchanged.
type indOrdinaryCase struct {
	name  string
	data  string
	later string
}

func runIndOrdinaryCases(t *testing.T, cases []indOrdinaryCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := indSession(t)
			indWithholdWhole(t, e, engine.Returned, c.data)
			if got := indLater(t, e, engine.Text, c.later); got != c.later {
				t.Errorf("an ordinary later output was changed\nwithheld: %s\nlater:    %q\nview:     %s", c.data, c.later, got)
			}
		})
	}
}

// TestIndependentEncodingsOfAWithheldValueStayWithheld: a key, a name or an
// address create_key withheld comes back in list_log's output written by a
// real encoder, or in a part of an MCP result other than text; none of it
// reaches the agent.
func TestIndependentEncodingsOfAWithheldValueStayWithheld(t *testing.T) {
	runIndLeakCases(t, []indLeakCase{
		// python3: key.encode("utf-16-le").decode("latin-1") (a UTF-16 file read as Latin-1: NULs between characters)
		{name: "UTF16LEReadAsLatin1", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "s\u0000k\u0000_\u0000l\u0000i\u0000v\u0000e\u0000_\u00005\u00001\u0000H\u0000q\u0000L\u0000y\u0000j\u0000W\u0000D\u0000a\u0000r\u0000j\u0000t\u0000T\u00001\u0000z\u0000d\u0000p\u00007\u0000d\u0000c\u0000"},
		// python3: ("API_KEY="+key+"\r\n").encode("utf-16").decode("latin-1")
		{name: "UTF16FileWithBOMReadAsLatin1", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "ÿþA\u0000P\u0000I\u0000_\u0000K\u0000E\u0000Y\u0000=\u0000s\u0000k\u0000_\u0000l\u0000i\u0000v\u0000e\u0000_\u00005\u00001\u0000H\u0000q\u0000L\u0000y\u0000j\u0000W\u0000D\u0000a\u0000r\u0000j\u0000t\u0000T\u00001\u0000z\u0000d\u0000p\u00007\u0000d\u0000c\u0000\r\u0000\n\u0000"},
		// python3: json.dumps({"content": ("API_KEY="+key).encode("utf-16-le").decode("latin-1")})
		{name: "UTF16LEInJSONMember", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\": \"A\\u0000P\\u0000I\\u0000_\\u0000K\\u0000E\\u0000Y\\u0000=\\u0000s\\u0000k\\u0000_\\u0000l\\u0000i\\u0000v\\u0000e\\u0000_\\u00005\\u00001\\u0000H\\u0000q\\u0000L\\u0000y\\u0000j\\u0000W\\u0000D\\u0000a\\u0000r\\u0000j\\u0000t\\u0000T\\u00001\\u0000z\\u0000d\\u0000p\\u00007\\u0000d\\u0000c\\u0000\"}"},
		// python3: base64.b64encode(cmd.encode("utf-16-le")) (powershell -EncodedCommand)
		{name: "PowerShellEncodedCommand", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "powershell -EncodedCommand JABlAG4AdgA6AEsARQBZAD0AJwBzAGsAXwBsAGkAdgBlAF8ANQAxAEgAcQBMAHkAagBXAEQAYQByAGoAdABUADEAegBkAHAANwBkAGMAJwA=",
			forms: []string{"JABlAG4AdgA6AEsARQBZAD0AJwBzAGsAXwBsAGkAdgBlAF8ANQAxAEgAcQBMAHkAagBXAEQAYQByAGoAdABUADEAegBkAHAANwBkAGMAJwA="}},
		// python3: base64.b64encode(key.encode("utf-16-be"))
		{name: "Base64OfUTF16BE", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "AHMAawBfAGwAaQB2AGUAXwA1ADEASABxAEwAeQBqAFcARABhAHIAagB0AFQAMQB6AGQAcAA3AGQAYw==",
			forms: []string{"AHMAawBfAGwAaQB2AGUAXwA1ADEASABxAEwAeQBqAFcARABhAHIAagB0AFQAMQB6AGQAcAA3AGQAYw=="}},
		// python3: key.encode("utf-16-le").hex()
		{name: "HexOfUTF16LE", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "73006b005f006c006900760065005f0035003100480071004c0079006a0057004400610072006a007400540031007a0064007000370064006300",
			forms: []string{"73006b005f006c006900760065005f0035003100480071004c0079006a0057004400610072006a007400540031007a0064007000370064006300"}},
		// python3: repr(("KEY="+key).encode("utf-16-le"))
		{name: "PythonReprOfUTF16Bytes", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "b'K\\x00E\\x00Y\\x00=\\x00s\\x00k\\x00_\\x00l\\x00i\\x00v\\x00e\\x00_\\x005\\x001\\x00H\\x00q\\x00L\\x00y\\x00j\\x00W\\x00D\\x00a\\x00r\\x00j\\x00t\\x00T\\x001\\x00z\\x00d\\x00p\\x007\\x00d\\x00c\\x00'",
			forms: []string{"1\\x00H\\x00q"}},
		// python3: key.encode("utf-32-le").decode("latin-1")
		{name: "UTF32LEReadAsLatin1", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "s\u0000\u0000\u0000k\u0000\u0000\u0000_\u0000\u0000\u0000l\u0000\u0000\u0000i\u0000\u0000\u0000v\u0000\u0000\u0000e\u0000\u0000\u0000_\u0000\u0000\u00005\u0000\u0000\u00001\u0000\u0000\u0000H\u0000\u0000\u0000q\u0000\u0000\u0000L\u0000\u0000\u0000y\u0000\u0000\u0000j\u0000\u0000\u0000W\u0000\u0000\u0000D\u0000\u0000\u0000a\u0000\u0000\u0000r\u0000\u0000\u0000j\u0000\u0000\u0000t\u0000\u0000\u0000T\u0000\u0000\u00001\u0000\u0000\u0000z\u0000\u0000\u0000d\u0000\u0000\u0000p\u0000\u0000\u00007\u0000\u0000\u0000d\u0000\u0000\u0000c\u0000\u0000\u0000"},
		// python3: base64 of a .reg file (UTF-16 with BOM) in a resource item's blob
		{name: "RegeditExportInResourceBlob", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\": [{\"type\": \"resource\", \"resource\": {\"uri\": \"file:///x.reg\", \"mimeType\": \"text/plain\", \"blob\": \"//5XAGkAbgBkAG8AdwBzACAAUgBlAGcAaQBzAHQAcgB5ACAARQBkAGkAdABvAHIAIABWAGUAcgBzAGkAbwBuACAANQAuADAAMAANAAoADQAKAFsASABLAEUAWQBfAEMAVQBSAFIARQBOAFQAXwBVAFMARQBSAFwAUwBvAGYAdAB3AGEAcgBlAFwAQQBwAHAAXQANAAoAIgBBAHAAaQBLAGUAeQAiAD0AIgBzAGsAXwBsAGkAdgBlAF8ANQAxAEgAcQBMAHkAagBXAEQAYQByAGoAdABUADEAegBkAHAANwBkAGMAIgANAAoA\"}}]}",
			forms: []string{"AEgAcQBMAHkAagBXAEQAYQByAGoAdABUADEAegBkAHAANwBkAGMAIgANAAoA"}},
		// node: Buffer.from("KEY="+key+"\n").toString("utf16le")
		{name: "NodeUTF16LEEvenOffset", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "䕋㵙歳江癩彥ㄵ煈祌坪慄橲呴稱灤搷੣",
			forms: []string{"江癩彥ㄵ煈祌"}},
		// node: Buffer.from("KEY"+key+"\n").toString("utf16le")
		{name: "NodeUTF16LEOddOffset", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "䕋獙彫楬敶㕟䠱䱱橹䑗牡瑪ㅔ摺㝰捤",
			forms: []string{"楬敶㕟䠱䱱橹"}},
		// node: util.inspect(Buffer.from(key))
		{name: "NodeBufferInspect", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "<Buffer 73 6b 5f 6c 69 76 65 5f 35 31 48 71 4c 79 6a 57 44 61 72 6a 74 54 31 7a 64 70 37 64 63>",
			forms: []string{"73 6b 5f 6c 69 76 65"}},
		// node: JSON.stringify({token: Buffer.from(key)}) in an MCP text item
		{name: "NodeBufferJSONInTextItem", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\": [{\"type\": \"text\", \"text\": \"{\\\"token\\\":{\\\"type\\\":\\\"Buffer\\\",\\\"data\\\":[115,107,95,108,105,118,101,95,53,49,72,113,76,121,106,87,68,97,114,106,116,84,49,122,100,112,55,100,99]}}\"}]}",
			forms: []string{"115,107,95,108"}},
		// node: JSON.stringify({token: Buffer.from(key)}, null, 2) in an MCP text item
		{name: "NodeBufferJSONPrettyInTextItem", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\": [{\"type\": \"text\", \"text\": \"{\\n  \\\"token\\\": {\\n    \\\"type\\\": \\\"Buffer\\\",\\n    \\\"data\\\": [\\n      115,\\n      107,\\n      95,\\n      108,\\n      105,\\n      118,\\n      101,\\n      95,\\n      53,\\n      49,\\n      72,\\n      113,\\n      76,\\n      121,\\n      106,\\n      87,\\n      68,\\n      97,\\n      114,\\n      106,\\n      116,\\n      84,\\n      49,\\n      122,\\n      100,\\n      112,\\n      55,\\n      100,\\n      99\\n    ]\\n  }\\n}\"}]}",
			forms: []string{"113,\n      76"}},
		// node: JSON.stringify({result: JSON.stringify({token: Buffer.from(key)})})
		{name: "NodeBufferJSONStringifiedTwice", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"result\":\"{\\\"token\\\":{\\\"type\\\":\\\"Buffer\\\",\\\"data\\\":[115,107,95,108,105,118,101,95,53,49,72,113,76,121,106,87,68,97,114,106,116,84,49,122,100,112,55,100,99]}}\"}",
			forms: []string{"115,107,95,108"}},
		// python3: json.dumps(list(key.encode())) returned as a string
		{name: "PythonByteListAsText", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "[115, 107, 95, 108, 105, 118, 101, 95, 53, 49, 72, 113, 76, 121, 106, 87, 68, 97, 114, 106, 116, 84, 49, 122, 100, 112, 55, 100, 99]",
			forms: []string{"115, 107, 95"}},
		// python3: json.dumps(list(key.encode("utf-16-le")))
		{name: "UTF16LEByteList", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "[115, 0, 107, 0, 95, 0, 108, 0, 105, 0, 118, 0, 101, 0, 95, 0, 53, 0, 49, 0, 72, 0, 113, 0, 76, 0, 121, 0, 106, 0, 87, 0, 68, 0, 97, 0, 114, 0, 106, 0, 116, 0, 84, 0, 49, 0, 122, 0, 100, 0, 112, 0, 55, 0, 100, 0, 99, 0]",
			forms: []string{"115, 0, 107"}},
		// an image item whose mimeType is "image/"+key
		{name: "MIMETypeCarriesKey", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\": [{\"type\": \"image\", \"mimeType\": \"image/sk_live_51HqLyjWDarjtT1zdp7dc\", \"data\": \"iVBORw0KGgo=\"}]}"},
		// a text item whose annotations.lastModified and audience carry the key
		{name: "AnnotationCarriesKey", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\": [{\"type\": \"text\", \"text\": \"hi\", \"annotations\": {\"audience\": [\"sk_live_51HqLyjWDarjtT1zdp7dc\"], \"lastModified\": \"sk_live_51HqLyjWDarjtT1zdp7dc\"}}]}"},
		// a content item whose type is the key
		{name: "ItemTypeCarriesKey", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\": [{\"type\": \"sk_live_51HqLyjWDarjtT1zdp7dc\", \"text\": \"hi\"}]}"},
		// the result's _meta carries the key
		{name: "MetaCarriesKey", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\": [{\"type\": \"text\", \"text\": \"ok\"}], \"_meta\": {\"debug\": {\"k\": \"sk_live_51HqLyjWDarjtT1zdp7dc\"}}}"},
		// structuredContent keyed by the key
		{name: "MemberNameIsKey", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\": [{\"type\": \"text\", \"text\": \"ok\"}], \"structuredContent\": {\"sk_live_51HqLyjWDarjtT1zdp7dc\": 1}}"},
		// a resource_link whose uri ends in the key
		{name: "ResourceLinkURI", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\": [{\"type\": \"resource_link\", \"uri\": \"https://api.example/keys/sk_live_51HqLyjWDarjtT1zdp7dc\", \"name\": \"key\"}]}"},
		// an isError result quoting the key
		{name: "ErrorResultText", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"isError\": true, \"content\": [{\"type\": \"text\", \"text\": \"bad key sk_live_51HqLyjWDarjtT1zdp7dc\"}]}"},
		// a log line cut into text items of four characters
		{name: "LogInTextItemsOfFourCharacters", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\": [{\"type\": \"text\", \"text\": \"2026\"}, {\"type\": \"text\", \"text\": \"-03-\"}, {\"type\": \"text\", \"text\": \"14 1\"}, {\"type\": \"text\", \"text\": \"0:20\"}, {\"type\": \"text\", \"text\": \":26 \"}, {\"type\": \"text\", \"text\": \"INFO\"}, {\"type\": \"text\", \"text\": \" cre\"}, {\"type\": \"text\", \"text\": \"ated\"}, {\"type\": \"text\", \"text\": \" key\"}, {\"type\": \"text\", \"text\": \" sk_\"}, {\"type\": \"text\", \"text\": \"live\"}, {\"type\": \"text\", \"text\": \"_51H\"}, {\"type\": \"text\", \"text\": \"qLyj\"}, {\"type\": \"text\", \"text\": \"WDar\"}, {\"type\": \"text\", \"text\": \"jtT1\"}, {\"type\": \"text\", \"text\": \"zdp7\"}, {\"type\": \"text\", \"text\": \"dc f\"}, {\"type\": \"text\", \"text\": \"or a\"}, {\"type\": \"text\", \"text\": \"da\"}]}"},
		// a log line cut into text items of one character
		{name: "LogInTextItemsOfOneCharacter", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\": [{\"type\": \"text\", \"text\": \"2\"}, {\"type\": \"text\", \"text\": \"0\"}, {\"type\": \"text\", \"text\": \"2\"}, {\"type\": \"text\", \"text\": \"6\"}, {\"type\": \"text\", \"text\": \"-\"}, {\"type\": \"text\", \"text\": \"0\"}, {\"type\": \"text\", \"text\": \"3\"}, {\"type\": \"text\", \"text\": \"-\"}, {\"type\": \"text\", \"text\": \"1\"}, {\"type\": \"text\", \"text\": \"4\"}, {\"type\": \"text\", \"text\": \" \"}, {\"type\": \"text\", \"text\": \"1\"}, {\"type\": \"text\", \"text\": \"0\"}, {\"type\": \"text\", \"text\": \":\"}, {\"type\": \"text\", \"text\": \"2\"}, {\"type\": \"text\", \"text\": \"0\"}, {\"type\": \"text\", \"text\": \":\"}, {\"type\": \"text\", \"text\": \"2\"}, {\"type\": \"text\", \"text\": \"6\"}, {\"type\": \"text\", \"text\": \" \"}, {\"type\": \"text\", \"text\": \"I\"}, {\"type\": \"text\", \"text\": \"N\"}, {\"type\": \"text\", \"text\": \"F\"}, {\"type\": \"text\", \"text\": \"O\"}, {\"type\": \"text\", \"text\": \" \"}, {\"type\": \"text\", \"text\": \"c\"}, {\"type\": \"text\", \"text\": \"r\"}, {\"type\": \"text\", \"text\": \"e\"}, {\"type\": \"text\", \"text\": \"a\"}, {\"type\": \"text\", \"text\": \"t\"}, {\"type\": \"text\", \"text\": \"e\"}, {\"type\": \"text\", \"text\": \"d\"}, {\"type\": \"text\", \"text\": \" \"}, {\"type\": \"text\", \"text\": \"k\"}, {\"type\": \"text\", \"text\": \"e\"}, {\"type\": \"text\", \"text\": \"y\"}, {\"type\": \"text\", \"text\": \" \"}, {\"type\": \"text\", \"text\": \"s\"}, {\"type\": \"text\", \"text\": \"k\"}, {\"type\": \"text\", \"text\": \"_\"}, {\"type\": \"text\", \"text\": \"l\"}, {\"type\": \"text\", \"text\": \"i\"}, {\"type\": \"text\", \"text\": \"v\"}, {\"type\": \"text\", \"text\": \"e\"}, {\"type\": \"text\", \"text\": \"_\"}, {\"type\": \"text\", \"text\": \"5\"}, {\"type\": \"text\", \"text\": \"1\"}, {\"type\": \"text\", \"text\": \"H\"}, {\"type\": \"text\", \"text\": \"q\"}, {\"type\": \"text\", \"text\": \"L\"}, {\"type\": \"text\", \"text\": \"y\"}, {\"type\": \"text\", \"text\": \"j\"}, {\"type\": \"text\", \"text\": \"W\"}, {\"type\": \"text\", \"text\": \"D\"}, {\"type\": \"text\", \"text\": \"a\"}, {\"type\": \"text\", \"text\": \"r\"}, {\"type\": \"text\", \"text\": \"j\"}, {\"type\": \"text\", \"text\": \"t\"}, {\"type\": \"text\", \"text\": \"T\"}, {\"type\": \"text\", \"text\": \"1\"}, {\"type\": \"text\", \"text\": \"z\"}, {\"type\": \"text\", \"text\": \"d\"}, {\"type\": \"text\", \"text\": \"p\"}, {\"type\": \"text\", \"text\": \"7\"}, {\"type\": \"text\", \"text\": \"d\"}, {\"type\": \"text\", \"text\": \"c\"}, {\"type\": \"text\", \"text\": \" \"}, {\"type\": \"text\", \"text\": \"f\"}, {\"type\": \"text\", \"text\": \"o\"}, {\"type\": \"text\", \"text\": \"r\"}, {\"type\": \"text\", \"text\": \" \"}, {\"type\": \"text\", \"text\": \"a\"}, {\"type\": \"text\", \"text\": \"d\"}, {\"type\": \"text\", \"text\": \"a\"}]}"},
		// U+2060 WORD JOINER inside the key
		{name: "WordJoinerInside", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "sk_liv⁠e_51HqLyjWDarjtT1zdp7dc",
			forms: []string{"e_51HqLyjWDarjtT1zdp7dc"}},
		// python3: base64.b64encode(b"<p>"+key broken by <wbr>+"</p>")
		{name: "Base64OfHTMLWithWbr", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "PHA+c2tfbGl2PHdicj5lXzUxSHE8d2JyPkx5aldEYTx3YnI+cmp0VDF6PHdicj5kcDdkYzwvcD4=",
			forms: []string{"PHA+c2tfbGl2PHdicj5lXzUxSHE8d2JyPkx5aldEYTx3YnI+cmp0VDF6PHdicj5kcDdkYzwvcD4="}},
		// node: "ada@" + new URL("https://bücher-münchen.de").hostname
		{name: "PunycodeAddressNodeURL", secret: "ada@bücher-münchen.de", kind: engine.Text,
			later: "ada@xn--bcher-mnchen-dlbg.de",
			forms: []string{"xn--bcher-mnchen-dlbg", "XN--BCHER-MNCHEN-DLBG"}},
		// the same address in capitals
		{name: "PunycodeAddressUppercase", secret: "ada@bücher-münchen.de", kind: engine.Text,
			later: "ADA@XN--BCHER-MNCHEN-DLBG.DE",
			forms: []string{"xn--bcher-mnchen-dlbg", "XN--BCHER-MNCHEN-DLBG"}},
		// python3: base64 of "ada@"+domain.encode("idna")+":x" after Basic
		{name: "PunycodeAddressInBasicAuth", secret: "ada@bücher-münchen.de", kind: engine.Text,
			later: "Authorization: Basic YWRhQHhuLS1iY2hlci1tbmNoZW4tZGxiZy5kZTp4",
			forms: []string{"YWRhQHhuLS1iY2hlci1tbmNoZW4tZGxiZy5kZTp4"}},
		// python3: name.encode("utf-8").decode("cp1252")
		{name: "MojibakeOnce", secret: "Jürgen Müller", kind: engine.Text,
			later: "JÃ¼rgen MÃ¼ller",
			forms: []string{"JÃ¼rgen MÃ¼ller"}},
		// python3: json.dumps({"name": mojibake})
		{name: "MojibakeInReturnedJSON", secret: "Jürgen Müller", kind: engine.Returned,
			later: "{\"name\": \"J\\u00c3\\u00bcrgen M\\u00c3\\u00bcller\"}",
			forms: []string{"J\\u00c3\\u00bcrgen", "JÃ¼rgen MÃ¼ller"}},
		// node: the PKCS#8 PEM with its line ends written \r\n
		{name: "PEMWithCRLF", secret: "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\n-----END PRIVATE KEY-----\n", kind: engine.Text,
			later: "-----BEGIN PRIVATE KEY-----\r\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\r\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\r\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\r\n-----END PRIVATE KEY-----\r\n",
			forms: []string{"AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxV", "AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxV"}},
		// the PEM on one line of a .env file, \n escapes for its line ends
		{name: "PEMInEnvLine", secret: "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\n-----END PRIVATE KEY-----\n", kind: engine.Text,
			later: "PRIVATE_KEY=\"-----BEGIN PRIVATE KEY-----\\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\\n-----END PRIVATE KEY-----\"",
			forms: []string{"AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxV", "AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxV"}},
		// the PEM's base64 alone, joined on one line
		{name: "PEMBodyWithoutArmour", secret: "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\n-----END PRIVATE KEY-----\n", kind: engine.Text,
			later: "value: MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfEMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ",
			forms: []string{"AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxV", "AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxV"}},
		// the PEM rewrapped at 76 columns
		{name: "PEMRewrappedAt76", secret: "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\n-----END PRIVATE KEY-----\n", kind: engine.Text,
			later: "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX/gJZk87K7GQm\nQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfEMDUZ5xBHy+uX09WDiDyZwqAH\nfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\n-----END PRIVATE KEY-----\n",
			forms: []string{"AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxV", "AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxV"}},
		// node: the DER in base64url
		{name: "PEMBodyAsBase64URL", secret: "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\n-----END PRIVATE KEY-----\n", kind: engine.Text,
			later: "value: MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX_gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfEMDUZ5xBHy-uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ",
			forms: []string{"AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxV", "AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxV"}},
		// python3: a PNG whose tEXt chunk (Comment) holds the key, base64 in an image item
		{name: "PNGTextChunkInImageItem", secret: "sk_live_51HqIyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\": [{\"type\": \"image\", \"mimeType\": \"image/png\", \"data\": \"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAAJXRFWHRDb21tZW50AHNrX2xpdmVfNTFIcUl5aldEYXJqdFQxemRwN2Rj9Nl5UAAAAApJREFUeJxjYAAAAAIAAUivpHEAAAAASUVORK5CYII=\"}]}",
			forms: []string{"NTFIcUl5aldEYXJqdFQxemRwN2Rj9Nl5UAAAAApJREFUeJxjYAAAAAIAAUiv"}},
		// node: key.toLocaleLowerCase("tr-TR") (I becomes dotless ı)
		{name: "TurkishLowercase", secret: "sk_live_51HqIyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "key=sk_live_51hqıyjwdarjtt1zdp7dc",
			forms: []string{"sk_live_51hqıyjwdarjtt1zdp7dc"}},
		// node: key.toLocaleUpperCase("tr-TR") (i becomes İ)
		{name: "TurkishUppercase", secret: "sk_live_51HqIyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "KEY=SK_LİVE_51HQIYJWDARJTT1ZDP7DC",
			forms: []string{"SK_LİVE_51HQIYJWDARJTT1ZDP7DC"}},
		// node: JSON.stringify({token: new TextEncoder().encode(key)}) (a Uint8Array stringifies as an object of indices)
		{name: "NodeUint8ArrayInJSON", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"token\":{\"0\":115,\"1\":107,\"2\":95,\"3\":108,\"4\":105,\"5\":118,\"6\":101,\"7\":95,\"8\":53,\"9\":49,\"10\":72,\"11\":113,\"12\":76,\"13\":121,\"14\":106,\"15\":87,\"16\":68,\"17\":97,\"18\":114,\"19\":106,\"20\":116,\"21\":84,\"22\":49,\"23\":122,\"24\":100,\"25\":112,\"26\":55,\"27\":100,\"28\":99}}",
			forms: []string{"\"0\":115,\"1\":107,\"2\":95,\"3\":108,\"4\":105,\"5\":118,\"6\":101,\"7\":95,\"8\":53,\"9\":49,\"10\":72,\"11\":113,\"12\":76,\"13\":121,\"14\":106,\"15\":87,\"16\":68,\"17\":97,\"18\":114,\"19\":106,\"20\":116,\"21\":84,\"22\":49,\"23\":122,\"24\":100,\"25\":112,\"26\":55,\"27\":100,\"28\":99"}},
		// Go: fmt.Sprintf("buf=%v", []byte(key)) (a []byte in a log line)
		{name: "GoByteSliceFormattedWithV", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "buf=[115 107 95 108 105 118 101 95 53 49 72 113 76 121 106 87 68 97 114 106 116 84 49 122 100 112 55 100 99]",
			forms: []string{"115 107 95 108"}},
	})
}

// TestIndependentOrdinaryValuesSurviveWholeWithholding: the ordinary
// values of a sensitiveHint output withheld whole pass in a later output.
func TestIndependentOrdinaryValuesSurviveWholeWithholding(t *testing.T) {
	runIndOrdinaryCases(t, []indOrdinaryCase{
		{"ISOTimestampWithMilliseconds", "{\"at\": \"2026-03-14T10:20:26.125Z\"}", "at 2026-03-14T10:20:26.125Z"},
		{"LongSingleWord", "{\"word\": \"internationalization\"}", "internationalization docs"},
		{"FloatScore", "{\"score\": 1234.5}", "score 1234.5"},
		{"ActiveEnglishPortugal", "{\"status\": \"active\", \"language\": \"English\", \"country\": \"Portugal\"}", "Account active; language English; shipping to Portugal."},
	})
}

// TestIndependentWholeWithholdingKeepsWhatIsNotOrdinary: of a sensitiveHint
// output withheld whole, what is not ordinary (an SSN, a card number, a
// PIN and a one-time code in a text, a password in a URL, a spaced IBAN,
// passphrases, an IP address, an account number written as a float)
// joins the session's set, and a later output that gives it back loses it.
func TestIndependentWholeWithholdingKeepsWhatIsNotOrdinary(t *testing.T) {
	runIndLeakCases(t, []indLeakCase{
		// Apple app-specific password format xxxx-xxxx-xxxx-xxxx, withheld in a sensitiveHint output
		{name: "AppleAppSpecificPassword", whole: true, data: "{\"app_password\": \"qwhz-mtkr-plsn-bvcx\"}", secret: "qwhz-mtkr-plsn-bvcx", kind: engine.Text,
			later: "smtp login ok, password qwhz-mtkr-plsn-bvcx",
			forms: []string{"qwhz-mtkr-plsn-bvcx"}},
		// Google app password stored without its spaces, withheld in a sensitiveHint output
		{name: "GoogleAppPasswordWithoutSpaces", whole: true, data: "{\"smtp_password\": \"qwhzmtkrplsnbvcx\"}", secret: "qwhzmtkrplsnbvcx", kind: engine.Text,
			later: "SMTP_PASSWORD=qwhzmtkrplsnbvcx",
			forms: []string{"qwhzmtkrplsnbvcx"}},
		// Bitwarden passphrase generator default (three words, hyphen), withheld in a sensitiveHint output
		{name: "HyphenatedPassphrase", whole: true, data: "{\"passphrase\": \"unsaid-unreal-flask\"}", secret: "unsaid-unreal-flask", kind: engine.Text,
			later: "passphrase: unsaid-unreal-flask",
			forms: []string{"unsaid-unreal-flask"}},
		// a client IP address in a sensitiveHint output (four dotted groups are a version)
		{name: "IPv4AddressAsVersion", whole: true, data: "{\"last_login_ip\": \"203.0.113.42\"}", secret: "203.0.113.42", kind: engine.Text,
			later: "last login from 203.0.113.42",
			forms: []string{"203.0.113.42"}},
		// an eight-digit code written 4-2-2 (month 93 is no month)
		{name: "DateOutOfRange", whole: true, data: "{\"pin\": \"4821-93-07\"}", secret: "4821-93-07", kind: engine.Text,
			later: "pin 4821-93-07",
			forms: []string{"4821-93-07"}},
		// python3: json.dumps of an integer column read as float (pandas does so when a value is missing): {"pin": 4471.0, "account": 88231907.0}
		{name: "AccountNumberAsFloat", whole: true, data: "{\"account\": 88231907.0, \"pin\": 4471.0}", secret: "88231907", kind: engine.Text,
			later: "statement for account 88231907",
			forms: []string{"88231907"}},
		// a sensitiveHint tool without a schema returns a string (MCP's usual text), withheld whole
		{name: "HintTextSSN", whole: true, data: "Customer Ada Lovelace, SSN 123-45-6789, card 4111 1111 1111 1111, PIN 4821, one-time code 482193.", text: true, secret: "123-45-6789", kind: engine.Text,
			later: "SSN on file: 123-45-6789"},
		// a sensitiveHint tool without a schema returns a string (MCP's usual text), withheld whole
		{name: "HintTextCardNumber", whole: true, data: "Customer Ada Lovelace, SSN 123-45-6789, card 4111 1111 1111 1111, PIN 4821, one-time code 482193.", text: true, secret: "4111 1111 1111 1111", kind: engine.Text,
			later: "card 4111 1111 1111 1111 charged"},
		// a sensitiveHint tool without a schema returns a string (MCP's usual text), withheld whole
		{name: "HintTextPIN", whole: true, data: "Customer Ada Lovelace, SSN 123-45-6789, card 4111 1111 1111 1111, PIN 4821, one-time code 482193.", text: true, secret: "4821", kind: engine.Text,
			later: "pin=4821"},
		// a sensitiveHint tool without a schema returns a string (MCP's usual text), withheld whole
		{name: "HintTextOneTimeCode", whole: true, data: "Customer Ada Lovelace, SSN 123-45-6789, card 4111 1111 1111 1111, PIN 4821, one-time code 482193.", text: true, secret: "482193", kind: engine.Text,
			later: "your code 482193"},
		// a sensitiveHint tool without a schema returns a string (MCP's usual text), withheld whole
		{name: "HintTextPasswordInURL", whole: true, data: "DATABASE_URL=postgres://app:S3cr3tPassw0rd@db.internal:5432/app\nADMIN_PASSWORD=correct horse battery staple\n", text: true, secret: "S3cr3tPassw0rd", kind: engine.Text,
			later: "password is S3cr3tPassw0rd"},
		// a sensitiveHint tool without a schema returns a string (MCP's usual text), withheld whole
		{name: "HintTextSpacedIBAN", whole: true, data: "Please pay to IBAN DE89 3704 0044 0532 0130 00 by Friday.", text: true, secret: "DE89 3704 0044 0532 0130 00", kind: engine.Text,
			later: "IBAN DE89 3704 0044 0532 0130 00"},
	})
}

// TestIndependentOrdinaryValuesOfBenignSoftwareSurvive: values benign
// outputs write everywhere (an enum in snake case, a country of two words,
// a date in words, a year) stay out of the session's set when a
// sensitiveHint output is withheld whole, and pass in later outputs.
func TestIndependentOrdinaryValuesOfBenignSoftwareSurvive(t *testing.T) {
	runIndOrdinaryCases(t, []indOrdinaryCase{
		{"SnakeCaseStatus", "{\"status\": \"in_progress\"}", "Order 7 is in_progress."},
		{"UpperSnakeState", "{\"state\": \"PENDING_REVIEW\"}", "state=PENDING_REVIEW"},
		{"TwoWordCountry", "{\"country\": \"United States\"}", "Ships to United States only."},
		{"TimeZoneID", "{\"tz\": \"Europe/Lisbon\"}", "Meeting at 10:00 Europe/Lisbon"},
		{"LocaleUnderscore", "{\"locale\": \"pt_PT\"}", "locale pt_PT"},
		{"MonthNameDate", "{\"joined\": \"March 14, 2026\"}", "Invoice dated March 14, 2026."},
		{"HTTPDate", "{\"modified\": \"Sat, 14 Mar 2026 10:20:26 GMT\"}", "Last-Modified: Sat, 14 Mar 2026 10:20:26 GMT"},
		{"PostgresTimestamptz", "{\"created\": \"2026-03-14 10:20:26.123456+01\"}", "created 2026-03-14 10:20:26.123456+01"},
		{"GoTimeString", "{\"at\": \"2026-03-14 10:20:26.125 +0000 UTC\"}", "at 2026-03-14 10:20:26.125 +0000 UTC"},
		{"AmountWithCurrencyCode", "{\"balance\": \"USD 19.99\"}", "Total: USD 19.99"},
		{"Percentage", "{\"rate\": \"12.5%\"}", "Discount 12.5% applied"},
		{"SemverPrerelease", "{\"version\": \"1.4.2-beta.1\"}", "running 1.4.2-beta.1"},
		{"MIMEType", "{\"type\": \"application/json\"}", "Content-Type: application/json"},
		{"YearAsJSONInteger", "{\"year\": 2026}", "Copyright 2026 Example Inc."},
		{"PriceInCentsAsJSONInteger", "{\"price_cents\": 1999}", "Item costs 1999 cents"},
		{"PlanOfTwoWords", "{\"plan\": \"Free trial\"}", "Your Free trial ends soon"},
		{"TimeWithAMPM", "{\"slot\": \"10:30 AM\"}", "Your slot is 10:30 AM"},
	})
}

// TestIndependentWriterCannotChooseWordsToCensor: whoever writes a field
// of a sensitiveHint output withheld whole (a nickname, a bio) does not
// choose what later outputs lose: a phrase of ordinary words, or one word
// with punctuation around it, stays out of the session's set, and a
// warning keeps its negation.
func TestIndependentWriterCannotChooseWordsToCensor(t *testing.T) {
	runIndOrdinaryCases(t, []indOrdinaryCase{
		{"PhraseOfTwoWords", "{\"nickname\": \"is not\"}", "Payee is not verified."},
		{"PhraseDoNot", "{\"nickname\": \"Do not\"}", "Do not send money to this payee."},
		{"WordWithExclamation", "{\"nickname\": \"unverified!\"}", "Payee status: unverified"},
		{"WordInParentheses", "{\"bio\": \"(suspicious)\"}", "This payee looks suspicious"},
		{"WordInQuotes", "{\"bio\": \"\\\"blocked\\\"\"}", "Transfer blocked by fraud check"},
	})
}

// TestIndependentPinKeepsDatesInWords: a PIN 2026 create_key withheld
// does not cut the year out of dates and years written as benign text
// writes them.
func TestIndependentPinKeepsDatesInWords(t *testing.T) {
	for _, later := range []string{
		"Invoice dated March 14, 2026.", // MonthNameDate
		"2026年3月14日に発送",                 // JapaneseDate
		"the 2025–2026 season",          // EnDashYearRange
		"ISO week 2026-W11",             // ISOWeek
		"{\"year\":2026,\"month\":3}",   // YearAsJSONNumber
	} {
		e := indSession(t)
		indWithholdKey(t, e, "2026")
		if got := indLater(t, e, engine.Text, later); got != later {
			t.Errorf("a date was cut\nlater: %q\nview:  %s", later, got)
		}
	}
}

// TestIndependentReadingsOfDecodingsStayWithheld: a wrong reading (UTF-8
// read as Windows-1252, bytes read as UTF-16), <wbr> or punycode written
// inside an escape or an encoding a real encoder wrote around it, or a
// wrong reading read wrong again, does not give a withheld value back.
func TestIndependentReadingsOfDecodingsStayWithheld(t *testing.T) {
	runIndLeakCases(t, []indLeakCase{
		// python3: name.encode("utf-8").decode("cp1252").encode("utf-8").decode("cp1252") (UTF-8 read as Windows-1252 twice)
		{name: "DoubleMojibake", secret: "Jürgen Müller", kind: engine.Text,
			later: "Kunde: JÃƒÂ¼rgen MÃƒÂ¼ller",
			forms: []string{"JÃƒÂ¼rgen MÃƒÂ¼ller"}},
		// python3: json.dumps({"content":[{"type":"text","text":json.dumps({"name": mojibake})}]}) (json.dumps escapes past ASCII by default)
		{name: "MojibakeInPythonJSONTextItem", secret: "Jürgen Müller", kind: engine.Returned,
			later: "{\"content\": [{\"type\": \"text\", \"text\": \"{\\\"name\\\": \\\"J\\\\u00c3\\\\u00bcrgen M\\\\u00c3\\\\u00bcller\\\"}\"}]}",
			forms: []string{"\\\\u00c3\\\\u00bcrgen", "\\u00c3\\u00bcrgen"}},
		// node: Buffer.from("KEY="+key+"\n").toString("utf16le"), then python3: json.dumps in an MCP text item
		{name: "UTF16InPythonJSONTextItem", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\": [{\"type\": \"text\", \"text\": \"{\\\"content\\\": \\\"\\\\u454b\\\\u3d59\\\\u6b73\\\\u6c5f\\\\u7669\\\\u5f65\\\\u3135\\\\u7148\\\\u794c\\\\u576a\\\\u6144\\\\u6a72\\\\u5474\\\\u7a31\\\\u7064\\\\u6437\\\\u0a63\\\"}\"}]}",
			forms: []string{"\\\\u6b73\\\\u6c5f\\\\u7669", "\\u6b73\\u6c5f\\u7669"}},
		// Go json.Marshal (escapes < and > as \u003c, \u003e) of an HTML mail body whose key a template broke with <wbr>, in an MCP text item
		{name: "WbrInGoJSONTextItem", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"html\\\":\\\"\\\\u003cp\\\\u003eYour key: sk_liv\\\\u003cwbr\\\\u003ee_51Hq\\\\u003cwbr\\\\u003eLyjWDa\\\\u003cwbr\\\\u003erjtT1z\\\\u003cwbr\\\\u003edp7dc\\\\u003c/p\\\\u003e\\\"}\"}]}",
			forms: []string{"dp7dc"}},
		// python3: html.escape of an HTML body with <wbr>, as an RSS <description> carries it
		{name: "WbrHTMLEscapedInFeed", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "<description>&lt;p&gt;Your key: sk_liv&lt;wbr&gt;e_51Hq&lt;wbr&gt;LyjWDa&lt;wbr&gt;rjtT1z&lt;wbr&gt;dp7dc&lt;/p&gt;</description>",
			forms: []string{"dp7dc"}},
		// node: encodeURIComponent("ada@" + new URL("https://bücher-münchen.de").hostname) in an invitation link
		{name: "PunycodeAddressPercentEncoded", secret: "ada@bücher-münchen.de", kind: engine.Text,
			later: "https://app.example/invite?email=ada%40xn--bcher-mnchen-dlbg.de",
			forms: []string{"ada%40xn--bcher-mnchen-dlbg.de"}},
		// node: encodeURIComponent(Buffer.from("KEY="+key).toString("utf16le")) in a link (a file read as utf16le, then put in a URL)
		{name: "UTF16ReadingPercentEncoded", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Text,
			later: "https://x.example/?f=%E4%95%8B%E3%B5%99%E6%AD%B3%E6%B1%9F%E7%99%A9%E5%BD%A5%E3%84%B5%E7%85%88%E7%A5%8C%E5%9D%AA%E6%85%84%E6%A9%B2%E5%91%B4%E7%A8%B1%E7%81%A4%E6%90%B7",
			forms: []string{"%E6%AD%B3%E6%B1%9F"}},
	})
}

// TestIndependentTextItemsJoinAcrossOtherItems: a client that shows the
// texts of a result joins its text items whatever stands between them, an
// image or an empty text; a value cut across them does not come back.
func TestIndependentTextItemsJoinAcrossOtherItems(t *testing.T) {
	runIndLeakCases(t, []indLeakCase{
		// MCP content: text, image, text; clients that show text join the texts
		{name: "TextItemsAroundAnImage", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\": [{\"type\": \"text\", \"text\": \"key sk_live_51Hq\"}, {\"type\": \"image\", \"mimeType\": \"image/png\", \"data\": \"iVBORw0KGgo=\"}, {\"type\": \"text\", \"text\": \"LyjWDarjtT1zdp7dc\"}]}"},
		// MCP content: "key sk_live_51Hq", "", "LyjWDarjtT1zdp7dc" (a client joining the texts shows the key whole)
		{name: "EmptyTextItemBetweenHalves", secret: "sk_live_51HqLyjWDarjtT1zdp7dc", kind: engine.Returned,
			later: "{\"content\": [{\"type\": \"text\", \"text\": \"key sk_live_51Hq\"}, {\"type\": \"text\", \"text\": \"\"}, {\"type\": \"text\", \"text\": \"LyjWDarjtT1zdp7dc\"}]}"},
	})
}

// TestIndependentPrivateKeyConvertedStaysWithheld: a PEM private key one
// output withheld comes back converted by an ordinary tool (openssl's text
// dump, SEC1 PEM, a JWK, DER in hex); its secret numbers do not.
func TestIndependentPrivateKeyConvertedStaysWithheld(t *testing.T) {
	runIndLeakCases(t, []indLeakCase{
		// openssl ec -in key.pem -text -noout: the private scalar in hex, colons between bytes
		{name: "PrivateKeyAsOpenSSLText", secret: "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\n-----END PRIVATE KEY-----\n", kind: engine.Text,
			later: "Private-Key: (256 bit)\npriv:\n    66:55:fd:6f:5c:69:c1:2c:55:10:43:d7:fe:02:59:\n    93:ce:ca:ec:64:26:43:37:29:b9:e5:de:2f:14:af:\n    40:f5\npub:\n    04:df:53:a7:e6:13:ad:ef:3f:9c:9e:29:12:3c:29:\n    d3:b1:aa:d9:a9:7a:17:c4:30:35:19:e7:10:47:cb:\n    eb:97:d3:d5:83:88:3c:99:c2:a0:07:7d:bb:b2:7e:\n    7b:9d:4a:ae:50:39:84:11:9e:f9:68:2e:46:e6:90:\n    c4:02:92:09:50\nASN1 OID: prime256v1\nNIST CURVE: P-256\n",
			forms: []string{"66:55:fd:6f:5c:69:c1:2c"}},
		// openssl ec -in key.pem (the same key as SEC1, its default output)
		{name: "PrivateKeyAsSEC1PEM", secret: "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\n-----END PRIVATE KEY-----\n", kind: engine.Text,
			later: "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIGZV/W9cacEsVRBD1/4CWZPOyuxkJkM3Kbnl3i8Ur0D1oAoGCCqGSM49\nAwEHoUQDQgAE31On5hOt7z+cnikSPCnTsarZqXoXxDA1GecQR8vrl9PVg4g8mcKg\nB327sn57nUquUDmEEZ75aC5G5pDEApIJUA==\n-----END EC PRIVATE KEY-----\n",
			forms: []string{"MHcCAQEEIGZV/W9cacEsVRBD1/4CWZPOyuxkJkM3"}},
		// node: crypto.createPrivateKey(pem).export({format: "jwk"})
		{name: "PrivateKeyAsJWK", secret: "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\n-----END PRIVATE KEY-----\n", kind: engine.Text,
			later: "{\"kty\":\"EC\",\"x\":\"31On5hOt7z-cnikSPCnTsarZqXoXxDA1GecQR8vrl9M\",\"y\":\"1YOIPJnCoAd9u7J-e51KrlA5hBGe-WguRuaQxAKSCVA\",\"crv\":\"P-256\",\"d\":\"ZlX9b1xpwSxVEEPX_gJZk87K7GQmQzcpueXeLxSvQPU\"}",
			forms: []string{"ZlX9b1xpwSxVEEPX_gJZk87K7GQmQzcpueXeLxSvQPU"}},
		// node: crypto.createPrivateKey(pem).export({type: "pkcs8", format: "der"}).toString("hex")
		{name: "PrivateKeyAsDERHex", secret: "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\n-----END PRIVATE KEY-----\n", kind: engine.Text,
			later: "308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b02010104206655fd6f5c69c12c551043d7fe025993cecaec6426433729b9e5de2f14af40f5a14403420004df53a7e613adef3f9c9e29123c29d3b1aad9a97a17c4303519e71047cbeb97d3d583883c99c2a0077dbbb27e7b9d4aae503984119ef9682e46e690c402920950",
			forms: []string{"6655fd6f5c69c12c551043d7"}},
	})
}
