package tui

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/text"
)

// MinWidth and MinHeight are the smallest terminal a frame is drawn in;
// below them the frame says so.
const (
	MinWidth  = 40
	MinHeight = 10
)

// ANSI styles. Each is applied to text already clipped to its cells, and
// reset after it, so a style never leaks into the next cell.
const (
	styleReset   = "\x1b[0m"
	styleTitle   = "\x1b[7m" // reverse video
	styleDim     = "\x1b[2m"
	styleBold    = "\x1b[1m"
	styleOK      = "\x1b[32m"
	styleWarn    = "\x1b[33m"
	styleHandoff = "\x1b[35m"
	styleAlarm   = "\x1b[31;1m"
)

// levelStyle is the colour of a pressure level.
func levelStyle(level int) string {
	switch level {
	case 0:
		return styleOK
	case 1:
		return styleWarn
	case 2:
		return styleHandoff
	default:
		return styleAlarm
	}
}

// Render draws the frame: exactly v.Height lines, none wider than v.Width
// cells.
func Render(v View) []string {
	if v.Width < MinWidth || v.Height < MinHeight {
		return small(v)
	}
	f := frame{v: v}
	f.titleBar()
	if len(v.Sessions) == 0 {
		f.plain("")
		f.plain("  no sessions to show")
		if v.Err != "" {
			f.plain("  " + v.Err)
		}
		return f.finish()
	}
	sel := min(max(v.Selected, 0), len(v.Sessions)-1)
	f.list(sel)
	f.rule()
	f.detail(v.Sessions[sel])
	return f.finish()
}

// small is the frame of a terminal too small to draw in.
func small(v View) []string {
	lines := make([]string, max(v.Height, 0))
	if len(lines) > 0 {
		lines[0] = clip(fmt.Sprintf("too small: %dx%d, cairn ui needs %dx%d", v.Width, v.Height, MinWidth, MinHeight), v.Width)
	}
	return lines
}

// frame accumulates the lines of one frame.
type frame struct {
	v     View
	lines []string
	// foot is the footer, drawn on the last line.
	foot string
}

// line is one line being built from styled segments.
type line struct {
	b      strings.Builder
	cells  int
	width  int
	colour bool
}

func (f *frame) newLine() *line { return &line{width: f.v.Width, colour: f.v.Colour} }

// add appends s, clipped to the cells left, in style (none for "").
func (l *line) add(s, style string) {
	left := l.width - l.cells
	if left <= 0 || s == "" {
		return
	}
	s = clip(printable(s), left)
	if l.colour && style != "" {
		l.b.WriteString(style)
		l.b.WriteString(s)
		l.b.WriteString(styleReset)
	} else {
		l.b.WriteString(s)
	}
	l.cells += cells(s)
}

// pad fills the line to its width in style (a title bar's background).
func (l *line) pad(style string) {
	if n := l.width - l.cells; n > 0 {
		l.add(strings.Repeat(" ", n), style)
	}
}

func (l *line) String() string { return l.b.String() }

// room is how many lines are left above the footer.
func (f *frame) room() int { return f.v.Height - 1 - len(f.lines) }

func (f *frame) put(l *line) {
	if f.room() > 0 {
		f.lines = append(f.lines, l.String())
	}
}

func (f *frame) plain(s string) {
	l := f.newLine()
	l.add(s, "")
	f.put(l)
}

func (f *frame) rule() {
	l := f.newLine()
	l.add(strings.Repeat("─", f.v.Width), styleDim)
	f.put(l)
}

func (f *frame) titleBar() {
	v := f.v
	l := f.newLine()
	n := fmt.Sprintf("%d sessions", len(v.Sessions))
	if len(v.Sessions) == 1 {
		n = "1 session"
	}
	l.add(" cairn ui · "+n, styleTitle)
	if v.Scope != "" {
		l.add(" · "+v.Scope, styleTitle)
	}
	clock := ""
	if !v.Now.IsZero() {
		clock = v.Now.In(v.location()).Format("15:04:05") + " "
	}
	if gap := v.Width - l.cells - cells(clock); gap > 0 {
		l.add(strings.Repeat(" ", gap), styleTitle)
	}
	l.add(clock, styleTitle)
	l.pad(styleTitle)
	f.put(l)
	f.foot = "↑↓ or j k: select · g G: first, last · q: quit"
	if v.Err != "" {
		f.foot = v.Err
	}
}

