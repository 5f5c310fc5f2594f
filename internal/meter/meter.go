// Package meter turns a transcript's derived session into an exact reading
// of the context: tokens in use (from the API's own usage figures), the
// window, the estimated auto-compact threshold, the trend over recent turns
// and the predicted point of auto-compaction.
//
// The window and the threshold are each client's own arithmetic: Rules
// supply them (Settings for Claude Code, CodexRules, GeminiRules), and the
// meter applies whichever it is given.
package meter

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cairn-agent/cairn/internal/transcript"
)

// Claude Code's auto-compact arithmetic, reverse-engineered and checked
// against the real preTokens of the fixtures (docs/meter.md):
//
//	effective = window - min(maxOutputTokens, 20000)
//	threshold = effective - 13000
//
// where window is the model's, lowered by CLAUDE_CODE_AUTO_COMPACT_WINDOW,
// and CLAUDE_AUTOCOMPACT_PCT_OVERRIDE can only lower the threshold to that
// percentage of the effective window.
const (
	OutputReserve  = 20000
	AutoCompactGap = 13000
	DefaultWindow  = 200_000
	MillionWindow  = 1_000_000
	trendTurns     = 10
)

// Settings are what changes the reading besides the transcript.
type Settings struct {
	// Window overrides the context window (cairn's --window or
	// CAIRN_CONTEXT_WINDOW).
	Window int64
	// StatusLineWindow is the status line's context_window_size, when known:
	// authoritative over the model table.
	StatusLineWindow int64
	// AutoCompactWindow is CLAUDE_CODE_AUTO_COMPACT_WINDOW.
	AutoCompactWindow int64
	// PctOverride is CLAUDE_AUTOCOMPACT_PCT_OVERRIDE (0 when unset).
	PctOverride float64
	// Disabled is DISABLE_AUTO_COMPACT.
	Disabled bool
}

// SettingsFromEnv reads the settings from the environment. Values that do
// not parse are reported and ignored.
func SettingsFromEnv(getenv func(string) string) (Settings, []error) {
	var s Settings
	var errs []error
	num := func(name string, dst *int64) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			errs = append(errs, fmt.Errorf("ignoring %s=%q: not a positive whole number", name, v))
			return
		}
		*dst = n
	}
	num("CAIRN_CONTEXT_WINDOW", &s.Window)
	num("CLAUDE_CODE_AUTO_COMPACT_WINDOW", &s.AutoCompactWindow)
	if v := strings.TrimSpace(getenv("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")); v != "" {
		p, err := strconv.ParseFloat(v, 64)
		if err != nil || p <= 0 || p > 100 {
			errs = append(errs, fmt.Errorf("ignoring CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=%q: not a percentage in (0, 100]", v))
		} else {
			s.PctOverride = p
		}
	}
	if v := strings.TrimSpace(getenv("DISABLE_AUTO_COMPACT")); v != "" && v != "0" && !strings.EqualFold(v, "false") {
		s.Disabled = true
	}
	return s, errs
}

// Reading is the meter's picture of a session at one moment.
type Reading struct {
	Tokens int64 `json:"tokens"`
	// Source says where Tokens comes from: "usage" (the latest main-chain
	// reply), "compact_boundary" (the client's own count after a
	// compaction, before the next reply: Claude Code's postTokens, Codex's
	// estimate), "compact_estimate" (from the size of the history the
	// compaction left, or of its summary, when the client gives no count)
	// or "none".
	Source       string  `json:"source"`
	Window       int64   `json:"window"`
	WindowSource string  `json:"window_source"`
	Threshold    int64   `json:"threshold"`
	AutoCompact  bool    `json:"auto_compact"`
	PctWindow    float64 `json:"percent_of_window"`
	PctThreshold float64 `json:"percent_of_threshold"`
}

// Trend is the growth over recent turns and what it predicts.
type Trend struct {
	PerTurn          float64  `json:"per_turn"`
	PerMinute        float64  `json:"per_minute"`
	TurnsToCompact   *float64 `json:"turns_to_compact"`
	MinutesToCompact *float64 `json:"minutes_to_compact"`
	Samples          int      `json:"samples"`
}

// Rules are one client's arithmetic of the context window and of when it
// compacts on its own. A client adapter supplies them; the meter knows no
// client.
type Rules interface {
	// ContextWindow is the window of s's context and where it was learnt.
	ContextWindow(s *transcript.Session) (int64, string)
	// CompactAt is the context at which the client compacts on its own
	// with this window, 0 when it never will.
	CompactAt(window int64) int64
	// Compacts says whether the client compacts on its own at all.
	Compacts() bool
}

// Settings are Claude Code's rules.
var _ Rules = Settings{}

// ContextWindow is Window(s, set).
func (set Settings) ContextWindow(s *transcript.Session) (int64, string) { return Window(s, set) }

// CompactAt is Threshold(window, set).
func (set Settings) CompactAt(window int64) int64 { return Threshold(window, set) }

// Compacts is false under DISABLE_AUTO_COMPACT.
func (set Settings) Compacts() bool { return !set.Disabled }

