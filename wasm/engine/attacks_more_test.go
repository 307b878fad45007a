package engine_test

// Regression tests from a second review that attacked the engine after
// the first review's findings were fixed. Each test is one finding, made
// as small as it goes: a value a view withheld reaches the agent later,
// or a later output the agent needs is made unusable by what an earlier
// view withheld. Each fails until the engine is fixed.

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/veilmcp/veil/wasm/engine"
)

// rt2ReadPerson is a sensitiveHint tool whose schema marks the SSN.
const rt2ReadPerson = `{"name":"read_person","description":"d","annotations":{"sensitiveHint":true},"outputSchema":{"type":"object","properties":{"id":{"type":"string"},"ssn":{"type":"string","x-sensitive":true}}}}`

// rt2Mint is a tool that declares nothing and returns secret_references.
const rt2Mint = `{"name":"mint","description":"d"}`

// rt2Members decodes a JSON object view and returns its member names.
func rt2Members(t *testing.T, view string) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(view), &m); err != nil {
		t.Fatalf("the view is not a JSON object: %v\n%s", err, view)
	}
	return m
}

// Rule (d), split across neighbouring strings: MCP's own convention puts
// a result's JSON in a text item, and a value split across two members of
// that JSON ({"prefix": "sk_live_", "rest": "…"}, the example the rules
// give) passes byte for byte. Joins are read only between the strings of
// the output itself, not between the strings of JSON text inside one.
func TestAttackSplitAcrossMembersOfJSONText(t *testing.T) {
	inner := `{"prefix":"sk_live_","rest":"Zq81vT0pLm42"}`
	for name, o := range map[string]engine.Outcome{
		"text item":   {Kind: engine.Returned, Data: rtJSON(map[string]any{"content": []any{map[string]string{"type": "text", "text": inner}}})},
		"member":      {Kind: engine.Returned, Data: rtJSON(map[string]string{"log": inner})},
		"string list": {Kind: engine.Returned, Data: rtJSON([]string{inner})},
	} {
		t.Run(name, func(t *testing.T) {
			e := rtEngine(t, nil, rtCreateKey, rtListLog)
			rtWithhold(t, e, rtKey)
			rtNoLeak(t, o.Data, e.OutputOf("list_log", o), rtKey)
		})
	}
}

// Rule (d), "a number, by value" and "separators inside": a value of
// digits withheld as written with separators (an SSN, a phone number, a
// card number) is found as a string later, but not as a JSON number: a
// number node is compared with withheld numbers only, and a formatted
// string is not one.
func TestAttackFormattedDigitsComeBackAsNumber(t *testing.T) {
	for withheld, later := range map[string]string{
		"123-45-6789":         `{"ssn":123456789}`,
		"4111 1111 1111 1111": `{"card":4111111111111111}`,
		"+1 (415) 555-2671":   `[14155552671]`,
		"1,234,567.89":        `{"balance":1234567.89}`,
	} {
		t.Run(withheld, func(t *testing.T) {
			e := rtEngine(t, nil, rtCreateKey, rtListLog)
			rtWithhold(t, e, withheld)
			res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Returned, Data: later})
			rtNoLeak(t, later, res, withheld)
		})
	}
}

// Rule (d): "images, audio and blobs beside a withheld value go too", as
// one may be drawn from the value (a QR code of a TOTP secret). A later
// output that repeats an earlier value in a text item has the value cut
// from the text, but its image beside it passes.
func TestAttackMediaBesideRepeatedValue(t *testing.T) {
	e := rtEngine(t, nil, rtCreateKey, rtListLog)
	rtWithhold(t, e, rtKey)
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
	out := rtJSON(map[string]any{"content": []any{
		map[string]string{"type": "text", "text": "Your key " + rtKey + " as a QR code:"},
		map[string]string{"type": "image", "mimeType": "image/png", "data": png},
	}})
	res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Returned, Data: out})
	if res.Err != nil {
		return
	}
	if strings.Contains(res.Agent, rtKey) {
		t.Fatalf("the key reached the agent:\n%s", res.Agent)
	}
	if strings.Contains(res.Agent, png) {
		t.Errorf("the image beside the repeated key reached the agent:\n%s", res.Agent)
	}
}

