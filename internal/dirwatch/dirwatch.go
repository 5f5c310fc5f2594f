// Package dirwatch wakes a process that waits for a file of a directory
// to be written: on Linux when a file in it is written, closed after
// writing or renamed into place (inotify), elsewhere after a short pause. A
// process that waits this way sleeps in the kernel instead of polling,
// and wakes within microseconds of the write instead of at its next
// look.
package dirwatch

import (
	"context"
	"time"
)

// Watch watches one directory. Its zero value, and a Watch that could not
// watch, pause instead (pause).
type Watch struct {
	w              watcher
	pause, longest time.Duration
}

// New watches dir; pause is how long Wait sleeps where it cannot watch.
func New(dir string, pause time.Duration) *Watch {
	return &Watch{w: open(dir), pause: pause, longest: longest}
}

// longest is the longest Wait sleeps where it watches: a change it cannot
// see (a lock released by a process that wrote nothing, a file replaced
// another way) is seen that late at most.
const longest = 50 * time.Millisecond

// Wait returns when something was written in the directory since New or
// the last Wait, when the pause has passed, or when ctx is done.
func (w *Watch) Wait(ctx context.Context) {
	if w.w != nil {
		w.w.wait(ctx, w.longest)
		return
	}
	select {
	case <-ctx.Done():
	case <-time.After(w.pause):
	}
}

// Close stops watching.
func (w *Watch) Close() {
	if w.w != nil {
		w.w.close()
	}
}

type watcher interface {
	wait(ctx context.Context, most time.Duration)
	close()
}
