package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/e2e/codex"
	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// TestHandoffClaudeCodeToCodex: a handoff written in a Claude Code
// session (its /handoff command, on the real client against the fake
// API) resumes in Codex CLI. The first request of a new Codex session in
// the project carries the pointer to it, naming Claude Code and the
// command that prints it for Codex, and that command prints the handoff
// framed for Codex.
func TestHandoffClaudeCodeToCodex(t *testing.T) {
	cbin := codex.Require(t)
	b := newBench(t, fakeapi.Options{})
	s := b.s
	root := filepath.Dir(s.ProjectDir)
	// One state and data directory for both clients' hooks, as a user's
	// would be; /handoff runs cairn from PATH.
	shared := []string{"XDG_STATE_HOME=" + filepath.Join(root, "state"), "XDG_DATA_HOME=" + filepath.Join(root, "data")}
	s.Env = append(s.Env, shared...)
	s.Env = append(s.Env, "PATH="+filepath.Dir(built.bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	installCairn(t, s)

	b.fake.Enqueue(reply("I decided to store amounts as integer cents, because float64 rounds the ledger totals wrong.", 3000))
	s.MustTurn(t, "Fix ticket BILL-4821: the ledger rounds totals wrong in internal/billing/ledger.go.")
	b.fake.Enqueue(reply("The handoff is written.", 3200))
	s.MustTurn(t, "/handoff Codex takes over from here")
	hs := handoffFiles(s)
	if len(hs) != 1 {
		t.Fatalf("/handoff wrote %d handoff documents, want 1: %v\ncairn log:\n%s", len(hs), hs, readLog(root))
	}
	doc, err := os.ReadFile(hs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"client: claude-code", "session_id: " + s.ID, "BILL-4821"} {
		if !strings.Contains(string(doc), w) {
			t.Errorf("the handoff lacks %q:\n%s", w, doc)
		}
	}

	fake := startFake(t)
	cs := codex.NewSession(t, cbin, fake.URL, 50000)
	cs.Project, cs.Env = s.ProjectDir, shared
	if err := os.WriteFile(filepath.Join(cs.CodexDir, "config.toml"), []byte(codex.Config(fake.URL, cs.Project, 50000)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := runCairnCodex(cs, "install", "--agent", "codex"); err != nil {
		t.Fatal(err)
	}
	fake.Script(codex.Reply{Text: "Continuing the ledger fix."})
	if _, err := cs.Turn(context.Background(), "Continue where the last session stopped.", true); err != nil {
		t.Fatal(err)
	}
	reqs := fake.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the fake Responses API")
	}
	rel, _ := filepath.Rel(s.ProjectDir, hs[0])
	var pointer string
	for _, m := range reqs[0].Messages() {
		if strings.Contains(m.Text, "a handoff from an earlier Claude Code session") {
			pointer = m.Text
			if m.Role != "developer" {
				t.Errorf("the pointer came as a %s message, want developer", m.Role)
			}
		}
	}
	if pointer == "" {
		for _, m := range reqs[0].Messages() {
			t.Logf("%s: %.400q", m.Role, m.Text)
		}
		t.Fatalf("the first request of the Codex session does not point at the Claude Code session's handoff\ncairn.log:\n%s", cairnLog(cs))
	}
	for _, w := range []string{filepath.ToSlash(rel), "BILL-4821", "`cairn resume --agent codex` prints it"} {
		if !strings.Contains(pointer, w) {
			t.Errorf("the pointer lacks %q:\n%s", w, pointer)
		}
	}
	t.Logf("the pointer in the Codex session's first request:\n%s", pointer)

	out, err := runCairnCodex(cs, "resume", "--agent", "codex")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"# Resuming earlier work in Codex CLI (cairn)", "written by Claude Code session " + s.ID, "That work ran in Claude Code, not in Codex CLI", "integer cents"} {
		if !strings.Contains(string(out), w) {
			t.Errorf("cairn resume --agent codex lacks %q:\n%s", w, out)
		}
	}
	if l := cairnLog(cs); l != "" {
		t.Errorf("cairn.log:\n%s", l)
	}
}

func readLog(root string) string {
	data, _ := os.ReadFile(filepath.Join(root, "state", "cairn", "cairn.log"))
	return string(data)
}
