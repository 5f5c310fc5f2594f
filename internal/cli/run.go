package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/handoff"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/supervisor"
)

// superviseCmd is `cairn run [--watch] -- claude ARGS...`, seed 000's reload
// supervisor, and `cairn run reload`, which the /reload slash command runs
// inside it.
func superviseCmd() command {
	return command{
		args:     "[--watch] [--fresh-at LEVEL] -- claude [ARGS...] | reload",
		summary:  "run Claude Code under cairn's reload supervisor: /reload, Ctrl+C then r, or (--watch) a configuration change restarts it into the same session",
		words:    []string{"reload"},
		wordsAre: "subcommands",
		details: `The client runs in a pseudo-terminal; the terminal is passed through as it is. It is
restarted, resumed with claude --resume ID and given its working state once (cairn's
SessionStart hook, from a checkpoint taken just before), when:
  /reload is typed in it (the slash command cairn install writes runs cairn run reload);
  Ctrl+C is followed by r within 1.5 s (a Ctrl+C alone reaches the client as usual);
  --watch: CLAUDE.md, .claude/settings.json, .claude/settings.local.json, .claude/agents/
  or .claude/skills/ change.
With --fresh-at L2 (seed 000's 85%: L1, L2 or L3 of the project's levels), a session whose
context reaches that level is ended with a checkpoint and a handoff, and the client starts a
new session primed with the handoff instead of compacting.
The session is pinned (claude --session-id, a UUID cairn makes, unless --session-id or
--resume ID chose it), so another session in the project never takes its place; a prompt on the
command line is not sent again on a restart; -p/--print is refused.
cairn run exits with the client's exit code when the client exits of itself.`,
		setup: func(fs *flag.FlagSet) runFunc {
			watch := fs.Bool("watch", false, "restart when CLAUDE.md, settings, agents or skills change")
			freshAt := fs.String("fresh-at", "", "at `LEVEL` (L1, L2, L3), start a new session from a handoff instead of compacting")
			return func(ctx context.Context, a *App, args []string) error {
				level := 0
				if *freshAt != "" {
					n, err := strconv.Atoi(strings.TrimPrefix(strings.ToUpper(*freshAt), "L"))
					if err != nil || n < 1 || n > 3 {
						return usageErrorf("--fresh-at takes L1, L2 or L3, not %q", *freshAt)
					}
					level = n
				}
				if len(args) == 1 && args[0] == "reload" {
					return a.reload(ctx)
				}
				if len(args) == 0 {
					return usageErrorf("give the client to run: cairn run -- claude [ARGS...]")
				}
				return a.supervise(ctx, args, *watch, level)
			}
		},
	}
}

// reload asks the supervisor the client runs under to restart it.
func (a *App) reload(ctx context.Context) error {
	v := a.Getenv(supervisor.EnvPID)
	if v == "" {
		return withHint(errors.New("this client is not running under cairn run"),
			"start it with: cairn run -- claude (then /reload restarts it)")
	}
	pid, err := strconv.Atoi(v)
	if err != nil || pid <= 0 {
		return fmt.Errorf("%s=%q is not a process id", supervisor.EnvPID, v)
	}
	if supervisor.ReloadSignal == nil {
		return supervisor.ErrUnsupported
	}
	p, err := os.FindProcess(pid)
	if err == nil {
		err = p.Signal(supervisor.ReloadSignal)
	}
	if err != nil {
		return withHint(fmt.Errorf("signal cairn run (pid %d): %w", pid, err), "is cairn run still running? restart the client by hand")
	}
	// The supervisor stops the client, and this command with it, before
	// the slash command's prompt can go to the model. Still running
	// after reloadWait means it did not.
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(reloadWait):
	}
	return withHint(fmt.Errorf("cairn run (pid %d) did not restart the client within %s", pid, reloadWait),
		"restart it by hand: Ctrl+C then r")
}

// reloadWait is how long `cairn run reload` waits to be stopped with the
// client it restarts.
const reloadWait = 20 * time.Second

