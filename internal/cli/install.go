package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/handoff"
	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/settings"
)

// hookTimeouts are the timeouts (seconds) `cairn install` gives Claude Code
// for each event. Each is at least twice cairn's own budget for the
// handler (hook.Events) and at least 3 s more, so that cairn answers before
// Claude Code gives up on it even on a loaded machine: a 50 MB PostToolUse
// payload once took 3.1 s against an installed 3 s. A handler that is
// done early ends the hook early; the timeout only bounds a stuck one.
var hookTimeouts = map[string]int{
	"SessionStart":     20, // budget 8 s
	"UserPromptSubmit": 10, // budget 4 s
	"PostToolUse":      10, // budget 2 s, plus reading payloads of many MB
	"PreCompact":       60, // budget 20 s
	"PostCompact":      10, // budget 4 s
	"SessionEnd":       5,  // budget 1.2 s; Claude Code gives SessionEnd hooks about 1.5 s in all anyway
	"Stop":             10, // budget 2 s
}

// installOrder is the order hooks are added in, as a person would read them.
var installOrder = []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "PreCompact", "PostCompact", "SessionEnd"}

// oursFor recognises cairn's hook commands: those isOurs recognises, and
// those that run exe itself whatever its name.
func oursFor(exe string) func(string) bool {
	return func(command string) bool {
		if isOurs(command) {
			return true
		}
		word, rest := firstShellWord(strings.TrimSpace(command))
		f := strings.Fields(rest)
		_, known := hook.Events[lastOf(f)]
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
		word, rest := firstShellWord(strings.TrimSpace(command))
		f := strings.Fields(rest)
		return len(f) > 0 && f[0] == "statusline" && (word == exe || strings.HasPrefix(filepath.Base(word), "cairn"))
	}
}

// isOurs recognises cairn's hook commands whatever the binary's path
// (quoted when it has spaces): "<…/cairn…> hook EVENT" for an event cairn
// handles.
func isOurs(command string) bool {
	exe, rest := firstShellWord(strings.TrimSpace(command))
	f := strings.Fields(rest)
	if len(f) != 2 || f[0] != "hook" {
		return false
	}
	if _, ok := hook.Events[f[1]]; !ok {
		return false
	}
	return strings.HasPrefix(filepath.Base(exe), "cairn")
}

// firstShellWord splits off the first word of a command as a POSIX shell
// reads it, for the quoting shellQuote produces.
func firstShellWord(s string) (word, rest string) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			return b.String(), s[i:]
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", ""
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}

