package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJoins: a withheld value split across consecutive strings of one
// object or array is cut out of each, wherever it falls; strings that
// only hold parts of it apart, or that are not neighbours, keep theirs.
func TestJoins(t *testing.T) {
	const key = "sk_live_9f8e7d6c5"
	long := strings.Repeat("lorem ipsum ", 20)
	tests := []struct {
		name, data, want string
	}{
		{"two members", `{"a":"sk_live_","b":"9f8e7d6c5","c":"ok"}`, `{"a":"","b":"","c":"ok"}`},
		{"three items", `["x sk_li","ve_9f8e","7d6c5 y"]`, `["x ",""," y"]`},
		{"a one-letter item between", `["x sk_li","v","e_9f8e","7d6c5 y"]`, `["x ","",""," y"]`},
		{"after a long text", `{"a":"` + long + `sk_live_","b":"9f8e7d6c5!"}`, `{"a":"` + long + `","b":"!"}`},
		{"not neighbours", `{"a":"sk_live_","b":{"c":"9f8e7d6c5"}}`, ""},
		{"a number between", `{"a":"sk_live_","n":1,"b":"9f8e7d6c5"}`, ""},
		{"parts of another value", `{"a":"sk_live_","b":"0000000000"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEngine(t)
			mustRegister(t, e, `{"name":"mk","description":"d","outputSchema":{"type":"object","properties":{"key":{"type":"string","x-sensitive":true}}}}`)
			mustRegister(t, e, `{"name":"log","description":"d"}`)
			require.Nil(t, e.OutputOf("mk", Outcome{Kind: Returned, Data: `{"key":"` + key + `"}`}).Err)
			res := e.OutputOf("log", Outcome{Kind: Returned, Data: tt.data})
			require.Nil(t, res.Err)
			if tt.want == "" {
				assert.True(t, res.Unchanged, "the view of %s: %s", tt.data, res.Agent)
				return
			}
			var view struct {
				Content []struct{ Text string } `json:"content"`
			}
			require.NoError(t, json.Unmarshal([]byte(res.Agent), &view))
			require.Len(t, view.Content, 2, "the notice and the value: %s", res.Agent)
			assert.Equal(t, tt.want, view.Content[1].Text, "the view of %s", tt.data)
		})
	}
}

func TestOrdinaryRecordsPassTheFastPath(t *testing.T) {
	// An ssn beside a date of birth, in every record, is two strings in
	// base64's alphabet in a row; what they decode to, joined, names no
	// secret_reference, so the output passes as it came.
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"p","description":"d"}`)
	data := records(64 << 10)
	res := e.OutputOf("p", Outcome{Kind: Returned, Data: data})
	require.Nil(t, res.Err)
	assert.True(t, res.Unchanged, "records of a tool that declares nothing, in a fresh session, pass unread")
	assert.Equal(t, data, res.Agent)

	// The same records with a reference's name in base64 cut into two
	// lines are read by the view, which withholds the lines.
	lines := `,"l1":"c2VjcmV0X3Jl","l2":"ZmVyZW5jZQ=="}]}`
	cut := strings.TrimSuffix(data, "}]}") + lines
	require.True(t, json.Valid([]byte(cut)))
	res = e.OutputOf("p", Outcome{Kind: Returned, Data: cut})
	require.Nil(t, res.Err)
	assert.False(t, res.Unchanged, "an encoding cut into lines that names secret_reference")
	assert.NotContains(t, res.Agent, "c2VjcmV0X3Jl")
}

func TestEncodingLinesEachAWithheldValueGoWholeUndecoded(t *testing.T) {
	var set scrubSet
	for _, v := range []string{"123-45-6789", "1990-04-12", "sk_live_9f8e7d6c5b4a"} {
		set.addString(v)
	}
	s := newScrubber(&set)
	tests := []struct {
		name  string
		lines []string
		whole bool
	}{
		{"an ssn beside a date of birth", []string{"123-45-6789", "1990-04-12"}, true},
		{"a value in another case", []string{"SK_LIVE_9F8E7D6C5B4A", "123-45-6789"}, true},
		{"one line with more than the value", []string{"123-45-6789", "1990-04-12x"}, false},
		{"one line not withheld", []string{"123-45-6789", "QUJDRA"}, false},
		{"none withheld", []string{"c2VjcmV0X3Jl", "ZmVyZW5jZQ=="}, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.whole, s.eachRemovedWhole(tt.lines), tt.name)
	}

	// Such lines, echoed in a later output, go whole; the strings around
	// them are kept.
	e := newTestEngine(t)
	mustRegister(t, e, `{"name":"mk","description":"d","outputSchema":{"type":"object","properties":{"ssn":{"type":"string","x-sensitive":true},"dob":{"type":"string","x-sensitive":true}}}}`)
	mustRegister(t, e, `{"name":"log","description":"d"}`)
	require.Nil(t, e.OutputOf("mk", Outcome{Kind: Returned, Data: `{"ssn":"123-45-6789","dob":"1990-04-12"}`}).Err)
	res := e.OutputOf("log", Outcome{Kind: Returned, Data: `{"name":"Ann","ssn":"123-45-6789","dob":"1990-04-12","note":"seen"}`})
	require.Nil(t, res.Err)
	assert.NotContains(t, res.Agent, "123-45-6789")
	assert.NotContains(t, res.Agent, "1990-04-12")
	assert.Contains(t, res.Agent, `\"name\":\"Ann\"`)
	assert.Contains(t, res.Agent, `\"note\":\"seen\"`)
}
