package pressure

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// session is a light session whose latest reply had tokens in context.
func session(path string, tokens ...int64) *transcript.Session {
	s := transcript.New(path)
	for i, n := range tokens {
		s.Turns = append(s.Turns, transcript.Turn{Line: i + 1, Usage: transcript.Usage{Input: n}})
	}
	return s
}

func TestAdvise(t *testing.T) {
	path := "/p/s.jsonl"
	var crossed []int
	a := &Advisor{State: state.Store{Dir: t.TempDir()}, Config: Default(), Settings: meter.Settings{Window: 200000},
		AtLevel: func(_ context.Context, lvl int) ([]string, error) {
			crossed = append(crossed, lvl)
			return []string{"checkpoint 7"}, nil
		}}
	advise := func(quiet bool, tokens ...int64) string {
		t.Helper()
		text, err := a.Advise(context.Background(), path, session(path, tokens...), quiet)
		if err != nil {
			t.Fatal(err)
		}
		return text
	}
	if got := advise(false, 50000); got != "" {
		t.Errorf("L0: %q", got)
	}
	if got := advise(false, 50000, 120000); !strings.Contains(got, "context L1") || !strings.Contains(got, "State saved: checkpoint 7") {
		t.Errorf("L1: %q", got)
	}
	if got := advise(false, 50000, 121000); got != "" {
		t.Errorf("L1 announced twice: %q", got)
	}
	// Past the auto-compact point (167,000 of a 200,000 window), or with
	// a /compact on its way, the crossing is acted on and not announced.
	if got := advise(false, 50000, 170000); got != "" {
		t.Errorf("past the compaction point: %q", got)
	}
	if len(crossed) != 2 || crossed[1] != 3 {
		t.Errorf("crossings acted on: %v", crossed)
	}
	// After a compaction the levels re-arm.
	a.Rearm(path)
	if got := advise(true, 9000, 121000); got != "" {
		t.Errorf("announced with a /compact on its way: %q", got)
	}
	a.Rearm(path)
	if got := advise(false, 9000, 121000); !strings.Contains(got, "context L1") {
		t.Errorf("L1 after re-arming: %q", got)
	}
	// A crossing whose side effects fail still counts, and says why.
	a.Rearm(path)
	a.AtLevel = func(context.Context, int) ([]string, error) { return nil, errors.New("database is locked") }
	text, err := a.Advise(context.Background(), path, session(path, 9000, 121000), false)
	if !strings.Contains(text, "context L1") || err == nil || !strings.Contains(err.Error(), "at L1: database is locked") {
		t.Errorf("failed crossing: %q, %v", text, err)
	}
	if text, _ := a.Advise(context.Background(), path, session(path, 9000, 122000), false); text != "" {
		t.Errorf("failed crossing tried again: %q", text)
	}
}

// A hook's process ends with its budget, wherever AtLevel is: by then the
// crossing is recorded, so the next hook does not work on it again, and
// the advisory, which never went out, is given by the next hook.
func TestCrossingRecordedFirst(t *testing.T) {
	path := "/p/s.jsonl"
	st := state.Store{Dir: t.TempDir()}
	var atCrossing state.Marks
	calls := 0
	a := &Advisor{State: st, Config: Default(), Settings: meter.Settings{Window: 200000},
		AtLevel: func(context.Context, int) ([]string, error) {
			calls++
			atCrossing = st.Marks(path) // what a process killed here leaves
			return nil, nil
		}}
	if _, err := a.Advise(context.Background(), path, session(path, 50000, 145000), false); err != nil {
		t.Fatal(err)
	}
	if atCrossing.Captured != 2 || atCrossing.Announced != 0 {
		t.Fatalf("marks while AtLevel works: %+v; want L2 captured, nothing announced", atCrossing)
	}
	if err := st.SaveMarks(path, atCrossing); err != nil { // the process was killed
		t.Fatal(err)
	}
	text, err := a.Advise(context.Background(), path, session(path, 50000, 146000), false)
	if err != nil || calls != 1 || !strings.Contains(text, "context L2") {
		t.Errorf("after the kill: AtLevel called %d times, advisory %q, %v", calls, text, err)
	}
}

func TestDeferAndQuiet(t *testing.T) {
	path := "/p/s.jsonl"
	a := &Advisor{State: state.Store{Dir: t.TempDir()}, Config: Default(), Settings: meter.Settings{Window: 200000}}
	until, err := a.Defer(path, 2, 3)
	if err != nil || until != 5 {
		t.Fatalf("Defer = %d, %v", until, err)
	}
	s := session(path, 1000, 120000) // L1 at turn 2: snoozed
	if text, _ := a.Advise(context.Background(), path, s, false); text != "" {
		t.Errorf("deferred L1: %q", text)
	}
	s = session(path, 1000, 2000, 3000, 4000, 5000, 165000) // L3 at turn 6: never snoozed
	if text, _ := a.Advise(context.Background(), path, s, false); !strings.Contains(text, "L3 (emergency)") {
		t.Errorf("L3 under a deferral: %q", text)
	}
	q := &Advisor{State: state.Store{Dir: t.TempDir()}, Config: Default(), Settings: meter.Settings{Window: 200000}, Quiet: true}
	if text, _ := q.Advise(context.Background(), path, session(path, 1000, 120000), false); text != "" {
		t.Errorf("advisories off: %q", text)
	}
}

func TestStopSuggestion(t *testing.T) {
	path := "/p/s.jsonl"
	a := &Advisor{State: state.Store{Dir: t.TempDir()}, Config: Default(), Settings: meter.Settings{Window: 200000}}
	s := session(path, 1000, 120000)
	s.LastTexts = []transcript.Note{{Text: "done for now"}}
	load := func() (*transcript.Session, error) { return s, nil }
	got, err := a.StopSuggestion(context.Background(), path, "done for now", load)
	if err != nil || !strings.Contains(got, "context at L1") || !strings.Contains(got, "2 turns since the last checkpoint") {
		t.Errorf("suggestion: %q, %v", got, err)
	}
	if got, _ := a.StopSuggestion(context.Background(), path, "done for now", load); got != "" {
		t.Errorf("repeated at once: %q", got)
	}
	// A checkpoint with every turn: nothing to suggest.
	m := a.State.Marks(path)
	m.CheckpointTurns, m.SuggestedTurns, m.SuggestedLevel = 2, 0, 0
	a.State.SaveMarks(path, m)
	if got, _ := a.StopSuggestion(context.Background(), path, "", load); got != "" {
		t.Errorf("after a checkpoint: %q", got)
	}
}
