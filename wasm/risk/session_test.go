package risk

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUntrusted(t *testing.T) {
	tests := []struct {
		name, annotations string
		result            ResultAnnotations
		want              []string // keys
	}{
		{"no hints: MCP's openWorldHint default does not count", `{}`, ResultAnnotations{}, nil},
		{"untrustedContentHint", `{"untrustedContentHint":true}`, ResultAnnotations{}, []string{"untrustedContentHint"}},
		{"untrustedContentHint false", `{"untrustedContentHint":false}`, ResultAnnotations{}, nil},
		{"openWorldHint", `{"openWorldHint":true}`, ResultAnnotations{}, []string{"openWorldHint"}},
		{"openWorldHint false", `{"openWorldHint":false}`, ResultAnnotations{}, nil},
		{"source untrustedPublic", `{"returnMetadata":{"source":"untrustedPublic","sensitivity":"none"}}`, ResultAnnotations{}, []string{"returnMetadata.source"}},
		{"source may be untrustedPublic", `{"returnMetadata":{"source":["internal","untrustedPublic"],"sensitivity":"none"}}`, ResultAnnotations{}, []string{"returnMetadata.source"}},
		{"source trustedPublic", `{"returnMetadata":{"source":"trustedPublic","sensitivity":"none"}}`, ResultAnnotations{}, nil},
		{"result openWorldHint", `{"openWorldHint":false}`, ResultAnnotations{OpenWorld: true}, []string{"_meta.annotations.openWorldHint"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range Untrusted(mustParse(t, tt.annotations), tt.result) {
				got = append(got, f.Key)
			}
			assert.Equal(t, tt.want, got, "Untrusted(%s, %+v)", tt.annotations, tt.result)
		})
	}
}

func TestReadResultAnnotations(t *testing.T) {
	tests := []struct {
		raw  string
		want ResultAnnotations
	}{
		{`{"openWorldHint":true,"maliciousActivityHint":true,"attribution":["https://a.example","b"]}`,
			ResultAnnotations{OpenWorld: true, MaliciousActivity: true, Attribution: []string{"https://a.example", "b"}}},
		{`{"openWorldHint":"true","maliciousActivityHint":1,"attribution":"x"}`, ResultAnnotations{}},
		{`{"attribution":["a",2,"b"]}`, ResultAnnotations{Attribution: []string{"a", "b"}}},
		{`[]`, ResultAnnotations{}},
		{`null`, ResultAnnotations{}},
	}
	for _, tt := range tests {
		var v any
		require.NoError(t, json.Unmarshal([]byte(tt.raw), &v))
		assert.Equal(t, tt.want, ReadResultAnnotations(v), "ReadResultAnnotations(%s)", tt.raw)
	}
}

// TestPropagation follows a session through SEP-1913's propagation rules:
// untrusted content is a sticky union, attribution accumulates, private
// data classes and malicious flags are remembered.
func TestPropagation(t *testing.T) {
	p, err := NewPolicy(nil)
	require.NoError(t, err)
	var s State
	steps := []struct {
		tool, annotations string
		meta              Meta
		result            ResultAnnotations
		changed           bool
		check             func(t *testing.T, s State)
	}{
		{"plain", `{}`, Meta{}, ResultAnnotations{}, false, func(t *testing.T, s State) {
			assert.Equal(t, State{}, s, "a tool with no hints changes nothing")
		}},
		{"list_inbox", `{"returnMetadata":{"source":"untrustedPublic","sensitivity":["pii","user"]}}`, Meta{},
			ResultAnnotations{Attribution: []string{"mail://inbox"}}, true, func(t *testing.T, s State) {
				assert.True(t, s.UntrustedContent)
				assert.Equal(t, []string{"list_inbox"}, s.UntrustedFrom)
				assert.Equal(t, []string{"pii"}, s.PrivateData)
				assert.Equal(t, []string{"mail://inbox"}, s.Attribution)
			}},
		{"closed", `{"openWorldHint":false,"attribution":["mail://inbox","mcp://drafts"]}`, Meta{}, ResultAnnotations{}, true, func(t *testing.T, s State) {
			assert.True(t, s.UntrustedContent, "untrusted content stays seen")
			assert.Equal(t, []string{"mail://inbox", "mcp://drafts"}, s.Attribution, "attribution is a union")
		}},
		{"read_report", `{}`, Meta{ResultSensitivity: "confidential"}, ResultAnnotations{}, true, func(t *testing.T, s State) {
			assert.Equal(t, []string{"pii", "confidential"}, s.PrivateData)
			assert.Equal(t, []string{"list_inbox", "read_report"}, s.PrivateFrom)
		}},
		{"make_key", `{"returnMetadata":{"source":"system","sensitivity":"credentials"}}`, Meta{}, ResultAnnotations{}, false, func(t *testing.T, s State) {
			assert.NotContains(t, s.PrivateData, "credentials", "withheld credentials never reach the agent")
		}},
		{"fetch_page", `{}`, Meta{}, ResultAnnotations{OpenWorld: true, MaliciousActivity: true}, true, func(t *testing.T, s State) {
			assert.True(t, s.MaliciousActivity)
			assert.Equal(t, []string{"fetch_page"}, s.MaliciousFrom)
			assert.Equal(t, []string{"list_inbox", "fetch_page"}, s.UntrustedFrom)
		}},
		{"fetch_page", `{}`, Meta{}, ResultAnnotations{OpenWorld: true, MaliciousActivity: true}, false, nil},
	}
	version := 0
	for i, st := range steps {
		a := mustParse(t, st.annotations)
		a.Meta = st.meta
		changed := s.Observe(p, st.tool, a, st.result)
		assert.Equal(t, st.changed, changed, "step %d (%s): Observe changed", i, st.tool)
		if changed {
			assert.Greater(t, s.Version, version, "step %d: version", i)
		} else {
			assert.Equal(t, version, s.Version, "step %d: version", i)
		}
		version = s.Version
		if st.check != nil {
			t.Run(fmt.Sprintf("%d %s", i, st.tool), func(t *testing.T) { st.check(t, s) })
		}
	}

	req := s.Request()
	assert.Equal(t, RequestAnnotations{
		OpenWorldHint:         true,
		Attribution:           []string{"mail://inbox", "mcp://drafts"},
		MaliciousActivityHint: true,
		PrivateData:           []string{"pii", "confidential"},
	}, req)
	req.Attribution[0] = "changed"
	assert.Equal(t, "mail://inbox", s.Attribution[0], "Request returns copies")
}

