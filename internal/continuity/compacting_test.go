package continuity

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/state"
)

// What is kept beyond the session at a compaction is its job's, from what
// PreCompact saw; a restore that comes while the job writes it waits for
// it, and neither writes it twice.
func TestCompactingWaitsForTheJob(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	jobs := f.detached()
	var mu sync.Mutex
	var events []string
	note := func(e string) { mu.Lock(); events = append(events, e); mu.Unlock() }
	f.k.AtCompaction = func(context.Context, Compacting) error { note("the hook's keeper wrote"); return nil }
	f.prompt("Fix KEEP-9.")
	f.reply("on it", 150000)
	size := transcriptSize(f.path)
	at := f.k.Now()
	if _, err := f.k.PreCompact(ctx, f.project, f.path, "auto", func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if len(*jobs) != 1 || len(events) != 0 {
		t.Fatalf("after PreCompact: jobs %+v, written by %v", *jobs, events)
	}
	// The compaction's lines, and time passing, before the job runs.
	f.boundary()

	job := &Keeper{State: f.k.State, DBPath: f.k.DBPath, Settling: true, Now: func() time.Time { return at.Add(time.Minute) }}
	t.Cleanup(func() { job.Close() })
	started, release := make(chan Compacting, 1), make(chan struct{})
	job.AtCompaction = func(_ context.Context, c Compacting) error {
		started <- c
		<-release
		note("the job wrote")
		return nil
	}
	jobDone := make(chan error, 1)
	go func() { jobDone <- job.Settle(ctx, (*jobs)[0]) }()
	c := <-started
	if c.Trigger != "auto" || !c.At.Equal(at) || c.Size != size || c.Path != f.path || c.Project != f.project || c.Checkpoint.Task.First != "Fix KEEP-9." {
		t.Errorf("the job got %+v; want PreCompact's trigger, time %v, size %d", c, at, size)
	}

	restore := &Keeper{State: f.k.State, DBPath: f.k.DBPath, Now: job.Now}
	t.Cleanup(func() { restore.Close() })
	restore.AtCompaction = func(context.Context, Compacting) error { note("the restore wrote"); return nil }
	restoreDone := make(chan error, 1)
	go func() {
		_, err := restore.Restore(ctx, f.project, f.path, AtSessionStart, func(string) error { note("delivered"); return nil })
		restoreDone <- err
	}()
	select {
	case err := <-restoreDone:
		t.Fatalf("the restore did not wait for the job (%v): %v", err, events)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if err := <-jobDone; err != nil {
		t.Fatal(err)
	}
	if err := <-restoreDone; err != nil {
		t.Fatal(err)
	}
	if want := []string{"the job wrote", "delivered"}; !slices.Equal(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}
	// Settled: neither a second job nor the next restore writes it again.
	if err := job.Settle(ctx, (*jobs)[0]); err != nil {
		t.Fatal(err)
	}
	if p := f.k.loadPending(f.path); p == nil || p.CompactingDue {
		t.Errorf("announcement %+v: still due", p)
	}
}

// The first prompt a capture keeps is the light session's, read only as
// far as the transcript went at PreCompact.
func TestFirstPromptAt(t *testing.T) {
	fx, names := windowFixtures(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(fx, name+".jsonl")
			k := &Keeper{State: state.Store{Dir: t.TempDir()}, Now: time.Now}
			s, err := k.Load(path, false)
			if err != nil {
				t.Fatal(err)
			}
			c, err := k.Build(context.Background(), "", path, "precompact-auto")
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Prompts) == 0 {
				t.Fatal("the fixture has no prompt")
			}
			want := s.Prompts[0].Text
			if got := k.FirstPromptAt(Compacting{Path: path, Size: transcriptSize(path), Checkpoint: c}); got != want {
				t.Errorf("first prompt %q, want the light session's %q", got, want)
			}
		})
	}
	t.Run("a prompt after PreCompact", func(t *testing.T) {
		f := newFixture(t)
		f.reply("resumed on my own", 1000)
		c, err := f.k.Build(context.Background(), f.project, f.path, "precompact-auto")
		if err != nil {
			t.Fatal(err)
		}
		size := transcriptSize(f.path)
		f.boundary()
		f.prompt("Carry on with KEEP-10.")
		if got := f.k.FirstPromptAt(Compacting{Path: f.path, Size: size, Checkpoint: c}); got != "" {
			t.Errorf("first prompt %q: one written after PreCompact", got)
		}
		if got := f.k.FirstPromptAt(Compacting{Path: f.path, Size: transcriptSize(f.path), Checkpoint: c}); got != "Carry on with KEEP-10." {
			t.Errorf("first prompt %q with the whole transcript", got)
		}
	})
	t.Run("missing transcript", func(t *testing.T) {
		k := &Keeper{State: state.Store{Dir: t.TempDir()}, Now: time.Now}
		if got := k.FirstPromptAt(Compacting{Path: filepath.Join(t.TempDir(), "gone.jsonl")}); got != "" {
			t.Errorf("first prompt %q", got)
		}
	})
}
