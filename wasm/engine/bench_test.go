package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// records makes a JSON array of patient-like records of about size bytes,
// with a sensitive ssn and dob in each.
func records(size int) string {
	var b strings.Builder
	b.WriteString(`{"records":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"Patient %d","ssn":"%03d-%02d-%04d","dob":"19%02d-0%d-1%d","notes":"Seen on visit %d; follow-up in two weeks.","tags":["a","b"]}`,
			i, i, i%1000, i%100, i%10000, i%100, i%9+1, i%10, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

const recordsSchema = `{"type":"object","properties":{"records":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"},"ssn":{"type":"string","x-sensitive":true},"dob":{"type":"string","x-sensitive":true},"notes":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}}}}}}`

// BenchmarkOutput measures the agent view against decoding the same bytes
// with encoding/json into any, measured in the same run: the "naive"
// metric is the ratio of the two (lower is better).
func BenchmarkOutput(b *testing.B) {
	cases := []struct {
		name string
		def  string
		data string
	}{
		{"small-plain", `{"name":"t","description":"d"}`, `{"orders":[{"id":1,"total":12.5},{"id":2,"total":3}]}`},
		{"small-sensitive", `{"name":"t","description":"d","outputSchema":` + recordsSchema + `}`, records(200)},
		{"1MiB-plain", `{"name":"t","description":"d"}`, records(1 << 20)},
		{"1MiB-x-sensitive", `{"name":"t","description":"d","outputSchema":` + recordsSchema + `}`, records(1 << 20)},
		{"1MiB-allowlist", `{"name":"t","description":"d","annotations":{"sensitiveHint":true},"outputSchema":` + recordsSchema + `}`, records(1 << 20)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			e := New(&Options{Origin: testOrigin})
			if _, err := e.Register(c.def); err != nil {
				b.Fatal(err)
			}
			naive := baseline(func() {
				var v any
				if err := json.Unmarshal([]byte(c.data), &v); err != nil {
					b.Fatal(err)
				}
			})
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			for b.Loop() {
				res := e.OutputOf("t", Outcome{Kind: Returned, Data: c.data})
				if res.Err != nil {
					b.Fatal(res.Err)
				}
				// Keep the vault from growing across iterations.
				e.forgetCall(res.Call)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(naive.Nanoseconds()), "naive")
		})
	}
}

// BenchmarkRegister measures compiling a tool's schemas.
func BenchmarkRegister(b *testing.B) {
	def := `{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}},"outputSchema":` + recordsSchema + `}`
	for b.Loop() {
		e := New(nil)
		if _, err := e.Register(def); err != nil {
			b.Fatal(err)
		}
	}
}

// baseline times f, the best of several runs, for a ratio measured in the
// same run as the benchmark that reports it.
func baseline(f func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 5 {
		start := time.Now()
		f()
		best = min(best, time.Since(start))
	}
	return best
}

// BenchmarkStages splits the 1 MiB x-sensitive case into its stages, to
// show where the time goes (under WebAssembly too).
func BenchmarkStages(b *testing.B) {
	data := records(1 << 20)
	e := New(&Options{Origin: testOrigin})
	if _, err := e.Register(`{"name":"t","description":"d","outputSchema":` + recordsSchema + `}`); err != nil {
		b.Fatal(err)
	}
	t := e.lookup("t")
	tr, err := parseTree(data)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			if _, err := parseTree(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("validate", func(b *testing.B) {
		for b.Loop() {
			if !t.output.Conforms(tr, 0) {
				b.Fatal("invalid")
			}
		}
	})
	// What the fast path saves: the library's value, then its validation.
	b.Run("library-value", func(b *testing.B) {
		for b.Loop() {
			tr.value(0)
		}
	})
	v := tr.value(0)
	b.Run("library-validate", func(b *testing.B) {
		for b.Loop() {
			if f := t.output.Validate(v); f != nil {
				b.Fatal(f)
			}
		}
	})
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			w := &walker{e: e, t: t, tr: tr, act: make([]action, len(tr.nodes)), set: &scrubSet{}}
			w.walk(0, t.output.Start(), true)
		}
	})
	b.Run("walk+build", func(b *testing.B) {
		for b.Loop() {
			w := &walker{e: e, t: t, tr: tr, act: make([]action, len(tr.nodes)), set: &scrubSet{}}
			w.walk(0, t.output.Start(), true)
			res := w.build()
			e.forgetCall(res.Call)
		}
	})
}