// TestAttributionBound: what a session keeps of attribution is bounded in
// count and bytes, per result and in all; what is past a bound is counted,
// and nothing kept is evicted.
func TestAttributionBound(t *testing.T) {
	p, _ := NewPolicy(nil)
	var s State
	var many []string
	for i := range MaxAttribution + 3 {
		many = append(many, fmt.Sprint("src-", i))
	}
	assert.True(t, s.Observe(p, "t", &Annotations{}, ResultAnnotations{Attribution: many}))
	assert.Len(t, s.Attribution, MaxSourcesPerResult, "one result adds at most MaxSourcesPerResult")
	assert.Equal(t, len(many)-MaxSourcesPerResult, s.AttributionDropped)

	// A page's own declarations are not limited per result.
	s = State{}
	s.Observe(p, "t", &Annotations{Attribution: many}, ResultAnnotations{})
	assert.Len(t, s.Attribution, MaxAttribution)
	assert.Equal(t, 3, s.AttributionDropped)

	// A 50 MB source, and sources past the total bytes, are not kept.
	s = State{}
	huge := strings.Repeat("x", 50<<20)
	s.Observe(p, "t", &Annotations{}, ResultAnnotations{Attribution: []string{huge, "https://kept.example/"}})
	assert.Equal(t, []string{"https://kept.example/"}, s.Attribution)
	assert.Equal(t, 1, s.AttributionDropped)
	s = State{}
	for i := range 200 {
		s.Observe(p, "t", &Annotations{}, ResultAnnotations{Attribution: []string{fmt.Sprintf("%04d", i) + strings.Repeat("y", MaxSourceBytes-4)}})
	}
	size := 0
	for _, a := range s.Attribution {
		size += len(a)
	}
	assert.LessOrEqual(t, size, MaxAttributionBytes)
	assert.Equal(t, MaxAttributionBytes/MaxSourceBytes, len(s.Attribution))
	assert.True(t, strings.HasPrefix(s.Attribution[0], "0000"), "the first sources stay")

	// A taint never goes, whatever the bounds drop.
	s = State{}
	s.Observe(p, "web", &Annotations{UntrustedContent: ptr(true)}, ResultAnnotations{Attribution: many})
	assert.True(t, s.UntrustedContent)
}

func TestStateJSON(t *testing.T) {
	b, err := json.Marshal(State{}.Clone())
	require.NoError(t, err)
	assert.JSONEq(t, `{"untrustedContent":false,"untrustedFrom":[],"privateData":[],"privateFrom":[],
		"attribution":[],"attributionDropped":0,"maliciousActivity":false,"maliciousFrom":[],"version":0}`, string(b))
	b, err = json.Marshal(State{}.Request())
	require.NoError(t, err)
	assert.JSONEq(t, `{"openWorldHint":false,"attribution":[],"maliciousActivityHint":false,"privateData":[]}`, string(b))
}

func TestLog(t *testing.T) {
	l := Log{Size: 3}
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5 {
		l.Add(Entry{Call: fmt.Sprint("c", i), Tool: "t", Time: now, Outcome: "confirm", Facts: []Fact{}})
	}
	got := l.Entries()
	require.Len(t, got, 3, "the log keeps Size entries")
	assert.Equal(t, "c2", got[0].Call, "oldest first")
	assert.Equal(t, "c4", got[2].Call)

	e, ok := l.Settle("c3", "approved")
	require.True(t, ok)
	assert.Equal(t, "approved", e.Outcome)
	assert.Equal(t, "approved", l.Entries()[1].Outcome)
	_, ok = l.Settle("c0", "declined")
	assert.False(t, ok, "Settle of an entry no longer kept")

	got[0].Outcome = "changed"
	assert.Equal(t, "confirm", l.Entries()[0].Outcome, "Entries returns a copy")

	var d Log
	for i := range DefaultLogSize + 1 {
		d.Add(Entry{Call: fmt.Sprint(i)})
	}
	assert.Len(t, d.Entries(), DefaultLogSize)
}
