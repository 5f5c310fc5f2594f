//go:build !unix

package cli

import "syscall"

// detached has no session to give a job's process here.
func detached() *syscall.SysProcAttr { return nil }
