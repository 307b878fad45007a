package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/veilmcp/veil/wasm/leakcheck"
)

// FuzzSession holds the session's scrub set (session.go) to what
// backends write. A first tool withholds random values (one of
// FuzzEchoes' cases: x-sensitive, sensitiveHint, references); then
// later tools, one that declares nothing and one that declares an
// unrelated member x-sensitive, echo them through backendEncode, in the
// shapes backends write: log lines, records and a list of them, member
// names, numbers, a record's JSON text in a string, plain text, the
// output's JSON text returned as a string, and a value split across
// consecutive strings of one object or array. Every later view is
// searched with package leakcheck for every value withheld before it
// that the docs promise to keep out of later outputs (all but the
// ordinary values of an output withheld whole, docOrdinary); a
// marker written apart from the echoes must stay; and a later output that
// echoes nothing passes byte for byte.
//
// The fuzzer's inputs are FuzzEchoes': one withheld value and a plan.
func FuzzSession(f *testing.F) {
	f.Add("sk_live_Zq81vT0pLm42", uint64(1), []byte{0, 0, 1, 2, 3})
	f.Add("Müller#4471", uint64(2), []byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add("4111111111111111", uint64(3), []byte{0, 1, 0, 4, 1, 1})
	f.Add("123-45-6789", uint64(4), []byte{2, 9, 9, 9, 3})
	f.Add("correct horse battery", uint64(5), []byte{0, 14, 13, 2})
	f.Add("Ωμέγα🐎staple", uint64(6), []byte{1, 3, 6, 9, 12, 15})
	f.Add("44719920", uint64(7), []byte{0, 3, 5, 1, 1, 2})
	f.Add("tok>91", uint64(8), []byte{2, 2, 2, 7, 7, 7})
	// A case for every form, shape and place of a later output.
	marks := append(formMarks(), "later: CallToolResult", "later: object", "later: list of records",
		"later: plain text", "later: JSON text as a string", "later: audit",
		"place: log line", "place: memo", "place: member name", "place: record's JSON text",
		"place: split, list", "place: split, object", "place: split, lines", "place: number",
		"place: _meta", "place: text item")
	for _, c := range coveringSeeds(f, func(g *echoGen, v string) { g.session(v) }, marks) {
		f.Add(c.first, c.seed, []byte{})
	}
	f.Fuzz(func(t *testing.T, first string, seed uint64, plan []byte) {
		if !utf8.ValidString(first) || strings.ContainsRune(first, utf8.RuneError) {
			t.Skip("the withheld value is not valid UTF-8 or holds U+FFFD")
		}
		g := &echoGen{plan: plan, rng: rand.New(rand.NewPCG(seed, uint64(len(plan))))}
		sc := g.session(first)
		c := sc.first
		e := New(&Options{Origin: testOrigin})
		mustRegister(t, e, `{"name":"t","description":"d",`+c.def+`}`)
		mustRegister(t, e, laterDef)
		mustRegister(t, e, auditDef)
		res := e.OutputOf("t", Outcome{Kind: c.kind, Data: c.data})
		if res.Err != nil || res.Held == 0 {
			t.Skip("the first call withheld nothing")
		}
		// What later views must not hold: what the first call withheld
		// that rule (d) covers, that no later view holds whatever the
		// values are, and that the docs promise to keep out of later
		// outputs: not an ordinary value withheld only because the whole
		// output was (echoCase.unguarded).
		var withheld []string
		for _, v := range c.secrets {
			if _, fixed := leakcheck.Find(laterFixedText, v); !fixed && !slices.Contains(c.unguarded, v) {
				withheld = append(withheld, v)
			}
		}
		all := c.values
		checkClean(t, e, sc.clean[0], all)
		for _, lc := range sc.later {
			res := e.OutputOf(lc.tool, lc.o)
			for _, v := range withheld {
				if res.Err != nil {
					if strings.Contains(res.Err.Message, v) {
						t.Fatalf("the error %q holds %q, withheld earlier", res.Err.Message, clip(v))
					}
					continue
				}
				if where, found := leakcheck.Find(res.Agent, v); found {
					t.Fatalf("%q, withheld earlier, found in %s of the %s output\noutput: %s\nview:   %s", clip(v), where, lc.tool, clip(lc.o.Data), clip(res.Agent))
				}
			}
			if res.Err != nil {
				continue
			}
			if _, found := leakcheck.Find(res.Agent, laterKeep); !found && !lc.mayLoseKeep {
				t.Fatalf("the visible %q is gone\noutput: %s\nview:   %s", laterKeep, clip(lc.o.Data), clip(res.Agent))
			}
			if lc.unrelated != "" && res.Held > 0 {
				// The audit tool withheld a value of its own: later views
				// must not hold it either.
				all = append(all, lc.unrelated)
				if _, fixed := leakcheck.Find(laterFixedText, lc.unrelated); !fixed {
					withheld = append(withheld, lc.unrelated)
				}
			}
		}
		checkClean(t, e, sc.clean[1], all)
	})
}

// sessionCase is one case of FuzzSession: the first call, the later
// ones, and two outputs that echo nothing, one checked before the later
// calls and one after.
type sessionCase struct {
	first echoCase
	later []laterCase
	clean [2]Outcome
}

// session makes a case of FuzzSession. The later calls echo what the
// first withheld, and the values the audit tool withholds after it
// does.
func (g *echoGen) session(first string) sessionCase {
	var sc sessionCase
	sc.first = g.build(first)
	var pool []string
	for _, v := range sc.first.secrets {
		if _, fixed := leakcheck.Find(laterFixedText, v); !fixed {
			pool = append(pool, v)
		}
	}
	all := slices.Clone(sc.first.values)
	sc.clean[0] = g.clean()
	for n := 1 + g.intn(3); n > 0; n-- {
		lc := g.later(pool, all, g.intn(3) == 0)
		if lc.unrelated != "" {
			pool = append(pool, lc.unrelated)
			all = append(all, lc.unrelated)
		}
		sc.later = append(sc.later, lc)
	}
	sc.clean[1] = g.clean()
	return sc
}

// The later tools: one that declares nothing, and one that declares an
// unrelated member x-sensitive.
const (
	laterDef = `{"name":"later","description":"d"}`
	auditDef = `{"name":"audit","description":"d","outputSchema":{"properties":{"secretNote":{"x-sensitive":true}}}}`
)

// laterKeep is the visible marker of every later output, written in a
// string of its own.
const laterKeep = "LATER-marker-shown"

// laterFixedText is what a later view holds whatever the values: the
// first call's fixed text, and the names and words of later outputs.
var laterFixedText = fixedText + "\n" + strings.Join([]string{
	laterKeep, "count ok records log messages headers secretNote audit",
	"id who Grace memo part1 part2 part3 parts amount auth line body n",
	"GET /items key: ok", "It is", "status events login logout when yesterday event All good.",
}, "\n")

// member is a member of an object, which keeps its members in order.
type member struct {
	key   string
	value any
}

type object []member

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := encodeJSON(&b, m.key, false); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		if err := encodeJSON(&b, m.value, false); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// encodeJSON writes v's JSON text to b, with <, > and & escaped as Go's
// json.Marshal does, or as they are, as JSON.stringify writes them.
func encodeJSON(b *bytes.Buffer, v any, escapeHTML bool) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // the newline
	return nil
}

