package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/claudecode/settings"
	"github.com/cairn-agent/cairn/internal/git"
	"github.com/cairn-agent/cairn/internal/shell"
	"github.com/cairn-agent/cairn/internal/text"
)

// oursFor recognises cairn's hook commands: those isOurs recognises, and
// those that run exe itself whatever its name.
func oursFor(exe string) func(string) bool {
	return func(command string) bool {
		if isOurs(command) {
			return true
		}
		word, rest := shell.FirstWord(strings.TrimSpace(command))
		f := strings.Fields(rest)
		_, known := claudecode.Lookup(lastOf(f))
		return word == exe && len(f) == 2 && f[0] == "hook" && known
	}
}

func lastOf(f []string) string {
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// statusLineOurs recognises cairn's status line command, chained or not.
func statusLineOurs(exe string) func(string) bool {
	return func(command string) bool {
		word, rest := shell.FirstWord(strings.TrimSpace(command))
		f := strings.Fields(rest)
		return len(f) > 0 && f[0] == "statusline" && (word == exe || strings.HasPrefix(filepath.Base(word), "cairn"))
	}
}

// isOurs recognises cairn's hook commands whatever the binary's path
// (quoted when it has spaces): "<…/cairn…> hook EVENT" for an event cairn
// handles.
func isOurs(command string) bool {
	exe, rest := shell.FirstWord(strings.TrimSpace(command))
	f := strings.Fields(rest)
	if len(f) != 2 || f[0] != "hook" {
		return false
	}
	if _, ok := claudecode.Lookup(f[1]); !ok {
		return false
	}
	return strings.HasPrefix(filepath.Base(exe), "cairn")
}

// wanted lists the hooks cairn installs, calling exe.
func wanted(exe string) []settings.Hook {
	var hs []settings.Hook
	for _, ev := range claudecode.Events {
		hs = append(hs, settings.Hook{Event: ev.Name, Command: shell.Quote(exe) + " hook " + ev.Name, Timeout: ev.Timeout})
	}
	return hs
}

// executable is the absolute path of the running cairn.
func executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find cairn's own path: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return exe, nil
}

// wiring is what install puts into a settings file for the cairn at exe,
// its status line chaining inherited when the file has none of its own.
func wiring(exe, inherited string) settings.Wiring {
	return settings.Wiring{
		Hooks:      wanted(exe),
		IsOurs:     oursFor(exe),
		StatusLine: shell.Quote(exe) + " statusline",
		StatusOurs: statusLineOurs(exe),
		// A status line of cairn's that runs this binary, or cairn from
		// PATH (a user who chose cairn's status line by hand), does the job.
		// One that runs another absolute path is an older install's, maybe
		// of a binary that has moved: install points it at this one.
		StatusCurrent: func(c string) bool {
			word, _ := shell.FirstWord(strings.TrimSpace(c))
			return word == exe || !filepath.IsAbs(word)
		},
		Inherited: inherited,
	}
}

// The settings files cairn wires, by where Claude Code reads them.
//
// The hooks and the status line call this machine's cairn by its absolute
// path, so they are per-user wiring: for a project they go into
// .claude/settings.local.json, which Claude Code reads for the project
// and which is not meant to be committed, never into .claude/settings.json,
// which teams commit. An older cairn installed there; install moves that
// wiring out.
type settingsFiles struct {
	shared, local, user string
	journal             settings.Journal
}

func (e *env) settingsFiles() settingsFiles {
	return settingsFiles{
		shared:  filepath.Join(e.root, ".claude", "settings.json"),
		local:   filepath.Join(e.root, ".claude", "settings.local.json"),
		user:    filepath.Join(e.configDir, "settings.json"),
		journal: settings.Journal{Dir: filepath.Join(filepath.Dir(e.keeper.DBPath), "install")},
	}
}

