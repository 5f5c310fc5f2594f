package claudecode

// The JSON object Claude Code writes on a hook's stdin: the fields cairn
// reads of it, decoded with jsonscan rather than encoding/json. PostToolUse
// payloads carry whole files, and in a fresh process reflection's set-up
// alone costs more than the walk.

import (
	"github.com/cairn-agent/cairn/internal/jsonscan"
)

// Payload is the part of a hook's stdin cairn reads. Every field is a
// string named by its json tag: the tests decode the same fields by
// reflection to hold DecodePayload to encoding/json.
type Payload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	Event          string `json:"hook_event_name"`
	Source         string `json:"source"`  // SessionStart
	Trigger        string `json:"trigger"` // PreCompact, PostCompact
	CompactSummary string `json:"compact_summary"`
	Reason         string `json:"reason"` // SessionEnd
	// LastAssistantMessage is Stop's: the reply the turn ended with.
	LastAssistantMessage string `json:"last_assistant_message"`
	// Prompt is UserPromptSubmit's: what the user submitted.
	Prompt string `json:"prompt"`
	// CustomInstructions is PreCompact's: the user's words after a
	// manual /compact; null (here "") without them.
	CustomInstructions string `json:"custom_instructions"`
}

// DecodePayload reads the fields cairn uses from a hook's stdin. A field
// that is null or not a string is as good as missing; of duplicate keys
// the last counts.
func DecodePayload(data []byte) (Payload, error) {
	p, _, err := decodePayload(data, nil)
	return p, err
}

// DecodePayloadHead reads the fields the event needs from what may be only
// the start of its payload. ok is true when they were all there, before
// the end of data: the rest of the payload (PostToolUse's tool input and
// answer, whole files) then need not be read nor walked. Only PostToolUse
// is decoded this way; for the other events ok is false.
func DecodePayloadHead(data []byte, event string) (p Payload, ok bool) {
	enough := enoughFor(event)
	if enough == nil {
		return Payload{}, false
	}
	p, ok, _ = decodePayload(data, enough)
	if !ok {
		return Payload{}, false
	}
	return p, true
}

// decodePayload is DecodePayload that stops as soon as enough holds for
// the fields it has: it reports whether it stopped early, before the end
// of data, which may then be only the start of a payload.
func decodePayload(data []byte, enough func(*Payload) bool) (Payload, bool, error) {
	var p Payload
	fields := map[string]*string{
		"session_id": &p.SessionID, "transcript_path": &p.TranscriptPath, "cwd": &p.CWD,
		"hook_event_name": &p.Event, "source": &p.Source, "trigger": &p.Trigger,
		"compact_summary": &p.CompactSummary, "reason": &p.Reason,
		"last_assistant_message": &p.LastAssistantMessage, "prompt": &p.Prompt,
		"custom_instructions": &p.CustomInstructions,
	}
	early, err := jsonscan.HookPayload(data, &p, fields, enough, "Claude Code")
	if err != nil {
		return Payload{}, false, err
	}
	return p, early, nil
}

// enoughFor says when a payload's fields read so far are all the event
// needs, nil when the whole payload is read.
func enoughFor(event string) func(*Payload) bool {
	if event != "PostToolUse" {
		return nil
	}
	return func(p *Payload) bool {
		return p.SessionID != "" && p.TranscriptPath != "" && p.CWD != "" && p.Event != ""
	}
}
