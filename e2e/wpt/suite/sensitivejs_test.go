package suite

import (
	"os/exec"
	"testing"
)

// TestSensitiveJS runs the Node tests of the suite's helper,
// webmcp/sensitive/resources/sensitive.js: what it reads an output as.
// It skips when Node is not installed.
func TestSensitiveJS(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	out, err := exec.Command(node, "--test", "testdata/readings.test.mjs").CombinedOutput()
	if err != nil {
		t.Fatalf("node --test testdata/readings.test.mjs: %v\n%s", err, out)
	}
}
