package continuity

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// The first run on a session (cairn installed mid-session, or its state
// gone) has no saved state to go on from: a checkpoint of a 100 MB
// transcript reads and analyses all of it, about 290 ms of CPU
// (docs/benchmarks.md, issue 15), on the path the agent waits on at a
// compaction. PreCompact then builds its steering from the transcript's
// last part only (the window), announces the compaction under a key no
// compaction has (it cannot count the compactions and turns before the window), and
// leaves the whole checkpoint to its job, which builds it, saves the
// session's state and puts it in .pending in the window's place before
// storing it (settle.go). A SessionStart that comes before the job is
// done finds no announcement for its compaction and builds the whole
// checkpoint itself, as it does when PreCompact did not run: nothing of
// the window's checkpoint is ever stored or restored.

// A SessionStart(compact) on a first run (PreCompact did not run, or
// failed: nothing is announced and nothing saved) restores from the
// window too: rather than 300 ms of the agent's wait, a restore that says
// it holds the latest part only, and does not start with
// transcript.RestoreHeader, so that neither the transcript's record of it
// nor the delivery record counts it as the compaction's restore. Its
// window's checkpoint is announced under windowKey and its job builds and
// stores the whole one in its place, as after a first run's PreCompact;
// the next prompt or tool hook then finds the compaction's restore not
// delivered and delivers the whole one. Nothing of the working state is
// lost: the model gets the latest part at once and the rest one hook
// later.

// windowHeader starts the restore of a window (restoreWindow).
const windowHeader = "# Working state of the latest part of the conversation (cairn)\n\n" +
	"cairn had no saved state for this session: this is from the transcript's last part only. " +
	"The whole working state follows with the next prompt or tool call."

// restoreWindow delivers the restore of a first run's window at a
// SessionStart(compact), when the transcript is large, nothing is saved
// and nothing announced; handled is false when it does not apply (or
// cannot: the caller then restores as before).
func (k *Keeper) restoreWindow(ctx context.Context, project, path string, deliver Deliver) (done, handled bool, err error) {
	from, ok := k.windowed(path)
	if !ok || k.loadPending(path) != nil {
		return false, false, nil
	}
	c, err := k.buildWindow(project, path, "restore", from)
	if err != nil {
		return false, false, nil // no conversation in the window, or no Claude Code: the whole one
	}
	// Announced before it is delivered: the job that replaces it with the
	// whole one must find it, or the next hook could not take that one.
	if err := k.savePending(path, pending{Key: windowKey, Trigger: "compaction", Turns: -1, Checkpoint: &c}); err != nil {
		return false, false, nil
	}
	budget := k.RestoreBudget
	if budget <= 0 {
		budget = checkpoint.DefaultRestoreBudget
	}
	text := c.Restore(checkpoint.Compaction{Trigger: "compaction"}, budget)
	text = windowHeader + strings.TrimPrefix(text, transcript.RestoreHeader)
	if err := deliver(text); err != nil {
		err = fmt.Errorf("deliver the restore of the latest part: %w", err)
	}
	return err == nil, true, errors.Join(err, k.later(ctx, Job{Kind: JobCompaction, Project: project, Path: path}))
}

// firstRunWindow is how much of a large transcript's end a first run
// reads, from firstRunMin on: 512 KB keeps PreCompact within 6x a
// hello-world process's CPU on a 100 MB session, 1 MB took it to 7.3x, 2
// MB to 8.9x (docs/benchmarks.md, "The first run on a session"). Below
// firstRunMin the whole read costs at most about 25 ms of CPU, and
// loses nothing.
const (
	firstRunWindow = 512 << 10
	firstRunMin    = 8 << 20
)

// firstPromptsRead is how much of a transcript's start is read for its
// first prompt (FirstPromptAt).
const firstPromptsRead = 256 << 10

// windowed says whether PreCompact should build from the window: no
// whole session is saved and the transcript is large. windowFrom is then
// where the window starts.
func (k *Keeper) windowed(path string) (from int64, ok bool) {
	if k.Detach == nil || k.State.HasBody(path) {
		return 0, false // without a job nothing would build the whole one soon
	}
	fi, err := os.Stat(path)
	window, least := k.FirstRunWindow, 2*k.FirstRunWindow
	if window <= 0 {
		window, least = firstRunWindow, firstRunMin
	}
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < least {
		return 0, false
	}
	return fi.Size() - window, true
}

// buildWindow is buildWith, without git, on the window from from: the
// session it reads is not saved.
func (k *Keeper) buildWindow(project, path, trigger string, from int64) (checkpoint.Checkpoint, error) {
	s, err := transcript.NewWindow(path, from)
	if err != nil {
		return checkpoint.Checkpoint{}, err
	}
	if s.Client != transcript.ClaudeCode {
		// Only Claude Code's lines are read on their own (the others
		// carry state from line to line).
		return checkpoint.Checkpoint{}, fmt.Errorf("%w: not a Claude Code transcript", errNoWindow)
	}
	from = s.Offset
	var p transcript.Parser
	if _, err := s.Update(&p); err != nil {
		return checkpoint.Checkpoint{}, fmt.Errorf("read transcript: %w", err)
	}
	if len(s.Prompts) == 0 && s.NumTurns() == 0 {
		return checkpoint.Checkpoint{}, fmt.Errorf("%w: no conversation in the last part", errNoWindow)
	}
	reading, _ := meter.Measure(s, k.rules())
	// The session's first prompt, which the window lacks, from its first
	// lines: the task as the user first put it.
	if first, err := transcript.FirstPrompts(path, firstPromptsRead); err == nil && len(first) > 0 && from > 0 {
		for i := range first {
			first[i].Line = 0 // before the window's lines
		}
		s.Prompts = append(first, s.Prompts...)
	}
	in := checkpoint.Input{Project: project, Trigger: trigger, Now: k.Now(), Reading: reading, TicketPrefixes: k.TicketPrefixes, Redact: redact.String}
	c := checkpoint.Build(s, in)
	c.From = max(from, 1) // a window that is the whole file is still one
	return c, nil
}

// windowKey is the key of a window's announcement: no compaction's.
const windowKey = "w"

// errNoWindow is a window that cannot serve: the whole checkpoint is built.
var errNoWindow = errors.New("no window")

// wholeForWindow replaces the window's checkpoint .pending holds with the
// whole session's, under the key and turns the whole session gives: the
// job's first step after a first run's PreCompact. The steering printed
// from the window stays what it was; the restore and the database get the
// whole checkpoint.
func (k *Keeper) wholeForWindow(ctx context.Context, project, path string) (*pending, error) {
	p := k.loadPending(path)
	if p == nil || p.Checkpoint == nil || p.Checkpoint.From == 0 {
		return p, nil
	}
	unlock, err := k.lockSettle(ctx, path)
	if err != nil {
		return p, err
	}
	defer unlock()
	if p = k.loadPending(path); p == nil || p.Checkpoint == nil || p.Checkpoint.From == 0 {
		return p, nil
	}
	c, _, err := k.build(ctx, project, path, p.Checkpoint.Trigger)
	if err != nil {
		return p, err
	}
	c.CreatedAt, c.Instructions = p.Checkpoint.CreatedAt, p.Checkpoint.Instructions
	q := pending{Key: boundaryKey(c.Compactions + 1), Trigger: p.Trigger, PreTokens: c.Context.Tokens, Turns: c.Turns, Checkpoint: &c,
		CompactingDue: p.CompactingDue, At: p.At, Size: p.Size}
	if err := k.savePending(path, q); err != nil {
		return p, err
	}
	k.markTaken(path, c.Turns)
	return &q, nil
}
