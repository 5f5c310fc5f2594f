package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/estimate"
	"github.com/cairn-agent/cairn/internal/handoff"
	"github.com/cairn-agent/cairn/internal/loop"
	"github.com/cairn-agent/cairn/internal/tracker"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// ralphCommand is the /ralph slash command `cairn loop init` writes
// (RLP-007, RLP-008).
const ralphCommand = `---
description: "cairn loop: context (where the loop stands) or checkpoint (end this iteration with a checkpoint)"
argument-hint: context | checkpoint
allowed-tools: Bash(cairn loop slash:*)
---
!` + "`cairn loop slash $ARGUMENTS`" + `
`

func loopCmd() command {
	return command{
		args: "[run | init | status | checkpoint] [--max-iterations N] [--max-tokens N] [--max-cost USD] [--max-failures N] " +
			"[--grace D] [--marker TEXT] [--json] [-- AGENT-ARGS...]",
		summary:  "run the agent in iterations over fix_plan.md, each a fresh session that ends with a checkpoint at L2 (seed 003's Ralph loop)",
		words:    []string{"run", "init", "status", "checkpoint", "slash"},
		wordsAre: "subcommands",
		details: `cairn loop init writes PROMPT.md, fix_plan.md and the /ralph slash command. cairn loop (or
loop run) then runs claude -p with PROMPT.md and the plan's first open item, one session per
iteration, until every item is ticked, the agent prints <promise>COMPLETE</promise>, or a
ceiling is reached; its state is ralph-state.json. An iteration whose context reaches L2 is let
finish its edit (--grace, 60 s), then ended with a checkpoint and a handoff, and the next
iteration's PROMPT.md carries where it stopped. Ctrl+C ends the iteration the same way and stops.
Arguments after -- go to claude (e.g. -- --permission-mode acceptEdits).
cairn loop status shows the state; cairn loop checkpoint ends the running iteration with a
checkpoint (or, with no loop running, checkpoints the last iteration's session for the next).`,
		setup: func(fs *flag.FlagSet) runFunc {
			maxIter := fs.Int("max-iterations", 0, "stop after `N` iterations in all (0: no limit)")
			maxTokens := fs.Int64("max-tokens", 0, "stop once the iterations used `N` tokens")
			maxCost := fs.Float64("max-cost", 0, "stop once the iterations cost `USD` dollars")
			maxFail := fs.Int("max-failures", 3, "stop after `N` failed iterations in a row")
			grace := fs.Duration("grace", 60*time.Second, "how long an iteration at L2 may go on to finish its edit (`D`)")
			marker := fs.String("marker", loop.DefaultMarker, "the `TEXT` the agent prints when the plan is done")
			asJSON := fs.Bool("json", false, "status: print the state as JSON")
			return func(ctx context.Context, a *App, args []string) error {
				verb := "run"
				var agentArgs []string
				// The flag parser takes the -- before the agent's
				// arguments when they come first; after a verb it is
				// left.
				for i, arg := range args {
					if arg == "--" || strings.HasPrefix(arg, "-") {
						agentArgs = args[i:]
						if arg == "--" {
							agentArgs = args[i+1:]
						}
						args = args[:i]
						break
					}
				}
				if len(args) > 0 {
					verb = args[0]
				}
				switch verb {
				case "run", "init", "status", "checkpoint":
					if len(args) > 1 {
						return usageErrorf("unexpected argument %q", args[1])
					}
				case "slash":
					if len(args) != 2 || (args[1] != "context" && args[1] != "checkpoint") {
						return usageErrorf("cairn loop slash context | checkpoint")
					}
				default:
					err := usageErrorf("unexpected argument %q: use run, init, status or checkpoint", verb)
					if s := suggest(verb, []string{"run", "init", "status", "checkpoint"}); s != "" {
						err = addHint(err, fmt.Sprintf("did you mean %q?", s))
					}
					return err
				}
				e, err := a.env()
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				switch verb {
				case "init":
					return a.loopInit(e)
				case "status":
					return a.loopStatus(e, *asJSON)
				case "checkpoint":
					return a.loopCheckpoint(ctx, e)
				case "slash":
					if args[1] == "context" {
						return a.loopStatus(e, false)
					}
					return a.loopCheckpoint(ctx, e)
				}
				conf, _ := config.Load(e.root)
				r := &loop.Runner{Dir: e.root, Args: agentArgs, MaxIterations: *maxIter, MaxTokens: *maxTokens,
					MaxCostUSD: *maxCost, MaxFailures: *maxFail, Marker: *marker, Levels: conf.Pressure, Grace: *grace,
					Progress: a.Stderr, Now: a.Now}
				if c := a.Getenv("CAIRN_LOOP_AGENT"); c != "" {
					r.Command = strings.Fields(c)
				}
				r.Window = func(model string) (int64, int64) {
					w, _ := e.settings.ContextWindow(&transcript.Session{Model: model})
					return w, e.settings.CompactAt(w)
				}
				r.Checkpoint = a.loopCheckpointer(e, conf)
				r.Tickets = &loopTickets{q: a.trackerQueue(e), conf: conf, project: e.root, now: a.Now, drain: func() error {
					exe, err := a.Executable()
					if err != nil {
						return err
					}
					return tracker.StartDrainer(exe, nil)
				}}
				r.Estimate = func(spec string) estimate.Advice {
					m, err := estimate.ProjectModel(e.stateDir, e.root)
					if err != nil {
						m = estimate.Default()
					}
					w, _ := e.settings.ContextWindow(&transcript.Session{})
					t := e.settings.CompactAt(w)
					return estimate.Advise(spec, m, estimate.Budget{Threshold: t, Fresh: t})
				}
				// A manual checkpoint (cairn loop checkpoint) arrives as
				// SIGUSR1; Ctrl+C and SIGTERM end the iteration with a
				// checkpoint and stop.
				now := make(chan struct{}, 1)
				usr := make(chan os.Signal, 1)
				if loop.CheckpointSignal != nil {
					signal.Notify(usr, loop.CheckpointSignal)
					defer signal.Stop(usr)
				}
				go func() {
					for range usr {
						select {
						case now <- struct{}{}:
						default:
						}
					}
				}()
				r.CheckpointNow = now
				ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
				defer stop()
				s, err := r.Run(ctx)
				if err != nil {
					return err
				}
				if s.Status == "failed" {
					return fmt.Errorf("the loop failed: %s", s.StopReason)
				}
				return nil
			}
		},
	}
}

