//go:build unix

package claudecode

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the client in its own process group and makes a
// timeout kill the whole group, so Bash tool children die with the client.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
