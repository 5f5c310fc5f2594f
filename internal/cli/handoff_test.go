package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const spotter = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"

// handoffApp is testApp with the project directory made, holding a
// CLAUDE.md.
func handoffApp(t *testing.T, sessions ...string) (*App, string, *bytes.Buffer) {
	t.Helper()
	a, out, _ := testApp(t, sessions...)
	proj, _ := a.Getwd()
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(proj, "CLAUDE.md"), []byte("# Project\n\n## Conventions\n"), 0o644)
	return a, proj, out
}

func TestHandoff(t *testing.T) {
	ctx := context.Background()
	a, proj, out := handoffApp(t, spotter)
	secret := "sk-ant-api03-" + strings.Repeat("A", 80)
	if err := runCmd("handoff")(ctx, a, []string{"--reason", "stopping for lunch; the key is " + secret}); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(proj, ".claude", "handoffs", "2026-03-01-1200.md")
	if !strings.HasPrefix(out.String(), "handoff written: "+first+"\nfrom checkpoint 1: ") {
		t.Errorf("stdout:\n%s", out)
	}
	data, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, w := range []string{"---\nsession_date: 2026-03-01\n", "session_id: " + spotter + "\n", "checkpoint: 1\n", "checkpoint_trigger: handoff\n",
		"# Session Handoff: ", "spotter-4te", "stopping for lunch; the key is [REDACTED", "- **CLAUDE.md**, sections:\n  - Project\n    - Conventions\n",
		"## Remaining Context Budget\n"} {
		if !strings.Contains(doc, w) {
			t.Errorf("handoff lacks %q:\n%s", w, doc)
		}
	}
	if strings.Contains(doc, secret) {
		t.Error("the secret in the reason reached the handoff")
	}

	// /handoff passes the reason on stdin, as typed.
	out.Reset()
	reason := `I'm done, the "export" bug & $HOME stay open!`
	a.Stdin = strings.NewReader(reason + "\n")
	if err := runCmd("handoff")(ctx, a, []string{"--session", "ae4a", "--reason", "-"}); err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(proj, ".claude", "handoffs", "2026-03-01-1200-2.md")
	if data, err := os.ReadFile(second); err != nil || !strings.Contains(string(data), "## Checkpoint Reason\n"+reason+"\n") {
		t.Errorf("second handoff %v:\n%s", err, data)
	}
	// A client that left $ARGUMENTS unfilled gives no reason.
	a.Stdin = strings.NewReader("$ARGUMENTS\n")
	if err := runCmd("handoff")(ctx, a, []string{"--reason", "-"}); err != nil {
		t.Fatal(err)
	}
	third, _ := os.ReadFile(filepath.Join(proj, ".claude", "handoffs", "2026-03-01-1200-3.md"))
	if strings.Contains(string(third), "$ARGUMENTS") || !strings.Contains(string(third), "## Checkpoint Reason\nRequested with") {
		t.Errorf("third handoff:\n%s", third)
	}
}

func TestHandoffErrors(t *testing.T) {
	ctx := context.Background()
	a, _, _ := handoffApp(t, spotter)
	for _, args := range [][]string{{"--session", "ae4a", "--transcript", "x.jsonl"}, {"extra"}, {"--nope"}} {
		if err := runCmd("handoff")(ctx, a, args); !isUsage(err) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
	empty, _, _ := handoffApp(t)
	if err := runCmd("handoff")(ctx, empty, nil); !errors.As(err, new(*cliError)) || !strings.Contains(err.Error(), "no session of Claude Code, Codex CLI or Gemini CLI") {
		t.Errorf("no session: %v", err)
	}
}

func TestSlash(t *testing.T) {
	ctx := context.Background()
	a, proj, out := handoffApp(t, spotter)
	// /checkpoint with nothing after it, where the client filled in no
	// session id: the latest session's checkpoint.
	if err := runCmd("slash")(ctx, a, []string{"checkpoint", "--session", ""}); err != nil || !strings.HasPrefix(out.String(), "checkpoint 1 saved: spotter-4te") {
		t.Errorf("checkpoint: %v\n%s", err, out)
	}
	out.Reset()
	if err := runCmd("slash")(ctx, a, []string{"checkpoint", "--session", spotter, "--status"}); err != nil || !strings.Contains(out.String(), "session  "+spotter) {
		t.Errorf("--status: %v\n%s", err, out)
	}
	out.Reset()
	if err := runCmd("slash")(ctx, a, []string{"checkpoint", "--session", spotter, "--defer", "3"}); err != nil || !strings.Contains(out.String(), "snoozed for 3 turns") {
		t.Errorf("--defer 3: %v\n%s", err, out)
	}
	out.Reset()
	spec := filepath.Join(proj, "SPEC.md")
	os.WriteFile(spec, []byte("# Add the export\n\n- write the encoder\n- test it\n"), 0o644)
	err := runCmd("slash")(ctx, a, []string{"checkpoint", "--estimate", spec})
	registered := false
	for _, c := range commands() {
		registered = registered || c.name == "estimate"
	}
	switch {
	case registered && err != nil:
		t.Errorf("--estimate: %v", err)
	case !registered && (err == nil || !strings.Contains(err.Error(), "no estimate command")):
		t.Errorf("--estimate without the command: %v", err)
	}
	for _, args := range [][]string{nil, {"handoff"}, {"checkpoint", "--status", "--defer"}, {"checkpoint", "extra"},
		{"checkpoint", "--defer", "1", "2"}, {"checkpoint", "--status", "x"}} {
		if err := runCmd("slash")(ctx, a, args); !isUsage(err) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}
