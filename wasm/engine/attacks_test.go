package engine_test

// Regression tests from a review that attacked the engine with what real
// serializers and encoders write (Go's standard library here; Python's,
// Node's and Java's wrote the same forms). Each test is one leak, made as
// small as it goes: a value a view withheld, or that a tool declared
// sensitive, reaches the agent. Each fails until the engine is fixed.

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"mime"
	"mime/quotedprintable"
	"strings"
	"testing"

	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/leakcheck"
)

const (
	rtOrigin    = "https://app.example"
	rtKey       = "sk_live_Zq81vT0pLm42"
	rtCreateKey = `{"name":"create_key","description":"d","outputSchema":{"type":"object","properties":{"id":{"type":"string"},"key":{"type":"string","x-sensitive":true}}}}`
	rtListLog   = `{"name":"list_log","description":"d"}`
	rtReadHint  = `{"name":"read_record","description":"d","annotations":{"sensitiveHint":true}}`
)

func rtEngine(t *testing.T, opts *engine.Options, defs ...string) *engine.Engine {
	t.Helper()
	if opts == nil {
		opts = &engine.Options{}
	}
	opts.Origin = rtOrigin
	e := engine.New(opts)
	for _, d := range defs {
		if _, err := e.Register(d); err != nil {
			t.Fatalf("Register(%s): %v", d, err)
		}
	}
	return e
}

func rtJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// rtWithhold has create_key withhold value as its x-sensitive key.
func rtWithhold(t *testing.T, e *engine.Engine, value string) {
	t.Helper()
	res := e.OutputOf("create_key", engine.Outcome{Kind: engine.Returned, Data: rtJSON(map[string]string{"id": "key_1", "key": value})})
	if res.Err != nil || res.Held != 1 {
		t.Fatalf("create_key did not withhold its key: %+v", res)
	}
}

// rtNoLeak fails when the agent view holds value, as the oracle decodes it
// or written as it is.
func rtNoLeak(t *testing.T, output string, res engine.Result, value string) {
	t.Helper()
	if res.Err != nil {
		return
	}
	if where, found := leakcheck.Find(res.Agent, value); found {
		t.Errorf("%q reached the agent, in %s\noutput: %q\nview:   %s", value, where, output, res.Agent)
		return
	}
	if strings.Contains(res.Agent, value) {
		t.Errorf("%q reached the agent as written\noutput: %q\nview:   %s", value, output, res.Agent)
	}
}

// Rule (a3): a sensitiveHint tool with no outputSchema gets a notice only.
// When its result is a CallToolResult, the view keeps the result's own
// members: structuredContent, _meta, isError and the content items, less
// only the strings of four characters or more (rule d). Booleans, numbers
// of any length (a nine-digit SSN), short strings, member names, and a
// content item's annotations and MIME type of any length reach the agent.
func TestAttackHintWholeOutputCallToolResult(t *testing.T) {
	e := rtEngine(t, nil, rtReadHint)
	out := rtJSON(map[string]any{
		"content": []any{
			map[string]any{"type": "text", "text": "AB-", "annotations": map[string]any{"note": "DE89370400440532013000"}},
		},
		"structuredContent": map[string]any{"hivPositive": true, "blood": "A+", "age": 42, "ssn": 123456789},
		"_meta":             map[string]any{"tags": []string{"HIV"}},
	})
	for _, kind := range []engine.OutcomeKind{engine.Returned, engine.Text} {
		res := e.OutputOf("read_record", engine.Outcome{Kind: kind, Data: out})
		if res.Err != nil {
			continue
		}
		for _, v := range []string{"DE89370400440532013000", "123456789", "hivPositive", `"A+"`, `"AB-"`, "42", `"HIV"`} {
			if strings.Contains(res.Agent, v) {
				t.Errorf("%s outcome: %s reached the agent from a sensitiveHint tool whose whole output is withheld:\n%s", kind, v, res.Agent)
			}
		}
	}
}

