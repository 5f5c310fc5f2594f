package continuity

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/cairn-agent/cairn/internal/capture"
	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/learn"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// Where a restore can be made.
const (
	AtSessionStart = "session-start"
	AtPrompt       = "prompt"
)

// A context drop without a compact_boundary counts as a compaction when
// one reply had at least dropMin tokens in context and the next, with no
// boundary between them, under dropRatio of it.
const (
	dropMin   = 20000
	dropRatio = 0.5
)

// Detected is a compaction that may need its restore.
type Detected struct {
	Key        string // c<N> for the Nth boundary, d<turns> for a drop
	Trigger    string
	PreTokens  int64
	PostTokens int64
	Fallback   bool // seen only as a drop in the context
}

// detect finds the latest compaction of the session not restored yet. At
// SessionStart(compact) there always is one: the one PreCompact announced,
// or one whose boundary is not written yet. At a prompt it also looks for
// a fall of the context that no boundary explains.
func detect(s *transcript.Session, m marks, at string) (Detected, bool) {
	n := len(s.Compactions)
	if at == AtSessionStart {
		switch {
		case m.pending.Key != "" && !m.wasRestored(m.pending.Key):
			return m.pending, true
		case n > 0 && !m.wasRestored(fmt.Sprintf("c%d", n)):
			c := s.Compactions[n-1]
			return Detected{Key: fmt.Sprintf("c%d", n), Trigger: c.Trigger, PreTokens: c.PreTokens, PostTokens: c.PostTokens}, true
		case m.started == s.Offset:
			return Detected{}, false
		default:
			return Detected{Key: fmt.Sprintf("c%d", n+1), Trigger: "compaction"}, true
		}
	}
	if n > 0 {
		c := s.Compactions[n-1]
		key := fmt.Sprintf("c%d", n)
		if !m.wasRestored(key) {
			return Detected{Key: key, Trigger: c.Trigger, PreTokens: c.PreTokens, PostTokens: c.PostTokens}, true
		}
	}
	if at == AtPrompt {
		return drop(s, m)
	}
	return Detected{}, false
}

// drop finds the latest sharp fall of the context between two replies that
// no boundary explains, among the recent turns.
func drop(s *transcript.Session, m marks) (Detected, bool) {
	for i := len(s.Turns) - 1; i > 0; i-- {
		a, b := s.Turns[i-1], s.Turns[i]
		before, after := a.Usage.Context(), b.Usage.Context()
		if before < dropMin || float64(after) >= dropRatio*float64(before) || boundaryBetween(s, a.Line, b.Line) {
			continue
		}
		key := fmt.Sprintf("d%d", s.EarlierTurns+i+1)
		if m.wasRestored(key) {
			return Detected{}, false
		}
		return Detected{Key: key, Trigger: "detected", PreTokens: before, PostTokens: after, Fallback: true}, true
	}
	return Detected{}, false
}

func boundaryBetween(s *transcript.Session, from, to int) bool {
	for _, c := range s.Compactions {
		if c.Line > from && c.Line < to {
			return true
		}
	}
	return false
}

// Restore returns the restore text for the latest compaction of the
// session at path if it has not been restored yet, marking it restored;
// "" when there is nothing to restore. Exactly one call ever returns the
// text for a compaction, whichever process makes it.
func (k *Keeper) Restore(ctx context.Context, project, path, at string) (string, error) {
	s, err := k.Load(path, false)
	if err != nil {
		return "", err
	}
	return k.restore(ctx, project, path, at, s)
}

// restore is Restore on a session already loaded.
func (k *Keeper) restore(ctx context.Context, project, path, at string, s *transcript.Session) (string, error) {
	m := k.loadMarks(path)
	d, found := detect(s, m, at)
	if !found {
		return "", nil
	}
	db, err := k.DB(ctx)
	if err != nil {
		return "", err
	}
	first, err := db.Claim(ctx, sessionKey(s, path), d.Key)
	if err != nil {
		return "", err
	}
	m.restored = append(m.restored, d.Key)
	m.announced, m.captured = 0, 0 // the context fell: the levels re-arm
	if m.pending.Key == d.Key {
		m.pending = Detected{}
	}
	if at == AtSessionStart {
		m.started = s.Offset
	}
	if err := k.saveMarks(path, m); err != nil {
		k.warn("cairn: warning: could not save marks: %v", err)
	}
	if !first {
		return "", nil
	}
	c, err := k.checkpointFor(ctx, db, project, path, s)
	if err != nil {
		return "", err
	}
	return c.Restore(checkpoint.Compaction{Trigger: d.Trigger, PreTokens: d.PreTokens, PostTokens: d.PostTokens}, k.RestoreBudget), nil
}

