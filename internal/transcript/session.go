// Package transcript reads coding agents' session transcripts (JSONL) fast,
// incrementally and defensively, and derives a picture of the session from
// them: replies and their token usage, user prompts, tool calls and their
// results, file operations, Bash commands, todos, compactions and subagents.
//
// A Session is the derived state, the same whichever client wrote the
// transcript: Claude Code, Codex CLI (rollout files) or Gemini CLI (chat
// files). It is plain data, serialisable as JSON, so that a short-lived
// process can save it with the byte offset it reached and the next
// process can continue from there, reading only what was appended.
//
// Three layers: tail.go reads complete lines from where the last read
// stopped (parallel.go splits a large cold read); a decoder per client
// (claude.go, codex.go, gemini.go) reads its lines; the derivation
// (derive.go, tools.go, notes.go) says what a prompt, a reply and its
// usage, a tool call or result, a file change or a compaction does to
// the Session.
package transcript

import (
	"time"

	"github.com/cairn-agent/cairn/internal/ledger"
	"github.com/cairn-agent/cairn/internal/outcome"
)

// StateVersion changes whenever Session's meaning or shape changes; saved
// state of another version is discarded and rebuilt.
const StateVersion = 6

// Limits that keep the derived state small whatever the transcript's size.
const (
	maxPromptBytes  = 2000
	maxErrorBytes   = 500
	maxCommandBytes = 500
	maxSummaryBytes = 2 << 10 // an excerpt: PostCompact keeps the whole summary
	maxBadLines     = 100
	// The assistant's notes between two checkpoints: past these the
	// oldest go before a checkpoint (and memory) sees them. 30 lost the
	// test counts and explanations of long stretches of work.
	maxDecisions    = 60
	maxFindings     = 60
	maxResultBytes  = 600
	maxLastTexts    = 3
	maxTextBytes    = 3000
	maxNoteBytes    = 400
	maxRestoreLines = 20
)

// Session is everything derived from one transcript file so far.
type Session struct {
	Version int    `json:"version"`
	Path    string `json:"path"`
	// Offset is the number of bytes consumed: always the end of a complete line.
	Offset int64 `json:"offset"`
	// Lines is the number of complete lines consumed.
	Lines int `json:"lines"`
	// TailSum is a hash of the TailLen bytes before Offset, so a later
	// reader can tell the file it resumes is the one it read (not truncated
	// or replaced). A hash rather than the bytes: they are the end of a
	// transcript line, which can hold anything the session printed.
	TailSum []byte `json:"tail_sum"`
	TailLen int    `json:"tail_len"`
	// Head is a hash of the file's first bytes (up to headKeep), for the
	// same purpose: a replaced file rarely keeps both its start and the end
	// of what was read.
	Head []byte `json:"head"`
	// Client is the program that wrote the transcript: ClaudeCode, Codex
	// or Gemini; "" until the first line has told.
	Client string `json:"client"`
	// Carry is what the client's decoder keeps between lines.
	Carry Carry `json:"carry"`
	// IsSubagent marks a subagent's own transcript, whose lines are all
	// sidechain lines: there they are the chain that counts.
	IsSubagent bool `json:"is_subagent,omitempty"`

	SessionID     string `json:"session_id"`
	Model         string `json:"model"`
	CWD           string `json:"cwd"`
	GitBranch     string `json:"git_branch"`
	ClientVersion string `json:"client_version"`
	// ContextWindow is the context window the transcript itself states
	// (Codex records the one it works with), 0 when it states none.
	ContextWindow int64     `json:"context_window,omitempty"`
	FirstTime     time.Time `json:"first_time"`
	LastTime      time.Time `json:"last_time"`

	Turns []Turn `json:"turns"`
	// EarlierTurns counts turns left out of Turns (in a light copy).
	EarlierTurns int          `json:"earlier_turns,omitempty"`
	Compactions  []Compaction `json:"compactions"`
	Prompts      []Prompt     `json:"prompts"`
	ToolCalls    []ToolCall   `json:"tool_calls"`
	Files        []FileStat   `json:"files"`
	Todos        []Todo       `json:"todos"`
	Subagents    []Subagent   `json:"subagents"`
	// Decisions are the assistant's sentences that state a choice and its
	// reason, the latest maxDecisions of them.
	Decisions []Note `json:"decisions"`
	// Findings are the assistant's sentences that state a fact with a
	// datum (a number, a code name, a path), the latest maxFindings.
	Findings []Note `json:"findings"`
	// LastTexts are the latest main-chain assistant texts, newest last.
	LastTexts []Note `json:"last_texts"`
	// Ledger is the open thread: what is left to do, open questions,
	// known problems, over the whole session.
	Ledger ledger.Ledger `json:"ledger"`

	// HookAnswers is set when the client records the hook answers it used
	// (Claude Code 2.1.x writes an attachment line for each); RestoreLines
	// are the lines of those that were cairn's restore, the latest
	// maxRestoreLines of them.
	HookAnswers  bool  `json:"hook_answers,omitempty"`
	RestoreLines []int `json:"restore_lines,omitempty"`

	BadLines []BadLine `json:"bad_lines"`
	BadCount int       `json:"bad_count"`
	// Skipped counts lines of types cairn does not read (progress, file
	// snapshots, queue operations, and types newer clients add).
	Skipped int `json:"skipped"`

	idx *index // lookups rebuilt from the slices above; never saved
	// rawTexts is set while LastTexts holds texts not cleaned yet: only
	// inside Update.
	rawTexts bool
}

