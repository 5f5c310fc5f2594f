package dirwatch

import (
	"context"
	"os"
	"syscall"
	"time"
)

// inotify watches a directory for files written, closed after writing or
// renamed into it. Its descriptor is non-blocking, so that reading it waits in
// the runtime's poller, with a deadline.
type inotify struct{ f *os.File }

func open(dir string) watcher {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return nil
	}
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_MODIFY|syscall.IN_CLOSE_WRITE|syscall.IN_MOVED_TO); err != nil {
		syscall.Close(fd)
		return nil
	}
	return &inotify{f: os.NewFile(uintptr(fd), "inotify")}
}

func (n *inotify) wait(ctx context.Context, most time.Duration) {
	deadline := time.Now().Add(most)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	n.f.SetReadDeadline(deadline)
	// Which file it was does not matter: the caller looks again. Events
	// left unread wake the next Wait at once, which looks again too.
	var buf [4096]byte
	n.f.Read(buf[:])
}

func (n *inotify) close() { n.f.Close() }
