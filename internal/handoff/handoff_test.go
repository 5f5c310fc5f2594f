package handoff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/golden"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/git"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/google/go-cmp/cmp"
)

func exit(n int) *int { return &n }

// planted is a checkpoint with one of everything a handoff shows. Its
// strings are redacted already, as a stored checkpoint's are.
func planted() checkpoint.Checkpoint {
	return checkpoint.Checkpoint{
		Version: checkpoint.Version, ID: 7, Project: "/work/shop", SessionID: "sess-1",
		CreatedAt: time.Date(2026, 3, 1, 11, 58, 0, 0, time.UTC), Trigger: "handoff",
		Context: checkpoint.Context{Tokens: 141950, Window: 200000, Threshold: 167000, Percent: 71},
		Task: checkpoint.Task{
			First:   "Implement the CSV export for BILL-482. Never touch the migrations folder. Use pnpm, not npm.",
			Latest:  []string{"now the header row", "also make sure the header row is always written, even for empty exports. The API token is [REDACTED:anthropic-key]"},
			Tickets: []string{"BILL-482"},
		},
		Constraints: []string{"Never touch the migrations folder.", "Use pnpm, not npm."},
		Todos: []checkpoint.Todo{
			{Content: "Write the CSV encoder", Status: "completed"},
			{Content: "Add export tests", Status: "in_progress"},
			{Content: "Document the export flag", Status: "pending"},
		},
		Files: []checkpoint.File{
			{Path: "internal/export/csv.go", Created: true, Edits: 1},
			{Path: "docs/export.md", Edits: 2},
			{Path: "internal/export/old.go", Deleted: true},
		},
		KeyReads: []string{"internal/export/export.go", ".claude/specs/current/SPEC-BILL-482.md", "docs/architecture.md", "web/api.spec.ts", "planner.go"},
		Commands: []checkpoint.Command{
			{Command: "go test ./internal/export/...", ExitCode: exit(0), Runs: 2},
			{Command: "make lint", ExitCode: exit(2), Runs: 1},
		},
		Errors: []checkpoint.Error{
			{Tool: "Bash", Subject: "go test ./internal/export/...", Message: "--- FAIL: TestCSVQuotes", Resolved: true},
			{Tool: "Bash", Subject: "make lint", Message: "export.go:12: exported func Export should have comment"},
		},
		Decisions: []string{"I'll use encoding/csv rather than hand-written quoting because it handles embedded newlines."},
		NextSteps: []string{"Fix the lint warning in export.go", "Write the empty-export test"},
		LastReply: "Understood.\n\nNext steps:\n1. Fix the lint warning in export.go\n2. Write the empty-export test",
		Git: &git.Status{Branch: "feat/BILL-482-export", Head: "1a2b3c4d5e6f", DiffStat: "3 files changed, 40 insertions(+), 12 deletions(-)",
			Changes: []git.Change{{Path: "internal/export/csv.go", Code: "??"}, {Path: "internal/export/export.go", Code: ".M"},
				{Path: "internal/export/old.go", Code: "D."}, {Path: "go.sum", Code: "MM"}}},
	}
}

const claudeMD = "# Shop\n\nIntro.\n\n## Build\n\n```sh\n# not a heading\nmake\n```\n\n## Error Handling\n\n### Details are not listed\n\n#NotAHeading\n\n## File Conventions ##\n"

func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte(claudeMD), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func clock() func() time.Time {
	return func() time.Time { return time.Date(2026, 3, 1, 12, 0, 30, 0, time.UTC) }
}

