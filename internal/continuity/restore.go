package continuity

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/memory"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/redact"
	clipped "github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// Where a restore can be made.
const (
	AtSessionStart = "session-start"
	AtPrompt       = "prompt"
	AtTool         = "tool"
)

// A context drop without a compact_boundary counts as a compaction when
// one reply had at least dropMin tokens in context and the next, with no
// boundary between them, under dropRatio of it.
const (
	dropMin   = 20000
	dropRatio = 0.5
)

// dbWait bounds what a hook waits for the database: a locked database
// must not hold up the agent, and nothing a restore needs is only there.
const dbWait = 2 * time.Second

// Detected is a compaction that may need its restore.
type Detected struct {
	Key        string // c<N> for the Nth boundary, d<turns> for a drop
	Trigger    string
	PreTokens  int64
	PostTokens int64
	Fallback   bool // seen only as a drop in the context
}

func boundaryKey(n int) string { return "c" + strconv.Itoa(n) }

// underWay is the compaction a SessionStart(compact) is about. Claude Code
// 2.1.328 runs that hook before it writes the compact_boundary, so the
// compaction is the next one, unless its boundary is there already (no
// turn since the last boundary). The announcement PreCompact left settles
// it when it was made for this moment (no turn since), which also tells
// two compactions in a row apart.
func underWay(s *transcript.Session, p *pending) Detected {
	n := len(s.Compactions)
	fresh := n > 0 && s.Compactions[n-1].TurnsBefore == s.NumTurns()
	if p != nil && p.Turns == s.NumTurns() && (p.Key == boundaryKey(n) || p.Key == boundaryKey(n+1)) {
		d := Detected{Key: p.Key, Trigger: p.Trigger, PreTokens: p.PreTokens}
		if p.Key == boundaryKey(n) {
			d.PostTokens = s.Compactions[n-1].PostTokens
		}
		return d
	}
	if fresh {
		c := s.Compactions[n-1]
		return Detected{Key: boundaryKey(n), Trigger: c.Trigger, PreTokens: c.PreTokens, PostTokens: c.PostTokens}
	}
	return Detected{Key: boundaryKey(n + 1), Trigger: "compaction"}
}

// latest is the compaction a prompt or tool hook restores when
// SessionStart did not: the last boundary the transcript records, or a
// fall of the context after it that no boundary explains. Only the latest
// counts: the restore of an older compaction, after a newer one, would be
// stale.
func latest(s *transcript.Session) (Detected, bool) {
	after := 0
	if n := len(s.Compactions); n > 0 {
		c := s.Compactions[n-1]
		after = c.Line
		if d, ok := drop(s, after); ok {
			return d, true
		}
		return Detected{Key: boundaryKey(n), Trigger: c.Trigger, PreTokens: c.PreTokens, PostTokens: c.PostTokens}, true
	}
	return drop(s, after)
}

// drop finds the latest sharp fall of the context between two replies
// after line that no boundary explains, among the recent turns.
func drop(s *transcript.Session, after int) (Detected, bool) {
	for i := len(s.Turns) - 1; i > 0; i-- {
		a, b := s.Turns[i-1], s.Turns[i]
		if a.Line <= after {
			break
		}
		before, now := a.Usage.Context(), b.Usage.Context()
		if before < dropMin || float64(now) >= dropRatio*float64(before) || boundaryBetween(s, a.Line, b.Line) {
			continue
		}
		key := fmt.Sprintf("d%d", s.EarlierTurns+i+1)
		return Detected{Key: key, Trigger: "detected", PreTokens: before, PostTokens: now, Fallback: true}, true
	}
	return Detected{}, false
}

func boundaryBetween(s *transcript.Session, from, to int) bool {
	for _, c := range s.Compactions {
		if c.Line > from && c.Line < to {
			return true
		}
	}
	return false
}

// Deliver writes a text to the model's context: a hook's stdout. It fails
// when the text could not be written whole.
type Deliver func(text string) error

// Restore delivers the restore of the session's compaction that still
// needs one, through deliver, and reports whether it did. Exactly one
// call, in whichever process, delivers each compaction's restore: the
// hook that runs for it (SessionStart with source compact), or, when that
// one failed, the next prompt or tool hook. A delivery counts once deliver
// returned without error; until then the next hook may try again.
func (k *Keeper) Restore(ctx context.Context, project, path, at string, deliver Deliver) (bool, error) {
	if at == AtSessionStart {
		// A first run on a large session: the latest part now, the
		// whole working state at the next hook (window.go).
		if done, handled, err := k.restoreWindow(ctx, project, path, deliver); handled {
			return done, err
		}
	}
	s, err := k.Load(path, false)
	if err != nil {
		return false, err
	}
	return k.RestoreFrom(ctx, project, path, at, s, deliver)
}

