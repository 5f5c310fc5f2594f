// Package continuity keeps a session's thread through compaction and across
// sessions: the checkpoint's lifecycle. It builds checkpoints from a
// session and the work tree and stores them, takes the one a compaction is
// about to need and steers its summary, delivers each compaction's restore
// exactly once whatever happens to the hook delivering it, and points a new
// session at the work of the last one. The hooks and the commands share
// it; what happens at pressure levels is internal/pressure's, what is kept
// beyond the session internal/capture's and internal/learn's, and the hook
// runner composes them.
package continuity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/git"
	"github.com/cairn-agent/cairn/internal/memory"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// Keeper holds what the operations need; build it once per process.
type Keeper struct {
	State state.Store
	// OtherStateDirs are state directories hooks may have used instead of
	// State's (the fallback): what they record of restores counts too.
	OtherStateDirs []string
	DBPath         string
	Settings       meter.Settings
	// Rules, when set, are the client's rules in place of Settings
	// (Claude Code's).
	Rules meter.Rules
	// RestoreBudget is the restore's size in tokens.
	RestoreBudget int
	// Unsteered says the client shows the model nothing of PreCompact's
	// steering text (Codex CLI): a manual compaction's restore then has
	// the whole budget, rather than sharing it with the steering.
	Unsteered bool
	// ResumeCommand is the command that prints the resume text for the
	// client the session runs in, named in the pointers a new session
	// gets; "" is `cairn resume`, Claude Code's.
	ResumeCommand string
	// TicketPrefixes are extra ticket id prefixes (CAIRN_TICKET_PREFIXES).
	TicketPrefixes []string
	// GitTimeout bounds reading the work tree's state.
	GitTimeout time.Duration
	Now        func() time.Time
	// Warn is told what went wrong but did not stop the operation.
	Warn func(error)
	// Stored is told of every checkpoint stored (the status line shows
	// how long ago the last one was).
	Stored func(checkpoint.Checkpoint)
	// Detach, when set, starts a job that settles what a hook leaves for
	// later (settle.go) without waiting for it; unset, the work is done
	// before the operation returns.
	Detach func(Job) error
	// AtCompaction, when set, writes what is kept beyond the session at a
	// compaction (seed 004's capture, seed 001's marker) from what
	// PreCompact saw. It runs once per compaction: in its job, or in a
	// restore that finds it not done yet, or in PreCompact when no job
	// can do it (compacting.go).
	AtCompaction func(context.Context, Compacting) error
	// FirstRunWindow is how much of a large transcript's end a first run's
	// PreCompact reads, from twice that size on (window.go); 0 is
	// firstRunWindow from firstRunMin on.
	FirstRunWindow int64
	// Settling says this process runs a job: it does not wait for the
	// jobs before opening the database.
	Settling bool

	db *sqlite.DB
	// keepIdle, when set, is how long a keep job waits for the next
	// result (ahead.go): tests shorten it.
	keepIdle time.Duration
	// built, when set, is called by a keep job after each build, with
	// the session it built from (tests).
	built func(*transcript.Session)
}

// DataDir is where cairn keeps durable data: $XDG_DATA_HOME/cairn, else
// ~/.local/share/cairn.
func DataDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "cairn"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("neither XDG_DATA_HOME nor HOME is set")
	}
	return filepath.Join(home, ".local", "share", "cairn"), nil
}

// DB opens the store on first use, once the jobs still running (the last
// hooks' checkpoints and observations) are done.
func (k *Keeper) DB(ctx context.Context) (*sqlite.DB, error) {
	if k.db != nil {
		return k.db, nil
	}
	k.waitSettled(ctx)
	db, err := sqlite.Open(ctx, k.DBPath)
	if err != nil {
		return nil, err
	}
	db.Now = k.Now
	k.db = db
	return db, nil
}

// Close closes the store if it was opened.
func (k *Keeper) Close() error {
	if k.db == nil {
		return nil
	}
	err := k.db.Close()
	k.db = nil
	return err
}

func (k *Keeper) warn(format string, args ...any) {
	if k.Warn != nil {
		k.Warn(fmt.Errorf(format, args...))
	}
}

// Load brings the session of the transcript at path up to date (see
// state.Store.Session).
func (k *Keeper) Load(path string, full bool) (*transcript.Session, error) {
	st := k.State
	if st.Warn == nil {
		st.Warn = k.Warn
	}
	return st.Session(path, full)
}