func TestRender(t *testing.T) {
	dir := project(t)
	tests := []struct {
		name string
		c    func() checkpoint.Checkpoint
		in   Input
	}{
		{"planted.md", planted, Input{Reason: "Stopping for lunch; the deploy key is sk-ant-api03-" + strings.Repeat("A", 80) + ".", Project: dir, Now: clock(), Loc: time.UTC}},
		{"level-2.md", func() checkpoint.Checkpoint {
			c := planted()
			c.Trigger = "pressure-L2"
			c.NextSteps = nil
			return c
		}, Input{Project: dir, Now: clock(), Loc: time.FixedZone("CET", 3600)}},
		{"empty.md", func() checkpoint.Checkpoint {
			return checkpoint.Checkpoint{SessionID: "sess-0", Trigger: "session-end", GitError: "git status: timed out"}
		}, Input{Project: t.TempDir(), Now: clock(), Loc: time.UTC}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Render(tt.c(), tt.in)
			golden.Check(t, filepath.Join("testdata", tt.name), got)
			if strings.Contains(got, "sk-ant-api03") {
				t.Error("the reason's secret reached the handoff")
			}
		})
	}
}

func TestRenderSections(t *testing.T) {
	got := Render(planted(), Input{Project: project(t), Now: clock(), Loc: time.UTC})
	// Seed 003's format: front matter, then the sections in order.
	want := []string{"---\nsession_date: 2026-03-01\nsession_time: \"12:00\"\n", "branch: feat/BILL-482-export\n", "issues: BILL-482\n",
		"checkpoint_trigger: handoff\n", "context_at_checkpoint: 141,950 tokens", "---\n\n# Session Handoff: Implement the CSV export for BILL-482\n",
		"## Checkpoint Reason", "## Current Task", "## Progress and Todos", "## Files Modified", "## Decisions",
		"## Errors and Resolutions", "## Next Steps", "## Context to Reload", "## Remaining Context Budget"}
	at := 0
	for _, w := range want {
		i := strings.Index(got[at:], w)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", w, got)
		}
		at += i + len(w)
	}
	for _, w := range []string{"- [x] Write the CSV encoder", "- [ ] Add export tests (in progress)", "`go.sum`: git: modified (partly staged)",
		"- **Spec**: .claude/specs/current/SPEC-BILL-482.md (read)", "- **Spec**: docs/export.md (changed this session)",
		"About 15.0% (~25,050 tokens) remained before auto-compaction at 167,000 tokens"} {
		if !strings.Contains(got, w) {
			t.Errorf("lacks %q", w)
		}
	}
	for _, w := range []string{"api.spec.ts", "planner.go", "not a heading", "Details are not listed", "NotAHeading"} {
		if strings.Contains(got, w) {
			t.Errorf("has %q", w)
		}
	}
}

func TestTrigger(t *testing.T) {
	r := Render(planted(), Input{Level: 3, Pressure: pressure.Config{Base: pressure.OfWindow, Levels: [3]float64{60, 65, 70}}, Now: clock()})
	if !strings.Contains(r, "checkpoint_trigger: L3 (context at 71% of the window)") {
		t.Errorf("explicit level on the window base:\n%s", r)
	}
	for trigger, want := range map[string]int{"pressure-L2": 2, "L3": 3, "l1": 1, "HTML2": 0, "L4": 0, "handoff": 0, "": 0} {
		if got := triggerLevel(trigger); got != want {
			t.Errorf("triggerLevel(%q) = %d, want %d", trigger, got, want)
		}
	}
}

