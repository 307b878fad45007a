//go:build js && wasm

package main

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

func TestAppendStringMatchesJSON(t *testing.T) {
	all := append([]string{}, awkward...)
	for c := range 256 {
		all = append(all, string([]byte{byte(c)}), "x"+string([]byte{byte(c)})+"y")
	}
	for r := rune(0); r < 0x3000; r += 7 {
		all = append(all, string(r))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		all = append(all, string(b))
	}
	for _, s := range all {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(appendString(nil, "", s)), "appendString(%q)", s)
	}
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

func TestOutputReplyMatchesJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 2000 {
		var r outputReply
		if i > 0 {
			fill(reflect.ValueOf(&r).Elem(), rng)
		}
		want, err := json.Marshal(r)
		require.NoError(t, err)
		require.Equal(t, string(want), r.json(), "reply %d: %#v", i, r)
	}
}

// headers are "decide" and "output" headers: as the page writes them, and
// everything else encoding/json has an answer for.
var headers = []string{
	`{}`, `{"name":"t"}`, `{"name":"t","resolveFailed":true}`, `{"name":"t","resolveFailed":false}`,
	`{"name":"t","kind":"returned","call":"AbCd-_12"}`, `{"kind":"text","name":"ü 😀","call":""}`,
	`{"name":"t","resolved":{"readOnlyHint":true}}`, `{"name":"t","resolved":null}`, `{"name":"t","resolved":"x"}`,
	`{"name":"a\"b"}`, `{"name":"a\u0041"}`, `{"name":"\ud800"}`, `{"name":"tab	in"}`, "{\"name\":\"\xff\"}",
	"{\"name\":\"\xed\xa0\x80\"}", `{"name":"<&>"}`, "{\"name\":\"a\u2028b\"}",
	`{"Name":"t"}`, `{"NAME":"t","Kind":"text"}`, `{"name":"a","name":"b"}`, `{"name":"a","Name":"b"}`,
	`{"name":"t","extra":1}`, `{"name":"t","extra":"x"}`, `{"name":null}`, `{"name":true}`, `{"name":7}`,
	`{"resolveFailed":"true"}`, `{"resolveFailed":null}`, `{"kind":false}`, `{"call":["x"]}`,
	` {"name":"t"}`, `{"name" : "t"}`, `{"name":"t"} `, `{"name":"t"}x`, `{"name":"t",}`, `{,}`, `{"name"}`,
	`{"name":"t"`, `{"name":"t"}}`, `{"name":}`, `{"name":tru}`, `{"name":"t","resolveFailed":truex}`,
	`[]`, `null`, `"x"`, ``, `{`, `}`, `{"`, `{""}`, `{"":"x"}`, `{"":true}`,
	`{"name":"t","kind":"text"}`, `{"kind":"text","name":"t","call":"c"}`, `{"name":"t","kind":"text","call":"c","x":"y"}`,
	`{"name":"t","kind":"text","call":"c"`, `{"name":"t""}`, `{"name":"t",,"kind":"text"}`, `{"name":"t"}{}`,
	`{"name":"t","kind":"text","call":"c"}` + "\n", `{"name":"t","kind":"te\"xt","call":"c"}`,
}

func TestHeaderDecodersMatchJSON(t *testing.T) {
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	for _, h := range headers {
		var wantD decideHeader
		wantErr := decode(h, &wantD)
		gotD, err := decodeDecide(h)
		assert.Equal(t, errText(wantErr), errText(err), "decodeDecide(%q) error", h)
		if wantErr == nil {
			assert.Equal(t, wantD, gotD, "decodeDecide(%q)", h)
		}

		var wantO outputHeader
		wantErr = decode(h, &wantO)
		gotO, err := decodeOutput(h)
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
		{`{"name":"small","kind":"returned","call":"SVTQB10XwOBiMPjt"}`, []string{"name", "kind", "call"}, []string{"small", "returned", "SVTQB10XwOBiMPjt"}},
		{`{"name":"","kind":"text","call":""}`, []string{"name", "kind", "call"}, []string{"", "text", ""}},
	}
	for _, tt := range tests {
		got := make([]string, len(tt.keys))
		require.True(t, plainObject(tt.header, got, tt.keys...), "plainObject(%q)", tt.header)
		assert.Equal(t, tt.want, got)
	}
}
