package hook

// The agent boundary: what differs between the clients that run cairn's
// hooks is gathered here, from their adapters (internal/claudecode,
// internal/codex, internal/gemini); the handlers in hook.go know no
// client. The same table tells the commands where each client keeps a
// project's sessions and how text reaches its model when a session
// starts (cairn sessions, status, report, resume --agent); a client
// joins with one entry in Agents.

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/codex"
	"github.com/cairn-agent/cairn/internal/gemini"
	"github.com/cairn-agent/cairn/internal/hookevent"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/transcript"
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
	CustomInstructions   string
}

// Agent is one client's side of a hook run: its events and their
// budgets, how its payload decodes, how its answers are written, and its
// meter rules.
type Agent struct {
	// Name is the --agent word: claude-code, codex, gemini. It is also
	// the Client its transcripts are read as (transcript.Session.Client).
	Name string
	// aliases are other --agent words for it ("claude").
	aliases []string
	// Events are the events the client's hooks are wired for, in install
	// order, with their budgets.
	Events hookevent.Table
	// StartEvent is the event whose answer brings a new session the
	// pointer to earlier work: what `cairn resume --agent` prints is
	// framed as that answer.
	StartEvent string
	// sessions lists the client's transcripts of the project at root,
	// newest first, through l when it is not nil and the client's folder
	// is listed that way (Claude Code's).
	sessions func(getenv func(string) string, root string, l *claudecode.Listing) ([]SessionFile, error)
	// listed says that the client's project folders are listed through a
	// claudecode.Listing, which its hooks keep up to date.
	listed bool
	// projects lists the project directories the client has sessions
	// of; nil when its files do not say them (Claude Code names its
	// folders after them, lossily).
	projects func(getenv func(string) string) ([]string, error)
	decode   func(data []byte) (Payload, error)
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
	// role names the handler that runs for the client's event, by Claude
	// Code's name for it; nil when the client uses those names.
	role func(event string) string
	// promptRestoresOnly says a restore is delivered at a prompt only,
	// never after a tool: the client records a tool's hook context where
	// the transcript gives no sign of it, so a delivery there could not be
	// told from none, and the prompt would get it again.
	promptRestoresOnly bool
	// precompactsAlways says the client runs PreCompact before every
	// request, compacting or not: the checkpoint is taken only when the
	// context has reached the client's compaction point, or on a manual
	// compaction.
	precompactsAlways bool
	// startsAtPrompt says the session's first prompt gets what
	// SessionStart gives a new session (the resume pointer, the memory
	// index): the client's SessionStart cannot deliver it.
	startsAtPrompt bool
}

// handler is the handler that runs for event.
func (a *Agent) handler(event string) string {
	if a.role == nil {
		return event
	}
	return a.role(event)
}

