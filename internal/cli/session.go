package cli

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/statusline"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// env is what commands derive from the environment, read once: where
// Claude Code keeps the project's transcripts, the project's root, and
// the continuity operations configured for it.
type env struct {
	configDir  string
	projectDir string
	projectOK  bool
	cwd        string
	// root is the project's directory: the working directory, or the
	// parent Claude Code was started in.
	root     string
	stateDir string
	store    state.Store
	settings meter.Settings
	keeper   *continuity.Keeper
	getenv   func(string) string
}

func (a *App) env() (*env, error) {
	cfg, err := claudecode.ConfigDir(a.Getenv)
	if err != nil {
		return nil, err
	}
	cwd, err := a.Getwd()
	if err != nil {
		return nil, fmt.Errorf("find the working directory: %w", err)
	}
	k, err := a.newKeeper()
	if err != nil {
		return nil, err
	}
	pd, root, ok := claudecode.ProjectDir(cfg, cwd)
	conf, errs := config.Load(root)
	for _, e := range errs {
		fmt.Fprintf(a.Stderr, "cairn: warning: %v\n", e)
	}
	if k.RestoreBudget == 0 {
		k.RestoreBudget = conf.RestoreBudget
	}
	if len(k.TicketPrefixes) == 0 {
		k.TicketPrefixes = conf.TicketPrefixes
	}
	return &env{configDir: cfg, projectDir: pd, projectOK: ok, cwd: cwd, root: root, stateDir: k.State.Dir,
		store: k.State, settings: k.Settings, keeper: k, getenv: a.Getenv}, nil
}

// newKeeper configures the continuity operations from the environment,
// and nothing else: hooks, which run on every prompt, need no more.
func (a *App) newKeeper() (*continuity.Keeper, error) {
	sd, err := state.Dir(a.Getenv)
	if err != nil {
		return nil, err
	}
	data, err := continuity.DataDir(a.Getenv)
	if err != nil {
		return nil, err
	}
	set, warns := meter.SettingsFromEnv(a.Getenv)
	for _, w := range warns {
		fmt.Fprintf(a.Stderr, "cairn: warning: %s\n", w)
	}
	warn := func(err error) { fmt.Fprintf(a.Stderr, "cairn: warning: %v\n", err) }
	k := &continuity.Keeper{
		State: state.Store{Dir: sd, Warn: warn}, DBPath: filepath.Join(data, "cairn.db"), Settings: set,
		Now: a.Now, Warn: warn, Stored: storedFor(sd, warn),
	}
	if v := a.Getenv("CAIRN_RESTORE_BUDGET"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 100 {
			fmt.Fprintf(a.Stderr, "cairn: warning: ignoring CAIRN_RESTORE_BUDGET=%q: give a number of tokens, at least 100\n", v)
		} else {
			k.RestoreBudget = n
		}
	}
	for _, p := range strings.Split(a.Getenv("CAIRN_TICKET_PREFIXES"), ",") {
		if p = strings.TrimSpace(p); p != "" {
			k.TicketPrefixes = append(k.TicketPrefixes, p)
		}
	}
	return k, nil
}

// locate turns --session/--transcript/an argument into a transcript path.
// With neither, it is the project's latest session.
func (e *env) locate(id, path string) (string, error) {
	switch {
	case path != "":
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", err
		}
		fi, err := os.Stat(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", withHint(fmt.Errorf("no transcript at %s", abs), "check the path; transcripts live under %s", filepath.Join(e.configDir, "projects"))
			}
			return "", withHint(fmt.Errorf("cannot read %s: %w", abs, err), "check the file's permissions")
		}
		if fi.IsDir() {
			return "", withHint(fmt.Errorf("%s is a directory, not a transcript", abs), "give the path of a .jsonl session file")
		}
		return abs, nil
	case id != "":
		// The project's sessions of every client first, then Claude
		// Code's of every project.
		all, _ := hook.AllSessions(e.getenv, e.root)
		var found []hook.SessionFile
		for _, f := range all {
			if f.ID == id {
				return f.Path, nil
			}
			if strings.HasPrefix(f.ID, id) {
				found = append(found, f)
			}
		}
		switch {
		case len(found) == 1:
			return found[0].Path, nil
		case len(found) > 1:
			return "", withHint(fmt.Errorf("session id %q matches several sessions", id), "give more of the id; 'cairn sessions' lists them")
		}
		sf, err := claudecode.FindSession(e.configDir, e.projectDir, id)
		if errors.Is(err, claudecode.ErrAmbiguous) {
			return "", withHint(fmt.Errorf("session id %q matches several sessions", id), "give more of the id; 'cairn sessions' lists them")
		}
		if err != nil {
			return "", withHint(fmt.Errorf("no session %q under %s", id, filepath.Join(e.configDir, "projects")), "'cairn sessions' lists this project's sessions; set CLAUDE_CONFIG_DIR if Claude Code keeps its files elsewhere")
		}
		return sf.Path, nil
	}
	ss, _ := hook.AllSessions(e.getenv, e.root)
	if len(ss) == 0 {
		return "", withHint(fmt.Errorf("no session of %s found for %s", clientTitles("or"), e.cwd),
			"run cairn inside a project where one of them has run (Claude Code's sessions are looked for in %s), or pass --transcript PATH", e.projectDir)
	}
	return ss[0].Path, nil
}

