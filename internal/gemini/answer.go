package gemini

// What a hook prints back. Gemini CLI reads additionalContext from
// BeforeAgent (an extra part after the user's prompt, which stays in the
// history, through resumes and compressions) and AfterTool (appended to
// the tool's output), in <hook_context> tags, with < and > escaped.
// SessionStart's is prepended to the prompt, which --resume then drops
// (see doc.go), and PreCompress's output reaches only the user.

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

// Delivers says whether cairn gives the event's additionalContext to the
// model.
func Delivers(event string) bool {
	return event == "BeforeAgent" || event == "AfterTool"
}
