package pressure

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// Advisor acts on the levels of one session between hook processes: it
// announces a level crossed for the first time to the model, has what the
// configuration asks for done at the crossing, snoozes advisories, and
// suggests a checkpoint to the user at the end of a turn. What it
// remembers is the session's state.Marks.
type Advisor struct {
	State    state.Store
	Config   Config
	Settings meter.Settings
	// Rules, when set, are the client's rules in place of Settings
	// (Claude Code's).
	Rules meter.Rules
	// Quiet keeps advisories out of the model's context; the crossings
	// are still acted on (the configuration's `advisories = off`).
	Quiet bool
	// AtLevel does what a level crossed for the first time calls for (a
	// checkpoint, a handoff, a snapshot) and says what it saved, for the
	// advisory. A crossing is acted on once whatever happens: it is
	// recorded as acted on before AtLevel is called, since a hook's
	// process ends when its budget does, whether AtLevel has returned or
	// not; and a failure is reported and still counts. One worked on
	// again at every tool call, while the database is locked or git is
	// slow, would spend every hook's budget.
	AtLevel func(ctx context.Context, level int) (saved []string, err error)
	// Warn is told what went wrong but did not stop the advice.
	Warn func(error)
}

// Advise returns the advisory for a level of s's context crossed for the
// first time, "" when there is none, acting on the crossing once. When the
// context falls (a compaction, a cleared conversation) the levels re-arm.
//
// At or past the auto-compact point, or with a /compact on its way
// (quiet), the crossing is acted on but nothing is said: Claude Code
// compacts before the model reads it, and the restore that follows would
// sit beside an advisory about a context that is gone.
func (a *Advisor) Advise(ctx context.Context, path string, s *transcript.Session, quiet bool) (string, error) {
	if s.NumTurns() == 0 {
		return "", nil
	}
	r, tr := meter.Measure(s, a.rules())
	lvl := a.Config.Level(r)
	m := a.State.Marks(path)
	changed := false
	if lvl < m.Announced || lvl < m.Captured {
		m.Announced, m.Captured = min(m.Announced, lvl), min(m.Captured, lvl)
		changed = true
	}
	var trail []string
	var aerr error
	if lvl > m.Captured {
		m.Captured = lvl
		changed = true
		if a.AtLevel != nil {
			if err := a.State.SaveMarks(path, m); err != nil && a.Warn != nil {
				a.Warn(fmt.Errorf("could not save marks: %w", err))
			}
			trail, aerr = a.AtLevel(ctx, lvl)
			if aerr != nil {
				aerr = fmt.Errorf("at %s: %w", Name(lvl), aerr)
			}
			// AtLevel's checkpoint noted its turns in the marks.
			m.CheckpointTurns = a.State.Marks(path).CheckpointTurns
		}
	}
	text := ""
	deferred := lvl < 3 && m.DeferUntil > s.NumTurns()
	past := r.Threshold > 0 && r.Tokens >= r.Threshold
	if lvl > m.Announced && !deferred {
		m.Announced = lvl
		changed = true
		if !a.Quiet && !past && !quiet {
			text = Advisory(lvl, r, tr, a.Config, trail)
		}
	}
	if changed {
		if err := a.State.SaveMarks(path, m); err != nil && a.Warn != nil {
			a.Warn(fmt.Errorf("could not save marks: %w", err))
		}
	}
	return text, aerr
}

// Advisory words a level for the model.
func Advisory(lvl int, r meter.Reading, tr meter.Trend, pc Config, trail []string) string {
	var b strings.Builder
	base := "the auto-compact point"
	limit := r.Threshold
	if pc.Base == OfWindow || r.Threshold == 0 {
		base, limit = "the context window", r.Window
	}
	name := Name(lvl)
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

// Defer snoozes the L1 and L2 advisories of the session for n turns from
// its turns now, and returns the turn they come back at.
func (a *Advisor) Defer(path string, turns, n int) (int, error) {
	m := a.State.Marks(path)
	m.DeferUntil = turns + n
	return m.DeferUntil, a.State.SaveMarks(path, m)
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
// checkpoint; "" when there is nothing to suggest. Claude Code runs Stop
// hooks before it writes the turn to the transcript, so it waits a little
// for the reply the turn ended with (lastReply) to be there, loading the
// session again with load.
func (a *Advisor) StopSuggestion(ctx context.Context, path, lastReply string, load func() (*transcript.Session, error)) (string, error) {
	s, err := load()
	if err != nil {
		return "", err
	}
	for wait := 0; lastReply != "" && !hasText(s, lastReply) && wait < stopWaits; wait++ {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(stopPoll):
		}
		if s, err = load(); err != nil {
			return "", err
		}
	}
	if s.NumTurns() == 0 {
		return "", nil
	}
	r, _ := meter.Measure(s, a.rules())
	lvl := a.Config.Level(r)
	if lvl == 0 {
		return "", nil
	}
	m := a.State.Marks(path)
	turns := s.NumTurns()
	if turns <= m.CheckpointTurns {
		return "", nil
	}
	if lvl <= m.SuggestedLevel && turns-m.SuggestedTurns < suggestEvery {
		return "", nil
	}
	m.SuggestedTurns, m.SuggestedLevel = turns, lvl
	if err := a.State.SaveMarks(path, m); err != nil {
		return "", err
	}
	since := turns - m.CheckpointTurns
	plural := "s"
	if since == 1 {
		plural = ""
	}
	return fmt.Sprintf("cairn: context at %s (%d%%), %d turn%s since the last checkpoint. `cairn checkpoint` or /handoff leaves a trail; `cairn defer` snoozes the advisories.",
		Name(lvl), int(a.Config.Percent(r)), since, plural), nil
}

// Rearm lets the levels fire again, after a compaction: the context fell,
// and a crossing before the next look at it must still be announced.
func (a *Advisor) Rearm(path string) {
	m := a.State.Marks(path)
	if m.Announced == 0 && m.Captured == 0 {
		return
	}
	m.Announced, m.Captured = 0, 0
	if err := a.State.SaveMarks(path, m); err != nil && a.Warn != nil {
		a.Warn(fmt.Errorf("could not save marks: %w", err))
	}
}

// rules are the client's rules: Rules, else Claude Code's Settings.
func (a *Advisor) rules() meter.Rules {
	if a.Rules != nil {
		return a.Rules
	}
	return a.Settings
}
