package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/text"

	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/handoff"
	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/sqlite"
)

// runHook is `cairn hook EVENT`, which Claude Code runs. It always exits
// 0: a failure is logged, never shown to the agent.
func runHook(ctx context.Context, a *App, args []string) error {
	if len(args) != 1 {
		return usageError{"give the hook event, as `cairn install` wires it"}
	}
	ignoreBrokenPipe() // a closed stdout is an error to log, not a death
	fallback := state.FallbackDir(a.Getenv)
	k, kerr := a.newKeeper()
	if kerr != nil {
		// No home to keep state in: keep it, and say why, in the fallback.
		k = &continuity.Keeper{State: state.Store{Dir: fallback}, DBPath: filepath.Join(fallback, "cairn.db"), Now: a.Now}
	}
	r := &hook.Runner{Keeper: k, Stdin: a.Stdin, Stdout: a.Stdout, Stderr: a.Stderr, Getenv: a.Getenv, Now: a.Now,
		Dir: k.State.Dir, Fallback: fallback}
	if kerr == nil && k.State.Dir != fallback {
		k.OtherStateDirs = []string{fallback}
		if err := state.Usable(k.State.Dir); err != nil && state.UsableFallback(fallback) == nil {
			kerr = fmt.Errorf("state directory %s cannot be written (%v); using %s", k.State.Dir, err, fallback)
			k.OtherStateDirs = []string{k.State.Dir}
			k.State.Dir, r.Dir = fallback, fallback
		}
	}
	r.FallbackReason = kerr
	// A hook's stderr is not read by anyone: warnings go to the log.
	k.Warn = r.Warner(args[0])
	k.State.Warn = k.Warn
	k.Stored = storedFor(k.State.Dir, k.Warn)
	r.Run(ctx, args[0])
	return nil
}

// runCheckpoint is `cairn checkpoint`: capture the working state now.
func runCheckpoint(ctx context.Context, a *App, args []string) error {
	fs := newFlags("checkpoint")
	id := fs.String("session", "", "session id (or a unique prefix)")
	path := fs.String("transcript", "", "transcript path")
	asJSON := fs.Bool("json", false, "print the checkpoint as JSON")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	p, err := e.locate(*id, *path)
	if err != nil {
		return err
	}
	c, err := e.keeper.Capture(ctx, e.root, p, "manual")
	if err != nil {
		return dbError(err)
	}
	if *asJSON {
		return writeJSON(a.Stdout, c)
	}
	fmt.Fprintf(a.Stdout, "checkpoint %d saved: %s\n", c.ID, c.Summary())
	fmt.Fprintf(a.Stdout, "see it with: cairn show checkpoint %d\n", c.ID)
	return nil
}

