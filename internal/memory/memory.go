// Package memory is what cairn remembers beyond a session: observations
// (a checkpoint, a compaction and the items of its summary, a prompt of
// the user's, a decision and its reason, an error and what fixed it, an
// open item and when it closed, a finding, an edit with the names it
// defined and what it was for, a handoff, a learning, a reviewed capture,
// a note someone asked it to keep, what a tool printed or fetched),
// stored in internal/sqlite with a full-text index, so that the agent and the
// user can ask across sessions and projects "what did we decide about X",
// "which change fixed this error before", "what was I doing in this
// repository".
//
// Observations are derived from what cairn already extracts (FromCheckpoint
// and the other From functions) and written when it is stored; Remember
// keeps a note by hand. Everything written passes through redaction, and
// text between <private> and </private> is never stored. Reading is
// progressive, to spend the agent's context only where it helps: Search
// returns a compact index (id, time, kind, title, a snippet, a score),
// Timeline the observations around one in time, Get the full entries.
// Forget removes observations for good, index and write-ahead log
// included.
//
// The command line (cairn search, timeline, get, forget), the hooks
// (observations when a checkpoint is stored, the index at session start)
// and the MCP server all go through Store.
package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/text"
)

// Kinds of observation.
const (
	// KindCheckpoint is a checkpoint of a session's working state: its
	// title names the level and the trigger (seed 003, MEM-001 and
	// MEM-002), its body the task, files, commands and next steps.
	KindCheckpoint = "checkpoint"
	// KindCompaction is a compaction of the context, with its summary.
	KindCompaction = "compaction"
	// KindDecision is a choice the agent stated with its reason.
	KindDecision = "decision"
	// KindErrorFix is a failure and what fixed it (the files changed and
	// the command that then passed), or that nothing has yet.
	KindErrorFix = "error_fix"
	// KindOpenItem is something left to do, an open question, a known
	// problem, something put off.
	KindOpenItem = "open_item"
	// KindClosedItem is an item of the open thread that was closed, and
	// the evidence.
	KindClosedItem = "closed_item"
	// KindFinding is a fact the session established, with its data.
	KindFinding = "finding"
	// KindAnswer is a question of the agent's that the user answered.
	KindAnswer = "answer"
	// KindConstraint is what the user said must or must not be done.
	KindConstraint = "constraint"
	// KindCommand is a build, test or check command and how it ended.
	KindCommand = "command"
	// KindCount is a run that reported counts (tests passed and failed,
	// issues found) and what the session did around it: the count at a
	// moment ("how many tests passed after X").
	KindCount = "count"
	// KindSubagent is what a subagent was asked and reported.
	KindSubagent = "subagent"
	// KindReply is a substantive reply of the agent's: often the account
	// of what it did.
	KindReply = "reply"
	// KindEdit is an edit of a file: the names it defined or brought in,
	// the assistant's sentence that said what it was for, the start of the
	// new text.
	KindEdit = "edit"
	// KindHandoff is a handoff document.
	KindHandoff = "handoff"
	// KindLearning is an entry of seed 001's Stock (learnings-*.md).
	KindLearning = "learning"
	// KindCapture is a reviewed compaction capture (seed 004's memory).
	KindCapture = "capture"
	// KindNote is a note kept by hand (Remember).
	KindNote = "note"
	// KindPrompt is something the user typed (a request, an answer, a
	// correction), with what the agent had just said.
	KindPrompt = "prompt"
	// KindOutput is what a tool said: a command's output in short, an item
	// of a list it printed, a page fetched, a web search.
	KindOutput = "output"
	// KindRead is a file the agent read: the lines of it that set a value,
	// declare a name or describe the file (a limit, an option, a module's
	// doc), which often nothing else the session said carries.
	KindRead = "read"
)

