// Package statusline is cairn's Claude Code status line: one short line
// with how full the context is, the pressure level, the task's ticket and
// the age of the last checkpoint,
//
//	CTX ████████░░ 82% L2 · BILL-482 · ckpt 3m ago
//
// The percentage and the level are package pressure's, on the project's
// configured base: by default the auto-compact point, so 100% is the
// compaction, and the figure reads higher than Claude Code's own
// used_percentage, which is of the whole window.
//
// Claude Code runs the status line after every assistant message (at most
// every 300 ms), so everything here is cheap: the context comes from the
// status line's own JSON, or else from the head cairn's hooks keep of the
// transcript; the ticket and the checkpoint come from a small marker file
// that a capture writes (RecordCheckpoint), never from the database.
//
// It also leaves a per-session pressure marker (RecordPressure), the
// "status line bridge" of seed 001: the status line is the one place
// Claude Code hands the live context figures to a command. No hook depends
// on the marker; it is there for other tools and scripts.
package statusline

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/text"
)

// Input is everything a line shows.
type Input struct {
	// Reading is the context's reading. A Source of "" or "none", or no
	// window, means it is unknown and the line says "CTX ?".
	Reading meter.Reading
	// Pressure says what the percentage is of and where the levels start.
	Pressure pressure.Config
	// Ticket is the latest ticket of the task, "" when unknown.
	Ticket string
	// CheckpointAt is when the project's latest checkpoint was taken; zero
	// when unknown.
	CheckpointAt time.Time
	Now          time.Time
	// Color colours the bar by level (Claude Code renders ANSI colours in
	// status lines).
	Color bool
}

// Known reports whether the input has a context figure to show.
func (in Input) Known() bool {
	return in.Reading.Source != "" && in.Reading.Source != "none" && in.Reading.Window > 0
}

// Percent is the reading on the configured base, cut down to a whole
// number, so that the percentage shown and the level agree: 84.9% of a
// level that starts at 85% shows as 84%, not 85%.
func (in Input) Percent() int {
	return int(math.Floor(in.Pressure.Percent(in.Reading)))
}

const (
	cells = 10
	sep   = " · "
)

// Render writes the line, without a newline.
func Render(in Input) string {
	var b strings.Builder
	b.WriteString("CTX ")
	if in.Known() {
		pct := in.Percent()
		level := in.Pressure.Level(in.Reading)
		fill := max(0, min(pct/cells, cells))
		gauge := strings.Repeat("█", fill) + strings.Repeat("░", cells-fill) + fmt.Sprintf(" %d%% %s", pct, pressure.Name(level))
		if in.Color {
			gauge = colors[min(level, len(colors)-1)] + gauge + reset
		}
		b.WriteString(gauge)
	} else {
		b.WriteString("?")
	}
	if in.Ticket != "" {
		b.WriteString(sep + in.Ticket)
	}
	if !in.CheckpointAt.IsZero() {
		b.WriteString(sep + "ckpt " + text.Age(in.Now.Sub(in.CheckpointAt)) + " ago")
	}
	return b.String()
}

// colors are the bar's by level: green, yellow, orange, bold red.
var colors = [...]string{"\x1b[32m", "\x1b[33m", "\x1b[38;5;208m", "\x1b[1;31m"}

const reset = "\x1b[0m"

// Separator goes between cairn's line and a chained status line's.
const Separator = " │ "

// Unknown is the line when not even the payload could be read.
const Unknown = "CTX ?"