// The same path serves the fail-closed answers: once the session's scrub
// set is full (or the engine was lost), every output is to be withheld
// whole, but a CallToolResult keeps its structure and short values.
func TestAttackFullSessionCallToolResult(t *testing.T) {
	for name, opts := range map[string]*engine.Options{
		"set full":    {MaxScrubNeedles: 1},
		"engine lost": {ScrubLost: true},
	} {
		t.Run(name, func(t *testing.T) {
			e := rtEngine(t, opts, rtCreateKey, rtListLog)
			if !opts.ScrubLost {
				rtWithhold(t, e, "sk_live_0000000000000001")
				rtWithhold(t, e, "sk_live_0000000000000002")
				if _, full := e.ScrubNeedles(); !full {
					t.Fatal("the set is not full")
				}
			}
			out := rtJSON(map[string]any{
				"content":           []any{map[string]any{"type": "text", "text": "PIN"}},
				"structuredContent": map[string]any{"pin": 417, "ok": true},
			})
			res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Returned, Data: out})
			for _, v := range []string{`"PIN"`, "417", `"pin"`} {
				if res.Err == nil && strings.Contains(res.Agent, v) {
					t.Errorf("%s reached the agent though every output is to be withheld whole:\n%s", v, res.Agent)
				}
			}
		})
	}
}

// Rule (d), "itself": a withheld string whose contents are JSON text (a
// service account key, a webhook payload) comes back byte for byte when a
// later tool returns the same text as its string result, or the same
// object: the text is judged as the value it holds, and no node of it
// equals the withheld string. Its inner values never join the set either.
func TestAttackWithheldJSONTextEchoed(t *testing.T) {
	const creds = `{"pin":"8123","user":"ada"}`
	for _, o := range []engine.Outcome{
		{Kind: engine.Text, Data: creds},
		{Kind: engine.Returned, Data: creds},
	} {
		e := rtEngine(t, nil, rtCreateKey, rtListLog)
		rtWithhold(t, e, creds)
		res := e.OutputOf("list_log", o)
		if res.Err == nil && strings.Contains(res.Agent, creds) {
			t.Errorf("%s outcome: the withheld string %s reached the agent as written:\n%s", o.Kind, creds, res.Agent)
		}
	}

	// A private key inside the JSON text comes back alone.
	const pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n-----END PRIVATE KEY-----\n"
	sa := rtJSON(map[string]string{"type": "service_account", "private_key": pem, "client_email": "svc@demo-1.iam.gserviceaccount.com"})
	e := rtEngine(t, nil, rtCreateKey, rtListLog)
	rtWithhold(t, e, sa)
	res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: pem})
	rtNoLeak(t, pem, res, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj")
}

// Rule (d): a string withheld under a member named label (in any case),
// and a content item's annotations and MIME type, are removed from their
// own view only, so a later output gives them back.
func TestAttackLabelNotInSessionSet(t *testing.T) {
	const iban = "DE89370400440532013000"
	for name, out := range map[string]string{
		"label":       rtJSON(map[string]any{"label": iban, "balance": 12.5}),
		"Label":       rtJSON(map[string]any{"Label": iban}),
		"annotations": rtJSON(map[string]any{"content": []any{map[string]any{"type": "text", "text": "statement", "annotations": map[string]any{"account": iban}}}}),
	} {
		t.Run(name, func(t *testing.T) {
			e := rtEngine(t, nil, rtReadHint, rtListLog)
			if res := e.OutputOf("read_record", engine.Outcome{Kind: engine.Returned, Data: out}); res.Err != nil || res.Held == 0 {
				t.Fatalf("read_record withheld nothing: %+v", res)
			}
			later := "Transfer to IBAN " + iban
			rtNoLeak(t, later, e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: later}), iban)
		})
	}
}

// Rule (b): a tool that marks key x-sensitive (without sensitiveHint) and
// returns the record as JSON text in a string (MCP's own convention for a
// text item; a resource's text; a payload member) gives the key to the
// agent in that view: only structuredContent is read against the schema.
func TestAttackDeclaredKeyInJSONText(t *testing.T) {
	record := rtJSON(map[string]string{"id": "key_1", "key": rtKey})
	for name, out := range map[string]string{
		"text item": rtJSON(map[string]any{
			"content":           []any{map[string]string{"type": "text", "text": record}},
			"structuredContent": map[string]string{"id": "key_1"},
		}),
		"resource text": rtJSON(map[string]any{
			"content":           []any{map[string]any{"type": "resource", "resource": map[string]string{"uri": "mem://key_1", "mimeType": "application/json", "text": record}}},
			"structuredContent": map[string]string{"id": "key_1"},
		}),
		"payload member": rtJSON(map[string]string{"id": "key_1", "payload": record}),
	} {
		t.Run(name, func(t *testing.T) {
			e := rtEngine(t, nil, rtCreateKey)
			rtNoLeak(t, out, e.OutputOf("create_key", engine.Outcome{Kind: engine.Returned, Data: out}), rtKey)
		})
	}
}

