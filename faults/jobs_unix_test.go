//go:build unix

package faults

import (
	"os"
	"syscall"
)

// waitJobs waits until no hook's detached job holds the lock at path.
func waitJobs(path string) {
	f, err := os.Open(path)
	if err != nil {
		return // no job was ever started
	}
	defer f.Close()
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
}