// BenchmarkCall measures the engine's share of one small call as the page
// makes it: the policy's decision (which checks the input), then the
// output.
func BenchmarkCall(b *testing.B) {
	e := New(&Options{Origin: testOrigin})
	if _, err := e.Register(`{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`); err != nil {
		b.Fatal(err)
	}
	const out = `{"orders":[{"id":1,"total":12.5},{"id":2,"total":3}]}`
	b.ReportAllocs()
	for b.Loop() {
		d, err := e.Decide("t", `{"q":"x"}`, Resolution{})
		if err != nil {
			b.Fatal(err)
		}
		res := e.OutputOf("t", Outcome{Kind: Returned, Data: out, Call: d.Call})
		if res.Err != nil || res.Agent != out {
			b.Fatal(res.Err, res.Agent)
		}
	}
}

// forgetCall wipes what one call holds, so a benchmark's vault does not
// grow across iterations.
func (e *Engine) forgetCall(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.vault.ForgetCall(id)
}

// BenchmarkCallSession measures BenchmarkCall's small call of a tool that
// declares nothing in sessions that hold 0, 1, 1,000 and 10,000 withheld
// values, in turns (chunks of each alternate, so that the machine's
// changes weigh on each alike). The budget: with 1,000 held, at most 1.1
// times the call with none ("x-none"); "x-one" is the ratio to a session
// that holds one, which shows the cost is flat in what is held.
func BenchmarkCallSession(b *testing.B) {
	const out = `{"orders":[{"id":1,"total":12.5},{"id":2,"total":3}]}`
	counts := []int{0, 1, 1000, 10000}
	engines := make([]*Engine, len(counts))
	for k, n := range counts {
		e := New(&Options{Origin: testOrigin})
		for _, def := range []string{
			`{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}`,
			`{"name":"mk","description":"d","outputSchema":{"type":"object","properties":{"key":{"type":"string","x-sensitive":true}}}}`,
		} {
			if _, err := e.Register(def); err != nil {
				b.Fatal(err)
			}
		}
		for i := range n {
			if res := e.OutputOf("mk", Outcome{Kind: Returned, Data: fmt.Sprintf(`{"key":"sk_live_%08dZq81vT0p"}`, i)}); res.Held != 1 {
				b.Fatalf("held %d", res.Held)
			}
		}
		engines[k] = e
	}
	call := func(e *Engine) {
		d, err := e.Decide("t", `{"q":"x"}`, Resolution{})
		if err != nil {
			b.Fatal(err)
		}
		res := e.OutputOf("t", Outcome{Kind: Returned, Data: out, Call: d.Call})
		if res.Err != nil || res.Agent != out {
			b.Fatal(res.Err, res.Agent)
		}
	}
	elapsed := make([]time.Duration, len(engines))
	const chunk = 100
	b.ResetTimer()
	for n := 0; n < b.N; n += chunk {
		for k, e := range engines {
			start := time.Now()
			for range min(chunk, b.N-n) {
				call(e)
			}
			elapsed[k] += time.Since(start)
		}
	}
	per := func(k int) float64 { return float64(elapsed[k].Nanoseconds()) / float64(b.N) }
	for k, n := range counts {
		b.ReportMetric(per(k), fmt.Sprintf("ns/call-%d-held", n))
	}
	b.ReportMetric(per(2)/per(0), "x-none")
	b.ReportMetric(per(2)/per(1), "x-one")
}

// BenchmarkEchoes measures a 1 MiB output of a tool that declares nothing
// and repeats every value an earlier output withheld (about 15,000): each
// is found and removed. A text read once per occurrence of a letter made
// this quadratic.
func BenchmarkEchoes(b *testing.B) {
	e := New(&Options{Origin: testOrigin})
	for _, def := range []string{
		`{"name":"s","description":"d","outputSchema":` + recordsSchema + `}`,
		`{"name":"p","description":"d"}`,
	} {
		if _, err := e.Register(def); err != nil {
			b.Fatal(err)
		}
	}
	data := records(1 << 20)
	if res := e.OutputOf("s", Outcome{Kind: Returned, Data: data}); res.Held == 0 {
		b.Fatal("nothing withheld")
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		res := e.OutputOf("p", Outcome{Kind: Returned, Data: data})
		if res.Err != nil || res.Agent == data {
			b.Fatal("the echoes were not removed", res.Err)
		}
		e.forgetCall(res.Call)
	}
}

