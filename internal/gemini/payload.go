package gemini

// The JSON object Gemini CLI writes on a hook's stdin (observed on
// 0.61.0): session_id, transcript_path (the chat file), cwd,
// hook_event_name and timestamp on every event, and per event: source
// (SessionStart: startup, resume), prompt (BeforeAgent, AfterAgent; it
// holds SessionStart's context already), trigger (PreCompress: auto,
// manual; nothing else, no token counts), reason (SessionEnd), tool_name,
// tool_input and tool_response (BeforeTool, AfterTool; the response holds
// the tool's whole output). Decoded with jsonscan, as the other clients'
// payloads are: a fresh process pays for reflection's set-up on every
// hook.

import (
	"github.com/cairn-agent/cairn/internal/jsonscan"
)

// Payload is the part of a hook's stdin cairn reads. Every field is a
// string named by its json tag.
type Payload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	Event          string `json:"hook_event_name"`
	Source         string `json:"source"`    // SessionStart
	Trigger        string `json:"trigger"`   // PreCompress
	Reason         string `json:"reason"`    // SessionEnd
	Prompt         string `json:"prompt"`    // BeforeAgent
	ToolName       string `json:"tool_name"` // BeforeTool, AfterTool
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
// Only AfterTool, whose tool_response may be many MB and comes last, is
// decoded this way.
func DecodePayloadHead(data []byte, event string) (p Payload, ok bool) {
	if event != "AfterTool" {
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
		"hook_event_name": &p.Event, "source": &p.Source, "trigger": &p.Trigger, "reason": &p.Reason,
		"prompt": &p.Prompt, "tool_name": &p.ToolName,
	}
	early, err := jsonscan.HookPayload(data, &p, fields, enough, "Gemini CLI")
	if err != nil {
		return Payload{}, false, err
	}
	return p, early, nil
}