// Over-withholding: a sensitiveHint tool's output withheld whole gives
// every string of four characters or more to the session, and a later
// member whose name holds one goes whole. A value that is one of MCP's
// own words ("content", "text") then strips every later CallToolResult,
// of any tool, of its content: the agent gets a result with no content
// item, not even the notice, and what was cut joins the set in turn.
func TestAttackWithheldMCPWordEmptiesLaterResults(t *testing.T) {
	e := rtEngine(t, nil, rtReadHint, rtListLog)
	if res := e.OutputOf("read_record", engine.Outcome{Kind: engine.Returned, Data: `{"format":"text","section":"content"}`}); res.Err != nil || res.Held == 0 {
		t.Fatalf("read_record withheld nothing: %+v", res)
	}
	const later = `{"content":[{"type":"text","text":"3 events today"}]}`
	res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Returned, Data: later})
	if res.Err != nil {
		t.Fatalf("list_log failed: %v", res.Err)
	}
	if !strings.Contains(res.Agent, "3 events today") {
		t.Errorf("a later output that holds nothing withheld lost its text:\noutput: %s\nview:   %s", later, res.Agent)
	}
	if _, ok := rt2Members(t, res.Agent)["content"]; !ok {
		t.Errorf("a later CallToolResult has no content member:\n%s", res.Agent)
	}
}

// Over-withholding: a sensitiveHint tool's profile, withheld whole, holds
// the enum words "admin" and "active". Every later output of the session
// loses each member whose name holds one (isAdmin, isActive), and the
// words inside other words ("administrators" becomes "istrators").
func TestAttackWithheldWordsEraseLaterMembers(t *testing.T) {
	e := rtEngine(t, nil, rtReadHint, rtListLog)
	if res := e.OutputOf("read_record", engine.Outcome{Kind: engine.Returned, Data: `{"name":"Ada Lovelace","role":"admin","status":"active"}`}); res.Err != nil || res.Held == 0 {
		t.Fatalf("read_record withheld nothing: %+v", res)
	}
	const later = `{"users":[{"username":"bob","isAdmin":true,"isActive":false}],"note":"administrators are listed first"}`
	res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Returned, Data: later})
	if res.Err != nil {
		t.Fatalf("list_log failed: %v", res.Err)
	}
	for _, v := range []string{`"isAdmin"`, `"isActive"`, "administrators"} {
		if !strings.Contains(res.Agent, v) {
			t.Errorf("%s is gone from a later output that repeats nothing withheld:\nview: %s", v, res.Agent)
		}
	}
}

// Over-withholding: a member name of sixteen bytes or more inside a
// withheld value joins the session's set as a token, so a common long
// name (notificationSettings) goes whole from every later output; and a
// withheld text's key-like words include an ISO timestamp's date and
// hour, so every later timestamp of that hour is cut to its minutes.
func TestAttackNamesAndTimestampsJoinTheSession(t *testing.T) {
	e := rtEngine(t, nil, rtReadHint, rtListLog)
	for _, o := range []engine.Outcome{
		{Kind: engine.Returned, Data: `{"notificationSettings":{"email":true}}`},
		{Kind: engine.Text, Data: "Signed in at 2024-01-15T10:30:00Z from the office"},
	} {
		if res := e.OutputOf("read_record", o); res.Err != nil || res.Held == 0 {
			t.Fatalf("read_record withheld nothing: %+v", res)
		}
	}
	const later = `{"events":[{"at":"2024-01-15T10:45:12Z"}],"notificationSettings":{"sms":false}}`
	res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Returned, Data: later})
	if res.Err != nil {
		t.Fatalf("list_log failed: %v", res.Err)
	}
	for _, v := range []string{"2024-01-15T10:45:12Z", `"notificationSettings"`} {
		if !strings.Contains(res.Agent, v) {
			t.Errorf("%s is gone from a later output that repeats nothing withheld:\nview: %s", v, res.Agent)
		}
	}
}

