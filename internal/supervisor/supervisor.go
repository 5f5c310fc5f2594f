// Package supervisor runs an interactive agent client in a pseudo-terminal
// and restarts it into the same session when asked: seed 000's hot-reload
// wrapper. The user's terminal is passed through untouched (raw mode on
// it, bytes copied both ways, the window size followed); a restart comes
// from outside (`cairn run reload`, which the /reload slash command runs),
// from Ctrl+C then r typed within a moment, or from a change to the files
// the client reads only at its start. The terminal is put back as it was
// on every way out.
package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"time"

	"golang.org/x/term"
)

// ErrUnsupported is returned where cairn cannot open a pseudo-terminal.
var ErrUnsupported = errors.New("cairn run needs a Linux pseudo-terminal; it is not supported here")

// Reason says why the client was restarted.
type Reason string

const (
	// ByRequest: `cairn run reload` (the /reload slash command).
	ByRequest Reason = "/reload"
	// ByChord: Ctrl+C then r.
	ByChord Reason = "Ctrl+C r"
	// ByChange: a watched file changed.
	ByChange Reason = "configuration changed"
	// ByLevel: the session's context reached the level at which it is
	// started afresh (--fresh-at), primed with its handoff.
	ByLevel Reason = "context level reached"
)

// EnvPID names the supervisor's pid in the client's environment, for
// `cairn run reload`.
const EnvPID = "CAIRN_RUN_PID"

// EnvReload is set in a restarted client's environment to a token unique
// to the restart: cairn's SessionStart hook then gives the resumed session
// its working state, once per token.
const EnvReload = "CAIRN_RUN_RELOAD"

// Supervisor runs one client, restarting it as asked.
type Supervisor struct {
	// Command is the client and its arguments as it is first started;
	// restarts derive theirs from them.
	Command []string
	// Dir is the client's working directory; "" is cairn's.
	Dir string
	// Env is the client's environment; EnvPID and, on a restart,
	// EnvReload are added.
	Env []string
	// In and Out are the user's terminal (or, in tests, pipes: raw mode
	// and sizes are then left alone).
	In  io.Reader
	Out io.Writer
	// Session names the session the client started at started was
	// running, "" when it cannot tell; nil restarts fresh.
	Session func(started time.Time) string
	// ResumeArgs are the client's arguments to resume session id; nil
	// restarts with Command as given.
	ResumeArgs func(args []string, id string) []string
	// NewArgs are the client's arguments to restart in a new session,
	// when the one it ran cannot be told; nil restarts with Command as
	// given.
	NewArgs func(args []string) []string
	// BeforeRestart runs while the client still runs, e.g. to take a
	// checkpoint; its error is shown and the restart goes on. For a
	// fresh start (ByLevel) it returns the new session's first prompt.
	BeforeRestart func(ctx context.Context, session string, why Reason) (prime string, err error)
	// Due, polled every WatchEvery, says whether the session reached the
	// level at which the client starts a fresh session instead of
	// compacting; nil never does.
	Due func(session string) bool
	// FreshArgs are the client's arguments for a new session whose first
	// prompt is prime.
	FreshArgs func(args []string, prime string) []string
	// Watch fingerprints the files whose change restarts the client,
	// polled every WatchEvery; nil watches nothing.
	Watch      func() string
	WatchEvery time.Duration
	// Requests are restarts asked from outside.
	Requests <-chan struct{}
	// ChordWindow is how soon after Ctrl+C an r restarts (default 1.5 s).
	ChordWindow time.Duration
	// Grace is how long the client has to end after SIGTERM before it is
	// killed (default 5 s).
	Grace time.Duration
	Now   func() time.Time
}

// timer is a channel that fires once.
type timer = <-chan time.Time

// child is one run of the client.
type child struct {
	cmd    *exec.Cmd
	pty    *PTY
	exited chan struct{} // closed when the client exited
	copied chan struct{} // closed when its output is all copied
	err    error         // Wait's, once exited is closed
}