// read loads a settings file for a check; a missing file reads as empty.
func read(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// check reads the settings files an edit will touch and refuses them all,
// before any is changed, when one cannot be edited (not JSON, a key
// twice): the user fixes it and runs the command again, rather than
// finding half of cairn wired.
func check(w settings.Wiring, paths ...string) error {
	for _, p := range paths {
		data, err := read(p)
		if err == nil {
			_, err = w.Before(data)
		}
		if err != nil {
			var se *settings.Error
			if errors.As(err, &se) {
				se.Path = p
			}
			return settingsError(err)
		}
	}
	return nil
}

// statusLineOf is the status line command the file at path sets, "" for
// none or no file.
func statusLineOf(path string) (string, error) {
	data, err := read(path)
	if err != nil || data == nil {
		return "", err
	}
	cmd, _, err := settings.StatusLine(data)
	var se *settings.Error
	if errors.As(err, &se) {
		se.Path = path
	}
	return cmd, err
}

// hasHooks reports whether the file at path holds cairn's hooks.
func hasHooks(w settings.Wiring, path string) bool {
	data, err := read(path)
	if err != nil || data == nil {
		return false
	}
	hooks, _ := w.Installed(data)
	return len(hooks) > 0
}

func runInstall(_ context.Context, a *App, args []string) error {
	return editSettings(a, args, "install")
}

func runUninstall(_ context.Context, a *App, args []string) error {
	return editSettings(a, args, "uninstall")
}

func editSettings(a *App, args []string, verb string) error {
	fs := newFlags(verb)
	user := fs.Bool("user", false, "edit the user's settings ($CLAUDE_CONFIG_DIR or ~/.claude) instead of this project's")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	exe, err := executable()
	if err != nil {
		return err
	}
	f := e.settingsFiles()
	switch {
	case verb == "install" && *user:
		return installUser(a, f, exe)
	case verb == "install":
		return installProject(a, e, f, exe)
	case *user:
		return uninstallUser(a, f, exe)
	}
	return uninstallProject(a, e, f, exe)
}

func installUser(a *App, f settingsFiles, exe string) error {
	w := wiring(exe, "")
	res, err := w.InstallFile(f.user, f.journal)
	if err != nil {
		return settingsError(err)
	}
	if !res.Changed {
		fmt.Fprintf(a.Stdout, "cairn is already wired into %s; nothing changed\n", f.user)
		return nil
	}
	fmt.Fprintf(a.Stdout, "wired cairn into %s, for every project: %s, and the status line (chaining yours, if you had one)\n", f.user, strings.Join(claudecode.EventNames(), ", "))
	fmt.Fprintf(a.Stdout, "the hooks call %s\n", exe)
	fmt.Fprintln(a.Stdout, "from the next Claude Code session on, cairn checkpoints before every compaction and restores the working state after it")
	return nil
}

func installProject(a *App, e *env, f settingsFiles, exe string) error {
	w := wiring(exe, "")
	if err := check(w, f.shared, f.local, f.user); err != nil {
		return err
	}
	// An older cairn wired the shared file: take that out first, so that
	// the file is as it was before cairn, and the hooks do not run twice.
	var moved settings.FileResult
	if hasHooks(w, f.shared) {
		var err error
		if moved, err = w.UninstallFile(f.shared, f.journal); err != nil {
			return settingsError(err)
		}
	}
	// Claude Code runs the status line of the file with the most
	// precedence: without one of its own, settings.local.json shows the
	// project's, or else the user's. cairn's chains that one.
	inherited, err := statusLineOf(f.shared)
	if err == nil && inherited == "" {
		inherited, err = statusLineOf(f.user)
	}
	if err != nil {
		return settingsError(err)
	}
	res, err := wiring(exe, inherited).InstallFile(f.local, f.journal)
	if err != nil {
		return settingsError(err)
	}
	commands := filepath.Join(e.root, filepath.FromSlash(claudecode.CommandsDir))
	if _, err := f.journal.MkdirAll(commands); err != nil {
		return fmt.Errorf("install slash commands: %w", err)
	}
	written, err := claudecode.InstallCommands(e.root)
	if err != nil {
		return err
	}
	if moved.Changed {
		fmt.Fprintf(a.Stdout, "moved an older cairn install out of %s, the settings file teams commit%s\n", f.shared, how(moved))
	}
	if !res.Changed && len(written) == 0 && !moved.Changed {
		fmt.Fprintf(a.Stdout, "cairn is already wired into %s; nothing changed\n", f.local)
		notices(a, e, exe)
		return nil
	}
	if res.Changed {
		fmt.Fprintf(a.Stdout, "wired cairn into %s: %s, and the status line (chaining yours, if you had one)\n", f.local, strings.Join(claudecode.EventNames(), ", "))
		fmt.Fprintf(a.Stdout, "the hooks call %s; that file is this machine's own: Claude Code reads it for this project, and it is not for committing\n", exe)
	}
	for _, p := range written {
		fmt.Fprintf(a.Stdout, "wrote the slash command %s\n", p)
	}
	if len(written) > 0 {
		fmt.Fprintf(a.Stdout, "the slash commands call %s from PATH, so that they work on every machine\n", claudecode.Program)
	}
	notices(a, e, exe)
	fmt.Fprintln(a.Stdout, "from the next Claude Code session on, cairn checkpoints before every compaction and restores the working state after it")
	return nil
}

// notices says what install cannot fix by itself: a settings.local.json
// git would commit, and slash commands that would not find cairn.
func notices(a *App, e *env, exe string) {
	for _, n := range setupNotes(a, e, exe) {
		fmt.Fprintf(a.Stdout, "note: %s\n", n)
	}
}

// setupNotes are the notices, for install and doctor.
//
// Claude Code 2.1.328 adds **/.claude/settings.local.json to the user's
// global git excludes (core.excludesFile, or ~/.config/git/ignore) when it
// writes that file itself, and at the first prompt of an interactive
// session in a project that has one and does not track it; not in
// headless (-p) runs. Until then a file cairn wrote shows as untracked and
// can be committed by mistake, with this machine's path to cairn in it.
// cairn edits neither the user's git configuration nor the project's
// .gitignore: it says so, with the line to add. A settings.local.json the
// project already tracks is worse (Claude Code then adds no rule): it says
// how to stop tracking it.
func setupNotes(a *App, e *env, exe string) []string {
	var notes []string
	local := filepath.Join(".claude", "settings.local.json")
	if _, err := os.Stat(filepath.Join(e.root, local)); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		tracked, err := git.Tracked(ctx, e.root, local)
		ignored := false
		if err == nil && !tracked {
			ignored, err = git.Ignored(ctx, e.root, local)
		}
		cancel()
		slash := filepath.ToSlash(local)
		switch {
		case err != nil:
		case tracked:
			notes = append(notes, fmt.Sprintf("git tracks %s, which holds this machine's path to cairn: stop sharing it with git rm --cached %s, and ignore it (echo %s >> .gitignore)", slash, slash, slash))
		case !ignored:
			notes = append(notes, fmt.Sprintf("git does not ignore %s yet, which holds this machine's path to cairn; Claude Code adds it to your global git excludes at its next interactive session here, or keep it out of commits now: echo %s >> .gitignore", slash, slash))
		}
	}
	if slashInstalled(e.root) {
		switch found := lookPath(a.Getenv("PATH"), claudecode.Program); {
		case found == "":
			notes = append(notes, fmt.Sprintf("the slash commands (/checkpoint, /handoff, ...) call %s from PATH, and PATH has none: add %s to PATH", claudecode.Program, filepath.Dir(exe)))
		case found != exe:
			notes = append(notes, fmt.Sprintf("the slash commands call %s from PATH, which is %s, not this cairn (%s)", claudecode.Program, found, exe))
		}
	}
	return notes
}

