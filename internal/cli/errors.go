package cli

import (
	"errors"
	"fmt"
	"io"
)

// cliError is the one error type of the command line: what went wrong,
// the hints that say what to do about it, and the exit code. It prints as
//
//	cairn: error: no session of Claude Code, Codex CLI or Gemini CLI found for /home/me/x
//	cairn: hint: run cairn inside a project where Claude Code has run
//
// An error of another type prints as its first line alone and exits
// ExitError.
type cliError struct {
	err   error
	hints []string
	code  ExitCode
	// usage is whether the last hint is a command's usage.
	usage bool
}

func (e *cliError) Error() string { return e.err.Error() }
func (e *cliError) Unwrap() error { return e.err }

// withHint is err with a hint saying what to do about it.
func withHint(err error, hint string, args ...any) error {
	return &cliError{err: err, hints: []string{fmt.Sprintf(hint, args...)}, code: ExitError}
}

// usageErrorf is a command line that is wrong. The command's usage
// becomes its last hint.
func usageErrorf(format string, args ...any) error {
	return &cliError{err: fmt.Errorf(format, args...), code: ExitUsage}
}

// isUsage reports whether err is a usage error.
func isUsage(err error) bool {
	var ce *cliError
	return errors.As(err, &ce) && ce.code == ExitUsage
}

// addHint adds a hint to err, which becomes a cliError if it was not one.
func addHint(err error, hint string) error {
	var ce *cliError
	if !errors.As(err, &ce) {
		return &cliError{err: err, hints: []string{hint}, code: ExitError}
	}
	c := *ce
	c.hints = append(append([]string(nil), ce.hints...), hint)
	return &c
}

// exitStatus is a program's exit code that cairn passes on (cairn run's
// client): the program said what went wrong, so cairn says nothing.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// report prints err, if any, and returns its exit code.
func (a *App) report(err error) ExitCode {
	if err == nil {
		return ExitOK
	}
	var es exitStatus
	if errors.As(err, &es) {
		return ExitCode(es)
	}
	printError(a.Stderr, err)
	var ce *cliError
	if errors.As(err, &ce) {
		return ce.code
	}
	return ExitError
}

func printError(w io.Writer, err error) {
	fmt.Fprintf(w, "cairn: error: %s\n", err)
	var ce *cliError
	if errors.As(err, &ce) {
		for _, h := range ce.hints {
			fmt.Fprintf(w, "cairn: hint: %s\n", h)
		}
	}
}

// suggest is the candidate closest to typed, when one is close enough to
// be a typo of it: at most two edits away (a swap of neighbours counts
// one), and fewer than half of typed's length.
func suggest(typed string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(typed, c); d < bestD && 2*d < len(typed) {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// the insertions, deletions, substitutions and swaps of neighbouring
// letters that turn one into the other.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the distance between ra[:i] and rb[:j].
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