// Run runs the client until it exits of itself or ctx is done, and
// returns its exit code.
func (s *Supervisor) Run(ctx context.Context) (int, error) {
	if !Supported {
		return 0, ErrUnsupported
	}
	if len(s.Command) == 0 {
		return 0, errors.New("no client to run")
	}
	s.defaults()
	restore := s.rawTerminal()
	defer restore() // runs on a panic too

	// The input is read for the whole run, and goes to whichever client
	// runs now; what is typed while none does waits for the next.
	var mu sync.Mutex
	ready := sync.NewCond(&mu)
	var target io.Writer
	setTarget := func(w io.Writer) {
		mu.Lock()
		target = w
		mu.Unlock()
		ready.Broadcast()
	}
	chorded := make(chan struct{}, 1)
	go func() {
		c := chord{window: s.ChordWindow}
		buf := make([]byte, 4096)
		for {
			n, err := s.In.Read(buf)
			if n > 0 {
				out, restart := c.filter(s.Now(), buf[:n])
				mu.Lock()
				for target == nil {
					ready.Wait()
				}
				w := target
				mu.Unlock()
				w.Write(out)
				if restart {
					select {
					case chorded <- struct{}{}:
					default:
					}
				}
			}
			if err != nil {
				return
			}
		}
	}()
	resize := make(chan os.Signal, 1)
	if resizeSignal != nil {
		signal.Notify(resize, resizeSignal)
		defer signal.Stop(resize)
	}

	args := s.Command[1:]
	base := append(s.Env[:len(s.Env):len(s.Env)], EnvPID+"="+strconv.Itoa(os.Getpid()))
	env := base
	session := ""
	left := map[string]bool{} // sessions started afresh from: never resumed
	for restarts := 0; ; restarts++ {
		started := s.Now()
		c, err := s.start(args, env)
		if err != nil {
			return 0, err
		}
		setTarget(c.pty.Master)
		why, err := s.wait(ctx, c, started, session, left, resize, chorded)
		setTarget(nil)
		if why == "" {
			if err == nil && ctx.Err() == nil {
				s.stop(c) // it exited: this waits for its last output
				return exitCode(c.err), nil
			}
			s.stop(c)
			fmt.Fprint(s.Out, resetModes)
			return exitCode(c.err), err
		}
		if s.Session != nil {
			if id := s.Session(started); id != "" && !left[id] {
				session = id
			}
		}
		prime := ""
		if s.BeforeRestart != nil {
			var err error
			if prime, err = s.BeforeRestart(ctx, session, why); err != nil {
				fmt.Fprintf(s.Out, "\r\ncairn: %v\r\n", err)
			}
		}
		s.stop(c)
		args = s.Command[1:]
		switch {
		case why == ByLevel && s.FreshArgs != nil:
			// The old session is done with: never resumed or measured
			// again.
			left[session] = true
			fmt.Fprintf(s.Out, "\r\n%scairn: session %s reached the level for a fresh start; starting %s in a new session from its handoff\r\n", resetModes, session, s.Command[0])
			args = s.FreshArgs(args, prime)
			session = ""
			env = base
			continue
		case session != "" && s.ResumeArgs != nil:
			args = s.ResumeArgs(args, session)
			fmt.Fprintf(s.Out, "\r\n%scairn: restarting %s (%s), resuming session %s\r\n", resetModes, s.Command[0], why, session)
		default:
			if s.NewArgs != nil {
				args = s.NewArgs(args)
			}
			fmt.Fprintf(s.Out, "\r\n%scairn: restarting %s (%s) in a new session\r\n", resetModes, s.Command[0], why)
		}
		token := strconv.FormatInt(started.UnixNano(), 36) + "-" + strconv.Itoa(restarts+1)
		env = append(base[:len(base):len(base)], EnvReload+"="+token)
	}
}

// resetModes turns off the terminal modes a client killed mid-way may
// have left on: a hidden cursor, bracketed paste, focus reports. Its
// termios is the supervisor's and is restored apart.
const resetModes = "\x1b[?25h\x1b[?2004l\x1b[?1004l"

