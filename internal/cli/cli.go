// Package cli is cairn's command line: it parses arguments, wires the
// transcript engine, the state store and the meter together, and renders
// their results as text for people or JSON for machines.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Version is set at build time.
var Version = "dev"

// App carries everything a command touches in the outside world, so tests
// can substitute each part.
type App struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment, which is read nowhere else.
	Getenv func(string) string
	// Getwd is the working directory commands resolve the project from.
	Getwd func() (string, error)
	Now   func() time.Time
	// Loc is where times are shown.
	Loc *time.Location
}

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// Main runs cairn with the process's own streams and environment.
func Main() int {
	loc := time.Local
	return Run(context.Background(), os.Args[1:], &App{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv, Getwd: os.Getwd, Now: time.Now, Loc: loc,
	})
}

type command struct {
	name, args, help string
	run              func(ctx context.Context, a *App, args []string) error
}

func commands() []command {
	return []command{
		{"status", "[--session ID | --transcript PATH] [--json]", "show how full the context is, its trend and compactions", runStatus},
		{"sessions", "[--json] [-n N]", "list this project's recent sessions", runSessions},
		{"report", "PATH|ID [--json]", "show a session's timeline: context per turn, compactions, tools, files, errors", runReport},
		{"install", "[--user]", "wire cairn's hooks into this project's .claude/settings.json (or the user's)", runInstall},
		{"uninstall", "[--user]", "remove exactly what install added", runUninstall},
		{"doctor", "", "check the wiring, where state lives, and how each hook last ran", runDoctor},
		{"checkpoint", "[--session ID | --transcript PATH] [--json]", "capture the working state now", runCheckpoint},
		{"checkpoints", "[--json] [-n N]", "list this project's checkpoints", runCheckpoints},
		{"show", "checkpoint [ID] [--session ID] [--json]", "print a checkpoint (default: the latest) as Markdown", runShow},
		{"resume", "[--json]", "print the latest checkpoint of this project as text to continue from", runResume},
		{"handoff", "[--reason TEXT|-] [--session ID | --transcript PATH]", "capture the working state and write it as a handoff document under .claude/handoffs/", runHandoff},
		{"slash", "checkpoint [--status | --estimate FILE | --defer [N]]", "run what the /checkpoint slash command asks (run by Claude Code)", runSlash},
		{"snapshot", "[show N | restore N] [--session ID | --transcript PATH] [-m MESSAGE] [--json]", "record uncommitted work under refs/cairn/wip without touching it; show or restore one", runSnapshot},
		{"snapshots", "[--all | --session ID] [--json]", "list this session's work-tree snapshots (--all: every session's)", runSnapshots},
		{"estimate", "FILE|- [--session ID | --transcript PATH] [--json] | --learn --session ID FILE", "estimate the context a spec's task will take, and how to shard it", runEstimate},
		{"review", "[PATH] | record PATH --memory FILE|- [--summary TEXT]", "review an auto-compaction capture (default: the latest pending) and record its memory file", runReview},
		{"compound", "[--promote N,M|none] [--session ID]", "list progress.md entries not yet in the learnings; promote the ones named", runCompound},
		{"learn", "list | confirm ID", "list the learnings with their confidence, or confirm one", runLearn},
		{"defer", "[N] [--session ID | --transcript PATH]", "snooze the L1 and L2 advisories for N turns (default 10)", runDefer},
		{"statusline", "[--chain CMD]", "print the status line (run by Claude Code)", runStatusline},
		{"hook", "EVENT", "handle a Claude Code hook event (run by Claude Code)", runHook},
		{"version", "", "print cairn's version", func(_ context.Context, a *App, _ []string) error {
			fmt.Fprintf(a.Stdout, "cairn %s\n", Version)
			return nil
		}},
	}
}

// Run runs one cairn command and returns the process exit code.
func Run(ctx context.Context, args []string, a *App) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(a.Stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, a, args[1:])
		if err == nil {
			return exitOK
		}
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(a.Stderr, "cairn %s: %s\ncairn: hint: usage: cairn %s %s\n", c.name, ue.msg, c.name, c.args)
			return exitUsage
		}
		printError(a.Stderr, err)
		return exitError
	}
	fmt.Fprintf(a.Stderr, "cairn: error: unknown command %q\ncairn: hint: run 'cairn help' for the list\n", args[0])
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "cairn keeps an AI coding agent's working state through context compaction.")
	fmt.Fprintln(w, "\nUsage:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  cairn %-9s %s\n      %s\n", c.name, c.args, c.help)
	}
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// hintError is an error with a line telling the user what to do.
type hintError struct {
	err  error
	hint string
}

func (e hintError) Error() string { return e.err.Error() }
func (e hintError) Unwrap() error { return e.err }

func withHint(err error, hint string, args ...any) error {
	return hintError{err: err, hint: fmt.Sprintf(hint, args...)}
}

func printError(w io.Writer, err error) {
	fmt.Fprintf(w, "cairn: error: %s\n", err)
	var h hintError
	if errors.As(err, &h) && h.hint != "" {
		fmt.Fprintf(w, "cairn: hint: %s\n", h.hint)
	}
}

// newFlags makes a flag set that reports errors as usage errors.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseNone parses flags for a command that takes no other arguments.
func parseNone(fs *flag.FlagSet, args []string) error {
	rest, err := parse(fs, args)
	if err == nil && len(rest) > 0 {
		err = usageError{fmt.Sprintf("unexpected argument %q", rest[0])}
	}
	return err
}

// parse parses flags anywhere among the arguments and returns the rest.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			msg := err.Error()
			if f, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
				msg = "unknown flag " + f
			}
			return nil, usageError{msg}
		}
		args = fs.Args()
		if len(args) == 0 {
			return rest, nil
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
}
