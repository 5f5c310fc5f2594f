package learn

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Meta is a Stock entry's confidence metadata, one line under its heading:
//
//	## Retry the fetch on 503
//	- Confirmed: 2 | Last confirmed: 2026-03-01 | Phase: implement | Source: progress.md#1a2b3c4d
//
// The keys are matched without regard to case, in any order, and a value
// such as "2 times" reads as 2. Fields cairn does not know are kept, in
// order, when it rewrites the line. An entry without the line has never
// been confirmed.
type Meta struct {
	Confirmed     int
	LastConfirmed time.Time // a date; zero when unknown
	Phase         string
	// Source is the Flow entry the learning was promoted from,
	// "progress.md#<id>"; Unpromoted reads it.
	Source string
	Extra  []string // unknown "Key: value" fields, as written
}

const dateLayout = "2006-01-02"

func (m Meta) line() string {
	f := []string{"Confirmed: " + strconv.Itoa(m.Confirmed)}
	if !m.LastConfirmed.IsZero() {
		f = append(f, "Last confirmed: "+m.LastConfirmed.Format(dateLayout))
	}
	if m.Phase != "" {
		f = append(f, "Phase: "+m.Phase)
	}
	if m.Source != "" {
		f = append(f, "Source: "+m.Source)
	}
	f = append(f, m.Extra...)
	return "- " + strings.Join(f, " | ") + "\n"
}

// findMeta finds the metadata line among an entry's first lines: it is
// the first non-blank line under the heading.
func findMeta(body []string) (int, Meta, bool) {
	for i, l := range body {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if !metaLine(l) {
			return 0, Meta{}, false
		}
		return i, parseMeta(l), true
	}
	return 0, Meta{}, false
}

func parseMeta(l string) Meta {
	var m Meta
	l = strings.TrimSpace(l)
	l = strings.TrimSpace(strings.TrimLeft(l, "-*"))
	for f := range strings.SplitSeq(l, "|") {
		f = strings.TrimSpace(f)
		k, v, ok := strings.Cut(f, ":")
		key := strings.ToLower(strings.Trim(strings.TrimSpace(k), "*"))
		v = strings.TrimSpace(strings.Trim(strings.TrimSpace(v), "*"))
		switch {
		case !ok:
			if f != "" {
				m.Extra = append(m.Extra, f)
			}
		case key == "confirmed":
			n := 0
			for _, r := range v {
				if r < '0' || r > '9' {
					break
				}
				n = n*10 + int(r-'0')
			}
			m.Confirmed = n
		case key == "last confirmed" || key == "last-confirmed" || key == "last_confirmed":
			if t, err := time.Parse(dateLayout, firstWord(v)); err == nil {
				m.LastConfirmed = t
			}
		case key == "phase":
			m.Phase = strings.ToLower(strings.TrimPrefix(v, "/"))
		case key == "source":
			m.Source = v
		default:
			m.Extra = append(m.Extra, f)
		}
	}
	return m
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// stockFiles lists the learnings-*.md files in dir, sorted.
func stockFiles(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "learnings-*.md"))
	slices.Sort(files)
	return files, err
}

// ReadStock reads the entries of every learnings-*.md file in dir. A file
// that cannot be read is skipped; a directory without any has none.
func ReadStock(dir string) ([]Entry, error) {
	files, err := stockFiles(dir)
	if err != nil {
		return nil, fmt.Errorf("list learnings: %w", err)
	}
	var out []Entry
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		out = append(out, entries(filepath.Base(f), string(data))...)
	}
	return out, nil
}

// StockFile is the learnings file a learning of the phase goes to:
// learnings-<phase>.md, or learnings-general.md without a phase.
func StockFile(phase string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(phase) {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" {
		name = "general"
	}
	return "learnings-" + name + ".md"
}

