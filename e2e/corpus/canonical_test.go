package corpus

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// canonicalTests are texts with what JSON.stringify(JSON.parse(text))
// writes for them, as Node wrote it.
var canonicalTests = []struct {
	name, text, want string
}{
	{"white space", `{ "a" : [ 1 , true , null ] }`, `{"a":[1,true,null]}`},
	{"member order kept", `{"b":1,"a":2}`, `{"b":1,"a":2}`},
	{"array indices first", `{"b":1,"2":2,"1":3,"01":4,"4294967295":5,"4294967294":6,"-1":7}`, `{"1":3,"2":2,"4294967294":6,"b":1,"01":4,"4294967295":5,"-1":7}`},
	{"a trailing zero", `1.50`, `1.5`},
	{"an integer written as a fraction", `1.0`, `1`},
	{"an exponent in range", `1e2`, `100`},
	{"a large exponent", `1E21`, `1e+21`},
	{"the largest plain number", `123456789012345678901`, `123456789012345680000`},
	{"past float64's digits", `12345678901234567890`, `12345678901234567000`},
	{"small", `0.000001`, `0.000001`},
	{"smaller", `0.0000001`, `1e-7`},
	{"a small fraction", `123e-20`, `1.23e-18`},
	{"the smallest double", `5e-324`, `5e-324`},
	{"the largest double", `1.7976931348623157e308`, `1.7976931348623157e+308`},
	{"minus zero", `-0`, `0`},
	{"negative", `-2.5e-8`, `-2.5e-8`},
	{"shortest digits", `0.30000000000000004`, `0.30000000000000004`},
	{"escapes undone", `"\u00e9 \/ \u0041"`, `"é / A"`},
	{"controls escaped", `"\u0000\u001f\b\f\n\r\t"`, `"\u0000\u001f\b\f\n\r\t"`},
	{"DEL and line separators raw", `"\u007f\u2028\u2029"`, "\"\x7f\u2028\u2029\""},
	{"HTML characters raw", `"\u003c/script\u003e\u0026"`, `"</script>&"`},
	{"a quote and a backslash", `"\"\\"`, `"\"\\"`},
	{"a surrogate pair", `"\ud83d\ude00"`, `"😀"`},
	{"nested", `[{"z":{},"a":[]},[[]]]`, `[{"z":{},"a":[]},[[]]]`},
}

func TestCanonical(t *testing.T) {
	for _, tt := range canonicalTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonical(tt.text)
			require.NoError(t, err, "Canonical(%s)", tt.text)
			assert.Equal(t, tt.want, got, "Canonical(%s)", tt.text)
		})
	}
}

// TestCanonicalRefuses: what JSON.parse and Go would read differently, or
// JSON.stringify would not write back.
func TestCanonicalRefuses(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"a member twice", `{"a":1,"a":2}`, `the member "a" is named twice`},
		{"an infinite number", `1e400`, "not a finite double"},
		{"a lone surrogate", `"\ud800"`, "lone surrogate"},
		{"U+FFFD", "\"\uFFFD\"", "lone surrogate"},
		{"not UTF-8", "\"\xff\"", "not UTF-8"},
		{"two values", `1 2`, "text after the JSON value"},
		{"a trailing comma", `[1,]`, "invalid character"},
		{"empty", ``, "EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Canonical(tt.text)
			require.Error(t, err, "Canonical(%q)", tt.text)
			assert.Contains(t, err.Error(), tt.want, "Canonical(%q)", tt.text)
		})
	}
}

// TestCanonicalAgainstNode holds Canonical and FormatNumber to Node's
// JSON.stringify and Number.prototype.toString: for the table above, every
// JSON file of the corpus, and random doubles. Node runs the engine's
// wasm tests; where it is missing the test says so and skips.
func TestCanonicalAgainstNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; Canonical is checked against the table only")
	}
	var texts []string
	for _, tt := range canonicalTests {
		texts = append(texts, tt.text)
	}
	cases, err := Load(casesDir)
	require.NoError(t, err)
	for _, c := range cases {
		texts = append(texts, c.Tool, c.Input)
		if c.Returns != nil {
			texts = append(texts, *c.Returns)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var numbers []string
	for len(numbers) < 4000 {
		var f float64
		switch len(numbers) % 3 {
		case 0:
			f = math.Float64frombits(rng.Uint64())
		case 1:
			f = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(60)-30))
		default:
			f = float64(rng.Int64N(1<<62)) / math.Pow(10, float64(rng.IntN(25)))
		}
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			numbers = append(numbers, strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	in, err := json.Marshal(map[string][]string{"texts": texts, "numbers": numbers})
	require.NoError(t, err)
	cmd := exec.Command(node, "-e", `
let s = "";
process.stdin.on("data", (d) => (s += d)).on("end", () => {
  const {texts, numbers} = JSON.parse(s);
  process.stdout.write(JSON.stringify({
    texts: texts.map((x) => JSON.stringify(JSON.parse(x))),
    numbers: numbers.map((x) => String(Number(x))),
  }));
});`)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	require.NoError(t, err, "node")
	var want struct {
		Texts   []string `json:"texts"`
		Numbers []string `json:"numbers"`
	}
	require.NoError(t, json.Unmarshal(out, &want))
	require.Len(t, want.Texts, len(texts))
	for i, text := range texts {
		got, err := Canonical(text)
		require.NoError(t, err, "Canonical(%s)", text)
		assert.Equal(t, want.Texts[i], got, "Canonical(%s)", text)
	}
	require.Len(t, want.Numbers, len(numbers))
	for i, n := range numbers {
		f, _ := strconv.ParseFloat(n, 64)
		assert.Equal(t, want.Numbers[i], FormatNumber(f), "FormatNumber(%s)", n)
	}
}