// Rule (b)'s envelope: "a member named like a sensitive property, where
// the schema declares nothing, is withheld". Only the name exactly as
// declared is: the same name in another case or spelling passes.
func TestAttackEnvelopeNameSpelling(t *testing.T) {
	const def = `{"name":"get_key","description":"d","outputSchema":{"type":"object","properties":{"id":{"type":"string"},"apiKey":{"type":"string","x-sensitive":true}}}}`
	for _, name := range []string{"ApiKey", "APIKEY", "apikey", "api_key", "api-key"} {
		t.Run(name, func(t *testing.T) {
			e := rtEngine(t, nil, def)
			out := rtJSON(map[string]any{"data": map[string]string{"id": "a", name: rtKey}})
			rtNoLeak(t, out, e.OutputOf("get_key", engine.Outcome{Kind: engine.Returned, Data: out}), rtKey)
		})
	}
}

// Rule (d), hex: a run of hex is decoded only from its run's first two
// characters, and a run is any run of the base64 alphabet, which holds
// '/', '_', '-' and '+'. Hex after a path, a prefix or two letters is not
// read.
func TestAttackHexAfterBase64Characters(t *testing.T) {
	h := hex.EncodeToString([]byte(rtKey))
	for _, out := range []string{
		"GET /api/keys/" + h + " 200",
		"https://app.example/files/" + h,
		"tok_" + h,
		"secret-" + h,
		"id" + h,
		"ID" + strings.ToUpper(h),
	} {
		e := rtEngine(t, nil, rtCreateKey, rtListLog)
		rtWithhold(t, e, rtKey)
		rtNoLeak(t, out, e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: out}), rtKey)
	}
}

// Rule (d), quoted-printable: an encoder that wraps a line inside a
// character's UTF-8 bytes (=C3=\r\n=BC, as Go's mime/quotedprintable and
// Python's quopri do) hides a value with a character past ASCII.
func TestAttackQuotedPrintableSoftBreakInCharacter(t *testing.T) {
	const name = "Müller#4471"
	for pad := 55; pad < 80; pad++ {
		var b bytes.Buffer
		w := quotedprintable.NewWriter(&b)
		w.Write([]byte("Name: " + strings.Repeat("x", pad) + name))
		w.Close()
		out := b.String()
		if !strings.Contains(out, "=C3=\r\n=BC") {
			continue
		}
		e := rtEngine(t, nil, rtCreateKey, rtListLog)
		rtWithhold(t, e, name)
		rtNoLeak(t, out, e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: out}), name)
		return
	}
	t.Fatal("no padding made the encoder break inside ü")
}

// Rule (d), tokens: "each word of eight characters or more that holds a
// digit or an @ (a key or an e-mail address in a paragraph)". A word is
// cut at spaces only, so a key written key=value, in a URL, in CSV or in
// HTML is not found alone later; nor is any key of a text with no ASCII
// space.
func TestAttackKeyInWithheldParagraph(t *testing.T) {
	for _, para := range []string{
		"STRIPE_SECRET_KEY=" + rtKey + "\nDATABASE_URL=postgres://db.internal/app\n",
		"Callback https://app.example/cb?token=" + rtKey + "&x=1 was sent to ada",
		"id,name,key\n1,ada," + rtKey + "\n2,bob,none\n",
		"<p>Your key: <code>" + rtKey + "</code></p> <p>Keep it safe.</p>",
		"鍵は\u3000" + rtKey + "\u3000です。大切に保管してください。",
	} {
		e := rtEngine(t, nil, rtReadHint, rtListLog)
		if res := e.OutputOf("read_record", engine.Outcome{Kind: engine.Text, Data: para}); res.Held == 0 {
			t.Fatalf("read_record withheld nothing: %+v", res)
		}
		later := "last used key: " + rtKey
		if res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: later}); strings.Contains(res.Agent, rtKey) {
			t.Errorf("the key of the withheld paragraph %q reached the agent:\n%s", para, res.Agent)
		}
	}
}

