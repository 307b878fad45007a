package engine

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime/quotedprintable"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/leakcheck"
)

// The key create_key withholds in the session tests, and the tools.
const (
	sessionKey   = "sk_live_Zq81vT0pLm42"
	createKeyDef = `{"name":"create_key","description":"d","outputSchema":{"type":"object","properties":{"id":{"type":"string"},"key":{"type":"string","x-sensitive":true}}}}`
	listLogDef   = `{"name":"list_log","description":"d"}`
)

// sessionEngine returns an engine whose session withheld sessionKey.
func sessionEngine(t *testing.T) *Engine {
	t.Helper()
	e := newTestEngine(t)
	mustRegister(t, e, createKeyDef)
	mustRegister(t, e, listLogDef)
	res := e.OutputOf("create_key", Outcome{Kind: Returned, Data: `{"id":"key_1","key":"` + sessionKey + `"}`})
	require.Nil(t, res.Err)
	require.Equal(t, 1, res.Held)
	return e
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func qp(s string) string {
	var b bytes.Buffer
	w := quotedprintable.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}

func jwt(claims any) string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc.EncodeToString([]byte(jsonText(claims))) + ".c2lnbmF0dXJl"
}

// TestSessionScrubsLaterOutputs: a key withheld from create_key does not
// reach the agent from a later tool that declares nothing, in the forms
// backends write it; what is around it does.
func TestSessionScrubsLaterOutputs(t *testing.T) {
	std := base64.StdEncoding
	tests := []struct {
		name string
		o    Outcome
		keep string
	}{
		{"an activity log line", Outcome{Kind: Returned, Data: jsonText(map[string]any{"log": []string{"GET /keys Authorization: Bearer " + sessionKey}})}, "GET /keys"},
		{"a string result", Outcome{Kind: Text, Data: "Recently viewed: " + sessionKey}, "Recently viewed"},
		{"JSON text returned as a string", Outcome{Kind: Text, Data: jsonText(map[string]any{"audit": map[string]string{"ref": sessionKey, "who": "ada"}})}, "ada"},
		{"a member name", Outcome{Kind: Returned, Data: jsonText(map[string]any{"byKey": map[string]any{sessionKey: "active"}, "total": 1})}, "total"},
		{"Basic credentials", Outcome{Kind: Returned, Data: jsonText(map[string]string{"curl": "curl -H 'Authorization: Basic " + std.EncodeToString([]byte("ada:"+sessionKey)) + "' https://api.example"})}, "https://api.example"},
		{"base64url without padding", Outcome{Kind: Text, Data: "token=" + base64.RawURLEncoding.EncodeToString([]byte(sessionKey)) + "&x=1"}, "x=1"},
		{"base64 at the second alignment", Outcome{Kind: Text, Data: "blob " + std.EncodeToString([]byte("ab"+sessionKey+"\n"))}, "blob"},
		{"a JWT whose payload holds it", Outcome{Kind: Returned, Data: jsonText(map[string]string{"session": jwt(map[string]any{"sub": "ada", "api_key": sessionKey, "iat": 1700000000})})}, "session"},
		{"base64 wrapped at 76", Outcome{Kind: Text, Data: "MIME:\r\n" + wrap(std.EncodeToString([]byte(strings.Repeat("pad ", 20)+sessionKey+strings.Repeat(" pad", 20))), 76, "\r\n")}, "MIME:"},
		{"hex in lower case", Outcome{Kind: Text, Data: "plaintext: " + hex.EncodeToString([]byte(sessionKey))}, "plaintext:"},
		{"hex in upper case with colons", Outcome{Kind: Text, Data: "bytes " + colonHex(strings.ToUpper(hex.EncodeToString([]byte(sessionKey))))}, "bytes"},
		{"upper case", Outcome{Kind: Text, Data: "KEY: " + strings.ToUpper(sessionKey)}, "KEY:"},
		{"dashes for underscores", Outcome{Kind: Text, Data: "key " + strings.ReplaceAll(sessionKey, "_", "-")}, "key"},
		{"a soft hyphen and a zero-width space inside", Outcome{Kind: Text, Data: "key " + sessionKey[:6] + "\u00ad" + sessionKey[6:12] + "\u200b" + sessionKey[12:]}, "key"},
		{"a zero-width space written as an HTML reference", Outcome{Kind: Text, Data: "<p>key " + sessionKey[:8] + "&#8203;" + sessionKey[8:] + "</p>"}, "<p>key"},
		{"fullwidth", Outcome{Kind: Text, Data: "key " + toFullwidth(sessionKey)}, "key"},
		{"quoted-printable, a soft line break inside", Outcome{Kind: Text, Data: qp("Subject: your key\r\n\r\n" + strings.Repeat("x", 70) + sessionKey)}, "Subject"},
		{"split across two members", Outcome{Kind: Returned, Data: `{"prefix":"` + sessionKey[:8] + `","rest":"` + sessionKey[8:] + `","n":2}`}, `"n":2`},
		{"split across list items", Outcome{Kind: Returned, Data: jsonText([]string{"x " + sessionKey[:5], sessionKey[5:11], sessionKey[11:] + " y"})}, "x "},
		{"percent-encoded in a query", Outcome{Kind: Text, Data: "https://app.example/cb?k=" + strings.ReplaceAll(sessionKey, "_", "%5F")}, "https://app.example/cb"},
		{"a CallToolResult's text item", Outcome{Kind: Returned, Data: jsonText(map[string]any{"content": []map[string]string{{"type": "text", "text": "your key is " + sessionKey}}})}, "your key is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The oracle must see the key where the tool wrote it, or its
			// not seeing it in the view proves nothing.
			_, found := leakcheck.Find(tt.o.Data, sessionKey)
			require.True(t, found, "the oracle does not find the key in the output %q", tt.o.Data)
			e := sessionEngine(t)
			res := e.OutputOf("list_log", tt.o)
			require.Nil(t, res.Err, "Output(%q)", tt.o.Data)
			if where, found := leakcheck.Find(res.Agent, sessionKey); found {
				t.Fatalf("the key withheld earlier reached the agent, in %s:\noutput: %s\nview:   %s", where, tt.o.Data, res.Agent)
			}
			assert.Contains(t, res.Agent, tt.keep, "what is around it")
			assert.Contains(t, res.Agent, "withheld", "the notice says what was removed")
		})
	}
}

