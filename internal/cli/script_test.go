package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/golden"
	"github.com/cairn-agent/cairn/internal/state"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/codex"
	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"cairn": func() { os.Exit(Main()) },
	})
}

// The CLI as a user meets it: testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	fx, err := fixtures.Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: golden.Updating(),
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, "home")
			e.Setenv("HOME", home)
			e.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, ".claude"))
			e.Setenv("CODEX_HOME", filepath.Join(home, ".codex"))
			e.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
			e.Setenv("FIXTURES", fx)
			e.Setenv("TZ", "UTC")
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// exits N PROGRAM [ARGS...]: runs the program as exec does, and
			// fails unless it exits N.
			"exits": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exits N PROGRAM [ARGS...]")
				}
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				code := 0
				var ee *exec.ExitError
				if err := ts.Exec(args[1], args[2:]...); errors.As(err, &ee) {
					code = ee.ExitCode()
				} else if err != nil {
					ts.Fatalf("%v", err)
				}
				if code != want {
					ts.Fatalf("%s exited %d, want %d", args[1], code, want)
				}
			},
			// session NAME PROJECT [AGE]: puts a fixture transcript (and its
			// subagents) where Claude Code would have written it for a
			// project at PROJECT, last modified AGE ago.
			"session": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) < 2 {
					ts.Fatalf("usage: session NAME PROJECT [AGE]")
				}
				project := ts.MkAbs(args[1])
				ts.Check(os.MkdirAll(project, 0o755))
				dir := filepath.Join(ts.Getenv("CLAUDE_CONFIG_DIR"), "projects", claudecode.ProjectKey(project))
				ts.Check(os.MkdirAll(dir, 0o755))
				src := filepath.Join(fx, args[0])
				dst := filepath.Join(dir, args[0])
				data, err := os.ReadFile(src + ".jsonl")
				ts.Check(err)
				ts.Check(os.WriteFile(dst+".jsonl", data, 0o644))
				if fi, err := os.Stat(src); err == nil && fi.IsDir() {
					ts.Check(os.CopyFS(dst, os.DirFS(src)))
				}
				ageFile(ts, dst+".jsonl", args[2:])
			},
			// grow NAME PROJECT AGE: appends a turn (a prompt and a reply
			// of 150,000 tokens) to the transcript session NAME PROJECT put
			// there, last modified AGE ago: a session resumed.
			"grow": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 3 {
					ts.Fatalf("usage: grow NAME PROJECT AGE")
				}
				dst := filepath.Join(ts.Getenv("CLAUDE_CONFIG_DIR"), "projects", claudecode.ProjectKey(ts.MkAbs(args[1])), args[0]+".jsonl")
				f, err := os.OpenFile(dst, os.O_APPEND|os.O_WRONLY, 0)
				ts.Check(err)
				stamp := time.Now().UTC().Format(time.RFC3339Nano)
				_, err = fmt.Fprintf(f, `{"type":"user","sessionId":%q,"timestamp":%q,"message":{"role":"user","content":"one more thing"}}`+"\n"+
					`{"type":"assistant","sessionId":%q,"timestamp":%q,"message":{"id":"msg_grow","model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":150000}}}`+"\n",
					args[0], stamp, args[0], stamp)
				ts.Check(err)
				ts.Check(f.Close())
				age, err := time.ParseDuration(args[2])
				ts.Check(err)
				when := time.Now().Add(-age)
				ts.Check(os.Chtimes(dst, when, when))
				// A resumed session's hooks mark its transcript for the
				// listing's copy, which is trusted otherwise (an append
				// does not change the folder's mtime): without the mark the
				// line read depends on whether the copy was made within two
				// seconds of the folder's change, as under load it is not.
				stateDir, err := state.Dir(ts.Getenv)
				ts.Check(err)
				ts.Check(claudecode.Listing{Dir: claudecode.ListingDir(stateDir), Now: time.Now}.Touched(dst))
			},
			// rollout NAME PROJECT [AGE]: puts a Codex CLI rollout of
			// internal/transcript/testdata/codex where Codex would have
			// written it for a session run in PROJECT, last modified AGE
			// ago.
			"rollout": func(ts *testscript.TestScript, neg bool, args []string) {
				project, data := agentFixture(ts, "rollout", "codex", args)
				first, _, _ := bytes.Cut(data, []byte("\n"))
				id, cwd, ok := codex.ParseMeta(first)
				if !ok {
					ts.Fatalf("%s: no session_meta", args[0])
				}
				data = bytes.ReplaceAll(data, []byte(strconv.Quote(cwd)), []byte(strconv.Quote(project)))
				dir := filepath.Join(ts.Getenv("CODEX_HOME"), "sessions", "2026", "11", "24")
				ts.Check(os.MkdirAll(dir, 0o755))
				dst := filepath.Join(dir, "rollout-2026-11-24T08-13-28-"+id+".jsonl")
				ts.Check(os.WriteFile(dst, data, 0o644))
				ageFile(ts, dst, args[2:])
			},
			// chat NAME PROJECT [AGE]: puts a Gemini CLI chat of
			// internal/transcript/testdata/gemini where Gemini CLI would
			// have written it for a session run in PROJECT, last modified
			// AGE ago.
			"chat": func(ts *testscript.TestScript, neg bool, args []string) {
				project, data := agentFixture(ts, "chat", "gemini", args)
				var head struct {
					SessionID string `json:"sessionId"`
				}
				first, _, _ := bytes.Cut(data, []byte("\n"))
				if json.Unmarshal(first, &head) != nil || len(head.SessionID) < 8 {
					ts.Fatalf("%s: no header with a session id", args[0])
				}
				dir := filepath.Join(ts.Getenv("HOME"), ".gemini", "tmp", filepath.Base(project))
				ts.Check(os.MkdirAll(filepath.Join(dir, "chats"), 0o755))
				ts.Check(os.WriteFile(filepath.Join(dir, ".project_root"), []byte(project), 0o644))
				dst := filepath.Join(dir, "chats", "session-2026-11-24T14-38-"+head.SessionID[:8]+".jsonl")
				ts.Check(os.WriteFile(dst, data, 0o644))
				ageFile(ts, dst, args[2:])
			},
		},
	})
}

// ageFile sets path's times to the age in age[0] ago, if given.
func ageFile(ts *testscript.TestScript, path string, age []string) {
	if len(age) == 0 {
		return
	}
	d, err := time.ParseDuration(age[0])
	ts.Check(err)
	when := time.Now().Add(-d)
	ts.Check(os.Chtimes(path, when, when))
}

// agentFixture makes the project directory args[1] and reads the
// transcript args[0] of internal/transcript/testdata/<client> for the
// command named cmd.
func agentFixture(ts *testscript.TestScript, cmd, client string, args []string) (project string, data []byte) {
	if len(args) < 2 {
		ts.Fatalf("usage: %s NAME PROJECT [AGE]", cmd)
	}
	project = ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(project, 0o755))
	data, err := os.ReadFile(filepath.Join("..", "transcript", "testdata", client, args[0]+".jsonl"))
	ts.Check(err)
	return project, data
}
