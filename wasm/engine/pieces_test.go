package engine

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pieceKinds make keys the way their issuers do, from a seeded source so
// that a failure repeats: what a later tool reads of them by offset and
// length is the attack.
// secret, when set, is the part of a key that is secret: a JWT's
// signature (its header and claims are base64 of JSON that other tokens
// share), a Stripe key past the account id it carries (docs/agent-view.md).
var pieceKinds = []struct {
	name   string
	make   func(r *rand.Rand) string
	secret func(key string) string
}{
	{"token_urlsafe(32)", func(r *rand.Rand) string { return base64.RawURLEncoding.EncodeToString(randBytes(r, 32)) }, nil},
	{"token_hex(32)", func(r *rand.Rand) string { return hex.EncodeToString(randBytes(r, 32)) }, nil},
	{"base64 of 30 bytes (an AWS secret's shape)", func(r *rand.Rand) string { return base64.StdEncoding.EncodeToString(randBytes(r, 30)) }, nil},
	{"uuid4", func(r *rand.Rand) string {
		b := randBytes(r, 16)
		b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
		return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
	}, nil},
	{"sk_live_, an account and 24 letters and digits", func(r *rand.Rand) string { return "sk_live_51" + alnum(r, 40) }, func(key string) string { return key[len("sk_live_5")+16:] }},
	{"ghp_ and 36 letters and digits", func(r *rand.Rand) string { return "ghp_" + alnum(r, 36) }, nil},
	{"a password of 20 with symbols", func(r *rand.Rand) string { return password(r, 20) }, nil},
	{"32 letters", func(r *rand.Rand) string { return letterToken(r, 32) }, nil},
	{"an HS256 JWT", func(r *rand.Rand) string {
		return "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + base64.RawURLEncoding.EncodeToString(randBytes(r, 32))
	}, func(key string) string { return key[strings.LastIndexByte(key, '.')+1:] }},
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return b
}

func alnum(r *rand.Rand, n int) string {
	const abc = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = abc[r.IntN(len(abc))]
	}
	return string(b)
}

// pieceReads are the shapes a later tool returns a slice s in: alone, as
// a JSON member beside its offset, at the end of a log line, at the start
// of a text that goes on.
var pieceReads = []func(s string, at int) (Outcome, string){
	func(s string, _ int) (Outcome, string) { return Outcome{Kind: Text, Data: s}, "alone" },
	func(s string, at int) (Outcome, string) {
		return Outcome{Kind: Returned, Data: jsonText(map[string]any{"offset": at, "chunk": s})}, "a member"
	},
	func(s string, _ int) (Outcome, string) {
		return Outcome{Kind: Text, Data: "2026-03-14T10:20:26Z INFO rotated key=" + s}, "a line's end"
	},
	func(s string, _ int) (Outcome, string) {
		return Outcome{Kind: Text, Data: s + "\n2026-03-14T10:20:27Z INFO done"}, "a text's start"
	},
}

// TestPiecesOfAWithheldKeyAreWithheld: a later tool that reads a withheld
// key by offset and length gives back no slice of maxPiece characters or
// more, at any offset, in any of the shapes it returns them in; slices of
// fewer than minPiece characters are the documented limit. The test logs,
// for each kind, what share of the reads of each length is withheld.
func TestPiecesOfAWithheldKeyAreWithheld(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, kind := range pieceKinds {
		t.Run(kind.name, func(t *testing.T) {
			// withheld[n] and reads[n] count the reads of n characters.
			var withheld, reads [maxPiece + 3]int
			for range 2 {
				key := kind.make(r)
				e := newTestEngine(t)
				mustRegister(t, e, createKeyDef)
				mustRegister(t, e, listLogDef)
				res := e.OutputOf("create_key", Outcome{Kind: Returned, Data: jsonText(map[string]any{"id": "k1", "key": key})})
				require.Nil(t, res.Err)
				require.Equal(t, 1, res.Held)
				secret := key
				if kind.secret != nil {
					secret = kind.secret(key)
				}
				// A longer slice holds one of these.
				for n := minPiece - 2; n <= min(len(secret)-1, maxPiece+2); n++ {
					for at := 0; at+n <= len(secret); at++ {
						s := secret[at : at+n]
						for _, read := range pieceReads {
							out, shape := read(s, at)
							view := e.OutputOf("list_log", out)
							require.Nil(t, view.Err)
							reads[n]++
							if !strings.Contains(view.Agent, s) {
								withheld[n]++
								continue
							}
							assert.Less(t, n, maxPiece, "%s of %s at %d, %d characters, as %s, reached the agent: %s", s, key, at, n, shape, view.Agent)
						}
					}
				}
			}
			var b strings.Builder
			for n := minPiece - 2; n < len(reads); n++ {
				if reads[n] > 0 {
					fmt.Fprintf(&b, " %d: %d%%", n, 100*withheld[n]/reads[n])
				}
			}
			t.Logf("reads withheld, by length:%s", b.String())
		})
	}
}

