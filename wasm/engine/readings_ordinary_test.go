package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// composedWords are words of ordinary outputs that the composed readings
// read (readings.go: a reading after a decoding, one after another, the
// last byte a UTF-16 reading lost) and that a withheld private key's hex
// could be mistaken in: digests and a fingerprint of other data, CJK and
// an IDN domain percent-encoded, <wbr> and names read wrong escaped, names
// read wrong twice, kana that a UTF-16 reading reads as printable ASCII,
// and dates and ids with the year a PIN is.
var composedWords = []string{
	"6466e450a16b77b865c5829d6b6c56d9f892956475642dbeb9ccc4340fe01b15",
	"aff6100bd4df0ea66736e1d3304208069a0f24303e21b43422398c935540a236",
	"e88bdf28e35788a6b33cd9ed67616e2ef4ecc56b878a0102b001eb7e8a24f6e9",
	"11f6ad8ec52a2984abaafd7c3b516503785c2072",
	"06:29:84:32:E8:06:6B:29:E2:22:3B:CC:23:AA:95:04:B5:6A:E5:08:FA:BF:34:35:50:88:69:B9:C3:19:0E:22",
	"%E6%9D%B1%E4%BA%AC%E3%81%AE%E5%A4%A9%E6%B0%97",
	"%E4%BC%9A%E8%AD%B0%E5%AE%A4",
	"https://x.example/?q=%E5%A4%A7%E9%98%AA%20%E7%99%BA%E9%80%81",
	"mail%40xn--mnchen-3ya.de",
	"ada%40xn--e1afmkfd.xn--p1ai",
	"inter&lt;wbr&gt;national",
	"exam\\u003cwbr\\u003eple.org",
	"Gr\\u00c3\\u00b6\\u00c3\\u009fe",
	"GrÃƒÂ¶ÃƒÅ¸e",
	"ZoÃÂ«",
	"\\u6771\\u4eac",
	"ありがとう",
	"こんにちは",
	"ぁぃぅぇぉ",
	"カタカナ",
	"東京タワー",
	"2026-03-14",
	"14.03.2026",
	"v2026.1.0",
	"March 14, 2026",
	"ORD-2026-0314",
}

// composedKey is a P-256 key in PKCS#8 PEM that openssl genpkey wrote.
const composedKey = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\n-----END PRIVATE KEY-----\n"

// TestComposedReadingsKeepOrdinaryOutputs counts the ordinary outputs of
// composedWords and readingsWords (every other one cut into text items,
// with a link and an empty text between some of them) that a session
// which withheld readingsWithheld and a private key changes: a false
// positive of a composed reading, of the joined text items or of the
// key's numbers would cut one. None may change.
func TestComposedReadingsKeepOrdinaryOutputs(t *testing.T) {
	e := keepSession(t, append(readingsWithheld[:len(readingsWithheld):len(readingsWithheld)], composedKey)...)
	words := append(composedWords[:len(composedWords):len(composedWords)], readingsWords...)
	rng := rand.New(rand.NewPCG(33, 33))
	var outputs []string
	for n := range 3000 {
		var ws []string
		for range 1 + rng.IntN(30) {
			ws = append(ws, words[rng.IntN(len(words))])
		}
		text := strings.Join(ws, []string{" ", "\n", ", "}[rng.IntN(3)])
		data := fmt.Sprintf(`{"id":%d,"text":%q}`, 100000+n, text)
		if n%2 == 1 {
			// One text item a word, which a client joins, a link or an
			// empty text between some of them (an image would go, as every
			// later image does once the session withheld anything).
			var items []string
			for k, w := range ws {
				if k > 0 {
					w = " " + w
				}
				items = append(items, fmt.Sprintf(`{"type":"text","text":%q}`, w))
				switch rng.IntN(6) {
				case 0:
					items = append(items, `{"type":"resource_link","uri":"https://x.example/a.txt","name":"a"}`)
				case 1:
					items = append(items, `{"type":"text","text":""}`)
				}
			}
			data = `{"content":[` + strings.Join(items, ",") + `]}`
		}
		outputs = append(outputs, data)
	}
	assertKept(t, e, outputs)
}
