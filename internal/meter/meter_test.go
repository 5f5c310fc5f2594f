package meter

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/transcript"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestThreshold(t *testing.T) {
	tests := []struct {
		name   string
		window int64
		set    Settings
		want   int64
	}{
		{"200K default", 200_000, Settings{}, 167_000},
		{"1M", 1_000_000, Settings{}, 967_000},
		{"auto-compact window lowers it", 1_000_000, Settings{AutoCompactWindow: 100_000}, 67_000},
		{"auto-compact window never raises it", 200_000, Settings{AutoCompactWindow: 500_000}, 167_000},
		{"pct lowers", 200_000, Settings{PctOverride: 50}, 90_000},
		{"pct never raises", 200_000, Settings{PctOverride: 99}, 167_000},
		{"disabled", 200_000, Settings{Disabled: true}, 0},
		{"tiny window", 10_000, Settings{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Threshold(tt.window, tt.set); got != tt.want {
				t.Errorf("Threshold = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestSettingsFromEnv(t *testing.T) {
	s, errs := SettingsFromEnv(env(map[string]string{
		"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000",
		"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "80",
		"DISABLE_AUTO_COMPACT":            "1",
		"CAIRN_CONTEXT_WINDOW":            "500000",
	}))
	if len(errs) != 0 || s != (Settings{Window: 500_000, AutoCompactWindow: 100_000, PctOverride: 80, Disabled: true}) {
		t.Errorf("settings = %+v, errs %v", s, errs)
	}
	s, errs = SettingsFromEnv(env(map[string]string{
		"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "lots",
		"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "150",
		"DISABLE_AUTO_COMPACT":            "false",
	}))
	if len(errs) != 2 || s != (Settings{}) {
		t.Errorf("bad values: settings = %+v, errs %v", s, errs)
	}
}

func TestWindow(t *testing.T) {
	tests := []struct {
		model    string
		set      Settings
		maxSeen  int64
		want     int64
		wantFrom string
	}{
		{"claude-opus-4-6", Settings{}, 100, 200_000, "default"},
		{"claude-sonnet-4-5[1m]", Settings{}, 100, 1_000_000, "model"},
		{"claude-opus-5-5", Settings{}, 100, 1_000_000, "model"},
		{"claude-opus-4-6", Settings{}, 450_000, 1_000_000, "observed"},
		{"claude-opus-4-6", Settings{StatusLineWindow: 1_000_000}, 100, 1_000_000, "statusline"},
		{"claude-opus-5-5", Settings{Window: 300_000, StatusLineWindow: 1_000_000}, 100, 300_000, "override"},
	}
	for _, tt := range tests {
		s := &transcript.Session{Model: tt.model, Turns: []transcript.Turn{{Usage: transcript.Usage{Input: tt.maxSeen}}}}
		if got, from := Window(s, tt.set); got != tt.want || from != tt.wantFrom {
			t.Errorf("Window(%s, %+v) = %d %s, want %d %s", tt.model, tt.set, got, from, tt.want, tt.wantFrom)
		}
	}
}

func turn(line int, tokens int64, at time.Time) transcript.Turn {
	return transcript.Turn{MessageID: "m", Line: line, Time: at, Usage: transcript.Usage{Input: 10, CacheRead: tokens - 10}}
}

func TestMeasureTrend(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	s := &transcript.Session{Model: "claude-opus-4-6"}
	for i := 0; i < 5; i++ {
		s.Turns = append(s.Turns, turn(i+1, 100_000+int64(i)*2_000, t0.Add(time.Duration(i)*30*time.Second)))
	}
	r, tr := Measure(s, Settings{})
	if r.Tokens != 108_000 || r.Source != "usage" || r.Window != 200_000 || r.Threshold != 167_000 {
		t.Fatalf("reading = %+v", r)
	}
	if r.PctWindow != 54 || r.PctThreshold != 64.7 {
		t.Errorf("percentages = %v %v", r.PctWindow, r.PctThreshold)
	}
	if tr.PerTurn != 2000 || tr.PerMinute != 4000 || tr.Samples != 4 {
		t.Errorf("trend = %+v", tr)
	}
	if tr.TurnsToCompact == nil || *tr.TurnsToCompact != 29.5 || tr.MinutesToCompact == nil || *tr.MinutesToCompact != 14.8 {
		t.Errorf("predictions = %v %v", tr.TurnsToCompact, tr.MinutesToCompact)
	}
	// Disabled auto-compaction predicts nothing.
	if _, tr := Measure(s, Settings{Disabled: true}); tr.TurnsToCompact != nil || tr.MinutesToCompact != nil {
		t.Errorf("predictions with auto-compact off: %+v", tr)
	}
}

func TestMeasureAfterCompaction(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	s := &transcript.Session{Model: "claude-opus-4-6", Turns: []transcript.Turn{
		turn(1, 150_000, t0), turn(2, 160_000, t0.Add(time.Minute)),
	}}
	s.Compactions = []transcript.Compaction{{Trigger: "auto", PreTokens: 167_500, PostTokens: 12_000, Line: 3}}
	r, tr := Measure(s, Settings{})
	if r.Tokens != 12_000 || r.Source != "compact_boundary" {
		t.Errorf("after boundary: %+v", r)
	}
	if tr.PerTurn != 10_000 {
		t.Errorf("trend before the boundary still counts: %+v", tr)
	}
	s.Compactions[0].PostTokens = 0
	s.Compactions[0].SummaryChars = 4_000
	if r, _ := Measure(s, Settings{}); r.Tokens != 1_000 || r.Source != "compact_estimate" {
		t.Errorf("without postTokens: %+v", r)
	}
	// The next reply takes over, and the drop is not growth.
	s.Turns = append(s.Turns, turn(4, 20_000, t0.Add(2*time.Minute)))
	r, tr = Measure(s, Settings{})
	if r.Tokens != 20_000 || r.Source != "usage" || tr.PerTurn != 10_000 || tr.Samples != 1 {
		t.Errorf("after the next reply: %+v %+v", r, tr)
	}
}

func TestMeasureEmpty(t *testing.T) {
	r, tr := Measure(&transcript.Session{}, Settings{})
	if r.Tokens != 0 || r.Source != "none" || tr.Samples != 0 || tr.TurnsToCompact != nil {
		t.Errorf("%+v %+v", r, tr)
	}
}

// The documented threshold is checked against real auto-compactions: each
// fired at or above it, and the reply before the one that crossed it was
// still below it (or the client would have compacted earlier).
func TestThresholdAgainstRealCompactions(t *testing.T) {
	dir, err := fixtures.Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, fx := range fixtures.Compactions {
		if fx.Trigger != "auto" {
			continue
		}
		t.Run(fx.Session[:8], func(t *testing.T) {
			s := transcript.New(filepath.Join(dir, fx.Session+".jsonl"))
			var p transcript.Parser
			if _, err := s.Update(&p); err != nil {
				t.Fatal(err)
			}
			c := s.Compactions[0]
			win, _ := Window(s, Settings{})
			th := Threshold(win, Settings{})
			if c.PreTokens < th {
				t.Errorf("compacted at %d, below the threshold %d", c.PreTokens, th)
			}
			if c.PreTokens > th+th/20 {
				t.Errorf("compacted at %d, more than 5%% above the threshold %d", c.PreTokens, th)
			}
			before := s.Turns[c.TurnsBefore-2].Usage.Context()
			if before >= th {
				t.Errorf("the reply before last had %d >= threshold %d and did not compact", before, th)
			}
		})
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 167000: "167,000", 1000000: "1,000,000", -12345: "-12,345"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSignedRound1(t *testing.T) {
	for f, want := range map[float64]string{0: "+0", 0.4: "+0", 2.5: "+3", 1249.6: "+1,250", -0.4: "+0", -2.5: "-3", -1300.2: "-1,300"} {
		if got := Signed(f); got != want {
			t.Errorf("Signed(%v) = %q, want %q", f, got, want)
		}
	}
	for f, want := range map[float64]string{0: "0.0", 2.46: "2.5", 9.94: "9.9", 10: "10", 12.5: "13", 1199.6: "1,200"} {
		if got := Round1(f); got != want {
			t.Errorf("Round1(%v) = %q, want %q", f, got, want)
		}
	}
}