// Usage is the token accounting of one API response. Input is the input
// neither read from nor written to a cache, so that the three input
// figures add up to the request's whole input, whichever way the client
// counts them.
type Usage struct {
	Input         int64 `json:"input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	Output        int64 `json:"output_tokens"`
	// Total is the client's own count of the context after this
	// response, where it records one and compacts on it: Codex counts the
	// reply's output too. 0 where the client keeps none.
	Total int64 `json:"total_tokens,omitempty"`
}

// Context is the context this response leaves, as the client counts it:
// its own Total where it keeps one, else what the request that produced
// the response had in context.
func (u Usage) Context() int64 {
	if u.Total > 0 {
		return u.Total
	}
	return u.Input + u.CacheCreation + u.CacheRead
}

// Turn is one main-chain assistant reply (one API response, however many
// transcript lines it was split over).
type Turn struct {
	MessageID string    `json:"message_id"`
	Time      time.Time `json:"time"`
	Usage     Usage     `json:"usage"`
	Line      int       `json:"line"`
}

// Compaction is one compaction of the context and its summary.
type Compaction struct {
	Trigger    string    `json:"trigger"`
	PreTokens  int64     `json:"pre_tokens"`
	PostTokens int64     `json:"post_tokens"`
	Time       time.Time `json:"time"`
	Line       int       `json:"line"`
	// TurnsBefore is how many main-chain turns preceded the boundary.
	TurnsBefore  int    `json:"turns_before"`
	Summary      string `json:"summary,omitempty"`
	SummaryChars int    `json:"summary_chars"`
	// ContextChars is the size of the history the compaction left, in
	// characters, where the client records the history but no count
	// (Gemini CLI): what the meter estimates the context from.
	ContextChars int `json:"context_chars,omitempty"`
}

// Prompt is something the user typed (not tool results, hook or command
// output, reminders or compaction summaries).
type Prompt struct {
	Time time.Time `json:"time"`
	Text string    `json:"text"`
	Line int       `json:"line"`
}

// ToolCall is one tool_use and, once seen, its result.
type ToolCall struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Time      time.Time `json:"time"`
	Line      int       `json:"line"`
	Sidechain bool      `json:"sidechain,omitempty"`
	FilePath  string    `json:"file_path,omitempty"`
	// Paths are the other files a call that changes several (a patch)
	// changed, FilePath being the first.
	Paths   []string `json:"paths,omitempty"`
	Command string   `json:"command,omitempty"`
	// Description is what a Bash or subagent (Task, Agent) call said it
	// was for.
	Description string `json:"description,omitempty"`
	// Result is the start of what a subagent reported back.
	Result string `json:"result,omitempty"`
	// Done is set when the result was seen.
	Done    bool `json:"done,omitempty"`
	IsError bool `json:"is_error,omitempty"`
	// ExitCode is set for Bash: 0 on success, N from "Exit code N", nil when
	// the result does not say (rejected, interrupted, still running).
	ExitCode  *int   `json:"exit_code,omitempty"`
	ErrorText string `json:"error,omitempty"`
	// Outcome is how a Bash command ended, judged from its output as well
	// as its exit code: a test run piped into tail exits 0 when the tests
	// failed.
	Outcome *outcome.Outcome `json:"outcome,omitempty"`
	// Todo is the change a todo tool's call asks of the todo list, held
	// until its result is seen (so across hook runs, when a hook runs
	// between the call and its result): only a result that is no error
	// applies it.
	Todo *TodoChange `json:"todo,omitempty"`
}

// TodoChange is what a TodoWrite, TaskCreate or TaskUpdate call asks.
type TodoChange struct {
	// List is the list a TodoWrite call (or a plan of the same shape)
	// sets, cleaned as the todo list is.
	List       []Todo `json:"list,omitempty"`
	TaskID     string `json:"task_id,omitempty"`
	Subject    string `json:"subject,omitempty"`
	Status     string `json:"status,omitempty"`
	ActiveForm string `json:"active_form,omitempty"`
}

// Note is a piece of what the assistant said.
type Note struct {
	Time time.Time `json:"time"`
	Line int       `json:"line"`
	Text string    `json:"text"`
}

// FileStat counts the operations on one path, in order of first touch.
type FileStat struct {
	Path    string `json:"path"`
	Read    int    `json:"read,omitempty"`
	Write   int    `json:"write,omitempty"`
	Edit    int    `json:"edit,omitempty"`
	Delete  int    `json:"delete,omitempty"`
	Created bool   `json:"created,omitempty"`
	// Gone says the last thing done to the file removed it: a file
	// written, then removed with rm, is not among the work.
	Gone bool `json:"gone,omitempty"`
}

// Todo is one item of the agent's todo list, from TodoWrite or the
// TaskCreate/TaskUpdate tools.
type Todo struct {
	ID         string `json:"id,omitempty"`
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"active_form,omitempty"`
}

