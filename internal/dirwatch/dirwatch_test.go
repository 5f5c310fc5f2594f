package dirwatch

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestWait: on Linux a write in the directory wakes a Wait (its longest
// sleep here is a minute: a wait that missed the write would take that
// long), and a file renamed into place does too; with nothing written,
// Wait returns by its longest sleep, or by ctx.
func TestWait(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("dirwatch watches on Linux only; elsewhere Wait is a pause")
	}
	dir := t.TempDir()
	w := New(dir, time.Minute)
	defer w.Close()
	if w.w == nil {
		t.Fatal("no inotify watch on Linux")
	}
	w.longest = time.Minute
	woken := func(name string, write func()) {
		t.Helper()
		start := time.Now()
		done := make(chan time.Duration, 1)
		go func() {
			w.Wait(context.Background())
			done <- time.Since(start)
		}()
		write()
		if d := <-done; d >= w.longest/2 {
			t.Errorf("%s: Wait returned after %v, not at the write", name, d)
		}
	}
	for _, tc := range []struct {
		name  string
		write func()
	}{
		{"appended", func() {
			f, err := os.OpenFile(filepath.Join(dir, "t.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte("{}\n"))
			f.Close()
		}},
		{"renamed into place", func() {
			tmp := filepath.Join(t.TempDir(), "kept")
			os.WriteFile(tmp, []byte("x"), 0o600)
			if err := os.Rename(tmp, filepath.Join(dir, "s.kept")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		woken(tc.name, tc.write)
	}
	// A ctx that ends first ends it (events left unread from the writes
	// above may end the first ones sooner).
	for range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		start := time.Now()
		w.Wait(ctx)
		cancel()
		if d := time.Since(start); d >= w.longest/2 {
			t.Errorf("Wait past its ctx: %v", d)
		}
	}
	// Nothing written and no ctx: its longest sleep.
	w.longest = 20 * time.Millisecond
	start := time.Now()
	w.Wait(context.Background())
	if d := time.Since(start); d < w.longest || d > time.Minute/2 {
		t.Errorf("Wait with nothing written took %v", d)
	}
}

// TestPause: where it cannot watch, Wait sleeps its pause.
func TestPause(t *testing.T) {
	w := &Watch{pause: 20 * time.Millisecond}
	start := time.Now()
	w.Wait(context.Background())
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Errorf("Wait without a watch returned after %v", d)
	}
	w.Close()
}
