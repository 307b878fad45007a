package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWithinSpans(t *testing.T) {
	spans := [][2]int{{2, 5}, {8, 12}}
	tests := []struct {
		a, b int
		want bool
	}{
		{2, 5, true}, {3, 4, true}, {8, 12, true}, {9, 12, true},
		{0, 1, false}, {1, 3, false}, {4, 6, false}, {5, 8, false}, {7, 9, false}, {11, 13, false}, {12, 14, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, within(spans, tt.a, tt.b), "within(%v, %d, %d)", spans, tt.a, tt.b)
	}
	assert.False(t, within(nil, 0, 1), "within no spans")
}