// TestPiecesKeepOrdinaryOutputs: after a session withheld keys of every
// kind, other keys and ids of the same kinds (which the session never
// saw: another customer's, a public one), the ordinary corpus, and
// what a key's issuer writes in every key (sk_live_, a JWT's header) pass
// byte for byte.
func TestPiecesKeepOrdinaryOutputs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	e := newTestEngine(t)
	mustRegister(t, e, createKeyDef)
	mustRegister(t, e, laterToolDef)
	for range 25 {
		for _, kind := range pieceKinds {
			res := e.OutputOf("create_key", Outcome{Kind: Returned, Data: jsonText(map[string]any{"id": "k1", "key": kind.make(r)})})
			require.Nil(t, res.Err)
			require.Equal(t, 1, res.Held)
		}
	}
	var others []string
	for range 200 {
		for _, kind := range pieceKinds {
			others = append(others, kind.make(r))
		}
	}
	outputs := append([]string{
		`{"docs":"Live keys start with sk_live_51 and test keys with sk_test_; a token is eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"}`,
	}, ordinaryCorpus...)
	for i := 0; i < len(others); i += 50 {
		outputs = append(outputs, jsonText(map[string]any{"ids": others[i:min(i+50, len(others))]}))
	}
	for _, data := range outputs {
		res := laterView(t, e, data)
		assert.True(t, res.Unchanged, "an ordinary output lost something: %s\nbecame %s", data, res.Agent)
	}
}

// TestPieceAt pins what a piece is.
func TestPieceAt(t *testing.T) {
	tests := []struct {
		v    string
		want int
	}{
		{"a1b2c3d4e5f6a7b8", 10}, // hexadecimal: 4 bits a character
		{"Xk9pQ2mZ7rTw", 8},      // letters and digits: 5.2 bits
		{"xKqPmZtRwLnB", 9},      // letters whose case changes: 4.7 bits
		{"passwordpassword", 0},  // a word
		{"sk_live_", 0},          // a prefix every key has
		{"4111111111111111", 13}, // decimal: 3.3 bits
		{"ab_cd-9f8e7d", 0},      // too few bits within maxPiece
		{"9f8e7d6c5", 0},         // hexadecimal, shorter than 40 bits
		{"Xk9p Q2mZ7rTw", 0},     // white space is not a key's
		{"Xk9p-Q2mZ7rTw8", 9},    // marks carry no bits
		{"xK9#mP2$vL8@qR4!", 10}, // a password's symbols neither
		{"BSTJnQgZpRlCdNXz", 9},  // random letters: 4.7 bits
		{"Xk9p Q2m\"Z7rTw", 0},   // nor quotes
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, pieceAt(tt.v), "%q", tt.v)
	}
}

// TestPiecesFoundDecoded: a piece is found in the forms a reader decodes,
// as the value is: in base64, percent-encoded, in capitals.
func TestPiecesFoundDecoded(t *testing.T) {
	const key = "Xk9pQ2mZ7rTwLb3nVc8hJf5dGs1aWe4q"
	piece := key[5:17]
	e := newTestEngine(t)
	mustRegister(t, e, createKeyDef)
	mustRegister(t, e, listLogDef)
	require.Equal(t, 1, e.OutputOf("create_key", Outcome{Kind: Returned, Data: jsonText(map[string]any{"id": "k1", "key": key})}).Held)
	for _, data := range []string{
		base64.StdEncoding.EncodeToString([]byte("log: " + piece + " end")),
		"https://app.example/logs?q=" + strings.ReplaceAll(piece, "Z", "%5A"),
		strings.ToUpper(piece),
	} {
		view := e.OutputOf("list_log", Outcome{Kind: Text, Data: data})
		require.Nil(t, view.Err)
		assert.False(t, view.Unchanged, "%s", data)
		assert.NotContains(t, view.Agent, data)
	}
}

// password makes a password as a generator does: n characters of
// letters, digits and the symbols generators add, at least one of each.
func password(r *rand.Rand, n int) string {
	const symbols = "!#$%&*?@^"
	b := []byte(alnum(r, n-2))
	b = append(b, symbols[r.IntN(len(symbols))], byte('0'+r.IntN(10)))
	r.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
	return string(b)
}

// letterToken makes a token of n random letters of either case.
func letterToken(r *rand.Rand, n int) string {
	const abc = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	b := make([]byte, n)
	for i := range b {
		b[i] = abc[r.IntN(len(abc))]
	}
	return string(b)
}

