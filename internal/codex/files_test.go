package codex

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// firstLine is the session_meta line of a real rollout (0.169.0).
func firstLine(t testing.TB) string {
	f, err := os.Open("../transcript/testdata/codex/auto-compaction.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		t.Fatal("empty sample")
	}
	return sc.Text()
}

func TestParseMeta(t *testing.T) {
	real := firstLine(t)
	tests := []struct {
		name, line string
		id, cwd    string
		ok         bool
	}{
		{"real", real, "01a20c9d-f649-7071-a73a-d6745c8c97c0", "/home/user/proj", true},
		{"cut after cwd", real[:strings.Index(real, `"runtime_workspace_roots"`)], "01a20c9d-f649-7071-a73a-d6745c8c97c0", "/home/user/proj", true},
		{"cut before cwd", real[:strings.Index(real, `"cwd"`)], "", "", false},
		{"not meta", `{"type":"response_item","payload":{"id":"x","cwd":"/p"}}`, "", "", false},
		{"escaped cwd", `{"type":"session_meta","payload":{"id":"t1","cwd":"/a\"b"}}`, "t1", `/a"b`, true},
		{"cwd not a string", `{"type":"session_meta","payload":{"id":"t1","cwd":null}}`, "", "", false},
		{"no payload", `{"type":"session_meta"}`, "", "", false},
		{"not json", `nonsense`, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, cwd, ok := ParseMeta([]byte(tt.line))
			if id != tt.id || cwd != tt.cwd || ok != tt.ok {
				t.Errorf("ParseMeta = %q, %q, %v; want %q, %q, %v", id, cwd, ok, tt.id, tt.cwd, tt.ok)
			}
		})
	}
}

func FuzzParseMeta(f *testing.F) {
	real := firstLine(f)
	f.Add([]byte(real))
	f.Add([]byte(real[:200]))
	f.Add([]byte(`{"type":"session_meta","payload":{"id":"t1","cwd":"/a"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		id, cwd, ok := ParseMeta(line)
		if ok && (id == "" || cwd == "") {
			t.Errorf("ok with id %q, cwd %q", id, cwd)
		}
		if !ok && (id != "" || cwd != "") {
			t.Errorf("not ok but id %q, cwd %q", id, cwd)
		}
	})
}

func TestSessions(t *testing.T) {
	home := t.TempDir()
	write := func(day, name, cwd string, mod time.Time) string {
		dir := filepath.Join(home, "sessions", day)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		line := `{"timestamp":"2026-11-24T08:13:28.873Z","ordinal":0,"type":"session_meta","payload":{"id":"` + strings.TrimSuffix(strings.TrimPrefix(name, "rollout-"), ".jsonl") + `","cwd":"` + cwd + `","base_instructions":{"text":"` + strings.Repeat("x", 40<<10) + `"}}}` + "\n"
		if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t0 := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	older := write("2026/11/23", "rollout-a.jsonl", "/work/proj", t0)
	newer := write("2026/11/24", "rollout-b.jsonl", "/work/proj/sub", t0.Add(time.Hour))
	write("2026/11/24", "rollout-c.jsonl", "/work/project2", t0.Add(2*time.Hour))
	write("2026/11/24", "notes.jsonl", "/work/proj", t0)
	got, err := Sessions(home, "/work/proj")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Path != newer || got[1].Path != older || got[0].ID != "b" || got[0].CWD != "/work/proj/sub" {
		t.Errorf("Sessions = %+v; want b (in sub) then a", got)
	}
	projects, err := Projects(home)
	slices.Sort(projects)
	if err != nil || !slices.Equal(projects, []string{"/work/proj", "/work/proj/sub", "/work/project2"}) {
		t.Errorf("Projects = %q, %v; want each rollout's directory once", projects, err)
	}
	if got, err := Projects(filepath.Join(home, "none")); err != nil || len(got) != 0 {
		t.Errorf("Projects of a home without sessions: %v, %v", got, err)
	}
	if got, err := Sessions(filepath.Join(home, "none"), "/work/proj"); err != nil || len(got) != 0 {
		t.Errorf("a home without sessions: %v, %v", got, err)
	}
}
