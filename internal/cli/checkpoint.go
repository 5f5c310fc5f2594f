package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/text"
)

// checkpointCmd is `cairn checkpoint`: capture the working state now.
func checkpointCmd() command {
	return command{
		args:    "[--session ID | --transcript PATH] [--json]",
		summary: "capture the working state of the session now, as the hooks do before a compaction",
		setup: func(fs *flag.FlagSet) runFunc {
			sf := addSessionFlags(fs)
			asJSON := fs.Bool("json", false, "print the checkpoint as JSON")
			return func(ctx context.Context, a *App, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				e, p, err := a.locateSession(sf)
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				c, err := e.keeper.Capture(ctx, e.root, p, "manual")
				if err != nil {
					return dbError(err)
				}
				if *asJSON {
					return writeJSON(a.Stdout, c)
				}
				fmt.Fprintf(a.Stdout, "checkpoint %d saved: %s\n", c.ID, c.Summary())
				fmt.Fprintf(a.Stdout, "see it with: cairn show checkpoint %d\n", c.ID)
				return nil
			}
		},
	}
}

// checkpointLine is a line of `cairn checkpoints --json`.
type checkpointLine struct {
	ID        int64     `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	Trigger   string    `json:"trigger"`
	SessionID string    `json:"session_id"`
	Tokens    int64     `json:"context_tokens"`
	Task      string    `json:"task"`
}

// checkpointsCmd is `cairn checkpoints`: this project's checkpoints.
func checkpointsCmd() command {
	return command{
		args:    "[--json] [-n N]",
		summary: "list this project's checkpoints, the latest first",
		setup: func(fs *flag.FlagSet) runFunc {
			asJSON := fs.Bool("json", false, "print JSON")
			n := fs.Int("n", 20, "list the latest `N` checkpoints")
			return func(ctx context.Context, a *App, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				return a.checkpoints(ctx, *n, *asJSON)
			}
		},
	}
}

func (a *App) checkpoints(ctx context.Context, n int, asJSON bool) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	db, err := e.keeper.DB(ctx)
	if err != nil {
		return dbError(err)
	}
	recs, err := db.Checkpoints(ctx, e.root, n)
	if err != nil {
		return dbError(err)
	}
	lines := []checkpointLine{}
	for _, r := range recs {
		lines = append(lines, checkpointLine{ID: r.ID, CreatedAt: r.CreatedAt, Trigger: r.Trigger, SessionID: r.SessionID, Tokens: r.ContextTokens, Task: r.Task})
	}
	if asJSON {
		return writeJSON(a.Stdout, lines)
	}
	if len(lines) == 0 {
		fmt.Fprintf(a.Stdout, "no checkpoints yet for %s (cairn checkpoint takes one; the hooks take them at compaction and session end)\n", e.root)
		return nil
	}
	fmt.Fprintf(a.Stdout, "%5s  %-16s  %-18s  %-8s  %8s  %s\n", "ID", "TAKEN", "TRIGGER", "SESSION", "CONTEXT", "TASK")
	for _, l := range lines {
		fmt.Fprintf(a.Stdout, "%5d  %-16s  %-18s  %-8s  %8s  %s\n", l.ID, l.CreatedAt.In(a.Loc).Format("2006-01-02 15:04"), l.Trigger, short(l.SessionID), meter.Thousands(l.Tokens), text.ClipLine(l.Task, 70))
	}
	return nil
}

// showCmd is `cairn show checkpoint [ID]`.
func showCmd() command {
	return command{
		args:     "checkpoint [ID] [--session ID] [--json]",
		summary:  "print a checkpoint (default: the project's latest, or the session's) as Markdown",
		words:    []string{"checkpoint"},
		wordsAre: "what it shows",
		setup: func(fs *flag.FlagSet) runFunc {
			asJSON := fs.Bool("json", false, "print JSON")
			session := fs.String("session", "", "the latest checkpoint of the session with this `ID` (or a unique prefix)")
			return func(ctx context.Context, a *App, args []string) error {
				switch {
				case len(args) == 0:
					return usageErrorf("say what to show: cairn show checkpoint [ID]")
				case args[0] != "checkpoint":
					return unknownWord("thing to show", args[0], []string{"checkpoint"})
				case len(args) > 2:
					return usageErrorf("unexpected argument %q", args[2])
				}
				return a.show(ctx, args[1:], *session, *asJSON)
			}
		},
	}
}

func (a *App) show(ctx context.Context, args []string, session string, asJSON bool) error {
	var id int64
	if len(args) == 1 {
		var err error
		if id, err = strconv.ParseInt(args[0], 10, 64); err != nil {
			return usageErrorf("%q is not a checkpoint id (a number, as cairn checkpoints lists them)", args[0])
		}
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	db, err := e.keeper.DB(ctx)
	if err != nil {
		return dbError(err)
	}
	var rec sqlite.Checkpoint
	switch {
	case len(args) == 1:
		rec, err = db.Checkpoint(ctx, id)
	default:
		rec, err = db.LatestCheckpoint(ctx, e.root, session)
	}
	if errors.Is(err, sqlite.ErrNotFound) {
		return withHint(errors.New("no such checkpoint"), "cairn checkpoints lists this project's checkpoints")
	}
	if err != nil {
		return dbError(err)
	}
	c, err := continuity.FromRecord(rec)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(a.Stdout, c)
	}
	fmt.Fprint(a.Stdout, c.Markdown())
	return nil
}

// resumeCmd is `cairn resume`: the project's newest handoff and latest
// checkpoint, whichever client wrote them, as text for a session of the
// client --agent names.
func resumeCmd() command {
	return command{
		args:    "[--agent NAME] [--hook] [--json]",
		summary: "print the project's newest handoff and latest checkpoint, from any client's session, as text to continue from in this client",
		details: `The handoff and the checkpoint may come from a session of any client: the
text says which client and session each came from, and is framed for the
client --agent names (default claude-code), the one that reads it. --hook
prints it as that client's hook answer at session start, the JSON its
SessionStart hook would print, to check what its model would be given.`,
		setup: func(fs *flag.FlagSet) runFunc {
			agent := fs.String("agent", "claude-code", "the client the text is for, `NAME`: "+strings.Join(hook.AgentNames(), ", ")+" (claude for claude-code)")
			asHook := fs.Bool("hook", false, "print the text as the client's session-start hook answer")
			asJSON := fs.Bool("json", false, "print JSON")
			return func(ctx context.Context, a *App, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				ag, ok := hook.AgentNamed(*agent)
				if !ok {
					return unknownWord("agent", *agent, hook.AgentNames())
				}
				if *asHook && *asJSON {
					return usageErrorf("give --hook or --json, not both")
				}
				return a.resume(ctx, ag, *asHook, *asJSON)
			}
		},
	}
}

// resumeView is `cairn resume --json`.
type resumeView struct {
	// Agent is the client the text is framed for.
	Agent string `json:"agent"`
	continuity.Handover
	// Resume is the whole text, as the client's session gets it.
	Resume string `json:"resume"`
}

func (a *App) resume(ctx context.Context, ag hook.Agent, asHook, asJSON bool) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	h, err := e.keeper.Handover(ctx, e.root)
	if errors.Is(err, continuity.ErrNoWork) {
		return withHint(fmt.Errorf("no checkpoint or handoff for %s yet", e.root), "checkpoints are taken at compaction and session end once `cairn install` has wired the hooks; `cairn checkpoint` or `cairn handoff` takes one now")
	}
	if err != nil {
		return dbError(err)
	}
	if h.HandoffClient == "" && h.HandoffSession != "" {
		// A handoff written before cairn recorded the client: the
		// project's sessions tell.
		all, _ := hook.AllSessions(a.Getenv, e.root)
		for _, f := range all {
			if f.ID == h.HandoffSession {
				h.HandoffClient = f.Agent
				break
			}
		}
	}
	text := h.Text(ag.Name)
	switch {
	case asJSON:
		return writeJSON(a.Stdout, resumeView{Agent: ag.Name, Handover: h, Resume: text})
	case asHook:
		out := ag.Context(ag.StartEvent, text)
		if out == "" {
			return fmt.Errorf("%s's %s hook gives its model nothing", ag.Title(), ag.StartEvent)
		}
		fmt.Fprint(a.Stdout, out)
		return nil
	}
	fmt.Fprint(a.Stdout, text)
	return nil
}

// dbError words a failure of the database for the user.
func dbError(err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return withHint(err, "check the file's permissions")
	}
	return withHint(err, "if the database is locked by a hung process, retry; if it is damaged, move it aside and cairn starts a new one")
}
