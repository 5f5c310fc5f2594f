package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/capture"
	"github.com/cairn-agent/cairn/internal/claudecode"
)

const reviewMemory = `# Memory: Short session

## Summary
A short session about the fixtures.

## Goal
See how cairn reads a short session.

## Learnings
- It works

## Open Questions / Issues
- None yet

## Confidence Level
Medium — a fixture, not a real task

## Key Files
- README.md
`

// reviewSetup is a test app with the fixture session "short" and the
// path of its transcript.
func reviewSetup(t *testing.T) (*App, string, string) {
	a, _, _ := testApp(t, "short")
	project, _ := a.Getwd()
	tr := filepath.Join(a.Getenv("CLAUDE_CONFIG_DIR"), "projects", claudecode.ProjectKey(project), "short.jsonl")
	return a, project, tr
}

func TestReviewNothingPending(t *testing.T) {
	a, _, _ := testApp(t)
	out := a.Stdout.(interface{ String() string })
	if err := runCmd("review")(context.Background(), a, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Nothing to review: no pending autocompact capture in") {
		t.Errorf("output: %s", out)
	}
}

// The checklist's default behaviour, multiple pending files, explicit
// path, memory created and metadata updated, through the commands.
func TestReviewCommand(t *testing.T) {
	a, project, tr := reviewSetup(t)
	ctx := context.Background()
	dir := filepath.Join(project, filepath.FromSlash(capture.Dir))
	in := capture.Input{SessionID: "short", Transcript: tr, FirstMessage: "first prompt"}
	var paths []string
	for _, h := range []int{9, 11, 10} {
		in.Now = time.Date(2026, 3, 1, h, 0, 0, 0, time.UTC)
		p, err := capture.Write(dir, in)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	out := a.Stdout.(interface {
		String() string
		Reset()
	})
	if err := runCmd("review")(ctx, a, nil); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"Capture: " + paths[1] + " (pending)",
		"**Status:** pending",
		"# Session digest",
		"cairn review record " + paths[1] + " --memory - <<'CAIRN_MEMORY'",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	// Explicit path, relative to the working directory.
	out.Reset()
	rel, _ := filepath.Rel(project, paths[0])
	if err := runCmd("review")(ctx, a, []string{rel}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Capture: "+paths[0]) {
		t.Errorf("explicit path: %s", out)
	}
	// Record the latest.
	out.Reset()
	a.Stdin = strings.NewReader(reviewMemory)
	if err := runCmd("review")(ctx, a, []string{"record", paths[1], "--memory", "-"}); err != nil {
		t.Fatal(err)
	}
	mem, err := os.ReadFile(capture.MemoryPath(paths[1]))
	if err != nil || !strings.Contains(string(mem), "## Confidence Level\nMedium") {
		t.Fatalf("memory: %s %v", mem, err)
	}
	data, _ := os.ReadFile(paths[1])
	c, _ := capture.Parse(data)
	if c.Status != "reviewed" || c.Summary != "A short session about the fixtures." || c.Memory != "./20260301_110000-memory.md" {
		t.Errorf("capture after record: %+v", c)
	}
	// The next review is the next most recent.
	out.Reset()
	runCmd("review")(ctx, a, nil)
	if !strings.Contains(out.String(), "Capture: "+paths[2]) {
		t.Errorf("after record: %s", out)
	}
}

// The digest comes from the session's stored checkpoint when there is
// one.
func TestReviewUsesCheckpoint(t *testing.T) {
	a, project, tr := reviewSetup(t)
	ctx := context.Background()
	out := a.Stdout.(interface {
		String() string
		Reset()
	})
	if err := runCmd("checkpoint")(ctx, a, []string{"--transcript", tr, "--json"}); err != nil {
		t.Fatal(err)
	}
	var cp struct {
		ID        int64  `json:"id"`
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(out.String()), &cp); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	out.Reset()
	dir := filepath.Join(project, filepath.FromSlash(capture.Dir))
	p, _ := capture.Write(dir, capture.Input{Now: a.Now(), SessionID: cp.SessionID, Transcript: "/gone.jsonl"})
	if err := runCmd("review")(ctx, a, []string{p}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "checkpoint "+itoa(cp.ID)+" (manual,") {
		t.Errorf("digest not from the stored checkpoint:\n%s", out)
	}
	// With no checkpoint and no transcript, the review still prints.
	out.Reset()
	p2, _ := capture.Write(dir, capture.Input{Now: a.Now(), SessionID: "other", Transcript: "/gone.jsonl"})
	if err := runCmd("review")(ctx, a, []string{p2}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "No digest of the session") {
		t.Errorf("no digest: %s", out)
	}
}

func TestReviewRecordIncomplete(t *testing.T) {
	a, project, _ := reviewSetup(t)
	p, _ := capture.Write(filepath.Join(project, ".project", "compacts"), capture.Input{Now: a.Now(), SessionID: "s", Transcript: "/t"})
	a.Stdin = strings.NewReader("# Memory: x\n\n## Goal\nsomething\n")
	err := runCmd("review")(context.Background(), a, []string{"record", p, "--memory", "-"})
	if err == nil || !strings.Contains(err.Error(), "Confidence Level, Summary") {
		t.Errorf("err %v", err)
	}
	if err := runCmd("review")(context.Background(), a, []string{"record", p}); !isUsage(err) {
		t.Errorf("no --memory: %v", err)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