// TestSessionPassesWhatRepeatsNothing: a later output that repeats
// nothing the session withheld passes byte for byte, even when it is near
// the key (its prefix, another key).
func TestSessionPassesWhatRepeatsNothing(t *testing.T) {
	e := sessionEngine(t)
	for _, data := range []string{
		`{"log":["GET /keys 200","key_1 created"]}`,
		`{"prefix":"sk_live_","other":"sk_live_Aa91bB02cC33"}`,
		`"` + std64("a different value altogether") + `"`,
	} {
		res := e.OutputOf("list_log", Outcome{Kind: Returned, Data: data})
		require.Nil(t, res.Err)
		assert.True(t, res.Unchanged, "Output(%s) = %s", data, res.Agent)
		assert.Equal(t, data, res.Agent)
	}
}

// TestSessionReferenceFields: what a reference carries (its id, a token
// in its redeemUrl's path or fragment) is scrubbed from later outputs
// too.
func TestSessionReferenceFields(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"issue","description":"d"}`)
	mustRegister(t, e, listLogDef)
	const ref = `{"content":[{"type":"secret_reference","id":"ref_Q7aZ29kLm","label":"API key","redeemUrl":"/redeem/cap_8Hn3xPq2Lw/ref_Q7aZ29kLm#frag_Yt6Rk0vB","ttl":60}]}`
	res := e.OutputOf("issue", Outcome{Kind: Returned, Data: ref})
	require.Nil(t, res.Err)
	require.Equal(t, 1, res.Held)
	for _, v := range []string{"ref_Q7aZ29kLm", "cap_8Hn3xPq2Lw", "frag_Yt6Rk0vB"} {
		later := e.OutputOf("list_log", Outcome{Kind: Text, Data: "audit: " + v + " redeemed"})
		require.Nil(t, later.Err)
		_, found := leakcheck.Find(later.Agent, v)
		assert.False(t, found, "%s in the later view %s", v, later.Agent)
		assert.Contains(t, later.Agent, "redeemed")
	}
}

// TestSessionBound: past MaxScrubNeedles the set is full, and every later
// output is withheld whole; what it held before stays.
func TestSessionBound(t *testing.T) {
	e := New(&Options{Origin: testOrigin, MaxScrubNeedles: 8})
	mustRegister(t, e, createKeyDef)
	mustRegister(t, e, listLogDef)
	for i := range 4 {
		res := e.OutputOf("create_key", Outcome{Kind: Returned, Data: fmt.Sprintf(`{"id":"key_%d","key":"sk_live_%016d"}`, i, i)})
		require.Nil(t, res.Err)
		assert.Equal(t, 1, res.Held, "call %d", i)
	}
	n, full := e.ScrubNeedles()
	require.False(t, full, "four keys in a set of eight (%d needles)", n)
	for i := 4; i < 12; i++ {
		e.OutputOf("create_key", Outcome{Kind: Returned, Data: fmt.Sprintf(`{"id":"key_%d","key":"sk_live_%016d"}`, i, i)})
	}
	n, full = e.ScrubNeedles()
	require.True(t, full, "twelve keys in a set of eight (%d needles)", n)
	assert.LessOrEqual(t, n, 8+4, "a full set takes no more needles than the bound and one output's")

	res := e.OutputOf("list_log", Outcome{Kind: Returned, Data: `{"log":["nothing sensitive"]}`})
	require.Nil(t, res.Err)
	assert.NotContains(t, res.Agent, "nothing sensitive", "a later output once the set is full")
	assert.Equal(t, 1, res.Held, "it is held for the user")
	res = e.OutputOf("list_log", Outcome{Kind: Text, Data: "again"})
	assert.NotContains(t, res.Agent, "again")
}

// TestSessionRestart: an engine started after the loss of one that had
// withheld something cannot scrub what that one withheld, so it withholds
// every output whole; one started after the loss of an engine that had
// withheld nothing starts a clean set.
func TestSessionRestart(t *testing.T) {
	lost := sessionEngine(t)
	n, _ := lost.ScrubNeedles()
	require.Positive(t, n)
	res := lost.OutputOf("list_log", Outcome{Kind: Text, Data: "after"})
	require.True(t, res.Scrubbing, "the reply says the set holds something")

	next := New(&Options{Origin: testOrigin, Trust: ptr(lost.Trust()), ScrubLost: res.Scrubbing})
	mustRegister(t, next, listLogDef)
	res = next.OutputOf("list_log", Outcome{Kind: Text, Data: "GET /keys Authorization: Bearer " + sessionKey})
	require.Nil(t, res.Err)
	assert.NotContains(t, res.Agent, "GET /keys", "withheld whole")
	assert.Equal(t, 1, res.Held)

	clean := New(&Options{Origin: testOrigin})
	mustRegister(t, clean, listLogDef)
	res = clean.OutputOf("list_log", Outcome{Kind: Text, Data: "plain"})
	assert.True(t, res.Unchanged)
	assert.False(t, res.Scrubbing)
}

func ptr[T any](v T) *T { return &v }

func std64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// wrap breaks s every n bytes with br, as MIME and PEM do.
func wrap(s string, n int, br string) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n] + br)
		s = s[n:]
	}
	b.WriteString(s)
	return b.String()
}

// colonHex writes hex digits in pairs separated by colons.
func colonHex(h string) string {
	var pairs []string
	for i := 0; i+2 <= len(h); i += 2 {
		pairs = append(pairs, h[i:i+2])
	}
	return strings.Join(pairs, ":")
}

// toFullwidth writes ASCII letters and digits in their fullwidth forms.
func toFullwidth(s string) string {
	return strings.Map(func(r rune) rune {
		if r > ' ' && r < 0x7f {
			return r - 0x21 + 0xff01
		}
		return r
	}, s)
}

// Keys that share their first bytes (sk_live_) are each found by one hash
// of the text at a place, not by trying every key there: a later output
// that repeats three thousand of them loses the keys and keeps the rest.
func TestSessionSharedPrefixEchoes(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"mk","description":"d","outputSchema":{"type":"object","properties":{"keys":{"type":"array","items":{"type":"string","x-sensitive":true}}}}}`)
	mustRegister(t, e, `{"name":"log","description":"d"}`)
	keys := make([]string, 3000)
	var lines strings.Builder
	for i := range keys {
		keys[i] = fmt.Sprintf("sk_live_%04d_%x", i, uint32(i)*2654435761)
		fmt.Fprintf(&lines, "line %d: Bearer %s\n", i, keys[i])
	}
	list, err := json.Marshal(map[string]any{"keys": keys})
	require.NoError(t, err)
	require.Equal(t, len(keys), e.OutputOf("mk", Outcome{Kind: Returned, Data: string(list)}).Held)

	text, err := json.Marshal(map[string]any{"log": lines.String()})
	require.NoError(t, err)
	res := e.OutputOf("log", Outcome{Kind: Returned, Data: string(text)})
	require.Nil(t, res.Err)
	for _, k := range keys {
		require.NotContains(t, res.Agent, k)
	}
	assert.Contains(t, res.Agent, "line 0: Bearer ")
	assert.Contains(t, res.Agent, "line 2999: Bearer ")
}