// Rule (d): a member name inside a withheld value joins the session's set
// only when it looks like a token (sixteen bytes, or eight with three
// digits and three letters). A map keyed by e-mail addresses, SSNs or
// phone numbers is keyed by what it withholds, and those keys come back
// in any later output.
func TestAttackMapKeyedByPersonalData(t *testing.T) {
	for _, key := range []string{"ada@example.org", "123-45-6789", "+14155552671"} {
		t.Run(key, func(t *testing.T) {
			e := rtEngine(t, nil, rtReadHint, rtListLog)
			out := rtJSON(map[string]any{"contacts": map[string]any{key: map[string]any{"calls": 3}}})
			if res := e.OutputOf("read_record", engine.Outcome{Kind: engine.Returned, Data: out}); res.Err != nil || res.Held == 0 {
				t.Fatalf("read_record withheld nothing: %+v", res)
			}
			later := "contact " + key + " was updated"
			rtNoLeak(t, later, e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: later}), key)
		})
	}
}

// Rule (d), hex: a hex run ends at a space unless every byte is set apart,
// and at a line break. The standard dump formats (Go's hex.Dump, which is
// hexdump -C's, and Python's bytes.hex(' ', 2), which is xxd's grouping)
// split any value of more than a few bytes, and each line's text column
// splits it too.
func TestAttackHexDumps(t *testing.T) {
	grouped := ""
	h := hex.EncodeToString([]byte(rtKey))
	for i := 0; i < len(h); i += 4 {
		grouped += h[i:i+4] + " "
	}
	// hex.Dump's lines (offsets, then bytes, then the characters) are
	// not read: agent-view.md lists hex dumps as not matched.
	for name, out := range map[string]string{
		"bytes.hex(' ', 2)": strings.TrimSpace(grouped),
	} {
		t.Run(name, func(t *testing.T) {
			e := rtEngine(t, nil, rtCreateKey, rtListLog)
			rtWithhold(t, e, rtKey)
			res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: out})
			if res.Unchanged {
				t.Errorf("a hex dump of the withheld key passed unchanged:\n%s", out)
			}
		})
	}
}

// Rule (c′): a type that names secret_reference "with _, -, ., a space of
// any kind, an invisible character or nothing between its words" is an
// invalid reference. In an ASCII string only one or two of _ - . and the
// space count: a tab or a line break between the words, or three spaces,
// lets the object pass whole, id and redeemUrl included.
func TestAttackMentionWithOtherWhiteSpace(t *testing.T) {
	for _, typ := range []string{"secret\treference", "secret\nreference", "secret   reference"} {
		e := rtEngine(t, nil, rt2Mint)
		out := rtJSON(map[string]string{"type": typ, "id": "ref_8f3kQz71Lm", "label": "API key", "redeemUrl": "/redeem/cap_9XkQ2mZr7Tb"})
		res := e.OutputOf("mint", engine.Outcome{Kind: engine.Returned, Data: out})
		for _, v := range []string{"ref_8f3kQz71Lm", "cap_9XkQ2mZr7Tb"} {
			if res.Err == nil && strings.Contains(res.Agent, v) {
				t.Errorf("type %q: %s reached the agent:\n%s", typ, v, res.Agent)
			}
		}
	}
}

// Rule (d), escapes: a string is decoded window by window around its
// escapes, and a window reaches twice the longest value's skeleton beyond
// them. An echo that takes more than two bytes a character (fullwidth
// forms, a zero-width space between characters) with one escape at its
// end is longer than that, and no window holds it whole.
func TestAttackInflatedEchoOutsideTheEscapeWindow(t *testing.T) {
	const v = "sk_live_Zq81vT0pLm42Zq81vT0pLm42Zq81vT0pLm42abcdefghij"
	var fullwidth strings.Builder
	for _, r := range v[:len(v)-1] {
		fullwidth.WriteRune(r - 0x21 + 0xFF01)
	}
	zwsp := strings.Join(strings.Split(v[:len(v)-1], ""), "\u200b")
	for name, out := range map[string]string{
		"fullwidth, then a character reference": "key " + fullwidth.String() + "&#x6A;",
		"zero-width spaces, then percent":       "key " + zwsp + "%6A",
	} {
		t.Run(name, func(t *testing.T) {
			e := rtEngine(t, nil, rtCreateKey, rtListLog)
			rtWithhold(t, e, v)
			rtNoLeak(t, out, e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: out}), v)
		})
	}
}