// slashInstalled reports whether cairn's slash commands are in the project.
func slashInstalled(root string) bool {
	for name := range claudecode.SlashCommands() {
		if claudecode.Generated(filepath.Join(root, filepath.FromSlash(claudecode.CommandsDir), name)) {
			return true
		}
	}
	return false
}

// lookPath finds an executable file named name in the directories of
// path (a PATH value), symlinks resolved; "" when there is none.
func lookPath(path, name string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			if r, err := filepath.EvalSymlinks(p); err == nil {
				return r
			}
			return p
		}
	}
	return ""
}

func uninstallUser(a *App, f settingsFiles, exe string) error {
	res, err := wiring(exe, "").UninstallFile(f.user, f.journal)
	if err != nil {
		return settingsError(err)
	}
	if !res.Changed {
		fmt.Fprintf(a.Stdout, "cairn was not wired into %s; nothing changed\n", f.user)
		return nil
	}
	fmt.Fprintf(a.Stdout, "took cairn out of %s%s\n", f.user, how(res))
	return nil
}

func uninstallProject(a *App, e *env, f settingsFiles, exe string) error {
	w := wiring(exe, "")
	if err := check(w, f.local, f.shared); err != nil {
		return err
	}
	removed, err := claudecode.UninstallCommands(e.root)
	if err != nil {
		return err
	}
	for _, r := range removed {
		fmt.Fprintf(a.Stdout, "removed the slash command %s\n", r)
	}
	if _, err := f.journal.RemoveDirs(filepath.Join(e.root, filepath.FromSlash(claudecode.CommandsDir))); err != nil {
		return err
	}
	changed := false
	for _, path := range []string{f.local, f.shared} {
		// The shared file holds cairn's wiring only as an older install
		// left it, hooks and all; a status line of cairn's alone there is
		// the project's own choice.
		if path == f.shared && !hasHooks(w, path) {
			continue
		}
		res, err := w.UninstallFile(path, f.journal)
		if err != nil {
			return settingsError(err)
		}
		if res.Changed {
			changed = true
			fmt.Fprintf(a.Stdout, "took cairn out of %s%s\n", path, how(res))
		}
	}
	if !changed {
		fmt.Fprintf(a.Stdout, "cairn was not wired into %s or %s; nothing changed there\n", f.local, f.shared)
	}
	if hasHooks(w, f.user) {
		fmt.Fprintf(a.Stdout, "cairn is still wired for every project in %s: cairn uninstall --user takes it out\n", f.user)
	}
	return nil
}

