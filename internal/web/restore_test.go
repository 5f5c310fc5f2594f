package web

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/cairn-agent/cairn/internal/transcript"
)

// TestReadRestoresOfEveryClient: the restore text is read back from the
// record each client keeps of a hook's context (Claude Code's attachment,
// Codex CLI's developer message, Gemini CLI's <hook_context> part), and a
// line that only mentions it is not one.
func TestReadRestoresOfEveryClient(t *testing.T) {
	body := "\n\n## Task\n- Latest request: “ship it” (key sk-ant-api03-" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789)"
	q := strconv.Quote(transcript.RestoreHeader + body)
	gq := strconv.Quote("go on\n\n<hook_context>" + transcript.RestoreHeader + body + "</hook_context>")
	lines := []string{
		`{"type":"attachment","attachment":{"type":"hook_additional_context","content":[` + q + `]}}`,
		`{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":` + q + `}]}}`,
		`{"$set":{"messages":[{"type":"user","content":[{"text":` + gq + `}]}]}}`,
		`{"type":"user","message":{"content":"what does ` + transcript.RestoreHeader + ` mean?"}}`,
		`not json`,
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	var data []byte
	for _, l := range lines {
		data = append(data, l+"\n"...)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	got := readRestores(path, []int{1, 2, 3, 4, 5})
	if len(got) != 3 {
		t.Fatalf("%d restores, want 3: %+v", len(got), got)
	}
	for i, r := range got {
		if r.line != i+1 {
			t.Errorf("restore %d on line %d", i, r.line)
		}
		want := transcript.RestoreHeader + "\n\n## Task\n- Latest request: “ship it” (key [REDACTED"
		if len(r.text) < len(want) || r.text[:len(want)] != want {
			t.Errorf("line %d: %q", r.line, r.text)
		}
	}
}
