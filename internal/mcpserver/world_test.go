package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/mcpserver"
	"github.com/cairn-agent/cairn/internal/mcpserver/mcptest"
	"github.com/cairn-agent/cairn/internal/state"
)

// world is a test's machine: Claude Code's directory with the project's
// transcripts, the project, and cairn's state and database, all under one
// temporary directory.
type world struct {
	dir     string
	config  string // Claude Code's ($CLAUDE_CONFIG_DIR)
	project string
	folder  string // the project's transcripts
	keeper  *continuity.Keeper
	now     time.Time
	warned  []error
}

func newWorld(t testing.TB) *world {
	t.Helper()
	dir := t.TempDir()
	w := &world{dir: dir, config: filepath.Join(dir, "claude"), project: filepath.Join(dir, "project"),
		now: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	w.folder = filepath.Join(w.config, "projects", claudecode.ProjectKey(w.project))
	for _, d := range []string{w.project, w.folder} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.keeper = &continuity.Keeper{State: state.Store{Dir: filepath.Join(dir, "state")}, DBPath: filepath.Join(dir, "data", "cairn.db"),
		Now: func() time.Time { return w.now }, Warn: func(err error) { w.warned = append(w.warned, err) }}
	t.Cleanup(func() { w.keeper.Close() })
	return w
}

func (w *world) options() mcpserver.Options {
	return mcpserver.Options{Memory: mcptest.NewStore(), Keeper: w.keeper, ConfigDir: w.config, Dir: w.project,
		Now: func() time.Time { return w.now }, Loc: time.UTC, Version: "test"}
}

// session copies a fixture transcript into the project's folder, with a
// modification time that makes the later copies the newer ones.
func (w *world) session(t *testing.T, name string) string {
	t.Helper()
	src, err := fixtures.Path(name)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	return w.write(t, name, data)
}

func (w *world) write(t *testing.T, id string, data []byte) string {
	t.Helper()
	p := filepath.Join(w.folder, id+".jsonl")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(w.folder)
	mt := w.now.Add(time.Duration(len(ents)) * time.Minute)
	if err := os.Chtimes(p, mt, mt); err != nil {
		t.Fatal(err)
	}
	return p
}

// synthetic builds a transcript line by line, as Claude Code writes them.
type synthetic struct {
	id    string
	cwd   string
	lines []byte
	n     int
}

func (s *synthetic) line(v map[string]any) {
	s.n++
	v["sessionId"], v["cwd"], v["isSidechain"] = s.id, s.cwd, false
	v["uuid"] = fmt.Sprintf("u%d", s.n)
	v["timestamp"] = time.Date(2026, 3, 2, 8, 0, s.n, 0, time.UTC).Format(time.RFC3339)
	b, _ := json.Marshal(v)
	s.lines = append(append(s.lines, b...), '\n')
}

func (s *synthetic) prompt(text string) {
	s.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
}

func (s *synthetic) reply(text string, tokens int) {
	s.line(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("m%d", s.n), "model": "claude-opus-4-6",
		"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}, "usage": map[string]any{"input_tokens": tokens}}})
}

func (s *synthetic) toolUse(id string, tokens int) {
	s.line(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("m%d", s.n), "model": "claude-opus-4-6",
		"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": id, "name": "mcp__cairn__check_compaction_status", "input": map[string]any{}}},
		"usage": map[string]any{"input_tokens": tokens}}})
}

func (s *synthetic) boundary(pre, post int) {
	s.line(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
		"compactMetadata": map[string]any{"trigger": "auto", "preTokens": pre, "postTokens": post}})
}
