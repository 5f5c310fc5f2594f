//go:build linux

package web

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// On Linux the viewer's sockets are made with system calls and held as
// *os.File, whose reads, writes, deadlines and Close go through the
// runtime's poller as package net's do. Package net is then not linked:
// every cairn process, each hook's included, ran its initialisation and
// the dns message parser's (docs/benchmarks.md, "process start").

// Listener is a TCP socket listening on 127.0.0.1.
type Listener struct {
	f    *os.File
	rc   syscall.RawConn
	addr Addr
}

// Listen listens on 127.0.0.1:port (a free port when port is 0); a port
// taken is an error that wraps syscall.EADDRINUSE.
func Listen(port int) (*Listener, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, listenError(port, "socket", err)
	}
	// As package net does: a port whose last connections linger in
	// TIME_WAIT can be listened on again at once.
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		syscall.Close(fd)
		return nil, listenError(port, "setsockopt", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		syscall.Close(fd)
		return nil, listenError(port, "bind", err)
	}
	if err := syscall.Listen(fd, syscall.SOMAXCONN); err != nil {
		syscall.Close(fd)
		return nil, listenError(port, "listen", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		syscall.Close(fd)
		return nil, listenError(port, "getsockname", err)
	}
	in, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		syscall.Close(fd)
		return nil, fmt.Errorf("listen tcp 127.0.0.1:%d: not an IPv4 socket", port)
	}
	ln := &Listener{addr: Addr{Port: in.Port}}
	// The descriptor is non-blocking: os.NewFile hands it to the poller.
	ln.f = os.NewFile(uintptr(fd), ln.addr.String())
	if ln.rc, err = ln.f.SyscallConn(); err != nil {
		ln.f.Close()
		return nil, err
	}
	return ln, nil
}

func listenError(port int, call string, err error) error {
	return fmt.Errorf("listen tcp 127.0.0.1:%d: %w", port, os.NewSyscallError(call, err))
}

// Accept waits for the next connection; after Close it returns an error.
func (l *Listener) Accept() (conn, error) {
	for {
		var fd int
		var aerr error
		err := l.rc.Read(func(s uintptr) bool {
			fd, _, aerr = syscall.Accept4(int(s), syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
			return !errors.Is(aerr, syscall.EAGAIN)
		})
		if err != nil {
			return nil, err
		}
		switch {
		case errors.Is(aerr, syscall.EINTR), errors.Is(aerr, syscall.ECONNABORTED):
			continue // as package net does: the next one
		case aerr != nil:
			return nil, os.NewSyscallError("accept4", aerr)
		}
		// As package net does for TCP: small writes (the event stream's)
		// go out at once instead of waiting for the client's ACK.
		syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
		return os.NewFile(uintptr(fd), "client of "+l.addr.String()), nil
	}
}

// Close stops listening; an Accept waiting returns.
func (l *Listener) Close() error { return l.f.Close() }

// Addr is the address listened on.
func (l *Listener) Addr() Addr { return l.addr }
