package continuity

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/dirwatch"
	"github.com/cairn-agent/cairn/internal/filelock"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// The kept checkpoint is built ahead of a compaction when the context
// nears the client's compaction point: the Stop and PostToolUse hooks
// start a job (JobKeep) that builds it off the agent's path, so that the
// PreCompact that follows finds it current (kept.go) and prints its
// steering instead of decoding the whole session and building it while
// the agent waits. Claude Code compacts on its own at the next request
// once the last reply's context passes the threshold: right after a turn
// (the lines that follow Stop, a turn's duration and the Stop hooks'
// summary, are inert), or in the middle of one, right after a tool's
// result, which Claude Code writes after PostToolUse returns: the job
// started there first folds the session, then waits for that line
// (bounded) and builds with it. A PreCompact that finds such a job at
// work waits for it (keepWait) rather than building beside it.

// JobKeep builds the session's checkpoint and keeps it (ahead.go).
const JobKeep = "keep"

// nearCompaction is how close to the compaction point, as a share of the
// threshold, the context must be for the hooks to build ahead.
const nearCompaction = 0.9

// Bounds of the waits: the job's for the tool's result after
// PostToolUse, PreCompact's for a job at work, how often both look where
// they cannot sleep until a write (dirwatch).
const (
	resultWait = 2 * time.Second
	keepWait   = 1 * time.Second
	pollEvery  = 3 * time.Millisecond
	// keepIdle is how long a keep job waits for the next result.
	keepIdle = 10 * time.Second
)

// KeepAhead starts a job that builds the kept checkpoint of the session s
// (just loaded, light or bare) when its context nears the client's
// compaction point and no such job is at work. after is the transcript's
// size when a PostToolUse hook runs (the job then waits for the tool's
// result past it), 0 at Stop. It costs the hook a measure and, near the
// point, one stat and a process start. Without Detach it does nothing:
// it is a cache, never worth a hook's time.
func (k *Keeper) KeepAhead(project, path string, s *transcript.Session, after int64) error {
	if k.Detach == nil || s.Offset == 0 || s.Client != transcript.ClaudeCode {
		return nil // only Claude Code's tails are known inert (kept.go)
	}
	r, _ := meter.Measure(s, k.rules())
	if !r.AutoCompact || r.Threshold <= 0 || float64(r.Tokens) < nearCompaction*float64(r.Threshold) {
		return nil
	}
	lock, err := k.lockKeep(path)
	if lock == nil {
		return err // or a job at work does it
	}
	defer lock.Close() // the job's process holds it now
	return k.Detach(Job{Kind: JobKeep, Project: project, Path: path, After: after, Lock: lock})
}

func (k *Keeper) keepLockFile(path string) string { return k.State.File(path) + ".keeping" }

// lockKeep takes the session's keep lock; nil, and no error, when another
// process holds it.
func (k *Keeper) lockKeep(path string) (*os.File, error) {
	file := k.keepLockFile(path)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := filelock.TryExclusive(f); err != nil {
		f.Close()
		if errors.Is(err, filelock.ErrLocked) {
			err = nil
		}
		return nil, err
	}
	return f, nil
}

// keeping says whether a keep job holds the session's lock now.
func (k *Keeper) keeping(path string) bool {
	f, err := os.Open(k.keepLockFile(path))
	if err != nil {
		return false
	}
	defer f.Close()
	return errors.Is(tryLock(f), errBusy)
}

