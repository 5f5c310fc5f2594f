package continuity

import (
	"context"
	"os"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// What is kept beyond the session at a compaction (seed 004's capture,
// seed 001's last-compact.json: the hook runner's, AtCompaction) waits on
// nothing the summariser needs, and creating those files cost PreCompact
// about a third of its CPU. PreCompact marks it due in .pending, with
// what it saw (its time, the trigger, the transcript's size); the
// compaction's job writes it first thing, before the database work. A
// restore that finds it still due (the job has not started yet, or
// cannot) waits for the job on the session's settle lock, or writes it
// itself: whoever holds the lock first does it, once. Without a job, or
// when .pending cannot be written, PreCompact writes it itself, as
// before.

// Compacting is what PreCompact saw, for AtCompaction.
type Compacting struct {
	Project string
	Path    string // the transcript
	Trigger string // the payload's: auto, manual, unknown
	// At is when PreCompact ran.
	At time.Time
	// Size is the transcript's size then: what the client appended since
	// (the compaction's own lines) is not what it compacted.
	Size int64
	// Checkpoint is the one PreCompact took.
	Checkpoint checkpoint.Checkpoint
}

// compactingOf is what p announces, for AtCompaction.
func compactingOf(path string, p *pending) Compacting {
	return Compacting{Project: p.Checkpoint.Project, Path: path, Trigger: p.Trigger, At: p.At, Size: p.Size, Checkpoint: *p.Checkpoint}
}

// transcriptSize is the size of the transcript at path; 0 when it cannot
// be read.
func transcriptSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// settleCompacting runs AtCompaction for the compaction .pending announces
// when it is still due, under the session's settle lock, and notes it
// done. A process that finds it done, or that waited while another did
// it, does nothing.
func (k *Keeper) settleCompacting(ctx context.Context, path string) error {
	if k.AtCompaction == nil {
		return nil
	}
	p := k.loadPending(path)
	if p == nil || !p.CompactingDue || p.Checkpoint == nil {
		return nil
	}
	unlock, err := k.lockSettle(ctx, path)
	if err != nil {
		return err
	}
	defer unlock()
	if p = k.loadPending(path); p == nil || !p.CompactingDue || p.Checkpoint == nil {
		return nil // done meanwhile
	}
	err = k.AtCompaction(ctx, compactingOf(path, p))
	// Done even when it failed: a second capture of the same compaction
	// would be a duplicate to review, and the failure is in the log.
	if uerr := k.updatePending(path, p, func(q *pending) { q.CompactingDue = false }); uerr != nil && err == nil {
		err = uerr
	}
	return err
}

// compactingFor makes what is kept beyond the session for p's compaction
// there before a restore shows what it says (seed 001's guidance): it
// waits for the job, or does its work.
func (k *Keeper) compactingFor(ctx context.Context, path string, p *pending) {
	if p == nil || !p.CompactingDue {
		return
	}
	if err := k.settleCompacting(ctx, path); err != nil {
		k.warn("at the compaction: %w", err)
	}
}

// FirstPromptAt is the text of the session's first prompt, as the
// transcript held it when PreCompact ran (c.Size): seed 004's capture
// keeps it. A Claude Code transcript's first lines hold it, read up to
// that size; otherwise (another client's transcript, or a first prompt
// further in) the light session's, when c's checkpoint shows a prompt
// was there by then, since the client may have appended one since.
func (k *Keeper) FirstPromptAt(c Compacting) string {
	cp := c.Checkpoint
	if cp.Client == "" || cp.Client == transcript.ClaudeCode {
		limit := int64(firstPromptsRead)
		if c.Size > 0 {
			limit = min(limit, c.Size)
		}
		if prompts, _ := transcript.FirstPrompts(c.Path, limit); len(prompts) > 0 {
			return prompts[0].Text
		}
	}
	if cp.From > 0 || (cp.Task.First == "" && len(cp.Task.Latest) == 0) {
		return ""
	}
	s, err := k.Load(c.Path, false)
	if err != nil || len(s.Prompts) == 0 {
		return ""
	}
	return s.Prompts[0].Text
}

// SettleCompacting makes what is kept beyond the session at the
// compaction .pending announces there, when it is still due: it waits for
// the job, or does its work. For a hook that reads what the job writes.
func (k *Keeper) SettleCompacting(ctx context.Context, path string) {
	if k.AtCompaction != nil {
		k.compactingFor(ctx, path, k.loadPending(path))
	}
}

// WaitJobs waits, within dbWait, until no job the hooks started is still
// running, for a command that reads what they write (seed 004's captures,
// seed 001's marker and progress.md): it sees what the last compaction's
// job wrote.
func (k *Keeper) WaitJobs(ctx context.Context) { k.waitSettled(ctx) }
