package tui

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/golden"
	"github.com/cairn-agent/cairn/internal/meter"
)

var t0 = time.Date(2026, 11, 24, 14, 30, 0, 0, time.UTC)

func ptr(f float64) *float64 { return &f }

// sample is two sessions: one busy near its compaction point, one small.
func sample() []Session {
	var ctx []int64
	for i := range 70 {
		ctx = append(ctx, int64(20000+i*2300))
		if i == 40 { // the compaction
			ctx[len(ctx)-1] = 31000
		}
	}
	return []Session{
		{
			ID: "0a1b2c3d-4e5f-6789-abcd-ef0123456789", Client: "claude-code", Title: "Migrate the billing webhooks to the v2 API and keep the old endpoint alive",
			Model: "claude-opus-4-5", Branch: "feat/BILL-212",
			Reading: meter.Reading{Tokens: 151234, Window: 200000, Threshold: 167000, AutoCompact: true, PctWindow: 75.6, PctThreshold: 90.6},
			Trend:   meter.Trend{PerTurn: 2310, Samples: 5, TurnsToCompact: ptr(6.9), MinutesToCompact: ptr(11.5)},
			Level:   2, Percent: 90.6, Context: ctx,
			Compactions: []Compaction{{Trigger: "auto", Pre: 166800, Post: 31000, Time: t0.Add(-40 * time.Minute)}},
			Checkpoint:  "at reply 64, level L2 crossed",
			Open: []string{
				"the retry queue still drops events older than 24 h",
				"ask Dana whether the old endpoint can go in January",
				"todo: run the contract tests against staging",
			},
			Last: t0.Add(-20 * time.Second), Live: true,
		},
		{
			ID: "99887766-5544-3322-1100-ffeeddccbbaa", Client: "codex", Title: "日本語のタイトル: fix the flaky integration test\x1b[31m",
			Reading: meter.Reading{Tokens: 12000, Window: 272000, Threshold: 244800, AutoCompact: true, PctWindow: 4.4, PctThreshold: 4.9},
			Level:   0, Percent: 4.9, Context: []int64{9000, 12000},
			Last: t0.Add(-3 * time.Hour),
		},
	}
}

