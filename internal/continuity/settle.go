package continuity

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/filelock"
	"github.com/cairn-agent/cairn/internal/memory"
)

// What a compaction's hook must do before it exits is little: take the
// checkpoint, print the steering, announce the compaction in .pending.
// The rest waits on nothing the agent needs right away: the checkpoint's
// copy in the database and the observations memory derives from it (tens
// of milliseconds on a long session), and at SessionEnd the whole
// checkpoint. A hook hands that work to a job (Detach, a process of its
// own in a hook) and exits; the job settles it from the files the hook
// already wrote, so that a job that dies loses nothing: the next
// SessionStart settles the announcement again, and storing it twice is
// harmless (the restore reads the ID from .pending, observations are
// deduplicated by content).

// Job kinds.
const (
	// JobCompaction writes what is kept beyond the session at the
	// compaction .pending announces (compacting.go), and stores the
	// checkpoint it holds and its observations.
	JobCompaction = "compaction"
	// JobSessionEnd takes the session's checkpoint at its end, unless
	// nothing happened since the last one.
	JobSessionEnd = "session-end"
)

// A Job is work a hook leaves for later.
type Job struct {
	Kind    string
	Project string
	Path    string // the transcript
	// After is, for JobKeep started by a PostToolUse hook, the
	// transcript's size then: the job waits for the tool's result past it.
	After int64
	// Lock, for JobKeep, is the session's keep lock the hook took for the
	// job (ahead.go): the process that runs it inherits it, so that a
	// PreCompact right after the hook finds the job at work even before
	// it runs. Locked tells the job it holds it.
	Lock   *os.File
	Locked bool
}

// JobTimeout bounds a job, whatever runs it.
const JobTimeout = 30 * time.Second

// Settle does a job's work. It is safe to run twice, and beside the hooks
// of the same session.
func (k *Keeper) Settle(ctx context.Context, j Job) error {
	if j.Kind == JobCompaction || j.Kind == JobSessionEnd {
		// A job has the time a hook did not: what hooks spooled is
		// stored first (a keep job touches no database).
		if db, err := k.DB(ctx); err == nil {
			k.drainSpool(ctx, memory.New(db))
		}
	}
	switch j.Kind {
	case JobCompaction:
		return k.settlePending(ctx, j.Project, j.Path)
	case JobSessionEnd:
		_, err := k.sessionEnd(ctx, j.Project, j.Path)
		return err
	case JobKeep:
		return k.keepAhead(ctx, j)
	}
	return fmt.Errorf("unknown job %q", j.Kind)
}

// later hands j to Detach, or, without one or when it fails, does it now:
// what callers of the Keeper other than the hooks see is the work done
// when the operation returns.
func (k *Keeper) later(ctx context.Context, j Job) error {
	if k.Detach != nil {
		err := k.Detach(j)
		if err == nil {
			return nil
		}
		k.warn("could not start the %s job (%v); doing it now", j.Kind, err)
	}
	return k.Settle(ctx, j)
}

// HoldJobs makes the jobs handed over from now on wait until the function
// it returns runs, which starts them (or does their work where one cannot
// be started). A hook whose job would start while it still writes files of
// its own starts it last: on a busy machine the new process takes the
// CPU the hook's last steps need, and nothing in the hook waits for it.
func (k *Keeper) HoldJobs(ctx context.Context) (start func() error) {
	detach := k.Detach
	if detach == nil {
		return func() error { return nil }
	}
	var held []Job
	k.Detach = func(j Job) error { held = append(held, j); return nil }
	return func() error {
		k.Detach = detach
		var errs []error
		for _, j := range held {
			errs = append(errs, k.later(ctx, j))
		}
		held = nil
		return errors.Join(errs...)
	}
}

// settlePending writes what is kept beyond the session at the compaction
// PreCompact announced in .pending, stores its checkpoint, notes its ID
// there, and stores its observations.
func (k *Keeper) settlePending(ctx context.Context, project, path string) error {
	// First what is kept beyond the session: a restore may wait for it
	// (compacting.go), and it is quick.
	if err := k.settleCompacting(ctx, path); err != nil {
		k.warn("at the compaction: %w", err)
	}
	// A first run's PreCompact announced a checkpoint of the window: the
	// whole one takes its place first (window.go).
	if _, err := k.wholeForWindow(ctx, project, path); err != nil {
		return err
	}
	p, err := k.storePending(ctx, path)
	if err != nil || p == nil || p.Observed || p.Checkpoint.From > 0 {
		return err
	}
	s, err := k.Load(path, true)
	if err != nil {
		return err
	}
	if err := k.observeErr(ctx, memory.FromCheckpoint(*p.Checkpoint, s)...); err != nil {
		return err
	}
	return k.updatePending(path, p, func(q *pending) { q.Observed = true })
}