// wanted lists the hooks cairn installs, calling exe.
func wanted(exe string) []settings.Hook {
	var hs []settings.Hook
	for _, ev := range installOrder {
		hs = append(hs, settings.Hook{Event: ev, Command: shellQuote(exe) + " hook " + ev, Timeout: hookTimeouts[ev]})
	}
	return hs
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[](){}<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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

// settingsPath is the settings file install and uninstall edit.
func (e *env) settingsPath(user bool) string {
	if user {
		return filepath.Join(e.configDir, "settings.json")
	}
	return filepath.Join(e.root, ".claude", "settings.json")
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
	path := e.settingsPath(*user)
	var changed bool
	if verb == "install" {
		exe, err := executable()
		if err != nil {
			return err
		}
		changed, err = settings.InstallFileWithStatusLine(path, wanted(exe), oursFor(exe), shellQuote(exe)+" statusline", statusLineOurs(exe))
		if err != nil {
			return settingsError(err)
		}
		var written []string
		if !*user {
			// /checkpoint and /handoff, in the project's .claude/commands.
			if err := os.MkdirAll(filepath.Join(e.root, filepath.FromSlash(handoff.CommandsDir)), 0o755); err != nil {
				return fmt.Errorf("install slash commands: %w", err)
			}
			if written, err = handoff.InstallCommands(e.root); err != nil {
				return err
			}
		}
		if !changed && len(written) == 0 {
			fmt.Fprintf(a.Stdout, "cairn is already wired into %s; nothing changed\n", path)
			return nil
		}
		fmt.Fprintf(a.Stdout, "wired cairn into %s: %s, and the status line (chaining yours, if you had one)\n", path, strings.Join(installOrder, ", "))
		for _, w := range written {
			fmt.Fprintf(a.Stdout, "wrote the slash command %s\n", w)
		}
		fmt.Fprintf(a.Stdout, "it calls %s; the previous file (if any) is kept as %s\n", exe, filepath.Base(path)+settings.BackupSuffix)
		fmt.Fprintln(a.Stdout, "from the next Claude Code session on, cairn checkpoints before every compaction and restores the working state after it")
		return nil
	}
	exe, err := executable()
	if err != nil {
		return err
	}
	changed, err = settings.UninstallFileWithStatusLine(path, oursFor(exe), statusLineOurs(exe))
	if err != nil {
		return settingsError(err)
	}
	if !*user {
		removed, err := handoff.UninstallCommands(e.root)
		if err != nil {
			return err
		}
		for _, r := range removed {
			fmt.Fprintf(a.Stdout, "removed the slash command %s\n", r)
		}
	}
	if !changed {
		fmt.Fprintf(a.Stdout, "cairn was not wired into %s; nothing changed\n", path)
		return nil
	}
	fmt.Fprintf(a.Stdout, "removed cairn's hooks from %s (the previous file is kept as %s)\n", path, filepath.Base(path)+settings.BackupSuffix)
	return nil
}

func settingsError(err error) error {
	var se *settings.Error
	if errors.As(err, &se) {
		return withHint(err, "fix the file (Claude Code could not read it either) or move it aside; cairn left it untouched")
	}
	return withHint(err, "cairn left the settings file as it was")
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
	want := wanted(exe)
	wired := false
	for _, user := range []bool{false, true} {
		path := e.settingsPath(user)
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(a.Stdout, "  - %s: no file\n", path)
			continue
		}
		if err != nil {
			problem("%s: cannot read: %v", path, err)
			continue
		}
		have, err := settings.Installed(data, oursFor(exe))
		if err != nil {
			problem("%s: %v\n    fix: correct the file; Claude Code cannot read it either", path, err)
			continue
		}
		if len(have) == 0 {
			fmt.Fprintf(a.Stdout, "  - %s: cairn not wired\n", path)
			continue
		}
		wired = true
		var missing, stale []string
		for _, w := range want {
			found := false
			for _, h := range have {
				if h.Event == w.Event {
					found = true
					if h.Command != w.Command || h.Timeout != w.Timeout {
						stale = append(stale, fmt.Sprintf("%s runs %q", h.Event, h.Command))
					}
				}
			}
			if !found {
				missing = append(missing, w.Event)
			}
		}
		fix := "cairn install"
		if user {
			fix += " --user"
		}
		switch {
		case len(missing) > 0:
			problem("%s: cairn wired, but not for %s\n    fix: %s", path, strings.Join(missing, ", "), fix)
		case len(stale) > 0:
			problem("%s: cairn wired, but not to this cairn (%s): %s\n    fix: %s", path, exe, strings.Join(stale, "; "), fix)
		default:
			ok("%s: wired to %s for %d events", path, exe, len(want))
		}
	}
	if !wired {
		problem("cairn is wired into neither the project's nor the user's settings\n    fix: cairn install (this project) or cairn install --user (every project)")
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
	events := make([]string, 0, len(hook.Events))
	for ev := range hook.Events {
		events = append(events, ev)
	}
	sort.Strings(events)
	for _, ev := range events {
		run, ran := lastRun(a, e, ev)
		if !ran {
			fmt.Fprintf(a.Stdout, "  - %s: never ran\n", ev)
			continue
		}
		line := fmt.Sprintf("%s: last ran %s ago, took %v", ev, ago(a.Now().Sub(run.At)), run.Took.Round(time.Millisecond))
		if run.Err != "" {
			line += fmt.Sprintf("; last error %s ago: %s", ago(a.Now().Sub(run.ErrAt)), run.Err)
		}
		fmt.Fprintf(a.Stdout, "  - %s\n", line)
	}
	if problems > 0 {
		return withHint(fmt.Errorf("%d problem(s) found", problems), "apply the fixes above, then run cairn doctor again")
	}
	fmt.Fprintln(a.Stdout, "all good")
	return nil
}
