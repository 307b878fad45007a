//go:build js && wasm

package main

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/ops"
)

// initialized returns a server like main's, its engine initialized for a
// page at https://shop.example.
func initialized(t *testing.T) *ops.Server {
	t.Helper()
	s := newServer()
	h, _ := s.Handle(ops.Init, `{"origin":"https://shop.example","baseURL":"https://shop.example/app/"}`, "")
	require.Nil(t, errorOf(t, h), "init")
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

func TestRegisterInvalidPattern(t *testing.T) {
	s := initialized(t)
	h, b := s.Handle(ops.Register, `{"registration":1}`, `{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"p":{"type":"string","pattern":"("}}}}`)
	assert.Equal(t, "TypeError", errorOf(t, h)["name"], "register with an invalid pattern")
	assert.Empty(t, b)
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
	srv = newServer()
	defer func() { srv = nil }()

	h, b := callExport(t, ops.Init, `{"origin":"https://shop.example"}`, "")
	assert.Nil(t, errorOf(t, h), "init")
	assert.Empty(t, b)

	h, b = callExport(t, ops.Register, `{"registration":1}`, `{"name":"echo","description":"Échoes «this»"}`)
	assert.JSONEq(t, `{}`, h, "register")
	assert.Contains(t, b, "Échoes «this»", "the normalized definition")
	h, _ = callExport(t, ops.Decide, `{"name":"echo"}`, "{}")
	var d struct {
		Call    string `json:"call"`
		Outcome string `json:"outcome"`
	}
	require.NoError(t, json.Unmarshal([]byte(h), &d), "decide reply %s", h)
	require.Equal(t, "allow", d.Outcome, "decide reply %s", h)
	h, b = callExport(t, ops.Output, `{"call":"`+d.Call+`","kind":"text"}`, "")
	assert.Nil(t, errorOf(t, h), "output")
	assert.Equal(t, "Operation succeeded", b, "a reply body")

	h, _ = callExport(t, ops.Decide, `{"name":7}`, "{}")
	assert.Equal(t, "TypeError", errorOf(t, h)["name"], "a malformed header")

	select {
	case <-done:
		t.Fatal("done closed before exit")
	default:
	}
	h, _ = callExport(t, ops.Exit, "", "")
	assert.Nil(t, errorOf(t, h), "exit")
	<-done
	h, b = callExport(t, ops.Exit, "", "") // a second exit must not panic
	assert.Equal(t, "InvalidStateError", errorOf(t, h)["name"], "an op after exit")
	assert.Empty(t, b)
}

// TestPatternPropertiesWithECMAPatterns registers patternProperties whose
// patterns only ECMA-262 compiles, and checks that they mark values.
// jsonschema/v6 keys patternProperties by the compiled Regexp, so the
// engine's Regexp must be usable as a map key.
func TestPatternPropertiesWithECMAPatterns(t *testing.T) {
	s := initialized(t)
	def := `{"name":"keys","description":"d","outputSchema":{"patternProperties":{` +
		`"^(?=.*_secret$)":{"x-sensitive":true},"^\\p{Lu}":{"x-sensitive":true}}}}`
	h, _ := s.Handle(ops.Register, `{"registration":1}`, def)
	require.JSONEq(t, `{}`, h, "register")
	h, _ = s.Handle(ops.Decide, `{"name":"keys"}`, "{}")
	var d engine.Decision
	require.NoError(t, json.Unmarshal([]byte(h), &d), "decide reply %s", h)
	h, b := s.Handle(ops.Output, `{"call":"`+d.Call+`","kind":"returned"}`, `{"api_secret":"LOOK-SECRET","Ünïcode":"UNI-SECRET","api_name":"visible"}`)
	var r ops.OutputReply
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
	srv = newServer()
	defer func() { srv = nil }()
	if callExports(ops.Init, `{"origin":"https://app.example","baseURL":"https://app.example/"}`, ""); strings.Contains(answer.header, `"error"`) {
		b.Fatal(answer.header)
	}
	def := `{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`
	if callExports(ops.Register, `{"registration":1}`, def); answer.header != `{}` {
		b.Fatal(answer.header)
	}
	const out = `{"orders":[{"id":1,"total":12.5},{"id":2,"total":3}]}`
	b.ReportAllocs()
	for b.Loop() {
		callExports(ops.Decide, `{"name":"t"}`, `{"q":"x"}`)
		_, id, _ := strings.Cut(answer.header, `"call":"`)
		id, _, _ = strings.Cut(id, `"`)
		if id == "" {
			b.Fatal(answer.header)
		}
		callExports(ops.Output, `{"call":"`+id+`","kind":"returned"}`, out)
		if !strings.Contains(answer.header, `"same":true`) {
			b.Fatal(answer.header)
		}
	}
}

// TestFitMemory checks that the memory limit follows what the runtime has
// taken from WebAssembly memory, up as it grows, and is never below
// minMemoryLimit.
func TestFitMemory(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	taken := func() int64 {
		metrics.Read(mapped)
		return int64(mapped[0].Value.Uint64())
	}

	fitMemory()
	had := taken()
	before := debug.SetMemoryLimit(-1)
	assert.Equal(t, max(had, minMemoryLimit), before, "the limit after fitMemory")

	grown := make([]byte, 2*before)
	fitMemory()
	after := debug.SetMemoryLimit(-1)
	assert.Equal(t, taken(), after, "the limit after the runtime took %d bytes more", len(grown))
	assert.GreaterOrEqual(t, after, had+int64(len(grown)), "the limit after the runtime took %d bytes more", len(grown))
	runtime.KeepAlive(grown)
}

// TestRequestHoldsItsEnd: JavaScript passes an empty last argument (the
// body of most ops) as the address just past what it wrote, which for a
// request of exactly the size asked for is the end of veilRequest's
// memory. That address must still lie inside it: one past a large
// object's end is a pointer the garbage collector finds in no object,
// and a collection while veilCall holds it ends the program.
func TestRequestHoldsItsEnd(t *testing.T) {
	defer func() { request = nil }()
	for _, n := range []int32{1, 100, 40_001, 1<<20 + 3} {
		p := veilRequest(n)
		end := unsafe.Add(p, n)
		runtime.GC() // throws "pointer to unused region of span" if end is outside
		runtime.KeepAlive(end)
	}
}

// BenchmarkTenLargeCalls sends, through the module's exports, ten 1 MiB
// outputs whose items each have an x-sensitive member (e2e/testdata/
// bench.js's), each decided first, to a fresh server under main's
// collector settings, and reports the memory the runtime then has taken
// (what WebAssembly memory holds, which never shrinks: MiB-taken) and
// what is live after a collection (MiB-live). The browser benchmark's
// budget for the first is 16 MiB. Run it with -benchtime 1x.
func BenchmarkTenLargeCalls(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	var items []string
	for i, size := 0, 0; size < 1<<20; i++ {
		item := fmt.Sprintf(`{"id":%d,"name":"item number %d of the benchmark","note":"some ordinary text here","secret":"sk-bench-%d-%s"}`, i, i, i, strings.Repeat("x", 24))
		size += len(item) + 1
		items = append(items, item)
	}
	out := fmt.Sprintf(`{"count":%d,"items":[%s]}`, len(items), strings.Join(items, ","))
	items = nil
	const def = `{"name":"big","description":"d","outputSchema":{"type":"object","properties":{"count":{"type":"integer"},"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"},"note":{"type":"string"},"secret":{"type":"string","x-sensitive":true}}}}}}}`
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/gc/heap/live:bytes"}}
	for b.Loop() {
		srv = newServer()
		if callExports(ops.Init, `{"origin":"https://app.example","baseURL":"https://app.example/"}`, ""); strings.Contains(answer.header, `"error"`) {
			b.Fatal(answer.header)
		}
		if callExports(ops.Register, `{"registration":1}`, def); answer.header != `{}` {
			b.Fatal(answer.header)
		}
		for range 10 {
			callExports(ops.Decide, `{"name":"big"}`, `{}`)
			_, id, _ := strings.Cut(answer.header, `"call":"`)
			id, _, _ = strings.Cut(id, `"`)
			if id == "" {
				b.Fatal(answer.header)
			}
			callExports(ops.Output, `{"call":"`+id+`","kind":"returned"}`, out)
			if !strings.Contains(answer.header, `"held":`) || strings.Contains(answer.header, `"held":0`) {
				b.Fatal(answer.header)
			}
		}
		runtime.GC()
		metrics.Read(sample)
		srv = nil
	}
	b.ReportMetric(float64(sample[0].Value.Uint64())/(1<<20), "MiB-taken")
	b.ReportMetric(float64(sample[1].Value.Uint64())/(1<<20), "MiB-live")
}
