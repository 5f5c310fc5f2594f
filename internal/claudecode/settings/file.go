package settings

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Journal keeps what cairn's install changed, so that uninstall can give
// it back exactly: for each settings file, whether it existed and what it
// held before cairn first wired itself in (Wiring.Before), and the
// directories install created. It lives outside the project, in cairn's
// own data directory, one small file per path, readable only by the user
// (settings can hold secrets in "env"); so the project holds nothing of
// cairn's beyond the wiring itself, not even a backup.
//
// Why a record of what was there rather than a copy of what install
// wrote: the user, and Claude Code (which rewrites settings.local.json
// when a permission is accepted), may change the file between install
// and uninstall. Uninstall therefore works on the file as it is then,
// taking out cairn's wiring where it finds it, and uses the record only
// to know what the user had in the places install touched: the status
// line, the "hooks" containers, the white space inside them, whether the
// file or a directory existed at all. Those answers stay right whatever
// else changed; a copy of the installed file would be stale after the
// first permission.
//
// A missing journal (it was deleted, or the install was made by an older
// cairn) makes uninstall fall back to taking out all of cairn's wiring
// (see Wiring.Uninstall with no before).
type Journal struct{ Dir string }

type record struct {
	Path    string `json:"path"`
	Existed bool   `json:"existed"`
	// Before is the file's content before cairn's first install.
	Before []byte `json:"before,omitempty"`
	// Dirs are the directories install created, outermost first.
	Dirs []string `json:"dirs,omitempty"`
}

func (j Journal) file(path string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(path)))
	return filepath.Join(j.Dir, hex.EncodeToString(sum[:16])+".json")
}

// load reads path's record; ok is false when there is none (or no
// journal), or it does not decode.
func (j Journal) load(path string) (record, bool) {
	if j.Dir == "" {
		return record{}, false
	}
	data, err := os.ReadFile(j.file(path))
	if err != nil {
		return record{}, false
	}
	var r record
	if json.Unmarshal(data, &r) != nil || filepath.Clean(r.Path) != filepath.Clean(path) {
		return record{}, false
	}
	return r, true
}

// Recorded reports whether the journal holds a record of path: an
// install here changed it, and uninstall has not given it back yet.
func (j Journal) Recorded(path string) bool {
	_, ok := j.load(path)
	return ok
}

func (j Journal) save(r record) error {
	if j.Dir == "" {
		return nil
	}
	if err := os.MkdirAll(j.Dir, 0o700); err != nil {
		return fmt.Errorf("keep the install record: %w", err)
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := writeAtomic(j.file(r.Path), data, 0o600, nil, nil); err != nil {
		return fmt.Errorf("keep the install record: %w", err)
	}
	return nil
}

func (j Journal) forget(path string) error {
	if j.Dir == "" {
		return nil
	}
	if err := os.Remove(j.file(path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forget the install record: %w", err)
	}
	return nil
}

// MkdirAll creates dir and its missing parents, and records the ones it
// created under dir, for RemoveDirs; it returns them. An earlier record
// for dir stays when the directory exists: it still says what an install
// created.
func (j Journal) MkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	slices.Reverse(missing)
	if err := j.save(record{Path: dir, Dirs: missing}); err != nil {
		return nil, err
	}
	return missing, os.MkdirAll(dir, 0o755)
}

// RemoveDirs removes the directories MkdirAll recorded creating for dir
// that are empty now, innermost first, and returns the ones it removed.
// It forgets the record once they are all gone, and keeps it while one is
// not empty: another file install put there (Claude Code's configuration
// directory holds settings.json and .claude.json) may leave it later.
func (j Journal) RemoveDirs(dir string) ([]string, error) {
	r, ok := j.load(dir)
	if !ok {
		return nil, nil
	}
	var removed []string
	for _, d := range slices.Backward(r.Dirs) {
		if err := os.Remove(d); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return removed, nil // not empty: something else is there now
		}
		removed = append(removed, d)
	}
	return removed, j.forget(dir)
}

// BackupSuffix names the copy of the previous content that cairn before
// the journal kept beside a settings file. cairn no longer writes them;
// UninstallFile uses one to give a file back as it was before an older
// cairn rewrote it, and then removes it.
const BackupSuffix = ".cairn.bak"

// FileResult says what a file function did.
type FileResult struct {
	Changed bool
	Created bool     // the file did not exist and now does
	Removed bool     // the file was removed: cairn had created it
	Dirs    []string // directories created, or removed
	// FromBackup is the older cairn's backup the file was given back
	// from, which is then removed; "" for none.
	FromBackup string
}

// InstallFile applies Install to the settings file at path. A missing
// file counts as an empty one and is created, with its directory, only
// when there is something to install. Before the first change the
// journal records what the file held (Before), whether it existed and
// the directories made for it. See edit for how the file is written.
func (w Wiring) InstallFile(path string, j Journal) (FileResult, error) {
	var res FileResult
	changed, err := edit(path, w.fileMode(), func(old []byte, exists bool) ([]byte, bool, error) {
		data, changed, err := w.Install(old)
		if err != nil || !changed {
			return data, changed, err
		}
		res = FileResult{Created: !exists}
		if err := w.remember(path, old, exists, j); err != nil {
			return nil, false, err
		}
		if !exists {
			if res.Dirs, err = j.MkdirAll(filepath.Dir(path)); err != nil {
				return nil, false, err
			}
		}
		return data, true, nil
	})
	res.Changed = changed
	return res, err
}

