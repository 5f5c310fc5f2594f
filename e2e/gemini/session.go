package gemini

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/e2e/jobdirs"
)

// Session is a Gemini CLI chat run turn by turn with `gemini -p`, resumed
// after the first, in a GEMINI_CLI_HOME, HOME and project of its own.
type Session struct {
	Bin     string
	Home    string // HOME and GEMINI_CLI_HOME, with cairn's XDG directories under it
	Project string
	URL     string // the fake's
	// Turns is how many turns ran.
	Turns int
	// Env is added to every run (cairn's variables, say).
	Env []string
}

// Settings is the user's settings.json for a session offline: API-key
// auth, no folder trust, no telemetry or updates, and compression at
// threshold of the model's 1,048,576-token limit.
func Settings(threshold float64) string {
	return fmt.Sprintf(`{
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "model": {"compressionThreshold": %g}
}
`, threshold)
}

// NewSession makes the directories, the user's settings.json included,
// under a test temporary directory.
func NewSession(t testing.TB, bin, url string, threshold float64) *Session {
	t.Helper()
	dir := t.TempDir()
	s := &Session{Bin: bin, Home: filepath.Join(dir, "home"), Project: filepath.Join(dir, "proj"), URL: url}
	jobdirs.RemoveWhenQuiet(t, dir)
	for _, d := range []string{filepath.Join(s.Home, ".gemini"), s.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(s.Home, ".gemini", "settings.json"), []byte(Settings(threshold)), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// Environ is the environment of the client and of cairn run for it.
func (s *Session) Environ() []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + s.Home, "GEMINI_CLI_HOME=" + s.Home, "GEMINI_API_KEY=dummy",
		"GOOGLE_GEMINI_BASE_URL=" + s.URL,
		"XDG_STATE_HOME=" + filepath.Join(s.Home, ".local", "state"), "XDG_DATA_HOME=" + filepath.Join(s.Home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(s.Home, ".cache"), "TMPDIR=" + os.TempDir(), "LANG=C.UTF-8", "NO_COLOR=1",
	}
	return append(env, s.Env...)
}

// Turn runs one `gemini -p` turn (resuming the latest chat after the
// first), tools approved, and returns its JSON output. Whatever the
// client left running is killed with its process group.
func (s *Session) Turn(ctx context.Context, prompt string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	args := []string{"-p", prompt, "-m", "gemini-2.5-pro", "-y", "--output-format", "json"}
	if s.Turns > 0 {
		args = append(args, "--resume", "latest")
	}
	cmd := exec.CommandContext(ctx, s.Bin, args...)
	cmd.Dir = s.Project
	cmd.Env = s.Environ()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	setProcessGroup(cmd)
	err := cmd.Run()
	killGroup(cmd)
	if err != nil {
		return out.String(), fmt.Errorf("gemini %s: %w\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, tail(out.String(), 3000), tail(errb.String(), 3000))
	}
	s.Turns++
	return out.String(), nil
}

// Chats are the chat files of the project's sessions.
func (s *Session) Chats() []string {
	m, _ := filepath.Glob(filepath.Join(s.Home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	return m
}