// Kinds lists every kind, for validating filters.
var Kinds = []string{KindCheckpoint, KindCompaction, KindDecision, KindErrorFix, KindOpenItem, KindClosedItem,
	KindFinding, KindAnswer, KindConstraint, KindCommand, KindCount, KindSubagent, KindReply, KindEdit, KindHandoff, KindLearning, KindCapture, KindNote, KindPrompt, KindOutput, KindRead}

// Observation is one thing remembered.
type Observation struct {
	ID        int64     `json:"id"`
	Project   string    `json:"project"`
	SessionID string    `json:"session_id,omitempty"`
	Time      time.Time `json:"time"`
	Kind      string    `json:"kind"`
	Title     string    `json:"title"`
	Body      string    `json:"body,omitempty"`
	Files     []string  `json:"files,omitempty"`
	// Source says where it came from: "checkpoint 12", a handoff's path.
	Source string `json:"source,omitempty"`
	// key decides which observations are the same (see sqlite.Observation);
	// replace makes a later one replace the stored one instead of being
	// left out (an error fixed since).
	key     string
	replace bool
}

// Hit is an observation found by Search: enough to choose which to read.
type Hit struct {
	ID        int64     `json:"id"`
	Time      time.Time `json:"time"`
	Kind      string    `json:"kind"`
	Title     string    `json:"title"`
	Snippet   string    `json:"snippet,omitempty"`
	Score     float64   `json:"score"`
	Project   string    `json:"project"`
	SessionID string    `json:"session_id,omitempty"`
	Files     []string  `json:"files,omitempty"`
}

// Store reads and writes observations in cairn's database.
type Store struct {
	db *sqlite.DB
	// Now is the clock for observations made without a time; New sets it
	// to time.Now.
	Now func() time.Time

	// plainRanking leaves Search's hits in the index's BM25 order (tests
	// measure what the reranking adds).
	plainRanking bool
}

// New returns a Store over db.
func New(db *sqlite.DB) *Store {
	return &Store{db: db, Now: time.Now}
}

// Limits that keep one observation a memory, not a copy of a document.
const (
	maxTitle = 160
	maxBody  = 8 << 10
	maxFiles = 40
)

// Add stores the observations, each redacted, leaving out those stored
// already (the same project, kind and content) or forgotten, and those
// with nothing left after redaction. It returns their IDs in order, 0 for
// those left out.
func (s *Store) Add(ctx context.Context, obs ...Observation) ([]int64, error) {
	recs := make([]sqlite.Observation, 0, len(obs))
	at := make([]int, 0, len(obs))
	for i, o := range obs {
		o = clean(o)
		if o.Title == "" && o.Body == "" {
			continue
		}
		if o.Time.IsZero() {
			o.Time = s.Now()
		}
		recs = append(recs, sqlite.Observation{Project: o.Project, SessionID: o.SessionID, CreatedAt: o.Time,
			Kind: o.Kind, Title: o.Title, Body: o.Body, Files: o.Files, Source: o.Source, Key: o.key, Replace: o.replace})
		at = append(at, i)
	}
	got, err := s.db.AddObservations(ctx, recs)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(obs))
	for j, i := range at {
		ids[i] = got[j]
	}
	return ids, nil
}

// clean redacts everything an observation says (secrets out, <private>
// spans gone) and bounds its size. Redaction is idempotent, so text that
// was cleaned before (a checkpoint's) comes out the same.
func clean(o Observation) Observation {
	o.Title = text.ClipLine(strings.TrimSpace(redact.String(o.Title)), maxTitle)
	o.Body = text.Clip(strings.TrimSpace(redact.String(o.Body)), maxBody)
	var files []string
	for _, f := range o.Files {
		if f = strings.TrimSpace(redact.String(f)); f != "" && !strings.ContainsRune(f, '\n') && len(files) < maxFiles {
			files = append(files, f)
		}
	}
	o.Files = files
	o.key = redact.String(o.key)
	if o.Title == "" {
		o.Title = text.ClipLine(o.Body, maxTitle)
	}
	return o
}

