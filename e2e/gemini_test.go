package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/e2e/gemini"
	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// runCairnGemini runs the cairn binary in a Gemini session's project with
// its environment.
func runCairnGemini(s *gemini.Session, args ...string) ([]byte, error) {
	return runCairnIn(s.Project, s.Environ(), args...)
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
	t.Parallel() // a session of its own: its HOME, project and fake
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
	// The session commands find the chat: Gemini CLI's, measured by its
	// rules (the compression, then 7,000 tokens of 1,048,576).
	if out, err := runCairnGemini(s, "sessions"); err != nil || !strings.Contains(string(out), "Gemini CLI") {
		t.Errorf("cairn sessions: %v\n%s", err, out)
	}
	if out, err := runCairnGemini(s, "status"); err != nil || !strings.Contains(string(out), "7,000") {
		t.Errorf("cairn status: %v\n%s", err, out)
	} else {
		t.Logf("cairn status:\n%s", out)
	}
	if l := geminiLog(s); l != "" {
		t.Errorf("cairn.log:\n%s", l)
	}
}

// geminiRecall is a scripted Gemini CLI session with facts planted in its
// first turns, a compression in the middle of a later turn, and one more
// turn: it returns the first model request of that turn.
func geminiRecall(t *testing.T, installed bool) (gemini.Request, *gemini.Session) {
	t.Helper()
	bin := gemini.Require(t)
	if built.err != nil {
		t.Fatal(built.err)
	}
	fake := startGeminiFake(t)
	s := gemini.NewSession(t, bin, fake.URL, 0.075)
	os.MkdirAll(filepath.Join(s.Project, "internal", "billing"), 0o755)
	os.WriteFile(filepath.Join(s.Project, "internal", "billing", "ledger.go"), []byte("package billing\n\nvar total float64\n"), 0o644)
	if installed {
		if _, err := runCairnGemini(s, "install", "--agent", "gemini"); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	turn := func(prompt string, r gemini.Reply) []gemini.Request {
		t.Helper()
		before := len(fake.Requests())
		fake.Script(r)
		if _, err := s.Turn(ctx, prompt); err != nil {
			t.Fatalf("%v\ncairn.log:\n%s", err, geminiLog(s))
		}
		return fake.Requests()[before:]
	}
	for _, p := range geminiPlanted {
		turn(p.prompt, gemini.Reply{Command: p.command, Text: p.reply})
	}
	compressing := turn("Now list the files of the package.", gemini.Reply{Command: "ls internal/billing", CallTokens: 99000, PromptTokens: 5000, Text: "The package holds ledger.go."})
	if !slices.ContainsFunc(compressing, func(r gemini.Request) bool { return r.Kind == "compress" }) {
		t.Fatalf("Gemini CLI did not compress: %v", geminiKinds(compressing))
	}
	for _, r := range turn("Go on with the fix.", gemini.Reply{Text: "Continuing.", PromptTokens: 6000}) {
		if r.Kind == "turn" {
			return r, s
		}
	}
	t.Fatal("no model request in the turn after the compression")
	return gemini.Request{}, s
}

// geminiPlanted are the turns before the compression and the facts they
// plant.
var geminiPlanted = []struct {
	prompt, command, reply string
	facts                  []string
}{
	{"Fix ticket BILL-4821: the ledger rounds totals wrong in internal/billing/ledger.go. Decision: store amounts as integer cents, never float64.",
		"cat internal/billing/ledger.go", "I read internal/billing/ledger.go: totals are float64 and rounding happens on every add.",
		[]string{"BILL-4821", "internal/billing/ledger.go", "integer cents"}},
	{"Also keep the CSV export header stable; the flag is --keep-header-order.",
		"", "Noted: the CSV export keeps its header order behind that flag.",
		[]string{"--keep-header-order"}},
	{"The currency table lives in internal/billing/currency.go; do not touch the JPY rounding rule.",
		"", "Understood, the currency table stays as it is and JPY keeps its own rule.",
		[]string{"internal/billing/currency.go", "JPY rounding"}},
	{"Run the tests with make test-billing, never with go test ./... since the integration suite needs a database.",
		"", "I will run make test-billing only.",
		[]string{"make test-billing"}},
}

// TestGeminiRecall plants seven facts in four turns of a real Gemini CLI
// session, compresses in the middle of the fifth, and counts the facts in
// the first request of the sixth, with cairn and without (the summary the
// fake writes holds none of them; the history Gemini CLI keeps, its last
// 30% or so, may): the goal is 95% of them, with at most 1,500
// tokens added.
func TestGeminiRecall(t *testing.T) {
	t.Parallel()
	var all []string
	for _, p := range geminiPlanted {
		all = append(all, p.facts...)
	}
	counted := func(r gemini.Request) (int, []string) {
		text := r.Text()
		var missing []string
		for _, f := range all {
			if !strings.Contains(text, f) {
				missing = append(missing, f)
			}
		}
		return len(all) - len(missing), missing
	}
	alone, _ := geminiRecall(t, false)
	without, lost := counted(alone)
	with, s := geminiRecall(t, true)
	got, missing := counted(with)
	restore := ""
	if i := strings.Index(with.Text(), transcript.RestoreHeader); i >= 0 {
		restore = with.Text()[i:]
		restore, _, _ = strings.Cut(restore, "</hook_context>")
	}
	tokens := checkpoint.Tokens(restore)
	t.Logf("Gemini CLI recall in the first request after a compression: with cairn %d/%d (%d tokens added), without %d/%d (lost %v)",
		got, len(all), tokens, without, len(all), lost)
	if restore == "" {
		t.Fatalf("no restore in the first request after the compression\ncairn.log:\n%s", geminiLog(s))
	}
	if without == len(all) {
		t.Errorf("Gemini CLI alone kept every fact through the compression: the scenario measures nothing")
	}
	if float64(got) < recallGoal*float64(len(all)) {
		t.Errorf("with cairn %d/%d facts, want %.0f%%: missing %v\nrestore:\n%s", got, len(all), 100*recallGoal, missing, restore)
	}
	if tokens > 1500 {
		t.Errorf("the restore adds %d tokens, want at most 1,500", tokens)
	}
}