// Measure reads the context of s by the client's rules.
func Measure(s *transcript.Session, rules Rules) (Reading, Trend) {
	var r Reading
	r.Source = "none"
	var lastTurnLine int
	if n := len(s.Turns); n > 0 {
		t := s.Turns[n-1]
		r.Tokens, r.Source, lastTurnLine = t.Usage.Context(), "usage", t.Line
	}
	if n := len(s.Compactions); n > 0 && s.Compactions[n-1].Line > lastTurnLine {
		c := s.Compactions[n-1]
		switch {
		case c.PostTokens > 0:
			r.Tokens, r.Source = c.PostTokens, "compact_boundary"
		case c.ContextChars > 0:
			r.Tokens, r.Source = EstimateTokens(c.ContextChars), "compact_estimate"
		default:
			r.Tokens, r.Source = EstimateTokens(c.SummaryChars), "compact_estimate"
		}
	}
	r.Window, r.WindowSource = rules.ContextWindow(s)
	r.AutoCompact = rules.Compacts()
	r.Threshold = rules.CompactAt(r.Window)
	if r.Window > 0 {
		r.PctWindow = round1(100 * float64(r.Tokens) / float64(r.Window))
	}
	if r.Threshold > 0 {
		r.PctThreshold = round1(100 * float64(r.Tokens) / float64(r.Threshold))
	}
	return r, trend(s, r)
}

// EstimateTokens guesses tokens from characters where no usage exists.
// About 4 characters a token holds for English prose and code.
func EstimateTokens(chars int) int64 { return int64(math.Ceil(float64(chars) / 4)) }

// Threshold is the context at which Claude Code auto-compacts, or 0 when it
// never will.
func Threshold(window int64, set Settings) int64 {
	if set.Disabled || window <= 0 {
		return 0
	}
	w := window
	if set.AutoCompactWindow > 0 && set.AutoCompactWindow < w {
		w = set.AutoCompactWindow
	}
	effective := w - OutputReserve
	t := effective - AutoCompactGap
	if set.PctOverride > 0 {
		if p := int64(math.Floor(float64(effective) * set.PctOverride / 100)); p < t {
			t = p
		}
	}
	if t < 0 {
		t = 0
	}
	return t
}

// Window decides the context window and says from where.
func Window(s *transcript.Session, set Settings) (int64, string) {
	switch {
	case set.Window > 0:
		return set.Window, "override"
	case set.StatusLineWindow > 0:
		return set.StatusLineWindow, "statusline"
	}
	if w := ModelWindow(s.Model); w > 0 {
		return w, "model"
	}
	// A reply that used more than the default window proves a larger one.
	for _, t := range s.Turns {
		if t.Usage.Context() > DefaultWindow {
			return MillionWindow, "observed"
		}
	}
	for _, c := range s.Compactions {
		if c.PreTokens > DefaultWindow {
			return MillionWindow, "observed"
		}
	}
	return DefaultWindow, "default"
}

// millionModels are model id prefixes whose default window is 1M tokens.
// claude-opus-5-5 reported context_window_size 1000000 on Claude Code
// 2.1.328's status line.
var millionModels = []string{"claude-opus-5"}

// ModelWindow is the window the model id implies, or 0 when it says nothing.
func ModelWindow(model string) int64 {
	m := strings.ToLower(model)
	if strings.HasSuffix(m, "[1m]") {
		return MillionWindow
	}
	for _, p := range millionModels {
		if strings.HasPrefix(m, p) {
			return MillionWindow
		}
	}
	return 0
}

// trend averages the growth between consecutive recent turns that no
// compaction separates.
func trend(s *transcript.Session, r Reading) Trend {
	turns := s.Turns
	if len(turns) > trendTurns {
		turns = turns[len(turns)-trendTurns:]
	}
	var tr Trend
	var grown int64
	var minutes float64
	steps := 0
	for i := 1; i < len(turns); i++ {
		a, b := turns[i-1], turns[i]
		if compactedBetween(s.Compactions, a.Line, b.Line) {
			continue
		}
		grown += b.Usage.Context() - a.Usage.Context()
		steps++
		if !a.Time.IsZero() && !b.Time.IsZero() && b.Time.After(a.Time) {
			minutes += b.Time.Sub(a.Time).Minutes()
		}
	}
	tr.Samples = steps
	if steps == 0 {
		return tr
	}
	tr.PerTurn = round1(float64(grown) / float64(steps))
	if minutes > 0 {
		tr.PerMinute = round1(float64(grown) / minutes)
	}
	if !r.AutoCompact || r.Threshold == 0 {
		return tr
	}
	left := float64(r.Threshold - r.Tokens)
	if left < 0 {
		left = 0
	}
	if tr.PerTurn > 0 {
		v := round1(left / tr.PerTurn)
		tr.TurnsToCompact = &v
	}
	if tr.PerMinute > 0 {
		v := round1(left / tr.PerMinute)
		tr.MinutesToCompact = &v
	}
	return tr
}

func compactedBetween(cs []transcript.Compaction, from, to int) bool {
	for _, c := range cs {
		if c.Line > from && c.Line < to {
			return true
		}
	}
	return false
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// Signed writes a change in tokens for people, rounded, with its sign:
// "+1,250", "-300".
func Signed(f float64) string {
	n := int64(math.Round(f))
	if n >= 0 {
		return "+" + Thousands(n)
	}
	return Thousands(n)
}

// Round1 writes an estimate for people: one decimal under ten ("2.5"),
// whole numbers from ten on ("12", "1,200").
func Round1(f float64) string {
	if f >= 10 {
		return Thousands(int64(f + 0.5))
	}
	return strconv.FormatFloat(f, 'f', 1, 64)
}

// Thousands writes a token count for people: 167000 as "167,000".
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
