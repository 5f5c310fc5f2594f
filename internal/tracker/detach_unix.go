//go:build unix

package tracker

import "syscall"

// detached puts the drainer in a session of its own, so that the
// client's killing the hook's process group does not kill it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
