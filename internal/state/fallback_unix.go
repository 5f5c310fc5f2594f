//go:build unix

package state

import (
	"io/fs"
	"os"
	"syscall"
)

// writable asks the kernel whether dir can be written, without writing.
func writable(dir string) error {
	const wOK = 2
	if err := syscall.Access(dir, wOK); err != nil {
		return &fs.PathError{Op: "write", Path: dir, Err: err}
	}
	return nil
}

func ownedByUs(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