// LoadBare is Load's light session without the latest texts
// (state.Store.Bare), for the hooks on every prompt and tool call.
func (k *Keeper) LoadBare(path string) (*transcript.Session, error) {
	st := k.State
	if st.Warn == nil {
		st.Warn = k.Warn
	}
	return st.Bare(path)
}

// ErrNothing is returned (wrapped) when a transcript holds nothing to
// take a checkpoint of: missing, empty, or not a regular file.
var ErrNothing = errors.New("nothing to checkpoint")

// Build builds a checkpoint of the session at path, with the work tree's
// state, without storing it. Everything in it is redacted (the engine
// cleans what it keeps, and Build once more on the way out). A transcript
// with nothing in it gives ErrNothing: an empty checkpoint would point
// the next session at nothing.
func (k *Keeper) Build(ctx context.Context, project, path, trigger string) (checkpoint.Checkpoint, error) {
	c, _, err := k.build(ctx, project, path, trigger)
	return c, err
}

// build is Build that also returns the session it read, for the
// observations stored with the checkpoint.
func (k *Keeper) build(ctx context.Context, project, path, trigger string) (checkpoint.Checkpoint, *transcript.Session, error) {
	c, s, err := k.buildWith(ctx, project, path, trigger, true)
	if err == nil {
		k.keep(path, project, s, c, c.Steer())
	}
	return c, s, err
}

// buildWith is build, with the work tree's state read only when withGit
// is set.
func (k *Keeper) buildWith(ctx context.Context, project, path, trigger string, withGit bool) (checkpoint.Checkpoint, *transcript.Session, error) {
	// git runs while the session loads: the work tree's state is in the
	// checkpoint, and its processes take as long as the load.
	type gitResult struct {
		st  git.Status
		err error
	}
	withGit = withGit && project != ""
	gitDone := make(chan gitResult, 1)
	gctx, cancel := context.WithTimeout(ctx, k.gitTimeout())
	defer cancel()
	if withGit {
		go func() {
			st, err := git.Read(gctx, project)
			gitDone <- gitResult{st, err}
		}()
	}
	s, err := k.Load(path, true)
	if err != nil {
		return checkpoint.Checkpoint{}, nil, err
	}
	if s.Offset == 0 || (len(s.Prompts) == 0 && s.NumTurns() == 0) {
		return checkpoint.Checkpoint{}, nil, fmt.Errorf("%w: the transcript %s is missing or holds no conversation", ErrNothing, path)
	}
	reading, _ := meter.Measure(s, k.rules())
	in := checkpoint.Input{Project: project, Trigger: trigger, Now: k.Now(), Reading: reading, TicketPrefixes: k.TicketPrefixes, Redact: redact.String}
	if withGit {
		g := <-gitDone
		in.Git, in.GitErr = gitStatus(g.st, g.err)
	}
	return checkpoint.Build(s, in), s, nil
}

// gitStatus is what a checkpoint keeps of git.Read's answer: outside a
// repository, nothing.
func gitStatus(st git.Status, err error) (*git.Status, error) {
	switch {
	case err == nil:
		return &st, nil
	case errors.Is(err, git.ErrNotRepo):
		return nil, nil
	}
	return nil, err
}

// readGit sets the state of the work tree of c's project in c, which was
// built without it.
func (k *Keeper) readGit(ctx context.Context, c *checkpoint.Checkpoint) {
	if c.Project == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, k.gitTimeout())
	defer cancel()
	st, err := gitStatus(git.Read(ctx, c.Project))
	c.SetGit(st, err, redact.String)
}

// Capture builds a checkpoint of the session at path and stores it, with
// the observations memory derives from it.
func (k *Keeper) Capture(ctx context.Context, project, path, trigger string) (checkpoint.Checkpoint, error) {
	c, s, err := k.build(ctx, project, path, trigger)
	if err != nil {
		return c, err
	}
	if err := k.store(ctx, path, &c, c.Turns); err != nil {
		return c, err
	}
	k.observe(ctx, memory.FromCheckpoint(c, s)...)
	return c, nil
}

// observe stores observations for memory. It never fails the operation
// that made them: a checkpoint stored is what counts, and the next one
// brings the observations again (they are deduplicated by content).
func (k *Keeper) observe(ctx context.Context, obs ...memory.Observation) {
	if err := k.observeErr(ctx, obs...); err != nil {
		k.warn("%w", err)
	}
}

