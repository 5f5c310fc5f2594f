package web

import (
	"fmt"
	"strings"

	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// crossing is the first turn at which the context reached a level, counted
// again after each compaction.
type crossing struct {
	Level  int
	Turn   int // 1-based
	Tokens int64
}

// crossings lists the levels s's context crossed, turn by turn, as the
// advisories would have seen them.
func crossings(s *transcript.Session, r meter.Reading, levels pressure.Config) []crossing {
	var out []crossing
	prev, c := 0, 0
	for i, t := range s.Turns {
		n := s.EarlierTurns + i + 1
		for c < len(s.Compactions) && s.Compactions[c].TurnsBefore < n {
			prev = 0 // a compaction empties the context: levels count again
			c++
		}
		tok := t.Usage.Context()
		l := levels.Level(meter.Reading{Tokens: tok, Threshold: r.Threshold, Window: r.Window})
		for lv := prev + 1; lv <= l; lv++ {
			out = append(out, crossing{Level: lv, Turn: n, Tokens: tok})
		}
		if l > prev {
			prev = l
		}
	}
	return out
}

// Chart geometry, in the SVG's own units.
const (
	chartW, chartH                 = 960, 280
	padL, padR, padT, padB float64 = 64, 16, 14, 30
)

// chart draws the context per turn of s as SVG: one point per turn, the
// auto-compact line, the levels' lines, a line at each compaction.
func chart(s *transcript.Session, r meter.Reading, levels pressure.Config) string {
	var b strings.Builder
	n := len(s.Turns)
	var top int64
	for _, t := range s.Turns {
		top = max(top, t.Usage.Context())
	}
	for _, c := range s.Compactions {
		top = max(top, c.PreTokens)
	}
	top = max(top, r.Window, r.Threshold, 1)
	plotW, plotH := chartW-padL-padR, chartH-padT-padB
	x := func(turn float64) float64 { // turn is 1-based; n turns span the width
		if n <= 1 {
			return padL + plotW/2
		}
		return padL + plotW*(turn-1)/float64(n-1)
	}
	y := func(tok int64) float64 { return padT + plotH*(1-float64(tok)/float64(top)) }
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 %d %d" role="img" aria-label="context per turn: %d turns">`+"\n", chartW, chartH, n)
	// The axis: four steps of the top.
	for i := 0; i <= 4; i++ {
		tok := top * int64(i) / 4
		fmt.Fprintf(&b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/><text class="axis" x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n",
			padL, y(tok), chartW-padR, y(tok), padL-6, y(tok)+4, shortNum(tok))
	}
	fmt.Fprintf(&b, `<text class="axis" x="%.1f" y="%d" text-anchor="middle">turns (%d)</text>`+"\n", padL+plotW/2, chartH-8, n)
	base := r.Threshold
	if levels.Base == pressure.OfWindow || base == 0 {
		base = r.Window
	}
	if base > 0 {
		for i, pct := range levels.Levels {
			tok := int64(float64(base) * pct / 100)
			fmt.Fprintf(&b, `<line class="level" data-level="%d" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/><text class="level-label" x="%.1f" y="%.1f" text-anchor="end">L%d</text>`+"\n",
				i+1, padL, y(tok), chartW-padR, y(tok), chartW-padR-2, y(tok)-3, i+1)
		}
	}
	if r.Threshold > 0 {
		fmt.Fprintf(&b, `<line class="autocompact" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/><text class="autocompact-label" x="%.1f" y="%.1f">auto-compact %s</text>`+"\n",
			padL, y(r.Threshold), chartW-padR, y(r.Threshold), padL+4, y(r.Threshold)-4, num(r.Threshold))
	}
	for i, c := range s.Compactions {
		// Between the last turn before the boundary and the first after.
		cx := x(float64(c.TurnsBefore-s.EarlierTurns) + 0.5)
		if n <= 1 {
			cx = x(1)
		}
		fmt.Fprintf(&b, `<line class="compaction" data-compaction="%d" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"><title>compaction #%d (%s): %s → %s tokens</title></line><text class="compaction-label" x="%.1f" y="%.1f">#%d</text>`+"\n",
			i+1, cx, padT, cx, padT+plotH, i+1, esc(c.Trigger), num(c.PreTokens), postTokens(c), cx+3, padT+10, i+1)
	}
	if n > 0 {
		b.WriteString(`<polyline class="context" points="`)
		for i, t := range s.Turns {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%.1f,%.1f", x(float64(i+1)), y(t.Usage.Context()))
		}
		b.WriteString(`"/>` + "\n<g class=\"turns\">")
		for i, t := range s.Turns {
			fmt.Fprintf(&b, `<circle class="turn" cx="%.1f" cy="%.1f" r="2"><title>turn %d: %s tokens</title></circle>`,
				x(float64(i+1)), y(t.Usage.Context()), s.EarlierTurns+i+1, num(t.Usage.Context()))
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// postTokens is the context a compaction left, "?" when the client did
// not say.
func postTokens(c transcript.Compaction) string {
	if c.PostTokens == 0 {
		return "?"
	}
	return num(c.PostTokens)
}

// shortNum is 167k for 167,000.
func shortNum(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}
