package e2e

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes the process cmd starts end with the test binary, also
// when the binary is killed before its cleanups run.
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