// waitKept waits, until ctx is done, for a keep job at work on the
// session to write the kept checkpoint again or to end, and says whether
// one did. It looks at the file's stamp only: reading the checkpoint is
// the caller's, once it changed. It sleeps until the directory is written
// (dirwatch): looking every few milliseconds cost a hook about 0.15 ms
// of CPU a look, and up to a look's pause of wall time.
func (k *Keeper) waitKept(ctx context.Context, path string, since *keptStamp) bool {
	f, err := os.Open(k.keepLockFile(path))
	if err != nil {
		return false
	}
	defer f.Close()
	// Watched before the stamp is compared: a write after it wakes the
	// wait. The stamp to compare with is the caller's, taken before it
	// last read the kept checkpoint: a write between that read and this
	// wait is a change, not the state to wait past.
	w := dirwatch.New(filepath.Dir(k.keptFile(path)), pollEvery)
	defer w.Close()
	changed := func() bool {
		now := k.stampKept(path)
		if now == *since {
			return false
		}
		*since = now
		return true
	}
	for {
		if err := tryLock(f); !errors.Is(err, errBusy) {
			// No job at work (taken: closing the file drops it).
			return changed()
		}
		if changed() {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		w.Wait(ctx)
	}
}

// keptStamp is the kept checkpoint's file as a wait compares it: its
// modification time and size, zero when there is none.
type keptStamp struct {
	t    time.Time
	size int64
}

// stampKept is the kept checkpoint's stamp now.
func (k *Keeper) stampKept(path string) keptStamp {
	var st keptStamp
	if fi, err := os.Stat(k.keptFile(path)); err == nil {
		st.t, st.size = fi.ModTime(), fi.Size()
	}
	return st
}

// keepAhead is JobKeep's work: under the session's keep lock (held for it
// by the hook that started it, or taken here; a job at work already does
// it), the full session folded, then, after a PostToolUse, the tool's
// result waited for and folded too, and the checkpoint built and kept.
// The job then stays, the session in hand, while results keep coming
// (each within keepIdle of the last): the next tool's result, the one a
// compaction may follow right away, costs it a build and no load, and
// the kept checkpoint is current a few milliseconds after it is written.
// A compaction ends it, and so does the job's own bound (JobTimeout).
func (k *Keeper) keepAhead(ctx context.Context, j Job) error {
	if !j.Locked {
		lock, err := k.lockKeep(j.Path)
		if lock == nil {
			return err // or a job at work does it
		}
		defer lock.Close()
	}
	s, err := k.Load(j.Path, true)
	if err != nil {
		return err
	}
	comps := len(s.Compactions)
	if j.After > 0 {
		if _, err := k.awaitResult(ctx, s, j.After, resultWait); err != nil {
			return err
		}
	}
	idle := k.keepIdle
	if idle <= 0 {
		idle = keepIdle
	}
	var p transcript.Parser
	// What one build parses the next one needs again: the session grows
	// by a result or two between them (checkpoint.Memo).
	var memo checkpoint.Memo
	stale := 0
	for {
		if s.Offset > 0 && (len(s.Prompts) > 0 || s.NumTurns() > 0) {
			reading, _ := meter.Measure(s, k.rules())
			in := checkpoint.Input{Project: j.Project, Trigger: "ahead", Now: k.Now(), Reading: reading, TicketPrefixes: k.TicketPrefixes, Redact: redact.String, Memo: &memo}
			c := checkpoint.Build(s, in)
			if k.built != nil {
				k.built(s)
			}
			if stale < maxStale && userLineAfter(s.Path, s.Offset, -1) {
				// A result came while it was built (parallel tool
				// calls, or one right after the hook): a PreCompact
				// now waits for the checkpoint with it, not for this
				// one's steering and write. Folded and built again,
				// unless the line is not whole yet.
				at := s.Offset
				if err := k.fold(s, &p); err != nil {
					return err
				}
				if len(s.Compactions) != comps {
					return nil
				}
				if s.Offset > at {
					stale++
					continue
				}
			}
			stale = 0
			k.keep(j.Path, j.Project, s, c, c.Steer())
		}
		found, err := k.awaitResult(ctx, s, s.Offset, idle)
		if err != nil || !found || len(s.Compactions) != comps {
			return err
		}
	}
}

// maxStale bounds the builds in a row a keep job drops because the
// transcript gained a result while it built: a session that never stops
// writing still gets a kept checkpoint.
const maxStale = 3

// fold folds into the full session s what its transcript gained.
func (k *Keeper) fold(s *transcript.Session, p *transcript.Parser) error {
	if _, err := s.Update(p); err != nil {
		return err
	}
	if err := s.UpdateSubagents(p); err != nil {
		k.warn("%w", err) // as a load does
	}
	return nil
}

// awaitResult folds into the full session s what the transcript gains
// until a user line (a tool's result, a prompt) complete past after is
// read, for at most wait, and says whether one was.
func (k *Keeper) awaitResult(ctx context.Context, s *transcript.Session, after int64, wait time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var p transcript.Parser
	// Watched before the transcript is looked at: a line written after
	// that look wakes the wait at once (dirwatch).
	w := dirwatch.New(filepath.Dir(s.Path), pollEvery)
	defer w.Close()
	for {
		if fi, err := os.Stat(s.Path); err == nil && fi.Size() > s.Offset {
			if err := k.fold(s, &p); err != nil {
				return false, err
			}
		}
		if s.Offset > after && userLineAfter(s.Path, after, s.Offset) {
			return true, nil
		}
		if ctx.Err() != nil {
			return false, nil // build with what there is: a later PreCompact sees the rest
		}
		w.Wait(ctx)
	}
}

// userLineAfter says whether the transcript at path holds, between after
// and end (its end when end is negative), a line of type user.
func userLineAfter(path string, after, end int64) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if end < 0 {
		fi, err := f.Stat()
		if err != nil {
			return false
		}
		end = fi.Size()
	}
	if end <= after {
		return false
	}
	buf := make([]byte, min(end-after, 4<<20))
	n, _ := f.ReadAt(buf, after)
	return bytes.Contains(buf[:n], []byte(`"type":"user"`))
}