// Promote appends the Flow entry e to its learnings file in stockDir, with
// one confirmation dated now, its phase and its source. It returns the
// file's path. An entry already promoted is not written twice.
func Promote(stockDir string, e Entry, now time.Time) (string, error) {
	stock, err := ReadStock(stockDir)
	if err != nil {
		return "", err
	}
	for _, s := range stock {
		if s.Meta.Source == sourceRef(e) {
			return filepath.Join(stockDir, s.File), nil
		}
	}
	path := filepath.Join(stockDir, StockFile(e.Phase))
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("promote to %s: %w", filepath.Base(path), err)
	}
	text := string(old)
	if text == "" {
		phase := e.Phase
		if phase == "" {
			phase = "general"
		}
		text = "# Learnings: " + phase + "\n"
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	text += "\n" + FormatEntry(e, now)
	if err := writeAtomic(path, []byte(text)); err != nil {
		return "", fmt.Errorf("promote to %s: %w", filepath.Base(path), err)
	}
	return path, nil
}

// FormatEntry renders the Flow entry e as a new learnings entry.
func FormatEntry(e Entry, now time.Time) string {
	m := Meta{Confirmed: 1, LastConfirmed: now, Phase: e.Phase, Source: sourceRef(e)}
	title := e.Title
	if title == "" {
		title = e.Heading
	}
	s := "## " + title + "\n" + m.line()
	if e.Body != "" {
		s += "\n" + e.Body + "\n"
	}
	return s
}

// ErrNoEntry is Confirm's error for an id that names no learnings entry.
var ErrNoEntry = errors.New("no learnings entry")

// Confirm adds a confirmation dated now to the learnings entry whose ID is
// id (or starts with it, when only one does), rewriting only its metadata
// line; an entry without one gets one.
func Confirm(stockDir, id string, now time.Time) error {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return fmt.Errorf("%w: give an id", ErrNoEntry)
	}
	files, err := stockFiles(stockDir)
	if err != nil {
		return fmt.Errorf("list learnings: %w", err)
	}
	type hit struct {
		path string
		sec  int
	}
	var hits []hit
	texts := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		texts[f] = string(data)
		for i, e := range entries(filepath.Base(f), string(data)) {
			if strings.HasPrefix(e.ID, id) {
				hits = append(hits, hit{f, i})
			}
		}
	}
	switch {
	case len(hits) == 0:
		return fmt.Errorf("%w %q", ErrNoEntry, id)
	case len(hits) > 1:
		return fmt.Errorf("id %q names %d learnings entries: give more of it", id, len(hits))
	}
	h := hits[0]
	header, secs := split(texts[h.path])
	s := &secs[h.sec]
	body := s.lines[1:]
	if i, m, ok := findMeta(body); ok {
		m.Confirmed++
		m.LastConfirmed = now
		body[i] = m.line()
	} else {
		m := Meta{Confirmed: 1, LastConfirmed: now}
		s.lines = append([]string{s.lines[0], m.line()}, body...)
	}
	var b strings.Builder
	b.WriteString(header)
	for _, s := range secs {
		b.WriteString(strings.Join(s.lines, ""))
	}
	if err := writeAtomic(h.path, []byte(b.String())); err != nil {
		return fmt.Errorf("confirm in %s: %w", filepath.Base(h.path), err)
	}
	return nil
}

// ConfidenceSummary is what last-compact.json says of Stock (seed 001:
// entry count, mean confirmations, unverified entries), with the entries
// counted by band: unverified (confirmed at most once: a finding no later
// work has checked), confirmed (2 or 3 times), established (4 or more).
type ConfidenceSummary struct {
	Entries          int     `json:"entries"`
	AvgConfirmations float64 `json:"avg_confirmations"`
	Unverified       int     `json:"unverified"`
	Confirmed        int     `json:"confirmed"`
	Established      int     `json:"established"`
}

// Summary sums up the learnings in stockDir; it is zero when there are
// none or they cannot be read.
func Summary(stockDir string) ConfidenceSummary {
	stock, _ := ReadStock(stockDir)
	var s ConfidenceSummary
	total := 0
	for _, e := range stock {
		s.Entries++
		total += e.Meta.Confirmed
		switch c := e.Meta.Confirmed; {
		case c <= 1:
			s.Unverified++
		case c <= 3:
			s.Confirmed++
		default:
			s.Established++
		}
	}
	if s.Entries > 0 {
		// Two decimals, so the JSON stays short and stable.
		s.AvgConfirmations = float64(total*100/s.Entries) / 100
	}
	return s
}
