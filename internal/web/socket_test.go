package web

import (
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestListener holds the socket layer to what the server relies on of
// package net's: the address, a connection's bytes both ways and its
// end, deadlines, a port taken, and Close ending a waiting Accept.
func TestListener(t *testing.T) {
	ln, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	if ln.Addr().Port == 0 || ln.Addr().String() != "127.0.0.1:"+strconv.Itoa(ln.Addr().Port) {
		t.Fatalf("Addr() = %v", ln.Addr())
	}

	t.Run("a port taken", func(t *testing.T) {
		_, err := Listen(ln.Addr().Port)
		if !errors.Is(err, syscall.EADDRINUSE) {
			t.Fatalf("Listen on a port listened on: %v, want EADDRINUSE", err)
		}
	})

	t.Run("a connection", func(t *testing.T) {
		accepted := make(chan conn, 1)
		go func() {
			c, err := ln.Accept()
			if err != nil {
				t.Error(err)
			}
			accepted <- c
		}()
		client, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
		c := <-accepted
		if c == nil {
			t.FailNow()
		}
		defer c.Close()
		if _, err := client.Write([]byte("GET / HTTP/1.1\r\n")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		n, err := c.Read(buf)
		if err != nil || string(buf[:n]) != "GET / HTTP/1.1\r\n" {
			t.Fatalf("server read %q, %v", buf[:n], err)
		}
		if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\n")); err != nil {
			t.Fatal(err)
		}
		if n, err = client.Read(buf); err != nil || string(buf[:n]) != "HTTP/1.1 200 OK\r\n" {
			t.Fatalf("client read %q, %v", buf[:n], err)
		}
		// A read deadline passes: the read gives up.
		c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		if _, err := c.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read past the deadline: %v, want os.ErrDeadlineExceeded", err)
		}
		// The client goes: the server reads the end.
		c.SetReadDeadline(time.Time{})
		client.Close()
		if n, err := c.Read(buf); n != 0 || err != io.EOF {
			t.Fatalf("read after the client closed: %d, %v, want io.EOF", n, err)
		}
	})

	t.Run("Close ends Accept", func(t *testing.T) {
		done := make(chan error, 1)
		go func() {
			_, err := ln.Accept()
			done <- err
		}()
		time.Sleep(20 * time.Millisecond) // Accept waiting, most likely
		if err := ln.Close(); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("Accept after Close returned a connection")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Accept still waiting 5 s after Close")
		}
	})
}