// laterCase is the output of a later call.
type laterCase struct {
	tool string
	o    Outcome
	// unrelated is the value the audit tool withheld of its own, or "".
	unrelated string
	// mayLoseKeep: the marker shares a string with echoes, or a value
	// the session withheld stands in it.
	mayLoseKeep bool
}

// later makes the output of a later call that echoes the values of pool;
// all is every value the session withheld, covered or not. With audit,
// the tool declares secretNote x-sensitive and the output holds one.
//
// Its shapes: 0, a CallToolResult; 1, an object; 2, a list of records;
// 3, plain text; 4, the JSON text of 0 to 2 returned as a string.
func (g *echoGen) later(pool, all []string, audit bool) laterCase {
	lc := laterCase{tool: "later"}
	shape := g.intn(5)
	if audit && (shape == 2 || shape == 3) {
		// A schema that declares a member x-sensitive has the output be
		// an object: any other value is withheld whole (sensitivity.go's
		// reach), and nothing of it is left to test.
		shape = 1
	}
	var (
		log, texts, lines []string
		records           []object
		meta              object
	)
	// rec returns the index of a record to put a member in.
	rec := func() int {
		if len(records) == 0 || g.intn(2) == 0 {
			records = append(records, object{{"id", len(records)}, {"who", "Grace"}})
		}
		return g.intn(len(records))
	}
	add := func(i int, key string, value any) {
		records[i] = append(records[i], member{key, value})
	}
	var place func(v string, where int)
	place = func(v string, where int) {
		switch where {
		case 0:
			g.mark("place: log line")
			// After a space: quoted-printable after "key=" would start
			// with an escape ("=65") the backend never wrote.
			log = append(log, "GET /items key: "+g.backendEncode(v)+" ok")
		case 1:
			g.mark("place: memo")
			i := rec()
			add(i, fmt.Sprintf("memo%d", len(records[i])), g.backendEncode(v))
		case 2:
			// As a member name, its value nothing the view must keep.
			g.mark("place: member name")
			add(rec(), g.backendEncode(v), 1)
		case 3:
			g.mark("place: record's JSON text")
			texts = append(texts, g.record(g.backendEncode(v)))
		case 4:
			// Split across consecutive strings of one object or array.
			parts := g.splitEcho(v)
			if parts == nil {
				place(v, 0)
				return
			}
			if shape == 3 {
				// In plain text, on consecutive lines.
				g.mark("place: split, lines")
				lines = append(lines, strings.Join(parts, "\n"))
				return
			}
			r := object{{"id", len(records)}}
			if g.intn(2) == 0 {
				g.mark("place: split, list")
				r = append(r, member{"parts", parts})
			} else {
				g.mark("place: split, object")
				for k, p := range parts {
					r = append(r, member{fmt.Sprintf("part%d", k+1), p})
				}
				r = append(r, member{"ok", true})
			}
			records = append(records, r)
		case 5:
			if leakcheck.IsNumber(v) {
				forms := numberForms(v)
				if n := forms[g.intn(len(forms))]; json.Valid([]byte(n)) {
					g.mark("place: number")
					i := rec()
					add(i, fmt.Sprintf("amount%d", len(records[i])), json.Number(n))
					return
				}
			}
			place(v, 1)
		case 6:
			g.mark("place: _meta")
			meta = append(meta, member{fmt.Sprintf("auth%d", len(meta)), g.backendEncode(v)})
		default:
			g.mark("place: text item")
			texts = append(texts, "It is "+g.backendEncode(v)+".")
		}
	}
	echoed := false
	for _, v := range pool {
		for n := g.intn(3); n > 0; n-- {
			place(v, g.intn(8))
			echoed = true
		}
	}
	if !echoed && len(pool) > 0 {
		place(pool[g.intn(len(pool))], g.intn(8))
	}

	top := object{{"count", len(records)}, {"note", laterKeep}, {"ok", true}}
	if audit {
		g.mark("later: audit")
		lc.tool = "audit"
		lc.unrelated = g.unrelated()
		top = append(top, member{"secretNote", lc.unrelated})
	}
	if len(records) > 0 {
		top = append(top, member{"records", records})
	}
	if len(log) > 0 {
		top = append(top, member{"log", log})
	}
	html := g.intn(2) == 0
	if shape == 4 {
		// The JSON text of another shape, returned as a string.
		g.mark("later: JSON text as a string")
		lc.o.Kind = Text
		shape = g.intn(3)
		if audit && shape == 2 {
			shape = 1
		}
	} else {
		lc.o.Kind = Returned
	}
	var v any
	switch shape {
	case 0:
		g.mark("later: CallToolResult")
		var content []any
		for _, t := range texts {
			content = append(content, object{{"type", "text"}, {"text", t}})
		}
		content = append(content, object{{"type", "text"}, {"text", "All good."}})
		res := object{{"content", content}, {"structuredContent", top}}
		if len(meta) > 0 {
			res = append(res, member{"_meta", meta})
		}
		if g.intn(4) == 0 {
			res = append(res, member{"isError", true})
		}
		v = res
	case 1:
		g.mark("later: object")
		if len(texts) > 0 {
			top = append(top, member{"messages", texts})
		}
		if len(meta) > 0 {
			top = append(top, member{"headers", meta})
		}
		v = top
	case 2:
		g.mark("later: list of records")
		list := []any{object{{"n", 0}, {"note", laterKeep}, {"ok", true}}}
		for _, r := range records {
			list = append(list, r)
		}
		for _, l := range log {
			list = append(list, object{{"n", len(list)}, {"line", l}})
		}
		for _, t := range texts {
			list = append(list, object{{"n", len(list)}, {"body", t}})
		}
		if len(meta) > 0 {
			list = append(list, object{{"n", len(list)}, {"headers", meta}})
		}
		v = list
	default:
		// Plain text: the marker, then a line for each echo, records as
		// JSON lines.
		g.mark("later: plain text")
		text := []string{laterKeep}
		text = append(text, log...)
		text = append(text, texts...)
		text = append(text, lines...)
		for _, r := range records {
			var b bytes.Buffer
			_ = encodeJSON(&b, r, html)
			text = append(text, b.String())
		}
		for _, m := range meta {
			text = append(text, m.key+": "+m.value.(string))
		}
		lc.o = Outcome{Kind: Text, Data: strings.Join(text, "\n")}
		lc.mayLoseKeep = true
	}
	if v != nil {
		var b bytes.Buffer
		if err := encodeJSON(&b, v, html); err != nil {
			panic(err)
		}
		lc.o.Data = b.String()
	}
	for _, v := range all {
		if touches(laterKeep, v) {
			lc.mayLoseKeep = true
		}
	}
	return lc
}

