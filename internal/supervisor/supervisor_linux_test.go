//go:build linux

package supervisor

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// screen is what the supervisor wrote, safe to read while it writes.
type screen struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits for text on the screen.
func (s *screen) waitFor(t *testing.T, text string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q on the screen:\n%q", text, s.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type result struct {
	code int
	err  error
}

// run starts sup in the background with a pipe as its input.
func run(t *testing.T, ctx context.Context, sup *Supervisor) (in io.Writer, out *screen, done <-chan result) {
	t.Helper()
	r, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	out = &screen{}
	sup.In, sup.Out = r, out
	if sup.Env == nil {
		sup.Env = []string{"PATH=" + os.Getenv("PATH")}
	}
	ch := make(chan result, 1)
	go func() {
		code, err := sup.Run(ctx)
		ch <- result{code, err}
	}()
	return w, out, ch
}

func finished(t *testing.T, done <-chan result) result {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(20 * time.Second):
		t.Fatal("the supervisor did not return")
		return result{}
	}
}

func TestRunPassesThrough(t *testing.T) {
	tests := []struct {
		name   string
		script string
		input  string
		want   string
		code   int
	}{
		{"a terminal of the default size", `test -t 0 && test -t 1 && stty size`, "", "24 80", 0},
		{"its own session and terminal", `ps -o tty= -p $$ | grep -q pts && echo has-tty`, "", "has-tty", 0},
		{"input reaches it", `read line; echo "got:$line"`, "hello\n", "got:hello", 0},
		{"exit code", `echo bye; exit 3`, "", "bye", 3},
		{"environment", `echo "pid=$CAIRN_RUN_PID reload=$CAIRN_RUN_RELOAD."`, "", "pid=" + strconv.Itoa(os.Getpid()) + " reload=.", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, out, done := run(t, t.Context(), &Supervisor{Command: []string{"sh", "-c", tt.script}})
			if tt.input != "" {
				in.Write([]byte(tt.input))
			}
			r := finished(t, done)
			if r.err != nil || r.code != tt.code {
				t.Errorf("Run = %d, %v; want %d, nil", r.code, r.err, tt.code)
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("screen %q lacks %q", out.String(), tt.want)
			}
		})
	}
}

// restarting is a client that, started afresh, says so and waits; resumed
// (its arguments start with --resume ID), it prints them and the reload
// token and exits.
const restarting = `trap "" INT
if [ "$1" = --resume ]; then echo "resumed $2 token=$CAIRN_RUN_RELOAD."; exit 0; fi
echo first; exec sleep 60`

func TestRunRestarts(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte("{}"), 0o644)
	tests := []struct {
		name   string
		why    Reason
		prompt func(in io.Writer, req chan<- struct{})
	}{
		{"by request", ByRequest, func(_ io.Writer, req chan<- struct{}) { req <- struct{}{} }},
		{"by ctrl+c r", ByChord, func(in io.Writer, _ chan<- struct{}) { in.Write([]byte("\x03r")) }},
		{"by a settings change", ByChange, func(io.Writer, chan<- struct{}) {
			os.WriteFile(settings, []byte(`{"model":"opus"}`), 0o644)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := make(chan struct{})
			var before []string
			sup := &Supervisor{
				Command:    []string{"sh", "-c", restarting, "sh"},
				Session:    func(time.Time) string { return "S1" },
				ResumeArgs: func(args []string, id string) []string { return append(args, "--resume", id) },
				BeforeRestart: func(_ context.Context, id string, why Reason) (string, error) {
					before = append(before, id+" "+string(why))
					return "", nil
				},
				Requests:   req,
				Watch:      func() string { return Fingerprint(dir, Watched) },
				WatchEvery: 20 * time.Millisecond,
			}
			in, out, done := run(t, t.Context(), sup)
			out.waitFor(t, "first")
			tt.prompt(in, req)
			r := finished(t, done)
			if r.err != nil || r.code != 0 {
				t.Errorf("Run = %d, %v; want 0, nil", r.code, r.err)
			}
			out.waitFor(t, "resuming session S1")
			out.waitFor(t, "resumed S1 token=")
			if strings.Contains(out.String(), "token=.") {
				t.Errorf("the restarted client has no %s: %q", EnvReload, out.String())
			}
			if want := "S1 " + string(tt.why); len(before) != 1 || before[0] != want {
				t.Errorf("BeforeRestart calls = %q; want [%q]", before, want)
			}
		})
	}
}

// TestRunStartsFresh: a session at the fresh-start level is left for a new
// one primed with what BeforeRestart returns, not resumed, and never
// measured again.
func TestRunStartsFresh(t *testing.T) {
	const client = `if [ "$1" = --fresh ]; then echo "fresh [$2] token=$CAIRN_RUN_RELOAD."; sleep 0.5; exit 0; fi
echo first; exec sleep 60`
	var due []string
	sup := &Supervisor{
		Command: []string{"sh", "-c", client, "sh"},
		Session: func(time.Time) string { return "S1" }, // the old transcript looks newest still
		Due: func(id string) bool {
			due = append(due, id)
			return id == "S1"
		},
		ResumeArgs: func(args []string, id string) []string { return append(args, "--resume", id) },
		FreshArgs:  func(args []string, prime string) []string { return append(args, "--fresh", prime) },
		BeforeRestart: func(_ context.Context, id string, why Reason) (string, error) {
			if id != "S1" || why != ByLevel {
				t.Errorf("BeforeRestart(%q, %q); want S1 at the level", id, why)
			}
			return "read the handoff h.md", nil
		},
		WatchEvery: 20 * time.Millisecond,
	}
	_, out, done := run(t, t.Context(), sup)
	r := finished(t, done)
	if r.err != nil || r.code != 0 {
		t.Errorf("Run = %d, %v; want 0, nil", r.code, r.err)
	}
	out.waitFor(t, "session S1 reached the level for a fresh start")
	out.waitFor(t, "fresh [read the handoff h.md] token=.")
	if strings.Count(out.String(), "reached the level") != 1 {
		t.Errorf("more than one fresh start:\n%q", out.String())
	}
}

func TestRunEndsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	sup := &Supervisor{Command: []string{"sh", "-c", "echo up; exec sleep 60"}, Grace: time.Second}
	_, out, done := run(t, ctx, sup)
	out.waitFor(t, "up")
	cancel()
	r := finished(t, done)
	if r.err == nil {
		t.Errorf("Run = %d, nil; want the context's error", r.code)
	}
}

func TestRunUnknownClient(t *testing.T) {
	_, _, done := run(t, t.Context(), &Supervisor{Command: []string{"/nonexistent/claude"}})
	if r := finished(t, done); r.err == nil || !strings.Contains(r.err.Error(), "start /nonexistent/claude") {
		t.Errorf("Run error = %v; want one naming the client", r.err)
	}
}

// TestRunRestoresTheTerminal gives the supervisor a terminal of its own
// (a pty's slave) and checks it is raw while the client runs and as it
// was afterwards, when the client exits and when it is stopped.
func TestRunRestoresTheTerminal(t *testing.T) {
	tests := []struct {
		name   string
		script string
		cancel bool
		panics bool
	}{
		{"the client exits", `stty -a >/dev/null; echo up; sleep 0.3`, false, false},
		{"the supervisor is stopped", `echo up; exec sleep 60`, true, false},
		{"a panic", `echo up; exec sleep 2`, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := OpenPTY()
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			p.SetSize(30, 100)
			go io.Copy(io.Discard, p.Master)
			fd := int(p.Slave.Fd())
			before, err := unix.IoctlGetTermios(fd, unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			req := make(chan struct{}, 1)
			sup := &Supervisor{Command: []string{"sh", "-c", tt.script}, In: p.Slave, Out: p.Slave, Grace: time.Second,
				Env: []string{"PATH=" + os.Getenv("PATH")}, Requests: req,
				BeforeRestart: func(context.Context, string, Reason) (string, error) { panic("boom") }}
			done := make(chan result, 1)
			go func() {
				defer func() {
					if r := recover(); r != nil {
						done <- result{err: fmt.Errorf("panic: %v", r)}
					}
				}()
				code, err := sup.Run(ctx)
				done <- result{code, err}
			}()
			deadline := time.Now().Add(5 * time.Second)
			for {
				during, _ := unix.IoctlGetTermios(fd, unix.TCGETS)
				if during.Lflag&unix.ICANON == 0 && during.Lflag&unix.ECHO == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the terminal never went raw")
				}
				time.Sleep(10 * time.Millisecond)
			}
			if tt.cancel {
				time.Sleep(100 * time.Millisecond)
				cancel()
			}
			if tt.panics {
				req <- struct{}{}
			}
			if r := finished(t, done); tt.panics != (r.err != nil && strings.HasPrefix(r.err.Error(), "panic")) {
				t.Errorf("Run = %v; panicked: want %v", r.err, tt.panics)
			}
			after, err := unix.IoctlGetTermios(fd, unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			if *after != *before {
				t.Errorf("termios after = %+v; want %+v", *after, *before)
			}
		})
	}
}

func TestOpenPTYSize(t *testing.T) {
	p, err := OpenPTY()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.SetSize(40, 120); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("stty", "size")
	cmd.Stdin = p.Slave
	got, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(got)) != "40 120" {
		t.Errorf("stty size = %q; want 40 120", got)
	}
}

// TestRunFollowsTheWindowSize: the client's terminal starts at the size of
// the user's, and follows it when the user's changes (SIGWINCH).
func TestRunFollowsTheWindowSize(t *testing.T) {
	outer, err := OpenPTY()
	if err != nil {
		t.Fatal(err)
	}
	defer outer.Close()
	outer.SetSize(30, 100)
	seen := &screen{}
	go io.Copy(seen, outer.Master)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sup := &Supervisor{Command: []string{"sh", "-c", `trap 'echo "now $(stty size)"' WINCH; echo "start $(stty size)"; while :; do sleep 0.05; done`},
		In: outer.Slave, Out: outer.Slave, Grace: time.Second, Env: []string{"PATH=" + os.Getenv("PATH")}}
	done := make(chan result, 1)
	go func() {
		code, err := sup.Run(ctx)
		done <- result{code, err}
	}()
	seen.waitFor(t, "start 30 100")
	outer.SetSize(50, 132)
	// The kernel signals the user's terminal's foreground group, which a
	// test is not; the signal is sent as the terminal would.
	unix.Kill(os.Getpid(), unix.SIGWINCH)
	seen.waitFor(t, "now 50 132")
	cancel()
	finished(t, done)
}
