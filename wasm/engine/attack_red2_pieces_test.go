//go:build attack

package engine_test

// Red-team cases against the pieces of passwords with symbols, tokens of
// letters and a PEM key's secret numbers (pieces.go): a later output
// reads a withheld value by offset and length, and the read is written
// as it is, with its symbols removed, in the other case, spaced, or as
// every other character. Reads of 16 characters or more must all be
// withheld (docs/agent-view.md gives 100% there for every kind), and of
// 12 or more for a password and a token of letters; shorter reads are
// logged. The RSA key, its openssl dumps and its numbers in decimal are
// in testdata/red2, written by openssl genpkey, openssl rsa -text,
// openssl asn1parse -strparse and Python's int.

import (
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/veilmcp/veil/wasm/engine"
)

// Generated once by Python's random (seeded): a password of 20 letters,
// digits and symbols, 32 random letters, a Discord webhook's token and a
// Telegram bot's token.
const (
	r2Password = "lAzouFw2NAw!Mo$iXeu$"
	r2Letters  = "UTvKyIeuQfwJXoLhcShoBGJMBxbsdBNq"
	r2Discord  = "AUekA4cA9_3R4CxEu7dPgdbAfxX6SdyzFYxi8Q6KEBLHNiNxPySpqqGD-1owuYtc_bBe"
	r2Telegram = "7335187035:AARIJJe2fDkMPsX5B_P7cxj4RCcHLsXnavp"
)

// r2Transforms are how a later output writes a read.
var r2Transforms = map[string]func(string) string{
	"as is":   func(s string) string { return s },
	"swapped": r2Swap,
	"spaced":  func(s string) string { return strings.Join(strings.Split(s, ""), " ") },
	"no symbols": func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return r
			}
			return -1
		}, s)
	},
}

func r2Swap(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, s)
}

// r2Leaks returns how many of the reads of n characters of value, at
// every offset, written by f, come back, and the first that did.
func r2Leaks(t *testing.T, e *engine.Engine, value string, n int, f func(string) string) (int, int, string) {
	leaked, reads, first := 0, 0, ""
	for i := 0; i+n <= len(value); i++ {
		s := f(value[i : i+n])
		if len(s) < 8 {
			continue
		}
		reads++
		if v := redRead(t, e, engine.Text, s); redGives(v, s) || redGives(strings.ReplaceAll(v, " ", ""), strings.ReplaceAll(s, " ", "")) {
			if leaked++; first == "" {
				first = s
			}
		}
	}
	return leaked, reads, first
}

type r2PieceCase struct {
	name    string
	key     string // withheld at create_key's x-sensitive member
	whole   string // else a text withheld whole
	value   string // what is read by offset
	strict  int    // reads of this many characters or more must all be withheld
	forms   []string
	lengths []int
}

func runR2Pieces(t *testing.T, cases []r2PieceCase) {
	for _, c := range cases {
		for _, form := range c.forms {
			t.Run(c.name+"/"+form, func(t *testing.T) {
				e := redSession(t)
				if c.whole != "" {
					redWithholdWhole(t, e, r2Text(c.whole))
				} else {
					redWithhold(t, e, c.key)
				}
				for _, n := range c.lengths {
					leaked, reads, first := r2Leaks(t, e, c.value, n, r2Transforms[form])
					if reads == 0 {
						continue
					}
					t.Logf("reads of %d: %d of %d came back", n, leaked, reads)
					if leaked > 0 && n >= c.strict {
						t.Errorf("reads of %d: %d of %d came back, first %q", n, leaked, reads, first)
					}
				}
			})
		}
	}
}

