//go:build unix

package claudecode

import (
	"errors"
	"os"
	"syscall"
)

// createMark creates the file mark, or leaves it as it is; exists is false
// when its folder does not exist. syscall, not os: os.OpenFile would try to
// register a regular file with the poller first, five system calls more in
// every hook.
func createMark(mark string) (exists bool, err error) {
	fd, err := syscall.Open(mark, syscall.O_CREAT|syscall.O_WRONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, syscall.ENOENT) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	return true, syscall.Close(fd)
}

// lockDir holds an exclusive lock on the folder dir until unlock is
// called, so that two listings do not undo each other's corrections.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