// loopTickets makes the shards of the loop's oversized items sub-issues
// of the project's bound ticket (cairn bind) and tells it their
// progress, through the tracker's queue and a detached drainer.
type loopTickets struct {
	q       tracker.Queue
	conf    config.Config
	project string
	now     func() time.Time
	drain   func() error
}

func (t *loopTickets) Shard(item string, shards []string) (string, []string, error) {
	parent := t.q.Bound(t.project)
	if t.conf.Tracker == "" || parent == "" {
		return "", nil, nil
	}
	ups := tracker.Shards{Tracker: t.conf.Tracker, Issue: parent, Project: t.project, Repo: t.conf.TrackerRepo,
		Item: item, Titles: shards, Time: t.now()}.Updates()
	var keys []string
	for _, u := range ups {
		if _, err := t.q.Add(u); err != nil {
			return "", nil, fmt.Errorf("queue the sub-issues of %s: %w", parent, err)
		}
		keys = append(keys, u.Key)
	}
	return parent, keys, t.startDrainer()
}

func (t *loopTickets) Created(key string) (string, bool) { return t.q.Created(key) }

func (t *loopTickets) Done(sh loop.ShardTicket, done, total int, tickets []string) error {
	d := tracker.ShardDone{Tracker: t.conf.Tracker, Issue: sh.Parent, Project: t.project, Repo: t.conf.TrackerRepo,
		Ref: sh.Key, Title: sh.Item, Done: done, Total: total, Item: sh.Of, Tickets: tickets, Time: t.now()}
	for _, u := range d.Updates() {
		if _, err := t.q.Add(u); err != nil {
			return fmt.Errorf("queue the progress of %s: %w", sh.Parent, err)
		}
	}
	return t.startDrainer()
}

func (t *loopTickets) startDrainer() error {
	if err := t.drain(); err != nil {
		return fmt.Errorf("start the drainer: %w (the updates wait for cairn tracker drain)", err)
	}
	return nil
}

// loopCheckpointer takes a checkpoint of an iteration's session and
// writes its handoff.
func (a *App) loopCheckpointer(e *env, conf config.Config) func(ctx context.Context, id, trigger string, level int) (loop.Checkpointed, error) {
	return func(ctx context.Context, id, trigger string, level int) (loop.Checkpointed, error) {
		f, err := claudecode.FindSession(e.configDir, e.projectDir, id)
		if err != nil {
			return loop.Checkpointed{}, fmt.Errorf("session %s: %w", id, err)
		}
		c, err := e.keeper.Capture(ctx, e.root, f.Path, trigger)
		if err != nil {
			return loop.Checkpointed{}, err
		}
		out := loop.Checkpointed{Summary: c.Summary()}
		for _, fl := range c.Files {
			if !fl.Deleted {
				out.Files = append(out.Files, fl.Path)
			}
		}
		p, err := handoff.Write(e.root, c, handoff.Input{Project: e.root, Now: a.Now, Loc: a.Loc, Level: level, Pressure: conf.Pressure})
		if err != nil {
			return out, err
		}
		if rel, err := filepath.Rel(e.root, p); err == nil {
			p = rel
		}
		out.Handoff = p
		return out, nil
	}
}

func (a *App) loopInit(e *env) error {
	for name, text := range loop.Templates(a.Now()) {
		p := filepath.Join(e.root, name)
		if _, err := os.Stat(p); err == nil {
			fmt.Fprintf(a.Stdout, "kept %s (it exists)\n", name)
			continue
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(a.Stdout, "wrote %s\n", name)
	}
	cmd := filepath.Join(e.root, ".claude", "commands", "ralph.md")
	if _, err := os.Stat(cmd); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(cmd), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(cmd, []byte(ralphCommand), 0o644); err != nil {
			return err
		}
		fmt.Fprintln(a.Stdout, "wrote .claude/commands/ralph.md (/ralph context, /ralph checkpoint)")
	}
	fmt.Fprintln(a.Stdout, "edit PROMPT.md and fix_plan.md, then: cairn loop -- --permission-mode acceptEdits")
	return nil
}

