package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/git"
	"github.com/cairn-agent/cairn/internal/handoff"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// contextTools answers seed 002's tools about the session's own context.
// Its "anchors" are cairn's checkpoints: the working state saved for the
// session, which a compaction's restore is built from.
type contextTools struct {
	k   *continuity.Keeper
	loc *locator
	now func() time.Time
	tz  *time.Location
	log *logger
	// busy serialises the use of the Keeper, which is not safe for
	// concurrent use; a cancelled call stops waiting for it.
	busy chan struct{}
	// prefixes are the Keeper's own ticket prefixes; the project's
	// configuration adds its own when there are none, as the commands do.
	prefixes []string
}

func newContextTools(k *continuity.Keeper, l *locator, now func() time.Time, tz *time.Location, log *logger) *contextTools {
	return &contextTools{k: k, loc: l, now: now, tz: tz, log: log, busy: make(chan struct{}, 1), prefixes: k.TicketPrefixes}
}

type statusIn struct{}

type preserveIn struct {
	Level string `json:"level,omitempty" jsonschema:"critical: checkpoint; extended: +handoff; full: +git snapshot"`
}

type restoreIn struct {
	Depth string `json:"depth,omitempty" jsonschema:"recent: the restore; session: longer; full: whole checkpoint"`
}

func addContextTools(s *server, c *contextTools) {
	addTool(s, "check_compaction_status",
		"Context tokens used (exact), auto-compact threshold, compaction risk, checkpoints saved.", nil, c.status)
	addTool(s, "preserve_critical_context", "Save the working state now, to restore after a compaction.",
		map[string][]string{"level": {levelCritical, levelExtended, levelFull}}, c.preserve)
	addTool(s, "restore_compacted_context",
		"Working state saved before the last compaction: task, constraints, files, commands, errors, decisions, next steps.",
		map[string][]string{"depth": {depthRecent, depthSession, depthFull}}, c.restore)
}

// session is what a call works on: the session, its project and the
// project's configuration.
type session struct {
	target
	s    *transcript.Session
	conf config.Config
}

