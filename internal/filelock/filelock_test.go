//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLocks: an exclusive lock keeps out another one and a shared one
// taken through another open file, and is free again once its file is
// closed.
func TestLocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	a, b := open(), open()
	defer b.Close()
	if err := TryExclusive(a); err != nil {
		t.Fatalf("first lock: %v", err)
	}
	if err := TryExclusive(b); !errors.Is(err, ErrLocked) {
		t.Fatalf("second exclusive lock: %v, want ErrLocked", err)
	}
	a.Close()
	if err := TryExclusive(b); err != nil {
		t.Fatalf("after the holder closed: %v", err)
	}
	c := open()
	defer c.Close()
	if err := TryExclusive(c); !errors.Is(err, ErrLocked) {
		t.Fatalf("while held: %v, want ErrLocked", err)
	}
	b.Close()
	if err := Shared(c); err != nil {
		t.Fatalf("shared lock: %v", err)
	}
	d := open()
	defer d.Close()
	if err := Shared(d); err != nil {
		t.Fatalf("a second shared lock: %v", err)
	}
	if err := TryExclusive(open()); !errors.Is(err, ErrLocked) {
		t.Fatalf("exclusive while shared: %v, want ErrLocked", err)
	}
}
