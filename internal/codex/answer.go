package codex

// What a hook prints back. Codex reads additionalContext from
// SessionStart, UserPromptSubmit and PostToolUse and gives it to the
// model as a developer message (after the summary, when SessionStart's
// source is compact). Nothing else cairn could print reaches the model.

import "encoding/json"

// AdditionalContext is the answer that adds text to the model's context,
// one line of JSON; "" when there is no text or the event's output does
// not reach the model.
func AdditionalContext(event, text string) string {
	if text == "" || !Delivers(event) {
		return ""
	}
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event, "additionalContext": text}})
	return string(b) + "\n"
}

// Delivers says whether the event's additionalContext reaches the model.
func Delivers(event string) bool {
	switch event {
	case "SessionStart", "UserPromptSubmit", "PostToolUse":
		return true
	}
	return false
}