// acquire takes the Keeper for one call and finds and loads the session;
// release gives it back.
func (c *contextTools) acquire(ctx context.Context, cl call) (*session, func(), error) {
	id := cl.toolUseID
	t, err := c.loc.find(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	// The reply that made the call is the latest word on the context: wait
	// for the client to write it. A client that never does costs the wait.
	if id != "" && !c.loc.await(ctx, t.path, id) {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		c.log.warn("mcp: the transcript %s does not hold the call's tool_use block %s; reading it as it is", t.path, id)
	}
	select {
	case c.busy <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	release := func() { <-c.busy }
	conf, errs := config.Load(t.root)
	for _, e := range errs {
		c.log.warn("mcp: configuration: %v", e)
	}
	// The commands' rule (internal/cli's env): the environment's settings
	// first, then the project's.
	c.k.TicketPrefixes = c.prefixes
	if len(c.k.TicketPrefixes) == 0 {
		c.k.TicketPrefixes = conf.TicketPrefixes
	}
	s, err := c.k.Load(t.path, false) // the light session: Capture loads the full one
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("read the session %s: %w", t.path, err)
	}
	return &session{target: t, s: s, conf: conf}, release, nil
}

// status is check_compaction_status's answer.
type status struct {
	Session            string      `json:"session"`
	TokensUsed         int64       `json:"tokens_used"`
	Source             string      `json:"source"`
	Window             int64       `json:"window"`
	AutoCompactAt      int64       `json:"auto_compact_at,omitempty"`
	PercentOfThreshold float64     `json:"percent_of_threshold,omitempty"`
	Level              string      `json:"level"`
	Risk               string      `json:"compaction_risk"`
	TurnsToCompact     *float64    `json:"turns_to_compact,omitempty"`
	Compactions        int         `json:"compactions"`
	LastCompaction     *compaction `json:"last_compaction,omitempty"`
	PreservedAnchors   int         `json:"preserved_anchors"`
	LatestAnchor       *anchor     `json:"latest_anchor,omitempty"`
	Hint               string      `json:"hint,omitempty"`
}

type compaction struct {
	Trigger    string `json:"trigger"`
	PreTokens  int64  `json:"pre_tokens"`
	PostTokens int64  `json:"post_tokens,omitempty"`
	TurnsAgo   int    `json:"turns_ago"`
}

type anchor struct {
	ID      int64  `json:"id"`
	Trigger string `json:"trigger"`
	Age     string `json:"age"`
	Task    string `json:"task,omitempty"`
}

// Risk names, from the pressure levels of the project's configuration.
const (
	riskLow      = "low"
	riskMedium   = "medium"
	riskHigh     = "high"
	riskOccurred = "occurred"
)

// risk is low below L1, medium at L1, high at L2 and above or at the
// threshold; occurred when the session was compacted and its context has
// not yet grown back to L1, the time a restore is wanted.
func risk(lvl int, r meter.Reading, compactions int) string {
	switch {
	case r.AutoCompact && r.Threshold > 0 && r.Tokens >= r.Threshold, lvl >= 2:
		return riskHigh
	case lvl == 1:
		return riskMedium
	case compactions > 0:
		return riskOccurred
	}
	return riskLow
}

func (c *contextTools) status(ctx context.Context, cl call, _ statusIn) (result, error) {
	ss, release, err := c.acquire(ctx, cl)
	if err != nil {
		return result{}, err
	}
	defer release()
	s := ss.s
	r, tr := meter.Measure(s, c.k.Settings)
	lvl := ss.conf.Pressure.Level(r)
	v := status{Session: s.SessionID, TokensUsed: r.Tokens, Source: r.Source, Window: r.Window, Level: pressure.Name(lvl),
		Risk: risk(lvl, r, len(s.Compactions)), Compactions: len(s.Compactions)}
	if tr.TurnsToCompact != nil {
		turns := round1(*tr.TurnsToCompact)
		v.TurnsToCompact = &turns
	}
	if v.Session == "" {
		v.Session = ss.id
	}
	if r.AutoCompact && r.Threshold > 0 {
		v.AutoCompactAt, v.PercentOfThreshold = r.Threshold, round1(r.PctThreshold)
	}
	if n := len(s.Compactions); n > 0 {
		last := s.Compactions[n-1]
		v.LastCompaction = &compaction{Trigger: last.Trigger, PreTokens: last.PreTokens, PostTokens: last.PostTokens,
			TurnsAgo: s.NumTurns() - last.TurnsBefore}
	}
	recs, err := c.anchors(ctx, ss)
	if err != nil {
		return result{}, err
	}
	v.PreservedAnchors = len(recs)
	if len(recs) > 0 {
		a := recs[0]
		v.LatestAnchor = &anchor{ID: a.ID, Trigger: a.Trigger, Age: text.Ago(c.now().Sub(a.CreatedAt)), Task: text.ClipLine(a.Task, 100)}
	}
	switch v.Risk {
	case riskOccurred:
		v.Hint = "restore_compacted_context returns the working state saved before the compaction"
	case riskHigh:
		v.Hint = "finish or wrap up the current step; preserve_critical_context saves the state now"
	}
	data, err := json.Marshal(v)
	if err != nil {
		return result{}, err
	}
	res := textResult(string(data))
	res.StructuredContent = json.RawMessage(data)
	return res, nil
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }

// anchors lists the session's checkpoints, newest first.
func (c *contextTools) anchors(ctx context.Context, ss *session) ([]sqlite.Checkpoint, error) {
	db, err := c.k.DB(ctx)
	if err != nil {
		return nil, fmt.Errorf("open cairn's database: %w", err)
	}
	all, err := db.Checkpoints(ctx, ss.root, 0)
	if err != nil {
		return nil, err
	}
	var mine []sqlite.Checkpoint
	for _, r := range all {
		if r.SessionID == sessionKey(ss) {
			mine = append(mine, r)
		}
	}
	return mine, nil
}

// sessionKey is how checkpoints name the session.
func sessionKey(ss *session) string {
	if ss.s.SessionID != "" {
		return ss.s.SessionID
	}
	return ss.id
}

// Preservation levels, seed 002's, as cairn's actions at a pressure level.
const (
	levelCritical = "critical"
	levelExtended = "extended"
	levelFull     = "full"
)

// snapshotTime bounds the snapshot of the uncommitted work, as at a
// level crossing.
const snapshotTime = 1500 * time.Millisecond

func (c *contextTools) preserve(ctx context.Context, cl call, in preserveIn) (result, error) {
	level := in.Level
	if level == "" {
		level = levelCritical
	}
	ss, release, err := c.acquire(ctx, cl)
	if err != nil {
		return result{}, err
	}
	defer release()
	cp, err := c.k.Capture(ctx, ss.root, ss.path, "mcp-"+level)
	if errors.Is(err, continuity.ErrNothing) {
		return result{}, errors.New("nothing to save yet: the session has no conversation")
	}
	if err != nil {
		return result{}, fmt.Errorf("save the checkpoint: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Saved checkpoint %d (%s tokens in context): %s", cp.ID, meter.Thousands(cp.Context.Tokens), cp.Summary())
	if level == levelExtended || level == levelFull {
		p, err := handoff.Write(ss.root, cp, handoff.Input{Reason: "asked for by the agent (preserve_critical_context)", Project: ss.root, Now: c.now, Loc: c.tz, Pressure: ss.conf.Pressure})
		if err != nil {
			fmt.Fprintf(&b, "\nNo handoff: %v", err)
		} else {
			fmt.Fprintf(&b, "\nHandoff: %s", rel(ss.root, p))
		}
	}
	if level == levelFull {
		sctx, cancel := context.WithTimeout(ctx, snapshotTime)
		snap, err := git.Snapshot(sctx, ss.root, cp.SessionID, fmt.Sprintf("cairn snapshot for preserve_critical_context (checkpoint %d)", cp.ID))
		cancel()
		switch {
		case errors.Is(err, git.ErrClean):
			b.WriteString("\nNo snapshot: no uncommitted work.")
		case errors.Is(err, git.ErrNotRepo):
			b.WriteString("\nNo snapshot: not a git repository.")
		case err != nil:
			fmt.Fprintf(&b, "\nNo snapshot: %v", err)
		default:
			fmt.Fprintf(&b, "\nSnapshot %d of the uncommitted work: %s (work tree untouched).", snap.Number, snap.Ref)
		}
	}
	b.WriteString("\nrestore_compacted_context returns it after a compaction.")
	return textResult(b.String()), nil
}

func rel(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// Restore depths.
const (
	depthRecent  = "recent"
	depthSession = "session"
	depthFull    = "full"
)

func (c *contextTools) restore(ctx context.Context, cl call, in restoreIn) (result, error) {
	depth := in.Depth
	if depth == "" {
		depth = depthRecent
	}
	ss, release, err := c.acquire(ctx, cl)
	if err != nil {
		return result{}, err
	}
	defer release()
	recs, err := c.anchors(ctx, ss)
	if err != nil {
		return result{}, err
	}
	cp, fresh, err := c.latest(ctx, ss, recs)
	if err != nil {
		return result{}, err
	}
	var out string
	switch depth {
	case depthRecent:
		budget := c.k.RestoreBudget
		if budget <= 0 {
			budget = ss.conf.RestoreBudget
		}
		out = restoreText(cp, ss.s, budget)
	case depthSession:
		out = restoreText(cp, ss.s, continuity.ResumeBudget)
	case depthFull:
		out = cp.Markdown()
	}
	if fresh {
		out += "\n(cairn had no checkpoint of this session covering its last compaction: this one was built now from the transcript.)\n"
	}
	if depth != depthRecent && len(recs) > 0 {
		out += c.earlier(recs, cp.ID)
	}
	return textResult(out), nil
}

// latest is the session's newest checkpoint when it covers the work
// before the last compaction; otherwise (none, or taken before that work)
// one built and stored now from the transcript, which still holds it all,
// as the restore after a compaction does: never an older checkpoint.
func (c *contextTools) latest(ctx context.Context, ss *session, recs []sqlite.Checkpoint) (checkpoint.Checkpoint, bool, error) {
	if len(recs) > 0 {
		db, err := c.k.DB(ctx)
		if err != nil {
			return checkpoint.Checkpoint{}, false, err
		}
		rec, err := db.Checkpoint(ctx, recs[0].ID)
		if err != nil {
			return checkpoint.Checkpoint{}, false, err
		}
		cp, err := continuity.FromRecord(rec)
		if err != nil {
			return cp, false, err
		}
		if covers(cp, ss.s) {
			return cp, false, nil
		}
	}
	cp, err := c.k.Capture(ctx, ss.root, ss.path, "restore")
	if errors.Is(err, continuity.ErrNothing) {
		return cp, false, errors.New("nothing to restore: the session has no conversation yet")
	}
	if err != nil {
		return cp, false, fmt.Errorf("build a checkpoint from the transcript: %w", err)
	}
	return cp, true, nil
}

// covers says whether cp holds the session's work up to its last
// compaction.
func covers(cp checkpoint.Checkpoint, s *transcript.Session) bool {
	n := len(s.Compactions)
	if n == 0 {
		return true
	}
	return cp.Compactions >= n || (cp.Compactions == n-1 && cp.Turns >= s.Compactions[n-1].TurnsBefore)
}

// restoreText is the text a compaction's restore injects, for the
// session's last compaction, or, with none, the resume text.
func restoreText(cp checkpoint.Checkpoint, s *transcript.Session, budget int) string {
	n := len(s.Compactions)
	if n == 0 {
		return cp.Resume(budget)
	}
	last := s.Compactions[n-1]
	return cp.Restore(checkpoint.Compaction{Trigger: last.Trigger, PreTokens: last.PreTokens, PostTokens: last.PostTokens}, budget)
}

// earlier lists the session's other checkpoints, one line each.
func (c *contextTools) earlier(recs []sqlite.Checkpoint, shown int64) string {
	var b strings.Builder
	for _, r := range recs {
		if r.ID == shown {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\nEarlier checkpoints of this session (`cairn show checkpoint ID`):\n")
		}
		fmt.Fprintf(&b, "- %d · %s · %s · %s tokens · %s\n", r.ID, r.CreatedAt.In(c.tz).Format("2006-01-02 15:04"), r.Trigger,
			meter.Thousands(r.ContextTokens), text.ClipLine(r.Task, 100))
	}
	return b.String()
}
