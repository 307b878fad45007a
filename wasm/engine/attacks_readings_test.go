package engine_test

// Tests of the readings of readings.go: a later output holds a withheld
// value's bytes read in the wrong encoding, written by encoders outside
// this repository (Node 20's Buffer.toString, Python 3's bytes.decode
// and textwrap, Go's golang.org/x/text and html/template). The view is read back the same way by Go's
// golang.org/x/text encoders, apart from the engine, and must not give
// the value back.

import (
	"bytes"
	"html/template"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	xunicode "golang.org/x/text/encoding/unicode"

	"github.com/veilmcp/veil/wasm/engine"
)

// readBack encodes the view's characters with enc, as the bytes they were
// read from, each character no byte reads as dropped: what an agent gets
// back by reversing the wrong reading.
func readBack(enc encoding.Encoding, view string) []byte {
	var out []byte
	e := enc.NewEncoder()
	for _, r := range view {
		b, err := e.Bytes([]byte(string(r)))
		if err != nil {
			out = append(out, 0)
			continue
		}
		out = append(out, b...)
	}
	return out
}

// utf16Views are the view read back as UTF-16 in both orders, and from an
// odd offset.
func utf16Views(view string) [][]byte {
	var out [][]byte
	for _, order := range []xunicode.Endianness{xunicode.LittleEndian, xunicode.BigEndian} {
		out = append(out, readBack(xunicode.UTF16(order, xunicode.IgnoreBOM), view))
	}
	return out
}

// The key withheld earlier, in a .env file read as UTF-16: the agent
// chose the encoding of a read_file, and the bytes came back two a
// character. Every case goes; the marker beside it stays.
func TestAttackOutsideUTF16(t *testing.T) {
	env := "STRIPE_KEY=" + outsideKey + "\nDEBUG=1\n"
	goLE, _ := xunicode.UTF16(xunicode.LittleEndian, xunicode.IgnoreBOM).NewDecoder().String(env)
	goBE, _ := xunicode.UTF16(xunicode.BigEndian, xunicode.IgnoreBOM).NewDecoder().String(env[1:] + "\n")
	tests := []struct {
		name, output string
		kind         engine.OutcomeKind
	}{
		// Node 20: JSON.stringify({path: ".env", encoding: "utf16le", content: buf.toString("utf16le")})
		{"Node 20: utf16le", `{"path":".env","encoding":"utf16le","marker":"KEEP","content":"呓䥒䕐䭟奅猽彫楬敶㕟䠱䱱橹䑗牡瑪ㅔ摺㝰捤䐊䉅䝕ㄽ"}`, engine.Returned},
		// Node 20: buf.subarray(1).toString("utf16le") in a text item.
		{"Node 20: utf16le from an odd offset", `{"content":[{"type":"text","text":"KEEP"},{"type":"text","text":"剔偉彅䕋㵙歳江癩彥ㄵ煈祌坪慄橲呴稱灤搷੣䕄啂㵇਱"}]}`, engine.Returned},
		// Python 3: env.decode("utf-16-be", errors="replace")
		{"Python 3: utf-16-be", `{"marker":"KEEP","text":"協剉偅彋䕙㵳歟汩癥張ㅈ煌祪坄慲橴吱穤瀷摣੄䕂啇㴱�"}`, engine.Returned},
		// Python 3: env[1:].decode("utf-16-le"), a string result.
		{"Python 3: utf-16-le as a string result", "KEEP\n剔偉彅䕋㵙歳江癩彥ㄵ煈祌坪慄橲呴稱灤搷੣䕄啂㵇਱", engine.Text},
		{"Go x/text: UTF-16LE", `{"marker":"KEEP","content":` + rtJSON(goLE) + `}`, engine.Returned},
		{"Go x/text: UTF-16BE from an odd offset", `{"marker":"KEEP","content":` + rtJSON(goBE) + `}`, engine.Returned},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := outsideEcho(t, outsideKey, tc.kind, tc.output)
			if res.Err != nil {
				t.Fatalf("list_log failed: %v", res.Err)
			}
			for _, b := range utf16Views(res.Agent) {
				for _, off := range []int{0, 1} {
					if len(b) > off && bytes.Contains(b[off:], []byte(outsideKey[4:16])) {
						t.Errorf("the key's bytes are in the view read as UTF-16:\n%s", res.Agent)
					}
				}
			}
			if !strings.Contains(res.Agent, "KEEP") {
				t.Errorf("the marker is gone:\n%s", res.Agent)
			}
		})
	}
}

