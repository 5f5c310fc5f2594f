package install

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/claudecode/settings"
)

// Install wires cairn into the project (.claude/settings.local.json and
// the slash commands), or with user into the user's settings, for every
// project.
func (s Setup) Install(user bool) error {
	if user {
		return s.installUser()
	}
	return s.installProject()
}

// Uninstall takes out what Install put in, giving the files back as they
// were before it.
func (s Setup) Uninstall(user bool) error {
	if user {
		return s.uninstallUser()
	}
	return s.uninstallProject()
}

func (s Setup) installUser() error {
	f := s.files()
	w := wiring(s.Exe, "")
	res, err := w.InstallFile(f.user, f.journal)
	if err != nil {
		return settingsError(err)
	}
	if !res.Changed {
		fmt.Fprintf(s.Out, "cairn is already wired into %s; nothing changed\n", f.user)
		return nil
	}
	fmt.Fprintf(s.Out, "wired cairn into %s, for every project: %s, and the status line (chaining yours, if you had one)\n", f.user, strings.Join(claudecode.EventNames(), ", "))
	fmt.Fprintf(s.Out, "the hooks call %s\n", s.Exe)
	fmt.Fprintln(s.Out, "from the next Claude Code session on, cairn checkpoints before every compaction and restores the working state after it")
	return nil
}

func (s Setup) installProject() error {
	f := s.files()
	w := wiring(s.Exe, "")
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
	res, err := wiring(s.Exe, inherited).InstallFile(f.local, f.journal)
	if err != nil {
		return settingsError(err)
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
	if !res.Changed && len(written) == 0 && !moved.Changed {
		fmt.Fprintf(s.Out, "cairn is already wired into %s; nothing changed\n", f.local)
		s.notices()
		return nil
	}
	if res.Changed {
		fmt.Fprintf(s.Out, "wired cairn into %s: %s, and the status line (chaining yours, if you had one)\n", f.local, strings.Join(claudecode.EventNames(), ", "))
		fmt.Fprintf(s.Out, "the hooks call %s; that file is this machine's own: Claude Code reads it for this project, and it is not for committing\n", s.Exe)
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
	res, err := wiring(s.Exe, "").UninstallFile(f.user, f.journal)
	if err != nil {
		return settingsError(err)
	}
	if !res.Changed {
		fmt.Fprintf(s.Out, "cairn was not wired into %s; nothing changed\n", f.user)
		return nil
	}
	fmt.Fprintf(s.Out, "took cairn out of %s%s\n", f.user, how(res))
	return nil
}

func (s Setup) uninstallProject() error {
	f := s.files()
	w := wiring(s.Exe, "")
	if err := check(w, f.local, f.shared); err != nil {
		return err
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
			fmt.Fprintf(s.Out, "took cairn out of %s%s\n", path, how(res))
		}
	}
	if !changed {
		fmt.Fprintf(s.Out, "cairn was not wired into %s or %s; nothing changed there\n", f.local, f.shared)
	}
	if hasHooks(w, f.user) {
		fmt.Fprintf(s.Out, "cairn is still wired for every project in %s: cairn uninstall --user takes it out\n", f.user)
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
