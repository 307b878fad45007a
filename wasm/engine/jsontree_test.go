package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCountValues(t *testing.T) {
	tests := []struct {
		name, src string
		want      int
	}{
		{"scalar", `1`, 1},
		{"array", `[1,2,3]`, 4},
		{"object", `{"a":1,"b":[true,null]}`, 5},
		{"structure in strings", `["a,b","[{","\"","\\",","]`, 6},
		{"escaped quote before a comma", `{"a\",":"\\\\"}`, 2},
		{"empty containers count one more", `[[],{}]`, 5},
		{"unterminated string", `["a,`, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, countValues(tc.src), "countValues(%s)", tc.src)
			if tr, err := parseTree(tc.src); err == nil {
				require.GreaterOrEqual(t, countValues(tc.src), len(tr.nodes), "countValues(%s) against the tree", tc.src)
				assert.Equal(t, countValues(tc.src), cap(tr.nodes), "parseTree(%s) made its nodes once", tc.src)
			}
		})
	}
}
