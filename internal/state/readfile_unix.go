//go:build unix

package state

import (
	"io/fs"
	"syscall"
)

// ReadFile is os.ReadFile for the small state files the hooks read on
// every prompt and tool call (the head, the marks, the restores'
// record), in system calls alone: an *os.File's bookkeeping (its poller
// registration and cleanup) took as long as the read itself, about 9 µs
// a file (docs/benchmarks.md, issue 15). Errors are os.ReadFile's
// (*fs.PathError, errors.Is(err, fs.ErrNotExist) for a missing file).
func ReadFile(name string) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	buf := make([]byte, 0, 4096)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		case n == 0:
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