// Subagent is a subagent transcript beside the session's file.
type Subagent struct {
	ID      string   `json:"id"`
	Path    string   `json:"path"`
	Compact bool     `json:"compact,omitempty"` // the compaction summariser
	Session *Session `json:"session"`
}

// BadLine is a line that was skipped because it could not be read.
type BadLine struct {
	Line   int    `json:"line"`
	Offset int64  `json:"offset"`
	Reason string `json:"reason"`
}

// index holds lookups over the session's slices.
type index struct {
	turnByMsg  map[string]int
	callByID   map[string]int
	fileByPath map[string]int
	todoByID   map[string]int
}

func (s *Session) index() *index {
	if s.idx != nil {
		return s.idx
	}
	x := &index{
		turnByMsg:  make(map[string]int, len(s.Turns)),
		callByID:   make(map[string]int, len(s.ToolCalls)),
		fileByPath: make(map[string]int, len(s.Files)),
		todoByID:   make(map[string]int),
	}
	for i, t := range s.Turns {
		x.turnByMsg[t.MessageID] = i
	}
	for i, c := range s.ToolCalls {
		x.callByID[c.ID] = i
	}
	for i, f := range s.Files {
		x.fileByPath[f.Path] = i
	}
	for i, t := range s.Todos {
		if t.ID != "" {
			x.todoByID[t.ID] = i
		}
	}
	s.idx = x
	return x
}

// NumTurns is the number of main-chain replies.
func (s *Session) NumTurns() int { return s.EarlierTurns + len(s.Turns) }

// New returns an empty session for the transcript at path, whose first
// line will tell which client wrote it.
func New(path string) *Session {
	return &Session{Version: StateVersion, Path: path}
}

// NewFor returns an empty session for the transcript at path written by
// client (ClaudeCode, Codex, Gemini; "" to tell from the first line).
func NewFor(path, client string) *Session {
	return &Session{Version: StateVersion, Path: path, Client: client}
}

// Carry is what a decoder keeps between the lines of a transcript whose
// records refer to each other, saved with the session so that the next
// process continues where this one stopped.
type Carry struct {
	// Response is the id of the Codex response whose usage the next
	// token_count reports (from the token_usage_record before it).
	Response string `json:"response,omitempty"`
	// Cumulative and LastTotal are the latest Codex token_count's thread
	// total and last_token_usage total: a token_count that repeats both
	// reports no new response.
	Cumulative int64 `json:"cumulative,omitempty"`
	LastTotal  int64 `json:"last_total,omitempty"`
	// Compacting is set when Codex wrote a compaction's output: the usage
	// that follows is the compaction call's own, not a turn's.
	Compacting bool `json:"compacting,omitempty"`
	// Compacted is set from a Codex compacted record until the
	// ContextCompaction item that closes the same compaction.
	Compacted bool `json:"compacted,omitempty"`
	// Snapshot names the latest Gemini CLI <state_snapshot> seen (its
	// message id), which a resumed history repeats.
	Snapshot string `json:"snapshot,omitempty"`
}
