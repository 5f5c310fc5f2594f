package loop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/estimate"
	"github.com/cairn-agent/cairn/internal/pressure"
)

// Checkpointed is what a checkpoint of an iteration's session gave.
type Checkpointed struct {
	// Handoff is the handoff document, relative to the project.
	Handoff string
	Summary string
	Files   []string
}

// Tickets tells the bound ticket's tracker of the plan's shards
// (seed 003's SHD-003, SHD-004), through the tracker's queue: nothing here
// waits on the network.
type Tickets interface {
	// Shard queues a sub-issue of the bound ticket per shard of item. It
	// returns the ticket and a queue key per shard; no ticket when none is
	// bound.
	Shard(item string, shards []string) (parent string, keys []string, err error)
	// Created is the sub-issue the update key created, once it is sent.
	Created(key string) (string, bool)
	// Done queues the shard's sub-issue's close and the parent's progress:
	// done of the shards of sh.Of are ticked; tickets are theirs so far.
	Done(sh ShardTicket, done, total int, tickets []string) error
}

// Runner runs the loop in a project.
type Runner struct {
	Dir string
	// Command is the agent ("claude"); Args are added after the loop's
	// own (-p PROMPT --output-format stream-json --verbose), e.g.
	// --permission-mode acceptEdits. Env is its environment (nil: cairn's).
	Command []string
	Args    []string
	Env     []string

	// Ceilings; zero is none (MaxFailures: 3).
	MaxIterations int
	MaxTokens     int64
	MaxCostUSD    float64
	MaxFailures   int
	// Marker ends the loop when the agent's result holds it.
	Marker string
	// Levels are the pressure levels; the iteration ends at StopLevel (2).
	Levels    pressure.Config
	StopLevel int
	// Grace is how long the agent may go on after the level, to finish
	// its edit (seed 003: 60 s); IterationTimeout bounds an iteration.
	Grace            time.Duration
	IterationTimeout time.Duration
	// Window gives the context window and the auto-compact point of a
	// model.
	Window func(model string) (window, threshold int64)
	// Checkpoint takes a checkpoint of the session and writes its handoff.
	Checkpoint func(ctx context.Context, sessionID, trigger string, level int) (Checkpointed, error)
	// Estimate places an item's text against a fresh session's budget.
	Estimate func(spec string) estimate.Advice
	// Tickets, when set, makes the shards of an oversized item
	// sub-issues of the bound ticket and tells it their progress.
	Tickets Tickets
	// CheckpointNow receives a manual checkpoint request (cairn loop
	// checkpoint, SIGUSR1).
	CheckpointNow <-chan struct{}
	// Progress receives a line per event; Now is the clock.
	Progress io.Writer
	Now      func() time.Time
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) progress(format string, args ...any) {
	if r.Progress != nil {
		fmt.Fprintf(r.Progress, "cairn loop: "+format+"\n", args...)
	}
}

func (r *Runner) path(name string) string { return filepath.Join(r.Dir, name) }

func (r *Runner) defaults() {
	if len(r.Command) == 0 {
		r.Command = []string{"claude"}
	}
	if r.MaxFailures == 0 {
		r.MaxFailures = 3
	}
	if r.Marker == "" {
		r.Marker = DefaultMarker
	}
	if r.StopLevel < 1 || r.StopLevel > 3 {
		r.StopLevel = 2
	}
	if r.Levels.Levels == [3]float64{} {
		r.Levels = pressure.Default()
	}
	if r.Grace == 0 {
		r.Grace = 60 * time.Second
	}
	if r.IterationTimeout == 0 {
		r.IterationTimeout = 2 * time.Hour
	}
	if r.Window == nil {
		r.Window = func(string) (int64, int64) { return 200000, 167000 }
	}
}

