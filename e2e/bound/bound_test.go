package bound

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTakesPositiveNumbers(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  float64
	}{
		{"", 1},
		{"1", 1},
		{"2", 2},
		{"1.5", 1.5},
		{"0.5", 0.5},
	} {
		t.Run(tc.value, func(t *testing.T) {
			got, err := parse(tc.value)
			require.NoError(t, err, "parse(%q)", tc.value)
			assert.Equal(t, tc.want, got, "parse(%q)", tc.value)
		})
	}
}

func TestParseRefusesWhatIsNotAPositiveNumber(t *testing.T) {
	for _, value := range []string{"0", "-1", "two", "NaN", "Inf", "+Inf", "1x", " 2"} {
		t.Run(value, func(t *testing.T) {
			_, err := parse(value)
			require.Error(t, err, "parse(%q)", value)
			assert.Contains(t, err.Error(), EnvScale, "the error names the variable")
			assert.Contains(t, err.Error(), `"`+value+`"`, "the error quotes the value")
		})
	}
}

func TestScaleMultipliesAndRoundsToTheMillisecond(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		f    float64
		want time.Duration
	}{
		{30 * time.Second, 1, 30 * time.Second},
		{30 * time.Second, 2, time.Minute},
		{5 * time.Second, 1.5, 7500 * time.Millisecond},
		{time.Second, 1.0 / 3, 333 * time.Millisecond},
	} {
		assert.Equal(t, tc.want, scale(tc.d, tc.f), "scale(%v, %v)", tc.d, tc.f)
	}
}
