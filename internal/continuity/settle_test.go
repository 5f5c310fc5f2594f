package continuity

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// PreCompact leaves git to the job: its checkpoint is announced without
// the work tree's state, and whatever stores it (the job, or a restore
// that finds the job has not) reads git first, so that the stored
// checkpoint and the restore show it.
func TestPreCompactLeavesGitToTheJob(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		settle func(f *fixture, j Job) string // returns the restore
	}{
		{"the job", func(f *fixture, j Job) string {
			if err := f.k.Settle(ctx, j); err != nil {
				t.Fatal(err)
			}
			var got collect
			f.k.Restore(ctx, f.project, f.path, AtSessionStart, got.deliver)
			return strings.Join(got, "")
		}},
		{"the restore, before the job", func(f *fixture, j Job) string {
			var got collect
			f.k.Restore(ctx, f.project, f.path, AtSessionStart, got.deliver)
			return strings.Join(got, "")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			git := exec.Command("git", "init", "-q", "-b", "wt-branch", f.project)
			if out, err := git.CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			os.WriteFile(filepath.Join(f.project, "notes.txt"), []byte("x"), 0o644)
			jobs := f.detached()
			f.prompt("Fix JOB-4.")
			f.reply("Working.", 150000)
			c, err := f.k.PreCompact(ctx, f.project, f.path, "auto", func(string) error { return nil })
			if err != nil || c.Git != nil {
				t.Fatalf("PreCompact = git %+v, %v", c.Git, err)
			}
			if p := f.k.loadPending(f.path); p == nil || !p.GitDue || p.Checkpoint.Git != nil {
				t.Fatalf("pending %+v", p)
			}
			restore := tc.settle(f, (*jobs)[0])
			p := f.k.loadPending(f.path)
			if p == nil || p.GitDue || p.Checkpoint.Git == nil || p.Checkpoint.Git.Branch != "wt-branch" || len(p.Checkpoint.Git.Changes) != 1 {
				t.Fatalf("pending after: %+v", p)
			}
			db, _ := f.k.DB(ctx)
			stored, err := db.Checkpoint(ctx, p.Checkpoint.ID)
			if err != nil || !strings.Contains(string(stored.Body), `"branch":"wt-branch"`) {
				t.Errorf("stored %s, %v", stored.Body, err)
			}
			if !strings.Contains(restore, "## Git") || !strings.Contains(restore, "wt-branch") {
				t.Errorf("restore without the work tree:\n%s", restore)
			}
		})
	}
}

// Jobs handed over while held start when the hold ends, not before.
func TestHoldJobs(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	jobs := f.detached()
	f.prompt("Fix HOLD-1.")
	f.reply("Working.", 150000)
	start := f.k.HoldJobs(ctx)
	if _, err := f.k.PreCompact(ctx, f.project, f.path, "auto", func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if len(*jobs) != 0 {
		t.Fatalf("jobs started while held: %+v", *jobs)
	}
	if err := start(); err != nil {
		t.Fatal(err)
	}
	want := Job{Kind: JobCompaction, Project: f.project, Path: f.path}
	if len(*jobs) != 1 || (*jobs)[0] != want {
		t.Fatalf("jobs %+v", *jobs)
	}
	// Released: the next job starts at once.
	if err := f.k.SessionEnd(ctx, f.project, f.path); err != nil {
		t.Fatal(err)
	}
	if len(*jobs) != 1 {
		t.Fatalf("SessionEnd after PreCompact's checkpoint started %+v", *jobs)
	}
	f.reply("More.", 150001)
	if err := f.k.SessionEnd(ctx, f.project, f.path); err != nil || len(*jobs) != 2 {
		t.Fatalf("SessionEnd after a turn: %v, jobs %+v", err, *jobs)
	}
}

// A job waits for a locked or busy database up to a third of its own
// bound, not a hook's dbWait: a bench under CI load lost a compaction's
// observations to the 2 s a hook allows (sqlite3: interrupted).
func TestJobWaitsLongerForTheDatabase(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), JobTimeout)
	defer cancel()
	for _, c := range []struct {
		settling bool
		min, max time.Duration
	}{
		{false, dbWait - time.Second, dbWait},
		{true, JobTimeout/3 - time.Second, JobTimeout / 3},
	} {
		k := &Keeper{Settling: c.settling}
		dctx, dcancel := k.dbContext(ctx)
		d, ok := dctx.Deadline()
		dcancel()
		if left := time.Until(d); !ok || left < c.min || left > c.max {
			t.Errorf("settling %v: waits %v for the database, want %v to %v", c.settling, left, c.min, c.max)
		}
	}
}

// With the database locked past a hook's wait, the observations wait in
// the spool (no warning: nothing is lost), and the next reader of memory
// stores them first.
func TestObservationsSpooledWhileLocked(t *testing.T) {
	f := newFixture(t)
	var warned []string
	f.k.Warn = func(err error) { warned = append(warned, err.Error()) }
	f.prompt("Fix SPOOL-1.")
	f.reply("Looking into SPOOL-1.", 1000)
	if _, err := f.k.Capture(context.Background(), f.project, f.path, "manual"); err != nil {
		t.Fatal(err) // the database exists
	}
	db, err := sql.Open("sqlite3", f.k.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	f.k.Observe(ctx, memory.Observation{Project: f.project, SessionID: "sess-k", Kind: memory.KindNote, Title: "the flaky port is 5433"})
	cancel()
	if len(warned) > 0 {
		t.Errorf("spooling warned: %q", warned)
	}
	if _, err := os.Stat(memory.SpoolFor(f.k.DBPath).Path); err != nil {
		t.Fatalf("nothing spooled: %v", err)
	}
	conn.ExecContext(context.Background(), "ROLLBACK")
	conn.Close()
	m, err := f.k.Memory(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	hits, err := m.Search(context.Background(), memory.Query{Text: "flaky port", Project: f.project})
	if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Title, "5433") {
		t.Fatalf("the spooled observation is not in memory: %v %+v", err, hits)
	}
	if fi, err := os.Stat(memory.SpoolFor(f.k.DBPath).Path); err != nil || fi.Size() != 0 {
		t.Errorf("the spool is not left empty: %v", err)
	}
	if len(warned) > 0 {
		t.Errorf("warned: %q", warned)
	}
}
