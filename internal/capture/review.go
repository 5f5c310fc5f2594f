package capture

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/text"
)

// Memory is what a review extracts from a session (seed 004's memory
// file), with the summary that goes into the capture.
type Memory struct {
	Title         string
	Goal          string
	Learnings     []string
	OpenQuestions []string
	// Confidence is High, Medium or Low, a dash, and why.
	Confidence string
	KeyFiles   []string
	// Summary is one or two sentences on what the session was about; it
	// goes into the capture, not the memory file.
	Summary string
}

// ParseMemory reads a memory written in the memory file's format, with an
// optional "## Summary" section for the capture. Headings are matched
// loosely ("## Open Questions", "## Confidence"); list items may use - or *.
func ParseMemory(text string) Memory {
	var m Memory
	d := split(text)
	for _, l := range d.pre {
		if t, ok := strings.CutPrefix(strings.TrimSpace(l), "# "); ok {
			t = strings.TrimSpace(t)
			if r, ok := strings.CutPrefix(t, "Memory:"); ok {
				t = strings.TrimSpace(r)
			}
			m.Title = t
		}
	}
	for _, s := range d.sections {
		name := sectionName(s.heading)
		body := strings.TrimSpace(strings.Join(s.body, "\n"))
		switch {
		case strings.HasPrefix(name, "summary"):
			m.Summary = body
		case strings.HasPrefix(name, "goal"):
			m.Goal = body
		case strings.HasPrefix(name, "learning"):
			m.Learnings = items(s.body)
		case strings.HasPrefix(name, "open question"), strings.HasPrefix(name, "question"), strings.HasPrefix(name, "issue"):
			m.OpenQuestions = items(s.body)
		case strings.HasPrefix(name, "confidence"):
			m.Confidence = body
		case strings.HasPrefix(name, "key file"), name == "files":
			m.KeyFiles = items(s.body)
		}
	}
	return m
}

// items are a section's list items; a line that is not an item continues
// the one before it.
func items(lines []string) []string {
	var out []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if r, ok := strings.CutPrefix(t, "- "); ok {
			out = append(out, strings.TrimSpace(r))
		} else if r, ok := strings.CutPrefix(t, "* "); ok {
			out = append(out, strings.TrimSpace(r))
		} else if n := len(out); n > 0 {
			out[n-1] += " " + t
		} else {
			out = append(out, t)
		}
	}
	return out
}

// Check says what a memory lacks to be complete: a goal, a confidence
// level and a summary. Empty lists are allowed: they are written as "None".
func (m Memory) Check() error {
	var missing []string
	if strings.TrimSpace(m.Goal) == "" {
		missing = append(missing, "Goal")
	}
	if strings.TrimSpace(m.Confidence) == "" {
		missing = append(missing, "Confidence Level")
	}
	if strings.TrimSpace(m.Summary) == "" {
		missing = append(missing, "Summary")
	}
	if len(missing) > 0 {
		return fmt.Errorf("the memory has no %s", strings.Join(missing, ", "))
	}
	return nil
}

// RenderMemory is the text of the memory file, redacted.
func RenderMemory(m Memory) string {
	title := text.OneLine(m.Title)
	if title == "" {
		title = text.OneLine(firstSentence(m.Summary))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Memory: %s\n\n", title)
	fmt.Fprintf(&b, "## Goal\n%s\n\n", strings.TrimSpace(m.Goal))
	b.WriteString("## Learnings\n" + list(m.Learnings) + "\n")
	b.WriteString("## Open Questions / Issues\n" + list(m.OpenQuestions) + "\n")
	fmt.Fprintf(&b, "## Confidence Level\n%s\n\n", strings.TrimSpace(m.Confidence))
	b.WriteString("## Key Files\n" + list(m.KeyFiles))
	return redact.String(b.String())
}

func list(xs []string) string {
	var b strings.Builder
	for _, x := range xs {
		if x = text.OneLine(x); x != "" {
			b.WriteString("- " + x + "\n")
		}
	}
	if b.Len() == 0 {
		return "- None\n"
	}
	return b.String()
}

func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(s, ".")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "..."
	}
	return s
}

// Review writes the memory of the capture at path, {timestamp}-memory.md
// beside it (replacing the memory of an earlier review of the same
// capture), and marks the capture reviewed, with the summary and a link
// to the memory. Every other line of the capture, hand edits included, is
// kept. Both writes are atomic.
func Review(path string, m Memory) (memoryPath string, err error) {
	if err := m.Check(); err != nil {
		return "", err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read capture: %w", err)
	}
	if _, err := Parse(data); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	memoryPath = MemoryPath(path)
	if err := writeFile(memoryPath, []byte(RenderMemory(m)), 0o644); err != nil {
		return "", fmt.Errorf("write memory: %w", err)
	}
	updated := reviewed(string(data), redact.String(strings.TrimSpace(m.Summary)), filepath.Base(memoryPath))
	if err := writeFile(path, []byte(updated), 0o644); err != nil {
		return memoryPath, fmt.Errorf("update capture: %w", err)
	}
	return memoryPath, nil
}

// reviewed is the capture text marked reviewed, with its Summary section
// (before Memory) and its Memory section linking to memory.
func reviewed(text, summary, memory string) string {
	d := split(text)
	for i, l := range d.pre {
		if k, _, ok := field(l); ok && k == "status" {
			d.pre[i] = "**Status:** " + StatusReviewed
			break
		}
	}
	sum := []string{"", summary}
	link := []string{"", "[" + memory + "](./" + memory + ")"}
	si, mi := -1, -1
	for i, s := range d.sections {
		switch sectionName(s.heading) {
		case "summary":
			if si < 0 {
				si = i
			}
		case "memory":
			if mi < 0 {
				mi = i
			}
		}
	}
	if mi >= 0 {
		d.sections[mi].body = link
	} else {
		d.sections = append(d.sections, section{heading: "## Memory", body: link})
		mi = len(d.sections) - 1
	}
	if si >= 0 {
		d.sections[si].body = sum
	} else {
		d.sections = append(d.sections[:mi], append([]section{{heading: "## Summary", body: sum}}, d.sections[mi:]...)...)
	}
	return d.join()
}

// ErrNoPending is Latest's answer when nothing waits for review.
var ErrNoPending = errors.New("no pending capture")

// Latest is the most recent pending capture in dir.
func Latest(dir string) (Capture, error) {
	cs, err := Pending(dir)
	if err != nil {
		return Capture{}, err
	}
	if len(cs) == 0 {
		return Capture{}, ErrNoPending
	}
	return cs[0], nil
}
