package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cairn-agent/cairn/internal/git"
	"github.com/cairn-agent/cairn/internal/text"
)

// snapshotCmd is `cairn snapshot`: record the uncommitted work of the
// project under refs/cairn/wip/<session>/<n> without touching it; `cairn
// snapshot show N` prints one, `cairn snapshot restore N` puts its changes
// back into the work tree.
func snapshotCmd() command {
	return command{
		args:     "[show N | restore N] [--session ID | --transcript PATH] [-m MESSAGE] [--json]",
		summary:  "record uncommitted work under refs/cairn/wip without touching it; show or restore one",
		words:    []string{"show", "restore"},
		wordsAre: "subcommands",
		setup: func(fs *flag.FlagSet) runFunc {
			sf := addSessionFlags(fs)
			msg := fs.String("m", "", "the snapshot's `MESSAGE`")
			asJSON := fs.Bool("json", false, "print JSON")
			return func(ctx context.Context, a *App, args []string) error {
				if err := sf.check(); err != nil {
					return err
				}
				verb := ""
				if len(args) > 0 {
					verb = args[0]
				}
				switch {
				case verb == "" && len(args) == 0:
				case (verb == "show" || verb == "restore") && len(args) == 2:
				case verb == "show" || verb == "restore":
					return usageErrorf("say which snapshot: cairn snapshot %s N (cairn snapshots lists them)", verb)
				default:
					err := usageErrorf("unexpected argument %q: take one with cairn snapshot, or use show N or restore N", args[0])
					if s := suggest(verb, []string{"show", "restore"}); s != "" {
						err = addHint(err, fmt.Sprintf("did you mean %q?", s))
					}
					return err
				}
				e, err := a.env()
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				if _, err := git.Root(ctx, e.root); err != nil {
					return snapshotErr(err, e.root)
				}
				switch verb {
				case "show":
					return showSnapshot(ctx, a, e, args[1], sf, *asJSON)
				case "restore":
					return restoreSnapshot(ctx, a, e, args[1], sf, *asJSON)
				}
				return takeSnapshot(ctx, a, e, sf, *msg, *asJSON)
			}
		},
	}
}

func takeSnapshot(ctx context.Context, a *App, e *env, sf sessionFlags, msg string, asJSON bool) error {
	session, err := e.snapshotSession(sf)
	if err != nil {
		return err
	}
	if msg == "" {
		msg = "cairn snapshot (manual)"
	}
	s, err := git.Snapshot(ctx, e.root, session, msg)
	if errors.Is(err, git.ErrClean) {
		if asJSON {
			fmt.Fprintln(a.Stdout, "null")
			return nil
		}
		fmt.Fprintf(a.Stdout, "nothing to snapshot: %s has no uncommitted changes\n", e.root)
		return nil
	}
	if err != nil {
		return snapshotErr(err, e.root)
	}
	if asJSON {
		return writeJSON(a.Stdout, s)
	}
	fmt.Fprintf(a.Stdout, "snapshot %d of session %s saved as %s: %s\n", s.Number, short(session), s.Ref, s.DiffStat)
	fmt.Fprintf(a.Stdout, "see it with: cairn snapshot show %d · put it back with: cairn snapshot restore %d\n", s.Number, s.Number)
	return nil
}

func showSnapshot(ctx context.Context, a *App, e *env, which string, sf sessionFlags, asJSON bool) error {
	s, err := e.findSnapshot(ctx, which, sf)
	if err != nil {
		return err
	}
	diff, err := git.ShowSnapshot(ctx, e.root, s.Ref)
	if err != nil {
		return snapshotErr(err, e.root)
	}
	if asJSON {
		return writeJSON(a.Stdout, map[string]any{"snapshot": s, "diff": diff})
	}
	parent := "no commit yet"
	if s.Parent != "" {
		parent = "on " + s.Parent[:min(12, len(s.Parent))]
	}
	fmt.Fprintf(a.Stdout, "snapshot %d of session %s · %s\n", s.Number, s.Session, s.Ref)
	fmt.Fprintf(a.Stdout, "taken    %s · %s\n", s.Time.In(a.Loc).Format("2006-01-02 15:04"), parent)
	fmt.Fprintf(a.Stdout, "message  %s\n", s.Message)
	fmt.Fprintf(a.Stdout, "changes  %s\n\n", s.DiffStat)
	fmt.Fprint(a.Stdout, diff)
	return nil
}

