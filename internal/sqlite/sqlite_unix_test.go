//go:build unix

package sqlite

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestFileModes(t *testing.T) {
	// With no umask, anything created with SQLite's default 0644 (or a
	// directory's 0755) shows as such.
	defer syscall.Umask(syscall.Umask(0))

	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, "cairn.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.AddCheckpoint(ctx, Checkpoint{Project: "/p", SessionID: "s", Body: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want fs.FileMode
	}{
		{dir, fs.ModeDir | 0o700},
		{path, 0o600},
		{path + "-wal", 0o600},
		{path + "-shm", 0o600},
	} {
		fi, err := os.Stat(tc.path)
		if err != nil {
			t.Error(err)
			continue
		}
		if got := fi.Mode(); got != tc.want {
			t.Errorf("%s: mode %v, want %v", filepath.Base(tc.path), got, tc.want)
		}
	}
}
