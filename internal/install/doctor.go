package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/claudecode/settings"
	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/text"
)

// Doctor checks the wiring of Setup, where state lives, and how each hook
// last ran.
type Doctor struct {
	Setup
	// StateDir is cairn's state directory, Fallback the one hooks use
	// when StateDir cannot be written.
	StateDir, Fallback string
	// DBPath is the database's file, which DB opens.
	DBPath string
	DB     func(context.Context) (*sqlite.DB, error)
	Now    func() time.Time
	// Loc is where times are shown.
	Loc *time.Location
}

// The sections of a report, in order.
const (
	Wiring  = "wiring"
	Storage = "storage"
	Hooks   = "hooks"
)

// A finding's status.
const (
	OK      = "ok"
	Problem = "problem"
	Info    = "info"
	Note    = "note"
)

// A Finding is one thing the doctor found.
type Finding struct {
	Section string `json:"section"`
	Status  string `json:"status"`
	Text    string `json:"text"`
	// Fix is what to do about a problem.
	Fix string `json:"fix,omitempty"`
}

// HookRun is how an event's hook last ran.
type HookRun struct {
	Event       string     `json:"event"`
	LastRan     *time.Time `json:"last_ran"`
	TookMS      int64      `json:"took_ms"`
	LastError   string     `json:"last_error,omitempty"`
	LastErrorAt *time.Time `json:"last_error_at,omitempty"`
}

// Report is what the doctor found, in the order it looked.
type Report struct {
	Findings []Finding `json:"findings"`
	Hooks    []HookRun `json:"hooks"`
	Problems int       `json:"problems"`
}

func (r *Report) add(section, status, fix, format string, args ...any) {
	r.Findings = append(r.Findings, Finding{Section: section, Status: status, Text: fmt.Sprintf(format, args...), Fix: fix})
	if status == Problem {
		r.Problems++
	}
}

// Check looks at everything and reports it; a problem is a finding, not
// an error.
func (d Doctor) Check(ctx context.Context) Report {
	r := Report{Findings: []Finding{}, Hooks: []HookRun{}}
	d.wiring(&r)
	d.storage(ctx, &r)
	d.hooks(&r)
	return r
}

func (d Doctor) wiring(r *Report) {
	problem := func(fix, format string, args ...any) { r.add(Wiring, Problem, fix, format, args...) }
	w := wiring(d.Exe, "")
	want := w.Hooks
	f := d.files()
	var wired []string
	for _, file := range []struct {
		path, fix, what string
	}{
		{f.shared, "cairn install", "the project's settings, which teams commit"},
		{f.local, "cairn install", "this project, on this machine"},
		{f.user, "cairn install --user", "every project"},
	} {
		path := file.path
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			r.add(Wiring, Info, "", "%s: no file", path)
			continue
		}
		if err != nil {
			problem("", "%s: cannot read: %v", path, err)
			continue
		}
		have, err := w.Installed(data)
		if err == nil {
			_, _, err = settings.StatusLine(data)
		}
		if err != nil {
			var se *settings.Error
			if errors.As(err, &se) {
				se.Path = path
			}
			problem("correct the file as the message says; cairn will not edit it until then", "%v", err)
			continue
		}
		if len(have) == 0 {
			r.add(Wiring, Info, "", "%s: cairn not wired", path)
			continue
		}
		if path == f.shared {
			// The hooks call one machine's binary by its path, in a file
			// every clone of the project shares.
			problem(fmt.Sprintf("cairn install (moves it to %s)", filepath.Base(f.local)),
				"%s: wired by an older cairn, with this machine's path to cairn, in the file teams commit", path)
			wired = append(wired, path)
			continue
		}
		wired = append(wired, path)
		var missing, stale []string
		for _, h := range want {
			found := false
			for _, g := range have {
				if g.Event == h.Event {
					found = true
					if g.Command != h.Command || g.Timeout != h.Timeout {
						stale = append(stale, fmt.Sprintf("%s runs %q", g.Event, g.Command))
					}
				}
			}
			if !found {
				missing = append(missing, h.Event)
			}
		}
		switch {
		case len(missing) > 0:
			problem(file.fix, "%s: cairn wired, but not for %s", path, strings.Join(missing, ", "))
		case len(stale) > 0:
			problem(file.fix, "%s: cairn wired, but not to this cairn (%s) or not with its timeouts: %s", path, d.Exe, strings.Join(stale, "; "))
		default:
			r.add(Wiring, OK, "", "%s: wired to %s for %d events, for %s", path, d.Exe, len(want), file.what)
		}
	}
	switch {
	case len(wired) == 0:
		problem("cairn install (this project) or cairn install --user (every project)", "cairn is wired into none of the settings files")
	case len(wired) > 1:
		problem("keep one: cairn uninstall (this project's) or cairn uninstall --user",
			"cairn is wired into %s: Claude Code runs every hook once per file", strings.Join(wired, " and "))
	}
	for _, n := range d.Notes() {
		r.add(Wiring, Note, "", "%s", n)
	}
}

