//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/e2e/gemini"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// TestGeminiManualCompress drives the interactive Gemini CLI under tmux
// through a manual /compress (which `gemini -p` would send to the model
// as text) with cairn's hooks installed: PreCompress(manual) takes the
// checkpoint, and the first request after the compression, the next
// prompt's, carries the restore once, with the facts planted before it.
func TestGeminiManualCompress(t *testing.T) {
	t.Parallel()
	bin := gemini.Require(t)
	tmuxBin := requireTmux(t)
	if built.err != nil {
		t.Fatal(built.err)
	}
	fake := startGeminiFake(t)
	s := gemini.NewSession(t, bin, fake.URL, 0.5) // the default: no compression of its own
	if _, err := runCairnGemini(s, "install", "--agent", "gemini"); err != nil {
		t.Fatal(err)
	}
	p := startTmux(t, tmuxBin, s.Project, s.Environ(), 120, 40, nil, bin, "-m", "gemini-2.5-pro", "-y")
	wait := func(what string, timeout time.Duration) {
		t.Helper()
		if screen, err := p.WaitScreen(timeout, what, func(sc string) bool { return strings.Contains(sc, what) }); err != nil {
			t.Fatalf("%v\nscreen:\n%s\ncairn.log:\n%s", err, screen, geminiLog(s))
		}
	}
	// say types text into the input box and submits it. On a loaded
	// machine the client can take the Enter for part of a paste and keep
	// the text in the box: Enter is pressed again until the text shows
	// as submitted ("> text").
	say := func(text string) {
		t.Helper()
		if err := p.Type(text); err != nil {
			t.Fatal(err)
		}
		head := text[:min(len(text), 40)]
		wait(head, 30*time.Second)
		for try := 0; ; try++ {
			time.Sleep(500 * time.Millisecond)
			if err := p.Keys("Enter"); err != nil {
				t.Fatal(err)
			}
			_, err := p.WaitScreen(5*time.Second, "the prompt submitted", func(sc string) bool { return strings.Contains(sc, "> "+head) })
			if err == nil {
				return
			}
			if try == 3 {
				t.Fatalf("the prompt %q was not submitted after %d presses of Enter: %v", head, try+1, err)
			}
		}
	}
	wait("Type your message", 90*time.Second)

	fake.Script(gemini.Reply{Text: "Noted: amounts become integer cents for BILL-4821."})
	say("Fix ticket BILL-4821 in internal/billing/ledger.go. Decision: store amounts as integer cents, never float64.")
	wait("Noted: amounts become integer cents", 90*time.Second)
	say("/compress")
	wait("Chat history compressed", 90*time.Second)
	pending, _ := filepath.Glob(filepath.Join(s.Home, ".local", "state", "cairn", "sessions", "*.pending"))
	if len(pending) == 0 {
		t.Errorf("PreCompress(manual) announced no compression\ncairn.log:\n%s", geminiLog(s))
	}
	compressed := len(fake.Requests())

	fake.Script(gemini.Reply{Text: "Continuing with the ledger."})
	say("Go on.")
	wait("Continuing with the ledger", 90*time.Second)
	var next *gemini.Request
	for _, r := range fake.Requests()[compressed:] {
		if r.Kind == "turn" {
			next = &r
			break
		}
	}
	if next == nil {
		t.Fatalf("no model request after the compression: %v", geminiKinds(fake.Requests()))
	}
	if n := strings.Count(next.Text(), transcript.RestoreHeader); n != 1 {
		t.Fatalf("the first request after /compress carries %d restores, want 1\ncairn.log:\n%s", n, geminiLog(s))
	}
	restore := next.Text()[strings.Index(next.Text(), transcript.RestoreHeader):]
	for _, f := range []string{"BILL-4821", "internal/billing/ledger.go", "integer cents"} {
		if !strings.Contains(restore, f) {
			t.Errorf("the restore lacks %q:\n%s", f, restore)
		}
	}
	if l := geminiLog(s); l != "" {
		t.Errorf("cairn.log:\n%s", l)
	}
	if _, err := os.Stat(filepath.Join(s.Home, ".local", "state", "cairn", "hooks", "gemini", "PreCompress")); err != nil {
		t.Errorf("PreCompress never ran: %v", err)
	}
}
