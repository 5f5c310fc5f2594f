//go:build !unix

package claudecode

import "os/exec"

// setProcessGroup is a no-op where process groups do not exist; the
// context still kills the client itself on timeout.
func setProcessGroup(cmd *exec.Cmd) {}
