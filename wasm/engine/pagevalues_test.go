package engine

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/leakcheck"
)

// What a sign-in form's user typed, and the form's hidden token: the
// values the page withholds from the form tool's answer (Scrub).
const (
	typedPassword = "Tr0ub4dor&3-horse"
	typedCode     = "482913"
	formToken     = "csrf_7Hq2Lm9Zx41"
	shortCode     = "417"
	signInDef     = `{"name":"sign_in","description":"d"}`
)

// openCall registers the tools and decides one call of name, which is
// then open: its output not yet given.
func openCall(t *testing.T, e *Engine, name string) string {
	t.Helper()
	d, err := e.Decide(name, `{}`, Resolution{})
	require.NoError(t, err)
	require.Equal(t, "allow", string(d.Outcome))
	return d.Call
}

// scrubEngine returns an engine with sign_in and list_log registered, a
// call of sign_in open, and the sign-in form's values withheld from it.
func scrubEngine(t *testing.T) (*Engine, string) {
	t.Helper()
	e := newTestEngine(t)
	mustRegister(t, e, signInDef)
	mustRegister(t, e, listLogDef)
	id := openCall(t, e, "sign_in")
	require.NoError(t, e.Scrub("sign_in", []string{typedPassword, typedCode, formToken, shortCode, "", "  "}))
	return e, id
}

// TestPageScrubTheFormsAnswer: the values the page withholds do not reach the
// agent from the answer of the call they were sent for, in the forms a
// handler writes them; what is around them does.
func TestPageScrubTheFormsAnswer(t *testing.T) {
	tests := []struct {
		name  string
		o     Outcome
		value string
		keep  string
		// held: a number is withheld as a node, and held as every
		// withheld node is; a string only loses the value.
		held int
	}{
		{"FormData as an object", Outcome{Kind: Returned, Data: jsonText(map[string]any{"submitted": map[string]string{"user": "ada", "password": typedPassword, "otp": typedCode, "csrf": formToken}})}, typedPassword, "ada", 0},
		{"the code as a number", Outcome{Kind: Returned, Data: `{"ok":true,"otp":482913}`}, typedCode, `"ok":true`, 1},
		{"the token in a string result", Outcome{Kind: Text, Data: "signed in; token " + formToken}, formToken, "signed in", 0},
		{"upper case", Outcome{Kind: Text, Data: "pw " + strings.ToUpper(typedPassword)}, typedPassword, "pw", 0},
		{"separators inside", Outcome{Kind: Text, Data: "token " + strings.ReplaceAll(formToken, "_", "-")}, formToken, "token", 0},
		{"base64", Outcome{Kind: Text, Data: "basic " + base64.StdEncoding.EncodeToString([]byte("ada:"+typedPassword))}, typedPassword, "basic", 0},
		{"base64url, alone", Outcome{Kind: Text, Data: "t=" + base64.RawURLEncoding.EncodeToString([]byte(typedCode)) + "&x=1"}, typedCode, "x=1", 0},
		{"percent-encoded", Outcome{Kind: Text, Data: "https://app.example/?pw=" + url.QueryEscape(typedPassword)}, typedPassword, "https://app.example/", 0},
		{"JSON-escaped in JSON text", Outcome{Kind: Text, Data: `{"echo":"` + strings.ReplaceAll(typedPassword, "&", `\u0026`) + `"}`}, typedPassword, "echo", 0},
		{"a short code as written", Outcome{Kind: Returned, Data: `{"cvc":"` + shortCode + `","ok":true}`}, shortCode, `"ok":true`, 0},
		{"a short code as a number", Outcome{Kind: Returned, Data: `{"cvc":` + shortCode + `,"ok":true}`}, shortCode, `"ok":true`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, found := leakcheck.Find(tt.o.Data, tt.value)
			require.True(t, found, "the oracle does not find the value in the output %q", tt.o.Data)
			e, id := scrubEngine(t)
			tt.o.Call = id
			res := e.OutputOf("", tt.o)
			require.Nil(t, res.Err, "Output(%q)", tt.o.Data)
			if where, found := leakcheck.Find(res.Agent, tt.value); found {
				t.Fatalf("a value the page withheld reached the agent, in %s:\noutput: %s\nview:   %s", where, tt.o.Data, res.Agent)
			}
			assert.Contains(t, res.Agent, tt.keep, "what is around it")
			assert.Equal(t, tt.held, res.Held, "Scrub holds nothing for the user, who typed it")
			assert.Len(t, e.Items(), tt.held, "Scrub holds nothing for the user, who typed it")
		})
	}
}