func r2File(t *testing.T, name string) string {
	b, err := os.ReadFile("testdata/red2/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestRed2PiecesOfPasswordsAndLetters reads a generated password and a
// token of letters by offset, at every length from 8 to 16.
func TestRed2PiecesOfPasswordsAndLetters(t *testing.T) {
	all := []string{"as is", "swapped", "spaced", "no symbols"}
	lengths := []int{8, 9, 10, 11, 12, 13, 14, 15, 16, 17}
	runR2Pieces(t, []r2PieceCase{
		{name: "password", key: r2Password, value: r2Password, strict: 12, forms: all, lengths: lengths},
		{name: "password without its symbols", key: r2Password, value: "lAzouFw2NAwMoiXeu", strict: 12, forms: []string{"as is", "swapped"}, lengths: lengths},
		{name: "letters", key: r2Letters, value: r2Letters, strict: 12, forms: all, lengths: lengths},
		{name: "letters in .env", whole: "APP_NAME=shop\nSESSION_TOKEN=" + r2Letters + "\n", value: r2Letters, strict: 12, forms: []string{"as is", "swapped"}, lengths: lengths},
	})
}

// TestRed2PiecesInterleaved: the agent reads every other character of a
// withheld password or token of letters in two outputs; each is ten or
// sixteen characters no later output was pieced by.
func TestRed2PiecesInterleaved(t *testing.T) {
	for _, key := range []string{r2Password, r2Letters} {
		e := redSession(t)
		redWithhold(t, e, key)
		var even, odd strings.Builder
		for i := range len(key) {
			if i%2 == 0 {
				even.WriteByte(key[i])
			} else {
				odd.WriteByte(key[i])
			}
		}
		for _, s := range []string{even.String(), odd.String()} {
			if v := redRead(t, e, engine.Text, s); redGives(v, s) {
				t.Errorf("every other character of %q came back: %q", key, v)
			}
		}
	}
}

// TestRed2PiecesOfTokensInAPath: a webhook's or a bot's token stands in a
// URL's path in a withheld .env; pathWords keeps a path's segments
// unpieced (a webhook's ids), so reads of the token may come back.
func TestRed2PiecesOfTokensInAPath(t *testing.T) {
	env := "APP=shop\nDISCORD_WEBHOOK=https://discord.com/api/webhooks/1184459128329351178/" + r2Discord +
		"\nTELEGRAM_URL=https://api.telegram.org/bot" + r2Telegram + "/sendMessage\n"
	lengths := []int{10, 12, 16, 20}
	runR2Pieces(t, []r2PieceCase{
		{name: "discord token", whole: env, value: r2Discord, strict: 16, forms: []string{"as is"}, lengths: lengths},
		{name: "telegram token", whole: env, value: r2Telegram[strings.IndexByte(r2Telegram, ':')+1:], strict: 16, forms: []string{"as is"}, lengths: lengths},
		{name: "discord webhook as a key", key: "https://discord.com/api/webhooks/1184459128329351178/" + r2Discord, value: r2Discord, strict: 16, forms: []string{"as is"}, lengths: lengths},
	})
}

// TestRed2PiecesOfAPEMKey withholds an RSA key openssl made and reads its
// private exponent d by offset, as openssl asn1parse writes it (capital
// hexadecimal), as openssl rsa -text writes it (pairs and colons), and in
// decimal, as Python's int or cryptography's private_numbers() print it.
func TestRed2PiecesOfAPEMKey(t *testing.T) {
	pem := r2File(t, "rsa.pem")
	dHex := strings.ToUpper(r2File(t, "rsa-d.hex"))
	dDec := r2File(t, "rsa-d.dec")
	pDec := r2File(t, "rsa-p.dec")
	text := r2File(t, "rsa-text.txt")
	i := strings.Index(text, "privateExponent:")
	j := strings.Index(text, "prime1:")
	dColons := strings.Join(strings.Fields(text[i+len("privateExponent:"):j]), "")
	runR2Pieces(t, []r2PieceCase{
		{name: "d hex", key: pem, value: dHex, strict: 16, forms: []string{"as is", "swapped"}, lengths: []int{10, 12, 16, 24}},
		{name: "d colons", key: pem, value: dColons, strict: 24, forms: []string{"as is"}, lengths: []int{16, 24, 32}},
		{name: "d decimal", key: pem, value: dDec, strict: 20, forms: []string{"as is"}, lengths: []int{13, 16, 20, 32}},
		{name: "p decimal", key: pem, value: pDec, strict: 20, forms: []string{"as is"}, lengths: []int{13, 16, 20, 32}},
	})
	t.Run("whole d decimal", func(t *testing.T) {
		e := redSession(t)
		redWithhold(t, e, pem)
		for _, s := range []string{dDec, pDec, "d = " + dDec} {
			if v := redRead(t, e, engine.Text, s); redGives(v, dDec) || redGives(v, pDec) {
				t.Errorf("a secret number in decimal came back: %.60q", v)
			}
		}
	})
}

// TestRed2PiecesOfAPathSegment: pathWords keeps unpieced a word of a
// withheld text that first stands after a slash (a webhook's ids), so a
// token that a log line shows in a path before anything else names it,
// a reset link's token, or the parts of an AWS secret key after its
// slashes, may come back read by offset.
func TestRed2PiecesOfAPathSegment(t *testing.T) {
	tok := "q8ZsT3vKp2LmN7xRw4YbC9dHf6GjA5eU"
	aws := "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Vw3Lk2Hn5Tg"
	lengths := []int{10, 12, 16, 20}
	runR2Pieces(t, []r2PieceCase{
		{name: "token in a log path first", whole: "GET /v1/sessions/" + tok + " 200\nsession_token=" + tok + "\n", value: tok, strict: 16, forms: []string{"as is"}, lengths: lengths},
		{name: "reset link", whole: "Your reset link: https://app.example/reset/" + tok + "\n", value: tok, strict: 16, forms: []string{"as is"}, lengths: lengths},
		{name: "aws secret in .env", whole: "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=" + aws + "\n", value: aws, strict: 16, forms: []string{"as is"}, lengths: lengths},
	})
}

// TestRed2PiecesOfURLs withholds URLs that carry a token outside a
// password and a query's values (as a user name, in a fragment, in a
// path) and reads the token by offset: a URL is pieced only by its
// password, its query's values and a Slack webhook's secret.
func TestRed2PiecesOfURLs(t *testing.T) {
	pat := "ghp_R8sKq2vLm7XnT4wZp9YcB3dHf6GjA5eUq1Nx"
	tok := "q8ZsT3vKp2LmN7xRw4YbC9dHf6GjA5eU"
	lengths := []int{12, 16, 20}
	runR2Pieces(t, []r2PieceCase{
		{name: "token as user name", key: "https://" + pat + "@github.com/acme/app.git", value: pat[4:], strict: 16, forms: []string{"as is"}, lengths: lengths},
		{name: "token as password", key: "https://x-access-token:" + pat + "@github.com/acme/app.git", value: pat[4:], strict: 16, forms: []string{"as is"}, lengths: lengths},
		{name: "token in a fragment", key: "https://app.example/callback#access_token=" + tok + "&token_type=bearer", value: tok, strict: 16, forms: []string{"as is"}, lengths: lengths},
		{name: "token in a query", key: "https://app.example/callback?access_token=" + tok + "&token_type=bearer", value: tok, strict: 16, forms: []string{"as is"}, lengths: lengths},
		{name: "token in a path", key: "https://api.telegram.org/bot" + r2Telegram + "/sendMessage", value: r2Telegram[11:], strict: 16, forms: []string{"as is"}, lengths: lengths},
		{name: "reset link", key: "https://app.example/reset/" + tok, value: tok, strict: 16, forms: []string{"as is"}, lengths: lengths},
	})
}

// TestRed2PiecesOfGeneratedPasswords measures, over 100 passwords of each
// recipe (testdata/red2/passwords.tsv, written with Python's random.choice
// over string.ascii_letters, digits and punctuation as the secrets
// module's documentation recipe does, and over letters alone), the share
// whose reads of 12 and of 16 characters come back. A password with a
// quote or a backslash is a text by design (docs/agent-view.md) and is
// counted apart; any other whose read of 16 comes back fails.
func TestRed2PiecesOfGeneratedPasswords(t *testing.T) {
	type tally struct{ n, text, any12, any16, text16 int }
	tallies := map[string]*tally{}
	var kinds []string
	for _, line := range strings.Split(r2File(t, "passwords.tsv"), "\n") {
		kind, pw, _ := strings.Cut(line, "\t")
		tl := tallies[kind]
		if tl == nil {
			tl = &tally{}
			tallies[kind] = tl
			kinds = append(kinds, kind)
		}
		tl.n++
		isText := strings.ContainsAny(pw, "\"'\\` ")
		if isText {
			tl.text++
		}
		e := redSession(t)
		redWithhold(t, e, pw)
		same := func(s string) string { return s }
		if l, _, _ := r2Leaks(t, e, pw, 12, same); l > 0 {
			tl.any12++
		}
		if l, _, first := r2Leaks(t, e, pw, 16, same); l > 0 {
			if isText {
				tl.text16++
			} else {
				tl.any16++
				if tl.any16 <= 3 {
					t.Errorf("%s %q: %d reads of 16 came back, first %q", kind, pw, l, first)
				}
			}
		}
	}
	for _, k := range kinds {
		tl := tallies[k]
		t.Logf("%s: %d passwords, %d with a quote or backslash; some read of 12 came back for %d; some read of 16 for %d (and %d of those with a quote or backslash)",
			k, tl.n, tl.text, tl.any12, tl.any16, tl.text16)
		if tl.any16 > 0 {
			t.Errorf("%s: %d of %d passwords came back in reads of 16", k, tl.any16, tl.n)
		}
	}
}
