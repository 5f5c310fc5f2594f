// Package loop runs an agent in iterations until a plan is done: seed
// 003's Ralph loop (RLP-001..008). Each iteration is a fresh headless
// session (`claude -p --output-format stream-json`) given PROMPT.md and
// the first open item of fix_plan.md. The loop reads the session's stream
// as it comes: at L2 the iteration ends cleanly (the agent is let finish
// its edit, then stopped) with a checkpoint and a handoff, instead of
// compacting, and the next iteration's prompt carries the resume context
// (PROMPT.md's resume section, regenerated). Before an item starts, its
// context is estimated and an oversized item is sharded in the plan. The
// loop stops when the plan is done, the agent prints the completion
// marker, or at a ceiling (iterations, tokens, cost, failures in a row), or
// on a signal, after the iteration's checkpoint.
//
// Its state is ralph-state.json, with the seed's context_checkpoint and
// context_history; a loop killed in the middle of an iteration finds that
// iteration in the state file and resumes from its transcript.
package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/cairn-agent/cairn/internal/state"
)

// Files the loop works with, in the project.
const (
	PromptFile = "PROMPT.md"
	PlanFile   = "fix_plan.md"
	StateFile  = "ralph-state.json"
)

// State is ralph-state.json.
type State struct {
	Version int `json:"version"`
	// Status is running, done, stopped or failed; StopReason says why it
	// is not running.
	Status     string `json:"status"`
	StopReason string `json:"stop_reason,omitempty"`
	// Iteration is the number of the last iteration started.
	Iteration int `json:"iteration"`
	// Current is the iteration in progress: set before the agent starts,
	// cleared when the iteration is recorded. A loop that finds it set was
	// killed in that iteration.
	Current             *Current `json:"current,omitempty"`
	ConsecutiveFailures int      `json:"consecutive_failures"`
	Tokens              int64    `json:"tokens"`
	CostUSD             float64  `json:"cost_usd"`
	// ContextCheckpoint and ContextHistory are seed 003's fields
	// (RLP-001, RLP-005).
	ContextCheckpoint ContextCheckpoint `json:"context_checkpoint"`
	ContextHistory    []HistoryEntry    `json:"context_history"`
	// Shards are the sub-issues of the bound ticket made for the shards
	// of oversized items (SHD-003), and whether their progress was told
	// (SHD-004).
	Shards    []ShardTicket `json:"shards,omitempty"`
	StartedAt time.Time     `json:"started_at"`
	UpdatedAt time.Time     `json:"updated_at"`
}

// Current is the iteration in progress.
type Current struct {
	Iteration int       `json:"iteration"`
	Item      string    `json:"item"`
	SessionID string    `json:"session_id,omitempty"`
	Started   time.Time `json:"started"`
	// PID is the loop's process, AgentPID the agent's (the leader of its
	// process group): a loop that finds the iteration it was killed in
	// stops an agent still running there.
	PID      int `json:"pid,omitempty"`
	AgentPID int `json:"agent_pid,omitempty"`
}

// ContextCheckpoint is where the last iteration that ended at a level
// left off, for the next one to resume from.
type ContextCheckpoint struct {
	Active              bool             `json:"active"`
	Level               string           `json:"level,omitempty"`
	PercentAtCheckpoint int              `json:"percent_at_checkpoint,omitempty"`
	Timestamp           *time.Time       `json:"timestamp,omitempty"`
	HandoffFile         string           `json:"handoff_file,omitempty"`
	ResumeSummary       string           `json:"resume_summary,omitempty"`
	FilesInProgress     []FileInProgress `json:"files_in_progress,omitempty"`
	CurrentTodoItem     string           `json:"current_todo_item,omitempty"`
	ProgressOnItem      string           `json:"progress_on_item,omitempty"`
	// SessionID is the session the checkpoint was taken in.
	SessionID string `json:"session_id,omitempty"`
}

// ShardTicket is one shard's sub-issue.
type ShardTicket struct {
	// Item is the shard's item in the plan, Of the item it was split
	// from.
	Item string `json:"item"`
	Of   string `json:"of"`
	// Parent is the bound ticket, Key the tracker queue's key of the
	// sub-issue's creation, Ticket the sub-issue once the tracker made it.
	Parent string `json:"parent"`
	Key    string `json:"key"`
	Ticket string `json:"ticket,omitempty"`
	// Done is set once the shard's item was ticked and the tracker told.
	Done bool `json:"done,omitempty"`
}

// FileInProgress is a file the checkpointed iteration was changing.
type FileInProgress struct {
	Path  string `json:"path"`
	Lines string `json:"lines,omitempty"`
}

// HistoryEntry is one finished iteration (RLP-005).
type HistoryEntry struct {
	Iteration   int     `json:"iteration"`
	PeakPercent int     `json:"peak_percent"`
	Checkpoint  bool    `json:"checkpoint"`
	SessionID   string  `json:"session_id,omitempty"`
	Item        string  `json:"item,omitempty"`
	Tokens      int64   `json:"tokens,omitempty"`
	CostUSD     float64 `json:"cost_usd,omitempty"`
	// Outcome is completed (the agent ended its turn), checkpoint (ended
	// at a level), failed, interrupted (a signal, or the loop was killed)
	// or timeout.
	Outcome string `json:"outcome"`
	Seconds int    `json:"seconds,omitempty"`
}

const stateVersion = 1

// Load reads the state file; none yet is a fresh state.
func Load(path string) (State, error) {
	var s State
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return State{Version: stateVersion, ContextHistory: []HistoryEntry{}}, nil
	}
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("%s: %v (move it aside to start the loop afresh)", path, err)
	}
	if s.Version > stateVersion {
		return s, fmt.Errorf("%s: version %d is newer than this cairn reads (%d)", path, s.Version, stateVersion)
	}
	if s.ContextHistory == nil {
		s.ContextHistory = []HistoryEntry{}
	}
	return s, nil
}

// Save writes the state file whole (a temporary file renamed): a crash
// leaves the old state or the new, never half of one.
func Save(path string, s State) error {
	s.Version = stateVersion
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return state.WriteFile(path, append(data, '\n'), 0o644, true)
}