// storePending stores the checkpoint .pending holds, unless it is stored
// already, with the work tree's state when it is due, and returns the
// announcement with its ID; nil when there is none. The session's settle lock keeps two processes (a job and a
// SessionStart that could not wait for it) from storing it both.
func (k *Keeper) storePending(ctx context.Context, path string) (*pending, error) {
	p := k.loadPending(path)
	if p == nil || p.Checkpoint == nil || p.Checkpoint.ID != 0 || p.Checkpoint.From > 0 {
		return p, nil // a window's is never stored (window.go)
	}
	unlock, err := k.lockSettle(ctx, path)
	if err != nil {
		return p, err
	}
	defer unlock()
	if p = k.loadPending(path); p == nil || p.Checkpoint == nil || p.Checkpoint.ID != 0 {
		return p, nil // stored meanwhile
	}
	if p.GitDue {
		k.readGit(ctx, p.Checkpoint)
		p.GitDue = false
		// Kept in .pending first: a restore without a database shows it.
		if err := k.updatePending(path, p, func(q *pending) {
			q.Checkpoint.Git, q.Checkpoint.GitError, q.GitDue = p.Checkpoint.Git, p.Checkpoint.GitError, false
		}); err != nil {
			return p, err
		}
	}
	c := *p.Checkpoint
	if err := k.storeDB(ctx, &c); err != nil {
		return p, err
	}
	k.markTaken(path, p.Turns)
	if err := k.updatePending(path, p, func(q *pending) { q.Checkpoint.ID = c.ID }); err != nil {
		return p, err
	}
	p.Checkpoint.ID = c.ID
	return p, nil
}

// updatePending changes the announcement in .pending when it is still p:
// a later PreCompact's is left alone.
func (k *Keeper) updatePending(path string, p *pending, change func(*pending)) error {
	q := k.loadPending(path)
	if q == nil || q.Key != p.Key || q.Turns != p.Turns || q.Checkpoint == nil || !q.Checkpoint.CreatedAt.Equal(p.Checkpoint.CreatedAt) {
		return nil
	}
	change(q)
	return k.savePending(path, *q)
}

// settled says whether the announcement's work is done.
func (p *pending) settled() bool {
	return p == nil || p.Checkpoint == nil || (p.Checkpoint.ID != 0 && p.Observed)
}

// lockSettle takes the session's settle lock, waiting for it within ctx
// and dbWait.
func (k *Keeper) lockSettle(ctx context.Context, path string) (func(), error) {
	file := k.State.File(path) + ".settle"
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	ctx, cancel := k.dbContext(ctx)
	defer cancel()
	for {
		err := tryLock(f)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, errBusy) {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("wait for the session's settle lock: %w", ctx.Err())
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// SettlingFile is the lock the jobs hold, shared, while they run: a process
// that reads the database (the next session's SessionStart, a command)
// first waits for them, so that it sees what the last hooks stored.
func SettlingFile(dbPath string) string { return dbPath + ".settling" }

// HoldSettling opens the settling lock of the database at dbPath and takes
// it, shared, for a job: the job's process inherits the open file, and
// the lock with it, so that it is held from before the hook that starts
// the job exits until the job ends.
func HoldSettling(dbPath string) (*os.File, error) {
	file := SettlingFile(dbPath)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := filelock.Shared(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// waitSettled waits, within ctx and dbWait, until no job holds the
// settling lock. The jobs themselves never wait: Settling says so.
func (k *Keeper) waitSettled(ctx context.Context) {
	if k.Settling || k.DBPath == "" {
		return
	}
	f, err := os.Open(SettlingFile(k.DBPath))
	if err != nil {
		return // no job ever ran
	}
	defer f.Close()
	ctx, cancel := k.dbContext(ctx)
	defer cancel()
	for {
		if err := tryLock(f); !errors.Is(err, errBusy) {
			return // taken (closing the file drops it), or no lock to take here
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// storeDB saves c in the database, setting its ID, and tells Stored.
func (k *Keeper) storeDB(ctx context.Context, c *checkpoint.Checkpoint) error {
	ctx, cancel := k.dbContext(ctx)
	defer cancel()
	db, err := k.DB(ctx)
	if err != nil {
		return err
	}
	id, err := db.AddCheckpoint(ctx, toRecord(*c))
	if err != nil {
		return err
	}
	c.ID = id
	if k.Stored != nil {
		k.Stored(*c)
	}
	return nil
}
