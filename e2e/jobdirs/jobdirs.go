// Package jobdirs removes an end-to-end test's directory once cairn's
// detached jobs (the settle job a compaction or a session's end starts)
// have stopped writing into it: the testing package's own removal of a
// TempDir fails with "directory not empty" when a job writes meanwhile.
package jobdirs

import (
	"os"
	"testing"
	"time"
)

// RemoveWhenQuiet registers a cleanup, run before the TempDir's own
// (cleanups run last first), that removes dir, trying again for up to
// 30 s (a job's bound) while a job still writes into it.
func RemoveWhenQuiet(t testing.TB, dir string) {
	t.Cleanup(func() {
		deadline := time.Now().Add(30 * time.Second)
		for {
			err := os.RemoveAll(dir)
			if err == nil || time.Now().After(deadline) {
				return // the TempDir's cleanup reports what is left
			}
			time.Sleep(200 * time.Millisecond)
		}
	})
}