// RestoreFrom is Restore on a session already loaded.
func (k *Keeper) RestoreFrom(ctx context.Context, project, path, at string, s *transcript.Session, deliver Deliver) (bool, error) {
	var p *pending
	var d Detected
	if at == AtSessionStart {
		p = k.loadPending(path)
		d = underWay(s, p)
	} else {
		// The hot path: no compaction at all, or the latest one
		// delivered, costs one small read at most.
		if len(s.Compactions) == 0 && len(s.Turns) < 2 {
			return false, nil
		}
		var ok bool
		if d, ok = latest(s); !ok {
			return false, nil
		}
		if record, _ := k.delivered(path); reached(s, record, d.Key, at) {
			return false, nil
		}
		p = k.loadPending(path)
	}
	dl, err := k.lockDelivery(path)
	switch {
	case errors.Is(err, errBusy):
		return false, nil // the process holding it delivers, or leaves it for the next hook
	case err != nil:
		// No record can be kept here (the state directory is read-only
		// or full): deliver at the compaction's own hook only, where a
		// repeat is least likely, and say why in the log.
		if at != AtSessionStart {
			return false, fmt.Errorf("cannot record restores: %w", err)
		}
		k.warn("cannot record restores (%v); delivering unrecorded", err)
		dl = nil
	}
	if dl != nil {
		defer dl.release()
		record, _ := k.delivered(path) // this directory's, read under the lock, and the others'
		if reached(s, record, d.Key, at) {
			return false, nil
		}
		if len(record) == 0 && k.claimedInDB(ctx, s, path, d.Key) {
			// A record lost with a state directory: the database kept it.
			dl.add(d.Key, s.NumTurns())
			return false, nil
		}
	}
	c, taken, err := k.checkpointFor(ctx, project, path, d, p, s, at)
	if err != nil {
		return false, err
	}
	budget := k.RestoreBudget
	if budget <= 0 {
		budget = checkpoint.DefaultRestoreBudget
	}
	steered := false
	if d.Trigger == "manual" && !k.Unsteered {
		// After a /compact the client shows the model PreCompact's
		// output too, as the command's output: the two share the budget,
		// and the restore leaves out what that output shows, when it
		// was printed from this very checkpoint.
		budget = max(budget/2, budget-checkpoint.Tokens(c.Steer()))
		steered = taken
	}
	text := c.Restore(checkpoint.Compaction{Trigger: d.Trigger, PreTokens: d.PreTokens, PostTokens: d.PostTokens, Steered: steered}, budget)
	// What the restore's guidance reads (seed 001's marker) may still be
	// the job's to write: it waits for it, or writes it.
	k.compactingFor(ctx, path, p)
	if err := deliver(text); err != nil {
		return false, fmt.Errorf("deliver the restore of %s: %w", d.Key, err)
	}
	// Delivered. The database's note comes first: a kill between the
	// two leaves the key out of the record, and the next hook delivers
	// again rather than never.
	k.claimInDB(ctx, s, path, d.Key)
	if dl != nil {
		if err := dl.add(d.Key, s.NumTurns()); err != nil {
			return true, fmt.Errorf("record the restore of %s: %w", d.Key, err)
		}
	}
	// The database waited for the jobs running: one that left the
	// announcement unsettled died or failed, and is started again.
	if q := k.loadPending(path); q != nil && q.Key == d.Key && !q.settled() {
		if err := k.later(ctx, Job{Kind: JobCompaction, Project: project, Path: path}); err != nil {
			k.warn("settle %s: %w", d.Key, err)
		}
	}
	return true, nil
}

// reached says whether the restore of key reached the model.
//
// Claude Code 2.1.x writes a line in the transcript for every hook answer
// it used: where it does (HookAnswers), the transcript decides, and the
// record vouches only for a delivery with no reply after it yet (the
// client writes its line before it sends the next request), since a hook
// killed after writing its answer, whose answer the client threw away,
// may have recorded it. Where the client writes no such lines, the
// record decides. A restore is delivered at most twice whatever the
// transcript says: a client that used it but wrote no line must not get
// it on every turn.
func reached(s *transcript.Session, record []sent, key, at string) bool {
	if s.HookAnswers && at != AtSessionStart && confirmed(s, key) {
		return true
	}
	times := 0
	for _, r := range record {
		if r.key != key {
			continue
		}
		times++
		if !s.HookAnswers || at == AtSessionStart || r.turns < 0 || r.turns >= s.NumTurns() {
			return true
		}
	}
	return times >= 2
}

