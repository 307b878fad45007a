package leakcheck_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/veilmcp/veil/wasm/leakcheck"
)

func TestFind(t *testing.T) {
	tests := []struct {
		name, text, value string
		found             bool
	}{
		{"as it is", "the pw is Müller#4471.", "Müller#4471", true},
		{"Python's json.dumps in a JSON string", `{"text":"{\"pw\": \"M\\u00fcller#4471\"}"}`, "Müller#4471", true},
		{"Go's HTML-safe JSON", `{"text":"{\"pw\":\"tok\\u003e91\"}"}`, "tok>91", true},
		{"PHP's json_encode", `"{\"url\":\"https:\\\/\\\/x\\\/tok\"}"`, "https://x/tok", true},
		{"a surrogate pair", `"\ud83d\udc0e horse"`, "🐎 horse", true},
		{"Python's repr", `{'pw': 'M\xfcller'}`, "Müller", true},
		{"a Python bytes literal", `b'M\xc3\xbcller'`, "Müller", true},
		{"octal bytes, as git writes them", `"M\303\274ller"`, "Müller", true},
		{"Perl's \\x{}", `M\x{fc}ller`, "Müller", true},
		{"HTML named", "M&uuml;ller &amp; co", "Müller & co", true},
		{"HTML numeric", "tok&#62;91 tok&#x3E;91", "tok>91", true},
		{"percent in a query", "https://x/?pw=M%C3%BCller%234471", "Müller#4471", true},
		{"a plus for a space", "q=correct+horse", "correct horse", true},
		{"HTML in a URL", "M%26uuml%3Bller", "Müller", true},
		{"a member name", `{"by":{"tok-5150":1}}`, "tok-5150", true},
		{"a number by value", `{"n":4.471e3}`, "4471", true},
		{"a number in text", "pin 4471.0 ok", "4471", true},
		{"a number written as a string", `{"n":"4471"}`, "4471", true},
		{"a number inside a longer one", "order 144712 and 3.4471", "4471", false},
		{"a fraction without its zero", "ratio=.4471", "0.4471", true},
		{"a PIN as written", "PIN 0420.", "0420", true},
		{"a PIN's value is not the PIN", "PIN 420 and 10420", "0420", false},
		{"a number with a vast exponent", "4471e999999999 and 4471e-999999999", "4471", false},
		{"a number too vast to compare, as written", "n=1e99999999999999999999", "1e99999999999999999999", true},
		{"a number too vast to compare is not zero", "n=0", "1e99999999999999999999", false},
		{"nowhere", `{"a":"b"}`, "Müller", false},
		{"not across JSON syntax", `{"a":"0E+00"}`, `0"}`, false},
		{"strings that follow one another", `{"a":"sk_live_","b":"9f8e"}`, "sk_live_9f8e", true},
		{"not a number's digits joined to a string's letters", `{"typ":"JWT","iat":1700000000,"sub":"ada"}`, "00000A", false},
		{"not a string's letters joined to a number's digits", `{"sub":"ada","iat":1700000000,"typ":"JWT"}`, "ada1700", false},
	}
	for _, tt := range tests {
		_, found := leakcheck.Find(tt.text, tt.value)
		assert.Equal(t, tt.found, found, "%s: Find(%q, %q)", tt.name, tt.text, tt.value)
	}
}

func ExampleFind() {
	view := `{"content":[{"type":"text","text":"{\"pw\": \"M\\u00fcller#4471\"}"}]}`
	where, found := leakcheck.Find(view, "Müller#4471")
	fmt.Println(found, where)
	// Output: true text > JSON.content[0].text string > JSON.pw string
}
