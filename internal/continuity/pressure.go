package continuity

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/git"
	"github.com/cairn-agent/cairn/internal/handoff"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// Configure applies a project's configuration; what the environment set
// already (the restore budget, ticket prefixes) is kept.
func (k *Keeper) Configure(c config.Config) {
	k.Pressure = c.Pressure
	k.Advisories = c.Advisories
	k.HandoffAt, k.SnapshotAt, k.SnapshotCommit = c.HandoffAt, c.SnapshotAt, c.SnapshotCommit
	k.CaptureDir, k.CaptureManual, k.FlowDir, k.FlowTrim = c.CaptureDir, c.CaptureManual, c.FlowDir, c.FlowTrim
	if k.RestoreBudget == 0 {
		k.RestoreBudget = c.RestoreBudget
	}
	if len(k.TicketPrefixes) == 0 {
		k.TicketPrefixes = c.TicketPrefixes
	}
	k.configured = true
}

func (k *Keeper) pressureConfig() pressure.Config {
	if !k.configured {
		return pressure.Default()
	}
	return k.Pressure
}

// Prompt delivers what UserPromptSubmit adds to the model's context: the
// restore of a compaction not restored yet, else an advisory when the
// context crossed a level. prompt is what the user submitted.
func (k *Keeper) Prompt(ctx context.Context, project, path, prompt string, deliver Deliver) error {
	return k.atHook(ctx, project, path, AtPrompt, prompt, deliver)
}

// Tool delivers what PostToolUse adds: a restore SessionStart failed to
// deliver, else an advisory when the context crossed a level.
func (k *Keeper) Tool(ctx context.Context, project, path string, deliver Deliver) error {
	return k.atHook(ctx, project, path, AtTool, "", deliver)
}

func (k *Keeper) atHook(ctx context.Context, project, path, at, prompt string, deliver Deliver) error {
	s, err := k.Load(path, false)
	if err != nil {
		return err
	}
	done, err := k.restore(ctx, project, path, at, s, deliver)
	if done || err != nil {
		// No advisory beside a restore: the context it measured is gone.
		return err
	}
	text, err := k.advise(ctx, project, path, s, compacting(prompt))
	if text != "" {
		if derr := deliver(text); derr != nil && err == nil {
			err = derr
		}
	}
	return err
}

// compacting reports whether the prompt is a /compact command: the
// compaction comes before the model sees anything.
func compacting(prompt string) bool {
	p := strings.TrimSpace(prompt)
	return p == "/compact" || strings.HasPrefix(p, "/compact ")
}

// Advise checks the session's pressure level and returns the advisory for
// a level crossed for the first time, acting on the crossing (see
// advise). Commands and tests use it; hooks go through Prompt and Tool.
func (k *Keeper) Advise(ctx context.Context, project, path string) (string, error) {
	s, err := k.Load(path, false)
	if err != nil {
		return "", err
	}
	return k.advise(ctx, project, path, s, false)
}

// advise checks the session's pressure level. A level crossed for the
// first time is acted on once: a checkpoint is captured (and, through
// OnLevel, a handoff written and a snapshot taken where configured), and an
// advisory is returned for the model unless advisories are off or the
// level is deferred. When the context falls (a compaction, a cleared
// conversation) the levels re-arm.
//
// At or past the auto-compact point, or with a /compact on its way
// (quiet), the crossing is acted on but nothing is said: Claude Code
// compacts before the model reads it, and the restore that follows would
// sit beside an advisory about a context that is gone.
func (k *Keeper) advise(ctx context.Context, project, path string, s *transcript.Session, quiet bool) (string, error) {
	if s.NumTurns() == 0 {
		return "", nil
	}
	pc := k.pressureConfig()
	r, tr := meter.Measure(s, k.Settings)
	lvl := pc.Level(r)
	m := k.loadMarks(path)
	changed := false
	if lvl < m.announced || lvl < m.captured {
		m.announced, m.captured = min(m.announced, lvl), min(m.captured, lvl)
		changed = true
	}
	var trail []string
	var cerr error
	if lvl > m.captured {
		// Acted on once, whatever comes of it: a crossing retried on
		// every tool call while the database is locked would spend every
		// hook's budget. PreCompact takes its own checkpoint anyway.
		c, err := k.Capture(ctx, project, path, "pressure-"+pressure.Name(lvl))
		if err == nil {
			m.checkpointTurns = k.loadMarks(path).checkpointTurns // Capture noted it
		}
		m.captured = lvl
		changed = true
		if err != nil {
			cerr = fmt.Errorf("checkpoint at %s: %w", pressure.Name(lvl), err)
		} else {
			trail = append(trail, fmt.Sprintf("checkpoint %d (`cairn show checkpoint %d`)", c.ID, c.ID))
			trail = append(trail, k.atLevel(ctx, project, lvl, c)...)
		}
	}
	text := ""
	deferred := lvl < 3 && m.deferUntil > s.NumTurns()
	past := r.Threshold > 0 && r.Tokens >= r.Threshold
	if lvl > m.announced && !deferred {
		m.announced = lvl
		changed = true
		if (k.Advisories || !k.configured) && !past && !quiet {
			text = advisory(lvl, r, tr, pc, trail)
		}
	}
	k.saveMarksIf(path, m, changed)
	return text, cerr
}

