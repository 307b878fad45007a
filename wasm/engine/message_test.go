package engine

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6/message"
	"github.com/stretchr/testify/assert"
	"golang.org/x/text/language"
	xmessage "golang.org/x/text/message"
)

// TestMessagePrinterMatchesXText holds the printer the engine words schema
// errors with (the jsonschema fork's package message, without x/text) to
// the text of x/text's English printer, which upstream jsonschema uses.
func TestMessagePrinterMatchesXText(t *testing.T) {
	want := xmessage.NewPrinter(language.English)
	got := message.NewPrinter()
	tests := []struct {
		format string
		args   []any
	}{
		{"minLength: got %d, want %d", []any{3, 1000}},
		{"maxItems: got %d, want %d", []any{1234567, -9876543}},
		{"%d %d %d %d", []any{int64(math.MinInt64), uint64(math.MaxUint64), int8(-128), uint16(65535)}},
		{"minimum: got %v, want %v", []any{12345.678, -1234.5}},
		{"multipleOf: got %v, want %v", []any{1e21, 1.5e-7}},
		{"%v %v %v %v", []any{math.Inf(1), math.Inf(-1), math.NaN(), 0.0}},
		{"%v %v %v", []any{1e6, 123456789.123, 1.7976931348623157e308}},
		{"%v %v %v", []any{5e-324, -2.5e-5, 999999.0}},
		{"%v %v", []any{float32(1234.5), float32(3e20)}},
		{"max %d items required to match contains schema, but matched %d items at %v", []any{2, 3, []int{0, 1000, 2}}},
		{"items at %d and %d are equal", []any{1000, 20000}},
		{"%s is not valid %s: %v", []any{"'x'", "email", errors.New("missing @ at 1000")}},
		{"%s does not match pattern %s", []any{"'1234'", "'^a$'"}},
		{"properties %s required, if %s exists", []any{"'a', 'b'", "'c'"}},
		{"value must be one of %s", []any{`"a", 1000`}},
		{"both %s and %s resolve to %q causing reference cycle", []any{"a", "b", "c"}},
		{"invalid jsonType %T", []any{1.5}},
		{"%v %v", []any{[]string{"a", "b"}, [2]float64{1234.5, 2}}},
		{"%x %% %d %q %d", []any{4096, 1000, "x", 2000}},
	}
	for _, tt := range tests {
		assert.Equal(t, want.Sprintf(tt.format, tt.args...), got.Sprintf(tt.format, tt.args...), "Sprintf(%q, %v)", tt.format, tt.args)
	}

	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		i := r.Int64() >> r.IntN(63)
		if r.IntN(2) == 0 {
			i = -i
		}
		f := math.Float64frombits(r.Uint64())
		if r.IntN(2) == 0 {
			f = float64(i) / math.Pow(10, float64(r.IntN(12)))
		}
		assert.Equal(t, want.Sprintf("%d %v %v", i, f, int(i)), got.Sprintf("%d %v %v", i, f, int(i)), "Sprintf of %d and %v", i, f)
	}
}
