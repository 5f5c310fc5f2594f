package continuity

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// counts is how many items each section of a checkpoint holds: what a
// checkpoint of the window loses against the whole one.
func counts(c checkpoint.Checkpoint) string {
	return fmt.Sprintf("open %d, answers %d, closed %d, constraints %d, todos %d, files %d, reads %d, commands %d, errors %d, decisions %d, findings %d, next %d",
		len(c.Open), len(c.Answers), len(c.Closed), len(c.Constraints), len(c.Todos), len(c.Files), len(c.KeyReads),
		len(c.Commands), len(c.Errors), len(c.Decisions), len(c.Findings), len(c.NextSteps))
}

// A first run's PreCompact on a large transcript (here: a window of a
// quarter of each fixture session) steers from the window, announces no
// compaction a restore could take, and its job puts the whole checkpoint
// in its place: the one a build with no window gives, stored, and the
// one SessionStart restores.
func TestFirstRunWindow(t *testing.T) {
	fx, names := windowFixtures(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(fx, name+".jsonl")
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			project := filepath.Join(dir, "proj")
			var jobs []Job
			k := &Keeper{State: state.Store{Dir: filepath.Join(dir, "state")}, DBPath: filepath.Join(dir, "data", "cairn.db"),
				Now: func() time.Time { return now }, Detach: func(j Job) error { jobs = append(jobs, j); return nil },
				FirstRunWindow: fi.Size() / 4}
			t.Cleanup(func() { k.Close() })
			whole := &Keeper{State: state.Store{Dir: filepath.Join(dir, "whole")}, DBPath: filepath.Join(dir, "wdata", "cairn.db"), Now: k.Now}
			t.Cleanup(func() { whole.Close() })
			want, _, err := whole.buildWith(context.Background(), project, path, "precompact-auto", true)
			if err != nil {
				t.Fatal(err)
			}

			var steer collect
			c, err := k.PreCompact(context.Background(), project, path, "auto", steer.deliver)
			if err != nil {
				t.Fatal(err)
			}
			if c.From == 0 {
				// The window holds no conversation: the whole build, as
				// on any other run.
				if p := k.loadPending(path); p == nil || p.Key != boundaryKey(want.Compactions+1) || !k.State.HasBody(path) {
					t.Fatalf("no window and no whole build: %+v", p)
				}
				t.Logf("the last %d of %d bytes hold no conversation: built whole", fi.Size()/4, fi.Size())
				return
			}
			if c.From <= fi.Size()/2 {
				t.Fatalf("built from %d of %d bytes: not the window", c.From, fi.Size())
			}
			if k.State.HasBody(path) {
				t.Error("the window's session was saved as the transcript's state")
			}
			if len(steer) == 1 && !strings.Contains(steer[0], "latest part of the conversation") {
				t.Errorf("the steering does not say it is from the latest part: %.200s", steer[0])
			}
			p := k.loadPending(path)
			if p == nil || p.Key != windowKey || p.Checkpoint == nil || p.Checkpoint.From != c.From {
				t.Fatalf("announcement %+v", p)
			}
			if c.Task.First != want.Task.First {
				t.Errorf("the window's first prompt %q, the session's %q", c.Task.First, want.Task.First)
			}
			t.Logf("window (last %d of %d bytes): %s", fi.Size()-c.From, fi.Size(), counts(c))
			t.Logf("whole: %s", counts(want))

			if len(jobs) != 1 || jobs[0].Kind != JobCompaction {
				t.Fatalf("jobs %+v", jobs)
			}
			if err := k.Settle(context.Background(), jobs[0]); err != nil {
				t.Fatal(err)
			}
			p = k.loadPending(path)
			if p == nil || p.Checkpoint == nil || p.Checkpoint.ID == 0 || p.Checkpoint.From != 0 || !p.Observed {
				t.Fatalf("after the job: %+v", p)
			}
			if got := p.Key; got != boundaryKey(want.Compactions+1) || p.Turns != want.Turns {
				t.Errorf("key %s, turns %d; want %s, %d", got, p.Turns, boundaryKey(want.Compactions+1), want.Turns)
			}
			got := *p.Checkpoint
			got.ID, got.CreatedAt = 0, want.CreatedAt
			if asJSON(t, got) != asJSON(t, want) {
				t.Errorf("the job's checkpoint differs from a whole build:\n got %s\nwant %s", asJSON(t, got), asJSON(t, want))
			}
			var restored collect
			done, err := k.Restore(context.Background(), project, path, AtSessionStart, restored.deliver)
			if !done || err != nil || len(restored) != 1 || !strings.Contains(restored[0], fmt.Sprintf("cairn show checkpoint %d", p.Checkpoint.ID)) {
				t.Fatalf("Restore = %v, %v, %.300q", done, err, restored)
			}
		})
	}
}