func (k *Keeper) observeErr(ctx context.Context, obs ...memory.Observation) error {
	if len(obs) == 0 {
		return nil
	}
	ctx, cancel := k.dbContext(ctx)
	defer cancel()
	db, err := k.DB(ctx)
	if err == nil {
		_, err = memory.New(db).Add(ctx, obs...)
	}
	if err == nil {
		return nil
	}
	// A database locked or busy past the wait: the observations wait in
	// the spool for a job or a command with time to store them.
	if k.DBPath != "" {
		perr := k.spool().Put(obs...)
		if perr == nil {
			return nil
		}
		err = errors.Join(err, perr)
	}
	return fmt.Errorf("could not store the observations for memory: %w", err)
}

// spool is where observations wait that could not be stored in time.
func (k *Keeper) spool() memory.Spool {
	sp := memory.SpoolFor(k.DBPath)
	sp.Now = k.Now
	return sp
}

// drainSpool stores what the spool holds; a failure leaves it there for
// the next drain, and is reported.
func (k *Keeper) drainSpool(ctx context.Context, m *memory.Store) {
	if k.DBPath == "" {
		return
	}
	ctx, cancel := k.dbContext(ctx)
	defer cancel()
	if _, err := k.spool().Drain(ctx, m); err != nil {
		k.warn("could not store the observations kept for later: %v", err)
	}
}

// Observe stores observations for memory (a handoff, a learning, a
// reviewed capture) like those of a checkpoint: a failure is a warning.
func (k *Keeper) Observe(ctx context.Context, obs ...memory.Observation) { k.observe(ctx, obs...) }

// Memory is the observation store, opened on first use, with what the
// spool held stored first, so that a reader sees every observation made.
func (k *Keeper) Memory(ctx context.Context) (*memory.Store, error) {
	db, err := k.DB(ctx)
	if err != nil {
		return nil, err
	}
	m := memory.New(db)
	k.drainSpool(ctx, m)
	return m, nil
}

// store saves c in the database, setting its ID, and notes it for the
// status line and the Stop hook. A hook waits at most dbWait for the
// database.
func (k *Keeper) store(ctx context.Context, path string, c *checkpoint.Checkpoint, turns int) error {
	if err := k.storeDB(ctx, c); err != nil {
		return err
	}
	k.markTaken(path, turns)
	return nil
}

// markTaken notes in the session's marks how many turns its last
// checkpoint has.
func (k *Keeper) markTaken(path string, turns int) {
	m := k.State.Marks(path)
	if m.CheckpointTurns == turns {
		return
	}
	m.CheckpointTurns = turns
	if err := k.State.SaveMarks(path, m); err != nil {
		k.warn("could not save marks: %w", err)
	}
}

func (k *Keeper) gitTimeout() time.Duration {
	if k.GitTimeout > 0 {
		return k.GitTimeout
	}
	return 2 * time.Second
}

func toRecord(c checkpoint.Checkpoint) sqlite.Checkpoint {
	body, _ := json.Marshal(c)
	return sqlite.Checkpoint{
		Project: c.Project, SessionID: c.SessionID, CreatedAt: c.CreatedAt, Trigger: c.Trigger,
		ContextTokens: c.Context.Tokens, Task: c.Summary(), Body: body,
	}
}

// FromRecord decodes a stored checkpoint.
func FromRecord(r sqlite.Checkpoint) (checkpoint.Checkpoint, error) {
	var c checkpoint.Checkpoint
	if err := json.Unmarshal(r.Body, &c); err != nil {
		return c, fmt.Errorf("checkpoint %d: %w", r.ID, err)
	}
	c.ID = r.ID
	return c, nil
}

// maxSummaries is how many compaction summaries a session keeps.
const maxSummaries = 20

// KeepSummary stores the summary Claude Code wrote for a compaction
// (PostCompact's compact_summary), redacted, beside the session's state.
func (k *Keeper) KeepSummary(path, trigger, summary string) error {
	if strings.TrimSpace(summary) == "" {
		return nil
	}
	file := k.State.File(path) + ".summaries"
	var kept []map[string]string
	if data, err := os.ReadFile(file); err == nil {
		json.Unmarshal(data, &kept)
	}
	kept = append(kept, map[string]string{"time": k.Now().UTC().Format(time.RFC3339), "trigger": trigger, "summary": redact.String(summary)})
	if len(kept) > maxSummaries {
		kept = kept[len(kept)-maxSummaries:]
	}
	data, err := json.Marshal(kept)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	return state.WriteAtomic(file, data, true)
}