func TestWriteNames(t *testing.T) {
	dir := t.TempDir()
	in := Input{Now: clock(), Loc: time.UTC}
	var got []string
	for range 3 {
		p, err := Write(dir, planted(), in)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		got = append(got, filepath.ToSlash(rel))
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v %v", p, fi.Mode(), err)
		}
	}
	want := []string{".claude/handoffs/2026-03-01-1200.md", ".claude/handoffs/2026-03-01-1200-2.md", ".claude/handoffs/2026-03-01-1200-3.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	// Nothing else is left in the directory: no temporary files.
	des, _ := os.ReadDir(filepath.Join(dir, ".claude", "handoffs"))
	if len(des) != 3 {
		t.Errorf("%d entries in the handoffs directory", len(des))
	}
	if fi, err := os.Stat(filepath.Join(dir, ".claude", "handoffs")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("directory mode %v %v", fi.Mode(), err)
	}
	// A user's file in the way is never replaced.
	user := filepath.Join(dir, ".claude", "handoffs", "2026-03-01-1201.md")
	os.WriteFile(user, []byte("mine"), 0o644)
	later := Input{Now: func() time.Time { return time.Date(2026, 3, 1, 12, 1, 0, 0, time.UTC) }, Loc: time.UTC}
	p, err := Write(dir, planted(), later)
	if err != nil || filepath.Base(p) != "2026-03-01-1201-2.md" {
		t.Errorf("%s %v", p, err)
	}
	if data, _ := os.ReadFile(user); string(data) != "mine" {
		t.Error("the user's file was replaced")
	}
	// The name is in the given time zone.
	p, err = Write(dir, planted(), Input{Now: clock(), Loc: time.FixedZone("X", -5*3600)})
	if err != nil || filepath.Base(p) != "2026-03-01-0700.md" {
		t.Errorf("%s %v", p, err)
	}
}

func TestNewest(t *testing.T) {
	dir := t.TempDir()
	if p, ok := Newest(dir); ok {
		t.Errorf("no handoffs yet, got %s", p)
	}
	hd := filepath.Join(dir, ".claude", "handoffs")
	os.MkdirAll(hd, 0o755)
	for _, n := range []string{"2026-02-28-2359.md", "2026-03-01-1200.md", "2026-03-01-1200-2.md", "2026-03-01-1200-10.md", "notes.md", "2026-03-01-1300.md.tmp"} {
		os.WriteFile(filepath.Join(hd, n), []byte("x"), 0o644)
	}
	os.Mkdir(filepath.Join(hd, "2026-12-31-2359.md"), 0o755) // a directory is not a handoff
	if p, ok := Newest(dir); !ok || filepath.Base(p) != "2026-03-01-1200-10.md" {
		t.Errorf("newest %s %v", p, ok)
	}
}

func TestUnseen(t *testing.T) {
	dir, stateDir := t.TempDir(), t.TempDir()
	at := func(h, m int) Input {
		return Input{Now: func() time.Time { return time.Date(2026, 3, 1, h, m, 0, 0, time.UTC) }, Loc: time.UTC}
	}
	by := func(session string) checkpoint.Checkpoint {
		c := planted()
		c.SessionID = session
		return c
	}
	if _, ok, err := Unseen(dir, stateDir, "B"); ok || err != nil {
		t.Fatalf("no handoffs: %v %v", ok, err)
	}
	first, err := Write(dir, by("A"), at(10, 0))
	if err != nil {
		t.Fatal(err)
	}
	// The session that wrote it is not pointed at it.
	if p, ok, err := Unseen(dir, stateDir, "A"); ok || err != nil {
		t.Errorf("own handoff shown: %s %v", p, err)
	}
	// Another session is, once.
	if p, ok, err := Unseen(dir, stateDir, "B"); !ok || err != nil || p != first {
		t.Errorf("first showing: %s %v %v", p, ok, err)
	}
	if p, ok, err := Unseen(dir, stateDir, "B"); ok || err != nil {
		t.Errorf("shown twice: %s %v", p, err)
	}
	// A newer one is shown to B too; A's own newer one is passed over for
	// A, which still sees nothing new.
	second, _ := Write(dir, by("C"), at(11, 0))
	if p, ok, _ := Unseen(dir, stateDir, "B"); !ok || p != second {
		t.Errorf("newer handoff: %s %v", p, ok)
	}
	if p, ok, _ := Unseen(dir, stateDir, "A"); !ok || p != second {
		t.Errorf("A sees C's handoff: %s %v", p, ok)
	}
	Write(dir, by("A"), at(12, 0))
	if p, ok, _ := Unseen(dir, stateDir, "A"); ok {
		t.Errorf("A shown %s again after writing its own", p)
	}
	// A session id that is no file name is kept safely.
	if p, ok, err := Unseen(dir, stateDir, "../../etc/x"); !ok || err != nil {
		t.Errorf("odd id: %s %v %v", p, ok, err)
	}
	des, _ := os.ReadDir(filepath.Join(stateDir, "handoffs-seen"))
	for _, de := range des {
		if strings.Contains(de.Name(), "..") {
			t.Errorf("seen file %q", de.Name())
		}
	}
	// MarkSeen stops a pointer before it is shown.
	newest, _ := Newest(dir)
	if err := MarkSeen(stateDir, "D", newest); err != nil {
		t.Fatal(err)
	}
	if p, ok, _ := Unseen(dir, stateDir, "D"); ok {
		t.Errorf("marked seen but shown: %s", p)
	}
}