func restoreSnapshot(ctx context.Context, a *App, e *env, which string, sf sessionFlags, asJSON bool) error {
	s, err := e.findSnapshot(ctx, which, sf)
	if err != nil {
		return err
	}
	err = git.RestoreSnapshot(ctx, e.root, s.Ref)
	var ce *git.ConflictError
	switch {
	case errors.As(err, &ce):
		return withHint(err, "nothing was changed; commit or stash your changes to those files first (git stash), or restore into a clean checkout")
	case errors.Is(err, git.ErrNotRepo):
		return snapshotErr(err, e.root)
	case err != nil:
		return withHint(err, "nothing was changed: the work tree has moved on from the snapshot there; `cairn snapshot show %s` prints its change to apply by hand", which)
	}
	if asJSON {
		return writeJSON(a.Stdout, s)
	}
	fmt.Fprintf(a.Stdout, "restored snapshot %d of session %s: %s\n", s.Number, short(s.Session), s.DiffStat)
	fmt.Fprintln(a.Stdout, "the changes are in the work tree, not staged; git status shows them")
	return nil
}

// snapshotsCmd is `cairn snapshots`: the snapshots of the current
// session, or of every session with --all.
func snapshotsCmd() command {
	return command{
		args:    "[--all | --session ID | --transcript PATH] [--json]",
		summary: "list this session's work-tree snapshots (--all: every session's)",
		setup: func(fs *flag.FlagSet) runFunc {
			sf := addSessionFlags(fs)
			all := fs.Bool("all", false, "every session's snapshots")
			asJSON := fs.Bool("json", false, "print JSON")
			return func(ctx context.Context, a *App, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				if *all && sf.given() {
					return usageErrorf("give --all or a session, not both")
				}
				return snapshots(ctx, a, sf, *all, *asJSON)
			}
		},
	}
}

func snapshots(ctx context.Context, a *App, sf sessionFlags, all, asJSON bool) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	if _, err := git.Root(ctx, e.root); err != nil {
		return snapshotErr(err, e.root)
	}
	session := ""
	if !all {
		if session, err = e.snapshotSession(sf); err != nil {
			if !sf.given() {
				err = addHint(err, "cairn snapshots --all lists every session's snapshots")
			}
			return err
		}
	}
	snaps, err := git.Snapshots(ctx, e.root, session)
	if err != nil {
		return snapshotErr(err, e.root)
	}
	if asJSON {
		return writeJSON(a.Stdout, snaps)
	}
	if len(snaps) == 0 {
		if all {
			fmt.Fprintf(a.Stdout, "no snapshots yet in %s (cairn snapshot takes one)\n", e.root)
		} else {
			fmt.Fprintf(a.Stdout, "no snapshots yet for session %s (cairn snapshot takes one; cairn snapshots --all lists every session's)\n", short(session))
		}
		return nil
	}
	name := func(s git.Snap) string {
		if all {
			return short(s.Session) + "/" + strconv.Itoa(s.Number)
		}
		return strconv.Itoa(s.Number)
	}
	w := len("SNAPSHOT")
	for _, s := range snaps {
		w = max(w, len(name(s)))
	}
	if !all {
		fmt.Fprintf(a.Stdout, "session %s\n", session)
	}
	fmt.Fprintf(a.Stdout, "%-*s  %-16s  %-16s  %s\n", w, "SNAPSHOT", "TAKEN", "CHANGES", "MESSAGE")
	for _, s := range snaps {
		fmt.Fprintf(a.Stdout, "%-*s  %-16s  %-16s  %s\n", w, name(s), s.Time.In(a.Loc).Format("2006-01-02 15:04"), snapStat(s.DiffStat), text.ClipLine(s.Message, 60))
	}
	which := "N"
	if all {
		which = "SESSION/N"
	}
	fmt.Fprintf(a.Stdout, "see one with: cairn snapshot show %s · put it back with: cairn snapshot restore %s\n", which, which)
	return nil
}

