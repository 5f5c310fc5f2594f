//go:build unix

package statusline

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts a chained command in its own process group and makes
// its timeout kill the whole group, so that what the shell started dies
// with it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