func (s *Supervisor) defaults() {
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.ChordWindow <= 0 {
		s.ChordWindow = 1500 * time.Millisecond
	}
	if s.Grace <= 0 {
		s.Grace = 5 * time.Second
	}
	if s.WatchEvery <= 0 {
		s.WatchEvery = 500 * time.Millisecond
	}
}

// rawTerminal puts the user's terminal in raw mode, so that every key
// goes to the client as typed and the client's own line discipline does
// the rest, and returns what puts it back.
func (s *Supervisor) rawTerminal() func() {
	f, ok := s.In.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	old, err := term.MakeRaw(int(f.Fd()))
	if err != nil {
		return func() {}
	}
	var once sync.Once
	return func() { once.Do(func() { term.Restore(int(f.Fd()), old) }) }
}

// size is the user's terminal's size; ok is false when there is none.
func (s *Supervisor) size() (rows, cols int, ok bool) {
	for _, x := range []any{s.Out, s.In} {
		if f, isFile := x.(*os.File); isFile && term.IsTerminal(int(f.Fd())) {
			if w, h, err := term.GetSize(int(f.Fd())); err == nil {
				return h, w, true
			}
		}
	}
	return 0, 0, false
}

// start starts the client in a new pseudo-terminal of the user's size.
func (s *Supervisor) start(args, env []string) (*child, error) {
	p, err := OpenPTY()
	if err != nil {
		return nil, err
	}
	if rows, cols, ok := s.size(); ok {
		p.SetSize(rows, cols)
	} else {
		p.SetSize(24, 80)
	}
	cmd := exec.Command(s.Command[0], args...)
	cmd.Dir, cmd.Env = s.Dir, env
	if err := p.Start(cmd); err != nil {
		p.Close()
		return nil, fmt.Errorf("start %s: %w", s.Command[0], err)
	}
	// Only the client holds the slave now: its last process to exit
	// ends the master's output.
	p.Slave.Close()
	c := &child{cmd: cmd, pty: p, exited: make(chan struct{}), copied: make(chan struct{})}
	go func() {
		io.Copy(s.Out, p.Master) // ends with EIO when the client is gone
		close(c.copied)
	}()
	go func() {
		c.err = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// wait waits for the client to exit, ctx to end, or a restart, whose
// reason it returns.
func (s *Supervisor) wait(ctx context.Context, c *child, started time.Time, resumed string, left map[string]bool, resize <-chan os.Signal, chorded <-chan struct{}) (Reason, error) {
	var tick <-chan time.Time
	base := ""
	if s.Watch != nil || s.Due != nil {
		t := time.NewTicker(s.WatchEvery)
		defer t.Stop()
		tick = t.C
	}
	if s.Watch != nil {
		base = s.Watch()
	}
	for {
		select {
		case <-c.exited:
			return "", nil
		case <-ctx.Done():
			return "", ctx.Err()
		case <-resize:
			if rows, cols, ok := s.size(); ok {
				c.pty.SetSize(rows, cols)
			}
		case <-chorded:
			return ByChord, nil
		case <-s.Requests:
			return ByRequest, nil
		case <-tick:
			if s.Watch != nil && s.Watch() != base {
				return ByChange, nil
			}
			if s.Due != nil && s.Session != nil {
				id := s.Session(started)
				if id == "" || left[id] {
					id = resumed
				}
				if id != "" && !left[id] && s.Due(id) {
					return ByLevel, nil
				}
			}
		}
	}
}

// stop ends the client and waits for its output.
func (s *Supervisor) stop(c *child) {
	select {
	case <-c.exited:
	default:
		terminate(c.cmd, c.exited, time.After(s.Grace))
	}
	select {
	case <-c.copied:
	case <-time.After(s.Grace):
		// A grandchild kept the terminal open: closing the master
		// ends the copy.
	}
	c.pty.Close()
}

// exitCode is the client's exit status as cairn's.
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if code := ee.ExitCode(); code >= 0 {
			return code
		}
		return 1
	default:
		return 1
	}
}
