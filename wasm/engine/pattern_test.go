package engine

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/veilmcp/veil/wasm/pattern"
)

// fakeECMA stands in for the browser's RegExp: it drops lookarounds and
// runs the rest on Go's regexp, and counts its matches.
type fakeECMA struct{ calls int }

func (f *fakeECMA) compile(p string) (jsonschema.Regexp, error) {
	re, err := regexp.Compile(regexp.MustCompile(`\(\?<?[=!][^)]*\)`).ReplaceAllString(p, ""))
	if err != nil {
		return nil, err
	}
	return &fakeMatcher{re: re, f: f}, nil
}

type fakeMatcher struct {
	re *regexp.Regexp
	f  *fakeECMA
}

func (m *fakeMatcher) MatchString(s string) bool { m.f.calls++; return m.re.MatchString(s) }
func (m *fakeMatcher) String() string            { return m.re.String() }

// TestPatternsRunBounded: a pattern RE2 can run never reaches the page's
// RegExp, however it backtracks there; one that needs the page's RegExp
// is refused at registration when it can backtrack without bound, and
// otherwise runs on short strings only, failing closed, naming the tool
// and the keyword, past that.
func TestPatternsRunBounded(t *testing.T) {
	page := &fakeECMA{}
	e := New(&Options{Origin: testOrigin, Regexp: page.compile})

	mustRegister(t, e, `{"name":"re2","description":"d","inputSchema":{"type":"object","properties":{"s":{"type":"string","pattern":"^(a+)+$"}}}}`)
	err := e.CheckInput("re2", `{"s":"`+strings.Repeat("a", 40)+`b"}`)
	var de *Error
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "DataError", de.Name, "the catastrophic pattern, run in linear time, rejects")
	assert.Zero(t, page.calls, "RE2 ran it, not the page's RegExp")

	_, err = e.Register(`{"name":"bad","description":"d","inputSchema":{"type":"object","properties":{"s":{"type":"string","pattern":"^(?=a)(a+)+$"}}}}`)
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "TypeError", de.Name)
	assert.Contains(t, de.Message, `tool "bad"`)
	assert.Contains(t, de.Message, "pattern")
	assert.Contains(t, de.Message, "exponential")

	mustRegister(t, e, `{"name":"look","description":"d","inputSchema":{"type":"object","properties":{"pw":{"type":"string","pattern":"^(?=.*\\d).{8,}$"},"list":{"type":"array","items":{"type":"string","pattern":"(?=x)y"}}}}}`)
	require.NoError(t, e.CheckInput("look", `{"pw":"abcdefg1"}`))
	assert.Positive(t, page.calls, "the lookahead ran on the page's RegExp")
	err = e.CheckInput("look", `{"pw":"`+strings.Repeat("a", pattern.MaxBacktrackingInput)+`1"}`)
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "DataError", de.Name)
	var f Failure
	require.NoError(t, json.Unmarshal([]byte(de.Message), &f))
	assert.Contains(t, f.Reason, `tool "look"`)
	assert.Contains(t, f.Reason, "keyword pattern")

	items := make([]string, pattern.MaxBacktrackingWork/1000+2)
	for i := range items {
		items[i] = strings.Repeat("y", 1000)
	}
	list, _ := json.Marshal(items)
	err = e.CheckInput("look", `{"list":`+string(list)+`}`)
	require.ErrorAs(t, err, &de)
	require.NoError(t, json.Unmarshal([]byte(de.Message), &f))
	assert.Contains(t, f.Reason, "in all", "the validation's strings together are bounded too")
	require.NoError(t, e.CheckInput("look", `{"pw":"abcdefg1"}`), "the next validation has its own budget")
}

// BenchmarkCatastrophicPattern times the pattern that stalls a
// backtracking engine (^(a+)+$ on 30 a's and a b: minutes in Chromium's
// RegExp), as the engine runs it, against a valid input of the same size.
func BenchmarkCatastrophicPattern(b *testing.B) {
	e := New(&Options{Origin: testOrigin})
	if _, err := e.Register(`{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"s":{"type":"string","pattern":"^(a+)+$"}}}}`); err != nil {
		b.Fatal(err)
	}
	bad := `{"s":"` + strings.Repeat("a", 30) + `b"}`
	good := `{"s":"` + strings.Repeat("a", 31) + `"}`
	naive := baseline(func() { _ = e.CheckInput("t", good) })
	for b.Loop() {
		if e.CheckInput("t", bad) == nil {
			b.Fatal("valid")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(naive.Nanoseconds()), "valid")
}
