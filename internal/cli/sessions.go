package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

type sessionLine struct {
	SessionID string `json:"session_id"`
	// Client is the program the session ran in: claude-code, codex.
	Client       string     `json:"client"`
	Transcript   string     `json:"transcript"`
	LastActivity *time.Time `json:"last_activity"`
	Tokens       int64      `json:"tokens"`
	PctWindow    float64    `json:"percent_of_window"`
	Turns        int        `json:"turns"`
	Compactions  int        `json:"compactions"`
	FirstPrompt  string     `json:"first_prompt"`
	Error        string     `json:"error,omitempty"`
}

func sessionsCmd() command {
	return command{
		args:    "[--json] [-n N]",
		summary: "list this project's recent sessions of every client: last activity, context, turns, compactions",
		setup: func(fs *flag.FlagSet) runFunc {
			asJSON := fs.Bool("json", false, "print JSON")
			n := fs.Int("n", 20, "list the latest `N` sessions")
			return func(_ context.Context, a *App, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				return a.sessions(*n, *asJSON)
			}
		},
	}
}

func (a *App) sessions(n int, asJSON bool) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	// Claude Code's folder through the listing its hooks keep: one read,
	// not a stat a transcript (a thousand of them in a long-lived project).
	l := &claudecode.Listing{Dir: claudecode.ListingDir(e.keeper.State.Dir), Now: a.Now, Limit: max(n, 0)}
	files, err := hook.AllSessionsListed(a.Getenv, e.root, l)
	if err != nil && len(files) == 0 {
		return withHint(fmt.Errorf("cannot list the sessions: %w", err), "check the folders' permissions")
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "cairn: warning: %v\n", err)
	}
	if len(files) > n && n > 0 {
		files = files[:n]
	}
	lines := []sessionLine{}
	seen := readSeenLines(e.stateDir, e.root)
	kept := seenLines{Lines: map[string]seenLine{}}
	fps := map[string]string{} // the rules' fingerprint by client
	for _, f := range files {
		fp, ok := fps[f.Agent]
		if !ok {
			rules := e.rules(f.Agent, 0)
			fp = fmt.Sprintf("%T %+v", rules, rules)
			fps[f.Agent] = fp
		}
		if c, ok := seen.Lines[f.Path]; ok && c.MTime == f.ModTime.UnixNano() && c.Rules == fp && c.Line.Client == f.Agent {
			lines = append(lines, c.Line)
			kept.Lines[f.Path] = c
			continue
		}
		l := sessionLine{SessionID: f.ID, Client: f.Agent, Transcript: f.Path}
		s, err := a.load(e, f.Path, false)
		if err != nil {
			l.Error = err.Error()
			lines = append(lines, l)
			continue
		}
		if s.SessionID != "" {
			l.SessionID = s.SessionID
		}
		r, _ := meter.Measure(s, e.rules(s.Client, 0))
		l.Tokens, l.PctWindow, l.Turns, l.Compactions = r.Tokens, r.PctWindow, s.NumTurns(), len(s.Compactions)
		if !s.LastTime.IsZero() {
			t := s.LastTime
			l.LastActivity = &t
		}
		if len(s.Prompts) > 0 {
			l.FirstPrompt = s.Prompts[0].Text
		}
		lines = append(lines, l)
		// A transcript written to within racyWindow may be written to
		// again in the same tick of the file system's clock, with the
		// same mtime: its line is read again next time.
		if s.Client == f.Agent && a.Now().Sub(f.ModTime) > racyWindow {
			kept.Lines[f.Path] = seenLine{MTime: f.ModTime.UnixNano(), Rules: fp, Line: l}
		}
	}
	if !maps.EqualFunc(seen.Lines, kept.Lines, func(x, y seenLine) bool { return x.MTime == y.MTime && x.Rules == y.Rules }) {
		kept.write(e.stateDir, e.root) // a cache that cannot be written is read again next time
	}
	if asJSON {
		return writeJSON(a.Stdout, lines)
	}
	if len(lines) == 0 {
		fmt.Fprintf(a.Stdout, "no sessions yet for %s (of %s; Claude Code's looked for in %s)\n", e.cwd, clientTitles("or"), e.projectDir)
		return nil
	}
	fmt.Fprintf(a.Stdout, "%-8s  %-11s  %-16s  %7s  %5s  %7s  %s\n", "SESSION", "CLIENT", "LAST ACTIVITY", "CONTEXT", "TURNS", "COMPACT", "FIRST PROMPT")
	for _, l := range lines {
		when := "-"
		if l.LastActivity != nil {
			when = l.LastActivity.In(a.Loc).Format("2006-01-02 15:04")
		}
		client := transcript.ClientTitle(l.Client)
		if l.Error != "" {
			fmt.Fprintf(a.Stdout, "%-8s  %-11s  %-16s  unreadable: %s\n", short(l.SessionID), client, when, l.Error)
			continue
		}
		fmt.Fprintf(a.Stdout, "%-8s  %-11s  %-16s  %6.1f%%  %5d  %7d  %s\n", short(l.SessionID), client, when, l.PctWindow, l.Turns, l.Compactions, text.ClipLine(l.FirstPrompt, 60))
	}
	return nil
}

// seenLines are the lines cairn sessions printed last in a project, by
// transcript, each with the transcript's mtime and the meter's rules it was
// measured with: a transcript appended to has a new mtime, so an unchanged
// one is not read again (its saved state, what was appended, the check
// that it is the same file), which was most of the time of a listing of
// 20 sessions. The listing itself orders them (claudecode.Listing).
type seenLines struct {
	Lines map[string]seenLine `json:"lines"`
}

type seenLine struct {
	MTime int64       `json:"mtime"`
	Rules string      `json:"rules"`
	Line  sessionLine `json:"line"`
}

// racyWindow is as claudecode's: more than the coarsest file-system clock
// tick.
const racyWindow = 2 * time.Second

func seenLinesFile(stateDir, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(claudecode.ListingDir(stateDir), "lines-"+hex.EncodeToString(sum[:8])+".json")
}

func readSeenLines(stateDir, root string) seenLines {
	var s seenLines
	if data, err := os.ReadFile(seenLinesFile(stateDir, root)); err == nil {
		if json.Unmarshal(data, &s) != nil {
			s = seenLines{}
		}
	}
	return s
}

func (s seenLines) write(stateDir, root string) error {
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	file := seenLinesFile(stateDir, root)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	return state.WriteAtomic(file, data, false)
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
