package continuity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/state"
)

// fixture is a keeper on temporary directories and a transcript it writes.
type fixture struct {
	t       *testing.T
	k       *Keeper
	path    string
	project string
	n       int
	stored  []int64
}

func newFixture(t *testing.T) *fixture {
	dir := t.TempDir()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f := &fixture{t: t, path: filepath.Join(dir, "sess-k.jsonl"), project: filepath.Join(dir, "proj")}
	os.MkdirAll(f.project, 0o755)
	f.k = &Keeper{State: state.Store{Dir: filepath.Join(dir, "state")}, DBPath: filepath.Join(dir, "data", "cairn.db"),
		Now: func() time.Time { return now }, Stored: func(c checkpoint.Checkpoint) { f.stored = append(f.stored, c.ID) }}
	t.Cleanup(func() { f.k.Close() })
	return f
}

func (f *fixture) line(v map[string]any) {
	f.n++
	v["sessionId"], v["cwd"], v["isSidechain"] = "sess-k", f.project, false
	v["timestamp"] = time.Date(2026, 3, 1, 11, 0, f.n, 0, time.UTC).Format(time.RFC3339)
	b, _ := json.Marshal(v)
	file, err := os.OpenFile(f.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		f.t.Fatal(err)
	}
	file.Write(append(b, '\n'))
	file.Close()
}

func (f *fixture) prompt(text string) {
	f.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
}

