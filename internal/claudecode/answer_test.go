package claudecode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The answers are one line of JSON in exactly the shape Claude Code reads
// (shared/claude-code/PROTOCOL.md), whatever the text holds, and nothing
// at all for no text.
func TestAnswers(t *testing.T) {
	text := "cairn · context L1: \"quoted\", <tags> & a\nsecond line\u2028"
	tests := []struct {
		name   string
		answer string
		want   any // the JSON it decodes to; nil for no answer
	}{
		{"additional context", AdditionalContext("UserPromptSubmit", text),
			map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "UserPromptSubmit", "additionalContext": text}}},
		{"additional context, no text", AdditionalContext("PostToolUse", ""), nil},
		{"system message", SystemMessage(text), map[string]any{"systemMessage": text}},
		{"system message, no text", SystemMessage(""), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == nil {
				if tt.answer != "" {
					t.Fatalf("answered %q for no text", tt.answer)
				}
				return
			}
			body, ok := strings.CutSuffix(tt.answer, "\n")
			if !ok || strings.Contains(body, "\n") || !strings.HasPrefix(body, "{") {
				t.Fatalf("%q is not one line of JSON", tt.answer)
			}
			var got any
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}
