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
// value), and one of a member the request lacks is refused as such.
func TestShapes(t *testing.T) {
	var listed []string
	for _, sh := range Shapes {
		listed = append(listed, sh.Op)
	}
	require.Equal(t, All, listed, "Shapes' ops")
	for _, sh := range Shapes {
		rt := reflect.TypeOf(sh.Request)
		if rt == nil || rt.Kind() != reflect.Struct {
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
