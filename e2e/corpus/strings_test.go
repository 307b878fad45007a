package corpus

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStrings(t *testing.T) {
	var v any
	require.NoError(t, json.Unmarshal([]byte(`{"a":["x",1,{"b":"y","c":null}],"d":"{\"e\":\"z\"}","f":true}`), &v))
	var names, values []string
	for s, name := range Strings(v) {
		if name {
			names = append(names, s)
		} else {
			values = append(values, s)
		}
	}
	slices.Sort(names)
	slices.Sort(values)
	assert.Equal(t, []string{"a", "b", "c", "d", "f"}, names, "member names")
	assert.Equal(t, []string{"x", "y", `{"e":"z"}`}, values, "string values: JSON text is not walked into")

	n := 0
	for range Strings(v) {
		n++
		if n == 2 {
			break
		}
	}
	assert.Equal(t, 2, n, "a loop that breaks stops the walk")
	for range Strings(json.Number("1")) {
		t.Error("a value that is not a string, array or object yields nothing")
	}
}

func TestOutsideMarkers(t *testing.T) {
	var v any
	require.NoError(t, json.Unmarshal([]byte(`{"content":[{"type":"text","text":"notice"},{"type":"text","text":"<m>\nfrom the tool\n</m>"},{"type":"text","text":"<m>\nhalf"}],"<m>\nname\n</m>":"x"}`), &v))
	got := OutsideMarkers(v, "m")
	slices.Sort(got)
	assert.Equal(t, []string{"<m>\nhalf", "<m>\nname\n</m>", "content", "notice", "text", "text", "text", "text", "text", "text", "type", "type", "type", "x"}, got)
}
