package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/text"
)

// DefaultIndexBudget is the size of the session-start index in tokens: a
// few hundred, so that it points at what exists without crowding the
// start of a session.
const DefaultIndexBudget = 300

// indexShare is how many of each kind the index considers, newest first:
// what was decided, fixed, left open or noted outlives the session; the
// newest checkpoint says where the work stood.
var indexShare = []struct {
	kind string
	n    int
}{
	{KindCheckpoint, 1}, {KindNote, 3}, {KindDecision, 4}, {KindOpenItem, 4}, {KindErrorFix, 3},
	{KindConstraint, 2}, {KindLearning, 2}, {KindCapture, 1}, {KindHandoff, 1},
}

// Index is the compact index of a project's past observations for the
// start of a session: one line each (id, date, kind, title), newest
// first, within budget tokens (DefaultIndexBudget when <= 0), with how to
// read more. It is "" when the project has none. The hooks show it at
// startup, never with a compaction's restore, whose budget it would
// crowd.
func (s *Store) Index(ctx context.Context, project, exceptSession string, budget int) (string, error) {
	if budget <= 0 {
		budget = DefaultIndexBudget
	}
	var hits []Hit
	for _, sh := range indexShare {
		got, err := s.Search(ctx, Query{Project: project, Kinds: []string{sh.kind}, Limit: sh.n + 1})
		if err != nil {
			return "", err
		}
		n := 0
		for _, h := range got {
			if exceptSession != "" && h.SessionID == exceptSession || n == sh.n {
				continue
			}
			hits = append(hits, h)
			n++
		}
	}
	if len(hits) == 0 {
		return "", nil
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return b.Time.Compare(a.Time) })
	return RenderIndex(hits, budget), nil
}

// RenderIndex renders hits as the index's lines, as many as fit in budget
// tokens with the header and footer.
func RenderIndex(hits []Hit, budget int) string {
	const head = "## Memory of this project (cairn)\n"
	foot := "Full entries: `cairn get ID`; more: `cairn search WORDS` (or the search, timeline and get_observations tools).\n"
	var b strings.Builder
	b.WriteString(head)
	// What the line saying how many more there are would cost is kept
	// aside from the start.
	used := checkpoint.Tokens(head + foot + "(999 more not shown)\n")
	n := 0
	for _, h := range hits {
		line := IndexLine(h) + "\n"
		if used+checkpoint.Tokens(line) > budget {
			break
		}
		b.WriteString(line)
		used += checkpoint.Tokens(line)
		n++
	}
	if n == 0 {
		return ""
	}
	if n < len(hits) {
		fmt.Fprintf(&b, "(%d more not shown)\n", len(hits)-n)
	}
	b.WriteString(foot)
	return b.String()
}

// IndexLine is one hit on one line: "- #12 2026-02-11 decision: title".
func IndexLine(h Hit) string {
	return fmt.Sprintf("- #%d %s %s: %s", h.ID, h.Time.UTC().Format("2006-01-02"), h.Kind, text.ClipLine(h.Title, 110))
}