func (v View) location() *time.Location {
	if v.Loc != nil {
		return v.Loc
	}
	return time.UTC
}

// list draws one line per session, scrolled so that sel is visible, in at
// most a third of the screen.
func (f *frame) list(sel int) {
	v := f.v
	rows := min(len(v.Sessions), max(3, (v.Height-2)/3))
	first := 0
	if sel >= rows {
		first = sel - rows + 1
	}
	for i := first; i < first+rows && i < len(v.Sessions); i++ {
		f.put(f.listLine(v.Sessions[i], i == sel))
	}
}

func (f *frame) listLine(s Session, selected bool) *line {
	l := f.newLine()
	mark, style := "  ", ""
	if selected {
		mark, style = "› ", styleBold
	}
	l.add(mark, style)
	live := " "
	if s.Live {
		live = "●"
	}
	l.add(live, styleOK)
	l.add(" "+short(s.ID)+" ", style)
	if s.Err != "" {
		l.add("unreadable: "+s.Err, styleAlarm)
		return l
	}
	l.add(bar(s.Reading, 10), levelStyle(s.Level))
	l.add(fmt.Sprintf(" %3.0f%% ", s.Percent), levelStyle(s.Level))
	comp := ""
	if n := len(s.Compactions); n > 0 {
		comp = fmt.Sprintf(" %d×⇣", n)
	}
	l.add(fmt.Sprintf("%4d replies%s", len(s.Context), comp), "")
	if !s.Last.IsZero() && !f.v.Now.IsZero() {
		l.add(" · "+text.Ago(f.v.Now.Sub(s.Last)), styleDim)
	}
	if s.Client != "" && s.Client != "claude-code" {
		l.add(" · "+s.Client, styleDim)
	}
	l.add("  "+text.OneLine(s.Title), style)
	return l
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	if id == "" {
		return "--------"
	}
	return fmt.Sprintf("%-8s", id)
}

// detail draws the selected session.
func (f *frame) detail(s Session) {
	v := f.v
	l := f.newLine()
	l.add("session ", styleDim)
	l.add(s.ID, styleBold)
	for _, part := range []string{s.Client, s.Model, s.Branch} {
		if part != "" {
			l.add(" · "+part, "")
		}
	}
	f.put(l)
	if s.Err != "" {
		f.plain("unreadable: " + s.Err)
		return
	}
	r := s.Reading

	l = f.newLine()
	l.add("context  ", styleDim)
	l.add(bar(r, min(40, max(10, v.Width/3))), levelStyle(s.Level))
	l.add(fmt.Sprintf(" L%d", s.Level), levelStyle(s.Level))
	l.add(fmt.Sprintf(" %s / %s", meter.Thousands(r.Tokens), meter.Thousands(r.Window)), "")
	if r.AutoCompact && r.Threshold > 0 {
		l.add(fmt.Sprintf(" · %.1f%% of auto-compact", r.PctThreshold), "")
	} else {
		l.add(" · auto-compact off", "")
	}
	f.put(l)

	l = f.newLine()
	l.add("trend    ", styleDim)
	switch {
	case s.Trend.Samples == 0:
		l.add("not enough replies yet", "")
	default:
		l.add(meter.Signed(s.Trend.PerTurn)+" tokens/reply", "")
		if s.Trend.TurnsToCompact != nil {
			l.add(" · compacts in about "+meter.Round1(*s.Trend.TurnsToCompact)+" replies", "")
			if s.Trend.MinutesToCompact != nil {
				l.add(" ("+meter.Round1(*s.Trend.MinutesToCompact)+" min)", "")
			}
		}
	}
	f.put(l)

	l = f.newLine()
	l.add("replies  ", styleDim)
	spark := sparkline(s.Context, r.Threshold, v.Width-l.cells)
	l.add(spark, levelStyle(s.Level))
	f.put(l)

	l = f.newLine()
	l.add("compact  ", styleDim)
	if len(s.Compactions) == 0 {
		l.add("none yet", "")
	} else {
		for i, c := range s.Compactions {
			if i > 0 {
				l.add(" · ", styleDim)
			}
			l.add(fmt.Sprintf("#%d %s %s %s→%s", i+1, c.Trigger, c.Time.In(v.location()).Format("15:04"), kilo(c.Pre), kilo(c.Post)), "")
		}
	}
	f.put(l)

	l = f.newLine()
	l.add("saved    ", styleDim)
	if s.Checkpoint == "" {
		l.add("no checkpoint yet", "")
	} else {
		l.add(s.Checkpoint, "")
	}
	f.put(l)

	l = f.newLine()
	l.add(fmt.Sprintf("open     %d item", len(s.Open)), styleDim)
	if len(s.Open) != 1 {
		l.add("s", styleDim)
	}
	f.put(l)
	for i, o := range s.Open {
		if f.room() == 1 && i < len(s.Open)-1 {
			f.plain(fmt.Sprintf("  … and %d more", len(s.Open)-i))
			break
		}
		f.plain("  • " + text.OneLine(o))
	}
}

