package codex

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/e2e/jobdirs"
)

// Session is a Codex thread run turn by turn with `codex exec`, in a
// CODEX_HOME, HOME and project of its own.
type Session struct {
	Bin      string
	Home     string // HOME, with cairn's XDG directories under it
	CodexDir string // CODEX_HOME
	Project  string
	// Thread is the thread id, once the first turn started it.
	Thread string
	// Env is added to every run (cairn's variables, say).
	Env []string
	// BinDir, when set, is a directory put first on PATH: stand-ins for
	// toolchains the machine may lack.
	BinDir string
}

// Config is config.toml's text for a session against the fake at url:
// compaction at limit tokens of a 200,000 window, the project trusted,
// and the offer of a newer model marked as seen for the models the tests
// use (the TUI shows it a few seconds after its composer, late enough
// under load to swallow what a test types next; "Use existing model"
// writes the same entry).
func Config(url, project string, limit int) string {
	return fmt.Sprintf(`model = "gpt-5.1-codex"
model_provider = "fake"
model_context_window = 200000
model_auto_compact_token_limit = %d
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = %q
env_key = "FAKE_OPENAI_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[projects.%q]
trust_level = "trusted"

[notice.model_migrations]
"gpt-5.1-codex" = "gpt-6-sol"
"gpt-5.5" = "gpt-6-sol"
`, limit, url, project)
}

// NewSession makes the directories, config.toml included, under a test
// temporary directory.
func NewSession(t testing.TB, bin, url string, limit int) *Session {
	t.Helper()
	dir := t.TempDir()
	s := &Session{Bin: bin, Home: filepath.Join(dir, "home"), CodexDir: filepath.Join(dir, "codexhome"), Project: filepath.Join(dir, "proj")}
	jobdirs.RemoveWhenQuiet(t, dir)
	for _, d := range []string{s.Home, s.CodexDir, s.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(s.CodexDir, "config.toml"), []byte(Config(url, s.Project, limit)), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// Environ is the environment of the client and of cairn run for it.
func (s *Session) Environ() []string {
	path := os.Getenv("PATH")
	if s.BinDir != "" {
		path = s.BinDir + string(os.PathListSeparator) + path
	}
	env := []string{
		"PATH=" + path, "HOME=" + s.Home, "CODEX_HOME=" + s.CodexDir, "FAKE_OPENAI_KEY=fake",
		"XDG_STATE_HOME=" + filepath.Join(s.Home, ".local", "state"), "XDG_DATA_HOME=" + filepath.Join(s.Home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(s.Home, ".cache"), "TMPDIR=" + os.TempDir(), "LANG=C.UTF-8", "NO_COLOR=1",
	}
	return append(env, s.Env...)
}

// Turn runs one `codex exec` turn (resuming the thread after the first),
// with hooks run untrusted when bypass is set, and returns its JSONL
// output. Whatever the client left running is killed with its process
// group.
func (s *Session) Turn(ctx context.Context, prompt string, bypass bool) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	args := []string{"exec", "--skip-git-repo-check", "--json", "--dangerously-bypass-approvals-and-sandbox"}
	if bypass {
		args = append(args, "--dangerously-bypass-hook-trust")
	}
	if s.Thread != "" {
		args = append(args, "resume", s.Thread)
	}
	args = append(args, prompt)
	cmd := exec.CommandContext(ctx, s.Bin, args...)
	cmd.Dir = s.Project
	cmd.Env = s.Environ()
	cmd.Stdin = nil
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	setProcessGroup(cmd)
	err := cmd.Run()
	killGroup(cmd)
	if err != nil {
		return out.String(), fmt.Errorf("codex %s: %w\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, tail(out.String(), 3000), tail(errb.String(), 3000))
	}
	if s.Thread == "" {
		sc := bufio.NewScanner(strings.NewReader(out.String()))
		for sc.Scan() {
			var ev struct {
				Type     string `json:"type"`
				ThreadID string `json:"thread_id"`
			}
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "thread.started" {
				s.Thread = ev.ThreadID
			}
		}
		if s.Thread == "" {
			return out.String(), fmt.Errorf("codex exec printed no thread.started:\n%s\nstderr: %s", tail(out.String(), 3000), tail(errb.String(), 3000))
		}
	}
	return out.String(), nil
}

// Rollout is the thread's rollout file.
func (s *Session) Rollout() (string, error) {
	m, _ := filepath.Glob(filepath.Join(s.CodexDir, "sessions", "*", "*", "*", "rollout-*-"+s.Thread+".jsonl"))
	if len(m) != 1 {
		return "", fmt.Errorf("rollout of thread %s: found %v", s.Thread, m)
	}
	return m[0], nil
}