// Run runs iterations until a stop, and returns the final state.
func (r *Runner) Run(ctx context.Context) (State, error) {
	r.defaults()
	statePath := r.path(StateFile)
	s, err := Load(statePath)
	if err != nil {
		return s, err
	}
	if _, err := os.Stat(r.path(PlanFile)); err != nil {
		return s, fmt.Errorf("no %s in %s (cairn loop init writes one)", PlanFile, r.Dir)
	}
	if s.StartedAt.IsZero() {
		s.StartedAt = r.now()
	}
	if s.Current != nil {
		r.progress("iteration %d was interrupted (the loop was killed): resuming from its session", s.Current.Iteration)
		cur := *s.Current
		if cur.AgentPID > 0 && Alive(cur.AgentPID) {
			// The agent outlived its loop: stop it before its session is
			// checkpointed and another starts.
			stopGroup(cur.AgentPID)
		}
		r.record(ctx, &s, cur, result{SessionID: cur.SessionID, Outcome: "interrupted", Crossed: cur.SessionID != ""})
		if err := r.save(&s); err != nil {
			return s, err
		}
	}
	s.Status, s.StopReason = "running", ""
	stopWith := func(status, reason string) (State, error) {
		s.Status, s.StopReason = status, reason
		err := r.save(&s)
		r.summary(s)
		return s, err
	}
	for {
		plan, err := os.ReadFile(r.path(PlanFile))
		if err != nil {
			return stopWith("failed", err.Error())
		}
		items := ParsePlan(string(plan))
		if r.syncShards(&s, items) {
			if err := r.save(&s); err != nil {
				return s, err
			}
		}
		it, open := Next(items)
		switch {
		case len(items) > 0 && !open:
			return stopWith("done", "every item of the plan is ticked")
		case len(items) == 0:
			return stopWith("failed", fmt.Sprintf("%s has no checklist items (- [ ] ...)", PlanFile))
		case ctx.Err() != nil:
			return stopWith("stopped", "signal")
		case r.MaxIterations > 0 && s.Iteration >= r.MaxIterations:
			return stopWith("stopped", fmt.Sprintf("max iterations (%d)", r.MaxIterations))
		case r.MaxTokens > 0 && s.Tokens >= r.MaxTokens:
			return stopWith("stopped", fmt.Sprintf("token ceiling (%d)", r.MaxTokens))
		case r.MaxCostUSD > 0 && s.CostUSD >= r.MaxCostUSD:
			return stopWith("stopped", fmt.Sprintf("cost ceiling ($%.2f)", r.MaxCostUSD))
		case s.ConsecutiveFailures >= r.MaxFailures:
			return stopWith("failed", fmt.Sprintf("%d failures in a row", s.ConsecutiveFailures))
		}
		// RLP-006: an item too big for a fresh session is sharded first.
		if r.Estimate != nil && !strings.Contains(it.Text, "(part ") {
			spec := it.Text + "\n" + strings.Join(it.Body, "\n")
			if a := r.Estimate(spec); a.Action == estimate.ShardFirst && a.Split != nil && len(a.Split.Shards) > 1 {
				var shards [][]string
				for _, sh := range a.Split.Shards {
					shards = append(shards, sh.Parts)
				}
				next, texts := Shard(string(plan), it, shards)
				r.progress("item %q: about %d tokens, %.0f%% of a fresh session: sharded into %d parts", it.Text, a.Tokens, a.PercentFresh, len(shards))
				// The sub-issues are queued and recorded before the plan
				// changes: a loop killed in between shards the item again,
				// and the same keys queue nothing twice.
				if r.Tickets != nil {
					r.shardTickets(&s, it.Text, texts)
					if err := r.save(&s); err != nil {
						return s, err
					}
				}
				if err := os.WriteFile(r.path(PlanFile), []byte(next), 0o644); err != nil {
					return stopWith("failed", err.Error())
				}
				continue
			}
		}
		promptFile, err := os.ReadFile(r.path(PromptFile))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return stopWith("failed", err.Error())
		}
		s.Iteration++
		cur := Current{Iteration: s.Iteration, Item: it.Text, Started: r.now(), PID: os.Getpid()}
		s.Current = &cur
		if err := r.save(&s); err != nil {
			return s, err
		}
		r.progress("iteration %d · item: %s · %s", s.Iteration, it.Text, r.totals(s))
		prompt := Prompt(string(promptFile), it, s.Iteration, func() string {
			return fmt.Sprintf("When every item is ticked, end your reply with %s.", r.Marker)
		})
		res := r.runAgent(ctx, prompt, func(pid int) {
			cur.AgentPID = pid
			s.Current = &cur
			_ = r.save(&s)
		}, func(id string) {
			cur.SessionID = id
			s.Current = &cur
			_ = r.save(&s)
		}, r.CheckpointNow)
		r.record(ctx, &s, cur, res)
		if err := r.save(&s); err != nil {
			return s, err
		}
		switch {
		case res.Outcome == "interrupted":
			return stopWith("stopped", "signal")
		case strings.Contains(res.Text, r.Marker) && res.Outcome != "failed":
			return stopWith("done", "the agent printed the completion marker")
		}
	}
}

// shardTickets queues the sub-issues of item's shards and records them.
func (r *Runner) shardTickets(s *State, item string, texts []string) {
	parent, keys, err := r.Tickets.Shard(item, texts)
	if err != nil {
		r.progress("shards of %q: sub-issues: %v", item, err)
	}
	if parent == "" || len(keys) != len(texts) {
		return
	}
	for i, k := range keys {
		if slices.ContainsFunc(s.Shards, func(sh ShardTicket) bool { return sh.Key == k }) {
			continue
		}
		s.Shards = append(s.Shards, ShardTicket{Item: texts[i], Of: item, Parent: parent, Key: k})
	}
	r.progress("shards of %q: %d sub-issues of %s queued", item, len(keys), parent)
}