func sessionKey(s *transcript.Session, path string) string {
	if s.SessionID != "" {
		return s.SessionID
	}
	return path
}

// checkpointFor is the checkpoint a restore shows: the one PreCompact took
// moments ago, or, when there is none (the hook did not run, or the
// compaction left no boundary), one captured now. The transcript still
// holds everything from before the compaction, so nothing is lost either
// way.
func (k *Keeper) checkpointFor(ctx context.Context, db *sqlite.DB, project, path string, s *transcript.Session) (checkpoint.Checkpoint, error) {
	rec, err := db.LatestCheckpoint(ctx, project, sessionKey(s, path))
	if err == nil && rec.Trigger != "" && len(rec.Trigger) > 10 && rec.Trigger[:10] == "precompact" && k.Now().Sub(rec.CreatedAt) < 15*time.Minute {
		if c, err := FromRecord(rec); err == nil {
			return c, nil
		}
	}
	if err != nil && !errors.Is(err, sqlite.ErrNotFound) {
		k.warn("cairn: warning: %v", err)
	}
	return k.Capture(ctx, project, path, "restore")
}

// PreCompact captures the checkpoint a compaction is about to need and
// announces the compaction, so that SessionStart, which Claude Code runs
// before it writes the boundary, restores the right one.
func (k *Keeper) PreCompact(ctx context.Context, project, path, trigger string) (checkpoint.Checkpoint, error) {
	ferr := k.flowAtCompact(project, trigger)
	c, err := k.Capture(ctx, project, path, "precompact-"+trigger)
	if err == nil {
		err = ferr
	}
	if c.SessionID == "" && c.Transcript == "" {
		return c, err
	}
	m := k.loadMarks(path)
	m.pending = Detected{Key: fmt.Sprintf("c%d", c.Compactions+1), Trigger: trigger, PreTokens: c.Context.Tokens}
	if merr := k.saveMarks(path, m); merr != nil && err == nil {
		err = merr
	}
	if cerr := k.writeCapture(project, path, trigger, c); cerr != nil && err == nil {
		err = cerr
	}
	return c, err
}

// writeCapture writes seed 004's capture of an auto-compaction (and of a
// manual one when capture.manual is on) for a later review.
func (k *Keeper) writeCapture(project, path, trigger string, c checkpoint.Checkpoint) error {
	if project == "" || k.CaptureDir == "" || (trigger != "auto" && !(trigger == "manual" && k.CaptureManual)) {
		return nil
	}
	first := c.Task.First
	if s, err := k.Load(path, false); err == nil && len(s.Prompts) > 0 {
		first = s.Prompts[0].Text // the first user message, as seed 004 asks
	}
	_, err := capture.Write(config.Dir(project, k.CaptureDir), capture.Input{
		Now: k.Now(), SessionID: c.SessionID, Transcript: path, FirstMessage: first,
	})
	return err
}

// flowDir is where the Flow and Stock files live (seed 001).
func (k *Keeper) flowDir(project string) string {
	if project == "" || k.FlowDir == "" {
		return ""
	}
	return config.Dir(project, k.FlowDir)
}

// flowAtCompact records seed 001's last-compact.json (before any trim,
// which would lose the headings it names) and trims progress.md when
// flow.trim is on. Markers that cannot be read were skipped inside.
func (k *Keeper) flowAtCompact(project, trigger string) error {
	flow := k.flowDir(project)
	if flow == "" {
		return nil
	}
	ctxDir := learn.ContextDir(flow)
	err := learn.RecordCompact(ctxDir, learn.Gather(ctxDir, flow, flow, trigger, k.Now()))
	if k.FlowTrim {
		if terr := learn.TrimProgress(filepath.Join(flow, learn.Progress), learn.DefaultKeep); terr != nil && err == nil {
			err = terr
		}
	}
	return err
}

// Guidance is seed 001's note after a compaction, branching on whether
// /compound ran since the last one; "" when its markers cannot be read.
func (k *Keeper) Guidance(project string) string {
	flow := k.flowDir(project)
	if flow == "" {
		return ""
	}
	return learn.Guidance(learn.ContextDir(flow))
}

// FlowSuggestion is the Stop hook's suggestion to run /compound when the
// Flow notes hold entries not promoted yet; "" otherwise.
func (k *Keeper) FlowSuggestion(project string) string {
	flow := k.flowDir(project)
	if flow == "" {
		return ""
	}
	return learn.StopSuggestion(flow, flow)
}
