package statusline

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/golden"

	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/pressure"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// reading is tokens of a 200K window, whose auto-compact point is 167,000.
func reading(tokens int64) meter.Reading {
	return meter.Reading{Tokens: tokens, Source: "usage", Window: 200000, Threshold: 167000, AutoCompact: true}
}

var renderCases = []struct {
	name string
	in   Input
}{
	{"unknown", Input{}},
	{"unknown with a checkpoint", Input{Reading: meter.Reading{Source: "none"}, Ticket: "BILL-482", CheckpointAt: now.Add(-3 * time.Minute)}},
	{"no reply yet", Input{Reading: meter.Reading{Source: "none", Window: 200000, Threshold: 167000}}},
	{"empty", Input{Reading: reading(0)}},
	{"L0", Input{Reading: reading(75150)}}, // 45%
	{"L1", Input{Reading: reading(120240), Ticket: "gt-17", CheckpointAt: now.Add(-45 * time.Second)}}, // 72%
	{"L2", Input{Reading: reading(146960)}}, // 88%
	{"L2 of the advisory preset", Input{Reading: reading(137000), Pressure: pressure.Presets["advisory"], Ticket: "BILL-482", CheckpointAt: now.Add(-3*time.Minute - 59*time.Second)}}, // 82%
	{"just under L2", Input{Reading: reading(141949)}},                                              // 84.99%
	{"L3", Input{Reading: reading(162000), CheckpointAt: now.Add(-5 * time.Hour)}},                  // 97%
	{"past the threshold", Input{Reading: reading(175000), CheckpointAt: now.Add(-50 * time.Hour)}}, // 104%
	{"of the window", Input{Reading: reading(137000), Pressure: pressure.Config{Base: pressure.OfWindow, Levels: [3]float64{60, 75, 95}}}},
	{"auto-compact off", Input{Reading: meter.Reading{Tokens: 150000, Source: "usage", Window: 200000}}},
	{"just compacted", Input{Reading: meter.Reading{Tokens: 9100, Source: "compact_boundary", Window: 200000, Threshold: 167000}}},
	{"a checkpoint from the future", Input{Reading: reading(1000), CheckpointAt: now.Add(time.Minute)}},
	{"1M window", Input{Reading: meter.Reading{Tokens: 450000, Source: "statusline", Window: 1000000, Threshold: 967000}}},
}

// TestRender renders each case without and with colour; the coloured lines
// are Go-quoted in their golden file, so that the escapes show.
func TestRender(t *testing.T) {
	var plain, color strings.Builder
	for _, c := range renderCases {
		in := c.in
		in.Now = now
		if in.Pressure.Base == "" {
			in.Pressure = pressure.Default()
		}
		line := Render(in)
		if strings.ContainsAny(line, "\n\x1b") {
			t.Errorf("%s: %q is not one plain line", c.name, line)
		}
		fmt.Fprintf(&plain, "%-30s %s\n", c.name+":", line)
		in.Color = true
		colored := Render(in)
		if in.Known() != strings.Contains(colored, "\x1b[") {
			t.Errorf("%s: colour %q for a known reading %v", c.name, colored, in.Known())
		}
		fmt.Fprintf(&color, "%-30s %s\n", c.name+":", strconv.Quote(colored))
	}
	golden.Check(t, filepath.Join("testdata", "golden", "render.txt"), []byte(plain.String()))
	golden.Check(t, filepath.Join("testdata", "golden", "render-color.txt"), []byte(color.String()))
}
