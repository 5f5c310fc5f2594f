//go:build unix

package loop

import (
	"os"
	"syscall"
	"time"
)

// processGroup starts the agent in a process group of its own, so that
// interrupting it reaches the tools it runs too.
func processGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// interrupt is Ctrl+C to the agent's group: it ends its turn and exits.
func interrupt(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGINT) }

// kill ends the group of an agent that did not exit when interrupted.
func kill(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }

// CheckpointSignal is what `cairn loop checkpoint` sends the running loop.
var CheckpointSignal os.Signal = syscall.SIGUSR1

// Alive says whether a process with the pid runs.
func Alive(pid int) bool { return pid > 0 && syscall.Kill(pid, 0) == nil }

// AskCheckpoint sends the running loop CheckpointSignal.
func AskCheckpoint(pid int) error { return syscall.Kill(pid, syscall.SIGUSR1) }

// stopGroup interrupts an orphaned agent's process group and kills it if
// it is still there 5 s later.
func stopGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGINT)
	for i := 0; i < 50 && syscall.Kill(pid, 0) == nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
