package install

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/claudecode/settings"
)

// Install wires cairn into the project (.claude/settings.local.json and
// the slash commands), or with user into the user's settings, for every
// project; with mcp it registers cairn's MCP server too, in the project's
// .mcp.json (approved in settings.local.json) or the user's
// ~/.claude.json.
func (s Setup) Install(user, mcp bool) error {
	if user {
		return s.installUser(mcp)
	}
	return s.installProject(mcp)
}

// Uninstall takes out what Install put in, the MCP server included,
// giving the files back as they were before it.
func (s Setup) Uninstall(user bool) error {
	if user {
		return s.uninstallUser()
	}
	return s.uninstallProject()
}

// userConfigLock bounds the wait for Claude Code to let go of its lock on
// ~/.claude.json, which it holds for a read and a write.
const userConfigLock = 5 * time.Second

func (s Setup) installUser(mcp bool) error {
	f := s.files()
	w := wiring(s.Exe, "")
	server := userServer(s.Exe)
	if err := check(w, f.user); err != nil {
		return err
	}
	taken := false
	if mcp {
		st, _, err := serverIn(server, f.userConfig)
		if err != nil {
			return err
		}
		taken = st == settings.OtherServer
	}
	res, err := w.InstallFile(f.user, f.journal)
	if err != nil {
		return settingsError(err)
	}
	var srv settings.FileResult
	if mcp && !taken {
		if srv, err = installLocked(server, f.userConfig, f.journal); err != nil {
			return err
		}
	}
	if taken {
		s.warn("%s has an MCP server named %s that is not cairn's: cairn left it alone, and registered no MCP server of its own (rename yours, then run cairn install --user again)", f.userConfig, claudecode.MCPServerName)
	}
	if !res.Changed && !srv.Changed {
		fmt.Fprintf(s.Out, "cairn is already wired into %s; nothing changed\n", f.user)
		return nil
	}
	if res.Changed {
		fmt.Fprintf(s.Out, "wired cairn into %s, for every project: %s, and the status line (chaining yours, if you had one)\n", f.user, strings.Join(claudecode.Events.Names(), ", "))
		fmt.Fprintf(s.Out, "the hooks call %s\n", s.Exe)
	}
	if srv.Changed {
		fmt.Fprintf(s.Out, "registered cairn's MCP server in %s, for every project: %s %s\n", f.userConfig, s.Exe, strings.Join(claudecode.MCPArgs(), " "))
	}
	fmt.Fprintln(s.Out, "from the next Claude Code session on, cairn checkpoints before every compaction and restores the working state after it")
	return nil
}

// installLocked registers the server in ~/.claude.json under the client's
// lock; uninstallLocked takes it out.
func installLocked(w settings.Wiring, path string, j settings.Journal) (settings.FileResult, error) {
	return locked(path, func() (settings.FileResult, error) { return w.InstallFile(path, j) })
}

func uninstallLocked(w settings.Wiring, path string, j settings.Journal) (settings.FileResult, error) {
	return locked(path, func() (settings.FileResult, error) { return w.UninstallFile(path, j) })
}

func locked(path string, edit func() (settings.FileResult, error)) (settings.FileResult, error) {
	if path == "" {
		return settings.FileResult{}, errors.New("no path for Claude Code's user configuration (~/.claude.json)")
	}
	unlock, err := settings.Lock(path, userConfigLock)
	if err != nil {
		return settings.FileResult{}, settingsError(err)
	}
	defer unlock()
	res, err := edit()
	if err != nil {
		return res, settingsError(err)
	}
	return res, nil
}

