package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/claudecode/settings"
	"github.com/cairn-agent/cairn/internal/git"
)

// Notes are what install cannot fix by itself, for install and doctor: a
// settings.local.json git would commit, and slash commands or an MCP
// server (in .mcp.json) that would not find cairn.
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
func (s Setup) Notes() []string {
	var notes []string
	local := filepath.Join(".claude", "settings.local.json")
	if _, err := os.Stat(filepath.Join(s.Root, local)); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		tracked, err := git.Tracked(ctx, s.Root, local)
		ignored := false
		if err == nil && !tracked {
			ignored, err = git.Ignored(ctx, s.Root, local)
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
	var callers []string
	if slashInstalled(s.Root) {
		callers = append(callers, "the slash commands (/checkpoint, /handoff, ...)")
	}
	if s.serverFromPATH() {
		callers = append(callers, "the MCP server of .mcp.json")
	}
	if len(callers) > 0 {
		who := strings.Join(callers, " and ")
		switch found := lookPath(s.PATH, claudecode.Program); {
		case found == "":
			notes = append(notes, fmt.Sprintf("%s call %s from PATH, and PATH has none: add %s to PATH", who, claudecode.Program, filepath.Dir(s.Exe)))
		case found != s.Exe:
			notes = append(notes, fmt.Sprintf("%s call %s from PATH, which is %s, not this cairn (%s)", who, claudecode.Program, found, s.Exe))
		}
	}
	return notes
}

// serverFromPATH reports whether the project's .mcp.json runs cairn's
// MCP server by a bare name, which the client finds on its PATH.
func (s Setup) serverFromPATH() bool {
	st, cmd, err := serverIn(projectServer(s.Exe), s.files().mcp)
	return err == nil && st == settings.OurServer && !strings.ContainsRune(cmd, filepath.Separator)
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