// ErrEmpty is returned (wrapped) by Remember when nothing is left of the
// text once secrets and private spans are taken out.
var ErrEmpty = errors.New("nothing to remember")

// Remember keeps a note by hand, for the project and, when given, the
// session. Its first line (cut to a title's length) is its title.
func (s *Store) Remember(ctx context.Context, project, sessionID, note string) (Observation, error) {
	o := clean(Observation{Project: project, SessionID: sessionID, Kind: KindNote, Body: note, Time: s.Now()})
	if o.Body == "" {
		return Observation{}, fmt.Errorf("remember: %w (after redaction)", ErrEmpty)
	}
	first, _, _ := strings.Cut(o.Body, "\n")
	o.Title = text.ClipLine(first, 100)
	ids, err := s.Add(ctx, o)
	if err != nil {
		return Observation{}, fmt.Errorf("remember: %w", err)
	}
	if ids[0] == 0 {
		// The same note was kept before (or forgotten): say which.
		return Observation{}, fmt.Errorf("remember: the same note is already kept, or was forgotten")
	}
	o.ID = ids[0]
	return o, nil
}

// Get returns the observations with these IDs, in the order given; IDs
// that do not exist are left out.
func (s *Store) Get(ctx context.Context, ids ...int64) ([]Observation, error) {
	recs, err := s.db.Observations(ctx, ids)
	if err != nil {
		return nil, err
	}
	return fromRecords(recs), nil
}

// Timeline returns the observation with the given ID and up to before
// observations made just before it and after just after it, oldest first:
// those of its session, or of its project when it has none.
func (s *Store) Timeline(ctx context.Context, id int64, before, after int) ([]Observation, error) {
	recs, err := s.db.ObservationTimeline(ctx, id, before, after, false)
	if err != nil {
		return nil, err
	}
	return fromRecords(recs), nil
}

// Forget says which observations to remove. The fields combine (all must
// hold); at least one of IDs, Project, SessionID and Query must be set.
type Forget struct {
	IDs       []int64
	Project   string
	SessionID string
	// Query removes the observations that contain every one of its words
	// (not any of them, as Search ranks: forgetting is not a guess).
	Query string
	// Checkpoints also removes the checkpoints of the session or project,
	// which hold the text the observations were made from; only with
	// SessionID or Project alone.
	Checkpoints bool
}

// Forgotten is what Forget removed.
type Forgotten struct {
	Observations int `json:"observations"`
	Checkpoints  int `json:"checkpoints"`
}

// Forget removes observations for good: no row, no term in the full-text
// index, no page of the database or its write-ahead log holds them after
// it, and the same content derived again from a later checkpoint is not
// stored again. It returns sqlite.ErrWALBusy (wrapped) when another
// process kept the write-ahead log from being emptied: the rows are gone,
// the old pages in the log go at its next checkpoint.
func (s *Store) Forget(ctx context.Context, f Forget) (Forgotten, error) {
	q := sqlite.Forget{IDs: f.IDs, Project: f.Project, SessionID: f.SessionID, Checkpoints: f.Checkpoints}
	if strings.TrimSpace(f.Query) != "" {
		q.Match = matchAll(f.Query)
		if q.Match == "" {
			return Forgotten{}, fmt.Errorf("forget: the query %q has no word to look for", f.Query)
		}
	}
	res, err := s.db.ForgetObservations(ctx, q)
	return Forgotten{Observations: res.Observations, Checkpoints: res.Checkpoints}, err
}

func fromRecords(recs []sqlite.Observation) []Observation {
	out := make([]Observation, len(recs))
	for i, r := range recs {
		out[i] = fromRecord(r)
	}
	return out
}

func fromRecord(r sqlite.Observation) Observation {
	return Observation{ID: r.ID, Project: r.Project, SessionID: r.SessionID, Time: r.CreatedAt, Kind: r.Kind,
		Title: r.Title, Body: r.Body, Files: r.Files, Source: r.Source}
}