// how says what became of a settings file cairn was taken out of.
func how(r settings.FileResult) string {
	switch {
	case r.FromBackup != "":
		return fmt.Sprintf(", which is back to its content before cairn (from %s, now removed)", filepath.Base(r.FromBackup))
	case r.Removed:
		return ", which cairn had created and is now removed"
	}
	return ", which is back to what it was"
}

func settingsError(err error) error {
	var se *settings.Error
	if errors.As(err, &se) {
		return withHint(err, "fix the file as the message says (or move it aside), then run the command again; cairn changed nothing")
	}
	return withHint(err, "cairn left the settings files as they were")
}

// runDoctor is `cairn doctor`: is the wiring present and current, where
// does state live, when did each hook last run and how did it end.
func runDoctor(ctx context.Context, a *App, args []string) error {
	fs := newFlags("doctor")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	exe, err := executable()
	if err != nil {
		return err
	}
	problems := 0
	problem := func(format string, args ...any) {
		problems++
		fmt.Fprintf(a.Stdout, "  ✗ "+format+"\n", args...)
	}
	ok := func(format string, args ...any) { fmt.Fprintf(a.Stdout, "  ✓ "+format+"\n", args...) }

	fmt.Fprintln(a.Stdout, "wiring")
	w := wiring(exe, "")
	want := w.Hooks
	f := e.settingsFiles()
	var wired []string
	for _, file := range []struct {
		path, fix, what string
	}{
		{f.shared, "cairn install", "the project's settings, which teams commit"},
		{f.local, "cairn install", "this project, on this machine"},
		{f.user, "cairn install --user", "every project"},
	} {
		path := file.path
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(a.Stdout, "  - %s: no file\n", path)
			continue
		}
		if err != nil {
			problem("%s: cannot read: %v", path, err)
			continue
		}
		have, err := w.Installed(data)
		if err == nil {
			_, _, err = settings.StatusLine(data)
		}
		if err != nil {
			var se *settings.Error
			if errors.As(err, &se) {
				se.Path = path
			}
			problem("%v\n    fix: correct the file as the message says; cairn will not edit it until then", err)
			continue
		}
		if len(have) == 0 {
			fmt.Fprintf(a.Stdout, "  - %s: cairn not wired\n", path)
			continue
		}
		if path == f.shared {
			// The hooks call one machine's binary by its path, in a file
			// every clone of the project shares.
			problem("%s: wired by an older cairn, with this machine's path to cairn, in the file teams commit\n    fix: cairn install (moves it to %s)", path, filepath.Base(f.local))
			wired = append(wired, path)
			continue
		}
		wired = append(wired, path)
		var missing, stale []string
		for _, h := range want {
			found := false
			for _, g := range have {
				if g.Event == h.Event {
					found = true
					if g.Command != h.Command || g.Timeout != h.Timeout {
						stale = append(stale, fmt.Sprintf("%s runs %q", g.Event, g.Command))
					}
				}
			}
			if !found {
				missing = append(missing, h.Event)
			}
		}
		switch {
		case len(missing) > 0:
			problem("%s: cairn wired, but not for %s\n    fix: %s", path, strings.Join(missing, ", "), file.fix)
		case len(stale) > 0:
			problem("%s: cairn wired, but not to this cairn (%s) or not with its timeouts: %s\n    fix: %s", path, exe, strings.Join(stale, "; "), file.fix)
		default:
			ok("%s: wired to %s for %d events, for %s", path, exe, len(want), file.what)
		}
	}
	switch {
	case len(wired) == 0:
		problem("cairn is wired into none of the settings files\n    fix: cairn install (this project) or cairn install --user (every project)")
	case len(wired) > 1:
		problem("cairn is wired into %s: Claude Code runs every hook once per file\n    fix: keep one: cairn uninstall (this project's) or cairn uninstall --user", strings.Join(wired, " and "))
	}
	for _, n := range setupNotes(a, e, exe) {
		fmt.Fprintf(a.Stdout, "  - note: %s\n", n)
	}

	fmt.Fprintln(a.Stdout, "storage")
	doctorStorage(a, e, ok, problem)
	fmt.Fprintf(a.Stdout, "  - database: %s\n", e.keeper.DBPath)
	if db, err := e.keeper.DB(ctx); err != nil {
		problem("database: %v\n    fix: if it is damaged, move it aside and cairn starts a new one", err)
	} else if recs, err := db.Checkpoints(ctx, e.root, 1); err != nil {
		problem("database: %v", err)
	} else if len(recs) > 0 {
		ok("database opens; latest checkpoint of this project: %d (%s, %s)", recs[0].ID, recs[0].Trigger, recs[0].CreatedAt.In(a.Loc).Format("2006-01-02 15:04"))
	} else {
		ok("database opens; no checkpoint of this project yet")
	}

	fmt.Fprintln(a.Stdout, "hooks")
	for _, ev := range claudecode.EventNames() {
		run, ran := lastRun(a, e, ev)
		if !ran {
			fmt.Fprintf(a.Stdout, "  - %s: never ran\n", ev)
			continue
		}
		line := fmt.Sprintf("%s: last ran %s ago, took %v", ev, text.Ago(a.Now().Sub(run.At)), run.Took.Round(time.Millisecond))
		if run.Err != "" {
			line += fmt.Sprintf("; last error %s ago: %s", text.Ago(a.Now().Sub(run.ErrAt)), run.Err)
		}
		fmt.Fprintf(a.Stdout, "  - %s\n", line)
	}
	if problems > 0 {
		return withHint(fmt.Errorf("%d problem(s) found", problems), "apply the fixes above, then run cairn doctor again")
	}
	fmt.Fprintln(a.Stdout, "all good")
	return nil
}