// supervise runs the client under the supervisor until it exits.
func (a *App) supervise(ctx context.Context, command []string, watch bool, freshAt int) error {
	if !supervisor.Supported {
		return supervisor.ErrUnsupported
	}
	if isClaude(command[0]) && supervisor.ClaudePrints(command[1:]) {
		return addHint(usageErrorf("cairn run is for the interactive client: -p/--print runs it headless, with nothing to restart"),
			"run claude -p directly (cairn's hooks still run), or cairn loop for headless iterations over a plan")
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	in, _ := a.Stdin.(*os.File)
	out, _ := a.Stdout.(*os.File)
	if in == nil || out == nil || !isTerminal(in) {
		return withHint(errors.New("cairn run needs a terminal"), "run it from a terminal: the client it runs is interactive")
	}
	environ := os.Environ()
	if a.Environ != nil {
		environ = a.Environ()
	}
	conf, _ := config.Load(e.root)
	requests := make(chan struct{}, 1)
	if supervisor.ReloadSignal != nil {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, supervisor.ReloadSignal)
		defer signal.Stop(sig)
		go func() {
			for range sig {
				select {
				case requests <- struct{}{}:
				default:
				}
			}
		}()
	}
	// Raw mode keeps Ctrl+C from the terminal; these come from elsewhere
	// (a closed terminal, kill) and end the client and cairn, the
	// terminal restored.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGHUP, os.Interrupt)
	defer stop()
	// The session is pinned where it can be (ClaudePin): the client
	// started with --session-id, or the one --resume names. Else (a
	// client that is not Claude Code, --continue) it is the project's
	// transcript written last since the client started.
	pinned := ""
	claude := isClaude(command[0])
	if claude {
		var args []string
		args, pinned = supervisor.ClaudePin(command[1:], supervisor.NewSessionID)
		command = append([]string{command[0]}, args...)
	}
	s := &supervisor.Supervisor{
		Command: command, Dir: e.cwd, Env: environ, In: in, Out: out,
		Requests: requests, Now: a.Now,
		Session: func(started time.Time) string {
			if pinned != "" {
				// Resumable once the client wrote its transcript.
				if _, err := sessionPath(e, pinned); err != nil {
					return ""
				}
				return pinned
			}
			folder, _, ok := claudecode.ProjectDir(e.configDir, e.cwd)
			if !ok {
				return ""
			}
			files, err := claudecode.Sessions(folder)
			if err != nil || len(files) == 0 || files[0].ModTime.Before(started.Add(-time.Second)) {
				return ""
			}
			return files[0].ID
		},
		BeforeRestart: func(ctx context.Context, id string, why supervisor.Reason) (string, error) {
			if id == "" {
				return "", nil
			}
			path, err := sessionPath(e, id)
			if err != nil {
				return "", fmt.Errorf("checkpoint before the restart: %w", err)
			}
			c, err := e.keeper.Capture(ctx, e.root, path, "manual")
			if err != nil {
				return "", fmt.Errorf("checkpoint before the restart: %w", err)
			}
			if why != supervisor.ByLevel {
				return "", nil
			}
			h, err := handoff.Write(e.root, c, handoff.Input{Project: e.root, Now: a.Now, Loc: a.Loc, Level: freshAt, Pressure: conf.Pressure})
			if err != nil {
				return "", fmt.Errorf("handoff before the fresh start: %w", err)
			}
			if rel, err := filepath.Rel(e.root, h); err == nil {
				h = rel
			}
			return fmt.Sprintf("cairn: the previous session (%s) reached %s and was ended with a checkpoint instead of compacting. "+
				"Read the handoff %s first, then carry on with the work it describes.", id, pressure.Name(freshAt), h), nil
		},
	}
	if freshAt > 0 {
		s.Due = func(id string) bool {
			path, err := sessionPath(e, id)
			if err != nil {
				return false
			}
			sess, err := e.keeper.Load(path, false) // incremental: only what was appended
			if err != nil {
				return false
			}
			r, _ := meter.Measure(sess, e.settings)
			return conf.Pressure.Level(r) >= freshAt
		}
		s.FreshArgs = supervisor.ClaudeFreshArgs
		if claude {
			s.FreshArgs = func(args []string, prime string) []string {
				pinned = supervisor.NewSessionID()
				return append([]string{"--session-id", pinned}, supervisor.ClaudeFreshArgs(args, prime)...)
			}
		}
	}
	if claude {
		s.ResumeArgs = supervisor.ClaudeResumeArgs
		s.NewArgs = func(args []string) []string {
			pinned = supervisor.NewSessionID()
			return supervisor.ClaudeNewArgs(args, pinned)
		}
	}
	if watch {
		s.Watch = func() string { return supervisor.Fingerprint(e.root, supervisor.Watched) }
	}
	code, err := s.Run(ctx)
	if err != nil && ctx.Err() == nil {
		return err
	}
	if code != 0 {
		return exitStatus(code)
	}
	return nil
}

// sessionPath is the transcript of Claude Code's session id.
func sessionPath(e *env, id string) (string, error) {
	folder, _, _ := claudecode.ProjectDir(e.configDir, e.cwd)
	f, err := claudecode.FindSession(e.configDir, folder, id)
	return f.Path, err
}

// isClaude says whether the client is Claude Code, which resumes with
// --resume ID.
func isClaude(name string) bool {
	base := name
	for i := len(name) - 1; i >= 0; i-- {
		if os.IsPathSeparator(name[i]) {
			base = name[i+1:]
			break
		}
	}
	return base == "claude" || base == "claude.exe"
}
