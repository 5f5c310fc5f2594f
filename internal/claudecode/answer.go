package claudecode

// What a hook prints back on stdout, in the form each event takes
// (shared/claude-code/PROTOCOL.md). Claude Code parses stdout as JSON when
// it starts with '{'. cairn never blocks nor decides anything for the
// client: it gives no decision, no reason, no exit code 2. PreCompact's
// answer is plain text, not JSON: the client appends it to the
// summariser's instructions.

import "encoding/json"

// AdditionalContext is the answer that adds text to the model's context
// (SessionStart, UserPromptSubmit, PostToolUse), one line of JSON; "" when
// there is no text, since an empty addition is no answer.
func AdditionalContext(event, text string) string {
	if text == "" {
		return ""
	}
	return line(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event, "additionalContext": text}})
}

// SystemMessage is the answer that shows text to the user and not to the
// model (cairn's Stop suggestions), one line of JSON; "" when there is no
// text.
func SystemMessage(text string) string {
	if text == "" {
		return ""
	}
	return line(map[string]string{"systemMessage": text})
}

func line(v any) string {
	b, _ := json.Marshal(v) // maps of strings always marshal
	return string(b) + "\n"
}
