//go:build unix

package wpt

import (
	"os/exec"
	"syscall"
)

// ownGroup makes cmd the leader of a process group of its own, so that
// killGroup reaches the browser processes it starts too.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group that cmd leads.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
