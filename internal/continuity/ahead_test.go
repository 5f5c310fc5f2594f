package continuity

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// aheadFixture is the fixture session name cut before line n (its first n
// lines) in a directory of its own, with its subagents, and keepers on it
// that share a state directory (a hook and its job) and one that does not
// (a build from nothing, to compare with).
type aheadFixture struct {
	path      string
	lines     [][]byte
	hook, job *Keeper
	fresh     *keptFixture
	jobs      []Job
	project   string
}

func newAheadFixture(t *testing.T, name string, n int) *aheadFixture {
	root := t.TempDir()
	fx, err := fixtures.Extract(filepath.Join(root, "fx"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(fx, name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "s")
	os.MkdirAll(dir, 0o700)
	if err := os.Symlink(filepath.Join(fx, name), filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	f := &aheadFixture{path: filepath.Join(dir, name+".jsonl"), lines: splitLines(data), project: filepath.Join(root, "proj")}
	if err := os.WriteFile(f.path, bytes.Join(f.lines[:n], nil), 0o600); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }
	keeper := func(st string) *Keeper {
		k := &Keeper{State: state.Store{Dir: filepath.Join(root, st)}, DBPath: filepath.Join(root, st, "cairn.db"), Now: now}
		t.Cleanup(func() { k.Close() })
		return k
	}
	f.hook, f.job = keeper("state"), keeper("state")
	f.hook.Detach = func(j Job) error {
		if j.Lock != nil {
			// As the job's process does: a copy of the lock's descriptor,
			// open after the hook closes its own.
			fd, err := syscall.Dup(int(j.Lock.Fd()))
			if err != nil {
				return err
			}
			j.Lock, j.Locked = os.NewFile(uintptr(fd), j.Lock.Name()), true
		}
		f.jobs = append(f.jobs, j)
		return nil
	}
	f.job.Settling = true
	f.job.keepIdle = 300 * time.Millisecond
	f.fresh = &keptFixture{k: keeper("fresh"), project: f.project}
	f.fresh.k.Detach = func(Job) error { return nil }
	return f
}

func (f *aheadFixture) append(t *testing.T, from, to int) {
	t.Helper()
	file, err := os.OpenFile(f.path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if _, err := file.Write(bytes.Join(f.lines[from:to], nil)); err != nil {
		t.Fatal(err)
	}
}

// check runs PreCompact on the hook's keeper and on a fresh one, and
// checks that they agree, and that the hook's took the kept checkpoint.
func (f *aheadFixture) check(t *testing.T) {
	t.Helper()
	_, _, served := f.hook.fromKept(f.path, f.project, "precompact-auto")
	hook := &keptFixture{k: f.hook, project: f.project}
	got, gotSteer, gotPending := precompact(t, hook, f.path)
	want, wantSteer, wantPending := precompact(t, f.fresh, f.path)
	if !served {
		t.Error("the checkpoint built ahead does not serve PreCompact")
	}
	if asJSON(t, got) != asJSON(t, want) || gotSteer != wantSteer || !bytes.Equal(gotPending, wantPending) {
		t.Errorf("PreCompact from the checkpoint built ahead\n%s\n%s\nnot a build's\n%s\n%s", asJSON(t, got), gotSteer, asJSON(t, want), wantSteer)
	}
}

// Near the compaction point a PostToolUse hook starts the keep job; the
// job folds the session, waits for the tool's result Claude Code writes
// after the hook, and keeps the checkpoint with it; it stays for the next
// result and keeps it again: the PreCompact that follows (here while the
// job may still be at work) takes it, and it is a build's. (258c7280
// compacts on its own right after the tool result on line 1255.)
func TestKeepAheadAfterTool(t *testing.T) {
	const name, last = "258c7280-ae70-4798-800f-63464d01a85d", 1254
	lines := newAheadFixture(t, name, 1).lines
	first := last - 1 // the result before the last
	for !bytes.Contains(lines[first], []byte(`"tool_result"`)) {
		first--
	}
	f := newAheadFixture(t, name, first)
	s, err := f.hook.LoadBare(f.path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.hook.KeepAhead(f.project, f.path, s, s.Offset); err != nil {
		t.Fatal(err)
	}
	if len(f.jobs) != 1 || f.jobs[0].Kind != JobKeep || f.jobs[0].After != s.Offset {
		t.Fatalf("jobs %+v", f.jobs)
	}
	if !f.hook.keeping(f.path) {
		t.Error("the job is not at work from the moment the hook started it")
	}
	done := make(chan error)
	go func() {
		err := f.job.Settle(context.Background(), f.jobs[0])
		f.jobs[0].Lock.Close() // the job's process ends
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // the job folds and waits
	if !f.hook.keeping(f.path) {
		t.Error("no job at work while it waits for the result")
	}
	if err := f.hook.KeepAhead(f.project, f.path, s, s.Offset); err != nil || len(f.jobs) != 1 {
		t.Fatalf("a job at work, another hook started one: jobs %+v, %v", f.jobs, err)
	}
	served := func() bool {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), keepWait)
		defer cancel()
		for k, since := f.hook, f.hook.stampKept(f.path); ; {
			if _, _, ok := k.fromKept(f.path, f.project, "precompact-auto"); ok {
				return true
			}
			if !k.waitKept(ctx, f.path, &since) {
				return false
			}
		}
	}
	f.append(t, first, first+1)
	if !served() {
		t.Error("the job did not keep the checkpoint with the result")
	}
	// The job stays: the next step's call and result, kept again.
	f.append(t, first+1, last)
	time.Sleep(50 * time.Millisecond)
	if !f.hook.keeping(f.path) {
		t.Error("the job did not stay for the next result")
	}
	f.append(t, last, last+1)
	if !served() {
		t.Error("the job did not keep the checkpoint with the next result")
	}
	f.check(t)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The next hook near the point starts a job again.
	if err := f.hook.KeepAhead(f.project, f.path, s, s.Offset); err != nil || f.jobs[len(f.jobs)-1].Kind != JobKeep {
		t.Fatalf("jobs %+v, %v", f.jobs, err)
	}
}

// A result written while the job builds (parallel tool calls, or one right
// after the hook) makes that build stale: the job folds it and builds
// again before it keeps anything, so that a PreCompact waiting for the
// checkpoint with the result does not wait for the stale one's steering
// and write first; and what it keeps is a build's.
func TestKeepAheadStaleBuild(t *testing.T) {
	const name, last = "258c7280-ae70-4798-800f-63464d01a85d", 1254
	first := last - 1
	lines := newAheadFixture(t, name, 1).lines
	for !bytes.Contains(lines[first], []byte(`"tool_result"`)) {
		first--
	}
	f := newAheadFixture(t, name, first)
	var builds []int64
	keptAt := make(map[int]bool)
	f.job.built = func(s *transcript.Session) {
		_, err := os.Stat(f.job.keptFile(f.path))
		keptAt[len(builds)] = err == nil
		builds = append(builds, s.Offset)
		if len(builds) == 1 {
			f.append(t, first, last+1) // two results, while it builds
		}
	}
	if err := f.job.Settle(context.Background(), Job{Kind: JobKeep, Project: f.project, Path: f.path}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(f.path)
	if err != nil {
		t.Fatal(err)
	}
	if len(builds) != 2 || builds[1] != fi.Size() {
		t.Fatalf("builds at %v; want two, the last at the end, %d", builds, fi.Size())
	}
	if keptAt[1] {
		t.Error("the stale build was kept")
	}
	f.check(t)
}

// After a turn (the Stop hook's job), the lines Claude Code writes then,
// the turn's duration and the Stop hooks' summary and file snapshots, are
// inert: a manual compaction right after them takes the kept checkpoint.
// (ae4a77f8 is compacted by hand on line 1481, after such lines.)
func TestKeepAheadAfterStop(t *testing.T) {
	const name, stop, boundary = "ae4a77f8-aedd-4bc1-888f-c94edc91af04", 1476, 1480
	f := newAheadFixture(t, name, stop)
	if err := f.job.Settle(context.Background(), Job{Kind: JobKeep, Project: f.project, Path: f.path}); err != nil {
		t.Fatal(err)
	}
	f.append(t, stop, boundary)
	f.check(t)
}

// Far from the compaction point nothing is built ahead; without a way to
// start a job, nothing either.
func TestKeepAheadFar(t *testing.T) {
	f := newAheadFixture(t, "258c7280-ae70-4798-800f-63464d01a85d", 300)
	s, err := f.hook.LoadBare(f.path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.hook.KeepAhead(f.project, f.path, s, 0); err != nil || len(f.jobs) != 0 {
		t.Fatalf("far from the point: jobs %+v, %v", f.jobs, err)
	}
	f = newAheadFixture(t, "258c7280-ae70-4798-800f-63464d01a85d", 1254)
	f.hook.Detach = nil
	if s, err = f.hook.LoadBare(f.path); err != nil {
		t.Fatal(err)
	}
	if err := f.hook.KeepAhead(f.project, f.path, s, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f.hook.keptFile(f.path)); err == nil {
		t.Error("built ahead in the hook's own process")
	}
}
