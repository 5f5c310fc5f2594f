//go:build unix

package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/fixtures"
)

// TestUIUnderTmux drives `cairn ui` as a person would, in a real terminal
// (tmux): a live session whose transcript grows while it is on screen (a
// real fixture written in two parts, the compaction in the second) beside
// a finished one, at 80x24, then resized to 200x60; then q, and the
// terminal must be as it was (cooked mode, echo, the main screen).
func TestUIUnderTmux(t *testing.T) {
	tmux := requireTmux(t)
	if built.err != nil {
		t.Fatal(built.err)
	}
	home := t.TempDir()
	project := filepath.Join(home, "src", "billing")
	config := filepath.Join(home, ".claude")
	dir := filepath.Join(config, "projects", claudecode.ProjectKey(project))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}

	// The finished session: two days old.
	short, err := fixtures.Path("short")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(short)
	if err != nil {
		t.Fatal(err)
	}
	finished := filepath.Join(dir, "55604662-cf2a-4331-851a-ec234028f8ca.jsonl")
	if err := os.WriteFile(finished, data, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(finished, old, old); err != nil {
		t.Fatal(err)
	}

	// The live session: its lines up to the compaction now, the rest later.
	const liveID = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
	src, err := fixtures.Path(liveID)
	if err != nil {
		t.Fatal(err)
	}
	data, err = os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.Index(data, []byte(`"subtype":"compact_boundary"`))
	if cut < 0 {
		t.Fatal("the fixture has no compact_boundary")
	}
	cut = bytes.LastIndexByte(data[:cut], '\n') + 1
	live := filepath.Join(dir, liveID+".jsonl")
	if err := os.WriteFile(live, data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}

	after := filepath.Join(home, "after.txt")
	script := built.bin + " ui; echo \"exit $?\" > " + after + "; stty -a >> " + after + "; echo UI-DONE; sleep 60"
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + config, "PATH=" + os.Getenv("PATH"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_DATA_HOME=" + filepath.Join(home, "data"), "LANG=C.UTF-8"}
	p := startTmux(t, tmux, project, env, 80, 24, nil, "sh", "-c", script)

	rows := func(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }
	screen, err := p.WaitScreen(15*time.Second, "the view at 80x24", func(s string) bool {
		return strings.Contains(s, "cairn ui · 2 sessions") && strings.Contains(s, "session "+liveID)
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, screen)
	}
	t.Logf("80x24, before the compaction:\n%s", screen)
	for i, r := range rows(screen) {
		if n := len([]rune(r)); n > 80 {
			t.Errorf("row %d is %d cells wide at 80x24: %q", i, n, r)
		}
	}
	if !strings.Contains(screen, "compact  none yet") {
		t.Errorf("the live session shows a compaction before its transcript has one:\n%s", screen)
	}
	if !strings.Contains(screen, "● ae4a77f8") || strings.Contains(screen, "● 55604662") {
		t.Errorf("the live session should be marked live and the finished one not:\n%s", screen)
	}

	// The session grows: the rest of its transcript, compaction included,
	// is appended, and the view follows within a few ticks.
	f, err := os.OpenFile(live, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data[cut:]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	screen, err = p.WaitScreen(15*time.Second, "the compaction on screen", func(s string) bool {
		return strings.Contains(s, "#1 manual") && strings.Contains(s, "102,168 / 200,000")
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, screen)
	}
	t.Logf("80x24, after the transcript grew:\n%s", screen)

	// The finished session, selected with the arrow key.
	if err := p.Keys("Down"); err != nil {
		t.Fatal(err)
	}
	if screen, err = p.WaitScreen(10*time.Second, "the finished session selected", func(s string) bool {
		return strings.Contains(s, "session 55604662-cf2a-4331-851a-ec234028f8ca")
	}); err != nil {
		t.Fatalf("%v\n%s", err, screen)
	}

	// Resized to 200x60: redrawn at the new size.
	if _, err := p.run("resize-window", "-t", p.target, "-x", "200", "-y", "60"); err != nil {
		t.Fatal(err)
	}
	screen, err = p.WaitScreen(10*time.Second, "the view at 200x60", func(s string) bool {
		r := rows(s)
		return len(r) == 60 && strings.Contains(r[len(r)-1], "q: quit") && strings.Contains(s, "session 55604662")
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, screen)
	}
	t.Logf("200x60:\n%s", screen)

	if err := p.Keys("q"); err != nil {
		t.Fatal(err)
	}
	if screen, err = p.WaitScreen(10*time.Second, "the shell after q", func(s string) bool { return strings.Contains(s, "UI-DONE") }); err != nil {
		t.Fatalf("%v\n%s", err, screen)
	}
	if strings.Contains(screen, "cairn ui ·") {
		t.Errorf("the view is still on the main screen after q:\n%s", screen)
	}
	got, err := os.ReadFile(after)
	if err != nil {
		t.Fatal(err)
	}
	out := string(got)
	if !strings.HasPrefix(out, "exit 0\n") {
		t.Errorf("cairn ui did not exit 0: %q", out[:min(len(out), 40)])
	}
	for _, mode := range []string{"-icanon", "-echo ", "-isig", "-opost"} {
		if strings.Contains(out, mode) {
			t.Errorf("the terminal was left with %s after q:\n%s", mode, out)
		}
	}
}
