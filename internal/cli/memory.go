package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/memory"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// searchCmd is `cairn search WORDS`: the compact index of the observations
// that answer them, best first; timeline and get show more.
func searchCmd() command {
	return command{
		args:    "WORDS... [--all] [--kind KIND,...] [--file PATH] [--since 7d|DATE] [-n N] [--json]",
		summary: "search the memory of past sessions (this project's unless --all); cairn get ID shows an entry",
		details: "Kinds: " + strings.Join(memory.Kinds, ", ") + ".",
		setup: func(fs *flag.FlagSet) runFunc {
			all := fs.Bool("all", false, "search every project")
			kinds := fs.String("kind", "", "only these `KIND`s, comma-separated")
			file := fs.String("file", "", "only observations about a file whose path contains `PATH`")
			since := fs.String("since", "", "only observations since `WHEN`: a duration (7d, 12h) or a date (2026-11-01)")
			n := fs.Int("n", 10, "at most `N` results")
			asJSON := fs.Bool("json", false, "print JSON")
			return func(ctx context.Context, a *App, args []string) error {
				if len(args) == 0 {
					return usageErrorf("give the words to search for")
				}
				q := memory.Query{Text: strings.Join(args, " "), Limit: *n}
				if *kinds != "" {
					for _, k := range strings.Split(*kinds, ",") {
						q.Kinds = append(q.Kinds, strings.TrimSpace(k))
					}
				}
				if *file != "" {
					q.Files = []string{*file}
				}
				if *since != "" {
					t, err := parseSince(*since, a.Now())
					if err != nil {
						return err
					}
					q.Since = t
				}
				e, m, err := a.memory(ctx)
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				if !*all {
					q.Project = e.root
				}
				hits, err := m.Search(ctx, q)
				if err != nil {
					return err
				}
				if *asJSON {
					if hits == nil {
						hits = []memory.Hit{}
					}
					return writeJSON(a.Stdout, hits)
				}
				if len(hits) == 0 {
					fmt.Fprintln(a.Stdout, "nothing found")
					return nil
				}
				for _, h := range hits {
					fmt.Fprintf(a.Stdout, "#%-5d %s  %-10s %s\n", h.ID, h.Time.In(a.Loc).Format("2006-01-02 15:04"), h.Kind, text.ClipLine(h.Title, 100))
					if h.Snippet != "" {
						fmt.Fprintf(a.Stdout, "       %s\n", text.ClipLine(text.OneLine(h.Snippet), 110))
					}
				}
				return nil
			}
		},
	}
}

// timelineCmd is `cairn timeline ID`: what was observed around one entry.
func timelineCmd() command {
	return command{
		args:    "ID [--before N] [--after N] [--json]",
		summary: "the observations made just before and after one (of its session, or its project)",
		setup: func(fs *flag.FlagSet) runFunc {
			before := fs.Int("before", 5, "`N` observations before it")
			after := fs.Int("after", 5, "`N` observations after it")
			asJSON := fs.Bool("json", false, "print JSON")
			return func(ctx context.Context, a *App, args []string) error {
				ids, err := parseIDs(args, 1)
				if err != nil {
					return err
				}
				e, m, err := a.memory(ctx)
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				obs, err := m.Timeline(ctx, ids[0], *before, *after)
				if errors.Is(err, sqlite.ErrNotFound) {
					return addHint(fmt.Errorf("no observation #%d", ids[0]), "cairn search WORDS finds one")
				}
				if err != nil {
					return err
				}
				if *asJSON {
					return writeJSON(a.Stdout, obs)
				}
				for _, o := range obs {
					mark := " "
					if o.ID == ids[0] {
						mark = ">"
					}
					fmt.Fprintf(a.Stdout, "%s #%-5d %s  %-10s %s\n", mark, o.ID, o.Time.In(a.Loc).Format("2006-01-02 15:04"), o.Kind, text.ClipLine(o.Title, 100))
				}
				return nil
			}
		},
	}
}

