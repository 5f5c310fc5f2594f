package faults

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// Ways to make a directory read-only, tried in order until a write probe
// fails. A read-only bind mount keeps the directory readable, as chmod
// does for other users; chmod does nothing to root, and where mounting is
// not allowed either, a regular file put in the directory's place makes
// every path under it fail with ENOTDIR, for root too.
// CAIRN_FAULTS_READONLY=bind|chmod|file forces one.
var readOnlyMethods = []string{"bind", "chmod", "file"}

// readOnly makes dir read-only (creating it first, as cairn would have)
// and returns how, and the undo; the undo also runs at cleanup.
func readOnly(t *testing.T, dir string) (method string, undo func()) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	methods := readOnlyMethods
	if m := os.Getenv("CAIRN_FAULTS_READONLY"); m != "" {
		methods = []string{m}
	}
	var tried []string
	for _, m := range methods {
		var u func() error
		var err error
		switch m {
		case "bind":
			u, err = bindReadOnly(dir)
		case "chmod":
			u, err = chmodReadOnly(dir)
		case "file":
			u, err = fileInPlace(dir)
		default:
			t.Fatalf("CAIRN_FAULTS_READONLY=%s: want bind, chmod or file", m)
		}
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", m, err))
			continue
		}
		once := onceUndo(t, u)
		if writable(dir) {
			once()
			tried = append(tried, m+": the directory stays writable")
			continue
		}
		return m, once
	}
	t.Fatalf("cannot make %s read-only: %v", dir, tried)
	return "", nil
}

// onceUndo runs u at most once, at the latest at cleanup.
func onceUndo(t *testing.T, u func() error) func() {
	var once sync.Once
	do := func() {
		once.Do(func() {
			if err := u(); err != nil {
				t.Errorf("undo fault: %v", err)
			}
		})
	}
	t.Cleanup(do)
	return do
}

func writable(dir string) bool {
	probe := filepath.Join(dir, ".faults-probe")
	if err := os.WriteFile(probe, []byte("x"), 0o600); err != nil {
		return false
	}
	os.Remove(probe)
	return true
}

// chmodReadOnly takes write permission from dir and everything in it.
func chmodReadOnly(dir string) (func() error, error) {
	type saved struct {
		path string
		mode fs.FileMode
	}
	var all []saved
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		all = append(all, saved{p, fi.Mode().Perm()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Deepest first, so that a directory is still writable while its
	// entries change.
	for _, s := range slices.Backward(all) {
		mode := s.mode &^ 0o222
		if err := os.Chmod(s.path, mode); err != nil {
			return nil, err
		}
	}
	return func() error {
		var errs []error
		for _, s := range all {
			if err := os.Chmod(s.path, s.mode); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}, nil
}

// fileInPlace moves dir aside and puts a regular file where it was.
func fileInPlace(dir string) (func() error, error) {
	aside := dir + ".faults-aside"
	if err := os.Rename(dir, aside); err != nil {
		return nil, err
	}
	if err := os.WriteFile(dir, []byte("not a directory (fault injected)\n"), 0o600); err != nil {
		os.Rename(aside, dir)
		return nil, err
	}
	return func() error {
		if err := os.Remove(dir); err != nil {
			return err
		}
		return os.Rename(aside, dir)
	}, nil
}

// fill fills the filesystem dir is on, to the last block, and returns
// the undo.
func fill(dir string) (func() error, error) {
	name := filepath.Join(dir, ".faults-filler")
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	// A detached job of an earlier hook may free blocks while this
	// fills (a temporary file renamed over a bigger one): fill again,
	// a few rounds, until a probe finds no room.
	probe := filepath.Join(dir, ".faults-probe")
	for round := 0; round < 5; round++ {
		for _, size := range []int{1 << 16, 4096, 512, 1} {
			buf := make([]byte, size)
			for {
				if _, err := f.Write(buf); err != nil {
					break
				}
			}
		}
		if os.WriteFile(probe, []byte("x"), 0o600) != nil {
			break
		}
		os.Remove(probe)
	}
	f.Close()
	if os.WriteFile(probe, []byte("x"), 0o600) == nil {
		os.Remove(probe)
		os.Remove(name)
		return nil, fmt.Errorf("%s has room left after filling it", dir)
	}
	return func() error { return os.Remove(name) }, nil
}

// Corrupt database variants: what the database file becomes.
const (
	corruptGarbage     = "garbage"
	corruptTruncated   = "truncated"
	corruptEmpty       = "empty"
	corruptDirectory   = "directory"
	corruptWrongSchema = "wrong-schema"
	corruptNewerSchema = "newer-schema"
)

// corrupt replaces the database (its -wal and -shm go too, as a copy
// from a backup would leave it) with the variant. The good database is
// moved aside, not deleted, so that the secret scan still reads it.
func (w *world) corrupt(variant string) error {
	db := w.dbPath()
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		return err
	}
	good, _ := os.ReadFile(db)
	for _, side := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(db+side, db+".faults-aside"+side); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	switch variant {
	case corruptGarbage:
		junk := make([]byte, 16<<10)
		for i := range junk {
			junk[i] = byte(w.rng.IntN(256))
		}
		return os.WriteFile(db, junk, 0o600)
	case corruptTruncated:
		if len(good) < 2 {
			return fmt.Errorf("no database to truncate yet")
		}
		// Not on a page boundary: the header promises pages that are gone.
		return os.WriteFile(db, good[:len(good)/2+100], 0o600)
	case corruptEmpty:
		return os.WriteFile(db, nil, 0o600)
	case corruptDirectory:
		return os.Mkdir(db, 0o700)
	case corruptWrongSchema:
		// A database of another program that happens to use the name.
		return makeDB(db,
			"CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)",
			"INSERT INTO schema_version VALUES (1, 0)",
			"CREATE TABLE checkpoints (id INTEGER PRIMARY KEY, note TEXT)")
	case corruptNewerSchema:
		// A newer cairn's database: a version above any this one knows,
		// with columns this one does not fill.
		return makeDB(db,
			"CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)",
			"INSERT INTO schema_version VALUES (1, 0), (2, 0), (999, 0)",
			`CREATE TABLE checkpoints (id INTEGER PRIMARY KEY, project TEXT NOT NULL, session_id TEXT NOT NULL,
				created_at INTEGER NOT NULL, trigger TEXT NOT NULL, context_tokens INTEGER NOT NULL, task TEXT NOT NULL,
				body BLOB NOT NULL, agent TEXT NOT NULL)`,
			`CREATE TABLE claims (session_id TEXT NOT NULL, key TEXT NOT NULL, claimed_at INTEGER NOT NULL,
				agent TEXT NOT NULL, PRIMARY KEY (session_id, key)) WITHOUT ROWID`)
	}
	return fmt.Errorf("unknown variant %q", variant)
}

func makeDB(path string, stmts ...string) error {
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return os.Chmod(path, 0o600)
}
