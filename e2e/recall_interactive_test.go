//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// promptRow is a prompt the pane shows as sent: "❯", a space (the client
// writes a no-break one), the text up to the end of the row or to the
// rule of the panel the client opens on the right once files change.
var promptRow = regexp.MustCompile(`(?m)^❯[ \x{00a0}]([^│\n]*)`)

// startInteractivePlay makes p's turns typed into the client running
// interactively in a tmux pane, with the project's settings (cairn's
// hooks when installed) and the session's environment, as a user would
// run it. A Stop hook of the test's own says when a turn is over, cairn
// installed or not; a /compact is over when the transcript has one more
// compact_boundary.
func startInteractivePlay(t *testing.T, p *play) {
	t.Helper()
	tmux := requireTmux(t)
	s := p.s
	trustProject(t, s)
	stops := filepath.Join(filepath.Dir(s.ProjectDir), "stops")
	// The Stop hook goes beside whatever is wired already (cairn's hooks,
	// which `cairn install` puts in the same file).
	local := filepath.Join(s.ProjectDir, ".claude", "settings.local.json")
	settings := map[string]any{}
	if data, err := os.ReadFile(local); err == nil {
		if err := json.Unmarshal(data, &settings); err != nil {
			t.Fatalf("%s: %v", local, err)
		}
	}
	hooks, _ := settings["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
		settings["hooks"] = hooks
	}
	stop, _ := hooks["Stop"].([]any)
	hooks["Stop"] = append(stop, map[string]any{"matcher": "",
		"hooks": []any{map[string]any{"type": "command", "command": "cat >/dev/null; echo stop >> '" + stops + "'", "timeout": 5}}})
	b, _ := json.MarshalIndent(settings, "", "  ")
	if err := os.MkdirAll(filepath.Join(s.ProjectDir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(local, b, 0o644); err != nil {
		t.Fatal(err)
	}
	p.testWrote = append(p.testWrote, ".claude/settings.local.json")

	argv := []string{s.Bin}
	if s.PermissionMode != "" {
		argv = append(argv, "--permission-mode", s.PermissionMode)
	}
	if len(s.AllowedTools) > 0 {
		argv = append(argv, "--allowedTools", strings.Join(s.AllowedTools, ","))
	}
	pane := startTmux(t, tmux, s.ProjectDir, s.Environ(), paneWidth, paneHeight, exitClient, argv...)
	t.Cleanup(func() {
		if t.Failed() {
			h, err := pane.History()
			t.Logf("%s: the pane, history and screen (err %v):\n%s", p.sc.Name, err, h)
		}
	})
	ib := &interactive{t: t, s: s, fake: p.fake, pane: pane}
	ready, turns := false, 0
	stopsDone := func() int {
		data, _ := os.ReadFile(stops)
		return bytes.Count(data, []byte("stop\n"))
	}
	boundariesNow := func() int {
		if ib.transcript == "" && !ib.findTranscript() {
			return 0
		}
		data, _ := os.ReadFile(ib.transcript)
		return bytes.Count(data, []byte(`"subtype":"compact_boundary"`))
	}
	p.send = func(prompt string) error {
		if !ready {
			// The input box and the permission mode row under it.
			if screen, err := pane.WaitScreen(startTimeout, "the client's prompt", func(sc string) bool {
				return strings.Contains(sc, "❯") && strings.Contains(sc, "⏵⏵")
			}); err != nil {
				return fmt.Errorf("%w\nscreen:\n%s", err, screen)
			}
			ready = true
		}
		compacted := boundariesNow()
		if err := pane.Type(prompt); err != nil {
			return err
		}
		if screen, err := pane.WaitScreen(stepTimeout, fmt.Sprintf("the prompt %q in the input box", prompt), func(sc string) bool {
			return inputLine(sc) == prompt
		}); err != nil {
			return fmt.Errorf("%w\nscreen:\n%s", err, screen)
		}
		if err := pane.Keys("Enter"); err != nil {
			return err
		}
		var what string
		var over func() bool
		if strings.HasPrefix(prompt, "/compact") {
			what, over = "the /compact's boundary in the transcript", func() bool { return boundariesNow() > compacted }
		} else {
			turns++
			n := turns
			// The Stop hook runs before the client is done with the turn;
			// the turn is over when the pane shows its "✻ … · done" line
			// under the prompt (the client redraws, so earlier turns'
			// lines may be gone from the pane's history).
			what, over = fmt.Sprintf("turn %d's Stop hook and its end on the screen", n), func() bool {
				if stopsDone() < n || p.fake.Pending() > 0 {
					return false
				}
				h, err := pane.History()
				at := promptRow.FindAllStringSubmatchIndex(h, -1)
				for i := len(at) - 1; err == nil && i >= 0; i-- {
					if strings.TrimSpace(h[at[i][2]:at[i][3]]) == prompt {
						return strings.Contains(h[at[i][1]:], " · done ")
					}
				}
				return false
			}
		}
		deadline := time.Now().Add(stepTimeout)
		for !over() {
			if st, err := pane.State(); err == nil && st.Dead {
				screen, _ := pane.Screen()
				return fmt.Errorf("waiting for %s: the client exited (status %s)\nscreen:\n%s", what, st.Status, screen)
			}
			if time.Now().After(deadline) {
				screen, _ := pane.Screen()
				return fmt.Errorf("waiting for %s: not after %s\nscreen:\n%s", what, stepTimeout, screen)
			}
			time.Sleep(100 * time.Millisecond)
		}
		return nil
	}
	p.done = func() error {
		exitClient(pane)
		if st, err := pane.State(); err != nil || !st.Dead {
			screen, _ := pane.Screen()
			return fmt.Errorf("the interactive client did not exit on Ctrl-C twice: %w\nscreen:\n%s", errors.Join(err, errors.New("still running")), screen)
		}
		return nil
	}
}
