//go:build unix

package cli

import (
	"os"
	"os/signal"
	"syscall"
)

// ignoreBrokenPipe makes a write to a closed stdout fail with EPIPE
// instead of killing the process with SIGPIPE, so that a hook can log it.
func ignoreBrokenPipe() { signal.Ignore(syscall.SIGPIPE) }

// resizeSignals tell that the terminal changed size.
var resizeSignals = []os.Signal{syscall.SIGWINCH}
