//go:build !linux

package supervisor

import (
	"os"
	"os/exec"
)

// Supported says whether this system can run a client in a pseudo-terminal.
const Supported = false

// PTY is a pseudo-terminal pair; see the Linux build.
type PTY struct {
	Master *os.File
	Slave  *os.File
}

// OpenPTY fails here.
func OpenPTY() (*PTY, error) { return nil, ErrUnsupported }

// Close closes both ends.
func (p *PTY) Close() error { return nil }

// SetSize does nothing here.
func (p *PTY) SetSize(rows, cols int) error { return ErrUnsupported }

// Size fails here.
func (p *PTY) Size() (rows, cols int, err error) { return 0, 0, ErrUnsupported }

// Start fails here.
func (p *PTY) Start(cmd *exec.Cmd) error { return ErrUnsupported }

func terminate(cmd *exec.Cmd, done <-chan struct{}, grace timer) {
	cmd.Process.Kill()
	<-done
}