// confirmed says whether the transcript records a restore reaching the
// model after the compaction of key (and before the next one).
func confirmed(s *transcript.Session, key string) bool {
	if !strings.HasPrefix(key, "c") {
		return false // a drop has no line to count from
	}
	n, err := strconv.Atoi(key[1:])
	if err != nil || n < 1 || n > len(s.Compactions) {
		return false
	}
	from, to := s.Compactions[n-1].Line, int(^uint(0)>>1)
	if n < len(s.Compactions) {
		to = s.Compactions[n].Line
	}
	for _, l := range s.RestoreLines {
		if l > from && l < to {
			return true
		}
	}
	return false
}

// claimedInDB reports whether the database notes the restore of key as
// delivered: consulted only when the state directory has no record for
// the session.
func (k *Keeper) claimedInDB(ctx context.Context, s *transcript.Session, path, key string) bool {
	ctx, cancel := k.dbContext(ctx)
	defer cancel()
	db, err := k.DB(ctx)
	if err != nil {
		return false
	}
	ok, err := db.Claimed(ctx, sessionKey(s, path), key)
	return err == nil && ok
}

// claimInDB notes a delivered restore in the database, which outlives the
// state directory; a failure only costs that.
func (k *Keeper) claimInDB(ctx context.Context, s *transcript.Session, path, key string) {
	ctx, cancel := k.dbContext(ctx)
	defer cancel()
	db, err := k.DB(ctx)
	if err == nil {
		_, err = db.Claim(ctx, sessionKey(s, path), key)
	}
	if err != nil {
		k.warn("restore %s delivered but not noted in the database: %v", key, err)
	}
}

func sessionKey(s *transcript.Session, path string) string {
	if s.SessionID != "" {
		return s.SessionID
	}
	return path
}

// checkpointFor is the working state a restore shows: the checkpoint
// PreCompact took for this very compaction, or, when there is none (the
// hook failed, or ran for another compaction), one built now from the
// transcript, which still holds everything from before the compaction.
// Never an older checkpoint: the work since it would be missing. taken
// says it is PreCompact's, the one its steering was printed from.
func (k *Keeper) checkpointFor(ctx context.Context, project, path string, d Detected, p *pending, s *transcript.Session, at string) (c checkpoint.Checkpoint, taken bool, err error) {
	if p != nil && p.Key == d.Key && p.Checkpoint != nil {
		if p.Checkpoint.ID == 0 {
			// Its job has not stored it (yet): the restore points at
			// `cairn show checkpoint`, so store it now, unless the job
			// does it first. Without a database it restores all the same.
			q, err := k.storePending(ctx, path)
			if err != nil {
				k.warn("could not store the checkpoint of %s: %w", d.Key, err)
			}
			if q != nil && q.Key == p.Key && q.Checkpoint != nil {
				p = q // with its ID, and the work tree's state if it was due
			}
		}
		turns := s.NumTurns() // at SessionStart the boundary is still to come
		if at != AtSessionStart && strings.HasPrefix(d.Key, "c") {
			n, _ := strconv.Atoi(d.Key[1:])
			if n >= 1 && n <= len(s.Compactions) {
				turns = s.Compactions[n-1].TurnsBefore
			}
		}
		if p.Turns == turns {
			return *p.Checkpoint, true, nil
		}
	}
	c, err = k.Build(ctx, project, path, "restore")
	if err != nil {
		return c, false, err
	}
	k.store(ctx, path, &c, s.NumTurns())
	return c, false, nil
}

// PreCompact takes the checkpoint a compaction is about to need and
// announces the compaction, so that SessionStart, which Claude Code runs
// before it writes the boundary, restores the right one. steer receives
// the summary instructions as soon as the checkpoint is built, before
// anything is stored: they need only the transcript. It returns the
// checkpoint, for what else is kept at a compaction.
func (k *Keeper) PreCompact(ctx context.Context, project, path, trigger string, steer Deliver) (checkpoint.Checkpoint, error) {
	return k.PreCompactWith(ctx, project, path, trigger, "", steer)
}

// maxInstructions bounds what is kept of a /compact's instructions.
const maxInstructions = 300

