package continuity

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/golden"
	"github.com/cairn-agent/cairn/internal/handoff"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// TestHandoverAcrossClients: a handoff and a checkpoint written in one
// client's session resume in another's, saying where they came from.
func TestHandoverAcrossClients(t *testing.T) {
	ctx := context.Background()
	// A Claude Code session (the fixture's transcript), or a Codex CLI one
	// (a real rollout).
	claude := func(f *fixture) string {
		f.prompt("Implement the CSV export for BILL-482. Never touch the migrations folder.")
		f.reply("I decided to stream rows because the exports reach 2 GB.", 42000)
		return f.path
	}
	codex := func(f *fixture) string {
		data, err := os.ReadFile("../transcript/testdata/codex/tools-compactions.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(filepath.Dir(f.path), "rollout-2026-11-24T14-35-34-01a20dfb-c9bd-76d0-aa9b-d3c96d62aea2.jsonl")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name          string
		session       func(*fixture) string
		from, reader  string
		handoff       bool
		golden        string
		want, wantNot []string
	}{
		{name: "claude to codex", session: claude, from: transcript.ClaudeCode, reader: transcript.Codex, handoff: true, golden: "claude-to-codex.md",
			want: []string{"# Resuming earlier work in Codex CLI (cairn)", "written by Claude Code session sess-k", "of Claude Code session sess-k",
				"That work ran in Claude Code, not in Codex CLI", "Bash is a shell command", "client: claude-code", "Session sess-k (Claude Code) left this working state", "BILL-482"}},
		{name: "codex to claude", session: codex, from: transcript.Codex, reader: transcript.ClaudeCode, handoff: true, golden: "codex-to-claude.md",
			want:    []string{"# Resuming earlier work in Claude Code (cairn)", "written by Codex CLI session 01a20dfb-c9bd-76d0-aa9b-d3c96d62aea2", "That work ran in Codex CLI, not in Claude Code", "client: codex"},
			wantNot: []string{"Bash is a shell command"}},
		{name: "claude to claude", session: claude, from: transcript.ClaudeCode, reader: transcript.ClaudeCode, handoff: true,
			want:    []string{"# Resuming earlier work in Claude Code (cairn)", "written by Claude Code session sess-k"},
			wantNot: []string{"That work ran in", "Bash is a shell command"}},
		{name: "checkpoint only, to gemini", session: claude, from: transcript.ClaudeCode, reader: transcript.Gemini,
			want:    []string{"# Resuming earlier work in Gemini CLI (cairn)", "This is the project's latest work: the latest checkpoint, 1, of Claude Code session sess-k.", "That work ran in Claude Code, not in Gemini CLI"},
			wantNot: []string{"handoff", "<!--"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			path := tt.session(f)
			c, err := f.k.Capture(ctx, f.project, path, "session-end")
			if err != nil {
				t.Fatal(err)
			}
			if c.Client != tt.from {
				t.Fatalf("checkpoint of client %q, want %q", c.Client, tt.from)
			}
			if tt.handoff {
				if _, err := handoff.Write(f.project, c, handoff.Input{Now: f.k.Now, Loc: time.UTC}); err != nil {
					t.Fatal(err)
				}
			}
			h, err := f.k.Handover(ctx, f.project)
			if err != nil {
				t.Fatal(err)
			}
			if tt.handoff && (h.HandoffClient != tt.from || h.HandoffSession != c.SessionID) {
				t.Errorf("handoff from %q session %q, want %q session %q", h.HandoffClient, h.HandoffSession, tt.from, c.SessionID)
			}
			got := strings.ReplaceAll(h.Text(tt.reader), f.project, "$PROJECT")
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in\n%s", w, got)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("has %q in\n%s", w, got)
				}
			}
			if tt.golden != "" {
				golden.Check(t, filepath.Join("testdata", tt.golden), got)
			}
		})
	}
}

func TestHandoverNone(t *testing.T) {
	f := newFixture(t)
	if _, err := f.k.Handover(context.Background(), f.project); !errors.Is(err, ErrNoWork) {
		t.Errorf("Handover of a project without work: %v, want ErrNoWork", err)
	}
}

// TestPointerAcrossClients: a Codex session is pointed at a Claude Code
// session's work with the command that prints it for Codex.
func TestPointerAcrossClients(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.prompt("Implement POINT-1.")
	f.reply("Done with the parser.", 5000)
	c, err := f.k.Capture(ctx, f.project, f.path, "session-end")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := handoff.Write(f.project, c, handoff.Input{Now: f.k.Now, Loc: time.UTC}); err != nil {
		t.Fatal(err)
	}
	f.k.ResumeCommand = "cairn resume --agent codex"
	text, err := f.k.Pointer(ctx, f.project, "/rollout.jsonl", "thread-1", "startup")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"a handoff from an earlier Claude Code session", "an earlier Claude Code session in this project", "`cairn resume --agent codex` prints it"} {
		if !strings.Contains(text, w) {
			t.Errorf("missing %q in %s", w, text)
		}
	}
	if strings.Contains(text, "`cairn resume`") {
		t.Errorf("Claude Code's command in Codex's pointer: %s", text)
	}
}
