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
	"strings"

	"github.com/cairn-agent/cairn/internal/claudecode/settings"
	"github.com/cairn-agent/cairn/internal/gemini"
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

func geminiWiring(exe string) settings.Wiring {
	return agentWiring(exe, "gemini", gemini.Events, gemini.TimeoutMillis)
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
	if err := checkGemini(w, path); err != nil {
		return err
	}
	if err := s.wireAgent(w, path, user, "gemini", gemini.Events); err != nil {
		return err
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

// geminiWiring is the doctor's check of Gemini CLI: cairn's hooks in the
// project's .gemini/settings.json and in the user's, and whether they run
// this cairn with its timeouts.
func (d Doctor) geminiWiring(r *Report) bool {
	w := geminiWiring(d.Exe)
	files := []hookFile{
		{d.geminiSettings(false), "cairn install --agent gemini", "this project"},
	}
	if d.GeminiHome != "" {
		files = append(files, hookFile{d.geminiSettings(true), "cairn install --agent gemini --user", "every project"})
	} else {
		r.add(Wiring, Info, "", "no Gemini CLI home (neither GEMINI_CLI_HOME nor HOME is set): the user's settings.json not checked")
	}
	var wired []string
	for _, file := range files {
		// Comments are Gemini CLI's to read and cairn's to leave alone:
		// look for the hooks in the file without them.
		_, have, ok := foundHooks(r, file.path, func(data []byte) ([]settings.Hook, error) {
			return w.Installed(gemini.StripComments(data))
		})
		if !ok {
			continue
		}
		wired = append(wired, file.path)
		d.checkHooks(r, file, w.Hooks, have)
	}
	if len(wired) > 1 {
		r.add(Wiring, Note, "", "cairn is wired into both %s: Gemini CLI reads both, and each hook runs twice; keep one (cairn uninstall --agent gemini, or with --user)", strings.Join(wired, " and "))
	}
	return len(wired) > 0
}