// ClaudeCode is Claude Code's side, the default.
func ClaudeCode() Agent {
	return Agent{
		Name:       "claude-code",
		aliases:    []string{"claude"},
		listed:     true,
		Events:     claudecode.Events,
		StartEvent: "SessionStart",
		sessions: func(getenv func(string) string, root string, l *claudecode.Listing) ([]SessionFile, error) {
			cfg, err := claudecode.ConfigDir(getenv)
			if err != nil {
				return nil, err
			}
			dir, _, ok := claudecode.ProjectDir(cfg, root)
			if !ok {
				return nil, nil
			}
			list := claudecode.Sessions
			if l != nil {
				list = l.Sessions
			}
			fs, err := list(dir)
			out := make([]SessionFile, len(fs))
			for i, f := range fs {
				out[i] = SessionFile{Agent: "claude-code", ID: f.ID, Path: f.Path, ModTime: f.ModTime}
			}
			return out, err
		},
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
		Name:       "codex",
		Events:     codex.Events,
		StartEvent: "SessionStart",
		sessions: func(getenv func(string) string, root string, _ *claudecode.Listing) ([]SessionFile, error) {
			home, err := codex.Home(getenv)
			if err != nil {
				return nil, err
			}
			fs, err := codex.Sessions(home, root)
			out := make([]SessionFile, len(fs))
			for i, f := range fs {
				out[i] = SessionFile{Agent: "codex", ID: f.ID, Path: f.Path, ModTime: f.ModTime}
			}
			return out, err
		},
		projects: func(getenv func(string) string) ([]string, error) {
			home, err := codex.Home(getenv)
			if err != nil {
				return nil, err
			}
			return codex.Projects(home)
		},
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

// Gemini is Gemini CLI's side. Its events run the handlers of their
// Claude Code counterparts: BeforeAgent a prompt's, AfterTool a tool's,
// PreCompress PreCompact's. No event follows a compression, so the
// prompt after it finds it in the chat file and restores there; and the
// session's first prompt gets what SessionStart would give (SessionStart's
// context costs the prompt on --resume).
func Gemini() Agent {
	return Agent{
		Name:   "gemini",
		Events: gemini.Events,
		// No SessionStart (its context costs the prompt on --resume): a
		// session's first BeforeAgent brings the pointer.
		StartEvent: "BeforeAgent",
		sessions: func(getenv func(string) string, root string, _ *claudecode.Listing) ([]SessionFile, error) {
			home, err := gemini.Home(getenv)
			if err != nil {
				return nil, err
			}
			fs, err := gemini.Sessions(home, root)
			out := make([]SessionFile, len(fs))
			for i, f := range fs {
				out[i] = SessionFile{Agent: "gemini", ID: f.ID, Path: f.Path, ModTime: f.ModTime}
			}
			return out, err
		},
		projects: func(getenv func(string) string) ([]string, error) {
			home, err := gemini.Home(getenv)
			if err != nil {
				return nil, err
			}
			return gemini.Projects(home)
		},
		decode: func(data []byte) (Payload, error) {
			p, err := gemini.DecodePayload(data)
			return fromGemini(p), err
		},
		decodeHead: func(data []byte, event string) (Payload, bool) {
			p, ok := gemini.DecodePayloadHead(data, event)
			return fromGemini(p), ok
		},
		context:    gemini.AdditionalContext,
		projectEnv: "GEMINI_PROJECT_DIR",
		rules: func(getenv func(string) string, project string, window int64) meter.Rules {
			return gemini.Rules(getenv, project, window)
		},
		role: func(event string) string {
			switch event {
			case "BeforeAgent":
				return "UserPromptSubmit"
			case "AfterTool":
				return "PostToolUse"
			case "PreCompress":
				return "PreCompact"
			}
			return event
		},
		promptRestoresOnly: true,
		precompactsAlways:  true,
		startsAtPrompt:     true,
	}
}

func fromGemini(p gemini.Payload) Payload {
	return Payload{SessionID: p.SessionID, TranscriptPath: p.TranscriptPath, CWD: p.CWD, Event: p.Event,
		Source: p.Source, Trigger: p.Trigger, Reason: p.Reason, Prompt: p.Prompt}
}

func fromCodex(p codex.Payload) Payload {
	return Payload{SessionID: p.SessionID, TranscriptPath: p.TranscriptPath, CWD: p.CWD, Event: p.Event,
		Source: p.Source, Trigger: p.Trigger, Reason: p.Reason, LastAssistantMessage: p.LastAssistantMessage, Prompt: p.Prompt}
}

// Agents are the clients cairn's hooks run for, the default first.
func Agents() []Agent { return []Agent{ClaudeCode(), Codex(), Gemini()} }

// AgentNames are the --agent words.
func AgentNames() []string {
	var names []string
	for _, a := range Agents() {
		names = append(names, a.Name)
	}
	return names
}

// AgentNamed finds a client by its --agent word, or by the Client its
// transcripts are read as.
func AgentNamed(name string) (Agent, bool) {
	i := slices.IndexFunc(Agents(), func(a Agent) bool { return a.Name == name || slices.Contains(a.aliases, name) })
	if i < 0 {
		return Agent{}, false
	}
	return Agents()[i], true
}

// Title is the client's name as people know it: Claude Code, Codex CLI.
func (a Agent) Title() string { return transcript.ClientTitle(a.Name) }

// Context is the answer a hook of the client gives at event to add text
// to the model's context, "" when that event's answer reaches no model.
func (a Agent) Context(event, text string) string { return a.context(event, text) }

// ResumeCommand is the command that prints the resume text for this
// client.
func (a Agent) ResumeCommand() string {
	if a.Name == ClaudeCode().Name {
		return "cairn resume"
	}
	return "cairn resume --agent " + a.Name
}

// RunName is the name the runs of the client's hook for event are
// recorded under (RecordRun, LastRun): the event's own for Claude Code,
// as before there were other clients, "codex/SessionStart" for the
// others, so that doctor tells each client's runs apart.
func (a Agent) RunName(event string) string {
	if a.Name == "" || a.Name == ClaudeCode().Name {
		return event
	}
	return a.Name + "/" + event
}

// Rules are the client's meter rules for the project, nil when they are
// Claude Code's settings from the environment.
func (a Agent) Rules(getenv func(string) string, project string, window int64) meter.Rules {
	if a.rules == nil {
		return nil
	}
	return a.rules(getenv, project, window)
}

// SessionFile is the transcript of one of a client's sessions.
type SessionFile struct {
	// Agent is the client's --agent word.
	Agent   string
	ID      string
	Path    string
	ModTime time.Time
}

// Sessions lists the client's sessions of the project at root, newest
// first; none when the client keeps none there.
func (a Agent) Sessions(getenv func(string) string, root string) ([]SessionFile, error) {
	if a.sessions == nil {
		return nil, nil
	}
	return a.sessions(getenv, root, nil)
}

// AllSessions are every client's sessions of the project at root, newest
// first. A client whose sessions cannot be listed is left out, and its
// error returned with the others'.
func AllSessions(getenv func(string) string, root string) ([]SessionFile, error) {
	return AllSessionsListed(getenv, root, nil)
}

// AllSessionsListed is AllSessions with Claude Code's project folder listed
// through l (a copy kept in cairn's state), when l is not nil.
func AllSessionsListed(getenv func(string) string, root string, l *claudecode.Listing) ([]SessionFile, error) {
	var out []SessionFile
	var errs []error
	for _, a := range Agents() {
		if a.sessions == nil {
			continue
		}
		fs, err := a.sessions(getenv, root, l)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s sessions: %w", a.Title(), err))
		}
		out = append(out, fs...)
	}
	slices.SortStableFunc(out, func(x, y SessionFile) int { return y.ModTime.Compare(x.ModTime) })
	return out, errors.Join(errs...)
}

// Projects are the project directories the client has sessions of, none
// when its files do not say them (Claude Code's).
func (a Agent) Projects(getenv func(string) string) ([]string, error) {
	if a.projects == nil {
		return nil, nil
	}
	return a.projects(getenv)
}

// AllProjects are the project directories any client that says them has
// sessions of, each once, sorted. A client whose projects cannot be
// listed is left out, and its error returned with the others'.
func AllProjects(getenv func(string) string) ([]string, error) {
	var out []string
	var errs []error
	for _, a := range Agents() {
		ps, err := a.Projects(getenv)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s projects: %w", a.Title(), err))
		}
		out = append(out, ps...)
	}
	slices.Sort(out)
	return slices.Compact(out), errors.Join(errs...)
}