func TestRenderGolden(t *testing.T) {
	for _, tc := range []struct {
		name          string
		width, height int
		colour        bool
		selected      int
		sessions      []Session
	}{
		{"80x24", 80, 24, false, 0, sample()},
		{"200x60", 200, 60, false, 0, sample()},
		{"80x24-colour", 80, 24, true, 0, sample()},
		{"80x24-second", 80, 24, false, 1, sample()},
		{"40x10", 40, 10, false, 0, sample()},
		{"too-small", 30, 8, false, 0, sample()},
		{"empty", 80, 24, false, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := View{Sessions: tc.sessions, Selected: tc.selected, Scope: "project /src/billing",
				Width: tc.width, Height: tc.height, Colour: tc.colour, Now: t0}
			lines := Render(v)
			if len(lines) != tc.height {
				t.Fatalf("%d lines, want %d", len(lines), tc.height)
			}
			for i, l := range lines {
				plain := ansi.ReplaceAllString(l, "")
				if n := cells(plain); n > tc.width {
					t.Errorf("line %d is %d cells wide, more than %d: %q", i, n, tc.width, plain)
				}
				if strings.ContainsAny(plain, "\x1b\r\n") {
					t.Errorf("line %d carries a control character: %q", i, l)
				}
				if !tc.colour && l != plain {
					t.Errorf("line %d has colour in a plain frame: %q", i, l)
				}
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".txt"), strings.Join(lines, "\n")+"\n")
		})
	}
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[a-zA-Z]`)

func TestSparkline(t *testing.T) {
	for _, tc := range []struct {
		vals  []int64
		top   int64
		width int
		want  string
	}{
		{nil, 100, 10, "no replies yet"},
		{[]int64{0, 50, 100}, 100, 10, "▁▄█"},
		{[]int64{0, 50, 100, 200}, 100, 10, "▁▂▄█"}, // above the top: scaled to the largest
		{[]int64{1, 2, 3, 4, 5, 6}, 6, 3, "▃▅█"},    // the whole session, each cell the last of its share
		{[]int64{5}, 0, 0, ""},
	} {
		if got := sparkline(tc.vals, tc.top, tc.width); got != tc.want {
			t.Errorf("sparkline(%v, %d, %d) = %q, want %q", tc.vals, tc.top, tc.width, got, tc.want)
		}
	}
}

func TestCellsAndClip(t *testing.T) {
	for _, tc := range []struct {
		s     string
		cells int
		clip4 string
	}{
		{"abc", 3, "abc"},
		{"abcdef", 6, "abc…"},
		{"日本語", 6, "日…"},
		{"e\u0301te", 3, "e\u0301te"},
		{"🙂ok", 4, "🙂ok"},
	} {
		if got := cells(tc.s); got != tc.cells {
			t.Errorf("cells(%q) = %d, want %d", tc.s, got, tc.cells)
		}
		if got := clip(tc.s, 4); got != tc.clip4 {
			t.Errorf("clip(%q, 4) = %q, want %q", tc.s, got, tc.clip4)
		}
	}
}

func TestParseKeys(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []key
	}{
		{"j", []key{keyDown}},
		{"kq", []key{keyUp, keyQuit}},
		{"\x1b[A\x1b[B", []key{keyUp, keyDown}},
		{"\x1bOB", []key{keyDown}},
		{"\x1b", []key{keyQuit}},
		{"\x1b[5~j", []key{keyDown}},
		{"\x03", []key{keyQuit}},
		{"gG", []key{keyFirst, keyLast}},
		{"x", nil},
	} {
		if got := parseKeys([]byte(tc.in)); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("parseKeys(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// screen is a terminal's output, safe to read while Run writes it.
type screen struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// lastFrame is the text of the last frame written.
func (s *screen) lastFrame() string {
	out := s.String()
	if i := strings.LastIndex(out, home); i >= 0 {
		out = out[i:]
	}
	return ansi.ReplaceAllString(out, "")
}

func waitFor(t *testing.T, s *screen, what string, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok(s.lastFrame()) {
		if time.Now().After(deadline) {
			t.Fatalf("no frame %s; last:\n%s", what, s.lastFrame())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRunFollowsKeysTicksAndResizes(t *testing.T) {
	inR, inW := io.Pipe()
	out := &screen{}
	tick := make(chan time.Time)
	resized := make(chan struct{})
	var mu sync.Mutex
	width, height := 80, 24
	sessions := sample()
	term := Terminal{In: inR, Out: out, Resized: resized, Size: func() (int, int, error) {
		mu.Lock()
		defer mu.Unlock()
		return width, height, nil
	}}
	src := func() ([]Session, error) {
		mu.Lock()
		defer mu.Unlock()
		return append([]Session(nil), sessions...), nil
	}
	done := make(chan error)
	go func() {
		done <- Run(context.Background(), term, src, Options{Tick: tick, Now: func() time.Time { return t0 }, Scope: "test"})
	}()

	waitFor(t, out, "with the first session selected", func(f string) bool { return strings.Contains(f, "session 0a1b2c3d-4e5f") })
	if !strings.HasPrefix(out.String(), enterScreen) {
		t.Errorf("the alternate screen was not entered first: %q", out.String()[:min(20, len(out.String()))])
	}

	io.WriteString(inW, "j")
	waitFor(t, out, "with the second session selected", func(f string) bool { return strings.Contains(f, "session 99887766") })

	// The selected session stays selected when the list reorders.
	mu.Lock()
	sessions[0], sessions[1] = sessions[1], sessions[0]
	mu.Unlock()
	tick <- t0
	io.WriteString(inW, "r")
	waitFor(t, out, "after the reorder", func(f string) bool {
		return strings.Contains(f, "session 99887766") && strings.Index(f, "› ● 0a1b") < 0
	})

	// A session's context grows: the next tick shows it.
	mu.Lock()
	for i := range sessions {
		if sessions[i].ID[:2] == "99" {
			sessions[i].Reading.Tokens = 123456
		}
	}
	mu.Unlock()
	tick <- t0
	waitFor(t, out, "with the grown context", func(f string) bool { return strings.Contains(f, "123,456 / 272,000") })

	mu.Lock()
	width, height = 200, 60
	mu.Unlock()
	resized <- struct{}{}
	waitFor(t, out, "at 200x60", func(f string) bool {
		lines := strings.Split(f, "\r\n")
		return len(lines) == 60
	})

	io.WriteString(inW, "q")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("q did not end the view")
	}
	if !strings.HasSuffix(out.String(), leaveScreen) {
		t.Errorf("the terminal was not given back: ends %q", out.String()[max(0, len(out.String())-20):])
	}
}

func TestRunGivesTheTerminalBackWhenCancelled(t *testing.T) {
	inR, _ := io.Pipe()
	out := &screen{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		done <- Run(ctx, Terminal{In: inR, Out: out, Size: func() (int, int, error) { return 80, 24, nil }},
			func() ([]Session, error) { return nil, fmt.Errorf("cannot list the sessions") }, Options{})
	}()
	waitFor(t, out, "with the error", func(f string) bool { return strings.Contains(f, "cannot list the sessions") })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), leaveScreen) {
		t.Errorf("the terminal was not given back")
	}
}