// finish pads the frame to its height and draws the footer.
func (f *frame) finish() []string {
	for f.room() > 0 {
		f.lines = append(f.lines, "")
	}
	l := f.newLine()
	l.add(" "+f.foot, styleDim)
	return append(f.lines, l.String())
}

// bar draws the context in width cells, with '|' where auto-compaction
// triggers.
func bar(r meter.Reading, width int) string {
	if r.Window <= 0 || width <= 0 {
		return strings.Repeat("░", max(width, 0))
	}
	fill := int(float64(r.Tokens) / float64(r.Window) * float64(width))
	fill = max(0, min(fill, width))
	mark := -1
	if r.Threshold > 0 && r.Threshold < r.Window {
		mark = int(float64(r.Threshold) / float64(r.Window) * float64(width))
	}
	var b strings.Builder
	for i := range width {
		switch {
		case i == mark:
			b.WriteString("|")
		case i < fill:
			b.WriteString("█")
		default:
			b.WriteString("░")
		}
	}
	return b.String()
}

var sparks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws the values in at most width cells, scaled to top (the
// auto-compact point) or to the largest value when it is higher. A long
// session is drawn whole: each cell is then the last value of its share
// of the replies, so that a compaction's drop stays visible.
func sparkline(vals []int64, top int64, width int) string {
	if width <= 0 {
		return ""
	}
	if len(vals) == 0 {
		return "no replies yet"
	}
	if len(vals) > width {
		cell := make([]int64, width)
		for i := range cell {
			cell[i] = vals[(i+1)*len(vals)/width-1]
		}
		vals = cell
	}
	for _, v := range vals {
		top = max(top, v)
	}
	if top <= 0 {
		top = 1
	}
	var b strings.Builder
	for _, v := range vals {
		i := int(float64(max(v, 0)) / float64(top) * float64(len(sparks)-1))
		b.WriteRune(sparks[min(i, len(sparks)-1)])
	}
	return b.String()
}

// kilo is a token count in thousands ("155k"), "?" when unknown.
func kilo(n int64) string {
	if n <= 0 {
		return "?"
	}
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%dk", (n+500)/1000)
}

// clip cuts s to at most n cells, with "…" when it cut.
func clip(s string, n int) string {
	if cells(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	var b strings.Builder
	w := 0
	for _, r := range s {
		c := runeCells(r)
		if w+c > n-1 {
			break
		}
		b.WriteRune(r)
		w += c
	}
	b.WriteString("…")
	return b.String()
}

// printable drops the control characters of s: text from a transcript
// must never move the cursor or restyle the terminal.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			if r == '\t' || r == '\n' || r == '\r' {
				return ' '
			}
			return -1
		}
		return r
	}, s)
}

// cells is how many terminal cells s takes.
func cells(s string) int {
	n := 0
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		n += runeCells(r)
	}
	return n
}

// runeCells is the cells of one rune: none for controls and combining
// marks, two for the wide East Asian and emoji blocks, one otherwise. A
// table this small is enough for a status view, and costs nothing at
// start-up (go-runewidth's would; see the package doc).
func runeCells(r rune) int {
	switch {
	case r < 0x20 || r == 0x7f:
		return 0
	case r < 0x300:
		return 1
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == 0x200b:
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf && r != 0x303f,
		r >= 0xac00 && r <= 0xd7a3, r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f,
		r >= 0xff00 && r <= 0xff60, r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1f64f, r >= 0x1f900 && r <= 0x1f9ff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}
