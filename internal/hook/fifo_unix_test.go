//go:build unix

package hook

import "syscall"

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