// snapshotSession is the session --session or --transcript names, else the
// project's latest: its transcript's file name without .jsonl.
func (e *env) snapshotSession(sf sessionFlags) (string, error) {
	p, err := e.locate(*sf.id, *sf.path)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(filepath.Base(p), ".jsonl"), nil
}

// findSnapshot resolves what a user calls a snapshot: N (of the session
// --session/--transcript names, else the latest), SESSION/N with SESSION
// a unique prefix of a session that has snapshots, or a full ref.
func (e *env) findSnapshot(ctx context.Context, which string, sf sessionFlags) (git.Snap, error) {
	byRef := strings.HasPrefix(which, git.RefPrefix)
	prefix, num := "", which
	if i := strings.LastIndexByte(which, '/'); i >= 0 {
		prefix, num = which[:i], which[i+1:]
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return git.Snap{}, usageErrorf("%q is not a snapshot: give N, SESSION/N or a %s ref, as cairn snapshots lists them", which, git.RefPrefix)
	}
	if prefix != "" && !byRef && sf.given() {
		return git.Snap{}, usageErrorf("give SESSION/N or --session, not both")
	}
	session := ""
	if prefix == "" {
		if session, err = e.snapshotSession(sf); err != nil {
			return git.Snap{}, err
		}
	}
	snaps, err := git.Snapshots(ctx, e.root, "")
	if err != nil {
		return git.Snap{}, snapshotErr(err, e.root)
	}
	var found []git.Snap
	for _, s := range snaps {
		switch {
		case s.Number != n:
		case byRef && s.Ref == which, session != "" && s.Session == git.RefSession(session):
			return s, nil
		case !byRef && prefix != "" && s.Session == git.RefSession(prefix):
			return s, nil // the whole id, though it may prefix another
		case !byRef && prefix != "" && strings.HasPrefix(s.Session, git.RefSession(prefix)):
			found = append(found, s)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	if len(found) > 1 {
		return git.Snap{}, withHint(fmt.Errorf("%q matches snapshots of several sessions", which), "give more of the session id; cairn snapshots --all lists them")
	}
	what := fmt.Sprintf("no snapshot %d of session %s", n, short(session))
	if prefix != "" {
		what = fmt.Sprintf("no snapshot %s", which)
	}
	return git.Snap{}, withHint(errors.New(what), "cairn snapshots lists this session's snapshots, cairn snapshots --all every session's")
}

// snapStat turns git's "3 files changed, 40 insertions(+), 2
// deletions(-)" into "3 files +40 -2".
func snapStat(stat string) string {
	var files, plus, minus string
	for _, part := range strings.Split(stat, ",") {
		f := strings.Fields(part)
		if len(f) < 2 {
			continue
		}
		switch {
		case strings.HasPrefix(f[1], "file"):
			files = f[0] + " " + strings.TrimSuffix(f[1], "s")
			if f[0] != "1" {
				files += "s"
			}
		case strings.HasPrefix(f[1], "insertion"):
			plus = " +" + f[0]
		case strings.HasPrefix(f[1], "deletion"):
			minus = " -" + f[0]
		}
	}
	if files == "" {
		return "-"
	}
	return files + plus + minus
}

// snapshotErr words git's failures for the user.
func snapshotErr(err error, root string) error {
	if errors.Is(err, git.ErrNotRepo) {
		return withHint(fmt.Errorf("%s is not a git repository", root), "snapshots keep uncommitted work in git: run cairn inside a git work tree (git init makes one)")
	}
	return err
}
