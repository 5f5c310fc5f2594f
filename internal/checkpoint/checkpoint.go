// Package checkpoint captures the working state of a coding session as a
// structured record (the task and its ticket, the user's constraints,
// todos, files changed, commands and how they ended, errors and whether
// they were fixed, decisions and their reasons, git state, next steps) and
// renders it three ways: in full as Markdown, as instructions that steer
// the compaction summary, and as a restore that fits a token budget.
//
// Everything in a checkpoint is derived from the transcript engine and git,
// never guessed, and passes through redaction before it is stored or shown.
package checkpoint

import (
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/git"
	"github.com/cairn-agent/cairn/internal/outcome"
	"github.com/cairn-agent/cairn/internal/text"
)

// Version changes when the meaning of a stored checkpoint changes.
const Version = 1

// Checkpoint is the working state of a session at one moment.
type Checkpoint struct {
	Version   int    `json:"version"`
	ID        int64  `json:"id,omitempty"` // assigned by the store
	Project   string `json:"project"`
	SessionID string `json:"session_id"`
	// Client is the program the session ran in (transcript.Session's
	// Client: claude-code, codex, gemini); "" in checkpoints taken before
	// cairn recorded it.
	Client     string    `json:"client,omitempty"`
	Transcript string    `json:"transcript"`
	CreatedAt  time.Time `json:"created_at"`
	// Trigger is why it was taken: precompact-auto, precompact-manual,
	// session-end, manual...
	Trigger string `json:"trigger"`
	// From is the transcript's offset the checkpoint was built from when
	// it was built from its last part only (a first look at a large
	// session, continuity's bounded build), 0 when from all of it. Such a
	// checkpoint is what a compaction's steering is made of while the
	// whole one is built; it is never stored.
	From    int64   `json:"from,omitempty"`
	Context Context `json:"context"`

	Task Task `json:"task"`
	// Open is the open thread: what was said to be left to do, open
	// questions, known problems, put off or asked for, over the whole
	// session (the ledger), oldest first.
	Open []OpenItem `json:"open_items,omitempty"`
	// Answers are the assistant's questions the user answered: settled
	// with the user, often in a prompt long before the compaction.
	Answers []Answer `json:"answers,omitempty"`
	// Closed are the latest items the session closed, with the evidence.
	Closed      []OpenItem `json:"closed_items,omitempty"`
	Constraints []string   `json:"constraints"`
	Todos       []Todo     `json:"todos"`
	Files       []File     `json:"files"`
	KeyReads    []string   `json:"key_reads"`
	Commands    []Command  `json:"commands"`
	Errors      []Error    `json:"errors"`
	Decisions   []string   `json:"decisions"`
	// Findings are facts the session established, with their data.
	Findings  []string `json:"findings,omitempty"`
	NextSteps []string `json:"next_steps"`
	LastReply string   `json:"last_reply,omitempty"`
	// LastReplies are the latest assistant texts with substance, oldest
	// first (the last one among them when none has).
	LastReplies []string    `json:"last_replies,omitempty"`
	Git         *git.Status `json:"git,omitempty"`
	GitError    string      `json:"git_error,omitempty"`
	Subagents   []string    `json:"subagents"`
	Compactions int         `json:"compactions"`
	// Instructions are the user's words after a manual /compact ("focus
	// on the todo list, drop the telescope part"): what the user asked
	// the summary to keep or leave out. The steering and the restore show
	// them and leave out what they drop.
	Instructions string `json:"instructions,omitempty"`
	// Turns is how many replies the session had.
	Turns int `json:"turns,omitempty"`
}

// Context is the meter's reading when the checkpoint was taken.
type Context struct {
	Tokens    int64   `json:"tokens"`
	Window    int64   `json:"window"`
	Threshold int64   `json:"threshold"`
	Percent   float64 `json:"percent_of_window"`
}

// Task is what the session is about.
type Task struct {
	// First is the first substantive prompt.
	First string `json:"first"`
	// Latest are the latest prompts, newest last (the first excluded).
	Latest []string `json:"latest"`
	// Tickets are the issue keys and bead ids seen, most recent last.
	Tickets []string `json:"tickets"`
}