// getCmd is `cairn get ID...`: whole entries.
func getCmd() command {
	return command{
		args:    "ID... [--json]",
		summary: "print whole observations by their ids (from search or timeline)",
		setup: func(fs *flag.FlagSet) runFunc {
			asJSON := fs.Bool("json", false, "print JSON")
			return func(ctx context.Context, a *App, args []string) error {
				ids, err := parseIDs(args, 0)
				if err != nil {
					return err
				}
				e, m, err := a.memory(ctx)
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				obs, err := m.Get(ctx, ids...)
				if err != nil {
					return err
				}
				if len(obs) < len(ids) && !*asJSON {
					fmt.Fprintf(a.Stderr, "cairn: warning: %d of the ids are not kept (forgotten, or never were)\n", len(ids)-len(obs))
				}
				views := a.withClients(obs)
				if *asJSON {
					return writeJSON(a.Stdout, views)
				}
				for i, o := range views {
					if i > 0 {
						fmt.Fprintln(a.Stdout)
					}
					printObservation(a.Stdout, o, a.Loc)
				}
				return nil
			}
		},
	}
}

// rememberCmd is `cairn remember TEXT`: a note kept by hand.
func rememberCmd() command {
	return command{
		args:    "TEXT... [--json]",
		summary: "keep a note in this project's memory (redacted; <private> text is never kept)",
		setup: func(fs *flag.FlagSet) runFunc {
			asJSON := fs.Bool("json", false, "print JSON")
			return func(ctx context.Context, a *App, args []string) error {
				if len(args) == 0 {
					return usageErrorf("give the text to remember")
				}
				e, m, err := a.memory(ctx)
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				o, err := m.Remember(ctx, e.root, "", strings.Join(args, " "))
				if err != nil {
					return err
				}
				if *asJSON {
					return writeJSON(a.Stdout, o)
				}
				fmt.Fprintf(a.Stdout, "remembered as #%d: %s\n", o.ID, o.Title)
				return nil
			}
		},
	}
}

// forgetCmd is `cairn forget`: observations removed for good.
func forgetCmd() command {
	return command{
		args:    "(ID... | --session ID | --project | --query WORDS) [--checkpoints] [--json]",
		summary: "remove observations for good: by id, a session's, this project's, or those holding every word of a query",
		details: "Nothing is left of them in the database, its full-text index or its write-ahead log, and the same\n" +
			"content is not stored again from a later checkpoint. --checkpoints also removes the session's or\n" +
			"the project's checkpoints, which hold the text the observations came from.",
		setup: func(fs *flag.FlagSet) runFunc {
			session := fs.String("session", "", "the observations of session `ID`")
			project := fs.Bool("project", false, "every observation of this project")
			query := fs.String("query", "", "this project's observations holding every one of `WORDS`")
			checkpoints := fs.Bool("checkpoints", false, "with --session or --project: remove the checkpoints too")
			asJSON := fs.Bool("json", false, "print JSON")
			return func(ctx context.Context, a *App, args []string) error {
				var f memory.Forget
				chosen := 0
				if len(args) > 0 {
					ids, err := parseIDs(args, 0)
					if err != nil {
						return err
					}
					f.IDs = ids
					chosen++
				}
				if *session != "" {
					f.SessionID = *session
					chosen++
				}
				if *project {
					chosen++
				}
				if *query != "" {
					f.Query = *query
					chosen++
				}
				if chosen != 1 {
					return usageErrorf("say what to forget: ids, --session ID, --project or --query WORDS (one of them)")
				}
				if *checkpoints && f.SessionID == "" && !*project {
					return usageErrorf("--checkpoints goes with --session or --project")
				}
				e, m, err := a.memory(ctx)
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				if len(f.IDs) == 0 && f.SessionID == "" {
					f.Project = e.root
				}
				f.Checkpoints = *checkpoints
				res, err := m.Forget(ctx, f)
				if err != nil && !errors.Is(err, sqlite.ErrWALBusy) {
					return err
				}
				if *asJSON {
					return writeJSON(a.Stdout, res)
				}
				fmt.Fprintf(a.Stdout, "forgot %d observations", res.Observations)
				if f.Checkpoints {
					fmt.Fprintf(a.Stdout, " and %d checkpoints", res.Checkpoints)
				}
				fmt.Fprintln(a.Stdout)
				if err != nil {
					fmt.Fprintf(a.Stderr, "cairn: warning: %v: another process holds the database; the old pages leave its log at its next checkpoint\n", err)
				}
				return nil
			}
		},
	}
}

