package capture

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/golden"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/git"
	"github.com/google/go-cmp/cmp"
)

var est = time.FixedZone("EST", -5*3600)

func input(transcript string) Input {
	return Input{
		Now:          time.Date(2025, 12, 25, 8, 15, 0, 0, est),
		SessionID:    "abc123",
		Transcript:   transcript,
		FirstMessage: "Add a CSV export to the billing page.\n\nKeep the columns as they are. My key is sk-ant-api03-" + strings.Repeat("x", 90),
	}
}

func memory() Memory {
	return Memory{
		Title:         "CSV export for billing",
		Summary:       "Added a CSV export to the billing page. The export streams rows.",
		Goal:          "Let users download their invoices as CSV.",
		Learnings:     []string{"The invoice query is paginated by cursor", "pnpm, not npm, runs the tests"},
		OpenQuestions: []string{"Should the export include voided invoices?"},
		Confidence:    "High — the tests cover the export end to end",
		KeyFiles:      []string{"src/billing/export.ts", "src/billing/export.test.ts"},
	}
}

// The checklist's "Metadata file exists", "Filename format correct",
// "Status is pending", "Transcript path is valid", "First message
// captured" and "Session ID present", on a written capture.
func TestWrite(t *testing.T) {
	root := t.TempDir()
	tr := filepath.Join(root, "session.jsonl")
	os.WriteFile(tr, []byte("{}\n"), 0o600)
	dir := filepath.Join(root, ".project", "compacts")
	path, err := Write(dir, input(tr))
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("dir: %v %v", fi, err)
	}
	if ok, _ := regexp.MatchString(`^\d{8}_\d{6}-autocompact\.md$`, filepath.Base(path)); !ok || filepath.Base(path) != "20251225_081500-autocompact.md" {
		t.Errorf("name %q", filepath.Base(path))
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*-autocompact.md")); len(m) != 1 {
		t.Errorf("glob: %v", m)
	}
	data, _ := os.ReadFile(path)
	text := strings.ReplaceAll(string(data), tr, "/home/user/.claude/projects/p/abc123.jsonl")
	golden.Check(t, filepath.Join("testdata", "capture.md"), text)
	if !strings.Contains(string(data), "**Status:** pending\n") || !strings.Contains(string(data), "**Timestamp:** 2025-12-25T08:15:00-05:00\n") {
		t.Errorf("header:\n%s", data)
	}
	if strings.Contains(string(data), "sk-ant-") {
		t.Error("the key was not redacted")
	}
	c, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != StatusPending || c.SessionID != "abc123" || !strings.HasPrefix(c.FirstMessage, "Add a CSV export") {
		t.Errorf("parsed %+v", c)
	}
	if _, err := os.Stat(c.Transcript); err != nil {
		t.Errorf("transcript path %q: %v", c.Transcript, err)
	}
	// The quick check of the seed: the line after the fence is the path.
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if l == "## Transcript" && (lines[i+2] != "```" || lines[i+3] != tr) {
			t.Errorf("transcript block: %q", lines[i:i+5])
		}
	}
}

func TestFirstMessageCut(t *testing.T) {
	in := input("/t.jsonl")
	in.FirstMessage = strings.Repeat("é", 700)
	c, _ := Parse([]byte(Render(in)))
	if got := []rune(c.FirstMessage); len(got) != 503 || string(got[500:]) != "..." {
		t.Errorf("cut to %d runes", len(got))
	}
	in.FirstMessage = "  "
	c, _ = Parse([]byte(Render(in)))
	if !strings.Contains(c.FirstMessage, "no user message") {
		t.Errorf("empty first message: %q", c.FirstMessage)
	}
}

// A capture is never replaced: the same second gets a suffix, the first
// file is unchanged, and no temporary file is left.
func TestWriteNoOverwrite(t *testing.T) {
	dir := t.TempDir()
	in := input("/t.jsonl")
	p1, err := Write(dir, in)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p1, []byte("hand edited\n"), 0o644)
	in.SessionID = "second"
	p2, err := Write(dir, in)
	if err != nil {
		t.Fatal(err)
	}
	p3, _ := Write(dir, in)
	if filepath.Base(p2) != "20251225_081500_2-autocompact.md" || filepath.Base(p3) != "20251225_081500_3-autocompact.md" {
		t.Errorf("names %s %s", p2, p3)
	}
	if data, _ := os.ReadFile(p1); string(data) != "hand edited\n" {
		t.Errorf("first capture replaced: %q", data)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	if MemoryPath(p2) != filepath.Join(dir, "20251225_081500_2-memory.md") {
		t.Errorf("memory path %s", MemoryPath(p2))
	}
}

