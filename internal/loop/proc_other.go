//go:build !unix

package loop

import (
	"errors"
	"os"
	"syscall"
)

func processGroup() *syscall.SysProcAttr { return nil }

func interrupt(p *os.Process) { _ = p.Signal(os.Interrupt) }

func kill(p *os.Process) { _ = p.Kill() }

// CheckpointSignal is nil where there is no SIGUSR1.
var CheckpointSignal os.Signal

// Alive cannot tell here: a recorded loop counts as gone.
func Alive(pid int) bool { return false }

// AskCheckpoint cannot reach a running loop here.
func AskCheckpoint(pid int) error { return errors.New("no signal to ask the loop with on this system") }

func stopGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
