//go:build !unix

package tracker

import "syscall"

// detached has nothing to set outside unix.
func detached() *syscall.SysProcAttr { return nil }
