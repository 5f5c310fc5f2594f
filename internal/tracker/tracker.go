// Package tracker keeps the issue tracker told where the work stands.
// At a checkpoint the bound ticket gets a status update (seed 003's
// LIN-001), a comment with the checkpoint and the handoff's reference
// (LIN-002, LIN-003; CHK-006 at L3) and a label (LIN-004); a handoff shows
// the ticket's state (HND-003).
//
// Updates go through a durable queue of files under cairn's state
// directory (queue.go): a hook only writes a file and never waits on the
// network; a drainer process (`cairn tracker drain`, started detached)
// sends them, retrying with backoff. Nothing is lost: an update stays
// queued until it is sent, and one the tracker refuses for good is kept
// aside with the reason until the user retries or drops it. Nothing is
// sent twice: each update has an idempotency key, written into the
// comment it posts and looked for before posting, so a drainer killed
// between sending and recording does not post again.
//
// The adapters are named after what they wrap: Linear's GraphQL API (over
// curl: see linear.go for why), GitHub Issues through the gh CLI, beads
// through the bd CLI. Credentials come from the environment or the
// tracker's own CLI login; cairn never stores them.
package tracker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Kind is what an update does.
type Kind string

const (
	// Comment posts Body on the issue.
	Comment Kind = "comment"
	// Status moves the issue to the workflow state named Status.
	Status Kind = "status"
	// Label adds the label named Label.
	Label Kind = "label"
	// SubIssue creates a sub-issue of Issue titled Title, its
	// description Body (SHD-003); the drainer records the new issue's id
	// under the update's key, for the updates that Ref it.
	SubIssue Kind = "sub-issue"
	// Close marks the issue done: Linear moves it to the state named
	// Status, or the team's first completed state; GitHub closes it.
	Close Kind = "close"
)

// Update is one change to one issue, as queued.
type Update struct {
	// Key is the idempotency key: the same update made twice (two hooks,
	// a retry) has the same key and is sent once.
	Key     string `json:"key"`
	Tracker string `json:"tracker"`
	Issue   string `json:"issue"`
	Kind    Kind   `json:"kind"`
	Body    string `json:"body,omitempty"`
	Status  string `json:"status,omitempty"`
	Label   string `json:"label,omitempty"`
	Title   string `json:"title,omitempty"`
	// Ref, when set, is the key of the SubIssue update whose issue this
	// update is about: Issue is then the parent, and the issue acted on is
	// the one that update created, known only once it is sent.
	Ref     string    `json:"ref,omitempty"`
	Created time.Time `json:"created"`
	// Seq orders the updates of one event, made at the same time.
	Seq int `json:"seq,omitempty"`
	// Project is the project the update is about, and Repo its GitHub
	// repository when configured: the drainer opens the tracker with
	// them.
	Project string `json:"project,omitempty"`
	Repo    string `json:"repo,omitempty"`
	// Attempts, NextAt and LastError are the queue's bookkeeping.
	Attempts  int       `json:"attempts,omitempty"`
	NextAt    time.Time `json:"next_at,omitzero"`
	LastError string    `json:"last_error,omitempty"`
}

// Issue is what a tracker says of an issue.
type Issue struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	State  string   `json:"state"`
	URL    string   `json:"url,omitempty"`
	Labels []string `json:"labels,omitempty"`
}

// Tracker is one issue tracker.
type Tracker interface {
	// Name is the tracker's name in the configuration: linear, github,
	// beads.
	Name() string
	// Apply makes the update, once: a comment whose key is already on the
	// issue is not posted again.
	Apply(ctx context.Context, u Update) error
	// Issue reads an issue's state.
	Issue(ctx context.Context, id string) (Issue, error)
}

// SubIssues is a tracker that can create sub-issues (SHD-003).
type SubIssues interface {
	// CreateSubIssue creates u.Title under u.Issue, once: an issue already
	// carrying u.Key's marker is returned rather than created again, so a
	// drainer killed between creating and recording does not create two.
	CreateSubIssue(ctx context.Context, u Update) (Issue, error)
}

// Transient is an error worth retrying: the network, a rate limit, the
// tracker's own failure. After, when set, is how long the tracker asked
// to wait.
type Transient struct {
	Err   error
	After time.Duration
}