func (s Setup) installProject(mcp bool) error {
	f := s.files()
	w := wiring(s.Exe, "")
	server := projectServer(s.Exe)
	if err := check(w, f.shared, f.local, f.user); err != nil {
		return err
	}
	if err := check(server, f.mcp); err != nil {
		return err
	}
	// A server of someone else's under cairn's name stays, and is not
	// approved in cairn's name either.
	taken := false
	if mcp {
		st, _, err := serverIn(server, f.mcp)
		if err != nil {
			return err
		}
		taken = st == settings.OtherServer
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
	local := wiring(s.Exe, inherited)
	// What the one edit of settings.local.json will do, to say so: the
	// hooks and status line, the approval, or both.
	old, err := read(f.local)
	if err != nil {
		return settingsError(err)
	}
	_, rewire, _ := local.Install(old)
	if mcp && !taken {
		local.Approve = claudecode.MCPServerName
	}
	approving := false
	if local.Approve != "" {
		done, _ := local.Approved(old)
		approving = !done
	}
	res, err := local.InstallFile(f.local, f.journal)
	if err != nil {
		return settingsError(err)
	}
	var srv settings.FileResult
	if mcp && !taken {
		if srv, err = server.InstallFile(f.mcp, f.journal); err != nil {
			return settingsError(err)
		}
	}
	commands := filepath.Join(s.Root, filepath.FromSlash(claudecode.CommandsDir))
	if _, err := f.journal.MkdirAll(commands); err != nil {
		return fmt.Errorf("install slash commands: %w", err)
	}
	written, err := claudecode.InstallCommands(s.Root)
	if err != nil {
		return err
	}
	if moved.Changed {
		fmt.Fprintf(s.Out, "moved an older cairn install out of %s, the settings file teams commit%s\n", f.shared, how(moved))
	}
	if taken {
		s.warn("%s has an MCP server named %s that is not cairn's: cairn left it alone, and registered no MCP server of its own (rename yours, then run cairn install again)", f.mcp, claudecode.MCPServerName)
	}
	if !res.Changed && len(written) == 0 && !moved.Changed && !srv.Changed {
		fmt.Fprintf(s.Out, "cairn is already wired into %s; nothing changed\n", f.local)
		s.notices()
		return nil
	}
	if res.Changed && rewire {
		fmt.Fprintf(s.Out, "wired cairn into %s: %s, and the status line (chaining yours, if you had one)\n", f.local, strings.Join(claudecode.Events.Names(), ", "))
		fmt.Fprintf(s.Out, "the hooks call %s; that file is this machine's own: Claude Code reads it for this project, and it is not for committing\n", s.Exe)
	}
	if srv.Changed {
		fmt.Fprintf(s.Out, "registered cairn's MCP server in %s, the file teams commit: %s %s, cairn from PATH, so that it works on every machine\n",
			f.mcp, claudecode.Program, strings.Join(claudecode.MCPArgs(), " "))
	}
	if res.Changed && approving {
		fmt.Fprintf(s.Out, "approved cairn's MCP server of %s in %s, so that Claude Code starts it without asking\n", filepath.Base(f.mcp), f.local)
	}
	for _, p := range written {
		fmt.Fprintf(s.Out, "wrote the slash command %s\n", p)
	}
	if len(written) > 0 {
		fmt.Fprintf(s.Out, "the slash commands call %s from PATH, so that they work on every machine\n", claudecode.Program)
	}
	s.notices()
	fmt.Fprintln(s.Out, "from the next Claude Code session on, cairn checkpoints before every compaction and restores the working state after it")
	return nil
}

// notices says what install cannot fix by itself.
func (s Setup) notices() {
	for _, n := range s.Notes() {
		fmt.Fprintf(s.Out, "note: %s\n", n)
	}
}

func (s Setup) uninstallUser() error {
	f := s.files()
	w := wiring(s.Exe, "")
	server := userServer(s.Exe)
	if err := check(w, f.user); err != nil {
		return err
	}
	if err := check(server, f.userConfig); err != nil {
		return err
	}
	// ~/.claude.json first: while it is edited, the client's lock is in
	// its directory, which may be one install made ($CLAUDE_CONFIG_DIR),
	// and which settings.json's uninstall then removes when empty.
	srv, err := uninstallLocked(server, f.userConfig, f.journal)
	if err != nil {
		return err
	}
	res, err := w.UninstallFile(f.user, f.journal)
	if err != nil {
		return settingsError(err)
	}
	if !res.Changed && !srv.Changed {
		fmt.Fprintf(s.Out, "cairn was not wired into %s or %s; nothing changed\n", f.user, f.userConfig)
		return nil
	}
	if res.Changed {
		fmt.Fprintf(s.Out, "took cairn out of %s%s\n", f.user, how(res))
	}
	if srv.Changed {
		fmt.Fprintf(s.Out, "took cairn's MCP server out of %s%s\n", f.userConfig, how(srv))
	}
	return nil
}

func (s Setup) uninstallProject() error {
	f := s.files()
	w := wiring(s.Exe, "")
	server := projectServer(s.Exe)
	if err := check(w, f.local, f.shared); err != nil {
		return err
	}
	if err := check(server, f.mcp); err != nil {
		return err
	}
	// The approval of a server named cairn that is someone else's is
	// theirs.
	st, _, err := serverIn(server, f.mcp)
	if err != nil {
		return err
	}
	local := w
	if st != settings.OtherServer {
		local.Approve = claudecode.MCPServerName
	}
	removed, err := claudecode.UninstallCommands(s.Root)
	if err != nil {
		return err
	}
	for _, r := range removed {
		fmt.Fprintf(s.Out, "removed the slash command %s\n", r)
	}
	if _, err := f.journal.RemoveDirs(filepath.Join(s.Root, filepath.FromSlash(claudecode.CommandsDir))); err != nil {
		return err
	}
	changed := false
	for _, path := range []string{f.local, f.shared} {
		// The shared file holds cairn's wiring only as an older install
		// left it, hooks and all; a status line of cairn's alone there is
		// the project's own choice, and so is an approval of a server.
		wf := local
		if path == f.shared {
			if !hasHooks(w, path) {
				continue
			}
			wf = w
		}
		res, err := wf.UninstallFile(path, f.journal)
		if err != nil {
			return settingsError(err)
		}
		if res.Changed {
			changed = true
			fmt.Fprintf(s.Out, "took cairn out of %s%s\n", path, how(res))
		}
	}
	// .mcp.json is the team's: cairn's server goes where an install on
	// this machine put it. One that was there already (a teammate's
	// install, committed) is the project's choice.
	if st == settings.OurServer && !f.journal.Recorded(f.mcp) {
		fmt.Fprintf(s.Out, "left cairn's MCP server in %s: no cairn install on this machine put it there (the project's, committed?); take it out of the file if the project no longer wants it\n", f.mcp)
	} else {
		srv, err := server.UninstallFile(f.mcp, f.journal)
		if err != nil {
			return settingsError(err)
		}
		if srv.Changed {
			changed = true
			fmt.Fprintf(s.Out, "took cairn's MCP server out of %s%s\n", f.mcp, how(srv))
		}
	}
	if st == settings.OtherServer {
		s.warn("left the MCP server named %s in %s alone: it is not cairn's", claudecode.MCPServerName, f.mcp)
	}
	if !changed {
		fmt.Fprintf(s.Out, "cairn was not wired into %s, %s or %s; nothing changed there\n", f.local, f.shared, f.mcp)
	}
	if hasHooks(w, f.user) {
		fmt.Fprintf(s.Out, "cairn is still wired for every project in %s: cairn uninstall --user takes it out\n", f.user)
	}
	if st, _, err := serverIn(userServer(s.Exe), f.userConfig); err == nil && st == settings.OurServer {
		fmt.Fprintf(s.Out, "cairn's MCP server is still registered for every project in %s: cairn uninstall --user takes it out\n", f.userConfig)
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