type checkpointLine struct {
	ID        int64     `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	Trigger   string    `json:"trigger"`
	SessionID string    `json:"session_id"`
	Tokens    int64     `json:"context_tokens"`
	Task      string    `json:"task"`
}

// runCheckpoints is `cairn checkpoints`: this project's checkpoints.
func runCheckpoints(ctx context.Context, a *App, args []string) error {
	fs := newFlags("checkpoints")
	asJSON := fs.Bool("json", false, "print JSON")
	n := fs.Int("n", 20, "how many")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	db, err := e.keeper.DB(ctx)
	if err != nil {
		return dbError(err)
	}
	recs, err := db.Checkpoints(ctx, e.root, *n)
	if err != nil {
		return dbError(err)
	}
	lines := []checkpointLine{}
	for _, r := range recs {
		lines = append(lines, checkpointLine{ID: r.ID, CreatedAt: r.CreatedAt, Trigger: r.Trigger, SessionID: r.SessionID, Tokens: r.ContextTokens, Task: r.Task})
	}
	if *asJSON {
		return writeJSON(a.Stdout, lines)
	}
	if len(lines) == 0 {
		fmt.Fprintf(a.Stdout, "no checkpoints yet for %s (cairn checkpoint takes one; the hooks take them at compaction and session end)\n", e.root)
		return nil
	}
	fmt.Fprintf(a.Stdout, "%5s  %-16s  %-18s  %-8s  %8s  %s\n", "ID", "TAKEN", "TRIGGER", "SESSION", "CONTEXT", "TASK")
	for _, l := range lines {
		fmt.Fprintf(a.Stdout, "%5d  %-16s  %-18s  %-8s  %8s  %s\n", l.ID, l.CreatedAt.In(a.Loc).Format("2006-01-02 15:04"), l.Trigger, short(l.SessionID), meter.Thousands(l.Tokens), text.ClipLine(l.Task, 70))
	}
	return nil
}

// runShow is `cairn show checkpoint [ID]`.
func runShow(ctx context.Context, a *App, args []string) error {
	fs := newFlags("show")
	asJSON := fs.Bool("json", false, "print JSON")
	session := fs.String("session", "", "the latest checkpoint of this session")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) == 0 || rest[0] != "checkpoint" || len(rest) > 2 {
		return usageError{"say what to show: cairn show checkpoint [ID]"}
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	db, err := e.keeper.DB(ctx)
	if err != nil {
		return dbError(err)
	}
	var rec sqlite.Checkpoint
	switch {
	case len(rest) == 2:
		id, perr := strconv.ParseInt(rest[1], 10, 64)
		if perr != nil {
			return usageError{fmt.Sprintf("%q is not a checkpoint id (a number, as cairn checkpoints lists them)", rest[1])}
		}
		rec, err = db.Checkpoint(ctx, id)
	case *session != "":
		rec, err = db.LatestCheckpoint(ctx, e.root, *session)
	default:
		rec, err = db.LatestCheckpoint(ctx, e.root, "")
	}
	if errors.Is(err, sqlite.ErrNotFound) {
		return withHint(errors.New("no such checkpoint"), "cairn checkpoints lists this project's checkpoints")
	}
	if err != nil {
		return dbError(err)
	}
	c, err := continuity.FromRecord(rec)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.Stdout, c)
	}
	fmt.Fprint(a.Stdout, c.Markdown())
	return nil
}

// runResume is `cairn resume`: the latest checkpoint of the project as
// text to continue from.
func runResume(ctx context.Context, a *App, args []string) error {
	fs := newFlags("resume")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	c, text, err := e.keeper.Resume(ctx, e.root)
	notFound := errors.Is(err, sqlite.ErrNotFound)
	if err != nil && !notFound {
		return dbError(err)
	}
	// The newest handoff document comes first: it is the fuller account.
	hpath, hok := handoff.Newest(e.root)
	var htext string
	if hok {
		data, rerr := os.ReadFile(hpath)
		if rerr != nil {
			return rerr
		}
		htext = string(data)
	}
	if notFound && !hok {
		return withHint(fmt.Errorf("no checkpoint or handoff for %s yet", e.root), "checkpoints are taken at compaction and session end once `cairn install` has wired the hooks; `cairn checkpoint` or `cairn handoff` takes one now")
	}
	if *asJSON {
		out := map[string]any{"handoff_path": hpath, "handoff": htext}
		if !notFound {
			out["checkpoint"], out["text"] = c, text
		}
		return writeJSON(a.Stdout, out)
	}
	if hok {
		fmt.Fprintf(a.Stdout, "<!-- %s -->\n%s", hpath, htext)
		if notFound {
			return nil
		}
		fmt.Fprint(a.Stdout, "\n---\n\n")
	}
	fmt.Fprint(a.Stdout, text)
	return nil
}

func dbError(err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return withHint(err, "check the file's permissions")
	}
	return withHint(err, "if the database is locked by a hung process, retry; if it is damaged, move it aside and cairn starts a new one")
}

// runDefer is `cairn defer [N]`: snooze the L1 and L2 advisories of the
// session for N turns.
func runDefer(_ context.Context, a *App, args []string) error {
	fs := newFlags("defer")
	id := fs.String("session", "", "session id (or a unique prefix)")
	path := fs.String("transcript", "", "transcript path")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	n := pressure.DefaultDefer
	if len(rest) > 1 {
		return usageError{fmt.Sprintf("unexpected argument %q", rest[1])}
	}
	if len(rest) == 1 {
		if n, err = strconv.Atoi(rest[0]); err != nil || n < 1 {
			return usageError{fmt.Sprintf("%q is not a number of turns", rest[0])}
		}
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	p, err := e.locate(*id, *path)
	if err != nil {
		return err
	}
	s, err := a.load(e, p, false)
	if err != nil {
		return err
	}
	adv := pressure.Advisor{State: e.store}
	until, err := adv.Defer(p, s.NumTurns(), n)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.Stdout, "L1 and L2 advisories snoozed for %d turns (until turn %d); L3 still comes\n", n, until)
	return nil
}
