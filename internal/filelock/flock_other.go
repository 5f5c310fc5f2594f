//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package filelock

import "os"

// TryExclusive has no advisory lock to take here.
func TryExclusive(*os.File) error { return nil }

// Shared has no advisory lock to take here.
func Shared(*os.File) error { return nil }
