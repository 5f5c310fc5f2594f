// Package filelock takes advisory locks on open files, the way cairn's
// processes (hooks, their jobs, the tracker's drainer) keep out of each
// other's way: the kernel drops a lock when its process ends, however it
// ends, so a crashed process never leaves one behind. Where the system
// has no advisory locks, taking one always succeeds and callers rely on
// what they write alone.
package filelock

import "errors"

// ErrLocked is TryExclusive's answer when another process holds a lock
// on the file.
var ErrLocked = errors.New("locked by another process")
