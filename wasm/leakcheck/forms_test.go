package leakcheck_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"

	"github.com/veilmcp/veil/wasm/leakcheck"
)

// fullwidth writes s's ASCII letters and digits as their fullwidth forms,
// as East Asian input methods type them.
func fullwidth(s string) string { return width.Widen.String(s) }

// insertEvery writes sep after every n bytes of the ASCII text s.
func insertEvery(s string, n int, sep string) string {
	var b strings.Builder
	for i := 0; i < len(s); i += n {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(s[i:min(i+n, len(s))])
	}
	return b.String()
}

// TestFindLooseForms: a value is found whatever its case, its Unicode
// normalization form and the invisible characters in it, and, when it
// has six letters and digits or more, whatever separators stand between
// them.
func TestFindLooseForms(t *testing.T) {
	const card = "4111111111111111"
	tests := []struct {
		name, text, value string
		found             bool
	}{
		// Case.
		{"an e-mail address upper-cased", "to: " + strings.ToUpper("Ada.Lovelace@Example.org"), "Ada.Lovelace@Example.org", true},
		{"a GUID lower-cased", "id " + strings.ToLower("3F2504E0-4F89-11D3-9A0C-0305E82C3301"), "3F2504E0-4F89-11D3-9A0C-0305E82C3301", true},
		{"a hex key upper-cased", strings.ToUpper("key=9f8e7d6c5b4a"), "9f8e7d6c5b4a", true},
		{"any value, case aside", strings.ToUpper("the pw is müller#4471"), "Müller#4471", true},
		{"the Kelvin sign for K", "tok\u212a91", "tokK91", true},
		{"a dotless ı upper-cased", strings.ToUpper("tokı91"), "tokı91", true},
		{"a dotted İ lower-cased", strings.ToLower("İstanbul"), "İstanbul", true},
		{"a letter changed is another value", strings.ToUpper("müller#4472"), "Müller#4471", false},

		// Unicode normalization, either side.
		{"decomposed text, composed value", norm.NFD.String("pw Müller#4471"), "Müller#4471", true},
		{"composed text, decomposed value", "pw Müller#4471", norm.NFD.String("Müller#4471"), true},
		{"compatibility-decomposed text", norm.NFKD.String("ﬁle Müller"), "file Müller", true},
		{"the ligature fi", "con\ufb01dential", "confidential", true},
		{"fullwidth digits for a number", "pin " + fullwidth("4471"), "4471", true},
		{"fullwidth letters and digits", fullwidth("sk_live_Q9x2"), "sk_live_Q9x2", true},
		{"fullwidth digits inside a longer number", "order " + fullwidth("144712"), "4471", false},
		{"a mark on another letter", norm.NFD.String("Mùller"), "Müller", false},

		// Invisible characters, anywhere, whatever the value's length.
		{"a soft hyphen", "tok\u00ad>91", "tok>91", true},
		{"a zero-width space", "sk_\u200blive_Q9x2", "sk_live_Q9x2", true},
		{"zero-width joiners and non-joiners", "Mü\u200cll\u200der", "Müller", true},
		{"a word joiner", "44\u206071", "4471", true},
		{"a byte order mark", "\ufeffcorrect\ufeff horse", "correct horse", true},
		{"a bidirectional override", "tok\u202e>91\u202c", "tok>91", true},
		{"a zero-width space as an HTML reference", "sk_&#8203;live_Q9x2", "sk_live_Q9x2", true},
		{"a zero-width space, JSON-escaped", `{"t":"44\u200b71"}`, "4471", true},
		{"a number inside a longer one, an invisible character in it", "order 1\u200b44712", "4471", false},

		// Separators, for six letters and digits or more.
		{"a card number in groups of four", "card " + insertEvery(card, 4, " "), card, true},
		{"a card number with dashes", "card " + insertEvery(card, 4, "-"), card, true},
		{"a card number with no-break spaces", "card " + insertEvery(card, 4, "\u00a0"), card, true},
		{"a card number with narrow no-break spaces", "card " + insertEvery(card, 4, "\u202f"), card, true},
		{"a card number with en dashes", "card " + insertEvery(card, 4, "\u2013"), card, true},
		{"a card number then its expiry", "card " + insertEvery(card, 4, " ") + " 12/29", card, true},
		{"a card number written with dashes, found bare", "card " + card, insertEvery(card, 4, "-"), true},
		{"an SSN with spaces", "SSN 123 45 6789", "123-45-6789", true},
		{"an SSN with dots", "SSN 123.45.6789", "123-45-6789", true},
		{"an SSN split by soft hyphens", "SSN 123\u00ad45\u00ad6789", "123-45-6789", true},
		{"a key split by spaces and colons", "sk: live: Q9 x2", "sk_live_Q9x2", true},
		{"a key in pairs, upper-cased", "9F:8E:7D:6C:5B:4A", "9f8e7d6c5b4a", true},
		{"a value's punctuation is its own", "Müller # 4471", "Müller#4471", true},
		{"a value's letters and digits, separated", "Müller 4471", "Müller#4471", true},
		{"a card number with one digit changed", "card " + insertEvery("4111111111111121", 4, " "), card, false},
		{"a card number with a comma inside", "card 4111 1111,1111 1111", card, false},
		{"a short value in unrelated text", "a-b-c and a b c", "abc", false},
		{"a value's letters inside a longer word", `{"redeemUrl":"/x"}`, "/redeem/", false},
		{"a card number run on into more digits", "card " + insertEvery(card, 4, " ") + "2024", card, false},
		{"a key's letters run on into a word", "tasks live Q9 x2", "sk_live_Q9x2", false},
		{"a number of four digits, spaced", "44 71", "4471", false},
		{"five letters and digits, dotted", "t.o.k.9.1", "tok>91", false},
	}
	for _, tt := range tests {
		where, found := leakcheck.Find(tt.text, tt.value)
		assert.Equal(t, tt.found, found, "%s: Find(%q, %q) found it in %q", tt.name, tt.text, tt.value, where)
	}
}