// unrelated is a value the audit tool withholds, nothing like the
// others.
func (g *echoGen) unrelated() string {
	const alphabet = "bcdfghjkmnpqrstvwxz23456789"
	b := []byte("audit-")
	for range 10 {
		b = append(b, alphabet[g.intn(len(alphabet))])
	}
	return string(b)
}

// touches reports whether the engine may find v inside the text keep:
// its skeleton, or its bytes as written.
func touches(keep, v string) bool {
	if len(v) < minScrubLength || utf8.RuneCountInString(v) < minScrubLength {
		return false // never scrubbed
	}
	sk, lower := skeleton(v), strings.ToLower(v)
	return len(sk) >= minScrubLength && strings.Contains(skeleton(keep), sk) || strings.Contains(strings.ToLower(keep), lower)
}

// clean makes an output that echoes nothing: one of a few shapes, words
// that no case withholds but by chance.
func (g *echoGen) clean() Outcome {
	data := []string{
		`{"status":"ok","count":3,"events":["login","logout"],"when":"yesterday"}`,
		`[{"event":"login","ok":true},{"event":"logout","ok":false}]`,
		`{"content":[{"type":"text","text":"All good."}]}`,
	}
	switch k := g.intn(5); k {
	case 3:
		return Outcome{Kind: Text, Data: "status: ok\nevents: login, logout"}
	case 4:
		return Outcome{Kind: Text, Data: data[g.intn(len(data))]}
	default:
		return Outcome{Kind: Returned, Data: data[k]}
	}
}

// checkClean: an output that echoes none of the values the session
// withheld passes byte for byte, unless by chance it holds one.
func checkClean(t *testing.T, e *Engine, o Outcome, all []string) {
	t.Helper()
	for _, v := range all {
		if _, found := leakcheck.Find(o.Data, v); found || touches(o.Data, v) {
			return
		}
	}
	res := e.OutputOf("later", o)
	if res.Err != nil || !res.Unchanged || res.Agent != o.Data {
		t.Fatalf("an output that echoes nothing withheld did not pass byte for byte\noutput: %s\nview:   %s\nerror:  %v", o.Data, clip(res.Agent), res.Err)
	}
}