func (f *fixture) reply(text string, tokens int) {
	f.line(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("m%d", f.n), "model": "claude-opus-4-6",
		"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}, "usage": map[string]any{"input_tokens": tokens}}})
}

func (f *fixture) boundary() {
	f.line(map[string]any{"type": "system", "subtype": "compact_boundary", "compactMetadata": map[string]any{"trigger": "auto", "preTokens": 150000, "postTokens": 9000}})
}

// collect is a Deliver that keeps what it was given.
type collect []string

func (c *collect) deliver(text string) error { *c = append(*c, text); return nil }

func TestBuildNothing(t *testing.T) {
	f := newFixture(t)
	if _, err := f.k.Build(context.Background(), f.project, f.path, "manual"); !errors.Is(err, ErrNothing) {
		t.Errorf("Build of a missing transcript: %v", err)
	}
}

func TestCaptureNotes(t *testing.T) {
	f := newFixture(t)
	f.prompt("Fix KEEP-1.")
	f.reply("on it", 1000)
	c, err := f.k.Capture(context.Background(), f.project, f.path, "manual")
	if err != nil || c.ID == 0 {
		t.Fatalf("Capture = %+v, %v", c, err)
	}
	if len(f.stored) != 1 || f.stored[0] != c.ID {
		t.Errorf("Stored told %v", f.stored)
	}
	if m := f.k.State.Marks(f.path); m.CheckpointTurns != 1 {
		t.Errorf("marks %+v", m)
	}
	// SessionEnd with nothing new since: no second checkpoint.
	if err := f.k.SessionEnd(context.Background(), f.project, f.path); err != nil || len(f.stored) != 1 {
		t.Errorf("SessionEnd = %v, stored %v", err, f.stored)
	}
}

// PreCompact steers before it stores, announces the compaction, and the
// restore that follows comes from its checkpoint, once.
func TestPreCompactThenRestore(t *testing.T) {
	f := newFixture(t)
	f.prompt("Fix KEEP-2. Never touch vendor/.")
	f.reply("Working.", 150000)
	var steer collect
	c, err := f.k.PreCompact(context.Background(), f.project, f.path, "auto", func(text string) error {
		if len(f.stored) != 0 {
			t.Error("the steering came after the checkpoint was stored")
		}
		return steer.deliver(text)
	})
	if err != nil || len(steer) != 1 || !strings.Contains(steer[0], "KEEP-2") {
		t.Fatalf("PreCompact = %v, steering %q", err, steer)
	}
	if p := f.k.loadPending(f.path); p == nil || p.Key != "c1" || p.Checkpoint == nil || p.Checkpoint.ID != c.ID {
		t.Errorf("pending %+v", p)
	}
	var got collect
	done, err := f.k.Restore(context.Background(), f.project, f.path, AtSessionStart, got.deliver)
	if !done || err != nil || len(got) != 1 || !strings.Contains(got[0], "Never touch vendor/") || !strings.Contains(got[0], fmt.Sprintf("cairn show checkpoint %d", c.ID)) {
		t.Fatalf("Restore = %v, %v, %q", done, err, got)
	}
	f.boundary()
	f.reply("after", 9000)
	for _, at := range []string{AtPrompt, AtTool} {
		if done, err := f.k.Restore(context.Background(), f.project, f.path, at, got.deliver); done || err != nil {
			t.Errorf("restored again at %s: %v", at, err)
		}
	}
}

// A delivery that fails is not recorded: the next hook delivers.
func TestFailedDeliveryIsRetried(t *testing.T) {
	f := newFixture(t)
	f.prompt("Fix KEEP-3.")
	f.reply("Working.", 150000)
	fail := func(string) error { return errors.New("broken pipe") }
	if done, err := f.k.Restore(context.Background(), f.project, f.path, AtSessionStart, fail); done || err == nil {
		t.Fatalf("a failed delivery: %v, %v", done, err)
	}
	f.boundary()
	f.reply("after", 9000)
	var got collect
	if done, err := f.k.Restore(context.Background(), f.project, f.path, AtPrompt, got.deliver); !done || err != nil || !strings.Contains(got[0], "KEEP-3") {
		t.Errorf("the prompt's fallback: %v, %v, %q", done, err, got)
	}
}

func TestPointer(t *testing.T) {
	f := newFixture(t)
	f.prompt("Implement POINT-1.")
	f.reply("Done with the parser.", 5000)
	if _, err := f.k.Capture(context.Background(), f.project, f.path, "session-end"); err != nil {
		t.Fatal(err)
	}
	text, err := f.k.Pointer(context.Background(), f.project, "/other.jsonl", "sess-other", "startup")
	if err != nil || !strings.Contains(text, "POINT-1") || !strings.Contains(text, "cairn resume") {
		t.Errorf("pointer %q, %v", text, err)
	}
	if again, _ := f.k.Pointer(context.Background(), f.project, "/other.jsonl", "sess-other", "clear"); again != "" {
		t.Errorf("pointer twice: %q", again)
	}
	if self, _ := f.k.Pointer(context.Background(), f.project, f.path, "sess-k", "startup"); self != "" {
		t.Errorf("pointer to itself: %q", self)
	}
}

// TestManualRestoreBudget: after a /compact Claude Code shows the model
// PreCompact's steering too, and the restore shares the budget with it;
// a client that shows none of it (Unsteered) gives the restore all of it.
func TestManualRestoreBudget(t *testing.T) {
	size := func(unsteered bool) int {
		f := newFixture(t)
		f.k.RestoreBudget = 300
		f.k.Unsteered = unsteered
		for i := range 12 {
			f.prompt(fmt.Sprintf("Step %d of BILL-%d: change internal/billing/file%d.go so that totals use integer cents; never float64, and keep the CSV header order.", i, 100+i, i))
			f.reply(fmt.Sprintf("Changed internal/billing/file%d.go; the tests for BILL-%d pass now.", i, 100+i), 1000*(i+1))
		}
		if _, err := f.k.PreCompact(context.Background(), f.project, f.path, "manual", func(string) error { return nil }); err != nil {
			t.Fatal(err)
		}
		f.line(map[string]any{"type": "system", "subtype": "compact_boundary", "compactMetadata": map[string]any{"trigger": "manual", "preTokens": 12000, "postTokens": 900}})
		var got collect
		if ok, err := f.k.Restore(context.Background(), f.project, f.path, AtSessionStart, got.deliver); !ok || err != nil {
			t.Fatalf("no restore: %v, %v", ok, err)
		}
		return checkpoint.Tokens(got[0])
	}
	shared, whole := size(false), size(true)
	if whole <= shared {
		t.Errorf("the unsteered restore has %d tokens, the steered one %d: want more", whole, shared)
	}
	if whole > 300 {
		t.Errorf("the unsteered restore has %d tokens, over its budget of 300", whole)
	}
}

// After a /compact the restore of PreCompact's checkpoint leaves out what
// the steering printed from it shows whole; a checkpoint built later (its
// steering was not printed from it) and an automatic compaction repeat
// everything.
func TestSteeredRestore(t *testing.T) {
	restore := func(trigger string, precompact bool) string {
		f := newFixture(t)
		f.prompt("Change internal/billing/cents.go so that totals use integer cents for BILL-7.")
		f.reply("Changed internal/billing/cents.go; the tests pass now.", 1000)
		if precompact {
			if _, err := f.k.PreCompact(context.Background(), f.project, f.path, trigger, func(string) error { return nil }); err != nil {
				t.Fatal(err)
			}
		}
		f.line(map[string]any{"type": "system", "subtype": "compact_boundary", "compactMetadata": map[string]any{"trigger": trigger, "preTokens": 12000, "postTokens": 900}})
		var got collect
		if ok, err := f.k.Restore(context.Background(), f.project, f.path, AtSessionStart, got.deliver); !ok || err != nil {
			t.Fatalf("no restore: %v, %v", ok, err)
		}
		return got[0]
	}
	tests := []struct {
		name       string
		trigger    string
		precompact bool
		steered    bool
	}{
		{"manual, PreCompact's checkpoint", "manual", true, true},
		{"manual, built at the restore", "manual", false, false},
		{"auto", "auto", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := restore(tt.trigger, tt.precompact)
			if got := strings.Contains(r, "not repeated here"); got != tt.steered {
				t.Errorf("leaves out the steering's items: %v, want %v:\n%s", got, tt.steered, r)
			}
		})
	}
}
