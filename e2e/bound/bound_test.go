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

func TestParseLoadavgReadsTheOneMinuteAverage(t *testing.T) {
	for _, tc := range []struct {
		text string
		want float64
		ok   bool
	}{
		{"0.52 0.58 0.59 1/467 12345\n", 0.52, true},
		{"14.48 9.75 10.70 23/900 1", 14.48, true},
		{"0.00 0.00 0.00 1/1 1", 0, true},
		{"", 0, false},
		{"busy 1 1 1/1 1", 0, false},
		{"-1 0 0 1/1 1", 0, false},
		{"NaN 0 0 1/1 1", 0, false},
	} {
		got, ok := parseLoadavg(tc.text)
		assert.Equal(t, tc.ok, ok, "parseLoadavg(%q) ok", tc.text)
		assert.Equal(t, tc.want, got, "parseLoadavg(%q)", tc.text)
	}
}

func TestLoadFactorIsLoadPerCPUBetweenOneAndMax(t *testing.T) {
	for _, tc := range []struct {
		avg  float64
		cpus int
		want float64
	}{
		{0.5, 2, 1},
		{2, 2, 1},
		{5, 2, 2.5},
		{19, 2, MaxLoad},
		{3, 0, 3},
		{100, 64, 1.5625},
	} {
		assert.Equal(t, tc.want, loadFactor(tc.avg, tc.cpus), "loadFactor(%v, %d)", tc.avg, tc.cpus)
	}
}

func TestOfScalesByTheLoadNow(t *testing.T) {
	l := Load()
	assert.GreaterOrEqual(t, l, 1.0, "Load")
	assert.LessOrEqual(t, l, float64(MaxLoad), "Load")
	f, err := Factor()
	require.NoError(t, err)
	got := Of(10 * time.Second)
	assert.GreaterOrEqual(t, got, scale(10*time.Second, f), "Of never shortens a bound")
	assert.LessOrEqual(t, got, scale(10*time.Second, f*MaxLoad), "Of grows a bound by at most MaxLoad")
}
