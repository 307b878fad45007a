//go:build js && wasm

package main

import (
	"encoding/json"
	"strings"
	"syscall/js"
	"testing"

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

// TestExport calls the engine the way JavaScript does, through the global.
func TestExport(t *testing.T) {
	s := &server{}
	done, release := s.export()
	defer func() { release() }()
	fn := js.Global().Get(exportName)
	require.Equal(t, js.TypeFunction, fn.Type(), "globalThis.%s", exportName)

	r := fn.Invoke("init", `{"origin":"https://shop.example"}`, "")
	require.True(t, js.Global().Get("Array").Call("isArray", r).Bool(), "reply is an array")
	assert.Equal(t, 2, r.Length())
	assert.JSONEq(t, ok, r.Index(0).String())
	assert.Equal(t, "", r.Index(1).String())

	r = fn.Invoke("register", js.Undefined(), `{"name":"echo","description":"Echoes"}`)
	assert.JSONEq(t, ok, r.Index(0).String(), "register with an undefined header")

	r = fn.Invoke("input", 42, "{}")
	assert.Equal(t, "TypeError", errorOf(t, r.Index(0).String())["name"], "a header that is not a string")

	select {
	case <-done:
		t.Fatal("done closed before exit")
	default:
	}
	r = fn.Invoke("exit")
	assert.JSONEq(t, ok, r.Index(0).String())
	<-done
	fn.Invoke("exit") // a second exit must not panic
	release()
	assert.True(t, js.Global().Get(exportName).IsUndefined(), "export removed")
	release = func() {}
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
// them.
func BenchmarkSmallCall(b *testing.B) {
	s := &server{}
	if h, _ := s.handle("init", `{"origin":"https://app.example","baseURL":"https://app.example/"}`, ""); h != ok {
		b.Fatal(h)
	}
	def := `{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`
	if h, _ := s.handle("register", "", def); h != ok {
		b.Fatal(h)
	}
	const out = `{"orders":[{"id":1,"total":12.5},{"id":2,"total":3}]}`
	b.ReportAllocs()
	for b.Loop() {
		h, _ := s.handle("decide", `{"name":"t"}`, `{"q":"x"}`)
		var d struct {
			Call string `json:"call"`
		}
		if err := json.Unmarshal([]byte(h), &d); err != nil || d.Call == "" {
			b.Fatal(h)
		}
		h, _ = s.handle("output", `{"name":"t","kind":"returned","call":"`+d.Call+`"}`, out)
		if !strings.Contains(h, `"same":true`) {
			b.Fatal(h)
		}
	}
}
