package leakcheck_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"mime/quotedprintable"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/leakcheck"
)

// jwt assembles a JSON Web Token signed with HS256, as a backend's JWT
// library does: base64url(header).base64url(payload).signature.
func jwt(t testing.TB, claims map[string]any) string {
	t.Helper()
	header, err := json.Marshal(map[string]string{"alg": "HS256", "typ": "JWT"})
	require.NoError(t, err)
	payload, err := json.Marshal(claims)
	require.NoError(t, err)
	signed := base64.RawURLEncoding.EncodeToString(header) + "." + base64.RawURLEncoding.EncodeToString(payload)
	mac := hmac.New(sha256.New, []byte("test key"))
	mac.Write([]byte(signed))
	return signed + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// pemBlock is data in a PEM block, its base64 wrapped at 64 columns.
func pemBlock(data string) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED"}, Bytes: []byte(data)}))
}

// quotedPrintable is data as a mail writer's body writes it: non-ASCII
// bytes and '=' as =XX, lines longer than 76 broken with a soft "=\r\n".
func quotedPrintable(t testing.TB, data string) string {
	t.Helper()
	var b bytes.Buffer
	w := quotedprintable.NewWriter(&b)
	_, err := w.Write([]byte(data))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.String()
}

// hexPairs is data in hex, lower case, with sep between the byte pairs.
func hexPairs(data, sep string) string {
	h := hex.EncodeToString([]byte(data))
	var pairs []string
	for i := 0; i < len(h); i += 2 {
		pairs = append(pairs, h[i:i+2])
	}
	return strings.Join(pairs, sep)
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestFindEncodings: a value is found in the encodings backends write
// binary data and raw e-mail in, and split across the strings of a JSON
// text.
func TestFindEncodings(t *testing.T) {
	const (
		pw   = "Müller#4471"
		key  = "sk_live_9f8e7d6c"
		card = "4111111111111111"
	)
	// A text long enough that PEM and MIME wrap it inside the value.
	long := strings.Repeat("lorem ipsum ", 5) + "pw=" + pw + "; " + strings.Repeat("dolor sit amet ", 4)
	b64 := base64.StdEncoding.EncodeToString
	tests := []struct {
		name, text, value string
		found             bool
	}{
		// base64 and base64url.
		{"base64", "pw: " + b64([]byte(pw)), pw, true},
		{"base64url", "pw: " + base64.URLEncoding.EncodeToString([]byte("<<??>>"+pw)), pw, true},
		{"base64 unpadded", "pw: " + base64.RawStdEncoding.EncodeToString([]byte(pw)), pw, true},
		{"base64url unpadded", "pw: " + base64.RawURLEncoding.EncodeToString([]byte("~~~"+pw+"~~~")), pw, true},
		{"HTTP Basic, the value at byte 5", "Authorization: Basic " + b64([]byte("user:"+pw)), pw, true},
		{"HTTP Basic, the value at byte 6", "Authorization: Basic " + b64([]byte("admin:"+pw)), pw, true},
		{"HTTP Basic, the value at byte 7", "Authorization: Basic " + b64([]byte("alan_t:"+pw)), pw, true},
		{"base64url run on from a word", "token x-" + base64.RawURLEncoding.EncodeToString([]byte("key="+key)), key, true},
		{"base64 after a word and an =", "secret=" + b64([]byte(key)) + "&x=1", key, true},
		{"a JWT's payload", "Bearer " + jwt(t, map[string]any{"sub": pw, "iat": 1516239022}), pw, true},
		{"a JWT's payload, JSON-escaped", jwt(t, map[string]any{"sub": "tok>91", "iat": 1516239022}), "tok>91", true},
		{"a JWT's payload split across claims", jwt(t, map[string]any{"a": "sk_live_", "b": "9f8e7d6c"}), key, true},
		{"a JWT in a JSON string", mustJSON(t, map[string]string{"token": jwt(t, map[string]any{"sub": pw})}), pw, true},
		{"PEM, wrapped at 64", pemBlock(long), pw, true},
		{"PEM with CRLF line breaks", strings.ReplaceAll(pemBlock(long), "\n", "\r\n"), pw, true},
		{"MIME, wrapped at 76 with CRLF", "Content-Transfer-Encoding: base64\r\n\r\n" + insertEvery(b64([]byte(long)), 76, "\r\n"), pw, true},
		{"wrapped and indented, as YAML holds it", "data: |\n  " + insertEvery(b64([]byte(long)), 40, "\n  ") + "\nkind: Secret", pw, true},
		{"base64 in a JSON string", mustJSON(t, map[string]string{"data": b64([]byte(`{"pw":"` + pw + `"}`))}), pw, true},
		{"base64 of base64", b64([]byte("inner " + b64([]byte(pw)))), pw, true},
		{"base64 of a number", b64([]byte("pin=4471;")), "4471", true},
		{"base64 of a card number in groups", b64([]byte("card 4111 1111 1111 1111")), card, true},
		{"base64 of another value", "pw: " + b64([]byte("Müller#4472")), pw, false},
		{"base64 of a number inside a longer one", b64([]byte("order 144712")), "4471", false},
		{"a JWT for another subject", jwt(t, map[string]any{"sub": "Müller#4472"}), pw, false},

		// hex.
		{"hex", "key " + hex.EncodeToString([]byte(pw)), pw, true},
		{"hex, upper case", "key " + strings.ToUpper(hex.EncodeToString([]byte(pw))), pw, true},
		{"hex pairs with colons", "fingerprint " + strings.ToUpper(hexPairs(key, ":")), key, true},
		{"hex pairs with dashes", hexPairs(key, "-"), key, true},
		{"hex pairs with spaces", "bytes: " + hexPairs(pw, " "), pw, true},
		{"hex after a hex digit", "a" + hex.EncodeToString([]byte(key)), key, true},
		{"hex in KMS's JSON", mustJSON(t, map[string]string{"Plaintext": hex.EncodeToString([]byte("v1:" + key))}), key, true},
		{"hex of a card number", hex.EncodeToString([]byte(card)), card, true},
		{"hex of another value", hex.EncodeToString([]byte("sk_live_9f8e7d6d")), key, false},

		// quoted-printable.
		{"quoted-printable", quotedPrintable(t, "Your password is "+pw+"."), pw, true},
		{"quoted-printable, a soft line break inside", quotedPrintable(t, long), pw, true},
		{"quoted-printable, a soft line break in a key", quotedPrintable(t, strings.Repeat("x", 70)+" "+key), key, true},
		{"quoted-printable of an =", quotedPrintable(t, "tok=91&x=1"), "tok=91&x=1", true},
		{"quoted-printable of another value", quotedPrintable(t, strings.Repeat("x", 70)+" Müller#4472"), pw, false},

		// A value split across the strings of a JSON text.
		{"split across members", mustJSON(t, map[string]string{"a": "sk_live_", "b": "9f8e7d6c"}), key, true},
		{"a card number split across an array", mustJSON(t, []string{"4111 1111", "1111 1111"}), card, true},
		{"split in JSON text in a JSON string", mustJSON(t, map[string]string{"text": mustJSON(t, []string{"Mül", "ler#", "4471"})}), pw, true},
		{"split across a member name and its value", mustJSON(t, map[string]string{"sk_live_": "9f8e7d6c"}), key, false},
		{"split, out of order", mustJSON(t, struct {
			B string `json:"b"`
			A string `json:"a"`
		}{"9f8e7d6c", "sk_live_"}), key, false},
		{"split by a null", mustJSON(t, []any{"sk_live_", nil, "9f8e7d6c"}), key, false},
	}
	for _, tt := range tests {
		where, found := leakcheck.Find(tt.text, tt.value)
		assert.Equal(t, tt.found, found, "%s: Find(%q, %q) found it in %q", tt.name, tt.text, tt.value, where)
	}
}

// TestFindNested: the decodings compose, up to MaxDepth of them.
func TestFindNested(t *testing.T) {
	const pw = "Müller#4471"
	text := pw
	for range leakcheck.MaxDepth {
		text = base64.StdEncoding.EncodeToString([]byte("x:" + text))
	}
	where, found := leakcheck.Find(text, pw)
	assert.True(t, found, "Find(%d layers of base64) found it in %q", leakcheck.MaxDepth, where)

	text = mustJSON(t, map[string]string{"mail": quotedPrintable(t, "Token: "+base64.StdEncoding.EncodeToString([]byte(hexPairs(pw, ":"))))})
	where, found = leakcheck.Find(text, pw)
	assert.True(t, found, "Find(hex in base64 in quoted-printable in JSON) found it in %q", where)
}