func (k *Keeper) saveMarksIf(path string, m marks, changed bool) {
	if !changed {
		return
	}
	if err := k.saveMarks(path, m); err != nil {
		k.warn("cairn: warning: could not save marks: %v", err)
	}
}

// advisory words a level for the model.
func advisory(lvl int, r meter.Reading, tr meter.Trend, pc pressure.Config, trail []string) string {
	var b strings.Builder
	base := "the auto-compact point"
	limit := r.Threshold
	if pc.Base == pressure.OfWindow || r.Threshold == 0 {
		base, limit = "the context window", r.Window
	}
	name := pressure.Name(lvl)
	if lvl == 3 {
		name += " (emergency)"
	}
	// Rounded down, as the status line shows it.
	fmt.Fprintf(&b, "cairn · context %s: %s of %s tokens, %d%% of %s.", name, meter.Thousands(r.Tokens), meter.Thousands(limit), int(pc.Percent(r)), base)
	if tr.TurnsToCompact != nil {
		b.WriteString(" At the current rate auto-compaction comes " + inTurns(*tr.TurnsToCompact, tr.MinutesToCompact) + ".")
	}
	switch lvl {
	case 1:
		b.WriteString(" Finish the current task before starting new work.")
	case 2:
		b.WriteString(" Wrap up the current step and leave a clean trail.")
	case 3:
		b.WriteString(" Wrap up now: finish the step in progress and write down what remains.")
	}
	if len(trail) > 0 {
		fmt.Fprintf(&b, " State saved: %s.", strings.Join(trail, "; "))
	}
	if lvl < 3 {
		b.WriteString(" (The user can snooze this with `cairn defer`.)")
	}
	return b.String()
}

// inTurns words a prediction: "in about 12 turns (5 min)", "within a
// turn".
func inTurns(turns float64, minutes *float64) string {
	if turns < 1 {
		return "within a turn"
	}
	s := fmt.Sprintf("in about %.0f turns", turns)
	if turns < 1.5 {
		s = "in about 1 turn"
	}
	if minutes != nil {
		if *minutes < 1 {
			s += " (under a minute)"
		} else {
			s += fmt.Sprintf(" (%.0f min)", *minutes)
		}
	}
	return s
}

// DefaultDefer is how many turns `cairn defer` snoozes L1 and L2 for.
const DefaultDefer = 10

// Defer snoozes L1 and L2 advisories of the session for n turns and
// returns the turn they come back at.
func (k *Keeper) Defer(path string, n int) (int, error) {
	s, err := k.Load(path, false)
	if err != nil {
		return 0, err
	}
	m := k.loadMarks(path)
	m.deferUntil = s.NumTurns() + n
	return m.deferUntil, k.saveMarks(path, m)
}

// How long the Stop hook waits for the turn to reach the transcript.
const (
	stopPoll  = 25 * time.Millisecond
	stopWaits = 40 // a second
)

// hasText reports whether the session's latest replies include text.
func hasText(s *transcript.Session, text string) bool {
	want := strings.TrimSpace(text)
	for _, n := range s.LastTexts {
		if strings.TrimSpace(n.Text) == want || (len(want) > 200 && strings.HasPrefix(n.Text, want[:200])) {
			return true
		}
	}
	return false
}

// suggestEvery is how many turns pass before the Stop hook repeats a
// suggestion at the same level.
const suggestEvery = 5

