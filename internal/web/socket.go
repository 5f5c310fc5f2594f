package web

import (
	"io"
	"strconv"
	"time"
)

// conn is what the server needs of a client's connection: package net's
// net.Conn has it, and so has an *os.File holding a socket.
type conn interface {
	io.ReadWriteCloser
	SetReadDeadline(t time.Time) error
	SetWriteDeadline(t time.Time) error
}

// Addr is the address a Listener listens on: 127.0.0.1 and a port.
type Addr struct{ Port int }

func (a Addr) String() string { return "127.0.0.1:" + strconv.Itoa(a.Port) }
