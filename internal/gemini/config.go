package gemini

// Gemini CLI's settings, as much as cairn reads of them: where they live
// and model.compressionThreshold, the one number the meter needs beyond
// the chat file. Gemini CLI strips comments before it parses a
// settings.json, so cairn does too.

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/cairn-agent/cairn/internal/meter"
)

// Home is Gemini CLI's configuration directory: $GEMINI_CLI_HOME/.gemini,
// else ~/.gemini.
func Home(getenv func(string) string) (string, error) {
	if d := getenv("GEMINI_CLI_HOME"); d != "" {
		d, err := filepath.Abs(d)
		return filepath.Join(d, ".gemini"), err
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("neither GEMINI_CLI_HOME nor HOME is set")
	}
	return filepath.Join(home, ".gemini"), nil
}

// UserSettings is the user's settings.json, for every project.
func UserSettings(home string) string { return filepath.Join(home, "settings.json") }

// ProjectSettings is a project's settings.json, which overrides the
// user's.
func ProjectSettings(project string) string {
	return filepath.Join(project, ".gemini", "settings.json")
}

// Rules are the meter's rules for Gemini CLI: the window override
// (cairn's --window, CAIRN_CONTEXT_WINDOW) and model.compressionThreshold
// from the user's settings.json, where the project's overrides it. A file
// that is missing, unreadable or not JSON says nothing.
func Rules(getenv func(string) string, project string, window int64) meter.GeminiRules {
	r := meter.GeminiRules{Window: window}
	var files []string
	if home, err := Home(getenv); err == nil {
		files = append(files, UserSettings(home))
	}
	if project != "" {
		files = append(files, ProjectSettings(project))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if t, ok := Threshold(data); ok {
			r.Threshold = t
		}
	}
	return r
}

// Threshold reads model.compressionThreshold from a settings document; a
// value that is not a fraction in (0, 1] is as good as missing.
func Threshold(doc []byte) (float64, bool) {
	var s struct {
		Model struct {
			CompressionThreshold *float64 `json:"compressionThreshold"`
		} `json:"model"`
	}
	if json.Unmarshal(StripComments(doc), &s) != nil {
		return 0, false
	}
	t := s.Model.CompressionThreshold
	if t == nil || *t <= 0 || *t > 1 {
		return 0, false
	}
	return *t, true
}

// StripComments blanks out // and /* */ comments outside strings, as the
// strip-json-comments package Gemini CLI uses does: each comment byte
// becomes a space, line breaks stay, so positions in errors still hold.
func StripComments(doc []byte) []byte {
	out := make([]byte, len(doc))
	copy(out, doc)
	inString := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				if out[i] != '\r' {
					out[i] = ' '
				}
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			for i += 2; i < len(out); i++ {
				if out[i] == '*' && i+1 < len(out) && out[i+1] == '/' {
					out[i], out[i+1] = ' ', ' '
					i++
					break
				}
				if out[i] != '\n' && out[i] != '\r' {
					out[i] = ' '
				}
			}
		}
	}
	return out
}