// A name withheld earlier, in a later output that read its UTF-8 as
// Latin-1 or Windows-1252, the commonest encoding bug there is: it goes,
// and the words around it stay.
func TestAttackOutsideMojibake(t *testing.T) {
	const name = "Jürgen Müller-Wöß"
	goLatin, _ := charmap.ISO8859_1.NewDecoder().String(name + "’s")
	goCP, _ := charmap.Windows1252.NewDecoder().String("Dear " + name + "’s team")
	tests := []struct {
		name, output string
	}{
		// Node 20: Buffer.from(name).toString("latin1"); its last byte is U+009F.
		{"Node 20: latin1", `{"greeting":"Hello","name":"JÃ¼rgen MÃ¼ller-WÃ¶Ã` + "\u009f" + `"}`},
		// Python 3: (name + "’s").encode().decode("cp1252", errors="replace")
		{"Python 3: cp1252", `{"greeting":"Hello","who":"JÃ¼rgen MÃ¼ller-WÃ¶ÃŸâ€™s"}`},
		// Python 3: json.dumps({"who": name.encode().decode("latin-1")})
		{"Python 3: latin-1, escaped", `{"greeting":"Hello","who":"J\u00c3\u00bcrgen M\u00c3\u00bcller-W\u00c3\u00b6\u00c3\u009f"}`},
		{"Go x/text: ISO 8859-1", `{"greeting":"Hello","who":` + rtJSON(goLatin) + `}`},
		{"Go x/text: Windows-1252 in a sentence", `{"greeting":"Hello","line":` + rtJSON(goCP) + `}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := rtEngine(t, nil, rtCreateKey, rtListLog)
			rtWithhold(t, e, name)
			res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Returned, Data: tc.output})
			if res.Err != nil {
				t.Fatalf("list_log failed: %v", res.Err)
			}
			for _, enc := range []encoding.Encoding{charmap.ISO8859_1, charmap.Windows1252} {
				if b := readBack(enc, res.Agent); bytes.Contains(b, []byte("Müller")) || bytes.Contains(b, []byte("Jürgen")) {
					t.Errorf("the name is in the view read back as %v:\n%s", enc, res.Agent)
				}
			}
			if !strings.Contains(res.Agent, "Hello") {
				t.Errorf("the greeting is gone:\n%s", res.Agent)
			}
		})
	}
}

// Ordinary text with Latin-1 letters, CJK text and text of other scripts,
// none of it a wrong reading of a withheld value, passes byte for byte.
func TestOutsideReadingsKeepOrdinaryText(t *testing.T) {
	outputs := []string{
		`{"city":"München","café":"Crème brûlée, 4,50 €","quote":"“It’s fine” — Zoë"}`,
		`{"title":"東京の天気は晴れです","body":"今日は2026-03-14、気温は18度。"}`,
		`{"greeting":"Привет, мир","ar":"مرحبا بالعالم","el":"Καλημέρα"}`,
		`{"mojibake":"JÃ¼rgen MÃ¼ller","note":"an unrelated name read as Latin-1"}`,
	}
	for _, output := range outputs {
		res := outsideEcho(t, outsideKey, engine.Returned, output)
		if res.Err != nil || res.Agent != output {
			t.Errorf("ordinary text was changed:\noutput: %s\nview:   %s\nerror:  %v", output, res.Agent, res.Err)
		}
	}
}

// The key withheld earlier, cut by <wbr> elements as an HTML mail
// template writes a long word: it goes, and the markup around it stays.
func TestAttackOutsideWbr(t *testing.T) {
	tmpl := template.Must(template.New("m").Parse(`<p>Key: {{range $i, $p := .}}{{if $i}}<wbr />{{end}}{{$p}}{{end}}</p>`))
	var goOut strings.Builder
	if err := tmpl.Execute(&goOut, []string{outsideKey[:9], outsideKey[9:19], outsideKey[19:]}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, output string
	}{
		// Python 3: "<p>Your key: " + "<wbr>".join(textwrap.wrap(key, 6)) + "</p>", by json.dumps
		{"Python 3: textwrap and <wbr>", `{"html": "<p>Your key: sk_liv<wbr>e_51Hq<wbr>LyjWDa<wbr>rjtT1z<wbr>dp7dc</p>"}`},
		{"Go html/template: <wbr />", `{"html":` + rtJSON(goOut.String()) + `}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := outsideEcho(t, outsideKey, engine.Returned, tc.output)
			if res.Err != nil {
				t.Fatalf("list_log failed: %v", res.Err)
			}
			plain := regexp.MustCompile(`(?i)<wbr\s*/?>`).ReplaceAllString(res.Agent, "")
			if strings.Contains(plain, outsideKey[3:12]) || strings.Contains(plain, outsideKey[12:]) {
				t.Errorf("the key is in the view without its <wbr>:\n%s", res.Agent)
			}
			if !strings.Contains(res.Agent, "<p>") {
				t.Errorf("the markup around it is gone:\n%s", res.Agent)
			}
		})
	}
}

