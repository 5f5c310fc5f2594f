// Package capture keeps seed 004's autocompact captures: a short Markdown
// file written when Claude Code compacts a session on its own (the
// session, its transcript and its first prompt), which a later review
// turns into a memory file (goal, learnings, open questions, confidence,
// key files) and marks reviewed, with a summary and a link to the memory.
//
// Captures live in the project (by default .project/compacts), are meant
// to be read and edited by people, and are parsed tolerantly: a hand edit
// never stops a review, and a review keeps every line it does not own.
package capture

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/text"
)

// Dir is where captures go, relative to the project, unless configured
// otherwise (capture.dir).
const Dir = ".project/compacts"

// Statuses of a capture.
const (
	StatusPending  = "pending"
	StatusReviewed = "reviewed"
)

const (
	captureSuffix = "-autocompact.md"
	memorySuffix  = "-memory.md"
	// stampLayout names the files: {YYYYMMDD_HHMMSS}-autocompact.md.
	stampLayout = "20060102_150405"
	// maxFirst is how much of the first prompt a capture keeps, in characters.
	maxFirst = 500
	// notReviewed is the Memory section of a pending capture.
	notReviewed = "_Not yet reviewed. Run `/review-compact` to process._"
)

// Input is what a capture records.
type Input struct {
	// Now is when the compaction happened; the capture shows it in Now's
	// location.
	Now        time.Time
	SessionID  string
	Transcript string
	// FirstMessage is the session's first user message. It is redacted
	// again and cut to 500 characters.
	FirstMessage string
}

// Capture is a capture file as read back.
type Capture struct {
	Path   string
	Status string
	// Timestamp is as written; Time is it parsed (zero when it does not
	// parse, in which case the file name's stamp is used).
	Timestamp    string
	Time         time.Time
	SessionID    string
	Transcript   string
	FirstMessage string
	Summary      string
	// Memory is the memory file the capture links to, as written.
	Memory string
	// Raw is the whole text of the file.
	Raw string
}

// Write writes a pending capture of in into dir, creating dir, and
// returns its path. It never replaces a file: when the name is taken, the
// stamp gets a suffix (20251225_081500_2-autocompact.md).
func Write(dir string, in Input) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write capture: %w", err)
	}
	stamp := in.Now.Format(stampLayout)
	data := []byte(Render(in))
	for n := 1; n < 1000; n++ {
		name := stamp
		if n > 1 {
			name = fmt.Sprintf("%s_%d", stamp, n)
		}
		path := filepath.Join(dir, name+captureSuffix)
		if _, err := os.Lstat(path); err == nil {
			// Taken: a stat is cheaper than writing (and syncing) a
			// temporary file to find out, once per capture stamped in
			// the same second before.
			continue
		}
		err := createNew(path, data, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("write capture: %w", err)
		}
		return path, nil
	}
	return "", fmt.Errorf("write capture: too many captures stamped %s in %s", stamp, dir)
}

// Render is the text of a pending capture of in.
func Render(in Input) string {
	var b strings.Builder
	b.WriteString("# Autocompact Capture\n\n")
	fmt.Fprintf(&b, "**Status:** %s\n", StatusPending)
	fmt.Fprintf(&b, "**Timestamp:** %s\n", in.Now.Format(time.RFC3339))
	fmt.Fprintf(&b, "**Session ID:** %s\n", text.OneLine(in.SessionID))
	b.WriteString("\n## Transcript\n\n```\n")
	b.WriteString(text.OneLine(in.Transcript))
	b.WriteString("\n```\n\n## First Message\n\n")
	b.WriteString(quote(firstMessage(in.FirstMessage)))
	b.WriteString("\n## Memory\n\n" + notReviewed + "\n")
	return b.String()
}

// firstMessage is the prompt as a capture keeps it: redacted, trimmed and
// cut to maxFirst characters.
func firstMessage(s string) string {
	s = strings.TrimSpace(redact.String(s))
	if utf8.RuneCountInString(s) <= maxFirst {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:maxFirst]), " \n\t") + "..."
}

// quote renders s as a Markdown block quote.
func quote(s string) string {
	if s == "" {
		return "> _(no user message found)_\n"
	}
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			b.WriteString(">\n")
			continue
		}
		b.WriteString("> " + l + "\n")
	}
	return b.String()
}

// Pending lists the pending captures in dir, newest first. A missing dir
// has none; a file that does not parse is skipped.
func Pending(dir string) ([]Capture, error) {
	all, err := List(dir)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, c := range all {
		if strings.EqualFold(c.Status, StatusPending) {
			out = append(out, c)
		}
	}
	return out, nil
}

// List reads every capture in dir, newest first.
func List(dir string) ([]Capture, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*"+captureSuffix))
	if err != nil {
		return nil, err
	}
	var out []Capture
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, fmt.Errorf("read capture: %w", err)
		}
		c, err := Parse(data)
		if err != nil {
			continue
		}
		c.Path = p
		if c.Time.IsZero() {
			if stamp := stampOf(p); len(stamp) >= len(stampLayout) {
				c.Time, _ = time.ParseInLocation(stampLayout, stamp[:len(stampLayout)], time.Local)
			}
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b Capture) int {
		if c := b.Time.Compare(a.Time); c != 0 {
			return c
		}
		return strings.Compare(filepath.Base(b.Path), filepath.Base(a.Path))
	})
	return out, nil
}