// Rule (d), base64 "wrapped at 64 or 76 columns": the same wrapping with
// each line indented, as a YAML block scalar holds a PEM body or a
// credential, is read line by line, and a value across two lines is lost.
func TestAttackBase64IndentedWrap(t *testing.T) {
	b := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("line one\n", 9) + "key=" + rtKey + "\n"))
	var y strings.Builder
	y.WriteString("data:\n  creds: |\n")
	for i := 0; i < len(b); i += 64 {
		y.WriteString("    " + b[i:min(i+64, len(b))] + "\n")
	}
	out := y.String()
	e := rtEngine(t, nil, rtCreateKey, rtListLog)
	rtWithhold(t, e, rtKey)
	rtNoLeak(t, out, e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: out}), rtKey)
}

// Rule (d), base64: a MIME header encoder splits a long text into
// encoded-words (RFC 2047) wherever its length falls, so a value is cut
// across two base64 runs that a mail reader joins.
func TestAttackEncodedWordsSplitValue(t *testing.T) {
	out := "Subject: " + mime.BEncoding.Encode("utf-8", strings.Repeat("Grüße ", 5)+rtKey+strings.Repeat(" Grüße", 5))
	e := rtEngine(t, nil, rtCreateKey, rtListLog)
	rtWithhold(t, e, rtKey)
	res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: out})
	if res.Err == nil {
		dec, err := new(mime.WordDecoder).DecodeHeader(strings.TrimPrefix(res.Agent, "Subject: "))
		if err == nil && strings.Contains(dec, rtKey) {
			t.Errorf("the key reached the agent in encoded-words:\noutput: %s\nview:   %s\ndecoded: %s", out, res.Agent, dec)
		}
	}
}

// Rule (d), "another case": JavaScript's toUpperCase, Python's upper and
// casefold, and Java's toUpperCase write ß as SS.
func TestAttackSharpSUpperCase(t *testing.T) {
	const v = "Müller-Straße 4471"
	for _, out := range []string{"NAME: MÜLLER-STRASSE 4471", "müller-strasse 4471"} {
		e := rtEngine(t, nil, rtCreateKey, rtListLog)
		rtWithhold(t, e, v)
		res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: out})
		if res.Unchanged {
			t.Errorf("%q passed unchanged, though it is the withheld %q in another case", out, v)
		}
	}
}

// Rule (d), base64 and hex: the browser's btoa (and Java's ISO-8859-1
// bytes) encode a name with ü as one byte, which the engine decodes to
// no character.
func TestAttackBase64OfLatin1(t *testing.T) {
	const v = "Müller#4471"
	latin1 := []byte{'M', 0xfc, 'l', 'l', 'e', 'r', '#', '4', '4', '7', '1'}
	for _, out := range []string{"name=" + base64.StdEncoding.EncodeToString(latin1), "name=" + hex.EncodeToString(latin1)} {
		e := rtEngine(t, nil, rtCreateKey, rtListLog)
		rtWithhold(t, e, v)
		res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: out})
		if res.Unchanged {
			t.Errorf("%q passed unchanged, though it encodes the withheld %q", out, v)
		}
	}
}

// Rule (d) for references: "a redeemUrl also as its path and query, each
// query value, ... and its fragment". A capability written as the whole
// query (?TOKEN) is a name with no value, and one in a fragment's
// parameters (#k=TOKEN, as OAuth's implicit flow writes) is only part of
// the fragment: neither is found alone later.
func TestAttackRedeemURLCapabilityAlone(t *testing.T) {
	const tok = "Xq81Lm0pZ7Tb"
	for _, u := range []string{"/redeem?" + tok, "/redeem/x#k=" + tok + "&v=1"} {
		e := rtEngine(t, nil, `{"name":"mint","description":"d"}`, rtListLog)
		ref := rtJSON(map[string]string{"type": "secret_reference", "id": "ref_ab12", "label": "API key", "redeemUrl": u})
		if res := e.OutputOf("mint", engine.Outcome{Kind: engine.Returned, Data: ref}); res.Err != nil || res.Held != 1 {
			t.Fatalf("mint held no reference: %+v", res)
		}
		later := "capability " + tok
		rtNoLeak(t, later, e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: later}), tok)
	}
}

