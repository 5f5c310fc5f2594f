package checkpoint

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/text"
)

// Markdown is the whole checkpoint for people: `cairn show checkpoint`.
func (c *Checkpoint) Markdown() string {
	var b strings.Builder
	title := "Checkpoint"
	if c.ID > 0 {
		title += fmt.Sprintf(" %d", c.ID)
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	fmt.Fprintf(&b, "- taken: %s (%s)\n", c.CreatedAt.Format("2006-01-02 15:04:05 MST"), c.Trigger)
	fmt.Fprintf(&b, "- session: %s\n", c.SessionID)
	fmt.Fprintf(&b, "- project: %s\n", c.Project)
	if c.Context.Window > 0 {
		fmt.Fprintf(&b, "- context: %s of %s tokens (%.1f%%)", meter.Thousands(c.Context.Tokens), meter.Thousands(c.Context.Window), c.Context.Percent)
		if c.Context.Threshold > 0 {
			fmt.Fprintf(&b, ", auto-compact at %s", meter.Thousands(c.Context.Threshold))
		}
		b.WriteByte('\n')
	}
	if c.Compactions > 0 {
		fmt.Fprintf(&b, "- compactions so far: %d\n", c.Compactions)
	}
	secs := c.sections(true)
	// In full, every error and the resolved ones too, and every command.
	var md bytes.Buffer
	renderMarkdownSections(&md, strings.TrimRight(b.String(), "\n"), secs, "")
	out := md.String()
	var extra strings.Builder
	if len(c.Closed) > 0 {
		extra.WriteString("\n## Recently closed\n")
		for _, o := range c.Closed {
			fmt.Fprintf(&extra, "- (%s) %s: closed by %s, %s\n", o.Label(), o.Text, o.ClosedBy, text.ClipLine(o.Evidence, 160))
		}
	}
	if len(c.Subagents) > 0 {
		extra.WriteString("\n## Subagents launched\n")
		for _, s := range c.Subagents {
			fmt.Fprintf(&extra, "- %s\n", s)
		}
	}
	if c.GitError != "" {
		fmt.Fprintf(&extra, "\n## Git\n- not read: %s\n", c.GitError)
	}
	if extra.Len() > 0 {
		out += extra.String()
	}
	return out
}
