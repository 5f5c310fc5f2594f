package capture

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/text"
)

// maxDigest bounds a digest, in bytes: about 2,000 tokens.
const maxDigest = 8000

// Digest is what a reviewer needs from a session's checkpoint, so that it
// need not read the transcript: the goal, the prompts, the files, the
// commands, the errors and the decisions, each list cut short, the whole
// at most about 2,000 tokens.
func Digest(c checkpoint.Checkpoint) string {
	var b strings.Builder
	b.WriteString("# Session digest\n\n")
	fmt.Fprintf(&b, "Session %s, checkpoint %d (%s, %s)", c.SessionID, c.ID, c.Trigger, c.CreatedAt.Format(time.RFC3339))
	if c.Compactions > 0 {
		fmt.Fprintf(&b, ", %d compaction(s)", c.Compactions)
	}
	b.WriteString("\n")
	if c.Git != nil && c.Git.Branch != "" {
		fmt.Fprintf(&b, "Branch: %s\n", c.Git.Branch)
	}
	b.WriteString("\n## Goal\n\n")
	if c.Task.First != "" {
		b.WriteString(cut(c.Task.First, 600) + "\n")
	} else {
		b.WriteString("(no prompt recorded)\n")
	}
	if len(c.Task.Tickets) > 0 {
		fmt.Fprintf(&b, "Tickets: %s\n", strings.Join(c.Task.Tickets, ", "))
	}
	listSection(&b, "Latest prompts", tail(c.Task.Latest, 3), 300)
	listSection(&b, "Constraints", head(c.Constraints, 8), 200)
	var files []string
	for _, f := range c.Files {
		files = append(files, fileLine(f))
	}
	listSection(&b, "Files changed", head(files, 25), 200)
	listSection(&b, "Key files read", head(c.KeyReads, 10), 200)
	var cmds []string
	for _, cm := range c.Commands {
		s := "`" + cut(cm.Command, 150) + "`"
		if cm.ExitCode != nil {
			s += fmt.Sprintf(" exit %d", *cm.ExitCode)
		}
		if cm.Runs > 1 {
			s += fmt.Sprintf(", %d runs", cm.Runs)
		}
		cmds = append(cmds, s)
	}
	listSection(&b, "Commands", tail(cmds, 15), 220)
	var errs []string
	for _, e := range c.Errors {
		s := e.Tool
		if e.Subject != "" {
			s += " " + cut(e.Subject, 80)
		}
		s += ": " + cut(e.Message, 120)
		if e.Resolved {
			s += " (fixed)"
		} else {
			s += " (unresolved)"
		}
		errs = append(errs, s)
	}
	listSection(&b, "Errors", tail(errs, 10), 260)
	listSection(&b, "Decisions", tail(c.Decisions, 10), 250)
	var todos []string
	for _, t := range c.OpenTodos() {
		todos = append(todos, t.Content+" ("+t.Status+")")
	}
	listSection(&b, "Open todos", head(todos, 10), 200)
	listSection(&b, "Next steps", head(c.NextSteps, 6), 200)
	out := b.String()
	if len(out) > maxDigest {
		i := strings.LastIndexByte(out[:maxDigest-40], '\n')
		out = out[:i+1] + "\n(digest cut short)\n"
	}
	return out
}

func fileLine(f checkpoint.File) string {
	var notes []string
	switch {
	case f.Deleted:
		notes = append(notes, "deleted")
	case f.Created:
		notes = append(notes, "created")
	}
	if f.Edits > 0 {
		notes = append(notes, fmt.Sprintf("%d edits", f.Edits))
	}
	if len(notes) == 0 {
		return f.Path
	}
	return f.Path + " (" + strings.Join(notes, ", ") + ")"
}

// listSection writes a list under a heading, or nothing when it is empty.
func listSection(b *strings.Builder, title string, xs []string, width int) {
	if len(xs) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## %s\n\n", title)
	for _, x := range xs {
		b.WriteString("- " + cut(x, width) + "\n")
	}
}

func head(xs []string, n int) []string {
	if len(xs) > n {
		return append(xs[:n:n], fmt.Sprintf("... and %d more", len(xs)-n))
	}
	return xs
}

func tail(xs []string, n int) []string {
	if len(xs) > n {
		return append([]string{fmt.Sprintf("... %d earlier", len(xs)-n)}, xs[len(xs)-n:]...)
	}
	return xs
}

// cut puts s on one line and cuts it to n bytes, at a rune boundary.
func cut(s string, n int) string {
	s = text.OneLine(s)
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}