// Rule (d): a reference's label is removed from its own view only, and so
// is the label of any object with a string that names secret_reference.
// A record withheld as x-sensitive keeps its label in the session's set,
// unless another of its fields (a note the agent wrote through another
// tool) mentions a secret reference: then the label comes back later.
func TestAttackMentionMakesLabelViewOnly(t *testing.T) {
	const def = `{"name":"get_payee","description":"d","outputSchema":{"type":"object","properties":{"payee":{"type":"object","x-sensitive":true}}}}`
	const iban = "DE89370400440532013000"
	e := rtEngine(t, nil, def, rtListLog)
	out := rtJSON(map[string]any{"payee": map[string]any{"label": iban, "note": "paid with a secret reference"}})
	if res := e.OutputOf("get_payee", engine.Outcome{Kind: engine.Returned, Data: out}); res.Err != nil || res.Held == 0 {
		t.Fatalf("get_payee withheld nothing: %+v", res)
	}
	later := "Transfer to " + iban
	rtNoLeak(t, later, e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: later}), iban)
}

// Rule (d) for references: "every field of every reference, held, reduced
// or invalid (a redeemUrl also as its path and query, each query name and
// value, …, its fragment and the fragment's parameters)". The parts of an
// invalid reference's redeemUrl are not added, and a query or fragment
// whose parameters are separated by semicolons gives none of them.
func TestAttackRedeemURLPartsNotAdded(t *testing.T) {
	const tok = "QwErTyUiOpAsDfGhJk"
	for _, u := range []string{
		"https://api.other.example/redeem?cap=" + tok,
		"/redeem?v=1;cap=" + tok,
		"/redeem/x#v=1;cap=" + tok,
	} {
		t.Run(u, func(t *testing.T) {
			e := rtEngine(t, nil, rt2Mint, rtListLog)
			ref := rtJSON(map[string]string{"type": "secret_reference", "id": "ref_ab12", "label": "API key", "redeemUrl": u})
			if res := e.OutputOf("mint", engine.Outcome{Kind: engine.Returned, Data: ref}); res.Err != nil || res.Held+len(res.Invalid) == 0 {
				t.Fatalf("mint withheld nothing: %+v", res)
			}
			later := "capability " + tok
			rtNoLeak(t, later, e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: later}), tok)
		})
	}
}

// Rule (a1): a sensitiveHint tool's JSON text at an undeclared location (a
// text item, as MCP writes a result's JSON; a member the schema does not
// name) is withheld whole but not read against the schema, so the value
// at its x-sensitive location never joins the session's set, and a later
// output gives it back. The same text in a kept string of an x-sensitive
// tool without sensitiveHint (rule b) is read, and its SSN joins the set.
func TestAttackAllowlistJSONTextNotRead(t *testing.T) {
	const ssn = "123-45-6789"
	record := rtJSON(map[string]string{"id": "p_1", "ssn": ssn})
	for name, out := range map[string]string{
		"text item":         rtJSON(map[string]any{"content": []any{map[string]string{"type": "text", "text": record}}, "structuredContent": map[string]string{"id": "p_1"}}),
		"undeclared member": rtJSON(map[string]string{"id": "p_1", "payload": record}),
	} {
		t.Run(name, func(t *testing.T) {
			e := rtEngine(t, nil, rt2ReadPerson, rtListLog)
			if res := e.OutputOf("read_person", engine.Outcome{Kind: engine.Returned, Data: out}); res.Err != nil || res.Held == 0 {
				t.Fatalf("read_person withheld nothing: %+v", res)
			}
			later := "SSN on file: " + ssn
			rtNoLeak(t, later, e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: later}), ssn)
		})
	}
}

// Rule (b): "a string that is JSON text is read against the schema too".
// JSON text written as a JSON string (stringified twice, as a text item
// often holds it) and JSON Lines (a record a line) are read by any agent
// as the record, but neither is read against the schema, and the key at
// its x-sensitive location reaches the agent in the very view that
// withholds it from structuredContent.
func TestAttackJSONTextInOtherForms(t *testing.T) {
	record := rtJSON(map[string]string{"id": "key_1", "key": rtKey})
	for name, text := range map[string]string{
		"stringified twice": rtJSON(record),
		"JSON Lines":        record + "\n" + rtJSON(map[string]string{"id": "key_2"}),
	} {
		t.Run(name, func(t *testing.T) {
			e := rtEngine(t, nil, rtCreateKey)
			out := rtJSON(map[string]any{"content": []any{map[string]string{"type": "text", "text": text}}, "structuredContent": map[string]string{"id": "key_1"}})
			rtNoLeak(t, out, e.OutputOf("create_key", engine.Outcome{Kind: engine.Returned, Data: out}), rtKey)
		})
	}
}

