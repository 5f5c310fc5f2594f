package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
	"github.com/cairn-agent/cairn/internal/tui"
)

// liveFor is how recently a transcript must have grown for its session to
// count as live.
const liveFor = 10 * time.Minute

func uiCmd() command {
	return command{
		args:    "[--session ID] [--all] [--once] [--interval D] [-n N] [--width N] [--height N]",
		summary: "a live terminal view of the project's sessions (or every live one): context, trend, compactions, open items",
		details: `In a terminal, ui takes the screen and follows the sessions as their
transcripts grow, reading only what was appended: up and down (or j and k)
select a session, q quits. Piped, or with --once, it prints one frame
(--width and --height size it; the terminal's own size otherwise) and
exits. Colour only when the output is a terminal and NO_COLOR is unset.`,
		setup: func(fs *flag.FlagSet) runFunc {
			id := fs.String("session", "", "show only this session: its `ID` or a unique prefix")
			all := fs.Bool("all", false, "every project's sessions that were active in the last 10 minutes")
			once := fs.Bool("once", false, "print one frame and exit")
			interval := fs.Duration("interval", time.Second, "read the transcripts again every `D` (a Go duration: 500ms, 2s)")
			n := fs.Int("n", 9, "list at most `N` sessions")
			width := fs.Int("width", 0, "with --once or piped: the frame's width in `N` cells (default $COLUMNS or 100)")
			height := fs.Int("height", 0, "with --once or piped: the frame's height in `N` lines (default $LINES or 30)")
			return func(ctx context.Context, a *App, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				if *interval < 100*time.Millisecond {
					return usageErrorf("--interval %s is too short: at least 100ms", *interval)
				}
				e, err := a.env()
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				conf, _ := config.Load(e.root) // env has warned about what it could not read
				w := &uiWatch{a: a, e: e, levels: conf.Pressure, id: *id, all: *all, n: max(*n, 1),
					cache: map[string]*watched{}}
				scope := "project " + e.root
				switch {
				case *id != "":
					scope = "session " + *id
				case *all:
					scope = "all live sessions"
				}
				in, inOK := a.Stdin.(*os.File)
				out, outOK := a.Stdout.(*os.File)
				if *once || !inOK || !outOK || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
					return a.uiOnce(w, scope, *width, *height)
				}
				return a.uiLive(ctx, w, scope, in, out, *interval)
			}
		},
	}
}

// uiOnce prints one plain frame.
func (a *App) uiOnce(w *uiWatch, scope string, width, height int) error {
	num := func(flag int, env string, def int) int {
		if flag > 0 {
			return flag
		}
		var n int
		if _, err := fmt.Sscan(a.Getenv(env), &n); err == nil && n > 0 {
			return n
		}
		return def
	}
	ss, err := w.sessions()
	v := tui.View{Sessions: ss, Scope: scope, Width: num(width, "COLUMNS", 100), Height: num(height, "LINES", 30),
		Now: a.Now(), Loc: a.Loc}
	if err != nil {
		v.Err = err.Error()
	}
	for _, l := range tui.Render(v) {
		fmt.Fprintln(a.Stdout, strings.TrimRight(l, " "))
	}
	return err
}

// uiLive runs the view on the terminal, in raw mode, and gives the
// terminal back as it found it on every way out: q, a signal, an error or
// a panic.
func (a *App) uiLive(ctx context.Context, w *uiWatch, scope string, in, out *os.File, every time.Duration) error {
	old, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return fmt.Errorf("put the terminal in raw mode: %w", err)
	}
	restore := func() { _ = term.Restore(int(in.Fd()), old) }
	defer restore()
	defer func() {
		if p := recover(); p != nil {
			io.WriteString(out, "\x1b[?25h\x1b[?1049l")
			restore()
			panic(p)
		}
	}()
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	defer stop()
	winch := make(chan os.Signal, 1)
	if len(resizeSignals) > 0 {
		signal.Notify(winch, resizeSignals...)
		defer signal.Stop(winch)
	}
	resized := make(chan struct{}, 1)
	go func() {
		for range winch {
			select {
			case resized <- struct{}{}:
			default:
			}
		}
	}()
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	colour := a.Getenv("NO_COLOR") == "" && a.Getenv("TERM") != "dumb" && a.Getenv("TERM") != ""
	t := tui.Terminal{In: in, Out: out, Resized: resized, Colour: colour,
		Size: func() (int, int, error) { return term.GetSize(int(out.Fd())) }}
	return tui.Run(ctx, t, w.sessions, tui.Options{Tick: ticker.C, Now: a.Now, Loc: a.Loc, Scope: scope})
}

