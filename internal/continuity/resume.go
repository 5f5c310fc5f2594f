package continuity

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/handoff"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// PointerAge is how old another session's checkpoint may be for a new
// session to be pointed at it.
const PointerAge = 7 * 24 * time.Hour

// Pointer returns a short note for a session starting in project about the
// latest checkpoint another session left there; "" when there is none. A
// session is pointed at another at most once. On startup and clear it
// looks back PointerAge; a resumed session is pointed only when it was idle
// for an hour and the other's work is newer than its own (Claude Code
// resumes for every headless turn, and two sessions working side by side
// have no use for notes about each other).
func (k *Keeper) Pointer(ctx context.Context, project, path, sessionID, source string) (string, error) {
	if project == "" || sessionID == "" {
		return "", nil
	}
	since := k.Now().Add(-PointerAge)
	switch source {
	case "startup", "clear":
	case "resume":
		s, err := k.Load(path, false)
		if err != nil {
			return "", err
		}
		if s.LastTime.IsZero() || k.Now().Sub(s.LastTime) < time.Hour {
			return "", nil
		}
		since = s.LastTime
	default:
		return "", nil
	}
	var notes []string
	if p, ok, err := handoff.Unseen(project, k.State.Dir, sessionID); err != nil {
		k.warn("handoff pointer: %v", err)
	} else if ok {
		notes = append(notes, handoff.PointerText(project, p, k.resumeCommand()))
	}
	text, err := k.checkpointPointer(ctx, project, sessionID, since)
	if text != "" {
		notes = append(notes, text)
	}
	return strings.Join(notes, "\n\n"), err
}

func (k *Keeper) checkpointPointer(ctx context.Context, project, sessionID string, since time.Time) (string, error) {
	db, err := k.DB(ctx)
	if err != nil {
		return "", err
	}
	rec, err := db.LatestFromOtherSession(ctx, project, sessionID, since)
	if errors.Is(err, sqlite.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	first, err := db.Claim(ctx, sessionID, "pointer:"+rec.SessionID)
	if err != nil || !first {
		return "", err
	}
	c, err := FromRecord(rec)
	if err != nil {
		return "", err
	}
	return pointerText(c, k.Now(), k.resumeCommand()), nil
}

func (k *Keeper) resumeCommand() string {
	if k.ResumeCommand != "" {
		return k.ResumeCommand
	}
	return "cairn resume"
}

func pointerText(c checkpoint.Checkpoint, now time.Time, resume string) string {
	var b strings.Builder
	client := ""
	if c.Client != "" {
		client = transcript.ClientTitle(c.Client) + " "
	}
	fmt.Fprintf(&b, "cairn: an earlier %ssession in this project (%s ago, checkpoint %d) was working on: %s.",
		client, text.AgoWords(now.Sub(c.CreatedAt)), c.ID, strings.TrimSuffix(c.Summary(), "."))
	if open := c.OpenTodos(); len(open) > 0 {
		var ts []string
		for _, t := range open[:min(len(open), 3)] {
			ts = append(ts, t.Content)
		}
		fmt.Fprintf(&b, " Open todos: %s.", strings.Join(ts, "; "))
	}
	if len(c.Files) > 0 {
		var fs []string
		for _, f := range c.Files[max(0, len(c.Files)-4):] {
			fs = append(fs, f.Path)
		}
		fmt.Fprintf(&b, " Files it changed: %s.", strings.Join(fs, ", "))
	}
	fmt.Fprintf(&b, " If this session continues that work, `%s` prints its full state (or `cairn show checkpoint %d`).", resume, c.ID)
	return b.String()
}

// ResumeBudget is the size in tokens of `cairn resume`'s text.
const ResumeBudget = 4000

// Resume returns the full text of the latest checkpoint of the project
// (any session), to paste into a new session or read.
func (k *Keeper) Resume(ctx context.Context, project string) (checkpoint.Checkpoint, string, error) {
	db, err := k.DB(ctx)
	if err != nil {
		return checkpoint.Checkpoint{}, "", err
	}
	rec, err := db.LatestCheckpoint(ctx, project, "")
	if err != nil {
		return checkpoint.Checkpoint{}, "", err
	}
	c, err := FromRecord(rec)
	if err != nil {
		return c, "", err
	}
	return c, c.Resume(ResumeBudget), nil
}

// Reloaded returns the working state of a session resumed by `cairn run`'s
// restart, to give the client once per restart token: the session's
// latest checkpoint (the supervisor takes one just before the restart),
// in full within the restore budget. "" when the token was seen already or
// the session has no checkpoint.
func (k *Keeper) Reloaded(ctx context.Context, project, sessionID, token string) (string, error) {
	if project == "" || sessionID == "" || token == "" {
		return "", nil
	}
	db, err := k.DB(ctx)
	if err != nil {
		return "", err
	}
	rec, err := db.LatestCheckpoint(ctx, project, sessionID)
	if errors.Is(err, sqlite.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	c, err := FromRecord(rec)
	if err != nil {
		return "", err
	}
	first, err := db.Claim(ctx, sessionID, "reload:"+token)
	if err != nil || !first {
		return "", err
	}
	budget := k.RestoreBudget
	if budget <= 0 {
		budget = checkpoint.DefaultRestoreBudget
	}
	return fmt.Sprintf("cairn: the client was restarted (cairn run) and resumed this session; its working state at checkpoint %d follows.\n\n%s",
		c.ID, c.Resume(budget)), nil
}