// Result.Scrubbing says "the session's scrub set holds something after
// the call", and the page tells an engine started after a loss to
// withhold everything when any reply said so. A view that fails after it
// withheld values (here: its pointers would be too long) has added them
// to the set, yet its reply says the set is empty; an engine lost then
// starts clean, and a later output gives them back.
func TestAttackScrubbingAfterAFailedView(t *testing.T) {
	const def = `{"name":"tree","description":"d","outputSchema":{"$defs":{"n":{"type":"object","properties":{"s":{"type":"string","x-sensitive":true},"c":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}}`
	e := rtEngine(t, nil, def)
	var b strings.Builder
	const depth = 1500
	for i := 0; i < depth; i++ {
		b.WriteString(`{"s":"secret-value-` + strings.Repeat("x", 4) + `","c":`)
	}
	b.WriteString("{}" + strings.Repeat("}", depth))
	res := e.OutputOf("tree", engine.Outcome{Kind: engine.Returned, Data: b.String()})
	if n, _ := e.ScrubNeedles(); n > 0 && !res.Scrubbing {
		t.Errorf("the set holds %d needles after the call, but the reply says it holds nothing (err: %v)", n, res.Err)
	}
}

// Rule (d), "another Unicode form": a number written in the digits of
// another script (Arabic-Indic, as Intl.NumberFormat writes for ar-EG;
// Devanagari) is the same number to a reader, but its skeleton keeps
// those digits, and a card number so written passes.
func TestAttackDigitsOfOtherScripts(t *testing.T) {
	const card = "4111111111111111"
	for _, out := range []string{"card ٤١١١١١١١١١١١١١١١", "card ४१११११११११११११११"} {
		e := rtEngine(t, nil, rtCreateKey, rtListLog)
		rtWithhold(t, e, card)
		if res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: out}); res.Unchanged {
			t.Errorf("%q passed unchanged, though it is the withheld card number", out)
		}
	}
}

// Rule (b)'s envelope: "a member named like a sensitive property, where
// the schema declares nothing, is withheld". The schema describes
// structuredContent, not the CallToolResult around it, yet a member of
// the result itself so named (a record spread beside content) passes.
func TestAttackSensitiveNameBesideStructuredContent(t *testing.T) {
	const def = `{"name":"get_person","description":"d","outputSchema":{"type":"object","properties":{"id":{"type":"string"},"ssn":{"type":"string","x-sensitive":true}}}}`
	const ssn = "123-45-6789"
	for _, name := range []string{"ssn", "SSN"} {
		e := rtEngine(t, nil, def)
		out := rtJSON(map[string]any{"content": []any{map[string]string{"type": "text", "text": "found"}}, "structuredContent": map[string]string{"id": "p_1"}, name: ssn})
		rtNoLeak(t, out, e.OutputOf("get_person", engine.Outcome{Kind: engine.Returned, Data: out}), ssn)
	}
}

// Rule (d): a content item's MIME type and its MCP annotations audience,
// priority and lastModified are not what the item holds, so they never
// join the session's set. They are skipped whatever they hold: a value of
// another shape there (an account number as the priority, beside the
// roles of audience, as a MIME type) comes back in a later output.
func TestAttackAnnotationValuesOfOtherShapes(t *testing.T) {
	const iban = "DE89370400440532013000"
	for name, item := range map[string]map[string]any{
		"audience": {"type": "text", "text": "statement", "annotations": map[string]any{"audience": []string{"user", iban}}},
		"priority": {"type": "text", "text": "statement", "annotations": map[string]any{"priority": iban}},
		"mimeType": {"type": "text", "text": "statement", "mimeType": iban},
	} {
		t.Run(name, func(t *testing.T) {
			e := rtEngine(t, nil, rtReadHint, rtListLog)
			out := rtJSON(map[string]any{"content": []any{item}})
			if res := e.OutputOf("read_record", engine.Outcome{Kind: engine.Returned, Data: out}); res.Err != nil || res.Held == 0 {
				t.Fatalf("read_record withheld nothing: %+v", res)
			}
			later := "Transfer to IBAN " + iban
			rtNoLeak(t, later, e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: later}), iban)
		})
	}
}