// storage reports where state, the log and the database live, whether
// hooks had to fall back to the temporary directory, and why.
func (d Doctor) storage(ctx context.Context, r *Report) {
	r.add(Storage, Info, "", "state: %s", d.StateDir)
	r.add(Storage, Info, "", "log: %s", filepath.Join(d.StateDir, hook.LogName))
	if err := state.Usable(d.StateDir); err != nil {
		r.add(Storage, Problem, fmt.Sprintf("make %s writable (cairn keeps only caches there)", d.StateDir),
			"state directory cannot be written: %v", err)
	}
	if at, why, used := hook.FallbackReason(d.Fallback); used {
		r.add(Storage, Problem, fmt.Sprintf("the log there says what failed: %s", filepath.Join(d.Fallback, hook.LogName)),
			"hooks kept their state and log in %s (last %s ago): %s", d.Fallback, text.Ago(d.Now().Sub(at)), why)
	}
	r.add(Storage, Info, "", "database: %s", d.DBPath)
	if db, err := d.DB(ctx); err != nil {
		r.add(Storage, Problem, "if it is damaged, move it aside and cairn starts a new one", "database: %v", err)
	} else if recs, err := db.Checkpoints(ctx, d.Root, 1); err != nil {
		r.add(Storage, Problem, "", "database: %v", err)
	} else if len(recs) > 0 {
		r.add(Storage, OK, "", "database opens; latest checkpoint of this project: %d (%s, %s)", recs[0].ID, recs[0].Trigger, recs[0].CreatedAt.In(d.Loc).Format("2006-01-02 15:04"))
	} else {
		r.add(Storage, OK, "", "database opens; no checkpoint of this project yet")
	}
}

func (d Doctor) hooks(r *Report) {
	for _, ev := range claudecode.EventNames() {
		run, ran := d.lastRun(ev)
		hr := HookRun{Event: ev}
		if !ran {
			r.Hooks = append(r.Hooks, hr)
			r.add(Hooks, Info, "", "%s: never ran", ev)
			continue
		}
		at := run.At
		hr.LastRan, hr.TookMS = &at, run.Took.Milliseconds()
		line := fmt.Sprintf("%s: last ran %s ago, took %v", ev, text.Ago(d.Now().Sub(run.At)), run.Took.Round(time.Millisecond))
		if run.Err != "" {
			errAt := run.ErrAt
			hr.LastError, hr.LastErrorAt = run.Err, &errAt
			line += fmt.Sprintf("; last error %s ago: %s", text.Ago(d.Now().Sub(run.ErrAt)), run.Err)
		}
		r.Hooks = append(r.Hooks, hr)
		r.add(Hooks, Info, "", "%s", line)
	}
}

// lastRun is an event's latest run record, in the state directory or the
// fallback, whichever is newer.
func (d Doctor) lastRun(event string) (hook.Run, bool) {
	run, ran := hook.LastRun(d.StateDir, event)
	if fb, ok := hook.LastRun(d.Fallback, event); ok && (!ran || fb.At.After(run.At)) {
		if fb.ErrAt.Before(run.ErrAt) {
			fb.Err, fb.ErrAt = run.Err, run.ErrAt
		}
		return fb, true
	}
	return run, ran
}
