package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/e2e/codex"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// runCairnCodex runs the cairn binary in a Codex session's project with
// its environment.
func runCairnCodex(s *codex.Session, args ...string) ([]byte, error) {
	return runCairnIn(s.Project, s.Environ(), args...)
}

// runCairnIn runs the cairn binary in dir with env as its whole
// environment, for a minute at most; the error holds what it printed.
func runCairnIn(dir string, env []string, args ...string) ([]byte, error) {
	if built.err != nil {
		return nil, fmt.Errorf("cairn did not build: %w", built.err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, built.bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("cairn %s: %w\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), errors.Join(err, ctx.Err()), stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes(), nil
}

func startFake(t *testing.T) *codex.Fake {
	t.Helper()
	f, err := codex.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.Close()
		for _, err := range f.Errs() {
			t.Errorf("fake Responses API: %v", err)
		}
	})
	return f
}

func cairnLog(s *codex.Session) string {
	data, _ := os.ReadFile(filepath.Join(s.Home, ".local", "state", "cairn", "cairn.log"))
	return string(data)
}

// TestCodexRestoreAfterAutoCompaction drives the real Codex CLI through
// an auto compaction with cairn's hooks installed (`cairn install --agent
// codex`): the first model request after the compaction must carry
// cairn's restore, once, as a developer message, with the facts planted
// before it.
func TestCodexRestoreAfterAutoCompaction(t *testing.T) {
	bin := codex.Require(t)
	if built.err != nil {
		t.Fatal(built.err)
	}
	fake := startFake(t)
	s := codex.NewSession(t, bin, fake.URL, 50000)
	os.MkdirAll(filepath.Join(s.Project, "internal", "billing"), 0o755)
	os.WriteFile(filepath.Join(s.Project, "internal", "billing", "ledger.go"), []byte("package billing\n\nvar total float64\n"), 0o644)
	if out, err := runCairnCodex(s, "install", "--agent", "codex"); err != nil {
		t.Fatal(err)
	} else {
		t.Logf("cairn install --agent codex:\n%s", out)
	}
	ctx := context.Background()
	facts := []string{"BILL-4821", "internal/billing/ledger.go", "integer cents", "--keep-header-order"}

	fake.Script(codex.Reply{Command: "cat internal/billing/ledger.go", Text: "I read internal/billing/ledger.go: totals are float64.", InputTokens: 1000})
	if _, err := s.Turn(ctx, "Fix ticket BILL-4821: the ledger rounds totals wrong in internal/billing/ledger.go. Decision: store amounts as integer cents, never float64.", true); err != nil {
		t.Fatal(err)
	}
	// The context the fake reports now is over the limit: Codex compacts
	// before the next turn's request.
	fake.Script(codex.Reply{Text: "Noted: the CSV export keeps its header order.", InputTokens: 99000})
	if _, err := s.Turn(ctx, "Also keep the CSV export header stable; the flag is --keep-header-order.", true); err != nil {
		t.Fatal(err)
	}
	before := len(fake.Requests())
	fake.Script(codex.Reply{Text: "Continuing with the fix.", InputTokens: 2000})
	if _, err := s.Turn(ctx, "Go on with the fix.", true); err != nil {
		t.Fatal(err)
	}
	reqs := fake.Requests()[before:]
	compaction := -1
	for i, r := range reqs {
		if r.Compact {
			compaction = i
			break
		}
	}
	if compaction < 0 {
		t.Fatalf("Codex did not compact in the third turn: %d requests, kinds %v", len(reqs), kinds(reqs))
	}
	for _, m := range reqs[compaction].Messages() {
		if strings.Contains(m.Text, transcript.RestoreHeader) {
			t.Errorf("the compaction request carries a restore: PreCompact's output must not reach the model")
		}
	}
	if compaction+1 >= len(reqs) {
		t.Fatalf("no request after the compaction: kinds %v", kinds(reqs))
	}
	next := reqs[compaction+1]
	var restores []string
	for _, m := range next.Messages() {
		if strings.Contains(m.Text, transcript.RestoreHeader) {
			if m.Role != "developer" {
				t.Errorf("the restore came as a %s message, want developer", m.Role)
			}
			restores = append(restores, m.Text)
		}
	}
	if len(restores) != 1 {
		for _, m := range next.Messages() {
			t.Logf("%s: %.300q", m.Role, m.Text)
		}
		t.Fatalf("the first request after the compaction carries %d restores, want 1\ncairn.log:\n%s", len(restores), cairnLog(s))
	}
	found := 0
	for _, f := range facts {
		if strings.Contains(restores[0], f) {
			found++
		} else {
			t.Logf("the restore lacks the planted fact %q", f)
		}
	}
	t.Logf("requests of the third turn: %v", kinds(reqs))
	t.Logf("the restore in request %d:\n%s", next.N, restores[0])
	t.Logf("recall of planted facts in the restore: %d/%d", found, len(facts))
	for _, f := range facts[:2] {
		if !strings.Contains(restores[0], f) {
			t.Errorf("the restore lacks %q:\n%s", f, restores[0])
		}
	}
	// Later requests of the turn get no second restore.
	for _, r := range reqs[compaction+2:] {
		n := 0
		for _, m := range r.Messages() {
			if strings.Contains(m.Text, transcript.RestoreHeader) {
				n++
			}
		}
		if n > 1 {
			t.Errorf("request %d carries %d restores", r.N, n)
		}
	}
	if l := cairnLog(s); l != "" {
		t.Errorf("cairn.log:\n%s", l)
	}
}

// TestCodexInstallTrust: `cairn install --agent codex --trust` writes
// trust entries the real client accepts: without the bypass flag, Codex
// runs every one of cairn's hooks (a tool call and a compaction make them
// all fire), where it would skip one without a word if its hash were
// wrong. The compaction comes in the middle of a turn, after the tool
// call, and the request after it carries the restore.
func TestCodexInstallTrustMidTurn(t *testing.T) {
	bin := codex.Require(t)
	if built.err != nil {
		t.Fatal(built.err)
	}
	fake := startFake(t)
	s := codex.NewSession(t, bin, fake.URL, 50000)
	if _, err := runCairnCodex(s, "install", "--agent", "codex", "--trust"); err != nil {
		t.Fatal(err)
	}
	fake.Script(codex.Reply{Command: "echo hello", Text: "hello", InputTokens: 99000})
	if _, err := s.Turn(context.Background(), "Say hello.", false); err != nil {
		t.Fatal(err)
	}
	// The usage after the tool call is over the limit: Codex compacts in
	// the middle of the turn, and the request after it carries the
	// restore (PreCompact, PostCompact, SessionStart(compact), request).
	reqs := fake.Requests()
	restored := false
	for i, r := range reqs {
		if !r.Compact || i+1 >= len(reqs) {
			continue
		}
		for _, m := range reqs[i+1].Messages() {
			restored = restored || (m.Role == "developer" && strings.Contains(m.Text, transcript.RestoreHeader) && strings.Contains(m.Text, "echo hello"))
		}
	}
	if !restored {
		t.Errorf("no restore after the mid-turn compaction: %v\ncairn.log:\n%s", kinds(reqs), cairnLog(s))
	}
	fake.Script(codex.Reply{Text: "hello again"})
	if _, err := s.Turn(context.Background(), "Again.", false); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "PreCompact", "PostCompact", "SessionEnd"} {
		if _, err := os.Stat(filepath.Join(s.Home, ".local", "state", "cairn", "hooks", "codex", ev)); err != nil {
			cfg, _ := os.ReadFile(filepath.Join(s.CodexDir, "config.toml"))
			t.Errorf("cairn's %s hook did not run with the trust install wrote: %v\nconfig.toml:\n%s", ev, err, cfg)
		}
	}
	// Uninstall gives config.toml back as it was.
	if _, err := runCairnCodex(s, "uninstall", "--agent", "codex"); err != nil {
		t.Fatal(err)
	}
	cfg, _ := os.ReadFile(filepath.Join(s.CodexDir, "config.toml"))
	if strings.Contains(string(cfg), "hooks.state") {
		t.Errorf("config.toml keeps trust entries after uninstall:\n%s", cfg)
	}
}

func kinds(reqs []codex.Request) []string {
	var k []string
	for _, r := range reqs {
		k = append(k, fmt.Sprintf("%d:%s/compact=%v", r.N, r.Kind, r.Compact))
	}
	return k
}