// An e-mail address withheld earlier, cut by <WBR/> elements that
// Python's textwrap and html.escape wrote: it goes.
func TestAttackOutsideWbrAddress(t *testing.T) {
	const address = "ada.lovelace@example.com"
	// Python 3: "<td>" + "<WBR/>".join(html.escape(p) for p in textwrap.wrap(address, 5)) + "</td>"
	const output = `{"html": "<td>ada.l<WBR/>ovela<WBR/>ce@ex<WBR/>ample<WBR/>.com</td>", "ok": true}`
	res := outsideEcho(t, address, engine.Returned, output)
	if res.Err != nil {
		t.Fatalf("list_log failed: %v", res.Err)
	}
	plain := regexp.MustCompile(`(?i)<wbr\s*/?>`).ReplaceAllString(res.Agent, "")
	if strings.Contains(plain, "lovelace") || strings.Contains(plain, "@example") {
		t.Errorf("the address is in the view without its <wbr>:\n%s", res.Agent)
	}
	if !strings.Contains(res.Agent, `"ok": true`) {
		t.Errorf("the rest of the output is gone:\n%s", res.Agent)
	}
}

// An e-mail address and a domain on IDN domains, withheld earlier, in the
// ASCII form of their labels, as Node 20's url.domainToASCII and Python
// 3's "idna" codec write them: they go, and the rest stays.
func TestAttackOutsidePunycode(t *testing.T) {
	tests := []struct {
		name, secret, output, gone string
	}{
		// Node 20: "ada@" + url.domainToASCII("bücher-münchen.de")
		{"Node 20: an address", "ada@bücher-münchen.de", `{"to":"ada@xn--bcher-mnchen-dlbg.de","subject":"Renewal"}`, "ada@xn--bcher"},
		// Python 3: "ada@" + "bücher-münchen.de".encode("idna").decode()
		{"Python 3: an address in a log line", "ada@bücher-münchen.de", `{"log":["sent to ada@xn--bcher-mnchen-dlbg.de at 10:20"],"subject":"Renewal"}`, "xn--bcher-mnchen-dlbg"},
		// Node 20: "shop." + url.domainToASCII("пример.рф")
		{"Node 20: a Cyrillic domain", "shop.пример.рф", `{"host":"shop.xn--e1afmkfd.xn--p1ai","subject":"Renewal"}`, "xn--e1afmkfd"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := outsideEcho(t, tc.secret, engine.Returned, tc.output)
			if res.Err != nil {
				t.Fatalf("list_log failed: %v", res.Err)
			}
			outsideAbsent(t, res.Agent, tc.gone)
			if !strings.Contains(res.Agent, "Renewal") {
				t.Errorf("the rest of the output is gone:\n%s", res.Agent)
			}
		})
	}
}

// A log that holds the key withheld earlier, cut into MCP text items of
// sixteen characters, which a client joins into one text: the pieces of
// the key go, and the rest of the log stays. Written by Python 3's
// json.dumps of [{"type": "text", "text": log[i:i+16]} for i in
// range(0, len(log), 16)], and of a key in two items with indent=2.
func TestAttackOutsideTextItemsJoined(t *testing.T) {
	tests := []struct {
		name, output, keep string
	}{
		{"Python 3: a log in items of 16", `{"content": [{"type": "text", "text": "2026-03-14 10:20"}, {"type": "text", "text": ":26 GET /v1/keys"}, {"type": "text", "text": " Authorization: "}, {"type": "text", "text": "Bearer sk_live_5"}, {"type": "text", "text": "1HqLyjWDarjtT1zd"}, {"type": "text", "text": "p7dc 200 OK"}]}`, "GET /v1/keys"},
		{"Python 3: a key in two items, indented", "{\n  \"content\": [\n    {\n      \"type\": \"text\",\n      \"text\": \"Key follows.\"\n    },\n    {\n      \"type\": \"text\",\n      \"text\": \"sk_live_51Hq\"\n    },\n    {\n      \"type\": \"text\",\n      \"text\": \"LyjWDarjtT1zdp7dc\"\n    },\n    {\n      \"type\": \"text\",\n      \"text\": \"Done.\"\n    }\n  ]\n}", "Key follows."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := outsideEcho(t, outsideKey, engine.Returned, tc.output)
			if res.Err != nil {
				t.Fatalf("list_log failed: %v", res.Err)
			}
			joined := strings.Join(outsideTexts(t, res.Agent), "")
			if strings.Contains(joined, outsideKey[8:20]) || strings.Contains(joined, "LyjWDa") {
				t.Errorf("the key is in the text items joined:\n%s", res.Agent)
			}
			if !strings.Contains(joined, tc.keep) {
				t.Errorf("%q is gone:\n%s", tc.keep, res.Agent)
			}
		})
	}
}
