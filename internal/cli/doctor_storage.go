package cli

import (
	"fmt"
	"path/filepath"

	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/text"
)

// doctorStorage reports where state and the log live, and whether hooks
// had to fall back to the temporary directory, and why.
func doctorStorage(a *App, e *env, ok, problem func(string, ...any)) {
	fmt.Fprintf(a.Stdout, "  - state: %s\n", e.stateDir)
	fmt.Fprintf(a.Stdout, "  - log: %s\n", filepath.Join(e.stateDir, hook.LogName))
	if err := state.Usable(e.stateDir); err != nil {
		problem("state directory cannot be written: %v\n    fix: make %s writable (cairn keeps only caches there)", err, e.stateDir)
	}
	fallback := state.FallbackDir(a.Getenv)
	if at, why, used := hook.FallbackReason(fallback); used {
		problem("hooks kept their state and log in %s (last %s ago): %s\n    fix: the log there says what failed: %s",
			fallback, text.Ago(a.Now().Sub(at)), why, filepath.Join(fallback, hook.LogName))
	}
}

// lastRun is an event's latest run record, in the state directory or the
// fallback, whichever is newer.
func lastRun(a *App, e *env, event string) (hook.Run, bool) {
	run, ran := hook.LastRun(e.stateDir, event)
	if fb, ok := hook.LastRun(state.FallbackDir(a.Getenv), event); ok && (!ran || fb.At.After(run.At)) {
		if fb.ErrAt.Before(run.ErrAt) {
			fb.Err, fb.ErrAt = run.Err, run.ErrAt
		}
		return fb, true
	}
	return run, ran
}
