package e2e

import (
	"os"
	"testing"
)

// envFull names the environment variable that runs the suite's generated
// matrices in full: set to 1 (make conformance does), every combination
// of their factors has a test; unset, a test that generates one runs a
// subset chosen the same way on every run, which still holds each value
// of each factor and each pair of values of two factors (docs/testing.md
// lists what is cut and why).
const envFull = "VEIL_TEST_FULL"

// fullMatrix says whether the generated matrices run in full.
func fullMatrix() bool { return os.Getenv(envFull) == "1" }

// logSubset says, in the test's log, how many of a matrix's combinations
// run, so that a cut is never silent.
func logSubset(t *testing.T, ran, all int) {
	t.Helper()
	if ran < all {
		t.Logf("%d of the %d combinations, every pair of values among them; %s=1 (make conformance) runs them all", ran, all, envFull)
	}
}
