// Package continuity keeps a session's thread through compaction and across
// sessions. It is the domain behind both the hooks and the commands: it
// brings sessions up to date from their state, captures checkpoints into
// the store, decides whether a compaction still needs its restore (once,
// and only once), and points a new session at the work of the last one.
package continuity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/git"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/statusline"
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
	// RestoreBudget is the restore's size in tokens.
	RestoreBudget int
	// TicketPrefixes are extra ticket id prefixes (CAIRN_TICKET_PREFIXES).
	TicketPrefixes []string
	// GitTimeout bounds reading the work tree's state.
	GitTimeout time.Duration
	Now        func() time.Time
	// Warn receives what went wrong but did not stop the operation.
	Warn io.Writer

	// Pressure levels and what happens at them (Configure sets them from
	// the project's configuration).
	Pressure       pressure.Config
	Advisories     bool
	HandoffAt      []int
	SnapshotAt     []int
	SnapshotCommit bool
	// Knowledge kept beyond the session (seeds 004 and 001).
	CaptureDir    string
	CaptureManual bool
	FlowDir       string
	FlowTrim      bool
	// OnLevel runs when a level is crossed for the first time, after the
	// checkpoint; it returns what it saved, for the advisory.
	OnLevel func(ctx context.Context, project, path string, level int, c checkpoint.Checkpoint) []string

	configured bool
	db         *sqlite.DB
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

// DB opens the store on first use.
func (k *Keeper) DB(ctx context.Context) (*sqlite.DB, error) {
	if k.db != nil {
		return k.db, nil
	}
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
		fmt.Fprintf(k.Warn, format+"\n", args...)
	}
}

// headSaveEvery is how many appended bytes the light load reads again
// rather than write the head after every hook.
const headSaveEvery = 64 << 10

// Load brings the session of the transcript at path up to date. With full
// unset it works on the light session of the state's head (recent turns,
// compactions, the first prompt; no tool calls, files or subagents),
// reading only what was appended since the head was written.
func (k *Keeper) Load(path string, full bool) (*transcript.Session, error) {
	var p transcript.Parser
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		// Claude Code writes the transcript after the first prompt's hook
		// has run: nothing has happened yet.
		return transcript.New(path), nil
	}
	if !full {
		if h := k.State.LoadHeader(path); h != nil {
			saved, comps := h.Offset, len(h.Compactions)
			// The light session keeps no ledger and no command outcomes:
			// the hot hooks skip working them out.
			light := transcript.Parser{Light: true}
			res, err := h.Update(&light)
			if err != nil {
				return nil, ReadError(path, err)
			}
			if !res.Rebuilt {
				// Writing the head costs more than reading a few turns
				// again: it is written once enough has piled up, or when
				// a compaction appeared.
				if h.Offset-saved >= headSaveEvery || len(h.Compactions) != comps {
					k.saved(k.State.SaveHead(h))
				}
				return h, nil
			}
			// The file was replaced: h now holds a light cold read. The
			// body no longer matches and is rebuilt when next needed.
			k.saved(k.State.SaveHead(h))
			return h, nil
		}
	}
	s := k.State.Load(path)
	if s == nil {
		s = transcript.New(path)
	}
	res, err := s.Update(&p)
	if err != nil {
		return nil, ReadError(path, err)
	}
	changed := res.Read > 0 || res.Rebuilt
	if full {
		before := subagentOffsets(s)
		if err := s.UpdateSubagents(&p); err != nil {
			k.warn("cairn: warning: %s", err)
		}
		changed = changed || subagentOffsets(s) != before
	}
	if changed || k.State.LoadHeader(path) == nil {
		k.saved(k.State.Save(s))
	}
	return s, nil
}

// ReadError words a failure to read a transcript for the user.
func ReadError(path string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return &HintError{Err: fmt.Errorf("cannot read %s: %w", path, err), Hint: "check the file's permissions"}
	}
	return fmt.Errorf("read transcript: %w", err)
}

// HintError is an error with a line telling the user what to do.
type HintError struct {
	Err  error
	Hint string
}

func (e *HintError) Error() string { return e.Err.Error() }
func (e *HintError) Unwrap() error { return e.Err }

// saved reports a state that could not be written: the answer stands.
func (k *Keeper) saved(err error) {
	if err != nil {
		k.warn("cairn: warning: could not save state (%v); the next run reads the transcript again", err)
	}
}

func subagentOffsets(s *transcript.Session) int64 {
	var n int64
	for _, a := range s.Subagents {
		n += a.Session.Offset + 1
	}
	return n
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
	s, err := k.Load(path, true)
	if err != nil {
		return checkpoint.Checkpoint{}, err
	}
	if s.Offset == 0 || (len(s.Prompts) == 0 && s.NumTurns() == 0) {
		return checkpoint.Checkpoint{}, fmt.Errorf("%w: the transcript %s is missing or holds no conversation", ErrNothing, path)
	}
	reading, _ := meter.Measure(s, k.Settings)
	in := checkpoint.Input{Project: project, Trigger: trigger, Now: k.Now(), Reading: reading, TicketPrefixes: k.TicketPrefixes, Redact: redact.String}
	if project != "" {
		gctx, cancel := context.WithTimeout(ctx, k.gitTimeout())
		st, err := git.Read(gctx, project)
		cancel()
		if err == nil {
			in.Git = &st
		} else if !errors.Is(err, git.ErrNotRepo) {
			in.GitErr = err
		}
	}
	return checkpoint.Build(s, in), nil
}

// Capture builds a checkpoint of the session at path and stores it.
func (k *Keeper) Capture(ctx context.Context, project, path, trigger string) (checkpoint.Checkpoint, error) {
	c, err := k.Build(ctx, project, path, trigger)
	if err != nil {
		return c, err
	}
	return c, k.store(ctx, path, &c, c.Turns)
}

// store saves c in the database, setting its ID, and notes it for the
// status line and the Stop hook. A hook waits at most dbWait for the
// database.
func (k *Keeper) store(ctx context.Context, path string, c *checkpoint.Checkpoint, turns int) error {
	ctx, cancel := dbContext(ctx)
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
	k.noteCheckpoint(path, *c, turns)
	ticket := ""
	if n := len(c.Task.Tickets); n > 0 {
		ticket = c.Task.Tickets[n-1]
	}
	if err := statusline.RecordCheckpoint(k.State.Dir, c.Project, id, ticket, c.CreatedAt); err != nil {
		k.warn("cairn: warning: %s", err)
	}
	return nil
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

// SessionEnd captures a checkpoint unless nothing happened since the
// session's last one (headless runs end a session after every turn).
func (k *Keeper) SessionEnd(ctx context.Context, project, path string) (checkpoint.Checkpoint, error) {
	s, err := k.Load(path, false)
	if err != nil || s.Offset == 0 {
		return checkpoint.Checkpoint{}, err
	}
	if m := k.loadMarks(path); m.checkpointTurns > 0 && m.checkpointTurns == s.NumTurns() {
		return checkpoint.Checkpoint{}, nil // the last checkpoint has every turn
	}
	dctx, cancel := dbContext(ctx)
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
		k.warn("cairn: removed %d temporary files that interrupted writes left", n)
	}
	os.WriteFile(mark, nil, 0o600)
	os.Chtimes(mark, k.Now(), k.Now())
}

// dbContext bounds a wait for the database: dbWait, and at most a third of
// what is left of the hook's budget, so that a locked database leaves time
// for the rest.
func dbContext(ctx context.Context) (context.Context, context.CancelFunc) {
	wait := dbWait
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d)/3)
	}
	return context.WithTimeout(ctx, wait)
}
