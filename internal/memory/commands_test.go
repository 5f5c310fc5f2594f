package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/transcript"
)

// A slash command the user typed is kept with its arguments and what it
// printed; one without either, and a private span, are not.
func TestUserCommands(t *testing.T) {
	lines := []string{
		`{"type":"user","timestamp":"2026-03-01T10:00:00Z","sessionId":"s","cwd":"/w","message":{"role":"user","content":"Export the invoices."}}`,
		`{"type":"assistant","timestamp":"2026-03-01T10:01:00Z","sessionId":"s","cwd":"/w","message":{"id":"m1","role":"assistant","model":"claude-opus-4-6","content":[{"type":"text","text":"The export is done; two tasks remain."}]}}`,
		`{"type":"user","timestamp":"2026-03-01T10:02:00Z","sessionId":"s","cwd":"/w","message":{"role":"user","content":"<command-name>/compact</command-name>\n <command-message>compact</command-message>\n <command-args>and continue with the remaining tasks <private>hunter2</private></command-args>"}}`,
		`{"type":"user","timestamp":"2026-03-01T10:03:00Z","sessionId":"s","cwd":"/w","message":{"role":"user","content":"<command-name>/model</command-name>\n <command-message>model</command-message>\n <command-args></command-args>"}}`,
		`{"type":"system","subtype":"local_command","timestamp":"2026-03-01T10:03:01Z","sessionId":"s","cwd":"/w","content":"<local-command-stdout>Kept model as \u001b[1mDefault (recommended)\u001b[22m</local-command-stdout>"}`,
		`{"type":"user","timestamp":"2026-03-01T10:04:00Z","sessionId":"s","cwd":"/w","message":{"role":"user","content":"<command-name>/clear</command-name>\n <command-message>clear</command-message>\n <command-args></command-args>"}}`,
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := transcript.New(path)
	var p transcript.Parser
	if _, err := s.Update(&p); err != nil {
		t.Fatal(err)
	}
	obs := userCommands(Observation{Project: "/w", SessionID: "s"}, s, tailOf(s, maxEditScan))
	tests := []struct {
		title string
		body  []string
	}{
		{"The user ran /compact and continue with the remaining tasks", []string{"Arguments: and continue with the remaining tasks", "After the agent said: The export is done"}},
		{"The user ran /model: Kept model as Default (recommended)", []string{"It printed: Kept model as Default (recommended)"}},
	}
	if len(obs) != len(tests) {
		t.Fatalf("%d observations, want %d:\n%s", len(obs), len(tests), render(obs))
	}
	for i, tt := range tests {
		o := clean(obs[i])
		if o.Kind != KindPrompt || o.Title != tt.title || o.Time.IsZero() {
			t.Errorf("%s %q at %v, want prompt %q", o.Kind, o.Title, o.Time, tt.title)
		}
		for _, b := range tt.body {
			if !strings.Contains(o.Body, b) {
				t.Errorf("no %q in %q", b, o.Body)
			}
		}
		if strings.Contains(o.Title+o.Body, "hunter2") || strings.Contains(o.Body, "\x1b") {
			t.Errorf("private or escapes kept: %q", o.Title+"\n"+o.Body)
		}
	}
}