// ObserveCompaction keeps the latest compaction of the session at path,
// with the summary Claude Code wrote for it, as an observation for
// memory. Without a boundary in the transcript yet, it keeps nothing.
func (k *Keeper) ObserveCompaction(ctx context.Context, project, path, trigger, summary string) error {
	s, err := k.Load(path, false)
	if err != nil || len(s.Compactions) == 0 {
		return err
	}
	c := s.Compactions[len(s.Compactions)-1]
	if c.Trigger == "" {
		c.Trigger = trigger
	}
	if strings.TrimSpace(summary) != "" {
		c.Summary = redact.String(summary)
	}
	k.observe(ctx, memory.FromCompaction(project, s.SessionID, c)...)
	return nil
}

// SessionEnd captures a checkpoint unless nothing happened since the
// session's last one (headless runs end a session after every turn). A
// checkpoint to take is a job (Detach): nothing waits for it.
func (k *Keeper) SessionEnd(ctx context.Context, project, path string) error {
	if k.upToDate(path) {
		return nil
	}
	return k.later(ctx, Job{Kind: JobSessionEnd, Project: project, Path: path})
}

// upToDate says whether the session's last checkpoint has every turn, or
// there is no session.
func (k *Keeper) upToDate(path string) bool {
	if k.State.LoadHeader(path) == nil {
		// No state yet: finding out means reading the whole transcript,
		// which the job does anyway.
		_, err := os.Stat(path)
		return err != nil
	}
	s, err := k.Load(path, false)
	if err != nil || s.Offset == 0 {
		return true // an error here is the job's to report
	}
	return k.taken(path, s.NumTurns())
}

// taken says whether the session's last checkpoint has all its turns:
// the marks say so, or .pending announces one with them, which its job
// has not stored yet (it notes them in the marks when it does; a
// window's announcement has no turns).
func (k *Keeper) taken(path string, turns int) bool {
	if m := k.State.Marks(path); m.CheckpointTurns > 0 && m.CheckpointTurns == turns {
		return true
	}
	n, ok := k.pendingTurns(path)
	return ok && n > 0 && n == turns
}

// sessionEnd is SessionEnd's work: the checkpoint, unless the database has
// one of the session's latest moment already.
func (k *Keeper) sessionEnd(ctx context.Context, project, path string) (checkpoint.Checkpoint, error) {
	s, err := k.Load(path, false)
	if err != nil || s.Offset == 0 {
		return checkpoint.Checkpoint{}, err
	}
	if k.taken(path, s.NumTurns()) {
		return checkpoint.Checkpoint{}, nil // the last checkpoint has every turn
	}
	dctx, cancel := k.dbContext(ctx)
	db, err := k.DB(dctx)
	if err != nil {
		cancel()
		return checkpoint.Checkpoint{}, err
	}
	rec, err := db.LatestCheckpoint(dctx, project, sessionKey(s, path))
	cancel()
	if err == nil && !rec.CreatedAt.Before(s.LastTime) {
		return checkpoint.Checkpoint{}, nil
	}
	return k.Capture(ctx, project, path, "session-end")
}

// tidyEvery is how often Tidy looks for leftovers.
const tidyEvery = time.Hour

// Tidy removes what processes killed midway left behind in the state
// directory: temporary files of writes that never finished. It looks at
// most once per tidyEvery.
func (k *Keeper) Tidy() {
	mark := filepath.Join(k.State.Dir, "tidied")
	if fi, err := os.Stat(mark); err == nil && k.Now().Sub(fi.ModTime()) < tidyEvery {
		return
	}
	n := 0
	for _, d := range []string{k.State.Dir, filepath.Join(k.State.Dir, "sessions"), filepath.Join(k.State.Dir, "hooks")} {
		m, _ := state.CleanTemps(d, 10*time.Minute, k.Now())
		n += m
	}
	if n > 0 {
		k.warn("removed %d temporary files that interrupted writes left", n)
	}
	os.WriteFile(mark, nil, 0o600)
	os.Chtimes(mark, k.Now(), k.Now())
}

// dbContext bounds a wait for the database: in a hook, dbWait, and at most
// a third of what is left of the hook's budget, so that a locked database
// leaves time for the rest. A job (Settling) has no one waiting on it: it
// waits up to a third of what is left of its own bound, so that a busy
// machine or another job's long write does not cost what it stores.
func (k *Keeper) dbContext(ctx context.Context) (context.Context, context.CancelFunc) {
	wait := dbWait
	d, ok := ctx.Deadline()
	switch {
	case ok && k.Settling:
		wait = max(wait, time.Until(d)/3)
	case ok:
		wait = min(wait, time.Until(d)/3)
	}
	return context.WithTimeout(ctx, wait)
}

// rules are the client's rules: Rules, else Claude Code's Settings.
func (k *Keeper) rules() meter.Rules {
	if k.Rules != nil {
		return k.Rules
	}
	return k.Settings
}