// TestPageScrubLaterOutputs: a value the user typed, once withheld from a
// form's answer, is withheld from every later output of the session, of
// any tool; a short one only from the answer it was sent for, since
// taking "417" from every later output would mangle them.
func TestPageScrubLaterOutputs(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		value   string
		removed bool
	}{
		{"the password in an activity log", jsonText(map[string]any{"log": []string{"login ada pw=" + typedPassword}}), typedPassword, true},
		{"the token in a page's HTML", jsonText(map[string]string{"html": `<input name="csrf" value="` + formToken + `">`}), formToken, true},
		{"the code in upper-case hex", jsonText(map[string]string{"otp": strings.ToUpper(hex.EncodeToString([]byte(typedCode)))}), typedCode, true},
		{"a short value stays in other outputs", jsonText(map[string]string{"room": "Room " + shortCode}), shortCode, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, found := leakcheck.Find(tt.data, tt.value)
			require.True(t, found, "the oracle does not find the value in the output %q", tt.data)
			e, id := scrubEngine(t)
			res := e.OutputOf("", Outcome{Kind: Returned, Data: `{"ok":true}`, Call: id})
			require.Nil(t, res.Err)
			assert.True(t, res.Unchanged, "an answer that repeats nothing passes as it came")
			assert.True(t, res.Scrubbing, "the session's set holds the values: a lost engine's successor must know")

			later := e.OutputOf("list_log", Outcome{Kind: Returned, Data: tt.data})
			require.Nil(t, later.Err)
			_, found = leakcheck.Find(later.Agent, tt.value)
			assert.Equal(t, !tt.removed, found, "view: %s", later.Agent)
		})
	}
}

// TestPageScrubErrors: Scrub fails, and says nothing of the values, when the
// page must withhold the answer whole instead.
func TestPageScrubErrors(t *testing.T) {
	tests := []struct {
		name   string
		tool   string
		values []string
		open   bool
		err    string
		// joined: the longer values joined the session's set all the same.
		joined bool
	}{
		{"no tool", "", []string{typedPassword}, true, TypeError, false},
		{"too large", "sign_in", []string{strings.Repeat("x", 600), strings.Repeat("y", 500)}, true, DataError, false},
		{"a short value and no open call", "sign_in", []string{typedPassword, shortCode}, false, InvalidStateError, true},
		{"a short value, and the open call is another tool's", "other", []string{typedPassword, shortCode}, true, InvalidStateError, true},
		{"long values and no open call", "sign_in", []string{typedPassword}, false, "", true},
		{"nothing", "sign_in", nil, false, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(&Options{MaxOutputBytes: 1024})
			mustRegister(t, e, signInDef)
			mustRegister(t, e, listLogDef)
			if tt.open {
				openCall(t, e, "sign_in")
			}
			err := e.Scrub(tt.tool, tt.values)
			if tt.err == "" {
				require.NoError(t, err)
			} else {
				var ee *Error
				require.ErrorAs(t, err, &ee)
				assert.Equal(t, tt.err, ee.Name)
				for _, v := range tt.values {
					assert.NotContains(t, ee.Message, v, "the error quotes a value")
				}
			}
			n, _ := e.ScrubNeedles()
			assert.Equal(t, tt.joined, n > 0, "needles: %d", n)
		})
	}
}

// TestPageScrubShortValuesOfOpenCallsOnly: a short value is taken from the
// output of every call of the tool open when it was sent, and from no
// call opened later.
func TestPageScrubShortValuesOfOpenCallsOnly(t *testing.T) {
	e := newTestEngine(t)
	mustRegister(t, e, signInDef)
	first, second := openCall(t, e, "sign_in"), openCall(t, e, "sign_in")
	require.NoError(t, e.Scrub("sign_in", []string{shortCode}))
	later := openCall(t, e, "sign_in")
	data := `{"cvc":"` + shortCode + `"}`
	for _, tt := range []struct {
		call    string
		removed bool
	}{{first, true}, {second, true}, {later, false}} {
		res := e.OutputOf("", Outcome{Kind: Returned, Data: data, Call: tt.call})
		require.Nil(t, res.Err)
		assert.Equal(t, !tt.removed, strings.Contains(res.Agent, shortCode), "call %s: %s", tt.call, res.Agent)
	}
}
