package learn

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The markers of seed 001's recovery chain, in ContextDir.
const (
	CompoundFile = "compound-last-run.json"
	CompactFile  = "last-compact.json"
)

// ContextDir is where the markers live: <flow dir>/context, which is
// seed 001's .claude/context/ for the default flow directory.
func ContextDir(flowDir string) string { return filepath.Join(flowDir, "context") }

// compoundRun is compound-last-run.json.
type compoundRun struct {
	Timestamp time.Time `json:"timestamp"`
	Promoted  int       `json:"promoted"`
}

// RecordCompound writes compound-last-run.json in dir: /compound ran at
// now and promoted that many entries.
func RecordCompound(dir string, now time.Time, promoted int) error {
	return writeJSON(filepath.Join(dir, CompoundFile), compoundRun{Timestamp: now.UTC(), Promoted: promoted})
}

// LastCompound reads when /compound last ran; ok is false when the marker
// is missing or does not decode.
func LastCompound(dir string) (time.Time, bool) {
	var r compoundRun
	if !readJSON(filepath.Join(dir, CompoundFile), &r) || r.Timestamp.IsZero() {
		return time.Time{}, false
	}
	return r.Timestamp, true
}

// CompactInfo is last-compact.json: what PreCompact saw just before a
// compaction. It holds counts and headings, not progress.md's text, so
// that reading it back after the compaction costs little context.
type CompactInfo struct {
	Timestamp time.Time `json:"timestamp"`
	Trigger   string    `json:"trigger"` // auto or manual
	// CompoundRan is whether /compound ran after the compaction before
	// this one (or at all, before the first).
	CompoundRan bool `json:"compound_ran"`
	// UnpromotedEntries counts progress.md's entries not in Stock, before
	// any trim.
	UnpromotedEntries int `json:"unpromoted_entries"`
	// RecentHeadings are progress.md's last three `## ` headings, oldest
	// first.
	RecentHeadings []string          `json:"recent_headings"`
	Learnings      ConfidenceSummary `json:"learnings"`
}

// Gather collects a CompactInfo for a compaction at now. Call it before
// trimming progress.md. What cannot be read counts as empty.
func Gather(dir, flowDir, stockDir, trigger string, now time.Time) CompactInfo {
	in := CompactInfo{Timestamp: now.UTC(), Trigger: trigger, RecentHeadings: []string{}, Learnings: Summary(stockDir)}
	if last, ok := LastCompound(dir); ok {
		prev, had := ReadCompact(dir)
		in.CompoundRan = !had || last.After(prev.Timestamp)
	}
	if un, err := Unpromoted(flowDir, stockDir); err == nil {
		in.UnpromotedEntries = len(un)
	}
	flow, _ := ReadFlow(filepath.Join(flowDir, Progress))
	for _, e := range flow[max(0, len(flow)-3):] {
		in.RecentHeadings = append(in.RecentHeadings, e.Heading)
	}
	return in
}

// RecordCompact writes last-compact.json in dir.
func RecordCompact(dir string, in CompactInfo) error {
	if in.RecentHeadings == nil {
		in.RecentHeadings = []string{}
	}
	return writeJSON(filepath.Join(dir, CompactFile), in)
}

// ReadCompact reads last-compact.json; ok is false when it is missing or
// does not decode.
func ReadCompact(dir string) (CompactInfo, bool) {
	var in CompactInfo
	if !readJSON(filepath.Join(dir, CompactFile), &in) || in.Timestamp.IsZero() {
		return CompactInfo{}, false
	}
	return in, true
}

// The recovery guidance of seed 001, word for word.
const (
	guidanceNotRun = "Compact occurred. Recent work entries were not promoted to learnings. Run /compound to review and preserve knowledge."
	guidanceRan    = "Compact occurred. Learnings preserved via /compound. Read persistence files to resume."
)

// Guidance is the recovery text SessionStart adds after a compaction,
// from last-compact.json in dir: whether /compound ran decides which.
// It names files and headings and reads none of them into the context
// (Write Auto, Read Manual). It is "" when the marker cannot be read.
func Guidance(dir string) string {
	in, ok := ReadCompact(dir)
	if !ok {
		return ""
	}
	if in.CompoundRan {
		return guidanceRan + "\n"
	}
	if in.UnpromotedEntries == 0 {
		// Nothing to promote (a project with no Flow notes at all, say):
		// a note to run /compound would have nothing behind it.
		return ""
	}
	var b strings.Builder
	b.WriteString(guidanceNotRun + "\n")
	if in.UnpromotedEntries > 0 {
		fmt.Fprintf(&b, "progress.md had %d unpromoted %s before the compaction", in.UnpromotedEntries, plural(in.UnpromotedEntries, "entry", "entries"))
		if len(in.RecentHeadings) > 0 {
			b.WriteString("; the latest: ")
			for i, h := range in.RecentHeadings {
				if i > 0 {
					b.WriteString("; ")
				}
				b.WriteString(strconv.Quote(h))
			}
		}
		b.WriteString(".\n")
	}
	if l := in.Learnings; l.Entries > 0 {
		fmt.Fprintf(&b, "Learnings already in Stock are kept: %d %s, %d confirmed more than once; new findings only in progress.md may be lost.\n",
			l.Entries, plural(l.Entries, "entry", "entries"), l.Confirmed+l.Established)
	}
	return b.String()
}

// StopSuggestion is the advisory Stop adds while progress.md holds
// entries not in Stock and /compound has not run since progress.md last
// changed; otherwise "". It suggests and never blocks: /compound is
// curation, not a quality gate.
func StopSuggestion(flowDir, stockDir string) string {
	un, err := Unpromoted(flowDir, stockDir)
	if err != nil || len(un) == 0 {
		return ""
	}
	fi, err := os.Stat(filepath.Join(flowDir, Progress))
	if err != nil {
		return ""
	}
	if last, ok := LastCompound(ContextDir(flowDir)); ok && !last.Before(fi.ModTime()) {
		return "" // the user reviewed these and kept them where they are
	}
	// Worded for the user, who reads it in cairn's Stop systemMessage, and
	// fit for the model should it reach the context.
	return fmt.Sprintf("progress.md has %d %s not yet in learnings: at a natural break, run /compound to review them (it promotes only the ones you approve).\n",
		len(un), plural(len(un), "entry", "entries"))
}

// ResetPressure removes the session's pressure marker, which cairn's
// status line writes at <stateDir>/sessions/<session>.pressure: after
// /compound the urgent suggestion has no ground, and the next status line
// update writes the marker again if the context is still full. A missing
// marker, or a session id that cannot be a file name, is nothing to do.
func ResetPressure(stateDir, session string) error {
	if !validSession(session) {
		return nil
	}
	err := os.Remove(filepath.Join(stateDir, "sessions", session+".pressure"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reset the pressure marker: %w", err)
	}
	return nil
}

// validSession is statusline's rule for a session id in a file name.
func validSession(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '.' {
		return false
	}
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(path, append(data, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// readJSON decodes path into v; false when it cannot.
func readJSON(path string, v any) bool {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 1<<20 {
		return false
	}
	return json.Unmarshal(data, v) == nil
}