// A SessionStart before the job is done does not restore the window's
// checkpoint: it builds the whole one, as when PreCompact did not run.
func TestFirstRunWindowBeforeJob(t *testing.T) {
	fx := t.TempDir()
	if _, err := fixtures.Extract(fx); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(fx, fixtures.Compactions[0].Session+".jsonl")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	k := &Keeper{State: state.Store{Dir: filepath.Join(dir, "state")}, DBPath: filepath.Join(dir, "data", "cairn.db"),
		Now: func() time.Time { return now }, Detach: func(Job) error { return nil }, FirstRunWindow: fi.Size() / 4}
	t.Cleanup(func() { k.Close() })
	var steer collect
	c, err := k.PreCompact(context.Background(), dir, path, "auto", steer.deliver)
	if err != nil || c.From == 0 {
		t.Fatalf("PreCompact = %v, from %d", err, c.From)
	}
	var restored collect
	done, err := k.Restore(context.Background(), dir, path, AtSessionStart, restored.deliver)
	if !done || err != nil || len(restored) != 1 {
		t.Fatalf("Restore = %v, %v, %d", done, err, len(restored))
	}
	db, err := k.DB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r, err := db.LatestCheckpoint(context.Background(), dir, c.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if stored, err := FromRecord(r); err != nil || stored.From != 0 || stored.Trigger != "restore" {
		t.Errorf("stored %s from %d (%v); want the restore's whole build", stored.Trigger, stored.From, err)
	}
}

// A first run's SessionStart(compact), with nothing announced or saved,
// restores the window's latest part at once, under a header that no
// record counts as the compaction's restore; its job puts the whole
// checkpoint in .pending, and the next prompt hook, once the boundary is
// written, delivers the whole restore, once.
func TestFirstRunWindowRestore(t *testing.T) {
	fx, names := windowFixtures(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(fx, name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			path := filepath.Join(dir, name+".jsonl")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			project := filepath.Join(dir, "proj")
			var jobs []Job
			k := &Keeper{State: state.Store{Dir: filepath.Join(dir, "state")}, DBPath: filepath.Join(dir, "data", "cairn.db"),
				Now: func() time.Time { return now }, Detach: func(j Job) error { jobs = append(jobs, j); return nil },
				FirstRunWindow: int64(len(data)) / 4}
			t.Cleanup(func() { k.Close() })
			whole := &Keeper{State: state.Store{Dir: filepath.Join(dir, "whole")}, DBPath: filepath.Join(dir, "wdata", "cairn.db"), Now: k.Now}
			t.Cleanup(func() { whole.Close() })
			want, _, err := whole.buildWith(context.Background(), project, path, "restore", true)
			if err != nil {
				t.Fatal(err)
			}

			var restored collect
			done, err := k.Restore(context.Background(), project, path, AtSessionStart, restored.deliver)
			if !done || err != nil || len(restored) != 1 {
				t.Fatalf("Restore = %v, %v, %d", done, err, len(restored))
			}
			if !strings.HasPrefix(restored[0], windowHeader) && strings.HasPrefix(restored[0], transcript.RestoreHeader) {
				// The window holds no conversation: the whole restore.
				if k.loadPending(path) != nil || len(jobs) != 0 {
					t.Fatalf("a whole restore left %+v, %+v", k.loadPending(path), jobs)
				}
				t.Logf("the last quarter holds no conversation: restored whole")
				return
			}
			if !strings.HasPrefix(restored[0], windowHeader) || strings.HasPrefix(restored[0], transcript.RestoreHeader) {
				t.Fatalf("restore of the window: %.200q", restored[0])
			}
			if k.State.HasBody(path) {
				t.Error("the window's session was saved as the transcript's state")
			}
			if len(jobs) != 1 || jobs[0].Kind != JobCompaction {
				t.Fatalf("jobs %+v", jobs)
			}
			if err := k.Settle(context.Background(), jobs[0]); err != nil {
				t.Fatal(err)
			}
			p := k.loadPending(path)
			if p == nil || p.Checkpoint == nil || p.Checkpoint.ID == 0 || p.Checkpoint.From != 0 ||
				p.Key != boundaryKey(want.Compactions+1) || p.Turns != want.Turns {
				t.Fatalf("after the job: %+v", p)
			}
			got := *p.Checkpoint
			got.ID, got.CreatedAt = 0, want.CreatedAt
			if asJSON(t, got) != asJSON(t, want) {
				t.Errorf("the job's checkpoint differs from a whole build:\n got %s\nwant %s", asJSON(t, got), asJSON(t, want))
			}

			// The boundary, then the hook's answer as Claude Code records
			// it (its attachment before its type), then the next prompt.
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			answer, _ := json.Marshal(restored[0])
			fmt.Fprintf(f, `{"type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":160000},"timestamp":"2026-03-01T12:00:00Z"}`+"\n"+
				`{"attachment":{"type":"hook_additional_context","content":[%s],"hookName":"SessionStart"},"type":"attachment","timestamp":"2026-03-01T12:00:01Z"}`+"\n", answer)
			f.Close()
			var next collect
			done, err = k.Restore(context.Background(), project, path, AtPrompt, next.deliver)
			if !done || err != nil || len(next) != 1 || !strings.HasPrefix(next[0], transcript.RestoreHeader) ||
				!strings.Contains(next[0], fmt.Sprintf("cairn show checkpoint %d", p.Checkpoint.ID)) {
				t.Fatalf("the next prompt's Restore = %v, %v, %.300q", done, err, next)
			}
			if done, err := k.Restore(context.Background(), project, path, AtPrompt, next.deliver); done || err != nil {
				t.Errorf("delivered again: %v, %v", done, err)
			}
		})
	}
}

// windowFixtures extracts the fixture sessions into a directory and names
// those the window tests run on: the compacted ones and the small ones.
func windowFixtures(t *testing.T) (dir string, names []string) {
	t.Helper()
	for _, c := range fixtures.Compactions {
		names = append(names, c.Session)
	}
	names = append(names, fixtures.Small...)
	dir = t.TempDir()
	if _, err := fixtures.Extract(dir); err != nil {
		t.Fatal(err)
	}
	return dir, names
}
