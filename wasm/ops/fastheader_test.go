package ops

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// awkward are strings whose JSON takes escaping: quotes, control
// characters, HTML characters, line separators, non-ASCII and bytes that
// are not UTF-8, such as a surrogate half encoded on its own.
var awkward = []string{
	"", "plain", `"quoted"`, `back\slash`, "tab\there", "nl\ncr\r", "\b\f\v\x00\x01\x1f\x7f",
	"<script>&amp;</script>", "line\u2028para\u2029", "é ü ß 日本 😀", "\xff", "a\xed\xa0\x80b",
	"\xe2\x82", "\xc3", "\xf0\x9f\x98", "ok\xed\xbf\xbfend", "\u00e9\U0001F600", "\ufffd", "\x1b[0m",
}

// fill sets v, and what it holds, to random values, each field left zero
// now and then, so that every field and every omitempty case is seen.
func fill(v reflect.Value, rng *rand.Rand) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(awkward[rng.IntN(len(awkward))])
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 1)
	case reflect.Int:
		v.SetInt(rng.Int64N(2000) - 1000)
	case reflect.Slice:
		switch rng.IntN(3) {
		case 0: // nil
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			s := reflect.MakeSlice(v.Type(), 1+rng.IntN(3), 3)
			for i := range s.Len() {
				fill(s.Index(i), rng)
			}
			v.Set(s)
		}
	case reflect.Pointer:
		if rng.IntN(3) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem(), rng)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && rng.IntN(5) > 0 {
				fill(v.Field(i), rng)
			}
		}
	default:
		panic("fill: no case for " + v.Type().String())
	}
}

// TestOutputReplyMatchesJSON: what the hand-written reply says is what
// json.Marshal's text for the same value says, read back by JSON.parse's
// equal, json.Unmarshal.
func TestOutputReplyMatchesJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 2000 {
		var r OutputReply
		if i > 0 {
			fill(reflect.ValueOf(&r).Elem(), rng)
		}
		want, err := json.Marshal(r)
		require.NoError(t, err)
		got := r.json()
		var w, g any
		require.NoError(t, json.Unmarshal(want, &w))
		require.NoError(t, json.Unmarshal([]byte(got), &g), "reply %d is not JSON: %s", i, got)
		require.Equal(t, w, g, "reply %d: %#v\ngot  %s\nwant %s", i, r, got, want)
	}
}

// headers are Decide and Output headers: as the page writes them, and
// everything else encoding/json has an answer for.
var headers = []string{
	`{}`, `{"name":"t"}`, `{"name":"t","resolve":true}`, `{"name":"t","resolve":false}`,
	`{"call":"AbCd-_12","kind":"returned"}`, `{"kind":"text","call":""}`, `{"call":"ü 😀","kind":"text"}`,
	`{"name":"a\"b"}`, `{"name":"a\u0041"}`, `{"name":"\ud800"}`, `{"name":"tab	in"}`, "{\"name\":\"\xff\"}",
	"{\"name\":\"\xed\xa0\x80\"}", `{"name":"<&>"}`, "{\"name\":\"a\u2028b\"}",
	`{"Name":"t"}`, `{"NAME":"t","Kind":"text"}`, `{"name":"a","name":"b"}`, `{"name":"a","Name":"b"}`,
	`{"name":"t","extra":1}`, `{"name":"t","extra":"x"}`, `{"name":null}`, `{"name":true}`, `{"name":7}`,
	`{"resolve":"true"}`, `{"resolve":null}`, `{"kind":false}`, `{"call":["x"]}`,
	` {"name":"t"}`, `{"name" : "t"}`, `{"name":"t"} `, `{"name":"t"}x`, `{"name":"t",}`, `{,}`, `{"name"}`,
	`{"name":"t"`, `{"name":"t"}}`, `{"name":}`, `{"name":tru}`, `{"name":"t","resolve":truex}`,
	`[]`, `null`, `"x"`, ``, `{`, `}`, `{"`, `{""}`, `{"":"x"}`, `{"":true}`,
	`{"call":"c","kind":"text"}`, `{"kind":"text","call":"c"}`, `{"call":"c","kind":"text","x":"y"}`,
	`{"call":"c","kind":"text"`, `{"call":"c""}`, `{"call":"c",,"kind":"text"}`, `{"call":"c"}{}`,
	`{"call":"c","kind":"text"}` + "\n", `{"call":"c","kind":"te\"xt"}`, `{"name":"t","kind":"text","call":"c"}`,
}

func TestHeaderDecodersMatchJSON(t *testing.T) {
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	for _, h := range headers {
		var wantD DecideRequest
		wantErr := decode(Decide, h, &wantD)
		gotD, err := decodeDecide(Decide, h)
		assert.Equal(t, errText(wantErr), errText(err), "decodeDecide(%q) error", h)
		if wantErr == nil {
			assert.Equal(t, wantD, gotD, "decodeDecide(%q)", h)
		}

		var wantO OutputRequest
		wantErr = decode(Output, h, &wantO)
		gotO, err := decodeOutput(Output, h)
		assert.Equal(t, errText(wantErr), errText(err), "decodeOutput(%q) error", h)
		if wantErr == nil {
			assert.Equal(t, wantO, gotO, "decodeOutput(%q)", h)
		}
	}
}

// TestPlainObjectReadsWhatThePageWrites checks that the headers the page
// sends take the fast path.
func TestPlainObjectReadsWhatThePageWrites(t *testing.T) {
	tests := []struct {
		header string
		keys   []string
		want   []string
	}{
		{`{"name":"small"}`, []string{"name"}, []string{"small"}},
		{`{"name":"日本 😀"}`, []string{"name"}, []string{"日本 😀"}},
		{`{"call":"SVTQB10XwOBiMPjtSVTQB1","kind":"returned"}`, []string{"call", "kind"}, []string{"SVTQB10XwOBiMPjtSVTQB1", "returned"}},
		{`{"call":"","kind":"text"}`, []string{"call", "kind"}, []string{"", "text"}},
	}
	for _, tt := range tests {
		got := make([]string, len(tt.keys))
		require.True(t, plainObject(tt.header, got, tt.keys...), "plainObject(%q)", tt.header)
		assert.Equal(t, tt.want, got)
	}
}
