//go:build unix

package settings

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives a replacement file the owner of the one it replaces, so
// that running cairn under sudo does not leave a user's settings owned by
// root. Without the privilege to do so the file stays the caller's, which is
// what the caller could write anyway.
func keepOwner(f *os.File, old fs.FileInfo) {
	if old == nil {
		return
	}
	if st, ok := old.Sys().(*syscall.Stat_t); ok {
		f.Chown(int(st.Uid), int(st.Gid))
	}
}