// wordsCorpus is ordinary outputs of words, dates, times, versions,
// regions, amounts and ids, beside ordinaryCorpus: what a session's
// later tools return and must keep whole.
var wordsCorpus = []string{
	`{"deploy":{"version":"2.14.3-rc1","region":"eu-west-1","commit":"3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f","build":"20260314.1","at":"2026-03-14T10:20:26Z"}}`,
	"myapp 2.14.3-rc1 deployed to us-east-1 at 2026-03-14 10:20:26 by ada.lovelace@example.com",
	`{"team_id":"T024BE7LD","channel":"C024BE91L","user":"U012AB3CD"}`,
	"Password policy: at least 12 characters, one of !#$%&*?@^ and a digit; rotate every 90 days.",
	"NotificationSettingsPanelController failed to render: TypeError at line 42 (main.js)",
	"The quick brown fox jumps over the lazy dog; Sphinx of black quartz, judge my vow.",
	`{"title":"Strengths and weaknesses","body":"Rhythm, strychnine, twelfths and borscht are words with few vowels."}`,
	`{"query":"SELECT id, email FROM users WHERE created_at > '2026-01-01' LIMIT 50;"}`,
	`{"ticket":"JIRA-4821","summary":"Checkout fails for EUR on v1.4.2","opened":"14/03/2026"}`,
	"#general: standup at 09:30 (Europe/Lisbon); agenda [release, incidents, hiring]",
}

// erasedWords counts the words of data (white space, quotes and JSON's
// marks between them) that view no longer holds.
func erasedWords(data, view string) int {
	n := 0
	for _, w := range strings.FieldsFunc(data, func(r rune) bool { return strings.ContainsRune(" \t\n\"{}[],", r) }) {
		if !strings.Contains(view, w) {
			n++
		}
	}
	return n
}

// TestPiecesOfPasswordsAndLetterTokensKeepOrdinaryWords: after a session
// withheld passwords with symbols, tokens of letters alone and keys of
// every kind, 25 of each, and a .env text, the ordinary corpora lose no
// word, date or version, nor do other passwords and letter tokens the
// session never saw. It logs the count of words erased.
func TestPiecesOfPasswordsAndLetterTokensKeepOrdinaryWords(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	e := newTestEngine(t)
	mustRegister(t, e, createKeyDef)
	mustRegister(t, e, laterToolDef)
	withhold := func(v string) {
		res := e.OutputOf("create_key", Outcome{Kind: Returned, Data: jsonText(map[string]any{"id": "k1", "key": v})})
		require.Nil(t, res.Err)
		require.Equal(t, 1, res.Held)
	}
	for range 25 {
		withhold(password(r, 20))
		withhold(letterToken(r, 32))
		for _, kind := range pieceKinds {
			withhold(kind.make(r))
		}
	}
	withhold("APP_VERSION=2.14.3-rc1\nGIT_SHA=3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f\nBUILD=20260314.1\nREGION=eu-west-1\nSTRIPE_KEY=sk_live_51" + alnum(r, 40) + "\n")
	withhold("https://hooks.slack.com/services/T024BE7LD/B01ABCDEF12/" + alnum(r, 24))
	outputs := append(append([]string{}, ordinaryCorpus...), wordsCorpus...)
	var others []string
	for range 100 {
		others = append(others, password(r, 20), letterToken(r, 32))
	}
	outputs = append(outputs, jsonText(map[string]any{"others": others}))
	erased, words := 0, 0
	for _, data := range outputs {
		out := Outcome{Kind: Returned, Data: data}
		if !strings.HasPrefix(data, "{") {
			out.Kind = Text
		}
		res := e.OutputOf("later_tool", out)
		require.Nil(t, res.Err)
		words += erasedWords(data, "")
		if !res.Unchanged {
			n := erasedWords(data, res.Agent)
			erased += n
			t.Errorf("an ordinary output lost %d words: %s\nbecame %s", n, data, res.Agent)
		}
	}
	t.Logf("%d of %d words erased", erased, words)
}

// TestPieceableValues pins which values add pieces: keys, generated
// passwords and tokens of random letters; not words in CamelCase or
// capitals, e-mail addresses, texts.
func TestPieceableValues(t *testing.T) {
	tests := []struct {
		v    string
		want bool
	}{
		{"xK9#mP2$vL8@qR4!wZ7&nT5%", true},
		{"BSTJnQgZpRlCdNXzDOULFqEBsNjTZKEC", true},
		{"sk_live_51HqLyjWDarjtT1zdp7dcXk4Rm9QvB2sLw8TnJ3yE", true},
		{"NotificationSettingsPanelController", false}, // CamelCase words
		{"PENDINGREVIEWSTATUSCHANGED", false},          // capitals alone
		{"StrengthsRhythmsTwelfths", false},            // a capital a word
		{"ada.lovelace1987@example.com", false},        // an address
		{"BSTJnQgZpRlCdNXz", false},                    // letters, fewer than 20
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, keyChars(tt.v) && pieceable(tt.v), "%q", tt.v)
	}
}

// BenchmarkAddWithheldText shows that adding a withheld text of many
// key-like words to a set (its words, their pieces, descriptors and
// words of paths) costs the same per word at a thousand words as at a
// hundred thousand.
func BenchmarkAddWithheldText(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			text, _ := manyKeys(n)
			for b.Loop() {
				s := &scrubSet{}
				s.addString(text)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(2*n), "ns/word")
		})
	}
}