// PreCompactWith is PreCompact with the user's instructions to a manual
// /compact ("focus on X, drop Y"): the checkpoint records them, as the
// user's words, and the steering and the restore leave out what they
// drop.
func (k *Keeper) PreCompactWith(ctx context.Context, project, path, trigger, instructions string, steer Deliver) (checkpoint.Checkpoint, error) {
	// Without git: the steering does not show it, and the job reads it
	// (GitDue). The checkpoint kept from the last build serves when
	// nothing was appended since (kept.go); s stays nil then.
	var s, light *transcript.Session
	since := k.stampKept(path) // before the read: a write after it is waited for no longer
	c, text, ok := k.fromKeptWith(path, project, "precompact-"+trigger, &light)
	if !ok {
		// A job may be building it ahead (ahead.go), with the lines
		// appended last: it is done in milliseconds, a build here
		// would take longer.
		wctx, cancel := context.WithTimeout(ctx, keepWait)
		for !ok && k.waitKept(wctx, path, &since) {
			c, text, ok = k.fromKeptWith(path, project, "precompact-"+trigger, &light)
		}
		cancel()
	}
	if from, windowed := k.windowed(path); !ok && windowed {
		// A first run on a large session: the steering from its last
		// part, the whole checkpoint the job's (window.go).
		var err error
		if c, err = k.buildWindow(project, path, "precompact-"+trigger, from); err == nil {
			text, ok = c.Steer(), true
		}
	}
	if !ok {
		var err error
		if c, s, err = k.buildWith(ctx, project, path, "precompact-"+trigger, false); err != nil {
			return c, err
		}
		text = c.Steer()
	}
	// What is kept for the next PreCompact (kept.go) is the checkpoint
	// of the transcript alone: these instructions are this /compact's.
	keptC, keptText := c, text
	if instructions = strings.TrimSpace(instructions); instructions != "" {
		c.Instructions = clipped.Clip(redact.String(instructions), maxInstructions)
		text = c.Steer()
	}
	var errs []error
	if text != "" {
		if err := steer(text); err != nil {
			errs = append(errs, fmt.Errorf("print the summary instructions: %w", err))
		}
	}
	if s != nil {
		k.keep(path, project, s, keptC, keptText) // after the steering: the summariser waits for it
	}
	turns := c.Turns
	if err := k.prepareDelivery(path); err != nil {
		errs = append(errs, err)
	}
	// The announcement carries the checkpoint; its copy in the database
	// and its observations are a job's (settle.go), which fills in its ID.
	p := pending{Key: boundaryKey(c.Compactions + 1), Trigger: trigger, PreTokens: c.Context.Tokens, Turns: turns, Checkpoint: &c, GitDue: c.Project != ""}
	// What is kept beyond the session is the job's too (compacting.go),
	// from what this hook saw: the client appends the compaction next.
	p.CompactingDue, p.At, p.Size = k.AtCompaction != nil, k.Now(), transcriptSize(path)
	if c.From > 0 {
		// The window's counts are not the session's: no restore takes
		// it for its compaction until the job put the whole one there.
		p.Key, p.Turns, p.GitDue = windowKey, -1, false
	}
	if err := k.announce(path, p); err != nil {
		errs = append(errs, fmt.Errorf("announce the compaction: %w", err))
		// No job can find it: what is kept beyond the session is
		// written now, and the checkpoint stored.
		if p.CompactingDue {
			if err := k.AtCompaction(ctx, compactingOf(path, &p)); err != nil {
				errs = append(errs, err)
			}
		}
		if c.From > 0 {
			ins := c.Instructions
			var err error
			if c, s, err = k.build(ctx, project, path, "precompact-"+trigger); err != nil {
				return c, errors.Join(append(errs, err)...)
			}
			c.Instructions, turns = ins, c.Turns
		}
		k.readGit(ctx, &c)
		if err := k.store(ctx, path, &c, turns); err != nil {
			errs = append(errs, err)
		} else if s != nil || k.loadFull(path, &s) {
			k.observe(ctx, memory.FromCheckpoint(c, s)...)
		}
		return c, errors.Join(errs...)
	}
	// The marks note the checkpoint's turns when it is stored (the job's
	// storePending): one file less to replace here.
	if err := k.later(ctx, Job{Kind: JobCompaction, Project: project, Path: path}); err != nil {
		errs = append(errs, err)
	}
	if k.Detach == nil {
		if q := k.loadPending(path); q != nil && q.Checkpoint != nil && q.Key == p.Key {
			// The job ran here.
			c.ID, c.Git, c.GitError = q.Checkpoint.ID, q.Checkpoint.Git, q.Checkpoint.GitError
		}
	}
	return c, errors.Join(errs...)
}

// AboutToCompact says whether the client is about to compact the session
// at path on its own, for a client that runs PreCompact before every
// request whether it compacts or not (Gemini CLI): its context has
// reached the client's compaction point, by the client's rules, and
// PreCompact has not announced this compaction at this turn already (a
// compaction the client found not worth it leaves the context where it
// was, and the next request must not take the checkpoint again).
func (k *Keeper) AboutToCompact(path string) (bool, error) {
	s, err := k.Load(path, false)
	if err != nil {
		return false, err
	}
	r, _ := meter.Measure(s, k.rules())
	if !r.AutoCompact || r.Threshold <= 0 || r.Tokens < r.Threshold {
		return false, nil
	}
	if p := k.loadPending(path); p != nil && p.Turns == s.NumTurns() && p.Key == boundaryKey(len(s.Compactions)+1) {
		return false, nil
	}
	return true, nil
}
