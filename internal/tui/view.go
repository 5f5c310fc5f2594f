// Package tui is cairn's live terminal view ("cairn ui"): the sessions of
// a project, or every live one, and for the one selected its context
// meter, trend and predicted compaction, a sparkline of the context at
// each reply, its compactions, its last checkpoint and its open items.
//
// Drawing is a pure function of a View (Render), tested with golden files
// at the sizes people use; Run is the loop around it that reads keys,
// follows resizes and redraws when the sessions change. It speaks ANSI
// itself rather than through a TUI framework: every package linked into
// cairn runs its initialisation in every hook process, and Bubble Tea v2
// with Lip Gloss added 0.4 ms to each (measured: docs/benchmarks.md).
package tui

import (
	"time"

	"github.com/cairn-agent/cairn/internal/meter"
)

// Session is what the view shows of one session.
type Session struct {
	ID     string
	Client string // "claude-code", "codex"...; "" when unknown
	Title  string // the first prompt, one line
	Model  string
	Branch string
	// Reading and Trend are the meter's; Level (0 to 3) and Percent are
	// the pressure levels' reading of it.
	Reading meter.Reading
	Trend   meter.Trend
	Level   int
	Percent float64
	// Context is the context after each reply, oldest first.
	Context     []int64
	Compactions []Compaction
	// Checkpoint says when the last checkpoint was taken ("" for none).
	Checkpoint string
	// Open are the open items: what is left to do, open questions,
	// unfinished todos.
	Open []string
	Last time.Time
	// Live marks a session whose transcript grew recently.
	Live bool
	// Err is why the session could not be read ("" when it was).
	Err string
}

// Compaction is one compaction of a session.
type Compaction struct {
	Trigger   string
	Pre, Post int64
	Time      time.Time
}

// View is everything a frame is drawn from.
type View struct {
	Sessions []Session
	// Selected is the index of the session shown in detail.
	Selected int
	// Scope says what is listed ("project /src/app", "all live sessions").
	Scope         string
	Width, Height int
	// Colour draws with ANSI colours; without it a frame is plain text.
	Colour bool
	Now    time.Time
	Loc    *time.Location
	// Err is a problem reading the sessions, shown in the footer.
	Err string
}