// syncShards records the sub-issues the tracker made, and tells it of
// each shard ticked since (SHD-004). It says whether the state changed.
func (r *Runner) syncShards(s *State, items []Item) bool {
	if r.Tickets == nil || len(s.Shards) == 0 {
		return false
	}
	ticked := map[string]bool{}
	for _, it := range items {
		if it.Done {
			ticked[it.Text] = true
		}
	}
	changed := false
	for i := range s.Shards {
		sh := &s.Shards[i]
		if sh.Ticket == "" {
			if t, ok := r.Tickets.Created(sh.Key); ok {
				sh.Ticket, changed = t, true
			}
		}
	}
	for i := range s.Shards {
		sh := &s.Shards[i]
		if sh.Done || !ticked[sh.Item] {
			continue
		}
		// Counted as told, one by one: two shards ticked in one
		// iteration make 1/3 then 2/3, not 2/3 twice.
		done, total := 1, 0
		var tickets []string
		for _, o := range s.Shards {
			if o.Of == sh.Of && o.Parent == sh.Parent {
				total++
				tickets = append(tickets, o.Ticket)
				if o.Done {
					done++
				}
			}
		}
		if err := r.Tickets.Done(*sh, done, total, tickets); err != nil {
			r.progress("shard %q done: cannot tell %s: %v", sh.Item, sh.Parent, err)
			continue
		}
		sh.Done, changed = true, true
		r.progress("shard %q done: %d/%d shards done, queued for %s", sh.Item, done, total, sh.Parent)
	}
	return changed
}

// record ends an iteration in the state: its history entry, the totals,
// and for one that ended at a level (or was interrupted), the checkpoint
// and handoff the next iteration resumes from, in PROMPT.md.
func (r *Runner) record(ctx context.Context, s *State, cur Current, res result) {
	h := HistoryEntry{Iteration: cur.Iteration, PeakPercent: res.PeakPercent, SessionID: res.SessionID, Item: cur.Item,
		Tokens: res.Tokens, CostUSD: res.CostUSD, Outcome: res.Outcome, Seconds: res.Seconds}
	s.Tokens += res.Tokens
	s.CostUSD += res.CostUSD
	if res.Outcome == "failed" || res.Outcome == "timeout" {
		s.ConsecutiveFailures++
		r.progress("iteration %d failed: %s", cur.Iteration, oneLine(res.Err))
	} else {
		s.ConsecutiveFailures = 0
	}
	cc := ContextCheckpoint{}
	if (res.Crossed || res.Outcome == "interrupted") && res.SessionID != "" && r.Checkpoint != nil {
		// A checkpoint needs a context that can still take it: a fresh
		// one, the session's own is over.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		trigger := fmt.Sprintf("loop-L%d", r.StopLevel)
		if res.Outcome == "interrupted" {
			trigger = "loop-interrupted"
		}
		c, err := r.Checkpoint(cctx, res.SessionID, trigger, r.StopLevel)
		cancel()
		if err != nil {
			r.progress("iteration %d: no checkpoint: %v", cur.Iteration, err)
		} else {
			t := r.now()
			cc = ContextCheckpoint{Active: true, Level: fmt.Sprintf("L%d", r.StopLevel), PercentAtCheckpoint: res.CrossedAt,
				Timestamp: &t, HandoffFile: c.Handoff, ResumeSummary: c.Summary, CurrentTodoItem: cur.Item, SessionID: res.SessionID}
			if res.Outcome == "interrupted" {
				cc.Level = "interrupted"
			}
			for _, f := range c.Files {
				cc.FilesInProgress = append(cc.FilesInProgress, FileInProgress{Path: f})
			}
			h.Checkpoint = true
		}
	}
	s.ContextCheckpoint = cc
	s.ContextHistory = append(s.ContextHistory, h)
	s.Current = nil
	// RLP-004: the next iteration's prompt carries the resume context.
	if p, err := os.ReadFile(r.path(PromptFile)); err == nil || errors.Is(err, os.ErrNotExist) {
		next := WithResume(string(p), ResumeSection(cc, cur.Iteration))
		if next != string(p) && (len(p) > 0 || cc.Active) {
			if err := os.WriteFile(r.path(PromptFile), []byte(next), 0o644); err != nil {
				r.progress("cannot write %s: %v", PromptFile, err)
			}
		}
	}
	if h.Checkpoint {
		r.progress("iteration %d ended at %d%% with a checkpoint (handoff %s) · %s", cur.Iteration, res.CrossedAt, orNone(cc.HandoffFile), r.totals(*s))
	} else {
		r.progress("iteration %d %s · peak %d%% · %s", cur.Iteration, res.Outcome, res.PeakPercent, r.totals(*s))
	}
}

func (r *Runner) totals(s State) string {
	return fmt.Sprintf("%s tokens, $%.2f so far", kilo(s.Tokens), s.CostUSD)
}

func (r *Runner) save(s *State) error {
	s.UpdatedAt = r.now()
	return Save(r.path(StateFile), *s)
}

func (r *Runner) summary(s State) {
	checkpoints := 0
	for _, h := range s.ContextHistory {
		if h.Checkpoint {
			checkpoints++
		}
	}
	r.progress("%s (%s): %d iterations, %d ended at a checkpoint, %s", s.Status, s.StopReason, len(s.ContextHistory), checkpoints, r.totals(s))
}

func kilo(n int64) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%dk", (n+500)/1000)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