// StopSuggestion is the note the Stop hook shows the user (never the
// model): a level has been reached and work was done since the last
// checkpoint. "" when there is nothing to suggest.
func (k *Keeper) StopSuggestion(ctx context.Context, path, lastReply string) (string, error) {
	s, err := k.Load(path, false)
	if err != nil {
		return "", err
	}
	// Claude Code runs Stop hooks before it writes the turn to the
	// transcript: wait a little for the reply it says the turn ended with.
	for wait := 0; lastReply != "" && !hasText(s, lastReply) && wait < stopWaits; wait++ {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(stopPoll):
		}
		if s, err = k.Load(path, false); err != nil {
			return "", err
		}
	}
	if s.NumTurns() == 0 {
		return "", nil
	}
	pc := k.pressureConfig()
	r, _ := meter.Measure(s, k.Settings)
	lvl := pc.Level(r)
	if lvl == 0 {
		return "", nil
	}
	m := k.loadMarks(path)
	turns := s.NumTurns()
	if turns <= m.checkpointTurns {
		return "", nil
	}
	if lvl <= m.suggestedLevel && turns-m.suggestedTurns < suggestEvery {
		return "", nil
	}
	m.suggestedTurns, m.suggestedLevel = turns, lvl
	if err := k.saveMarks(path, m); err != nil {
		return "", err
	}
	since := turns - m.checkpointTurns
	plural := "s"
	if since == 1 {
		plural = ""
	}
	return fmt.Sprintf("cairn: context at %s (%d%%), %d turn%s since the last checkpoint. `cairn checkpoint` or /handoff leaves a trail; `cairn defer` snoozes the advisories.",
		pressure.Name(lvl), int(pc.Percent(r)), since, plural), nil
}

// atLevel writes what the configuration asks for at a level crossing,
// beside the checkpoint: a handoff document, a snapshot of uncommitted
// work. A failure is reported in the trail rather than stopping the rest.
func (k *Keeper) atLevel(ctx context.Context, project string, lvl int, c checkpoint.Checkpoint) []string {
	var trail []string
	if slices.Contains(k.HandoffAt, lvl) && project != "" {
		p, err := handoff.Write(project, c, handoff.Input{Project: project, Now: k.Now, Level: lvl, Pressure: k.pressureConfig()})
		if err != nil {
			k.warn("cairn: warning: handoff: %v", err)
		} else {
			trail = append(trail, "handoff "+relTo(project, p))
		}
	}
	if slices.Contains(k.SnapshotAt, lvl) && project != "" {
		if line := k.snapshot(ctx, project, lvl, c); line != "" {
			trail = append(trail, line)
		}
	}
	if k.OnLevel != nil {
		trail = append(trail, k.OnLevel(ctx, project, "", lvl, c)...)
	}
	return trail
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
func (k *Keeper) snapshot(ctx context.Context, project string, lvl int, c checkpoint.Checkpoint) string {
	if k.SnapshotCommit {
		ctx, cancel := context.WithTimeout(ctx, wipTime)
		defer cancel()
		ticket := ""
		if t := c.Task.Tickets; len(t) > 0 {
			ticket = t[len(t)-1]
		}
		sha, err := git.WIPCommit(ctx, project, ticket)
		switch {
		case errors.Is(err, git.ErrClean), errors.Is(err, git.ErrNotRepo):
			return ""
		case err != nil:
			k.warn("cairn: warning: WIP commit: %v", err)
			return ""
		}
		return "WIP commit " + sha[:min(12, len(sha))]
	}
	ctx, cancel := context.WithTimeout(ctx, snapshotTime)
	defer cancel()
	snap, err := git.Snapshot(ctx, project, c.SessionID, fmt.Sprintf("cairn snapshot at %s (checkpoint %d)", pressure.Name(lvl), c.ID))
	switch {
	case errors.Is(err, git.ErrClean), errors.Is(err, git.ErrNotRepo):
		return ""
	case err != nil:
		k.warn("cairn: warning: snapshot: %v", err)
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

// noteCheckpoint remembers when the session's last checkpoint was taken.
func (k *Keeper) noteCheckpoint(path string, c checkpoint.Checkpoint, turns int) {
	m := k.loadMarks(path)
	m.checkpointTurns = turns
	if err := k.saveMarks(path, m); err != nil {
		k.warn("cairn: warning: could not save marks: %v", err)
	}
}
