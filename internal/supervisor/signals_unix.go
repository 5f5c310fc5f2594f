//go:build unix

package supervisor

import (
	"os"
	"syscall"
)

// resizeSignal tells of the user's terminal changing size.
var resizeSignal os.Signal = syscall.SIGWINCH

// ReloadSignal is what `cairn run reload` sends the supervisor.
var ReloadSignal os.Signal = syscall.SIGUSR1
