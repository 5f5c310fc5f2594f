package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// DefaultTurnTimeout bounds one client invocation. A turn against the fake
// API takes about a second; a hung client must fail the test, not hang it.
const DefaultTurnTimeout = 120 * time.Second

// Session is one Claude Code conversation in its own project directory and
// configuration directory. The first Turn starts it; later turns resume it.
type Session struct {
	// Bin is the claude binary (see Require).
	Bin string
	// BaseURL is the fake API's URL; the client is never pointed anywhere else.
	BaseURL string
	// ProjectDir is the working directory of the client: a git repository
	// with one commit. It is the resolved path (no symlinks), which is what
	// the client records as cwd.
	ProjectDir string
	// ConfigDir is CLAUDE_CONFIG_DIR: settings, .claude.json and transcripts.
	ConfigDir string
	// HomeDir is HOME for the client, so nothing of the developer's home
	// (git identity, ~/.claude) leaks into a run.
	HomeDir string
	// TempDir is TMPDIR for the client, which keeps its scratch files
	// (background task output, shell snapshots) with the test's.
	TempDir string
	// Env holds extra KEY=VALUE pairs for every turn, for example
	// CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000. Later entries win.
	Env []string
	// PermissionMode is passed as --permission-mode when not empty
	// (acceptEdits lets Write and Edit run).
	PermissionMode string
	// AllowedTools is passed as --allowedTools when not empty, e.g.
	// "Bash(echo:*)".
	AllowedTools []string
	// Args are more arguments for every invocation, e.g. --plugin-dir DIR.
	Args []string
	// Timeout bounds each invocation; zero means DefaultTurnTimeout.
	Timeout time.Duration
	// ID is the session id, set by the first Turn.
	ID string
}

// Result is what one invocation printed.
type Result struct {
	Args     []string
	Stdout   string
	Stderr   string
	Duration time.Duration
	// JSON is the parsed --output-format json result: session_id, result,
	// is_error, usage...
	JSON map[string]any
}

func (r Result) String() string {
	return fmt.Sprintf("claude %s (%s)\nstdout:\n%s\nstderr:\n%s", strings.Join(r.Args, " "), r.Duration.Round(time.Millisecond), tail(r.Stdout, 8000), tail(r.Stderr, 8000))
}

// NewSession prepares a session in temporary directories owned by t: a
// project directory initialised as a git repository with one commit (real
// users have one, and the client reads the branch), an empty config
// directory and an empty home.
func NewSession(t testing.TB, bin, baseURL string) *Session {
	t.Helper()
	return NewSessionAt(t, bin, baseURL, "project")
}

// NewSessionAt is NewSession with the project directory's base name chosen,
// to check how the client derives transcript paths from unusual names.
func NewSessionAt(t testing.TB, bin, baseURL, name string) *Session {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatalf("resolve temp dir: %v", err)
	}
	s := &Session{
		Bin:        bin,
		BaseURL:    baseURL,
		ProjectDir: filepath.Join(root, name),
		ConfigDir:  filepath.Join(root, "config"),
		HomeDir:    filepath.Join(root, "home"),
		TempDir:    filepath.Join(root, "tmp"),
	}
	for _, d := range []string{s.ProjectDir, s.ConfigDir, s.HomeDir, s.TempDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("create %s: %v", d, err)
		}
	}
	if err := os.WriteFile(filepath.Join(s.ProjectDir, "README.md"), []byte("# bench project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "README.md"},
		{"commit", "-q", "-m", "initial commit"},
	} {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = s.ProjectDir
		cmd.Env = s.gitEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return s
}

// gitEnv isolates git from the developer's global configuration and gives
// it an identity.
func (s *Session) gitEnv() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + s.HomeDir,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Cairn Bench", "GIT_AUTHOR_EMAIL=bench@example.invalid",
		"GIT_COMMITTER_NAME=Cairn Bench", "GIT_COMMITTER_EMAIL=bench@example.invalid",
	}
}

// Environ is the complete environment of a client invocation. It is built
// from scratch rather than inherited, so that variables of a Claude Code the
// developer may be running the tests from (ANTHROPIC_*, CLAUDE_CODE_*) never
// reach the client under test.
func (s *Session) Environ() []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + s.HomeDir,
		"PWD=" + s.ProjectDir,
		"SHELL=/bin/bash",
		"LANG=C.UTF-8",
		"TERM=dumb",
		"TMPDIR=" + s.TempDir,
		"GIT_CONFIG_NOSYSTEM=1",
		"CLAUDE_CONFIG_DIR=" + s.ConfigDir,
		"ANTHROPIC_BASE_URL=" + s.BaseURL,
		"ANTHROPIC_API_KEY=test",
		"DISABLE_TELEMETRY=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
	}
	return append(env, s.Env...)
}