// stampOf is the name of a capture without its suffix: the stamp that
// names its memory file.
func stampOf(path string) string {
	return strings.TrimSuffix(filepath.Base(path), captureSuffix)
}

// MemoryPath is where the review of the capture at path writes its memory:
// {timestamp}-memory.md beside it.
func MemoryPath(path string) string {
	return filepath.Join(filepath.Dir(path), stampOf(path)+memorySuffix)
}

// ErrNotCapture is Parse's answer for text with no status line.
var ErrNotCapture = errors.New("not an autocompact capture: no Status line")

// Parse reads a capture. It accepts hand edits: fields written with or
// without bold, in any case, in any order; sections in any order; lines it
// does not know are kept in Raw and otherwise ignored.
func Parse(data []byte) (Capture, error) {
	c := Capture{Raw: string(data)}
	doc := split(string(data))
	found := false
	for _, l := range doc.pre {
		k, v, ok := field(l)
		if !ok {
			continue
		}
		switch k {
		case "status":
			if !found {
				c.Status, found = strings.ToLower(v), true
			}
		case "timestamp":
			if c.Timestamp == "" {
				c.Timestamp = v
				c.Time, _ = time.Parse(time.RFC3339, v)
			}
		case "session id", "session":
			if c.SessionID == "" {
				c.SessionID = v
			}
		}
	}
	if !found {
		return c, ErrNotCapture
	}
	for _, s := range doc.sections {
		switch sectionName(s.heading) {
		case "transcript":
			for _, l := range s.body {
				l = strings.TrimSpace(l)
				if l != "" && !strings.HasPrefix(l, "```") && !strings.HasPrefix(l, "~~~") {
					c.Transcript = strings.Trim(l, "`")
					break
				}
			}
		case "first message":
			var lines []string
			for _, l := range s.body {
				t := strings.TrimSpace(l)
				if t == ">" {
					t = ""
				} else if r, ok := strings.CutPrefix(t, "> "); ok {
					t = r
				} else {
					t = strings.TrimPrefix(t, ">")
				}
				lines = append(lines, t)
			}
			c.FirstMessage = strings.TrimSpace(strings.Join(lines, "\n"))
		case "summary":
			c.Summary = strings.TrimSpace(strings.Join(s.body, "\n"))
		case "memory":
			for _, l := range s.body {
				if _, rest, ok := strings.Cut(l, "]("); ok {
					if target, _, ok := strings.Cut(rest, ")"); ok {
						c.Memory = target
						break
					}
				}
			}
		}
	}
	return c, nil
}

// field reads a `**Key:** value` line, loosely: `Key: value`, `**Key**:
// value` and a leading list dash are accepted too.
func field(line string) (key, value string, ok bool) {
	l := strings.TrimSpace(line)
	l = strings.TrimPrefix(l, "- ")
	k, v, ok := strings.Cut(l, ":")
	if !ok {
		return "", "", false
	}
	k = strings.ToLower(strings.TrimSpace(strings.Trim(k, "*_ ")))
	v = strings.TrimSpace(strings.Trim(strings.TrimSpace(v), "*_"))
	switch k {
	case "status", "timestamp", "session id", "session":
		return k, v, true
	}
	return "", "", false
}

// sectionName is a heading's name, lowercased, without its hashes.
func sectionName(heading string) string {
	return strings.ToLower(strings.TrimSpace(strings.TrimLeft(heading, "#")))
}

// document is a Markdown file cut at its level-2 headings.
type document struct {
	pre      []string
	sections []section
}

type section struct {
	heading string
	body    []string
}

func split(text string) document {
	var d document
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n"), "\n")
	fence := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(l, "## ") {
			d.sections = append(d.sections, section{heading: l})
			continue
		}
		if n := len(d.sections); n > 0 {
			d.sections[n-1].body = append(d.sections[n-1].body, l)
		} else {
			d.pre = append(d.pre, l)
		}
	}
	return d
}

// join writes a document back: each part's trailing blank lines become
// one blank line between parts.
func (d document) join() string {
	var parts []string
	if p := trimBlank(d.pre); len(p) > 0 {
		parts = append(parts, strings.Join(p, "\n"))
	}
	for _, s := range d.sections {
		parts = append(parts, strings.Join(append([]string{s.heading}, trimBlank(s.body)...), "\n"))
	}
	return strings.Join(parts, "\n\n") + "\n"
}

func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// createNew writes data to path atomically, failing with fs.ErrExist when
// path exists: a temporary file in the same directory, then a hard link,
// which unlike a rename never replaces a file.
func createNew(path string, data []byte, perm os.FileMode) error {
	tmp, err := writeTemp(path, data, perm)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	// A file system without hard links: check, then rename.
	if _, serr := os.Lstat(path); serr == nil {
		return fs.ErrExist
	}
	return os.Rename(tmp, path)
}

// writeFile replaces path with data atomically.
func writeFile(path string, data []byte, perm os.FileMode) error {
	tmp, err := writeTemp(path, data, perm)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func writeTemp(path string, data []byte, perm os.FileMode) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}
