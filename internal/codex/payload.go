package codex

// The JSON object Codex writes on a hook's stdin (observed on 0.169.0):
// session_id (the thread id), transcript_path (the rollout file), cwd,
// hook_event_name and model on every event, turn_id from the first
// prompt on, and per event: source (SessionStart: startup, resume,
// compact), prompt (UserPromptSubmit), trigger (PreCompact, PostCompact:
// auto, manual; nothing else, no summary), reason (SessionEnd),
// last_assistant_message (Stop), tool_name, tool_input and tool_response
// (PostToolUse; the response is the tool's whole output). Decoded with
// jsonscan, as Claude Code's payload is, for the same reason: a fresh
// process pays for reflection's set-up on every hook.

import (
	"github.com/cairn-agent/cairn/internal/jsonscan"
)

// Payload is the part of a hook's stdin cairn reads. Every field is a
// string named by its json tag.
type Payload struct {
	SessionID            string `json:"session_id"`
	TranscriptPath       string `json:"transcript_path"`
	CWD                  string `json:"cwd"`
	Event                string `json:"hook_event_name"`
	Model                string `json:"model"`
	TurnID               string `json:"turn_id"`
	Source               string `json:"source"`  // SessionStart
	Trigger              string `json:"trigger"` // PreCompact, PostCompact
	Reason               string `json:"reason"`  // SessionEnd
	LastAssistantMessage string `json:"last_assistant_message"`
	Prompt               string `json:"prompt"`    // UserPromptSubmit
	ToolName             string `json:"tool_name"` // PreToolUse, PostToolUse
}

// DecodePayload reads the fields cairn uses from a hook's stdin. A field
// that is null or not a string is as good as missing; of duplicate keys
// the last counts.
func DecodePayload(data []byte) (Payload, error) {
	p, _, err := decode(data, nil)
	return p, err
}

// DecodePayloadHead reads the fields the event needs from what may be
// only the start of its payload; ok is true when they were all there.
// Only PostToolUse, whose tool_response may be many MB and comes last, is
// decoded this way.
func DecodePayloadHead(data []byte, event string) (p Payload, ok bool) {
	if event != "PostToolUse" {
		return Payload{}, false
	}
	p, ok, _ = decode(data, func(p *Payload) bool {
		return p.SessionID != "" && p.TranscriptPath != "" && p.CWD != "" && p.Event != ""
	})
	if !ok {
		return Payload{}, false
	}
	return p, true
}

func decode(data []byte, enough func(*Payload) bool) (Payload, bool, error) {
	var p Payload
	fields := map[string]*string{
		"session_id": &p.SessionID, "transcript_path": &p.TranscriptPath, "cwd": &p.CWD,
		"hook_event_name": &p.Event, "model": &p.Model, "turn_id": &p.TurnID,
		"source": &p.Source, "trigger": &p.Trigger, "reason": &p.Reason,
		"last_assistant_message": &p.LastAssistantMessage, "prompt": &p.Prompt, "tool_name": &p.ToolName,
	}
	early, err := jsonscan.HookPayload(data, &p, fields, enough, "Codex")
	if err != nil {
		return Payload{}, false, err
	}
	return p, early, nil
}