func TestPointerText(t *testing.T) {
	dir := t.TempDir()
	p, err := Write(dir, planted(), Input{Now: clock(), Loc: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	got := PointerText(dir, p, "cairn resume")
	want := "cairn: a handoff from an earlier session (2026-03-01 12:00) is at .claude/handoffs/2026-03-01-1200.md; it is about: Implement the CSV export for BILL-482. If this session continues that work, read it before continuing: `cairn resume` prints it."
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// A handoff of another client's session says which, and the command
	// is the one for the client the session runs in.
	c := planted()
	c.Client, c.SessionID = "claude-code", "sess-9"
	p, err = Write(dir, c, Input{Now: clock(), Loc: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	got = PointerText(dir, p, "cairn resume --agent codex")
	want = "cairn: a handoff from an earlier Claude Code session (2026-03-01 12:00) is at .claude/handoffs/2026-03-01-1200-2.md; it is about: Implement the CSV export for BILL-482. If this session continues that work, read it before continuing: `cairn resume --agent codex` prints it."
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if client, session := Origin(p); client != "claude-code" || session != "sess-9" {
		t.Errorf("Origin = %q, %q; want claude-code, sess-9", client, session)
	}
	if got := PointerText(dir, filepath.Join(dir, "gone.md"), "cairn resume"); !strings.Contains(got, " is at gone.md.") {
		t.Errorf("missing file: %s", got)
	}
}

func TestIsSpec(t *testing.T) {
	for path, want := range map[string]bool{
		"docs/architecture.md":                    true,
		".claude/specs/current/SPEC-ANV-123.md":   true,
		"plans/2026-q1.md":                        true,
		"design-notes.md":                         true,
		"RFC-0012.txt":                            true,
		"notes/DesignDoc.md":                      true,
		"rfc0012.md":                              true,
		"README.md":                               false,
		"CLAUDE.md":                               false,
		"docs/CLAUDE.md":                          false,
		"internal/export/spec.go":                 false,
		"web/api.spec.ts":                         false,
		"inspect.md":                              false,
		"docs/diagram.png":                        false,
		"/abs/path/to/project/docs/continuity.md": true,
	} {
		if got := isSpec(path); got != want {
			t.Errorf("isSpec(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestYAMLScalar(t *testing.T) {
	for v, want := range map[string]string{
		"":                     `""`,
		"feat/BILL-482-export": "feat/BILL-482-export",
		"2026-03-01":           "2026-03-01",
		"12:00":                `"12:00"`,
		"BILL-482, ANV-7":      "BILL-482, ANV-7",
		"yes":                  `"yes"`,
		"123":                  `"123"`,
		"#tag":                 `"#tag"`,
		"a: b":                 `"a: b"`,
		"-x":                   `"-x"`,
		`say "hi"`:             `"say \"hi\""`,
		"line\nbreak":          `"line\nbreak"`,
	} {
		if got := yamlScalar(v); got != want {
			t.Errorf("yamlScalar(%q) = %s, want %s", v, got, want)
		}
	}
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{"go test": "`go test`", "echo `date`": "`` echo `date` ``", "a``b": "``` a``b ```"} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %s, want %s", in, got, want)
		}
	}
}