// clientTitles are the clients' names in a list: "Claude Code or Codex
// CLI".
func clientTitles(and string) string {
	var ts []string
	for _, ag := range hook.Agents() {
		ts = append(ts, ag.Title())
	}
	if len(ts) < 2 {
		return strings.Join(ts, "")
	}
	return strings.Join(ts[:len(ts)-1], ", ") + " " + and + " " + ts[len(ts)-1]
}

// rules are the meter's rules for a session of client, with --window's
// value when given: the client's own, else Claude Code's settings.
func (e *env) rules(client string, window int64) meter.Rules {
	if ag, ok := hook.AgentNamed(client); ok {
		w := window
		if w == 0 {
			w = e.settings.Window
		}
		if r := ag.Rules(e.getenv, e.root, w); r != nil {
			return r
		}
	}
	return e.withWindow(window)
}

// load brings the session of the transcript at path up to date (see
// state.Store.Session).
func (a *App) load(e *env, path string, full bool) (*transcript.Session, error) {
	s, err := e.keeper.Load(path, full)
	if errors.Is(err, fs.ErrPermission) {
		return nil, withHint(fmt.Errorf("cannot read %s: %w", path, err), "check the file's permissions")
	}
	return s, err
}

// sessionFlags are --session and --transcript, with which a command is
// given the session it works on; with neither it is the project's latest.
type sessionFlags struct{ id, path *string }

func addSessionFlags(fs *flag.FlagSet) sessionFlags {
	return sessionFlags{
		id:   fs.String("session", "", "the session: its `ID`, or a unique prefix of it (default: the project's latest)"),
		path: fs.String("transcript", "", "the session: its transcript's `PATH`"),
	}
}

// given reports whether the user named a session.
func (f sessionFlags) given() bool { return *f.id != "" || *f.path != "" }

// check refuses both flags at once.
func (f sessionFlags) check() error {
	if *f.id != "" && *f.path != "" {
		return usageErrorf("give --session or --transcript, not both")
	}
	return nil
}

// addWindowFlag is --window, which overrides the context window the
// meter reads from the model (as CAIRN_CONTEXT_WINDOW does).
func addWindowFlag(fs *flag.FlagSet) *int64 {
	return fs.Int64("window", 0, "the context window in `N` tokens (default: from the model, or CAIRN_CONTEXT_WINDOW)")
}

// withWindow is the meter's settings with --window's value, when given.
func (e *env) withWindow(window int64) meter.Settings {
	set := e.settings
	if window > 0 {
		set.Window = window
	}
	return set
}

// locateSession is how the commands that work on one session start: the
// environment read and the transcript of the session the flags name. The
// caller closes e.keeper.
func (a *App) locateSession(f sessionFlags) (e *env, path string, err error) {
	return a.locateSessionFor(f, false)
}

// locateSessionFor is locateSession; with headOnly, for a command that
// needs no more of the session than its head, a large transcript without
// state is read for the head only (state.Store.ColdHead).
func (a *App) locateSessionFor(f sessionFlags, headOnly bool) (e *env, path string, err error) {
	if err := f.check(); err != nil {
		return nil, "", err
	}
	if e, err = a.env(); err != nil {
		return nil, "", err
	}
	e.keeper.State.ColdHead = headOnly
	if path, err = e.locate(*f.id, *f.path); err != nil {
		e.keeper.Close()
		return nil, "", err
	}
	// A checkpoint measures the context by the rules of the client the
	// session ran in. Only the client is looked at here: without the
	// latest texts, which the head saved by a cold read does not keep
	// either (so the caller's load, which reads the head, never had them).
	if s, err := e.keeper.LoadBare(path); err == nil {
		if ag, ok := hook.AgentNamed(s.Client); ok {
			e.keeper.Rules = ag.Rules(e.getenv, e.root, e.settings.Window)
		}
	}
	return e, path, nil
}

// readSession is locateSession with the session then brought up to date;
// full reads everything the report needs, not only the head. The caller
// closes e.keeper.
func (a *App) readSession(f sessionFlags, full bool) (*env, *transcript.Session, error) {
	e, path, err := a.locateSessionFor(f, !full)
	if err != nil {
		return nil, nil, err
	}
	s, err := a.load(e, path, full)
	if err != nil {
		e.keeper.Close()
		return nil, nil, err
	}
	return e, s, nil
}

// storedFor notes every checkpoint stored for the status line, which
// shows how long ago the last one was taken.
func storedFor(stateDir string, warn func(error)) func(checkpoint.Checkpoint) {
	return func(c checkpoint.Checkpoint) {
		ticket := ""
		if n := len(c.Task.Tickets); n > 0 {
			ticket = c.Task.Tickets[n-1]
		}
		if err := statusline.RecordCheckpoint(stateDir, c.Project, c.ID, ticket, c.CreatedAt); err != nil {
			warn(err)
		}
	}
}