// benchItems is e2e/testdata/bench.js's 1 MiB output, byte for byte: about
// 7,600 items, each with a secret the schema benchSchema marks x-sensitive.
func benchItems() string {
	var items []string
	size := 0
	for i := 0; size < 1<<20; i++ {
		item := fmt.Sprintf(`{"id":%d,"name":"item number %d of the benchmark","note":"some ordinary text here","secret":"sk-bench-%d-%s"}`, i, i, i, strings.Repeat("x", 24))
		size += len(item) + 1
		items = append(items, item)
	}
	return fmt.Sprintf(`{"count":%d,"items":[%s]}`, len(items), strings.Join(items, ","))
}

const benchSchema = `{"type":"object","properties":{"count":{"type":"integer"},"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"},"note":{"type":"string"},"secret":{"type":"string","x-sensitive":true}}}}}}`

// BenchmarkEngine1MiB measures the engine alone on each 1 MiB case of the
// browser benchmark and of the records above, against the engine's own
// parse of the same bytes measured in the same run: the "x-parse" metric
// is the ratio of the two (the budget: 4). It runs natively and under
// js/wasm (GOOS=js GOARCH=wasm, Node).
//
//   - bench-x-sensitive: bench.js's output, its secrets x-sensitive.
//   - bench-echoed: the same output of a tool that declares nothing, in a
//     session that withheld its secrets (every one is found and removed).
//   - records-x-sensitive: records, ssn and dob x-sensitive.
//   - records-echoed: records of a tool that declares nothing, in a
//     session holding the ~14,600 values an x-sensitive call withheld.
//   - records-fresh: records of a tool that declares nothing, in a fresh
//     session (they pass byte for byte).
func BenchmarkEngine1MiB(b *testing.B) {
	plain := `{"name":"p","description":"d"}`
	items, recs := benchItems(), records(1<<20)
	cases := []struct {
		name string
		def  string // the tool called
		// first, when set, is a tool whose output of data is withheld
		// once before: the session then holds its values.
		first string
		data  string
	}{
		{"bench-x-sensitive", `{"name":"p","description":"d","outputSchema":` + benchSchema + `}`, "", items},
		{"bench-echoed", plain, `{"name":"s","description":"d","outputSchema":` + benchSchema + `}`, items},
		{"records-x-sensitive", `{"name":"p","description":"d","outputSchema":` + recordsSchema + `}`, "", recs},
		{"records-echoed", plain, `{"name":"s","description":"d","outputSchema":` + recordsSchema + `}`, recs},
		{"records-fresh", plain, "", recs},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			e := New(&Options{Origin: testOrigin})
			mustRegister(b, e, c.def)
			if c.first != "" {
				mustRegister(b, e, c.first)
				if res := e.OutputOf("s", Outcome{Kind: Returned, Data: c.data}); res.Err != nil || res.Held == 0 {
					b.Fatal("nothing withheld", res.Err)
				}
			}
			parse := baseline(func() {
				if _, err := parseTree(c.data); err != nil {
					b.Fatal(err)
				}
			})
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			for b.Loop() {
				res := e.OutputOf("p", Outcome{Kind: Returned, Data: c.data})
				if res.Err != nil {
					b.Fatal(res.Err)
				}
				e.forgetCall(res.Call)
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(per/1e6, "ms/op")
			b.ReportMetric(float64(parse.Nanoseconds())/1e6, "parse-ms")
			b.ReportMetric(per/float64(parse.Nanoseconds()), "x-parse")
		})
	}
}

// BenchmarkTokens shows that splitting a withheld text into tokens costs
// the same per word at a thousand words as at a hundred thousand.
func BenchmarkTokens(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			text, _ := manyKeys(n)
			for b.Loop() {
				if len(tokens(text)) != n {
					b.Fatal("wrong count")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(2*n), "ns/word")
		})
	}
}

// BenchmarkNoReference measures the pass-through test's search for
// secret_reference (mayHaveReference) over bench.js's 1 MiB output, every
// secret of which is a run of base64's alphabet that it decodes, and over
// the records.
func BenchmarkNoReference(b *testing.B) {
	for _, c := range []struct{ name, data string }{{"bench", benchItems()}, {"records", records(1 << 20)}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				if mayHaveReference(c.data, 1) {
					b.Fatal("a reference found")
				}
			}
		})
	}
}
