package engine_test

// Tests of the readings of readings.go applied after a decoding, and one
// after another: a later output holds a withheld value's bytes read in
// the wrong encoding, and then escaped, percent-encoded or read wrong
// again, as encoders outside this repository wrote it (Python 3's
// bytes.decode, json.dumps, html.escape and urllib.parse, Node 20's
// Buffer.toString, encodeURIComponent and JSON.stringify, Go's
// golang.org/x/text and encoding/json). The view is decoded and read back
// apart from the engine (encoding/json, net/url, html, golang.org/x/text)
// and must not give the value back; a marker beside it stays.

import (
	"bytes"
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"

	"github.com/veilmcp/veil/wasm/engine"
)

// decodedTexts returns text and what it decodes to, as a reader of the
// view would decode it: the strings of JSON text (to any depth of JSON
// text in strings), percent-encoding and HTML references, and that
// without <wbr>.
func decodedTexts(text string) []string {
	seen := map[string]bool{}
	var out []string
	var walk func(s string, depth int)
	walk = func(s string, depth int) {
		if seen[s] || depth > 6 {
			return
		}
		seen[s] = true
		out = append(out, s)
		var v any
		if json.Unmarshal([]byte(s), &v) == nil {
			var strs func(x any)
			strs = func(x any) {
				switch x := x.(type) {
				case string:
					walk(x, depth+1)
				case []any:
					for _, y := range x {
						strs(y)
					}
				case map[string]any:
					for k, y := range x {
						walk(k, depth+1)
						strs(y)
					}
				}
			}
			strs(v)
		}
		if u, err := url.QueryUnescape(s); err == nil {
			walk(u, depth+1)
		}
		walk(html.UnescapeString(s), depth+1)
		walk(regexp.MustCompile(`(?i)<wbr\s*/?>`).ReplaceAllString(s, ""), depth+1)
	}
	walk(text, 0)
	return out
}

// readBackTimes reverses the wrong reading enc n times over.
func readBackTimes(enc encoding.Encoding, view string, n int) []byte {
	b := []byte(view)
	for range n {
		b = readBack(enc, string(b))
	}
	return b
}