// Rule (d), escapes: Go's html/template writes a value in a CSS string as
// CSS escapes (\3e , \2b ), which are read as octal or as the letter
// after the backslash.
func TestAttackCSSEscapes(t *testing.T) {
	for v, out := range map[string]string{
		"tok>91":           `<style>.a{font-family:"tok\3e 91"}</style>`,
		"q8+/Zx9kLmN0pQ==": `<style>.a{font-family:"q8\2b\2fZx9kLmN0pQ=="}</style>`,
	} {
		e := rtEngine(t, nil, rtCreateKey, rtListLog)
		rtWithhold(t, e, v)
		res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: out})
		if res.Unchanged {
			t.Errorf("%q passed unchanged, though a CSS reader reads the withheld %q in it", out, v)
		}
	}
}

// Rule (c′): the type written with a no-break space, fullwidth, or a
// zero-width space inside, still names secret_reference to a reader, but
// the object passes whole, id and redeemUrl included.
func TestAttackSpelledReferenceType(t *testing.T) {
	for _, typ := range []string{"secret\u00a0reference", "ｓｅｃｒｅｔ＿ｒｅｆｅｒｅｎｃｅ", "secret\u200b_reference"} {
		e := rtEngine(t, nil, `{"name":"mint","description":"d"}`)
		out := rtJSON(map[string]string{"type": typ, "id": "ref_8f3kQz71Lm", "label": "API key", "redeemUrl": "/redeem/cap_9XkQ2mZr7Tb"})
		res := e.OutputOf("mint", engine.Outcome{Kind: engine.Returned, Data: out})
		for _, v := range []string{"ref_8f3kQz71Lm", "cap_9XkQ2mZr7Tb"} {
			if res.Err == nil && strings.Contains(res.Agent, v) {
				t.Errorf("type %q: %s reached the agent:\n%s", typ, v, res.Agent)
			}
		}
	}
}

// Rule (d), short values: a value of four or five characters is compared
// as written, so one withheld with the white space around it that a file
// or a form field leaves (a PIN read as "4471\n") is not found once a
// later output trims it.
func TestAttackShortValueTrimmed(t *testing.T) {
	for _, v := range []string{"4471\n", "\t4471", "4471 "} {
		e := rtEngine(t, nil, rtCreateKey, rtListLog)
		rtWithhold(t, e, v)
		for _, o := range []engine.Outcome{{Kind: engine.Text, Data: "PIN 4471"}, {Kind: engine.Returned, Data: `{"pin":4471}`}} {
			if res := e.OutputOf("list_log", o); res.Err == nil && strings.Contains(res.Agent, "4471") {
				t.Errorf("withheld %q: %s reached the agent as %s", v, o.Data, res.Agent)
			}
		}
	}
}

// Rule (d), short values in base64: the base64 of a value of four to six
// characters is a word-like run that is not decoded, so it is looked for
// as written; a backend that lowers or raises the value before encoding
// it writes another run ("B70Z" is "QjcwWg", "b70z" is "Yjcweg").
func TestAttackShortValueBase64OtherCase(t *testing.T) {
	tests := []struct{ withheld, later, run string }{
		{"B70Z", "token Yjcweg==", "Yjcweg"},                  // base64 of b70z
		{"B70Z", `{"pw":"Yjcweg%3D%3D"}`, "Yjcweg"},           // the same, its padding percent-encoded
		{"b70z", "QjcwWg", "QjcwWg"},                          // base64 of B70Z, unpadded
		{"Pin9x", "cGluOXg=", "cGluOXg"},                      // base64 of pin9x
		{"Pin9x", "UElOOVg", "UElOOVg"},                       // base64url of PIN9X
		{"Pin9x", "seen: dXNlcjpwaW45eA==", "dXNlcjpwaW45eA"}, // user:pin9x, as in a Basic credential
	}
	for _, tt := range tests {
		e := rtEngine(t, nil, rtCreateKey, rtListLog)
		rtWithhold(t, e, tt.withheld)
		res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: tt.later})
		if res.Err == nil && strings.Contains(res.Agent, tt.run) {
			t.Errorf("withheld %q: %s reached the agent as %s", tt.withheld, tt.later, res.Agent)
		}
	}
}
