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

	"github.com/cairn-agent/cairn/e2e/gemini"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// runCairnGemini runs the cairn binary in a Gemini session's project with
// its environment.
func runCairnGemini(s *gemini.Session, args ...string) ([]byte, error) {
	if built.err != nil {
		return nil, fmt.Errorf("cairn did not build: %w", built.err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, built.bin, args...)
	cmd.Dir = s.Project
	cmd.Env = s.Environ()
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("cairn %s: %w\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), errors.Join(err, ctx.Err()), stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes(), nil
}

func startGeminiFake(t *testing.T) *gemini.Fake {
	t.Helper()
	f, err := gemini.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.Close()
		for _, err := range f.Errs() {
			t.Errorf("fake Gemini API: %v", err)
		}
	})
	return f
}

func geminiLog(s *gemini.Session) string {
	data, _ := os.ReadFile(filepath.Join(s.Home, ".local", "state", "cairn", "cairn.log"))
	return string(data)
}

// geminiKinds lists requests by number and kind, for messages.
func geminiKinds(reqs []gemini.Request) []string {
	var k []string
	for _, r := range reqs {
		k = append(k, fmt.Sprintf("%d:%s", r.N, r.Kind))
	}
	return k
}

// TestGeminiRestoreAfterCompression drives the real Gemini CLI through a
// compression with cairn's hooks installed (`cairn install --agent
// gemini`). Gemini CLI compresses before a request when the last reported
// prompt count has reached model.compressionThreshold (0.075 of
// 1,048,576 here): a tool call reporting 99,000 makes it compress before
// the request after the tool. No hook runs after a compression, so the
// restore comes with the next prompt (BeforeAgent): the first request of
// the next turn must carry it, once, with the facts planted before the
// compression, and the request after that must hold it once more only
// as history, not a second delivery.
func TestGeminiRestoreAfterCompression(t *testing.T) {
	bin := gemini.Require(t)
	if built.err != nil {
		t.Fatal(built.err)
	}
	fake := startGeminiFake(t)
	s := gemini.NewSession(t, bin, fake.URL, 0.075)
	os.MkdirAll(filepath.Join(s.Project, "internal", "billing"), 0o755)
	os.WriteFile(filepath.Join(s.Project, "internal", "billing", "ledger.go"), []byte("package billing\n\nvar total float64\n"), 0o644)
	if out, err := runCairnGemini(s, "install", "--agent", "gemini"); err != nil {
		t.Fatal(err)
	} else {
		t.Logf("cairn install --agent gemini:\n%s", out)
	}
	ctx := context.Background()
	facts := []string{"BILL-4821", "internal/billing/ledger.go", "integer cents", "--keep-header-order"}
	turn := func(prompt string, r gemini.Reply) []gemini.Request {
		t.Helper()
		before := len(fake.Requests())
		fake.Script(r)
		if _, err := s.Turn(ctx, prompt); err != nil {
			t.Fatalf("%v\ncairn.log:\n%s", err, geminiLog(s))
		}
		return fake.Requests()[before:]
	}
	restores := func(r gemini.Request) int { return strings.Count(r.Text(), transcript.RestoreHeader) }

	turn("Fix ticket BILL-4821: the ledger rounds totals wrong in internal/billing/ledger.go. Decision: store amounts as integer cents, never float64.",
		gemini.Reply{Command: "cat internal/billing/ledger.go", Text: "I read internal/billing/ledger.go: totals are float64."})
	second := turn("Also keep the CSV export header stable; the flag is --keep-header-order.",
		gemini.Reply{Command: "echo listing", CallTokens: 99000, PromptTokens: 5000, Text: "Noted: the CSV export keeps its header order."})
	compressed := false
	for _, r := range second {
		compressed = compressed || r.Kind == "compress"
		if restores(r) > 0 {
			t.Errorf("request %d (%s) of the compressing turn carries a restore: PreCompress's output must reach no model", r.N, r.Kind)
		}
	}
	if !compressed {
		t.Fatalf("Gemini CLI did not compress in the second turn: %v\ncairn.log:\n%s", geminiKinds(second), geminiLog(s))
	}

	third := turn("Go on with the fix.", gemini.Reply{Text: "Continuing with the fix.", PromptTokens: 6000})
	var first *gemini.Request
	for i := range third {
		if third[i].Kind == "turn" {
			first = &third[i]
			break
		}
	}
	if first == nil {
		t.Fatalf("no model request in the turn after the compression: %v", geminiKinds(third))
	}
	if n := restores(*first); n != 1 {
		for _, c := range first.Contents() {
			t.Logf("%s: %.300q", c.Role, c.Text)
		}
		t.Fatalf("the first request after the compression carries %d restores, want 1\ncairn.log:\n%s", n, geminiLog(s))
	}
	var restore string
	for _, c := range first.Contents() {
		if i := strings.Index(c.Text, transcript.RestoreHeader); i >= 0 {
			if c.Role != "user" || !strings.Contains(c.Text[:i], "<hook_context>") {
				t.Errorf("the restore came as %s content %.200q, want BeforeAgent's <hook_context> part of the prompt", c.Role, c.Text)
			}
			restore = c.Text[i:]
		}
	}
	found := 0
	for _, f := range facts {
		if strings.Contains(restore, f) {
			found++
		} else {
			t.Logf("the restore lacks the planted fact %q", f)
		}
	}
	t.Logf("requests: second turn %v, third %v", geminiKinds(second), geminiKinds(third))
	t.Logf("the restore in request %d:\n%s", first.N, restore)
	t.Logf("recall of planted facts in the restore: %d/%d", found, len(facts))
	for _, f := range facts[:2] {
		if !strings.Contains(restore, f) {
			t.Errorf("the restore lacks %q", f)
		}
	}

	// The next turn holds the restore in its history, once: BeforeAgent
	// does not deliver it again.
	fourth := turn("And the tests?", gemini.Reply{Text: "Tests next.", PromptTokens: 7000})
	for _, r := range fourth {
		if r.Kind == "turn" && restores(r) != 1 {
			t.Errorf("request %d of the next turn carries %d restores, want the one in its history", r.N, restores(r))
		}
	}
	for _, ev := range []string{"BeforeAgent", "AfterTool", "PreCompress", "SessionEnd"} {
		if _, err := os.Stat(filepath.Join(s.Home, ".local", "state", "cairn", "hooks", "gemini", ev)); err != nil {
			t.Errorf("cairn's %s hook did not run as install wired it: %v", ev, err)
		}
	}
	if l := geminiLog(s); l != "" {
		t.Errorf("cairn.log:\n%s", l)
	}
}