// TestAttackOutsideReadingsAfterDecodings: the key, a name and an address
// withheld earlier, read wrong and then escaped or percent-encoded, or
// read wrong two and three times over: each goes, and the marker stays.
func TestAttackOutsideReadingsAfterDecodings(t *testing.T) {
	const name = "Jürgen Müller-Wöß"
	const address = "ada@bücher-münchen.de"
	goTwice, _ := charmap.Windows1252.NewDecoder().String(name)
	goTwice, _ = charmap.Windows1252.NewDecoder().String(goTwice)
	goWbr, _ := json.Marshal(map[string]string{"marker": "KEEP", "html": "<p>" + outsideKey[:9] + "<wbr>" + outsideKey[9:19] + "<wbr>" + outsideKey[19:] + "</p>"})
	goItem, _ := json.Marshal(map[string]any{"content": []any{map[string]string{"type": "text", "text": string(goWbr)}}})
	tests := []struct {
		name, secret, output string
		kind                 engine.OutcomeKind
		gone                 func(text string) bool // whether text is free of the secret
	}{
		// Python 3: json.dumps of an MCP text item holding json.dumps of env.decode("utf-16-le")
		{"Python 3: utf-16-le in json.dumps in a text item", outsideKey, "{\"content\": [{\"type\": \"text\", \"text\": \"{\\\"marker\\\": \\\"KEEP\\\", \\\"content\\\": \\\"\\\\u5453\\\\u4952\\\\u4550\\\\u4b5f\\\\u5945\\\\u733d\\\\u5f6b\\\\u696c\\\\u6576\\\\u355f\\\\u4831\\\\u4c71\\\\u6a79\\\\u4457\\\\u7261\\\\u746a\\\\u3154\\\\u647a\\\\u3770\\\\u6364\\\\u440a\\\\u4245\\\\u4755\\\\u313d\\\"}\"}]}", engine.Returned, noUTF16Key},
		// Python 3: urllib.parse.quote(("KEY="+key).encode().decode("utf-16-le", errors="ignore")), an odd last byte dropped
		{"Python 3: utf-16-le of an odd length, percent-encoded", outsideKey, "https://x.example/view?marker=KEEP&f=%E4%95%8B%E3%B5%99%E6%AD%B3%E6%B1%9F%E7%99%A9%E5%BD%A5%E3%84%B5%E7%85%88%E7%A5%8C%E5%9D%AA%E6%85%84%E6%A9%B2%E5%91%B4%E7%A8%B1%E7%81%A4%E6%90%B7", engine.Text, noUTF16Key},
		// Python 3: json.dumps of the same, an odd last byte dropped
		{"Python 3: utf-16-le of an odd length, in json.dumps", outsideKey, "{\"marker\": \"KEEP\", \"content\": \"\\u454b\\u3d59\\u6b73\\u6c5f\\u7669\\u5f65\\u3135\\u7148\\u794c\\u576a\\u6144\\u6a72\\u5474\\u7a31\\u7064\\u6437\"}", engine.Returned, noUTF16Key},
		// Node 20: encodeURIComponent(Buffer.from("KEY="+key).toString("utf16le"))
		{"Node 20: utf16le, encodeURIComponent", outsideKey, "https://x.example/view?marker=KEEP&f=%E4%95%8B%E3%B5%99%E6%AD%B3%E6%B1%9F%E7%99%A9%E5%BD%A5%E3%84%B5%E7%85%88%E7%A5%8C%E5%9D%AA%E6%85%84%E6%A9%B2%E5%91%B4%E7%A8%B1%E7%81%A4%E6%90%B7", engine.Text, noUTF16Key},
		// Python 3: html.escape of "<wbr>".join(textwrap.wrap(key, 6)) in a feed item
		{"Python 3: <wbr> by html.escape", outsideKey, "<item><title>KEEP</title><description>&lt;p&gt;Your key: sk_liv&lt;wbr&gt;e_51Hq&lt;wbr&gt;LyjWDa&lt;wbr&gt;rjtT1z&lt;wbr&gt;dp7dc&lt;/p&gt;</description></item>", engine.Text, noPlainKey},
		// Python 3: json.dumps of the HTML in a text item
		{"Python 3: <wbr> by json.dumps in a text item", outsideKey, "{\"content\": [{\"type\": \"text\", \"text\": \"{\\\"marker\\\": \\\"KEEP\\\", \\\"html\\\": \\\"<p>Your key: sk_liv<wbr>e_51Hq<wbr>LyjWDa<wbr>rjtT1z<wbr>dp7dc</p>\\\"}\"}]}", engine.Returned, noPlainKey},
		// Node 20: JSON.stringify of the HTML in a text item
		{"Node 20: <wbr> by JSON.stringify in a text item", outsideKey, "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"marker\\\":\\\"KEEP\\\",\\\"html\\\":\\\"<p>sk_liv<wbr>e_51Hq<wbr>LyjWDa<wbr>rjtT1z<wbr>dp7dc</p>\\\"}\"}]}", engine.Returned, noPlainKey},
		{"Go encoding/json: <wbr> as \\u003cwbr\\u003e in a text item", outsideKey, string(goItem), engine.Returned, noPlainKey},
		// Python 3: name.encode().decode("cp1252", errors="replace"), twice, by json.dumps
		{"Python 3: cp1252 twice", name, "{\"greeting\": \"Hello\", \"who\": \"J\\u00c3\\u0192\\u00c2\\u00bcrgen M\\u00c3\\u0192\\u00c2\\u00bcller-W\\u00c3\\u0192\\u00c2\\u00b6\\u00c3\\u0192\\u00c5\\u00b8\"}", engine.Returned, noName(2)},
		// Python 3: the same three times
		{"Python 3: cp1252 three times", name, "{\"greeting\": \"Hello\", \"who\": \"J\\u00c3\\u0192\\u00c6\\u2019\\u00c3\\u201a\\u00c2\\u00bcrgen M\\u00c3\\u0192\\u00c6\\u2019\\u00c3\\u201a\\u00c2\\u00bcller-W\\u00c3\\u0192\\u00c6\\u2019\\u00c3\\u201a\\u00c2\\u00b6\\u00c3\\u0192\\u00c6\\u2019\\u00c3\\u2026\\u00c2\\u00b8\"}", engine.Returned, noName(3)},
		// Python 3: name.encode().decode("latin-1"), twice, by json.dumps
		{"Python 3: latin-1 twice", name, "{\"greeting\": \"Hello\", \"who\": \"J\\u00c3\\u0083\\u00c2\\u00bcrgen M\\u00c3\\u0083\\u00c2\\u00bcller-W\\u00c3\\u0083\\u00c2\\u00b6\\u00c3\\u0083\\u00c2\\u009f\"}", engine.Returned, noName(2)},
		// Node 20: Buffer.from(Buffer.from(name).toString("latin1")).toString("latin1")
		{"Node 20: latin1 twice", name, "{\"greeting\":\"Hello\",\"who\":\"JÃÂ¼rgen MÃÂ¼ller-WÃÂ¶ÃÂ\"}", engine.Returned, noName(2)},
		{"Go x/text: Windows-1252 twice", name, `{"marker":"KEEP","who":` + rtJSON(goTwice) + `}`, engine.Returned, noName(2)},
		// Python 3: json.dumps of a text item holding json.dumps of name.encode().decode("latin-1")
		{"Python 3: latin-1 in json.dumps in a text item", name, "{\"content\": [{\"type\": \"text\", \"text\": \"{\\\"greeting\\\": \\\"Hello\\\", \\\"who\\\": \\\"J\\\\u00c3\\\\u00bcrgen M\\\\u00c3\\\\u00bcller-W\\\\u00c3\\\\u00b6\\\\u00c3\\\\u009f\\\"}\"}]}", engine.Returned, noName(1)},
		// Python 3: urllib.parse.quote("ada@" + domain.encode("idna").decode(), safe="")
		{"Python 3: idna, percent-encoded", address, "https://app.example/invite?marker=KEEP&email=ada%40xn--bcher-mnchen-dlbg.de", engine.Text, noPunycode},
		// Python 3: urllib.parse.urlencode({"email": ...})
		{"Python 3: idna, urlencode", address, "marker=KEEP&email=ada%40xn--bcher-mnchen-dlbg.de", engine.Text, noPunycode},
		// Node 20: encodeURIComponent("ada@" + new URL("https://bücher-münchen.de").hostname)
		{"Node 20: URL hostname, encodeURIComponent", address, "https://app.example/invite?marker=KEEP&email=ada%40xn--bcher-mnchen-dlbg.de", engine.Text, noPunycode},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := indSession(t)
			indWithholdKey(t, e, tc.secret)
			view := indLater(t, e, tc.kind, tc.output)
			for _, text := range decodedTexts(view) {
				if !tc.gone(text) {
					t.Errorf("the value is in the view, decoded and read back:\n%s\nread: %q", view, text)
					break
				}
			}
			if !strings.Contains(view, "KEEP") && !strings.Contains(view, "Hello") {
				t.Errorf("the marker is gone:\n%s", view)
			}
		})
	}
}

