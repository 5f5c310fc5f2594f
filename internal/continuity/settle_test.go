package continuity

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/memory"
)

// detached is a fixture whose keeper hands its jobs over instead of doing
// them, as a hook's does.
func (f *fixture) detached() *[]Job {
	var jobs []Job
	f.k.Detach = func(j Job) error { jobs = append(jobs, j); return nil }
	return &jobs
}

func (f *fixture) checkpoints() int {
	db, err := f.k.DB(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	cs, err := db.Checkpoints(context.Background(), f.project, 100)
	if err != nil {
		f.t.Fatal(err)
	}
	return len(cs)
}

// PreCompact leaves the database and memory to its job; the job stores
// the checkpoint once, however often it runs, and its observations.
func TestPreCompactJob(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	jobs := f.detached()
	f.prompt("Fix JOB-1. Keep the CSV header order.")
	f.reply("Working.", 150000)
	c, err := f.k.PreCompact(ctx, f.project, f.path, "auto", func(string) error { return nil })
	if err != nil || c.ID != 0 {
		t.Fatalf("PreCompact = %d, %v", c.ID, err)
	}
	want := Job{Kind: JobCompaction, Project: f.project, Path: f.path}
	if len(*jobs) != 1 || (*jobs)[0] != want {
		t.Fatalf("jobs %+v", *jobs)
	}
	if p := f.k.loadPending(f.path); p == nil || p.Checkpoint == nil || p.settled() {
		t.Fatalf("pending %+v", p)
	}
	if n := f.checkpoints(); n != 0 {
		t.Fatalf("%d checkpoints stored by the hook", n)
	}
	for range 2 {
		if err := f.k.Settle(ctx, want); err != nil {
			t.Fatal(err)
		}
	}
	p := f.k.loadPending(f.path)
	if p == nil || !p.settled() || len(f.stored) != 1 || p.Checkpoint.ID != f.stored[0] {
		t.Fatalf("after the job: pending %+v, stored %v", p, f.stored)
	}
	if n := f.checkpoints(); n != 1 {
		t.Errorf("%d checkpoints stored, want 1", n)
	}
	m, _ := f.k.Memory(ctx)
	hits, err := m.Search(ctx, memory.Query{Text: "JOB-1 header order", Project: f.project})
	if err != nil || len(hits) == 0 {
		t.Errorf("no observation of the checkpoint: %v", err)
	}
}

// A job that never ran: the restore stores the checkpoint itself, to
// point at it, and starts the job again for the rest.
func TestRestoreSettlesWhatTheJobLeft(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	jobs := f.detached()
	f.prompt("Fix JOB-2.")
	f.reply("Working.", 150000)
	if _, err := f.k.PreCompact(ctx, f.project, f.path, "auto", func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	var got collect
	if done, err := f.k.Restore(ctx, f.project, f.path, AtSessionStart, got.deliver); !done || err != nil {
		t.Fatalf("Restore = %v, %v", done, err)
	}
	if len(f.stored) != 1 || !strings.Contains(got[0], fmt.Sprintf("cairn show checkpoint %d", f.stored[0])) {
		t.Errorf("stored %v, restore %q", f.stored, got)
	}
	if len(*jobs) != 2 {
		t.Errorf("jobs %+v: the restore did not start the job again", *jobs)
	}
}

// SessionEnd hands the checkpoint to a job, which takes it.
func TestSessionEndJob(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	jobs := f.detached()
	f.prompt("Fix JOB-3.")
	f.reply("Done.", 5000)
	if err := f.k.SessionEnd(ctx, f.project, f.path); err != nil || len(*jobs) != 1 || len(f.stored) != 0 {
		t.Fatalf("SessionEnd = %v, jobs %+v, stored %v", err, *jobs, f.stored)
	}
	// With no state yet, the hook leaves the reading to the job.
	if h := f.k.State.LoadHeader(f.path); h != nil {
		t.Error("SessionEnd read the transcript a job reads anyway")
	}
	if err := f.k.Settle(ctx, (*jobs)[0]); err != nil || len(f.stored) != 1 {
		t.Fatalf("the job: %v, stored %v", err, f.stored)
	}
	if err := f.k.SessionEnd(ctx, f.project, f.path); err != nil || len(*jobs) != 1 {
		t.Errorf("SessionEnd with nothing new: %v, jobs %+v", err, *jobs)
	}
}

// The database waits for the jobs that hold the settling lock.
func TestDBWaitsForJobs(t *testing.T) {
	f := newFixture(t)
	lock, err := HoldSettling(f.k.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := f.k.DB(context.Background())
		done <- err
	}()
	select {
	case <-done:
		t.Fatal("the database opened while a job held the lock")
	case <-time.After(50 * time.Millisecond):
	}
	lock.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(dbWait):
		t.Fatal("the database did not open once the job ended")
	}
}
