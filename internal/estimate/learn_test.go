package estimate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/transcript"
)

func TestLearn(t *testing.T) {
	dir := t.TempDir()
	project := "/home/u/proj"
	steps := []struct {
		spec, consumed int64
		source         string
		ratio          float64
	}{
		{1000, 50_000, "default", DefaultRatio},
		{1000, 10_000, "default", DefaultRatio},
		// The third sample switches to the project's median.
		{1000, 20_000, "project", 20},
		{500, 15_000, "project", 25},
	}
	for i, s := range steps {
		if err := Learn(dir, project, s.spec, s.consumed); err != nil {
			t.Fatal(err)
		}
		m, err := ProjectModel(dir, project)
		if err != nil {
			t.Fatal(err)
		}
		if m.Source != s.source || m.Ratio != s.ratio || m.Recorded != i+1 {
			t.Errorf("after %d samples: %+v, want %s ratio %v", i+1, m, s.source, s.ratio)
		}
	}
	// Another project is not affected.
	if m, _ := ProjectModel(dir, "/home/u/other"); m.Source != "default" || m.Recorded != 0 {
		t.Errorf("other project: %+v", m)
	}
	fi, err := os.Stat(LogFile(dir, project))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, want 0600", fi.Mode().Perm())
	}
	if err := Learn(dir, project, 0, 10); err == nil {
		t.Error("a sample with no spec tokens was recorded")
	}
}

func TestLearnKeepsTheLatest(t *testing.T) {
	dir := t.TempDir()
	for i := 1; i <= MaxSamples+10; i++ {
		if err := Learn(dir, "p", 100, int64(i*100)); err != nil {
			t.Fatal(err)
		}
	}
	ss, err := readLog(LogFile(dir, "p"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != MaxSamples || ss[0].ConsumedTokens != 1100 || ss[len(ss)-1].ConsumedTokens != 6000 {
		t.Errorf("kept %d samples, %d to %d", len(ss), ss[0].ConsumedTokens, ss[len(ss)-1].ConsumedTokens)
	}
}

func TestLogSkipsBadLines(t *testing.T) {
	dir := t.TempDir()
	file := LogFile(dir, "p")
	os.MkdirAll(filepath.Dir(file), 0o700)
	lines := []string{
		`{"spec_tokens":100,"consumed_tokens":1000}`,
		`not json`,
		`{"spec_tokens":0,"consumed_tokens":1000}`,
		`{"spec_tokens":100,"consumed_tokens":3000}`,
		`{"spec_tokens":100,"consumed_tokens":2000}`,
	}
	os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o600)
	m, err := ProjectModel(dir, "p")
	if err != nil {
		t.Fatal(err)
	}
	if m.Source != "project" || m.Samples != 3 || m.Ratio != 20 {
		t.Errorf("got %+v", m)
	}
}

func TestFromSession(t *testing.T) {
	turn := func(line int, ctx int64) transcript.Turn {
		return transcript.Turn{Line: line, Usage: transcript.Usage{Input: 10, CacheRead: ctx - 10}}
	}
	s := &transcript.Session{
		Turns: []transcript.Turn{turn(2, 20_000), turn(5, 30_000), turn(9, 160_000), turn(12, 40_000), turn(15, 55_000)},
		// Compacted at 165,000 down to what the next reply saw, 40,000.
		Compactions: []transcript.Compaction{{Line: 10, PreTokens: 165_000}},
	}
	tests := []struct {
		name     string
		from, to int
		want     int64
	}{
		// 20,000 → 165,000 (+145,000), then 40,000 → 55,000 (+15,000).
		{"whole session", 0, 0, 1000 + 160_000},
		{"before the compaction", 5, 9, 1000 + 130_000},
		{"across it, from a line between turns", 6, 15, 1000 + 135_000 + 15_000},
		{"after it", 12, 0, 1000 + 15_000},
		{"nothing yet", 0, 1, 1000 + 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FromSession(s, 1000, tt.from, tt.to); got != tt.want {
				t.Errorf("FromSession(%d, %d) = %d, want %d", tt.from, tt.to, got, tt.want)
			}
		})
	}
	if got := FromSession(&transcript.Session{}, 1000, 0, 0); got != 1000 {
		t.Errorf("no turns: %d", got)
	}
}