// noPlainKey reports whether text is without the key's middle.
func noPlainKey(text string) bool { return !strings.Contains(text, outsideKey[4:20]) }

// noUTF16Key reports whether text, read back as UTF-16 in both orders and
// from an even or an odd offset, is without the key's middle.
func noUTF16Key(text string) bool {
	for _, b := range utf16Views(text) {
		for _, off := range []int{0, 1} {
			if len(b) > off && bytes.Contains(b[off:], []byte(outsideKey[4:20])) {
				return false
			}
		}
	}
	return noPlainKey(text)
}

// noName returns whether text, read back as Latin-1 or Windows-1252 from
// once to n times over, is without the name's parts.
func noName(n int) func(string) bool {
	return func(text string) bool {
		for k := 0; k <= n; k++ {
			for _, enc := range []encoding.Encoding{charmap.ISO8859_1, charmap.Windows1252} {
				if b := readBackTimes(enc, text, k); bytes.Contains(b, []byte("Müller")) || bytes.Contains(b, []byte("Jürgen")) {
					return false
				}
			}
		}
		return true
	}
}

// noPunycode reports whether text is without the address's domain in its
// ASCII form, in any case.
func noPunycode(text string) bool {
	return !strings.Contains(strings.ToLower(text), "xn--bcher-mnchen-dlbg")
}
