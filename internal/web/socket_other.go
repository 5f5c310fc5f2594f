//go:build !linux

package web

import (
	"net"
	"strconv"
)

// Listener is a TCP socket listening on 127.0.0.1. Elsewhere than on
// Linux it is package net's (see socket_linux.go).
type Listener struct {
	ln   net.Listener
	addr Addr
}

// Listen listens on 127.0.0.1:port (a free port when port is 0); a port
// taken is an error that wraps syscall.EADDRINUSE.
func Listen(port int) (*Listener, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	return &Listener{ln: ln, addr: Addr{Port: ln.Addr().(*net.TCPAddr).Port}}, nil
}

// Accept waits for the next connection; after Close it returns an error.
func (l *Listener) Accept() (conn, error) { return l.ln.Accept() }

// Close stops listening; an Accept waiting returns.
func (l *Listener) Close() error { return l.ln.Close() }

// Addr is the address listened on.
func (l *Listener) Addr() Addr { return l.addr }
