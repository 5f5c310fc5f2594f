package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/supervisor"
)

// superviseCmd is `cairn run [--watch] -- claude ARGS...`, seed 000's reload
// supervisor, and `cairn run reload`, which the /reload slash command runs
// inside it.
func superviseCmd() command {
	return command{
		args:     "[--watch] -- claude [ARGS...] | reload",
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
cairn run exits with the client's exit code when the client exits of itself.`,
		setup: func(fs *flag.FlagSet) runFunc {
			watch := fs.Bool("watch", false, "restart when CLAUDE.md, settings, agents or skills change")
			return func(ctx context.Context, a *App, args []string) error {
				if len(args) == 1 && args[0] == "reload" {
					return a.reload(ctx)
				}
				if len(args) == 0 {
					return usageErrorf("give the client to run: cairn run -- claude [ARGS...]")
				}
				return a.supervise(ctx, args, *watch)
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
func (a *App) supervise(ctx context.Context, command []string, watch bool) error {
	if !supervisor.Supported {
		return supervisor.ErrUnsupported
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
	s := &supervisor.Supervisor{
		Command: command, Dir: e.cwd, Env: environ, In: in, Out: out,
		Requests: requests, Now: a.Now,
		Session: func(started time.Time) string {
			// The session the client was writing: the project's
			// transcript written last since it started.
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
		BeforeRestart: func(ctx context.Context, id string, _ supervisor.Reason) error {
			if id == "" {
				return nil
			}
			folder, _, _ := claudecode.ProjectDir(e.configDir, e.cwd)
			f, err := claudecode.FindSession(e.configDir, folder, id)
			if err != nil {
				return fmt.Errorf("checkpoint before the restart: %w", err)
			}
			if _, err := e.keeper.Capture(ctx, e.root, f.Path, "manual"); err != nil {
				return fmt.Errorf("checkpoint before the restart: %w", err)
			}
			return nil
		},
	}
	if isClaude(command[0]) {
		s.ResumeArgs = supervisor.ClaudeResumeArgs
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
