package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIndexFold(t *testing.T) {
	many := strings.Repeat("vvv", 1000)
	tests := []struct {
		s, word string
		want    int
	}{
		{"", "veil", -1},
		{"vei", "veil", -1},
		{"veil", "veil", 0},
		{"VEIL", "veil", 0},
		{"a.VeIl", "veil", 2},
		{"vveil", "veil", 1},
		{"VvEiL", "veil", 1},
		{"vViveil", "veil", 3},
		{"veiveiveil", "veil", 6},
		{"Vei vEi veI", "veil", -1},
		{many + "Veil", "veil", len(many)},
		{many + "vei", "veil", -1},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, indexFold(tt.s, tt.word), "indexFold(%.20q, %q)", tt.s, tt.word)
	}
}

func TestIndexReference(t *testing.T) {
	many := strings.Repeat("follow-up ", 1000)
	tests := []struct {
		text string
		from int
		want int
	}{
		{"", 0, -1},
		{"referenc", 0, -1},
		{"reference", 0, 0},
		{"secret_REFERENCE", 0, 7},
		{"refreference", 0, 3},
		{"reFerence", 0, 0},
		{"reference reference", 1, 10},
		{"ReFeRf reference", 0, 7},
		{many + "Reference", 0, len(many)},
		{many + "F", 0, -1},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, indexReference(tt.text, tt.from), "indexReference(%.20q, %d)", tt.text, tt.from)
	}
}