// uiWatch reads the sessions the view shows and keeps each one's engine
// state between reads, so that a tick reads only what was appended.
type uiWatch struct {
	a      *App
	e      *env
	levels pressure.Config
	id     string
	all    bool
	n      int
	cache  map[string]*watched
}

// watched is one session followed: its engine state and parser.
type watched struct {
	s *transcript.Session
	p transcript.Parser
}

// files are the transcripts to show, newest first: the project's
// sessions of every client, or with all those of every project active in
// the last liveFor.
func (w *uiWatch) files() ([]hook.SessionFile, error) {
	e := w.e
	switch {
	case w.id != "":
		path, err := e.locate(w.id, "")
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		return []hook.SessionFile{{ID: w.id, Path: path, ModTime: fi.ModTime()}}, nil
	case w.all:
		dirs, _ := filepath.Glob(filepath.Join(e.configDir, "projects", "*"))
		var live []hook.SessionFile
		now := w.a.Now()
		for _, d := range dirs {
			fs, _ := claudecode.Sessions(d)
			for _, f := range fs {
				if now.Sub(f.ModTime) <= liveFor {
					live = append(live, hook.SessionFile{Agent: hook.ClaudeCode().Name, ID: f.ID, Path: f.Path, ModTime: f.ModTime})
				}
			}
		}
		// The other clients' sessions of every directory ("/" holds
		// them all); Claude Code keeps none for "/".
		others, _ := hook.AllSessions(w.a.Getenv, string(filepath.Separator))
		for _, f := range others {
			if f.Agent != hook.ClaudeCode().Name && now.Sub(f.ModTime) <= liveFor {
				live = append(live, f)
			}
		}
		sort.SliceStable(live, func(i, j int) bool { return live[i].ModTime.After(live[j].ModTime) })
		return live[:min(len(live), w.n)], nil
	default:
		fs, err := hook.AllSessions(w.a.Getenv, e.root)
		if err != nil && len(fs) == 0 {
			return nil, fmt.Errorf("cannot list the sessions: %w", err)
		}
		return fs[:min(len(fs), w.n)], nil
	}
}

// sessions reads every session shown up to date.
func (w *uiWatch) sessions() ([]tui.Session, error) {
	files, err := w.files()
	if err != nil {
		return nil, err
	}
	var out []tui.Session
	seen := map[string]bool{}
	for _, f := range files {
		seen[f.Path] = true
		out = append(out, w.session(f))
	}
	for p := range w.cache {
		if !seen[p] {
			delete(w.cache, p)
		}
	}
	return out, nil
}

func (w *uiWatch) session(f hook.SessionFile) tui.Session {
	v := tui.Session{ID: f.ID, Live: w.a.Now().Sub(f.ModTime) <= liveFor}
	c := w.cache[f.Path]
	if c == nil {
		// The first read starts from the state the hooks saved.
		s, err := w.a.load(w.e, f.Path, true)
		if err != nil {
			v.Err = err.Error()
			return v
		}
		c = &watched{s: s}
		w.cache[f.Path] = c
	} else if _, err := c.s.Update(&c.p); err != nil {
		v.Err = err.Error()
		return v
	}
	s := c.s
	if s.SessionID != "" {
		v.ID = s.SessionID
	}
	v.Client, v.Model, v.Branch, v.Last = s.Client, s.Model, s.GitBranch, s.LastTime
	if len(s.Prompts) > 0 {
		v.Title = text.OneLine(s.Prompts[0].Text)
	}
	v.Reading, v.Trend = meter.Measure(s, w.e.rules(s.Client, 0))
	v.Level, v.Percent = w.levels.Level(v.Reading), w.levels.Percent(v.Reading)
	for _, t := range s.Turns {
		v.Context = append(v.Context, t.Usage.Context())
	}
	for _, c := range s.Compactions {
		v.Compactions = append(v.Compactions, tui.Compaction{Trigger: c.Trigger, Pre: c.PreTokens, Post: c.PostTokens, Time: c.Time})
	}
	if m := w.e.store.Marks(f.Path); m.CheckpointTurns > 0 {
		v.Checkpoint = fmt.Sprintf("at turn %d", m.CheckpointTurns)
		if m.Captured > 0 {
			v.Checkpoint += fmt.Sprintf(", level %s crossed", pressure.Name(m.Captured))
		}
	}
	for _, it := range s.Ledger.Open() {
		v.Open = append(v.Open, it.Text)
	}
	for _, t := range s.Todos {
		if t.Status != "completed" {
			v.Open = append(v.Open, "todo: "+t.Content)
		}
	}
	return v
}
