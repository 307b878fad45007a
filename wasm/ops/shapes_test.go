package ops

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShapes holds Shapes to the ops: one shape per op, in All's order,
// and each request's members the ones its op's header is read with: a
// header of any one member is read (whatever the op then makes of its
// value), and one of a member the request lacks is refused as such. The
// hand-written readers (decodeDecide, decodeOutput) are held to their
// request types this way.
func TestShapes(t *testing.T) {
	var listed []string
	for _, sh := range Shapes {
		listed = append(listed, sh.Op)
	}
	require.Equal(t, All, listed, "Shapes' ops")
	for _, sh := range Shapes {
		rt := sh.Request
		if rt.Kind() != reflect.Struct || rt.NumField() == 0 {
			continue
		}
		t.Run(sh.Op, func(t *testing.T) {
			handle := func(header string) string {
				s := newServer(t)
				h, _ := s.Handle(sh.Op, header, "")
				return h
			}
			names := slices.Sorted(func(yield func(string) bool) {
				for n := range memberNames(rt) {
					if !yield(n) {
						return
					}
				}
			})
			require.NotEmpty(t, names)
			for _, name := range names {
				f := fieldNamed(rt, name)
				zero, err := json.Marshal(reflect.Zero(f.Type).Interface())
				require.NoError(t, err)
				h := handle(`{"` + name + `":` + string(zero) + `}`)
				assert.NotContains(t, h, "unknown field", "%s header with only %q: %s", sh.Op, name, h)
			}
			h := handle(`{"notAMember":0}`)
			assert.Contains(t, h, `unknown field \"notAMember\"`, "%s header with a member the request lacks", sh.Op)
		})
	}
}

// fieldNamed returns the field of struct type t whose JSON name is name.
func fieldNamed(t reflect.Type, name string) reflect.StructField {
	for i := range t.NumField() {
		f := t.Field(i)
		n, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if n == "" {
			n = f.Name
		}
		if n == name {
			return f
		}
	}
	panic("no field " + name)
}

// TestReplies holds each op's reply header to the reply type Shapes
// declares: every op is sent as the page sends it, and what it answers
// is read into that type with no member it lacks, holding every member
// encoding/json always writes of it.
func TestReplies(t *testing.T) {
	s := NewServer(testHost())
	got := map[string]string{}
	send := func(op, header, body string) string {
		t.Helper()
		h, _ := s.Handle(op, header, body)
		require.Empty(t, errorName(t, h), "%s %s: %s", op, header, h)
		got[op] = h
		return h
	}
	member := func(h, name string) string {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(h), &m))
		var v string
		require.NoError(t, json.Unmarshal(m[name], &v), "%s of %s", name, h)
		return v
	}
	send(Init, `{"origin":"https://shop.example","baseURL":"https://shop.example/app/"}`, "")
	send(Register, `{"registration":1}`, `{"name":"keys","description":"d","annotations":{"shiny":true},"outputSchema":{"type":"object","properties":{"key":{"type":"string","x-sensitive":true}}}}`)
	send(Register, `{"registration":2,"resolve":true}`, `{"name":"triage","description":"d","annotations":{"readOnlyHint":true}}`)
	call := member(send(Decide, `{"name":"keys"}`, `{}`), "call")
	send(Output, `{"call":"`+call+`","kind":"returned"}`, `{"key":"sk_live_0123456789abcdef"}`)
	open := member(send(Decide, `{"name":"triage"}`, `{}`), "call")
	send(Resolve, `{"call":"`+open+`","resolved":{"openWorldHint":true}}`, "")
	send(Register, `{"registration":3}`, `{"name":"wire","description":"d","annotations":{"consequentialHint":true}}`)
	asked := member(send(Decide, `{"name":"wire"}`, `{}`), "call")
	send(Settle, `{"call":"`+asked+`","approved":false}`, "")
	send(Configure, `{"maxCalls":5}`, "")
	send(Decisions, "", "")
	var items ItemsReply
	require.NoError(t, json.Unmarshal([]byte(send(Items, "", "")), &items))
	require.NotEmpty(t, items.Items, "held items")
	send(Reveal, `{"handle":"`+items.Items[0].Handle+`"}`, "")
	send(Forget, `{"handle":"`+items.Items[0].Handle+`"}`, "")
	send(Sweep, "", "")
	send(Stats, "", "")
	send(Scrub, `{"tool":"keys"}`, `["typed by the user"]`)
	send(Foreign, `{"names":[]}`, "")
	send(Withheld, "", `["sk_live_0123456789abcdef","Portugal"]`)
	send(Unregister, `{"name":"keys","registration":1}`, "")
	send(Exit, "", "")
	for _, sh := range Shapes {
		t.Run(sh.Op, func(t *testing.T) {
			h, ok := got[sh.Op]
			require.True(t, ok, "the test sends %s", sh.Op)
			d := json.NewDecoder(strings.NewReader(h))
			d.DisallowUnknownFields()
			require.NoError(t, d.Decode(reflect.New(sh.Reply).Interface()), "%s reply %s as %v", sh.Op, h, sh.Reply)
			var m map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(h), &m))
			for name := range always(sh.Reply) {
				assert.Contains(t, m, name, "%s reply %s", sh.Op, h)
			}
		})
	}
}

// always lists the members encoding/json writes of any value of t.
func always(t reflect.Type) map[string]bool {
	b, err := json.Marshal(reflect.Zero(t).Interface())
	if err != nil {
		panic(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	names := map[string]bool{}
	for k := range m {
		names[k] = true
	}
	return names
}
