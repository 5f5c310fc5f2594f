package supervisor

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestFingerprint(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".claude/settings.json", "{}")
	write("src/main.go", "package main")
	steps := []struct {
		name    string
		change  func()
		changed bool
	}{
		{"nothing", func() {}, false},
		{"an unwatched file", func() { write("src/main.go", "package main // more") }, false},
		{"settings rewritten", func() { write(".claude/settings.json", `{"model":"x"}`) }, true},
		{"CLAUDE.md created", func() { write("CLAUDE.md", "# rules") }, true},
		{"a new agent", func() { write(".claude/agents/rev.md", "---\nname: rev\n---") }, true},
		{"a skill's file", func() { write(".claude/skills/x/SKILL.md", "x") }, true},
		{"local settings created", func() { write(".claude/settings.local.json", "{}") }, true},
		{"local settings gone", func() { os.Remove(filepath.Join(dir, ".claude/settings.local.json")) }, true},
	}
	prev := Fingerprint(dir, Watched)
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			time.Sleep(10 * time.Millisecond) // distinct modification times
			s.change()
			now := Fingerprint(dir, Watched)
			if (now != prev) != s.changed {
				t.Errorf("changed = %v; want %v", now != prev, s.changed)
			}
			prev = now
		})
	}
}
