//go:build linux

package supervisor

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Supported says whether this system can run a client in a pseudo-terminal.
const Supported = true

// PTY is a pseudo-terminal pair: the master cairn reads and writes, and the
// slave the client gets as its terminal.
type PTY struct {
	Master *os.File
	Slave  *os.File
}

// OpenPTY opens a new pseudo-terminal, as posix_openpt, unlockpt and
// ptsname do, without cgo.
func OpenPTY() (*PTY, error) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open pty: %w", err)
	}
	// Non-blocking, so that the runtime's poller serves it: closing the
	// master then ends a read or write in progress instead of waiting.
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("open pty: %w", err)
	}
	master := os.NewFile(uintptr(fd), "/dev/ptmx")
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, fmt.Errorf("unlock pty: %w", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		return nil, fmt.Errorf("pty number: %w", err)
	}
	name := "/dev/pts/" + strconv.FormatUint(uint64(n), 10)
	slave, err := os.OpenFile(name, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	return &PTY{Master: master, Slave: slave}, nil
}

// Close closes both ends.
func (p *PTY) Close() error {
	p.Slave.Close()
	return p.Master.Close()
}

// SetSize sets the terminal's size, which the client reads on SIGWINCH;
// the kernel sends that signal to the client's process group itself.
func (p *PTY) SetSize(rows, cols int) error {
	if rows <= 0 || cols <= 0 {
		return nil
	}
	ws := &unix.Winsize{Row: uint16(rows), Col: uint16(cols)}
	if err := unix.IoctlSetWinsize(int(p.Master.Fd()), unix.TIOCSWINSZ, ws); err != nil {
		return fmt.Errorf("set pty size: %w", err)
	}
	return nil
}

// Size is the terminal's size.
func (p *PTY) Size() (rows, cols int, err error) {
	ws, err := unix.IoctlGetWinsize(int(p.Slave.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0, err
	}
	return int(ws.Row), int(ws.Col), nil
}

// Start starts cmd with the slave as its standard streams and controlling
// terminal, in a session of its own, so that the terminal's signals (a
// Ctrl+C typed in the client) reach it and its children, not cairn.
func (p *PTY) Start(cmd *exec.Cmd) error {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.Slave, p.Slave, p.Slave
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setctty = true
	cmd.SysProcAttr.Ctty = 0 // the child's fd 0, the slave
	return cmd.Start()
}

// terminate asks the client's whole process group to end, then kills it
// when it has not after grace.
func terminate(cmd *exec.Cmd, done <-chan struct{}, grace timer) {
	pid := cmd.Process.Pid
	unix.Kill(-pid, unix.SIGTERM)
	select {
	case <-done:
		return
	case <-grace:
	}
	unix.Kill(-pid, unix.SIGKILL)
	<-done
}
