// Package bound scales the time bounds of the test suites by one factor,
// so that a suite that holds on a quiet machine holds on a slow or busy
// one too.
//
// A bound is how long a test waits for work that normally takes a
// fraction of it: a browser's start, a page's load, one case's call. It is
// never how long the work must take: a budget belongs in a benchmark. A
// test writes each bound as it would on a quiet machine of two cores and
// wraps it in [Of], which multiplies it by two factors: the environment
// variable VEIL_TEST_TIMEOUT_SCALE (1 when unset), for a machine that is
// slow, and the machine's load when the bound is taken ([Load]), for one
// that is busy. The load is read at each bound, not once at the start: a
// measure taken at the start says nothing of the load that comes later.
// A bound only limits a wait that ends as soon as the work is done, so a
// larger one costs a passing test nothing.
//
// What a test waits for on purpose (a key's time to live, a debounce, the
// settling of a page's timers) is behaviour under test, not a bound, and
// does not scale.
package bound

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"time"
)

// EnvScale names the environment variable that holds the factor: a
// positive number, 1 when unset or empty.
const EnvScale = "VEIL_TEST_TIMEOUT_SCALE"

// Factor returns the factor that [Of] multiplies bounds by, or an error
// naming the variable and its value when that is not a positive number. A
// suite's TestMain calls it first, so that a bad value stops the suite with
// that error rather than a panic in the first test.
func Factor() (float64, error) { return factor() }

var factor = sync.OnceValues(func() (float64, error) {
	return parse(os.Getenv(EnvScale))
})

// parse reads the factor from the variable's value.
func parse(v string) (float64, error) {
	if v == "" {
		return 1, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("%s=%q: want a positive number, such as 2 or 1.5", EnvScale, v)
	}
	return f, nil
}

// Of returns the bound d multiplied by the variable's factor and by the
// machine's [Load] now. It panics when the variable does not hold a
// positive number; [Factor] reports that as an error.
func Of(d time.Duration) time.Duration {
	f, err := factor()
	if err != nil {
		panic(err)
	}
	return scale(d, f*Load())
}

// scale multiplies d by f, rounded to the millisecond.
func scale(d time.Duration, f float64) time.Duration {
	return time.Duration(float64(d) * f).Round(time.Millisecond)
}

// Millis returns [Of](d) in whole milliseconds, for a bound that a page's
// script keeps.
func Millis(d time.Duration) int64 { return Of(d).Milliseconds() }