// Answer is a question of the assistant's and the user's answer to it,
// or (By "user") a question the user asked that the assistant answered
// turns later.
type Answer struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	By       string `json:"by,omitempty"`
	// Revised is the user's later prompt that took the answer back.
	Revised string `json:"revised,omitempty"`
	// Gloss is how the agent took a short answer, in its reply to it.
	Gloss string `json:"gloss,omitempty"`
}

// OpenItem is one item of the open thread.
type OpenItem struct {
	Text string `json:"text"`
	// Kind is task, question, problem, deferred or request.
	Kind string `json:"kind"`
	// By is who said it: assistant or user.
	By   string `json:"by"`
	Turn int    `json:"turn"`
	// ClosedBy is how a closed item was closed, and the evidence.
	ClosedBy string `json:"closed_by,omitempty"`
	Evidence string `json:"evidence,omitempty"`
}

// Label says what sort of item it is, for the model.
func (o OpenItem) Label() string {
	switch {
	case o.Kind == "question" && o.By == "user":
		return "the user's open question"
	case o.Kind == "question":
		return "your open question"
	case o.Kind == "problem":
		return "not fixed"
	case o.Kind == "deferred":
		return "put off"
	case o.Kind == "request" && strings.Contains(o.Text, " → "):
		// The assistant's offer and the user's yes: the user did not
		// ask, the user agreed.
		return "you offered, the user agreed"
	case o.Kind == "request":
		return "the user asked"
	}
	return "to do"
}

// Todo is one item of the agent's list.
type Todo struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// Open reports whether the todo still needs doing.
func (t Todo) Open() bool { return t.Status != "completed" }

// File is a path the session created, changed or deleted.
type File struct {
	Path    string `json:"path"`
	Created bool   `json:"created,omitempty"`
	Edits   int    `json:"edits,omitempty"`
	Writes  int    `json:"writes,omitempty"`
	Deleted bool   `json:"deleted,omitempty"`
}

// Command is a distinct shell command and how it last ended.
type Command struct {
	Command     string `json:"command"`
	Description string `json:"description,omitempty"`
	ExitCode    *int   `json:"exit_code"`
	Runs        int    `json:"runs"`
	// Outcome is how the last run ended, judged from its output too.
	Outcome *outcome.Outcome `json:"outcome,omitempty"`
	// Earlier says how the runs before the last ended, oldest first, at
	// most maxEarlier of them: "exit 1", "failed" (its output said so),
	// "exit 0". A run that failed then passed is not a run that passed.
	Earlier []string `json:"earlier,omitempty"`
	// Others counts the earlier runs of the same command with other
	// quoted arguments that ended as this one did (see commands).
	Others int `json:"others,omitempty"`
}

// Error is a failed tool call, or a command whose output says it failed,
// and whether a later call that did the same work succeeded by the same
// standard.
type Error struct {
	Tool     string `json:"tool"`
	Subject  string `json:"subject"` // the command or the path
	Message  string `json:"message"`
	Resolved bool   `json:"resolved"`
	// FixedIn are the files changed between the failure and the run that
	// passed: where the fix went.
	FixedIn []string `json:"fixed_in,omitempty"`
	// Times counts the failures merged into this one beyond the first.
	Times int `json:"times,omitempty"`
	// Fix is what the agent said first after the call that no longer
	// failed, before the user spoke again: how it was fixed ("last_name
	// has a default now"), which the error's message does not say.
	Fix string `json:"fix,omitempty"`
}

// OpenTodos are the todos not completed.
func (c *Checkpoint) OpenTodos() []Todo {
	var out []Todo
	for _, t := range c.Todos {
		if t.Open() {
			out = append(out, t)
		}
	}
	return out
}

// Unresolved are the errors no later call fixed.
func (c *Checkpoint) Unresolved() []Error {
	var out []Error
	for _, e := range c.Errors {
		if !e.Resolved {
			out = append(out, e)
		}
	}
	return out
}

// Summary is a one-line description for listings.
func (c *Checkpoint) Summary() string {
	s := c.Task.First
	if n := len(c.Task.Latest); n > 0 {
		s = c.Task.Latest[n-1]
	}
	if len(c.Task.Tickets) > 0 {
		s = c.Task.Tickets[len(c.Task.Tickets)-1] + ": " + s
	}
	return text.ClipLine(s, 100)
}
