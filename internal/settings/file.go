package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// BackupSuffix names the copy of the previous content kept beside a
// settings file each time cairn changes it.
const BackupSuffix = ".cairn.bak"

// InstallFile applies Install to the settings file at path. A missing file
// counts as an empty one and is created, with its directory, only when there
// is something to install. See edit for how the file is written.
func InstallFile(path string, hooks []Hook, isOurs func(command string) bool) (changed bool, err error) {
	return edit(path, func(data []byte) ([]byte, bool, error) { return Install(data, hooks, isOurs) })
}

// UninstallFile applies Uninstall to the settings file at path. A missing
// file has nothing to uninstall and stays missing.
func UninstallFile(path string, isOurs func(command string) bool) (changed bool, err error) {
	return edit(path, func(data []byte) ([]byte, bool, error) { return Uninstall(data, isOurs) })
}

// errRaced means the file changed between reading and replacing it.
var errRaced = errors.New("changed by another program while cairn was editing it; try again")

// edit reads path, applies f and, when f changed something, first copies the
// previous content to path+BackupSuffix and then replaces the file
// atomically, keeping its mode and owner. A document f refuses leaves the
// file as it was, with no backup.
//
// Claude Code can write its settings at any moment (accepting a permission
// does), so the file is read again just before the rename and the edit
// retried if it moved; the window left is the rename itself.
func edit(path string, f func([]byte) ([]byte, bool, error)) (bool, error) {
	// Write through a symlink (dotfile managers link settings.json), not over it.
	target := path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return false, fmt.Errorf("%s is a symlink cairn cannot follow: %w", path, err)
		}
	}
	for attempt := 1; ; attempt++ {
		old, info, err := read(target)
		if err != nil {
			return false, err
		}
		data, changed, err := f(old)
		if se := (*Error)(nil); errors.As(err, &se) {
			se.Path = path
		}
		if err != nil || !changed {
			return false, err
		}
		mode := fs.FileMode(0o644)
		if info != nil {
			mode = info.Mode().Perm()
			// Settings can hold secrets in "env": the backup is no more
			// readable than the file.
			if err := writeAtomic(path+BackupSuffix, old, mode, info, nil); err != nil {
				return false, fmt.Errorf("back up %s: %w", path, err)
			}
		} else if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return false, err
		}
		unchanged := func() error {
			now, _, err := read(target)
			if err != nil {
				return err
			}
			if (now == nil) != (old == nil) || !bytes.Equal(now, old) {
				return errRaced
			}
			return nil
		}
		err = writeAtomic(target, data, mode, info, unchanged)
		if errors.Is(err, errRaced) && attempt < 3 {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("write %s: %w", path, err)
		}
		return true, nil
	}
}

// read returns the file's content and info, or nil and nil when it does not
// exist. An existing empty file gives a non-nil empty slice.
func read(path string) ([]byte, fs.FileInfo, error) {
	fh, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", path)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(fh); err != nil {
		return nil, nil, err
	}
	return append([]byte{}, b.Bytes()...), info, nil
}

// writeAtomic replaces name with data by renaming a synced temporary file
// over it, so that a crash leaves either the old or the new content, never a
// truncated file Claude Code would refuse. check, when given, runs last and
// can call the rename off.
func writeAtomic(name string, data []byte, mode fs.FileMode, owner fs.FileInfo, check func() error) (err error) {
	dir := filepath.Dir(name)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	// CreateTemp makes 0600 files; Chmod, unlike the umask, gives exactly mode.
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	keepOwner(tmp, owner)
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if check != nil {
		if err = check(); err != nil {
			return err
		}
	}
	if err = os.Rename(tmp.Name(), name); err != nil {
		return err
	}
	// Make the rename itself durable; not every system can sync a directory.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
