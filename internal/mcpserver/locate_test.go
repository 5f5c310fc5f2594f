package mcpserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
)

// folder writes transcripts for ids, the later ones newer, with lines
// holding the tool_use ids given for each.
func folder(t *testing.T, ids []string, holds map[string]string) (config, dir string) {
	t.Helper()
	config, dir = t.TempDir(), t.TempDir()
	f := filepath.Join(config, "projects", claudecode.ProjectKey(dir))
	if err := os.MkdirAll(f, 0o755); err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour)
	for i, id := range ids {
		p := filepath.Join(f, id+".jsonl")
		line := `{"type":"user","sessionId":"` + id + `"}` + "\n"
		if tu := holds[id]; tu != "" {
			line += `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"` + tu + `","name":"mcp__cairn__search"}]}}` + "\n"
		}
		if err := os.WriteFile(p, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
		mt := base.Add(time.Duration(i) * time.Minute)
		os.Chtimes(p, mt, mt)
	}
	return config, dir
}

// Which session a call is from: the start-up session unless a newer one
// holds the call's tool_use block.
func TestFind(t *testing.T) {
	for _, c := range []struct {
		name    string
		ids     []string // oldest first
		holds   map[string]string
		own     string
		toolUse string
		want    string
	}{
		{"one session", []string{"a"}, nil, "", "", "a"},
		{"the newest, nothing else known", []string{"a", "b"}, nil, "", "", "b"},
		{"the start-up session, the newest", []string{"a", "b"}, nil, "b", "toolu_1", "b"},
		{"the start-up session beside a newer one", []string{"a", "b"}, map[string]string{"a": "toolu_1"}, "a", "toolu_1", "a"},
		{"a newer session holds the call (a /clear)", []string{"a", "b"}, map[string]string{"b": "toolu_1"}, "a", "toolu_1", "b"},
		{"no session holds it yet: the start-up one", []string{"a", "b"}, nil, "a", "toolu_1", "a"},
		{"no start-up session: the one that holds it", []string{"a", "b", "c"}, map[string]string{"a": "toolu_1"}, "", "toolu_1", "a"},
		{"no start-up session, none holds it: the newest", []string{"a", "b"}, nil, "", "toolu_1", "b"},
		{"a start-up id from elsewhere", []string{"a", "b"}, nil, "zzz", "", "b"},
		{"an id is matched whole", []string{"a", "b"}, map[string]string{"b": "toolu_12"}, "a", "toolu_1", "a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			config, dir := folder(t, c.ids, c.holds)
			l := &locator{configDir: config, dir: dir, sessionID: c.own, wait: 20 * time.Millisecond}
			got, err := l.find(context.Background(), c.toolUse)
			if err != nil || got.id != c.want || got.root != dir {
				t.Errorf("find = %+v, %v; want %s in %s", got, err, c.want, dir)
			}
		})
	}
}

// A cancelled call stops waiting for the tool_use block.
func TestFindCancelled(t *testing.T) {
	config, dir := folder(t, []string{"a", "b"}, nil)
	l := &locator{configDir: config, dir: dir, sessionID: "a", wait: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := l.find(ctx, "toolu_never")
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("find after the cancellation: %v", err)
	}
}

func TestFindNothing(t *testing.T) {
	dir := t.TempDir()
	l := &locator{configDir: t.TempDir(), dir: dir}
	if _, err := l.find(context.Background(), ""); err == nil {
		t.Error("found a session in an empty configuration")
	}
	if _, err := (&locator{dir: dir}).find(context.Background(), ""); err == nil {
		t.Error("found a session with no configuration directory")
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"7d", now.Add(-7 * 24 * time.Hour)},
		{"12h", now.Add(-12 * time.Hour)},
		{"30m", now.Add(-30 * time.Minute)},
		{" 0d ", now},
		{"2026-01-31", time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)},
		{"2026-01-31T08:30:00+01:00", time.Date(2026, 1, 31, 7, 30, 0, 0, time.UTC)},
	} {
		got, err := parseSince(c.in, now)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "d", "-3d", "7w", "yesterday", "2026-13-01", "7.5h"} {
		if got, err := parseSince(bad, now); err == nil {
			t.Errorf("parseSince(%q) = %v, want an error", bad, got)
		}
	}
}

func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"7d", "12h", "2026-01-31", "2026-01-31T08:30:00Z", "9999999999999999999d"} {
		f.Add(s)
	}
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseSince(s, now)
		if err == nil && got.IsZero() {
			t.Errorf("parseSince(%q): no error and no time", s)
		}
	})
}