func (e *Transient) Error() string { return e.Err.Error() }
func (e *Transient) Unwrap() error { return e.Err }

// transient wraps err as worth retrying.
func transient(err error, after time.Duration) error { return &Transient{Err: err, After: after} }

// IsTransient says whether err is worth retrying.
func IsTransient(err error) bool {
	var t *Transient
	return errors.As(err, &t)
}

// Key derives an update's idempotency key from what identifies it: the
// tracker, the issue, the kind and the event (a checkpoint's id, a
// session).
func Key(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:10])
}

// marker is what a comment carries of its key, invisible in the
// tracker's rendered Markdown.
func marker(key string) string { return "<!-- cairn:" + key + " -->" }

// withMarker is the comment's body as posted.
func withMarker(body, key string) string {
	return strings.TrimRight(body, "\n") + "\n\n" + marker(key)
}

// hasMarker says whether one of the comments carries key.
func hasMarker(comments []string, key string) bool {
	m := marker(key)
	for _, c := range comments {
		if strings.Contains(c, m) {
			return true
		}
	}
	return false
}

// Checkpoint is what a checkpoint tells the tracker.
type Checkpoint struct {
	Tracker string
	Issue   string
	Project string
	Repo    string
	// ID is the checkpoint's id and Session its session: they make the
	// updates' keys.
	ID      int64
	Session string
	// Level is the pressure level crossed (0 for a checkpoint taken for
	// another reason), Trigger why it was taken.
	Level   int
	Trigger string
	// Summary is the checkpoint's one-line summary; Next what is left.
	Summary string
	Next    []string
	// Handoff is the handoff document's path relative to the project, ""
	// when none was written.
	Handoff string
	Context string // "141,950 tokens (85% of auto-compact)"
	// Status is the workflow state to move the issue to ("" for none),
	// Label the label to add ("" for none).
	Status string
	Label  string
	Time   time.Time
}

// Updates are the checkpoint's updates, in the order they are sent.
func (c Checkpoint) Updates() []Update {
	event := fmt.Sprintf("%s/%d", c.Session, c.ID)
	var out []Update
	add := func(u Update) {
		u.Tracker, u.Issue, u.Created, u.Project, u.Repo = c.Tracker, c.Issue, c.Time, c.Project, c.Repo
		u.Key = Key(c.Tracker, c.Issue, string(u.Kind), event)
		u.Seq = len(out)
		out = append(out, u)
	}
	if c.Status != "" {
		add(Update{Kind: Status, Status: c.Status})
	}
	add(Update{Kind: Comment, Body: c.comment()})
	if c.Label != "" {
		add(Update{Kind: Label, Label: c.Label})
	}
	return out
}

// comment is the checkpoint comment (LIN-002), with the handoff's
// reference (LIN-003).
func (c Checkpoint) comment() string {
	var b strings.Builder
	switch {
	case c.Level >= 3:
		fmt.Fprintf(&b, "**Context checkpoint (L3, emergency)** · checkpoint %d", c.ID)
	case c.Level > 0:
		fmt.Fprintf(&b, "**Context checkpoint (L%d)** · checkpoint %d", c.Level, c.ID)
	default:
		fmt.Fprintf(&b, "**Context checkpoint** (%s) · checkpoint %d", c.Trigger, c.ID)
	}
	if c.Context != "" {
		fmt.Fprintf(&b, " · context %s", c.Context)
	}
	b.WriteString("\n\n")
	if c.Summary != "" {
		fmt.Fprintf(&b, "%s\n\n", c.Summary)
	}
	if len(c.Next) > 0 {
		b.WriteString("Next:\n")
		for _, n := range c.Next {
			fmt.Fprintf(&b, "- %s\n", n)
		}
		b.WriteString("\n")
	}
	if c.Handoff != "" {
		fmt.Fprintf(&b, "Handoff: `%s` (resume with `cairn resume`)\n", c.Handoff)
	} else {
		fmt.Fprintf(&b, "Resume with `cairn resume` (`cairn show checkpoint %d`)\n", c.ID)
	}
	return b.String()
}
