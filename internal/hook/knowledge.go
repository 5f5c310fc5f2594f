package hook

import (
	"context"
	"path/filepath"
	"time"

	"github.com/cairn-agent/cairn/internal/capture"
	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/learn"
)

// knowledge is what the hooks keep beyond the session, around a
// compaction: seed 004's captures of auto-compactions for a later review,
// and seed 001's Flow and Stock markers, trims and notes.
type knowledge struct {
	cfg     config.Config
	project string
	now     time.Time
}

// flowDir is where the Flow and Stock files live; "" when nowhere.
func (kn knowledge) flowDir() string {
	if kn.project == "" || kn.cfg.FlowDir == "" {
		return ""
	}
	return config.Dir(kn.project, kn.cfg.FlowDir)
}

// atCompact records seed 001's last-compact.json (before any trim, which
// would lose the headings it names), trims progress.md when flow.trim is
// on, and writes seed 004's capture of an auto-compaction (of a manual one
// too when capture.manual is on). c is the checkpoint PreCompact took;
// first the session's first prompt.
func (kn knowledge) atCompact(trigger, path, first string, c checkpoint.Checkpoint) error {
	var err error
	if flow := kn.flowDir(); flow != "" {
		ctxDir := learn.ContextDir(flow)
		err = learn.RecordCompact(ctxDir, learn.Gather(ctxDir, flow, flow, trigger, kn.now))
		if kn.cfg.FlowTrim {
			if terr := learn.TrimProgress(filepath.Join(flow, learn.Progress), learn.DefaultKeep); terr != nil && err == nil {
				err = terr
			}
		}
	}
	if kn.project == "" || kn.cfg.CaptureDir == "" || (trigger != "auto" && !(trigger == "manual" && kn.cfg.CaptureManual)) {
		return err
	}
	if first == "" {
		first = c.Task.First
	}
	if _, cerr := capture.Write(config.Dir(kn.project, kn.cfg.CaptureDir), capture.Input{
		Now: kn.now, SessionID: c.SessionID, Transcript: path, FirstMessage: first,
	}); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

// atCompaction is atCompact for the Keeper (continuity.Compacting): run
// by the compaction's job, from what PreCompact saw.
func (kn knowledge) atCompaction(k *continuity.Keeper) func(context.Context, continuity.Compacting) error {
	return func(_ context.Context, c continuity.Compacting) error {
		at := kn
		at.now = c.At
		if c.Project != "" {
			at.project = c.Project
		}
		return at.atCompact(c.Trigger, c.Path, k.FirstPromptAt(c), c.Checkpoint)
	}
}

// guidance is seed 001's note after a compaction, branching on whether
// /compound ran since the last one; "" when there is nothing to say.
func (kn knowledge) guidance() string {
	if flow := kn.flowDir(); flow != "" {
		return learn.Guidance(learn.ContextDir(flow))
	}
	return ""
}

// stopSuggestion is the Stop hook's suggestion to run /compound when the
// Flow notes hold entries not promoted yet; "" otherwise.
func (kn knowledge) stopSuggestion() string {
	if flow := kn.flowDir(); flow != "" {
		return learn.StopSuggestion(flow, flow)
	}
	return ""
}
