//go:build js && wasm

package main

import (
	"encoding/json"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newServer returns a server whose engine is initialized for a page at
// https://shop.example.
func newServer(t *testing.T) *server {
	t.Helper()
	s := &server{}
	h, _ := s.handle("init", `{"origin":"https://shop.example","baseURL":"https://shop.example/app/"}`, "")
	require.JSONEq(t, ok, h, "init")
	return s
}

// errorOf returns the error a reply header carries, or nil.
func errorOf(t *testing.T, header string) map[string]string {
	t.Helper()
	var r struct {
		Error map[string]string `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(header), &r), "reply header %q", header)
	return r.Error
}

func TestRegexpIsECMAScript(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{`^(?=.*\d)[a-z\d]+$`, "abc1", true}, // lookahead: RE2 rejects it
		{`^(?=.*\d)[a-z\d]+$`, "abc", false},
		{`^(?<!x)y`, "y", true},            // lookbehind
		{`^(a)\1$`, "aa", true},            // backreference
		{`^\p{Lu}\p{Ll}+$`, "Émile", true}, // Unicode properties need flag "u"
		{`^.$`, "😀", true},                 // one code point, not two code units
		{`\d`, "٣", false},                 // ECMA \d is ASCII only
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.s, func(t *testing.T) {
			re, err := compileRegexp(tt.pattern)
			require.NoError(t, err, "compileRegexp(%q)", tt.pattern)
			assert.Equal(t, tt.want, re.MatchString(tt.s), "MatchString(%q)", tt.s)
			assert.Equal(t, tt.pattern, re.String())
		})
	}
}

func TestRegexpInvalid(t *testing.T) {
	for _, p := range []string{`(`, `\q`, `a{2,1}`, `[z-a]`} {
		t.Run(p, func(t *testing.T) {
			re, err := compileRegexp(p)
			require.Error(t, err, "compileRegexp(%q)", p)
			assert.Nil(t, re)
			assert.Contains(t, err.Error(), p)
		})
	}
}

func TestNotInitialized(t *testing.T) {
	s := &server{}
	for _, op := range []string{"register", "unregister", "input", "output", "items", "reveal", "forget", "sweep"} {
		h, b := s.handle(op, `{"name":"x"}`, "{}")
		assert.Equal(t, "InvalidStateError", errorOf(t, h)["name"], "handle(%q) before init", op)
		assert.Empty(t, b)
	}
}

func TestMalformedRequests(t *testing.T) {
	s := newServer(t)
	tests := []struct {
		name, op, header, wantErr string
	}{
		{"unknown op", "launch", "{}", "NotSupportedError"},
		{"header not JSON", "input", "{name:", "TypeError"},
		{"header wrong type", "unregister", `{"name":7}`, "TypeError"},
		{"unknown outcome kind", "output", `{"name":"x","kind":"exploded"}`, "TypeError"},
		{"init header not JSON", "init", "[", "TypeError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, b := s.handle(tt.op, tt.header, "")
			assert.Equal(t, tt.wantErr, errorOf(t, h)["name"], "handle(%q, %q)", tt.op, tt.header)
			assert.Empty(t, b)
		})
	}
}

func TestPanicBecomesOperationError(t *testing.T) {
	h, b := safely(func() (string, string) { panic("secret value in a panic") })
	assert.JSONEq(t, `{"error":{"name":"OperationError","message":"engine failure"}}`, h)
	assert.Empty(t, b)
	assert.NotContains(t, h, "secret")
}

func TestRegisterInputOutput(t *testing.T) {
	s := newServer(t)
	def := `{"name":"lookup","description":"Looks up an order","inputSchema":{"type":"object",` +
		`"properties":{"code":{"type":"string","pattern":"^(?=.*\\d)[A-Z\\d]+$"}},"required":["code"]}}`
	h, normalized := s.handle("register", "", def)
	require.JSONEq(t, ok, h, "register")
	var n map[string]any
	require.NoError(t, json.Unmarshal([]byte(normalized), &n), "normalized definition %q", normalized)
	assert.Equal(t, "lookup", n["name"])

	h, _ = s.handle("register", "", def)
	assert.Equal(t, "InvalidStateError", errorOf(t, h)["name"], "register twice")

	h, _ = s.handle("input", `{"name":"lookup"}`, `{"code":"AB12"}`)
	assert.JSONEq(t, ok, h, "input matching a lookahead pattern")
	h, _ = s.handle("input", `{"name":"lookup"}`, `{"code":"ABCD"}`)
	assert.Equal(t, "DataError", errorOf(t, h)["name"], "input failing a lookahead pattern")

	// Outputs of a tool with nothing sensitive pass as they came: the reply
	// says so and carries no body, and the page answers with its own string.
	outputs := []struct {
		kind, data, want string
		same             bool
	}{
		{"text", "plain text, \"quoted\" \u2028", "", true},
		{"returned", `{"b":1,"a":[1e21,0.1,"\u00e9\ud83d\ude00"]}`, "", true},
		{"text", "", "Operation succeeded", false},
		{"empty", "", "undefined", false},
	}
	for _, o := range outputs {
		h, b := s.handle("output", `{"name":"lookup","kind":"`+o.kind+`"}`, o.data)
		var r outputReply
		require.NoError(t, json.Unmarshal([]byte(h), &r), "output reply %q", h)
		assert.Nil(t, r.Error, "output %s", o.kind)
		assert.Zero(t, r.Held, "nothing held for a tool with nothing sensitive")
		assert.NotNil(t, r.Invalid, "invalid is a list, never null")
		assert.Equal(t, o.same, r.Same, "output %s %q: same", o.kind, o.data)
		assert.Equal(t, o.want, b, "output %s %q", o.kind, o.data)
	}

	h, _ = s.handle("unregister", `{"name":"lookup"}`, "")
	assert.JSONEq(t, `{"ok":true}`, h)
	h, _ = s.handle("unregister", `{"name":"lookup"}`, "")
	assert.JSONEq(t, `{"ok":false}`, h)
}

func TestRegisterInvalidPattern(t *testing.T) {
	s := newServer(t)
	h, b := s.handle("register", "", `{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"p":{"type":"string","pattern":"("}}}}`)
	assert.Equal(t, "TypeError", errorOf(t, h)["name"], "register with an invalid pattern")
	assert.Empty(t, b)
}

func TestHeldItemOps(t *testing.T) {
	s := newServer(t)
	h, _ := s.handle("items", "", "")
	assert.JSONEq(t, `{"items":[]}`, h)
	h, b := s.handle("reveal", `{"handle":"nope"}`, "")
	assert.NotNil(t, errorOf(t, h), "reveal of an unknown handle")
	assert.Empty(t, b)
	h, _ = s.handle("forget", `{"handle":"nope"}`, "")
	assert.JSONEq(t, `{"ok":false}`, h)
	h, _ = s.handle("sweep", "", "")
	assert.JSONEq(t, ok, h)
}

// callExports calls the engine as JavaScript does: it writes the
// arguments into the memory veilRequest sets aside and passes them to
// veilCall. It returns that memory, as the call left it, and the words
// veilCall answered with.
func callExports(op, header, body string) (request []byte, words [4]uint32) {
	n := 3 * (len(op) + len(header) + len(body))
	p := veilRequest(int32(n))
	request = unsafe.Slice((*byte)(p), max(n, 1))
	at := 0
	arg := func(s string) string {
		copy(request[at:], s)
		at += len(s)
		return unsafe.String((*byte)(unsafe.Add(p, at-len(s))), len(s))
	}
	return request, *(*[4]uint32)(veilCall(arg(op), arg(header), arg(body)))
}

// callExport is callExports checked: the memory JavaScript wrote is
// wiped, and the words say where the reply is.
func callExport(t *testing.T, op, header, body string) (string, string) {
	t.Helper()
	request, words := callExports(op, header, body)
	assert.Equal(t, make([]byte, len(request)), request, "the request is wiped once read")
	h, b := answer.header, answer.body
	assert.Equal(t, [4]uint32{address(h), uint32(len(h)), address(b), uint32(len(b))}, words, "where the reply is")
	return h, b
}

// TestExport calls the engine the way JavaScript does, through the
// module's exports.
func TestExport(t *testing.T) {
	srv = &server{done: make(chan struct{})}
	defer func() { srv = nil }()

	h, b := callExport(t, "init", `{"origin":"https://shop.example"}`, "")
	assert.JSONEq(t, ok, h)
	assert.Empty(t, b)

	h, _ = callExport(t, "register", "", `{"name":"echo","description":"Échoes «this»"}`)
	assert.JSONEq(t, ok, h, "register with an empty header")
	h, b = callExport(t, "output", `{"name":"echo","kind":"text"}`, "")
	assert.Contains(t, h, `"callId":`)
	assert.Equal(t, "Operation succeeded", b, "a reply body")

	h, _ = callExport(t, "input", `{"name":7}`, "{}")
	assert.Equal(t, "TypeError", errorOf(t, h)["name"], "a malformed header")

	select {
	case <-srv.done:
		t.Fatal("done closed before exit")
	default:
	}
	h, _ = callExport(t, "exit", "", "")
	assert.JSONEq(t, ok, h)
	<-srv.done
	h, b = callExport(t, "exit", "", "") // a second exit must not panic
	assert.Equal(t, "InvalidStateError", errorOf(t, h)["name"], "an op after exit")
	assert.Empty(t, b)
}

// TestPatternPropertiesWithECMAPatterns registers patternProperties whose
// patterns only ECMA-262 compiles, and checks that they mark values.
// jsonschema/v6 keys patternProperties by the compiled Regexp, so the
// engine's Regexp must be usable as a map key.
func TestPatternPropertiesWithECMAPatterns(t *testing.T) {
	s := newServer(t)
	def := `{"name":"keys","description":"d","outputSchema":{"patternProperties":{` +
		`"^(?=.*_secret$)":{"x-sensitive":true},"^\\p{Lu}":{"x-sensitive":true}}}}`
	h, _ := s.handle("register", "", def)
	require.JSONEq(t, ok, h, "register")
	h, b := s.handle("output", `{"name":"keys","kind":"returned"}`, `{"api_secret":"LOOK-SECRET","Ünïcode":"UNI-SECRET","api_name":"visible"}`)
	var r outputReply
	require.NoError(t, json.Unmarshal([]byte(h), &r), "output reply %q", h)
	require.Nil(t, r.Error)
	assert.Equal(t, 2, r.Held)
	assert.NotContains(t, b, "LOOK-SECRET")
	assert.NotContains(t, b, "UNI-SECRET")
	assert.Contains(t, b, "visible")
}

// BenchmarkSmallCall measures the glue's share of one small call: the
// "decide" and "output" ops with their JSON headers, as the page sends
// them, through the module's exports.
func BenchmarkSmallCall(b *testing.B) {
	srv = &server{done: make(chan struct{})}
	defer func() { srv = nil }()
	if callExports("init", `{"origin":"https://app.example","baseURL":"https://app.example/"}`, ""); answer.header != ok {
		b.Fatal(answer.header)
	}
	def := `{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`
	if callExports("register", "", def); answer.header != ok {
		b.Fatal(answer.header)
	}
	const out = `{"orders":[{"id":1,"total":12.5},{"id":2,"total":3}]}`
	b.ReportAllocs()
	for b.Loop() {
		callExports("decide", `{"name":"t"}`, `{"q":"x"}`)
		_, id, _ := strings.Cut(answer.header, `{"call":"`)
		id, _, _ = strings.Cut(id, `"`)
		if id == "" {
			b.Fatal(answer.header)
		}
		callExports("output", `{"name":"t","kind":"returned","call":"`+id+`"}`, out)
		if !strings.Contains(answer.header, `"same":true`) {
			b.Fatal(answer.header)
		}
	}
}
