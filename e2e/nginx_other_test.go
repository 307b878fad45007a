//go:build !linux

package e2e

import "os/exec"

// dieWithTest does nothing here: the test's cleanup stops the process.
func dieWithTest(cmd *exec.Cmd) {}