// The checklist's "Multiple pending files: picks most recent" and "No
// pending files".
func TestPending(t *testing.T) {
	dir := t.TempDir()
	if _, err := Latest(filepath.Join(dir, "missing")); err != ErrNoPending {
		t.Errorf("missing dir: %v", err)
	}
	in := input("/t.jsonl")
	var paths []string
	for _, h := range []int{9, 11, 10} {
		in.Now = time.Date(2025, 12, 25, h, 0, 0, 0, est)
		p, err := Write(dir, in)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	os.WriteFile(filepath.Join(dir, "notes-autocompact.md"), []byte("just notes\n"), 0o644)
	c, err := Latest(dir)
	if err != nil || c.Path != paths[1] {
		t.Fatalf("latest %s, %v; want %s", c.Path, err, paths[1])
	}
	if _, err := Review(paths[1], memory()); err != nil {
		t.Fatal(err)
	}
	cs, _ := Pending(dir)
	if len(cs) != 2 || cs[0].Path != paths[2] || cs[1].Path != paths[0] {
		t.Errorf("pending %v", cs)
	}
	for _, p := range paths {
		Review(p, memory())
	}
	if _, err := Latest(dir); err != ErrNoPending {
		t.Errorf("all reviewed: %v", err)
	}
}

// The checklist's "Memory file created", "Metadata updated" and "Memory
// content complete".
func TestReview(t *testing.T) {
	dir := t.TempDir()
	path, _ := Write(dir, input("/home/user/.claude/projects/p/abc123.jsonl"))
	mp, err := Review(path, memory())
	if err != nil {
		t.Fatal(err)
	}
	if mp != filepath.Join(dir, "20251225_081500-memory.md") {
		t.Errorf("memory at %s", mp)
	}
	mem, _ := os.ReadFile(mp)
	golden.Check(t, filepath.Join("testdata", "memory.md"), string(mem))
	for _, h := range []string{"# Memory: ", "## Goal\n", "## Learnings\n", "## Open Questions / Issues\n", "## Confidence Level\n", "## Key Files\n"} {
		if !strings.Contains(string(mem), h) {
			t.Errorf("memory lacks %q", h)
		}
	}
	data, _ := os.ReadFile(path)
	golden.Check(t, filepath.Join("testdata", "capture-reviewed.md"), string(data))
	c, _ := Parse(data)
	if c.Status != StatusReviewed || c.Summary != memory().Summary || c.Memory != "./20251225_081500-memory.md" {
		t.Errorf("updated capture %+v", c)
	}
	// Reviewing again changes nothing but the content.
	if _, err := Review(path, memory()); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(path); string(again) != string(data) {
		t.Errorf("second review changed the capture:\n%s", again)
	}
	if got := ParseMemory(string(mem)); !cmp.Equal(got, func() Memory { m := memory(); m.Summary = ""; return m }()) {
		t.Errorf("ParseMemory(RenderMemory) = %+v", got)
	}
}

func TestReviewIncomplete(t *testing.T) {
	dir := t.TempDir()
	path, _ := Write(dir, input("/t.jsonl"))
	m := memory()
	m.Goal = ""
	if _, err := Review(path, m); err == nil || !strings.Contains(err.Error(), "Goal") {
		t.Errorf("err %v", err)
	}
	if _, err := os.Stat(MemoryPath(path)); err == nil {
		t.Error("memory written for an incomplete review")
	}
	if c, _ := Latest(dir); c.Path != path {
		t.Error("capture no longer pending")
	}
}

const handEdited = `# Autocompact Capture

Status: Pending
**Session ID:** abc123
**Timestamp:** 2025-12-25T08:15:00-05:00
Tagged by hand: billing

## First Message

> Add a CSV export.
>
> Second paragraph.

## Transcript

` + "```" + `
/tmp/abc123.jsonl
` + "```" + `

## My notes

- The export was half done.
- ## not a heading

## Memory

_Not yet reviewed._

## After

kept too
`

// A hand-edited capture parses, and its review keeps every line it does
// not own.
func TestHandEdited(t *testing.T) {
	c, err := Parse([]byte(handEdited))
	if err != nil {
		t.Fatal(err)
	}
	want := Capture{Status: "pending", Timestamp: "2025-12-25T08:15:00-05:00", Time: time.Date(2025, 12, 25, 13, 15, 0, 0, time.UTC),
		SessionID: "abc123", Transcript: "/tmp/abc123.jsonl", FirstMessage: "Add a CSV export.\n\nSecond paragraph.", Raw: handEdited}
	if diff := cmp.Diff(want, c, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "20251225_081500-autocompact.md")
	os.WriteFile(path, []byte(handEdited), 0o644)
	if _, err := Review(path, memory()); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	golden.Check(t, filepath.Join("testdata", "capture-hand-edited-reviewed.md"), string(data))
	for _, keep := range []string{"Tagged by hand: billing", "## My notes\n\n- The export was half done.", "## After\n\nkept too\n", "> Second paragraph."} {
		if !strings.Contains(string(data), keep) {
			t.Errorf("lost %q", keep)
		}
	}
	if _, err := Parse([]byte("# Just a file\n\nno status\n")); err != ErrNotCapture {
		t.Errorf("not a capture: %v", err)
	}
}

func TestDigest(t *testing.T) {
	zero, one := 0, 1
	c := checkpoint.Checkpoint{
		ID: 7, SessionID: "abc123", Trigger: "precompact-auto", CreatedAt: time.Date(2025, 12, 25, 13, 14, 0, 0, time.UTC), Compactions: 1,
		Git:         &git.Status{Branch: "feat/BILL-482"},
		Task:        checkpoint.Task{First: "Implement the CSV export for BILL-482.", Latest: []string{"a", "b", "c", "now run the tests"}, Tickets: []string{"BILL-482"}},
		Constraints: []string{"Never touch the migrations folder."},
		Todos:       []checkpoint.Todo{{Content: "write tests", Status: "in_progress"}, {Content: "done", Status: "completed"}},
		Files:       []checkpoint.File{{Path: "src/export.ts", Created: true, Edits: 3}, {Path: "old.ts", Deleted: true}},
		KeyReads:    []string{"src/billing.ts"},
		Commands:    []checkpoint.Command{{Command: "pnpm test", ExitCode: &one, Runs: 3}, {Command: "pnpm lint", ExitCode: &zero, Runs: 1}},
		Errors:      []checkpoint.Error{{Tool: "Bash", Subject: "pnpm test", Message: "1 failing", Resolved: true}},
		Decisions:   []string{"Stream rows rather than buffering, to avoid memory spikes."},
		NextSteps:   []string{"Add the download button"},
	}
	golden.Check(t, filepath.Join("testdata", "digest.md"), Digest(c))
	big := c
	big.Files, big.Commands, big.Decisions = nil, nil, nil
	for i := range 500 {
		big.Files = append(big.Files, checkpoint.File{Path: strings.Repeat("d/", 40) + "f" + string(rune('a'+i%26))})
		big.Commands = append(big.Commands, checkpoint.Command{Command: strings.Repeat("echo x ", 60), Runs: 1})
		big.Decisions = append(big.Decisions, strings.Repeat("because ", 80))
	}
	big.Task.First = strings.Repeat("long prompt ", 2000)
	if d := Digest(big); len(d) > maxDigest {
		t.Errorf("digest of %d bytes", len(d))
	}
}

func FuzzParse(f *testing.F) {
	f.Add(Render(input("/t.jsonl")))
	f.Add(handEdited)
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := Parse([]byte(s)); err != nil {
			return
		}
		if r, err := Parse([]byte(reviewed(s, "summary", "x-memory.md"))); err != nil || r.Status != StatusReviewed {
			t.Errorf("reviewed text: %+v %v", r, err)
		}
	})
}
