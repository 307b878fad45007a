package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/veilmcp/veil/wasm/leakcheck"
)

// FuzzEchoes withholds random values and echoes each elsewhere in the
// output, written through random compositions of the encoders ordinary
// backends use (encoders_test.go), in random places: text items, a
// record's JSON text in a text item, JSON text nested in a JSON string,
// other fields, member names, _meta, an error result's text, numbers, a
// secret_reference's id. Its oracle, package leakcheck, decodes the agent
// view on its own and searches it for every withheld value.
//
// The fuzzer's inputs are one withheld value and a plan: the bytes that
// drive every other choice (random ones once it runs out).
func FuzzEchoes(f *testing.F) {
	f.Add("Müller#4471", uint64(1), []byte{0, 1, 2, 3})
	f.Add("tok>91", uint64(2), []byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(`p&<w>"d/'\`, uint64(3), []byte{2, 9, 9, 9})
	f.Add("44719920", uint64(4), []byte{3, 0, 5, 1, 1})
	f.Add("correct horse", uint64(5), []byte{0, 14, 13, 2})
	f.Add("Ωμέγα🐎", uint64(6), []byte{1, 3, 6, 9, 12, 15})
	f.Add("sk_live_abc", uint64(7), []byte{2, 2, 2, 7, 7, 7})
	// A case for every form backends write and every shape it is
	// written in.
	marks := append(formMarks(), "echoes: text item", "echoes: record", "echoes: record's JSON text",
		"echoes: split, list", "echoes: split, object", "echoes: _meta", "echoes: JSON text as a string")
	for _, c := range coveringSeeds(f, func(g *echoGen, v string) { g.build(v) }, marks) {
		f.Add(c.first, c.seed, []byte{})
	}
	f.Fuzz(func(t *testing.T, first string, seed uint64, plan []byte) {
		if !utf8.ValidString(first) || strings.ContainsRune(first, utf8.RuneError) {
			t.Skip("the withheld value is not valid UTF-8 or holds U+FFFD")
		}
		g := &echoGen{plan: plan, rng: rand.New(rand.NewPCG(seed, uint64(len(plan))))}
		c := g.build(first)
		e := New(&Options{Origin: testOrigin})
		mustRegister(t, e, `{"name":"t","description":"d",`+c.def+`}`)
		res := e.OutputOf("t", Outcome{Kind: c.kind, Data: c.data})
		for _, v := range c.secrets {
			if res.Err != nil {
				if strings.Contains(res.Err.Message, v) {
					t.Fatalf("the error %q holds the withheld %q", res.Err.Message, clip(v))
				}
				continue
			}
			if where, found := leakcheck.Find(res.Agent, v); found {
				t.Fatalf("withheld %q found in %s\noutput: %s\nview:   %s", clip(v), where, clip(c.data), clip(res.Agent))
			}
		}
		if res.Err == nil && c.keep != "" {
			if _, found := leakcheck.Find(res.Agent, c.keep); !found && !c.mayLoseKeep {
				t.Fatalf("the visible %q is gone\noutput: %s\nview:   %s", c.keep, clip(c.data), clip(res.Agent))
			}
		}
	})
}

// echoGen makes one case of FuzzEchoes.
type echoGen struct {
	plan []byte
	rng  *rand.Rand
	// used names the forms, shapes and places the case wrote (mark), for
	// coveringSeeds.
	used map[string]bool
}

func (g *echoGen) mark(name string) {
	if g.used == nil {
		g.used = map[string]bool{}
	}
	g.used[name] = true
}

// seedCase is a seed of the fuzz targets: a value, and a seed with an
// empty plan.
type seedCase struct {
	first string
	seed  uint64
}

// coveringSeeds finds seeds whose cases, made by gen from an empty plan,
// write every one of marks: a form, a shape or a place (echoGen.mark).
// Found at run time, they follow the generators as they change.
func coveringSeeds(tb testing.TB, gen func(g *echoGen, first string), marks []string) []seedCase {
	need := map[string]bool{}
	for _, m := range marks {
		need[m] = true
	}
	var out []seedCase
	for seed := uint64(1); seed <= 1<<12 && len(need) > 0; seed++ {
		for _, v := range []string{"Zq81-vT0p-Lm42", "4111111111111111"} {
			g := &echoGen{rng: rand.New(rand.NewPCG(seed, 0))}
			gen(g, v)
			hit := false
			for m := range g.used {
				if need[m] {
					delete(need, m)
					hit = true
				}
			}
			if hit {
				out = append(out, seedCase{v, seed})
			}
		}
	}
	if len(need) > 0 {
		tb.Fatalf("no seed writes %v", slices.Sorted(maps.Keys(need)))
	}
	return out
}

// formMarks are the names of the forms backendEncode writes.
func formMarks() []string {
	var names []string
	for _, f := range slices.Concat(foldForms, []form{zwspReference, qpForm}, binaryForms) {
		names = append(names, f.name)
	}
	return names
}

func (g *echoGen) intn(n int) int {
	if len(g.plan) > 0 {
		b := g.plan[0]
		g.plan = g.plan[1:]
		return int(b) % n
	}
	return g.rng.IntN(n)
}

// echoCase is a tool, its output, the values it withholds that rule (d)
// covers, and a visible value that must stay.
type echoCase struct {
	def, data string
	secrets   []string
	keep      string
	// mayLoseKeep: the keep text stands in a text that may rightly be
	// withheld whole (it holds a reference the engine cannot read).
	mayLoseKeep bool
	// kind is how the tool returns data: a value, or its JSON text as a
	// string.
	kind OutcomeKind
	// values are all the values the case withholds, covered or not.
	values []string
	// unguarded are the values the docs do not promise to keep out of
	// later outputs: withheld only because the whole output was
	// (sensitiveHint without a schema), never by a declaration, and
	// ordinary in a shape docs/agent-view.md lists (docOrdinary), or
	// found as written only (docSkeletonWord).
	unguarded []string
}

// keepText is the visible value every case carries; fixedText is what the
// view holds whatever the values, so a value found in it is no leak.
const keepText = "KEEP-visible"

var fixedText = strings.Join([]string{
	keepText, "note", "record", "user", "index", "trace", "seen",
	"1 value was withheld from this result because it is sensitive. The user can reveal it on the page; it was not sent to you, so do not guess it or ask the user to share it.",
	"values were withheld from this result because they are sensitive; secrets are held for the user. The user can reveal them on the page; they were not sent to you, so do not guess them or ask the user to share them.",
	"secret is held for the user. secret reference was invalid and withheld. references were invalid and withheld.",
	`{"content":[{"type":"text","text":""}],"structuredContent":{},"isError":true,"_meta":{"dev.veil/withheld":{"withheld":["/structuredContent/s0","/names","/content/0"],"references":0,"invalidReferences":0}}}`,
	`{"type":"secret_reference","label":"API key","ttl":60}`, "s0 s1 s2 names", "pointer",
	"records memo parts split auth a b c",
	nestedJSON,
}, "\n")

// nestedJSON is a record's JSON text in JSON text in a JSON string, as a
// view holds it: the escapes of its syntax ("\\\"") are in the view
// whatever the values.
var nestedJSON = func() string {
	s := `{"pw":"x","user":"Ada"}`
	for range 3 {
		b, _ := json.Marshal(map[string]any{"record": s})
		s = string(b)
	}
	return s
}()

// randomValue makes a withheld value of one of the kinds encoders change.
func (g *echoGen) randomValue() string {
	classes := []string{
		"abcdefghXYZ",
		"0123456789",
		`&<>/"\'%+#;:=? `,
		"éüßÑ€юΩ中✓🐎\u00a0",
	}
	switch g.intn(4) {
	case 0: // digits only, as a number would be
		n := 4 + g.intn(9)
		b := []byte{byte('1' + g.intn(9))}
		for len(b) < n {
			b = append(b, byte('0'+g.intn(10)))
		}
		return string(b)
	case 1: // a decimal
		return strconv.Itoa(10+g.intn(9990)) + "." + strconv.Itoa(1+g.intn(9))
	}
	var b strings.Builder
	for n := 4 + g.intn(10); n > 0; n-- {
		cl := []rune(classes[g.intn(len(classes))])
		b.WriteRune(cl[g.intn(len(cl))])
	}
	return b.String()
}

// encode writes v through one to three encoders.
func (g *echoGen) encode(v string) string {
	for n := 1 + g.intn(3); n > 0; n-- {
		v = encoders[g.intn(len(encoders))].encode(v)
	}
	return v
}

// record writes a record holding v as a backend's JSON encoder would.
func (g *echoGen) record(v string) string {
	b, _ := json.Marshal(map[string]any{"user": "Ada", "pw": v})
	s := string(b) // Go's json.Marshal, HTML-safe
	switch g.intn(4) {
	case 0: // Python's json.dumps
		s = escapeNonASCII(strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(s))
	case 1: // PHP's json_encode
		s = strings.ReplaceAll(escapeNonASCII(strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(s)), "/", `\/`)
	case 2: // nested: the record as a string in another record
		b, _ := json.Marshal(map[string]any{"record": s})
		s = string(b)
	}
	return s
}

func (g *echoGen) build(first string) echoCase {
	var c echoCase
	values := []string{first}
	for n := g.intn(3); n > 0; n-- {
		values = append(values, g.randomValue())
	}
	sc := map[string]any{}
	var content []any
	meta := map[string]any{}
	names := map[string]any{}
	index := map[string]any{"seen": 1}
	mode := g.intn(3)
	if mode != 2 {
		// In mode 2 structuredContent is withheld, and its strings with it.
		sc["note"] = keepText
	}
	switch mode {
	case 0:
		c.def = `"outputSchema":{"type":"object","properties":{"s0":{"x-sensitive":true},"s1":{"x-sensitive":true},"s2":{"x-sensitive":true},"names":{"propertyNames":{"x-sensitive":true}}}}`
	case 1:
		c.def = `"annotations":{"sensitiveHint":true},"outputSchema":{"type":"object","properties":{"s0":{"x-sensitive":true},"s1":{"x-sensitive":true},"s2":{"x-sensitive":true},"names":{"propertyNames":{"x-sensitive":true}},"note":{},"index":{}}}`
	default:
		// sensitiveHint with a reference: structuredContent is withheld
		// and text items reach the agent.
		c.def = `"annotations":{"sensitiveHint":true}`
	}
	var refs []any
	// guarded: a value withheld at least once by a declaration, or in a
	// form the docs do not call ordinary.
	guarded := map[string]bool{}
	for k, v := range values {
		if covered(v) {
			c.secrets = append(c.secrets, v)
		}
		// Where the value is withheld.
		switch {
		case mode != 2 && g.intn(4) == 0:
			names[v] = 1
			guarded[v] = true
		case leakcheck.IsNumber(v) && g.intn(2) == 0:
			n := jsonNumber(v)
			sc[fmt.Sprintf("s%d", k)] = n
			_, isNumber := n.(json.Number)
			if mode != 2 || isNumber && !docOrdinaryNumber(v) || !isNumber && !docOrdinary(v) && !docSkeletonWord(v) {
				guarded[v] = true
			}
		case mode == 2 && g.intn(3) == 0:
			// As a reference's id.
			refs = append(refs, map[string]any{"type": "secret_reference", "id": v, "label": "API key", "redeemUrl": "/redeem/" + url.PathEscape(v), "ttl": 60})
			guarded[v] = true
		default:
			sc[fmt.Sprintf("s%d", k)] = v
			if mode != 2 || !docOrdinary(v) && !docSkeletonWord(v) {
				guarded[v] = true
			}
		}
		// Where it is echoed.
		for n := 1 + g.intn(3); n > 0; n-- {
			echo := g.encode(v)
			if leakcheck.IsNumber(v) && g.intn(3) == 0 {
				forms := numberForms(v)
				echo = forms[g.intn(len(forms))]
			}
			switch g.intn(8) {
			case 0:
				content = append(content, map[string]any{"type": "text", "text": "It is " + echo + "."})
			case 1:
				content = append(content, map[string]any{"type": "text", "text": g.record(echo)})
			case 2:
				content = append(content, map[string]any{"type": "text", "text": g.record(v)})
			case 3:
				if mode == 2 {
					content = append(content, map[string]any{"type": "text", "text": keepText + " " + echo})
				} else {
					sc["note"] = keepText + " " + echo
				}
			case 4:
				index[echo] = 2
			case 5:
				meta["trace"] = echo
			case 6:
				if n, err := strconv.ParseFloat(v, 64); err == nil && leakcheck.IsNumber(v) {
					index["n"] = n
				} else {
					content = append(content, map[string]any{"type": "text", "text": echo})
				}
			default:
				// A reference written in a text item, in some notation.
				ref := fmt.Sprintf(`{"type":"secret_reference","id":%q,"label":"API key","redeemUrl":%q}`, v, "/redeem/"+url.PathEscape(v))
				content = append(content, map[string]any{"type": "text", "text": keepText + " " + g.encode(ref)})
				c.mayLoseKeep = true
			}
		}
	}
	if len(names) > 0 {
		sc["names"] = names
	}
	sc["index"] = index
	content = append(content, map[string]any{"type": "text", "text": keepText})
	content = append(content, refs...)
	if mode == 2 && len(refs) == 0 {
		content = append(content, map[string]any{"type": "secret_reference", "id": "ID-fixed-ref", "label": "API key", "redeemUrl": "/redeem/ID-fixed-ref"})
	}
	out := map[string]any{"content": content, "structuredContent": sc}
	if len(meta) > 0 {
		out["_meta"] = meta
	}
	if g.intn(4) == 0 {
		out["isError"] = true
	}
	// What backends do to a value besides escaping it (backendEncode), in
	// the shapes they write: drawn after all of the above, so that a plan
	// of the corpus still makes the case it made, with these added.
	var records []any
	for _, v := range values {
		for n := g.intn(3); n > 0; n-- {
			switch g.intn(5) {
			case 0:
				g.mark("echoes: text item")
				content = append(content, map[string]any{"type": "text", "text": "It is " + g.backendEncode(v) + "."})
			case 1:
				g.mark("echoes: record")
				records = append(records, map[string]any{"id": len(records), "user": "Ada", "memo": g.backendEncode(v)})
			case 2:
				g.mark("echoes: record's JSON text")
				content = append(content, map[string]any{"type": "text", "text": g.record(g.backendEncode(v))})
			case 3:
				// Split across consecutive strings: items of one array, or
				// members of one object.
				if parts := g.splitEcho(v); parts != nil {
					if g.intn(2) == 0 {
						g.mark("echoes: split, list")
						sc["parts"] = parts
					} else {
						g.mark("echoes: split, object")
						split := map[string]any{}
						for k, p := range parts {
							split[string(rune('a'+k))] = p
						}
						sc["split"] = split
					}
					break
				}
				fallthrough
			default:
				g.mark("echoes: _meta")
				meta["auth"] = g.backendEncode(v)
			}
		}
	}
	if len(records) > 0 {
		sc["records"] = records
	}
	if len(meta) > 0 {
		out["_meta"] = meta
	}
	out["content"] = content
	c.kind = Returned
	if g.intn(4) == 0 {
		// The result's JSON text, returned as a string.
		g.mark("echoes: JSON text as a string")
		c.kind = Text
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(out)
	c.data = strings.TrimSuffix(b.String(), "\n")
	c.keep = keepText
	c.values = values
	for _, v := range values {
		if !guarded[v] && !slices.Contains(c.unguarded, v) {
			c.unguarded = append(c.unguarded, v)
		}
	}
	if mode == 1 {
		// The allowlist keeps structuredContent's declared members only.
		c.mayLoseKeep = true
	}
	return c
}

// covered reports whether rule (d) removes v elsewhere: four characters
// or more, a number by its plain value too, and nothing the view holds
// whatever the values are.
func covered(v string) bool {
	if utf8.RuneCountInString(v) < minScrubLength || publicNames[v] {
		return false
	}
	if leakcheck.IsNumber(v) {
		// Four characters sign aside, and only the forms the generator
		// writes: no leading zero, no trailing zero in a fraction, no
		// exponent.
		if len(strings.TrimPrefix(v, "-")) < minScrubLength {
			return false
		}
		if strings.HasPrefix(strings.TrimPrefix(v, "-"), "0") || strings.ContainsAny(v, "eE") ||
			strings.Contains(v, ".") && strings.HasSuffix(v, "0") {
			return false
		}
	}
	if sk := skeleton(v); len(sk) > 0 && allDigits(sk) && strings.Count(sk, sk[:1]) == len(sk) {
		// One digit over and over ("0 00000"): the counts in the view's
		// _meta, which the oracle reads on from the strings before them,
		// finish what a removal left of it.
		return false
	}
	_, inFixed := leakcheck.Find(fixedText, v)
	return !inFixed
}

// jsonNumber is v as a JSON number, or as a string when JSON has no
// such number (".5", "007").
func jsonNumber(v string) any {
	if json.Valid([]byte(v)) {
		return json.Number(v)
	}
	return v
}

// publicNames are the member names the agent reads anyway, in MCP's
// vocabulary and the schemas of the cases: a value withheld as a member
// name does not join the scrub set when it is one of them.
var publicNames = func() map[string]bool {
	m := maps.Clone(mcpNames)
	for _, n := range []string{"s0", "s1", "s2", "names", "note", "index", "secretNote"} {
		m[n] = true
	}
	return m
}()

// clip shortens s for a failure message.
func clip(s string) string {
	if len(s) <= 2000 {
		return s
	}
	return s[:1000] + fmt.Sprintf("…(%d bytes)…", len(s)-2000) + s[len(s)-1000:]
}