func (a *App) loopStatus(e *env, asJSON bool) error {
	s, err := loop.Load(filepath.Join(e.root, loop.StateFile))
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(a.Stdout, s)
	}
	if s.Status == "" {
		fmt.Fprintf(a.Stdout, "no loop has run in %s (cairn loop init, then cairn loop)\n", e.root)
		return nil
	}
	plan, _ := os.ReadFile(filepath.Join(e.root, loop.PlanFile))
	items := loop.ParsePlan(string(plan))
	done := 0
	for _, it := range items {
		if it.Done {
			done++
		}
	}
	status := s.Status
	if s.StopReason != "" {
		status += " (" + s.StopReason + ")"
	}
	if s.Current != nil && !loop.Alive(s.Current.PID) {
		status += "; its iteration " + fmt.Sprint(s.Current.Iteration) + " was interrupted and resumes on the next cairn loop"
	}
	fmt.Fprintf(a.Stdout, "loop      %s\n", status)
	fmt.Fprintf(a.Stdout, "plan      %d of %d items ticked\n", done, len(items))
	fmt.Fprintf(a.Stdout, "iteration %d · %d tokens · $%.2f\n", s.Iteration, s.Tokens, s.CostUSD)
	if s.Current != nil {
		fmt.Fprintf(a.Stdout, "current   iteration %d · %s · session %s\n", s.Current.Iteration, s.Current.Item, orDash(s.Current.SessionID))
	}
	if c := s.ContextCheckpoint; c.Active {
		fmt.Fprintf(a.Stdout, "resume    from %s at %d%% · handoff %s · item %s\n", c.Level, c.PercentAtCheckpoint, orDash(c.HandoffFile), c.CurrentTodoItem)
	}
	if len(s.Shards) > 0 {
		// The shards' sub-issues (SHD-003), by the ticket they are of.
		done, tickets := 0, []string{}
		for _, sh := range s.Shards {
			if sh.Done {
				done++
			}
			tickets = append(tickets, orDash(sh.Ticket))
		}
		fmt.Fprintf(a.Stdout, "shards    %d of %d done · sub-issues of %s: %s\n", done, len(s.Shards), s.Shards[0].Parent, strings.Join(tickets, ", "))
	}
	for _, h := range s.ContextHistory {
		mark := ""
		if h.Checkpoint {
			mark = " · checkpoint"
		}
		fmt.Fprintf(a.Stdout, "  #%d %s · peak %d%%%s · %s\n", h.Iteration, h.Outcome, h.PeakPercent, mark, h.Item)
	}
	return nil
}

// loopCheckpoint asks the running loop to end its iteration with a
// checkpoint; with none running, it checkpoints the last iteration's
// session so that the next iteration resumes from it.
func (a *App) loopCheckpoint(ctx context.Context, e *env) error {
	path := filepath.Join(e.root, loop.StateFile)
	s, err := loop.Load(path)
	if err != nil {
		return err
	}
	if s.Current != nil && loop.Alive(s.Current.PID) {
		if err := loop.AskCheckpoint(s.Current.PID); err != nil {
			return fmt.Errorf("signal the loop (pid %d): %w", s.Current.PID, err)
		}
		fmt.Fprintf(a.Stdout, "asked the loop to end iteration %d with a checkpoint once the agent finishes its edit\n", s.Current.Iteration)
		return nil
	}
	n := len(s.ContextHistory)
	if n == 0 || s.ContextHistory[n-1].SessionID == "" {
		return withHint(errors.New("no loop iteration to checkpoint"), "cairn loop status shows the loop")
	}
	last := s.ContextHistory[n-1]
	conf, _ := config.Load(e.root)
	c, err := a.loopCheckpointer(e, conf)(ctx, last.SessionID, "loop-manual", 0)
	if err != nil {
		return err
	}
	t := a.Now()
	s.ContextCheckpoint = loop.ContextCheckpoint{Active: true, Level: "manual", PercentAtCheckpoint: last.PeakPercent, Timestamp: &t,
		HandoffFile: c.Handoff, ResumeSummary: c.Summary, CurrentTodoItem: last.Item, SessionID: last.SessionID}
	for _, f := range c.Files {
		s.ContextCheckpoint.FilesInProgress = append(s.ContextCheckpoint.FilesInProgress, loop.FileInProgress{Path: f})
	}
	if err := loop.Save(path, s); err != nil {
		return err
	}
	pf := filepath.Join(e.root, loop.PromptFile)
	p, _ := os.ReadFile(pf)
	if err := os.WriteFile(pf, []byte(loop.WithResume(string(p), loop.ResumeSection(s.ContextCheckpoint, last.Iteration))), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(a.Stdout, "checkpoint of iteration %d taken (handoff %s); the next iteration resumes from it\n", last.Iteration, orDash(c.Handoff))
	return nil
}
