//go:build unix

package cli

import "syscall"

// detached puts a job's process in a session of its own.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