// memory opens the observation store for a command.
func (a *App) memory(ctx context.Context) (*env, *memory.Store, error) {
	e, err := a.env()
	if err != nil {
		return nil, nil, err
	}
	m, err := e.keeper.Memory(ctx)
	if err != nil {
		e.keeper.Close()
		return nil, nil, dbError(err)
	}
	return e, m, nil
}

// parseIDs reads observation ids ("#12" or "12"); want is how many, or 0
// for at least one.
func parseIDs(args []string, want int) ([]int64, error) {
	switch {
	case len(args) == 0:
		return nil, usageErrorf("give an observation id (cairn search shows them)")
	case want > 0 && len(args) != want:
		return nil, usageErrorf("give %d observation id, not %d arguments", want, len(args))
	}
	ids := make([]int64, 0, len(args))
	for _, s := range args {
		id, err := strconv.ParseInt(strings.TrimPrefix(s, "#"), 10, 64)
		if err != nil || id <= 0 {
			return nil, usageErrorf("%q is not an observation id", s)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// parseSince reads a duration back from now (30m, 12h, 7d, 2w) or a date.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	if len(s) >= 2 {
		if u, ok := unit[s[len(s)-1]]; ok {
			if n, err := strconv.Atoi(s[:len(s)-1]); err == nil && n > 0 {
				return now.Add(-time.Duration(n) * u), nil
			}
		}
	}
	return time.Time{}, usageErrorf("--since %q: give a duration (30m, 12h, 7d, 2w) or a date (2026-11-01)", s)
}

// observationView is an observation as `cairn get` shows it: with the
// client its session ran in, when the project's sessions tell.
type observationView struct {
	memory.Observation
	// Client is the program the session ran in: claude-code, codex.
	Client string `json:"client,omitempty"`
}

// withClients names the client of each observation's session, from the
// sessions its project has of every client (a session whose transcript
// is gone, or of a client cairn does not list, stays unnamed).
func (a *App) withClients(obs []memory.Observation) []observationView {
	clients := map[string]map[string]string{} // project → session → client
	views := make([]observationView, len(obs))
	for i, o := range obs {
		views[i].Observation = o
		if o.SessionID == "" || o.Project == "" {
			continue
		}
		m, ok := clients[o.Project]
		if !ok {
			m = map[string]string{}
			fs, _ := hook.AllSessions(a.Getenv, o.Project)
			for _, f := range fs {
				m[f.ID] = f.Agent
			}
			clients[o.Project] = m
		}
		views[i].Client = m[o.SessionID]
	}
	return views
}

func printObservation(w io.Writer, o observationView, loc *time.Location) {
	fmt.Fprintf(w, "#%d %s · %s\n", o.ID, o.Kind, o.Time.In(loc).Format("2006-01-02 15:04"))
	fmt.Fprintf(w, "%s\n", o.Title)
	if o.Project != "" {
		fmt.Fprintf(w, "project: %s\n", o.Project)
	}
	if o.SessionID != "" {
		fmt.Fprintf(w, "session: %s", o.SessionID)
		if o.Client != "" {
			fmt.Fprintf(w, " (%s)", transcript.ClientTitle(o.Client))
		}
		fmt.Fprintln(w)
	}
	if len(o.Files) > 0 {
		fmt.Fprintf(w, "files: %s\n", strings.Join(o.Files, ", "))
	}
	if b := strings.TrimSpace(o.Body); b != "" && b != o.Title {
		fmt.Fprintf(w, "\n%s\n", b)
	}
}