// Turn sends one prompt: the first call starts the session with
// `claude -p PROMPT --output-format json` and records the session id, later
// calls add `--resume ID`. "/compact ..." prompts run the slash command.
// An error is returned when the client fails, times out, or reports
// is_error; the Result is filled in either case.
func (s *Session) Turn(ctx context.Context, prompt string) (Result, error) {
	timeout := s.Timeout
	if timeout == 0 {
		timeout = DefaultTurnTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	// The prompt goes right after -p: --allowedTools takes a variable
	// number of values and would swallow a prompt placed after it.
	args := []string{"-p", prompt, "--output-format", "json"}
	if s.ID != "" {
		args = append(args, "--resume", s.ID)
	}
	if s.PermissionMode != "" {
		args = append(args, "--permission-mode", s.PermissionMode)
	}
	args = append(args, s.Args...)
	if len(s.AllowedTools) > 0 {
		args = append(args, "--allowedTools", strings.Join(s.AllowedTools, ","))
	}
	cmd := exec.CommandContext(ctx, s.Bin, args...)
	cmd.Dir = s.ProjectDir
	cmd.Env = s.Environ()
	setProcessGroup(cmd)
	// Tool subprocesses (Bash) may keep the output pipes open after the
	// client is killed; WaitDelay stops Wait from waiting on them forever.
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	res := Result{Args: args, Stdout: stdout.String(), Stderr: stderr.String(), Duration: time.Since(start)}
	if ctx.Err() != nil {
		return res, fmt.Errorf("claude timed out after %s: %w", timeout, errors.Join(err, ctx.Err()))
	}
	if err != nil {
		return res, fmt.Errorf("claude: %w", err)
	}
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &res.JSON); err != nil {
		return res, fmt.Errorf("claude printed no JSON result: %w", err)
	}
	id, _ := res.JSON["session_id"].(string)
	if s.ID == "" {
		if id == "" {
			return res, errors.New("claude printed no session_id")
		}
		s.ID = id
	} else if id != "" && id != s.ID {
		return res, fmt.Errorf("resumed session %s but claude answered for %s", s.ID, id)
	}
	if isErr, _ := res.JSON["is_error"].(bool); isErr {
		return res, fmt.Errorf("claude reported an error: %v", res.JSON["result"])
	}
	return res, nil
}

// MustTurn is Turn that fails the test on error, printing what the client
// said.
func (s *Session) MustTurn(t testing.TB, prompt string) Result {
	t.Helper()
	res, err := s.Turn(context.Background(), prompt)
	if err != nil {
		t.Fatalf("turn %q: %v\n%s", prompt, err, res)
	}
	return res
}

// ProjectKey is the directory name Claude Code gives a project under
// $CLAUDE_CONFIG_DIR/projects: the cwd (symlinks resolved: the client
// records the real path even when PWD is a symlink) with every UTF-16 code
// unit that is not an ASCII letter or digit replaced by '-', as the
// client's JavaScript does. Past 200 characters the client truncates and
// appends a hash this package does not reproduce, so that case is an error.
func ProjectKey(cwd string) (string, error) {
	var b strings.Builder
	for _, r := range cwd {
		if r < utf8.RuneSelf && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			b.WriteRune(r)
			continue
		}
		n := utf16.RuneLen(r)
		if n < 1 {
			n = 1 // invalid UTF-8 decodes to U+FFFD, one code unit
		}
		b.WriteString(strings.Repeat("-", n))
	}
	if b.Len() > 200 {
		return "", fmt.Errorf("project path %q is longer than 200 characters once sanitised", cwd)
	}
	return b.String(), nil
}

// TranscriptPath is where the client writes this session's transcript:
// $CLAUDE_CONFIG_DIR/projects/<ProjectKey(cwd)>/<session id>.jsonl.
func (s *Session) TranscriptPath() (string, error) {
	if s.ID == "" {
		return "", errors.New("session not started")
	}
	key, err := ProjectKey(s.ProjectDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(s.ConfigDir, "projects", key, s.ID+".jsonl"), nil
}

// MustTranscript returns the transcript path and fails the test if the file
// is not there, listing what the client did write.
func (s *Session) MustTranscript(t testing.TB) string {
	t.Helper()
	p, err := s.TranscriptPath()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		found, _ := filepath.Glob(filepath.Join(s.ConfigDir, "projects", "*", "*.jsonl"))
		t.Fatalf("transcript not where expected: %v\nfound: %v", err, found)
	}
	return p
}
