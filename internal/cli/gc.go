package cli

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/text"
)

func gcCmd() command {
	return command{
		args:    "[--dry-run] [--older-than AGE] [--keep N] [--max-size SIZE] [--json]",
		summary: "remove old state and checkpoints (a session's end does it daily with the project's gc.* settings)",
		details: `It removes the state of sessions untouched for AGE (90d), their checkpoints older than AGE beyond
the latest N of each session (10), and the records of tracker updates sent
more than gc.tracker ago (30d); then, while cairn's state and database together are over SIZE (2GB),
more state (never a session's touched within a day) and more checkpoints, the oldest first. It
never removes a session's latest checkpoint, the one a pending restore names, or an announced
compaction whose checkpoint is not stored yet. Observations stay: forget removes them.
The defaults come from .claude/cairn.conf (gc.older-than, gc.keep, gc.max-size, gc.tracker);
gc.auto = off stops a session's end from running it. Then it gives the database's freed pages
back to the file system (VACUUM).

--json prints {"dry_run", "states", "state_bytes", "checkpoints", "checkpoint_bytes",
"tracker_records", "tracker_bytes", "bytes"}.`,
		setup: func(fs *flag.FlagSet) runFunc {
			dry := fs.Bool("dry-run", false, "say what would go, remove nothing")
			olderThan := fs.String("older-than", "", "the age beyond which state and checkpoints go (`AGE`: 90d, 2w, 36h)")
			keep := fs.Int("keep", 0, "checkpoints of each session kept whatever their age (`N`)")
			maxSize := fs.String("max-size", "", "bound on state and database together (`SIZE`: 500MB, 2GB, none)")
			asJSON := fs.Bool("json", false, "print JSON")
			return func(ctx context.Context, a *App, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				e, err := a.env()
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				conf, _ := config.Load(e.root) // env warned of its problems
				r := conf.Retention
				if *olderThan != "" {
					if r.OlderThan, err = config.ParseAge(*olderThan); err != nil {
						return usageErrorf("--older-than %v", err)
					}
				}
				if *keep != 0 {
					if *keep < 1 {
						return usageErrorf("--keep: give at least 1")
					}
					r.Keep = *keep
				}
				if *maxSize != "" {
					if r.MaxSize, err = config.ParseSize(*maxSize); err != nil {
						return usageErrorf("--max-size %v", err)
					}
				}
				c, err := e.keeper.GC(ctx, r, *dry)
				if err != nil {
					return err
				}
				if !*dry && c.Checkpoints > 0 {
					db, err := e.keeper.DB(ctx)
					if err == nil {
						err = db.Vacuum(ctx)
					}
					if err != nil {
						return err
					}
				}
				if *asJSON {
					return writeJSON(a.Stdout, gcView(c, *dry))
				}
				renderGC(a.Stdout, c, *dry)
				return nil
			}
		},
	}
}

type gcJSON struct {
	DryRun          bool  `json:"dry_run"`
	States          int   `json:"states"`
	StateBytes      int64 `json:"state_bytes"`
	Checkpoints     int   `json:"checkpoints"`
	CheckpointBytes int64 `json:"checkpoint_bytes"`
	Tracker         int   `json:"tracker_records"`
	TrackerBytes    int64 `json:"tracker_bytes"`
	Bytes           int64 `json:"bytes"`
}

func gcView(c continuity.Collected, dry bool) gcJSON {
	return gcJSON{DryRun: dry, States: c.States, StateBytes: c.StateBytes, Checkpoints: c.Checkpoints,
		CheckpointBytes: c.Pruned.Bytes, Tracker: c.Tracker, TrackerBytes: c.TrackerBytes, Bytes: c.Bytes()}
}

// renderGC says what went, or with dry what would.
func renderGC(w io.Writer, c continuity.Collected, dry bool) {
	verb := "removed"
	if dry {
		verb = "would remove"
	}
	fmt.Fprintf(w, "%s %s: the state of %d sessions (%s), %d checkpoints (%s), %d tracker records (%s)\n",
		verb, text.Bytes(c.Bytes()), c.States, text.Bytes(c.StateBytes), c.Checkpoints, text.Bytes(c.Pruned.Bytes),
		c.Tracker, text.Bytes(c.TrackerBytes))
}
