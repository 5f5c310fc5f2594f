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
	"github.com/cairn-agent/cairn/internal/tracker"
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
	// drain starts the tracker's drainer (nil: none).
	drain func() error
}

func (x crossing) at(ctx context.Context, lvl int) ([]string, error) {
	c, err := x.k.Capture(ctx, x.project, x.path, "pressure-"+pressure.Name(lvl))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	trail := []string{fmt.Sprintf("checkpoint %d (`cairn show checkpoint %d`)", c.ID, c.ID)}
	if slices.Contains(x.cfg.HandoffAt, lvl) && x.project != "" {
		q := x.queue()
		ticket := q.Ticket(x.project, c.Task.Tickets)
		in := handoff.Input{Project: x.project, Now: x.now, Level: lvl, Pressure: x.cfg.Pressure}
		if is, ok := q.CachedIssue(x.cfg.Tracker, ticket); ok && x.cfg.Tracker != "" {
			in.Ticket = fmt.Sprintf("%s (%s): %s · %s", is.ID, x.cfg.Tracker, is.State, is.Title)
		}
		p, err := handoff.Write(x.project, c, in)
		rel := ""
		if err != nil {
			x.warn(fmt.Errorf("handoff: %w", err))
		} else {
			rel = relTo(x.project, p)
			trail = append(trail, "handoff "+rel)
			if doc, err := os.ReadFile(p); err == nil {
				x.k.Observe(ctx, memory.FromHandoff(x.project, c.SessionID, p, string(doc), x.now()))
			}
		}
		if line := x.tell(q, ticket, c, lvl, rel); line != "" {
			trail = append(trail, line)
		}
	}
	if slices.Contains(x.cfg.SnapshotAt, lvl) && x.project != "" {
		if line := x.snapshot(ctx, lvl, c); line != "" {
			trail = append(trail, line)
		}
	}
	return trail, nil
}

// queue is the tracker's update queue, beside the sessions' state.
func (x crossing) queue() tracker.Queue {
	return tracker.Queue{Dir: filepath.Join(x.k.State.Dir, "tracker"), Now: x.now}
}

// tell queues the checkpoint's updates for the ticket's tracker (seed
// 003's LIN-001..004, CHK-006 at L3) and starts a drainer to send them; it
// waits on nothing. Without a tracker configured, or a ticket, it does
// nothing.
func (x crossing) tell(q tracker.Queue, ticket string, c checkpoint.Checkpoint, lvl int, handoffRel string) string {
	if x.cfg.Tracker == "" || ticket == "" {
		return ""
	}
	tc := tracker.Checkpoint{Tracker: x.cfg.Tracker, Issue: ticket, Project: x.project, Repo: x.cfg.TrackerRepo, ID: c.ID, Session: c.SessionID, Level: lvl,
		Trigger: c.Trigger, Summary: c.Summary(), Handoff: handoffRel, Status: x.cfg.TrackerStatus, Label: x.cfg.TrackerLabel, Time: x.now()}
	if x.cfg.Tracker == "github" {
		tc.Status = "" // GitHub issues have no workflow state
	}
	if c.Context.Threshold > 0 {
		tc.Context = fmt.Sprintf("%d tokens (%.0f%% of auto-compact)", c.Context.Tokens, 100*float64(c.Context.Tokens)/float64(c.Context.Threshold))
	}
	tc.Next = append(tc.Next, c.NextSteps[:min(len(c.NextSteps), 5)]...)
	queued := 0
	for _, u := range tc.Updates() {
		ok, err := q.Add(u)
		if err != nil {
			x.warn(fmt.Errorf("tracker: queue %s for %s: %w", u.Kind, ticket, err))
			continue
		}
		if ok {
			queued++
		}
	}
	if queued == 0 {
		return ""
	}
	if x.drain != nil {
		if err := x.drain(); err != nil {
			x.warn(fmt.Errorf("tracker: start the drainer: %w (the updates wait for cairn tracker drain)", err))
		}
	}
	return fmt.Sprintf("%s told (%d updates queued)", ticket, queued)
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
