//go:build !unix

package wpt

import "os/exec"

// ownGroup does nothing here: there are no process groups.
func ownGroup(*exec.Cmd) {}

// killGroup kills cmd's process alone.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
