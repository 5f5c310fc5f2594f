// Package learn keeps seed 001's two kinds of working knowledge apart and
// moves one into the other only when a person says so:
//
//   - Flow is the volatile record of the work: progress.md and
//     task_plan.md, by default in <project>/.claude/. Each `## ` section is
//     an entry.
//   - Stock is what outlives the session: learnings-<phase>.md files beside
//     them, whose entries carry confidence metadata (how many times the
//     learning was confirmed, when last, and in which phase it was found).
//
// /compound (cairn compound) lists the Flow entries not yet in Stock and
// promotes the ones the user names; it never chooses for them. Around a
// compaction, PreCompact records last-compact.json (and may trim
// progress.md), SessionStart turns that record into recovery guidance, and
// Stop suggests /compound while Flow holds unpromoted entries. The markers
// live in <flow dir>/context/.
//
// Every read is tolerant: a file or marker that cannot be read makes its
// step quietly skip, because a hook must never fail the session over
// metadata. Every write is atomic (a temporary file, then a rename).
package learn

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cairn-agent/cairn/internal/state"
)

// The Flow files, by name.
const (
	Progress = "progress.md"
	TaskPlan = "task_plan.md"
)

// DefaultKeep is how many progress.md entries a trim keeps (seed 001).
const DefaultKeep = 10

// Entry is one `## ` section of a Flow or Stock file.
type Entry struct {
	// ID names the entry across runs: 8 hex digits hashed from the file's
	// name and the heading (and the heading's occurrence, when it repeats).
	ID string
	// File is the base name of the file the entry is in.
	File string
	// Heading is the heading line's text, without the "## ".
	Heading string
	// Title is the heading without a leading date and phase (see Phase).
	Title string
	// Phase is the phase the entry was written in: from a heading shaped
	// "<date> — <phase>: <title>" or "[<phase>] <title>", or a
	// "Phase: <phase>" line in the body; "" when neither says.
	Phase string
	// Body is the text under the heading, trimmed of blank lines around it.
	Body string
	// Meta is a Stock entry's confidence metadata; zero for Flow entries.
	Meta Meta
}

// section is an entry as it sits in the file: the lines from its heading
// up to the next heading.
type section struct {
	heading string
	lines   []string // from the heading line on, newline-terminated
}

// split cuts a Markdown file into what comes before the first `## `
// heading and the `## ` sections. Headings inside code fences do not count.
func split(text string) (header string, secs []section) {
	var head strings.Builder
	fence := ""
	cur := -1
	for line := range strings.Lines(text) {
		trim := strings.TrimSpace(line)
		if fence == "" && (strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~")) {
			fence = trim[:3]
		} else if fence != "" && strings.HasPrefix(trim, fence) {
			fence = ""
		} else if fence == "" && strings.HasPrefix(line, "## ") {
			secs = append(secs, section{heading: strings.TrimSpace(line[3:])})
			cur = len(secs) - 1
		}
		if !strings.HasSuffix(line, "\n") {
			line += "\n"
		}
		if cur < 0 {
			head.WriteString(line)
		} else {
			secs[cur].lines = append(secs[cur].lines, line)
		}
	}
	return head.String(), secs
}

// entries turns a file's sections into entries.
func entries(file, text string) []Entry {
	_, secs := split(text)
	seen := map[string]int{}
	out := make([]Entry, 0, len(secs))
	for _, s := range secs {
		n := seen[s.heading]
		seen[s.heading]++
		e := Entry{ID: entryID(file, s.heading, n), File: file, Heading: s.heading}
		body := s.lines[1:]
		if i, m, ok := findMeta(body); ok {
			e.Meta = m
			body = append(append([]string{}, body[:i]...), body[i+1:]...)
		}
		e.Body = strings.Trim(strings.Join(body, ""), "\n")
		e.Phase, e.Title = phaseOf(s.heading, e.Body)
		if e.Meta.Phase != "" {
			e.Phase = e.Meta.Phase
		}
		out = append(out, e)
	}
	return out
}

func entryID(file, heading string, n int) string {
	key := file + "\x00" + heading
	if n > 0 {
		key += "\x00" + strconv.Itoa(n)
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:4])
}

func phaseOf(heading, body string) (phase, title string) {
	if p, t, ok := datedHeading(heading); ok {
		return strings.ToLower(strings.TrimPrefix(p, "/")), strings.TrimSpace(t)
	}
	if p, t, ok := bracketHeading(heading); ok {
		return strings.ToLower(strings.TrimPrefix(p, "/")), strings.TrimSpace(t)
	}
	if p, ok := phaseLine(body); ok {
		return strings.ToLower(p), heading
	}
	return "", heading
}

// ReadFlow reads the entries of a Flow file (progress.md or task_plan.md).
// A missing file has none.
func ReadFlow(path string) ([]Entry, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	return entries(filepath.Base(path), string(data)), nil
}

// Unpromoted lists progress.md's entries that no Stock entry names as its
// source, in file order. Promotion is tracked in Stock, not Flow: Promote
// writes "Source: progress.md#<id>" into the learnings entry's metadata, so
// the Flow files stay the user's to edit and trimming them loses nothing.
// task_plan.md is not searched: its sections are the plan, not findings,
// and seed 001 counts progress.md's entries only.
func Unpromoted(flowDir, stockDir string) ([]Entry, error) {
	flow, err := ReadFlow(filepath.Join(flowDir, Progress))
	if err != nil || len(flow) == 0 {
		return nil, err
	}
	stock, err := ReadStock(stockDir)
	if err != nil {
		return nil, err
	}
	done := map[string]bool{}
	for _, s := range stock {
		if s.Meta.Source != "" {
			done[s.Meta.Source] = true
		}
	}
	var out []Entry
	for _, e := range flow {
		if !done[sourceRef(e)] {
			out = append(out, e)
		}
	}
	return out, nil
}

func sourceRef(e Entry) string { return e.File + "#" + e.ID }

// TrimProgress keeps the last keep entries of the progress.md at path and
// the text before its first entry (the file's header). A missing file, or
// one with no more than keep entries, is left alone.
func TrimProgress(path string, keep int) error {
	if keep < 0 {
		keep = 0
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("trim %s: %w", filepath.Base(path), err)
	}
	header, secs := split(string(data))
	if len(secs) <= keep {
		return nil
	}
	var b strings.Builder
	b.WriteString(header)
	for _, s := range secs[len(secs)-keep:] {
		b.WriteString(strings.Join(s.lines, ""))
	}
	if err := writeAtomic(path, []byte(b.String())); err != nil {
		return fmt.Errorf("trim %s: %w", filepath.Base(path), err)
	}
	return nil
}

// writeAtomic replaces path with data: a temporary file in the same
// directory, then a rename, so a reader sees the old file or the new one.
// The mode is the old file's, or 0644: these are the user's documents.
func writeAtomic(path string, data []byte) error {
	perm := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return state.WriteFile(path, data, perm, false)
}
