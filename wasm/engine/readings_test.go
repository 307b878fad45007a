package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readingsWithheld are what the session of TestReadingsKeepOrdinaryOutputs
// withheld: a key, a name beyond ASCII, a PIN, and a word of CJK.
var readingsWithheld = []string{"sk_live_51HqLyjWDarjtT1zdp7dc", "Jürgen Müller-Wöß", "2026", "富士山頂上"}

// readingsWords are the words of ordinary outputs in the scripts wrong
// readings give: Latin-1 letters, Windows-1252 punctuation, CJK, Cyrillic,
// Greek, Arabic, UTF-8 read as Latin-1 of names nothing withheld, and
// markup with <wbr>, and domains of Punycode labels.
var readingsWords = []string{
	"München", "Crème", "brûlée", "Zoë", "naïve", "façade", "€4,50", "“quoted”", "it’s", "—", "…",
	"東京", "天気", "晴れ", "今日", "気温", "大阪", "会議", "注文", "発送", "タワー",
	"Привет", "мир", "заказ", "Καλημέρα", "κόσμε", "مرحبا", "بالعالم", "ÅŸ", "JÃ¼rgen", "MÃ¼ller", "GrÃ¶ÃŸe",
	"2026-03-14", "19.99", "ORD-2026-0314", "10:20:26", "active", "English", "status", "ok",
	"inter<wbr>national", "https://xn--mnchen-3ya.de/", "xn--e1afmkfd.xn--p1ai", "xn--", "xn--zz!", "https://exam<wbr>ple.org/very<wbr />long", "<WBR/>", "<b>bold</b>",
	"[3 1 4 1 5 9]", "[200 404 500 503]", "[10 20 30 40]", "[115 107]",
}

// TestReadingsKeepOrdinaryOutputs counts the ordinary outputs (prose of
// the scripts above, dates, prices, ids; every other one cut into text
// items at spaces) that a session which withheld readingsWithheld changes: a false
// positive of the wrong readings or of joining text items would cut one.
// None may change.
func TestReadingsKeepOrdinaryOutputs(t *testing.T) {
	e := keepSession(t, readingsWithheld...)
	rng := rand.New(rand.NewPCG(32, 32))
	var outputs []string
	for n := range 3000 {
		var words []string
		for range 3 + rng.IntN(40) {
			words = append(words, readingsWords[rng.IntN(len(readingsWords))])
		}
		sep := []string{" ", "", ", "}[rng.IntN(3)]
		text := strings.Join(words, sep)
		data := fmt.Sprintf(`{"id":%d,"text":%q}`, 100000+n, text)
		if n%2 == 1 {
			// Cut into text items of sixteen bytes or more, each ending
			// at a space, which a client joins. (A date cut inside an
			// item is not read as a date: agent-view.md.)
			var items []string
			for k := 0; k < len(text); {
				e := min(k+16, len(text))
				if sp := strings.IndexByte(text[e:], ' '); sp >= 0 {
					e += sp + 1
				} else {
					e = len(text)
				}
				items = append(items, fmt.Sprintf(`{"type":"text","text":%q}`, text[k:e]))
				k = e
			}
			data = `{"content":[` + strings.Join(items, ",") + `]}`
		}
		outputs = append(outputs, data)
	}
	assertKept(t, e, outputs)
}

// keepSession returns an engine whose tool "keep" withheld each of
// values at an x-sensitive member, and whose tool "later" declares
// nothing.
func keepSession(t *testing.T, values ...string) *Engine {
	t.Helper()
	e := New(&Options{Origin: testOrigin})
	mustRegister(t, e, `{"name":"keep","description":"d","outputSchema":{"type":"object","properties":{"v":{"type":"string","x-sensitive":true}}}}`)
	mustRegister(t, e, `{"name":"later","description":"d"}`)
	for _, v := range values {
		res := e.OutputOf("keep", Outcome{Kind: Returned, Data: fmt.Sprintf(`{"v":%q}`, v)})
		require.Nil(t, res.Err)
		require.Equal(t, 1, res.Held)
	}
	return e
}

// assertKept asserts that "later" returns each of outputs unchanged,
// showing the first three it changed and counting them all.
func assertKept(t *testing.T, e *Engine, outputs []string) {
	t.Helper()
	changed := 0
	for _, data := range outputs {
		res := e.OutputOf("later", Outcome{Kind: Returned, Data: data})
		require.Nil(t, res.Err)
		if res.Agent != data {
			changed++
			if changed <= 3 {
				t.Errorf("an ordinary output was changed\noutput: %s\nview:   %s", data, res.Agent)
			}
		}
	}
	t.Logf("%d of %d ordinary outputs changed", changed, len(outputs))
	assert.Zero(t, changed)
}

// TestPunyDecode: punyDecode reads what Python 3's "punycode" codec
// wrote (d.encode("punycode")), and refuses what is no Punycode.
func TestPunyDecode(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"mnchen-3ya", "münchen", true},
		{"bcher-kva", "bücher", true},
		{"fiqs8s", "中国", true},
		{"and-6ma2c", "ñandú", true},
		{"e1afmkfd", "пример", true},
		{"eckwd4c7cu47r2wf", "ドメイン名例", true},
		{"fa-hia", "faß", true},
		{"a-b--3ra", "a-b-ü", true},
		{"", "", false},
		{"mnchen-3y", "", false},
		{"a!b", "", false},
		{strings.Repeat("a", 64), "", false},
		{"99999999999", "", false},
	}
	for _, tt := range tests {
		got, ok := punyDecode(tt.in)
		assert.Equal(t, tt.ok, ok, "punyDecode(%q)", tt.in)
		if tt.ok {
			assert.Equal(t, tt.want, got, "punyDecode(%q)", tt.in)
		}
	}
}

// TestATextWithoutReadingsIsNotRead: eachReadingMatch skips a text of
// ASCII alone with no '<', no "--" and no '['; every reading of such a
// text reads nothing, hyphens and all, so the skip loses none. One "--"
// more (an xn-- label) and it is read.
func TestATextWithoutReadingsIsNotRead(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	pieces := []string{"-", "x", "n", "X", "N", "xn-", "-xn", "a", "7", " ", "wbr", ">", "/", ".", "]", "255", "115", "sk-live-", "follow-up"}
	var r reading
	for range 20000 {
		var b strings.Builder
		for n := rng.IntN(24); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		str := b.String()
		if strings.Contains(str, "--") {
			continue
		}
		for _, read := range []func(*reading, string) bool{
			(*reading).withoutWbr, (*reading).withPunycode, (*reading).mojibake, (*reading).byteValues,
			func(r *reading, s string) bool { return r.utf16Bytes(s, false) },
			func(r *reading, s string) bool { return r.utf16Bytes(s, true) },
		} {
			require.False(t, read(&r, str), "%q", str)
		}
	}
	assert.True(t, r.withPunycode("mail to ana@xn--bcher-kva.example"))
}