// remember records what path holds before install changes it. A record
// stays while the file holds cairn's wiring: it still says what the file
// was before it. Otherwise it is stale (the user took the wiring out by
// hand, or removed the file) and the file as it is now is what uninstall
// must give back.
func (w Wiring) remember(path string, old []byte, exists bool, j Journal) error {
	if _, ok := j.load(path); ok && w.wired(old) {
		return nil
	}
	before, err := w.Before(old)
	if err != nil {
		return err
	}
	return j.save(record{Path: path, Existed: exists, Before: w.record(before)})
}

// fileMode is the mode of a file Install creates.
func (w Wiring) fileMode() fs.FileMode {
	if w.MCP != nil && w.MCP.FileMode != 0 {
		return w.MCP.FileMode
	}
	return 0o644
}

// UninstallFile applies Uninstall to the settings file at path, with what
// the journal recorded before install, and forgets the record. A file
// install created, and left with nothing else in it, is removed, and so
// are the directories install created for it, when empty.
//
// Without a record the file may have been wired by an older cairn, which
// rewrote the whole file and kept the previous content as path +
// BackupSuffix: when that backup holds exactly what is left once cairn's
// wiring is out, the file gets the backup's bytes back (its own layout)
// and the backup goes. When there is no backup and nothing is left but
// {}, the older cairn made the file (it backed up every file it found),
// and the file goes.
func (w Wiring) UninstallFile(path string, j Journal) (FileResult, error) {
	var res FileResult
	r, recorded := j.load(path)
	var before []byte
	if recorded {
		before = r.Before
		if !r.Existed || before == nil {
			before = []byte{}
		}
	}
	changed, err := edit(path, w.fileMode(), func(old []byte, exists bool) ([]byte, bool, error) {
		res = FileResult{}
		if !exists {
			return old, false, nil
		}
		data, changed, err := w.Uninstall(old, before)
		if err != nil || !changed {
			return data, changed, err
		}
		switch {
		case recorded && !r.Existed && isSpace(data):
			res.Removed = true
			return nil, true, nil
		case !recorded:
			bak, err := os.ReadFile(path + BackupSuffix)
			switch {
			case err == nil && w.sameDocument(bak, data):
				res.FromBackup = path + BackupSuffix
				return bak, true, nil
			case errors.Is(err, fs.ErrNotExist) && isEmptyObject(data):
				res.Removed = true
				return nil, true, nil
			}
		}
		return data, true, nil
	})
	res.Changed = changed
	if err != nil {
		return res, err
	}
	if res.FromBackup != "" {
		if err := os.Remove(res.FromBackup); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, err
		}
	}
	if recorded {
		if err := j.forget(path); err != nil {
			return res, err
		}
	}
	if recorded && !r.Existed {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			if res.Dirs, err = j.RemoveDirs(filepath.Dir(path)); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// wired reports whether data holds cairn's hooks, its status line, its MCP
// server or the approval of that server.
func (w Wiring) wired(data []byte) bool {
	root, err := w.load(data)
	if err != nil {
		return false
	}
	if len(w.installed(root)) > 0 || w.server(root) == OurServer || w.approved(root) {
		return true
	}
	c, ok := command(root.get("statusLine"))
	return ok && w.StatusOurs != nil && w.StatusOurs(c)
}

// sameDocument reports whether bak, a backup an older cairn kept, is the
// document data is, in another layout, and free of cairn's hooks.
func (w Wiring) sameDocument(bak, data []byte) bool {
	b, err := w.load(bak)
	if err != nil || !b.orig || len(w.installed(b)) > 0 {
		return false
	}
	d, err := w.load(data)
	return err == nil && d.orig && sameValue(b, d)
}

// sameValue reports whether a and b are the same value written with the
// same keys, scalars and order, whatever the white space.
func sameValue(a, b *node) bool {
	if a.kind != b.kind || len(a.members) != len(b.members) || len(a.elems) != len(b.elems) {
		return false
	}
	if a.kind == scalar {
		return bytes.Equal(a.raw, b.raw)
	}
	for i := range a.members {
		if !bytes.Equal(a.members[i].rawKey, b.members[i].rawKey) || !sameValue(a.members[i].val, b.members[i].val) {
			return false
		}
	}
	for i := range a.elems {
		if !sameValue(a.elems[i], b.elems[i]) {
			return false
		}
	}
	return true
}

// isEmptyObject reports whether data is {} and white space.
func isEmptyObject(data []byte) bool {
	root, err := parseDocument(data)
	return err == nil && root.orig && root.kind == object && len(root.members) == 0
}

// errRaced means the file changed between reading and replacing it.
var errRaced = errors.New("changed by another program while cairn was editing it; try again")

// edit reads path, applies f and, when f changed something, replaces the
// file atomically, keeping its mode and owner (a new file gets newMode),
// or removes it when f returns nil data. f learns whether the file exists; a missing file
// reads as empty. A document f refuses leaves the file as it was.
//
// Claude Code can write its settings at any moment (accepting a permission
// does), so the file is read again just before the rename and the edit
// retried if it moved; the window left is the rename itself.
func edit(path string, newMode fs.FileMode, f func(old []byte, exists bool) ([]byte, bool, error)) (bool, error) {
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
		data, changed, err := f(old, info != nil)
		if se := (*Error)(nil); errors.As(err, &se) {
			se.Path = path
		}
		if err != nil || !changed {
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
		if data == nil {
			if err = unchanged(); err == nil {
				err = os.Remove(target)
			}
		} else {
			mode := newMode
			if info != nil {
				mode = info.Mode().Perm()
			}
			err = writeAtomic(target, data, mode, info, unchanged)
		}
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
