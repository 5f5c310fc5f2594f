//go:build unix

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The interactive client needs a terminal. tmux gives it one of a fixed
// size, detached, that a test types into (send-keys) and reads back
// (capture-pane), as a user would see it.

// requireTmux returns the tmux binary. Like claudecode.Require, a missing
// tmux fails the test when CI=true (CI must never pass by skipping) and
// skips it otherwise.
func requireTmux(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("tmux")
	if err == nil {
		return bin
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("tmux is needed to run Claude Code interactively and CI=true never skips: %v (install it, e.g. apt-get install tmux)", err)
	}
	t.Skipf("tmux not found, not running the interactive client: %v", err)
	return ""
}

// tmuxConf is the whole configuration of the bench's tmux server (the
// user's ~/.tmux.conf is never read): no tmux status bar, so the pane is
// the whole window; a dead pane stays so that what the client last printed
// can still be read; focus events on, or Claude Code prints a hint about
// them in the middle of the screen.
const tmuxConf = `set -g status off
set -g remain-on-exit on
set -g history-limit 50000
set -g focus-events on
set -g escape-time 0
`

// tmuxPane is a tmux server of its own (a socket in a private directory)
// running one command in a detached session of a fixed size.
type tmuxPane struct {
	bin    string
	dir    string // holds the socket and the configuration
	sock   string
	target string
	// env is the environment of every tmux call. The server is started by
	// the first one, and a pane's command gets the server's environment
	// (plus TMUX, TMUX_PANE and TERM), so the command's environment is
	// exactly env: nothing is inherited from the test's own.
	env []string
}

// startTmux starts argv in a width x height pane, in dir, with env as its
// whole environment (TERM aside, which tmux sets). Stopping it is
// registered with t.Cleanup; stop is given a chance to end the command
// gracefully first (it may be nil).
func startTmux(t *testing.T, bin, dir string, env []string, width, height int, stop func(*tmuxPane), argv ...string) *tmuxPane {
	t.Helper()
	// A socket path must stay under about 100 bytes: t.TempDir's can be
	// longer, so the socket gets a short directory of its own.
	sockDir, err := os.MkdirTemp("", "cairn-tmux-")
	if err != nil {
		t.Fatal(err)
	}
	p := &tmuxPane{bin: bin, dir: sockDir, sock: filepath.Join(sockDir, "s"), target: "bench"}
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TERM=") {
			p.env = append(p.env, kv)
		}
	}
	// The tmux client itself needs a TERM; the pane's comes from tmux's
	// default-terminal.
	p.env = append(p.env, "TERM=xterm-256color")
	conf := filepath.Join(sockDir, "tmux.conf")
	if err := os.WriteFile(conf, []byte(tmuxConf), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-f", conf, "new-session", "-d", "-s", p.target,
		"-x", strconv.Itoa(width), "-y", strconv.Itoa(height), "-c", dir}
	if _, err := p.run(append(args, argv...)...); err != nil {
		os.RemoveAll(sockDir)
		t.Fatalf("start tmux: %v", err)
	}
	t.Cleanup(func() {
		if stop != nil {
			stop(p)
		}
		p.kill(t)
	})
	return p
}

// run is one tmux command against the bench's server.
func (p *tmuxPane) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.bin, append([]string{"-S", p.sock}, args...)...)
	cmd.Env = p.env
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("tmux %s: %w: %s", strings.Join(args, " "), errors.Join(err, ctx.Err()), strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// Screen is what the pane shows now, one string per row, wrapped rows
// joined (-J) and trailing spaces dropped.
func (p *tmuxPane) Screen() (string, error) {
	return p.run("capture-pane", "-p", "-J", "-t", p.target)
}

// History is everything the pane has shown that is still on the screen or
// in its scrollback, oldest first.
func (p *tmuxPane) History() (string, error) {
	return p.run("capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", p.target)
}

// Type sends text literally, as typed keys.
func (p *tmuxPane) Type(text string) error {
	_, err := p.run("send-keys", "-t", p.target, "-l", text)
	return err
}

// Keys sends named keys (Enter, C-c, Escape...).
func (p *tmuxPane) Keys(keys ...string) error {
	_, err := p.run(append([]string{"send-keys", "-t", p.target}, keys...)...)
	return err
}

// paneState is the pane's process: its pid and, once it exited, its status.
type paneState struct {
	PID    int
	Dead   bool
	Status string
}

func (p *tmuxPane) State() (paneState, error) {
	out, err := p.run("display-message", "-p", "-t", p.target, "#{pane_pid} #{pane_dead} #{pane_dead_status}")
	if err != nil {
		return paneState{}, err
	}
	f := strings.Fields(out)
	var st paneState
	if len(f) > 0 {
		st.PID, _ = strconv.Atoi(f[0])
	}
	st.Dead = len(f) > 1 && f[1] == "1"
	if len(f) > 2 {
		st.Status = f[2]
	}
	return st, nil
}

// WaitScreen polls the screen until ok accepts it, and returns it. On
// timeout it returns the last screen with an error saying what was
// awaited; a pane whose command exited ends the wait at once.
func (p *tmuxPane) WaitScreen(timeout time.Duration, what string, ok func(screen string) bool) (string, error) {
	deadline := time.Now().Add(timeout)
	var screen string
	for {
		s, err := p.Screen()
		if err == nil {
			screen = s
			if ok(screen) {
				return screen, nil
			}
		}
		if st, err := p.State(); err == nil && st.Dead {
			return screen, fmt.Errorf("waiting for %s: the client exited (status %s)", what, st.Status)
		}
		if time.Now().After(deadline) {
			return screen, fmt.Errorf("waiting for %s: not there after %s", what, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// kill stops the server and makes sure the pane's process group is gone,
// so nothing writes into the test's temporary directories while they are
// removed.
func (p *tmuxPane) kill(t *testing.T) {
	st, serr := p.State()
	if _, err := p.run("kill-server"); err != nil && serr == nil {
		t.Logf("tmux kill-server: %v", err)
	}
	if serr == nil && st.PID > 0 {
		// kill-server hangs the pane up; give the client a moment to end
		// on SIGHUP, then kill its process group (tmux made it a session
		// leader, so the group is the client and what it spawned, hooks
		// still running included).
		deadline := time.Now().Add(3 * time.Second)
		for time.Now().Before(deadline) && syscall.Kill(st.PID, 0) == nil {
			time.Sleep(50 * time.Millisecond)
		}
		_ = syscall.Kill(-st.PID, syscall.SIGKILL)
	}
	os.RemoveAll(p.dir)
}
