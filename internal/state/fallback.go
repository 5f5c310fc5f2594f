package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// FallbackDir is where hooks keep their state and log when the state
// directory cannot be written (a read-only or missing home, a full disk):
// $TMPDIR/cairn-<uid>, else /tmp/cairn-<uid>. A failure must leave a trace
// somewhere the user can find; `cairn doctor` looks here too.
func FallbackDir(getenv func(string) string) string {
	tmp := getenv("TMPDIR")
	if tmp == "" || !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, "cairn-"+strconv.Itoa(os.Getuid()))
}

// Usable makes sure dir exists and can be written by this user, and says
// why not. It does not write: a hook pays for it on every run.
func Usable(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "sessions"), 0o700); err != nil {
		return err
	}
	return writable(filepath.Join(dir, "sessions"))
}

// UsableFallback is Usable for the fallback directory, which lives in a
// directory every user can write: it must be a real directory of ours,
// closed to others, not something another user put there.
func UsableFallback(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !ownedByUs(fi) {
		return fmt.Errorf("%s is not a private directory of this user", dir)
	}
	return Usable(dir)
}
