package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// Claude Code keeps its own state in ~/.claude.json and writes it often
// (every start, every project it opens), each time reading the file,
// changing it and writing it whole back, under a lock: a directory named
// after the file with ".lock" added (the proper-lockfile package's, with
// its default of 10 seconds after which a lock nobody refreshes is
// stale). An edit of cairn's made without it could be lost to a write of
// the client's that read the file just before; taking it makes the two
// take turns.

// lockStale is when proper-lockfile takes a lock for abandoned: its
// holder refreshes the directory's time well within it.
const lockStale = 10 * time.Second

// Lock takes the client's lock on the file at path, waiting up to wait
// for a holder to let go; a stale lock is taken over, as the client
// does. The returned function lets go of it.
func Lock(path string, wait time.Duration) (unlock func(), err error) {
	dir := path + ".lock"
	deadline := time.Now().Add(wait)
	for pause := 5 * time.Millisecond; ; pause = min(2*pause, 200*time.Millisecond) {
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return func() { os.Remove(dir) }, nil
		}
		if errors.Is(err, fs.ErrNotExist) {
			// No directory for the file yet: no client is writing it.
			return func() {}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		// A stale lock's holder died: take it over, as the client would.
		if fi, err := os.Stat(dir); err == nil && time.Since(fi.ModTime()) > lockStale && os.Remove(dir) == nil {
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is locked by Claude Code (%s) and stayed so for %s; try again, or remove that directory if no Claude Code is running", path, dir, wait)
		}
		time.Sleep(pause)
	}
}
