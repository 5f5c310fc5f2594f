// Package cli is cairn's command line: it parses arguments, wires the
// transcript engine, the state store, the meter and the rest together,
// and renders their results as text for people or JSON for machines.
//
// Each command has a file of its own named after it; command.go holds the
// table they are listed in, which help, the did-you-mean and the shell
// completion read too; session.go the preamble of the commands that read
// one session; errors.go the one error type and how it is printed.
package cli

import (
	"context"
	"io"
	"os"
	"runtime/debug"
	"time"
)

// App carries everything a command touches in the outside world, so tests
// can substitute each part.
type App struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// StdinTerminal reports whether standard input is a terminal: a
	// person typing, not Claude Code running a hook with its payload piped
	// in. Only a hook asks; nil reads as no.
	StdinTerminal func() bool
	// Getenv reads the environment, which is read nowhere else.
	Getenv func(string) string
	// Environ is the whole environment, for the client cairn run starts;
	// nil is os.Environ.
	Environ func() []string
	// Getwd is the working directory commands resolve the project from.
	Getwd func() (string, error)
	Now   func() time.Time
	// Loc is where times are shown.
	Loc *time.Location
	// BuildInfo is the binary's, for `cairn version`.
	BuildInfo func() (*debug.BuildInfo, bool)
	// Executable is cairn's own path, for the jobs a hook starts (see
	// continuity.Job); nil does their work in the hook.
	Executable func() (string, error)
}

// ExitCode is what a cairn process exits with.
type ExitCode int

const (
	// ExitOK: the command did what it was asked.
	ExitOK ExitCode = 0
	// ExitError: it failed; the error says why and the hint what to do.
	ExitError ExitCode = 1
	// ExitUsage: the command line was wrong.
	ExitUsage ExitCode = 2
)

// Main runs cairn with the process's own streams and environment.
func Main() int {
	return int(Run(context.Background(), os.Args[1:], &App{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, StdinTerminal: func() bool { return isTerminal(os.Stdin) },
		Getenv: os.Getenv, Environ: os.Environ, Getwd: os.Getwd, Now: time.Now, Loc: time.Local,
		BuildInfo: debug.ReadBuildInfo, Executable: os.Executable,
	}))
}

// isTerminal reports whether f is a character device, as a terminal is;
// a pipe or a file is not.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Run runs one cairn command and returns the process exit code.
func Run(ctx context.Context, args []string, a *App) ExitCode {
	if len(args) == 0 {
		writeUsage(a.Stderr)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		writeUsage(a.Stdout)
		return ExitOK
	case "-version", "--version":
		args = append([]string{"version"}, args[1:]...)
	}
	return a.report(a.run(ctx, args))
}
