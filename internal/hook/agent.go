package hook

// The agent boundary: what differs between the clients that run cairn's
// hooks is gathered here, from their adapters (internal/claudecode,
// internal/codex); the handlers in hook.go know no client.

import (
	"slices"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/codex"
	"github.com/cairn-agent/cairn/internal/hookevent"
	"github.com/cairn-agent/cairn/internal/meter"
)

// Payload is what the handlers read of an event's stdin, whichever
// client sent it. Its fields are claudecode.Payload's, so that Claude
// Code's converts at no cost.
type Payload struct {
	SessionID            string
	TranscriptPath       string
	CWD                  string
	Event                string
	Source               string
	Trigger              string
	CompactSummary       string
	Reason               string
	LastAssistantMessage string
	Prompt               string
}

// Agent is one client's side of a hook run: its events and their
// budgets, how its payload decodes, how its answers are written, and its
// meter rules.
type Agent struct {
	// Name is the --agent word: claude-code, codex.
	Name string
	// Events are the events the client's hooks are wired for, in install
	// order, with their budgets.
	Events hookevent.Table
	decode func(data []byte) (Payload, error)
	// decodeHead reads the fields the event needs from the start of a
	// payload, ok when they were all there (see readPayload).
	decodeHead func(data []byte, event string) (Payload, bool)
	// context is the answer that adds text to the model's context at the
	// event, "" when the client shows the model none.
	context func(event, text string) string
	// notice is the answer that shows text to the user (Stop), nil when
	// the client takes none.
	notice func(text string) string
	// steers says PreCompact's output reaches the summariser.
	steers bool
	// projectEnv names the variable that holds the project's directory,
	// "" when the client sets none (the payload's cwd is used).
	projectEnv string
	// rules are the client's meter rules for the project; nil keeps the
	// Keeper's (Claude Code's settings from the environment).
	rules func(getenv func(string) string, project string, window int64) meter.Rules
}

// ClaudeCode is Claude Code's side, the default.
func ClaudeCode() Agent {
	return Agent{
		Name:   "claude-code",
		Events: claudecode.Events,
		decode: func(data []byte) (Payload, error) {
			p, err := claudecode.DecodePayload(data)
			return Payload(p), err
		},
		decodeHead: func(data []byte, event string) (Payload, bool) {
			p, ok := claudecode.DecodePayloadHead(data, event)
			return Payload(p), ok
		},
		context:    claudecode.AdditionalContext,
		notice:     claudecode.SystemMessage,
		steers:     true,
		projectEnv: "CLAUDE_PROJECT_DIR",
	}
}

// Codex is Codex CLI's side.
func Codex() Agent {
	return Agent{
		Name:   "codex",
		Events: codex.Events,
		decode: func(data []byte) (Payload, error) {
			p, err := codex.DecodePayload(data)
			return fromCodex(p), err
		},
		decodeHead: func(data []byte, event string) (Payload, bool) {
			p, ok := codex.DecodePayloadHead(data, event)
			return fromCodex(p), ok
		},
		context: codex.AdditionalContext,
		rules: func(getenv func(string) string, project string, window int64) meter.Rules {
			return codex.Rules(getenv, project, window)
		},
	}
}

func fromCodex(p codex.Payload) Payload {
	return Payload{SessionID: p.SessionID, TranscriptPath: p.TranscriptPath, CWD: p.CWD, Event: p.Event,
		Source: p.Source, Trigger: p.Trigger, Reason: p.Reason, LastAssistantMessage: p.LastAssistantMessage, Prompt: p.Prompt}
}

// Agents are the clients cairn's hooks run for, the default first.
func Agents() []Agent { return []Agent{ClaudeCode(), Codex()} }

// AgentNames are the --agent words.
func AgentNames() []string {
	var names []string
	for _, a := range Agents() {
		names = append(names, a.Name)
	}
	return names
}

// AgentNamed finds a client by its --agent word.
func AgentNamed(name string) (Agent, bool) {
	i := slices.IndexFunc(Agents(), func(a Agent) bool { return a.Name == name })
	if i < 0 {
		return Agent{}, false
	}
	return Agents()[i], true
}
