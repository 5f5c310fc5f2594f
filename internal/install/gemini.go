package install

// Gemini CLI's wiring: cairn's hooks in a settings.json whose "hooks" have
// the shape of Claude Code's (timeouts in milliseconds), edited by
// claudecode/settings, so that uninstall gives the file back byte for
// byte. Gemini CLI runs hooks without a trust step when folder trust is
// off, and by default (hooksConfig.enabled is true unless set false).

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cairn-agent/cairn/internal/claudecode/settings"
	"github.com/cairn-agent/cairn/internal/gemini"
	"github.com/cairn-agent/cairn/internal/shell"
)

// geminiSettings is the settings.json cairn wires for Gemini CLI: the
// project's .gemini/settings.json, or with user the one in Gemini CLI's
// home ($GEMINI_CLI_HOME/.gemini or ~/.gemini).
func (s Setup) geminiSettings(user bool) string {
	if user {
		return gemini.UserSettings(s.GeminiHome)
	}
	return gemini.ProjectSettings(s.Root)
}

// geminiCommand is the hook command for event, calling exe.
func geminiCommand(exe, event string) string {
	return shell.Quote(exe) + " hook --agent gemini " + event
}

// geminiOurs recognises cairn's Gemini hook commands: "<…/cairn…> hook
// --agent gemini EVENT" for an event cairn handles, or exe itself
// whatever its name.
func geminiOurs(exe string) func(string) bool {
	return func(command string) bool {
		word, rest := shell.FirstWord(strings.TrimSpace(command))
		f := strings.Fields(rest)
		if len(f) != 4 || f[0] != "hook" || f[1] != "--agent" || f[2] != "gemini" {
			return false
		}
		if _, ok := gemini.Events.Lookup(f[3]); !ok {
			return false
		}
		return word == exe || strings.HasPrefix(filepath.Base(word), "cairn")
	}
}

func geminiWiring(exe string) settings.Wiring {
	var hs []settings.Hook
	for _, ev := range gemini.Events {
		hs = append(hs, settings.Hook{Event: ev.Name, Command: geminiCommand(exe, ev.Name), Timeout: gemini.TimeoutMillis(ev)})
	}
	return settings.Wiring{Hooks: hs, IsOurs: geminiOurs(exe)}
}

// errGeminiComments is why cairn leaves a settings.json with comments
// alone: Gemini CLI reads them, but cairn's editor, which gives files
// back byte for byte, takes JSON only.
var errGeminiComments = errors.New("has comments, which Gemini CLI reads but cairn cannot edit and give back byte for byte: " +
	"move the comments out (or add cairn's hooks by hand, as cairn install --agent gemini would in a file without comments)")

// checkGemini refuses, before anything changes, a settings.json cairn
// cannot edit.
func checkGemini(w settings.Wiring, path string) error {
	data, err := read(path)
	if err != nil {
		return settingsError(err)
	}
	if !bytes.Equal(gemini.StripComments(data), data) {
		return settingsError(fmt.Errorf("%s %w", path, errGeminiComments))
	}
	return check(w, path)
}

// InstallGemini wires cairn's hooks into Gemini CLI: the project's
// .gemini/settings.json, or with user the user's.
func (s Setup) InstallGemini(user bool) error {
	if user && s.GeminiHome == "" {
		return errors.New("no Gemini CLI home: set GEMINI_CLI_HOME or HOME")
	}
	path := s.geminiSettings(user)
	w := geminiWiring(s.Exe)
	f := s.files()
	if err := checkGemini(w, path); err != nil {
		return err
	}
	res, err := w.InstallFile(path, f.journal)
	if err != nil {
		return settingsError(err)
	}
	where := "for this project"
	if user {
		where = "for every project"
	}
	if res.Changed {
		fmt.Fprintf(s.Out, "wired cairn's hooks into %s, %s: %s\n", path, where, strings.Join(gemini.Events.Names(), ", "))
		fmt.Fprintf(s.Out, "the hooks call %s hook --agent gemini\n", s.Exe)
	} else {
		fmt.Fprintf(s.Out, "cairn's hooks are already in %s; nothing changed there\n", path)
	}
	fmt.Fprintln(s.Out, "from the next Gemini CLI session on, cairn checkpoints before a compression and restores the working state with your next prompt after it (Gemini CLI fires no event after a compression, and shows the summariser nothing of cairn's: no steering)")
	return nil
}

// UninstallGemini takes cairn's hooks out of settings.json, giving it
// back as it was.
func (s Setup) UninstallGemini(user bool) error {
	if user && s.GeminiHome == "" {
		return errors.New("no Gemini CLI home: set GEMINI_CLI_HOME or HOME")
	}
	path := s.geminiSettings(user)
	w := geminiWiring(s.Exe)
	if err := checkGemini(w, path); err != nil {
		return err
	}
	res, err := w.UninstallFile(path, s.files().journal)
	if err != nil {
		return settingsError(err)
	}
	if res.Changed {
		fmt.Fprintf(s.Out, "took cairn's hooks out of %s%s\n", path, how(res))
	} else {
		fmt.Fprintf(s.Out, "cairn was not wired into %s; nothing changed\n", path)
	}
	return nil
}
