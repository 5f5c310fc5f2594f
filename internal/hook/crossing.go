package hook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/git"
	"github.com/cairn-agent/cairn/internal/handoff"
	"github.com/cairn-agent/cairn/internal/memory"
	"github.com/cairn-agent/cairn/internal/pressure"
)

// crossing does what a pressure level crossed for the first time calls
// for: a checkpoint, and where the configuration asks, a handoff document
// and a snapshot of the uncommitted work. It returns what it saved, for
// the advisory. A failure of the handoff or the snapshot is reported and
// the rest still done.
type crossing struct {
	k       *continuity.Keeper
	cfg     config.Config
	project string
	path    string
	now     func() time.Time
	warn    func(error)
}

func (x crossing) at(ctx context.Context, lvl int) ([]string, error) {
	c, err := x.k.Capture(ctx, x.project, x.path, "pressure-"+pressure.Name(lvl))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	trail := []string{fmt.Sprintf("checkpoint %d (`cairn show checkpoint %d`)", c.ID, c.ID)}
	if slices.Contains(x.cfg.HandoffAt, lvl) && x.project != "" {
		p, err := handoff.Write(x.project, c, handoff.Input{Project: x.project, Now: x.now, Level: lvl, Pressure: x.cfg.Pressure})
		if err != nil {
			x.warn(fmt.Errorf("handoff: %w", err))
		} else {
			trail = append(trail, "handoff "+relTo(x.project, p))
			if doc, err := os.ReadFile(p); err == nil {
				x.k.Observe(ctx, memory.FromHandoff(x.project, c.SessionID, p, string(doc), x.now()))
			}
		}
	}
	if slices.Contains(x.cfg.SnapshotAt, lvl) && x.project != "" {
		if line := x.snapshot(ctx, lvl, c); line != "" {
			trail = append(trail, line)
		}
	}
	return trail, nil
}

// snapshotTime bounds a snapshot at a level crossing; a WIP commit runs
// the user's pre-commit hooks and gets longer.
const (
	snapshotTime = 1500 * time.Millisecond
	wipTime      = 3 * time.Second
)

// snapshot records the uncommitted work: under refs/cairn/wip without
// touching the work tree, or as a real [WIP] commit when configured.
// Nothing to record, or no git repository, is not worth a line.
func (x crossing) snapshot(ctx context.Context, lvl int, c checkpoint.Checkpoint) string {
	if x.cfg.SnapshotCommit {
		ctx, cancel := context.WithTimeout(ctx, wipTime)
		defer cancel()
		ticket := ""
		if t := c.Task.Tickets; len(t) > 0 {
			ticket = t[len(t)-1]
		}
		sha, err := git.WIPCommit(ctx, x.project, ticket)
		switch {
		case errors.Is(err, git.ErrClean), errors.Is(err, git.ErrNotRepo):
			return ""
		case err != nil:
			x.warn(fmt.Errorf("WIP commit: %w", err))
			return ""
		}
		return "WIP commit " + sha[:min(12, len(sha))]
	}
	ctx, cancel := context.WithTimeout(ctx, snapshotTime)
	defer cancel()
	snap, err := git.Snapshot(ctx, x.project, c.SessionID, fmt.Sprintf("cairn snapshot at %s (checkpoint %d)", pressure.Name(lvl), c.ID))
	switch {
	case errors.Is(err, git.ErrClean), errors.Is(err, git.ErrNotRepo):
		return ""
	case err != nil:
		x.warn(fmt.Errorf("snapshot: %w", err))
		return ""
	}
	return fmt.Sprintf("snapshot %d of the uncommitted work (`cairn snapshot show %d`, ref %s)", snap.Number, snap.Number, snap.Ref)
}

func relTo(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}
