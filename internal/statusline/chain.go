package statusline

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"time"
)

// ChainTimeout is how long a chained status line command may take. Claude
// Code runs the status line at most every 300 ms; a command slower than
// that would hold cairn's line back with it.
const ChainTimeout = 300 * time.Millisecond

// waitDelay bounds the wait for a killed command's output pipes, which a
// grandchild that left the process group could hold open forever.
const waitDelay = 50 * time.Millisecond

// maxChained bounds what is kept of a chained command's output.
const maxChained = 64 << 10

// Chained is the user's own status line command, running beside cairn's.
type Chained struct {
	done chan string
}

// StartChain runs command through sh -c with the status line's input on
// its stdin, as Claude Code would have run it, and returns at once; env is
// its environment (nil: this process's). Line gives its first line of
// output, or "" when it failed, printed nothing or ran out of time.
func StartChain(ctx context.Context, command string, env []string, stdin []byte, timeout time.Duration) *Chained {
	c := &Chained{done: make(chan string, 1)}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	out := &capped{max: maxChained}
	cmd.Stdout = out
	cmd.WaitDelay = waitDelay
	setProcessGroup(cmd)
	go func() {
		defer cancel()
		err := cmd.Run()
		// ErrWaitDelay: the command succeeded, but left something running
		// that holds its output open; what it printed stands.
		if err != nil && !errors.Is(err, exec.ErrWaitDelay) || ctx.Err() != nil {
			c.done <- ""
			return
		}
		c.done <- firstLine(out.Bytes())
	}()
	return c
}

// Line waits for the command: at most its timeout and waitDelay, since the
// timeout kills the command's whole process group and waitDelay stops the
// wait for pipes something else still holds.
func (c *Chained) Line() string { return <-c.done }

func firstLine(out []byte) string {
	if i := bytes.IndexByte(out, '\n'); i >= 0 {
		out = out[:i]
	}
	s := strings.TrimRight(string(out), "\r")
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return s
}

// capped keeps the first max bytes written to it and discards the rest,
// without failing the writer.
type capped struct {
	bytes.Buffer
	max int
}

func (w *capped) Write(p []byte) (int, error) {
	if room := w.max - w.Len(); room > 0 {
		w.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
