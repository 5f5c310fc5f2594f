package checkpoint

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/golden"
	"github.com/cairn-agent/cairn/internal/outcome"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/git"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/transcript"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// sessionLines writes a transcript from (role, payload) steps and reads it.
type step struct {
	user    string // a prompt
	text    string // assistant text
	tool    string // assistant tool call: name
	input   any
	result  string // tool result for the call before
	isError bool
	tokens  int
}

func build(t *testing.T, steps []step) *transcript.Session {
	t.Helper()
	var lines []string
	ts := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	n := 0
	line := func(v map[string]any) {
		n++
		v["timestamp"] = ts.Add(time.Duration(n) * time.Minute).Format(time.RFC3339Nano)
		v["cwd"] = "/work/shop"
		v["sessionId"] = "sess-1"
		v["gitBranch"] = "feat/BILL-482-export"
		v["isSidechain"] = false
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	lastID := ""
	for i, s := range steps {
		usage := map[string]any{"input_tokens": 10, "cache_read_input_tokens": 1000 + 500*i}
		switch {
		case s.user != "":
			line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": s.user}})
		case s.text != "":
			line(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("m%d", i), "model": "claude-opus-4-6", "role": "assistant",
				"content": []any{map[string]any{"type": "text", "text": s.text}}, "usage": usage}})
		case s.tool != "":
			lastID = fmt.Sprintf("toolu_%d", i)
			line(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("m%d", i), "model": "claude-opus-4-6", "role": "assistant",
				"content": []any{map[string]any{"type": "tool_use", "id": lastID, "name": s.tool, "input": s.input}}, "usage": usage}})
		case s.result != "":
			line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": lastID, "content": s.result, "is_error": s.isError}}}})
		}
	}
	path := filepath.Join(t.TempDir(), "sess-1.jsonl")
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	sess := transcript.New(path)
	var p transcript.Parser
	if _, err := sess.Update(&p); err != nil {
		t.Fatal(err)
	}
	return sess
}

// planted is a session with one of each fact a checkpoint must keep.
func planted(t *testing.T) *transcript.Session {
	return build(t, []step{
		{user: "Implement the CSV export for BILL-482. Never touch the migrations folder. Use pnpm, not npm."},
		{text: "I'll look at the export package first."},
		{tool: "Read", input: map[string]any{"file_path": "/work/shop/internal/export/export.go"}},
		{result: "package export"},
		{tool: "TodoWrite", input: map[string]any{"todos": []any{
			map[string]any{"content": "Write the CSV encoder", "status": "completed", "activeForm": "Writing"},
			map[string]any{"content": "Add export tests", "status": "in_progress", "activeForm": "Adding"},
			map[string]any{"content": "Document the export flag", "status": "pending", "activeForm": "Documenting"},
		}}},
		{result: "Todos have been modified successfully"},
		{tool: "Write", input: map[string]any{"file_path": "/work/shop/internal/export/csv.go", "content": "package export"}},
		{result: "File created successfully"},
		{text: "I'll use encoding/csv rather than hand-written quoting because it handles embedded newlines."},
		{tool: "Bash", input: map[string]any{"command": "go test ./internal/export/...", "description": "Run export tests"}},
		{result: "Exit code 1\n--- FAIL: TestCSVQuotes\n    csv_test.go:31: got \"a,b\" want \"\\\"a,b\\\"\"", isError: true},
		{tool: "Edit", input: map[string]any{"file_path": "/work/shop/internal/export/csv.go", "old_string": "a", "new_string": "b"}},
		{result: "The file has been updated"},
		{tool: "Bash", input: map[string]any{"command": "go test ./internal/export/...", "description": "Run export tests"}},
		{result: "ok  shop/internal/export 0.01s"},
		{tool: "Bash", input: map[string]any{"command": "make lint", "description": "Lint"}},
		{result: "Exit code 2\nexport.go:12: exported func Export should have comment", isError: true},
		{user: "also make sure the header row is always written, even for empty exports. The API token is sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		{text: "Understood.\n\nNext steps:\n1. Fix the lint warning in export.go\n2. Write the empty-export test\n3. Update docs/export.md"},
	})
}

func input() Input {
	return Input{
		Project: "/work/shop", Trigger: "precompact-auto", Now: time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC),
		Reading: meter.Reading{Tokens: 167094, Window: 200000, Threshold: 167000, PctWindow: 83.5},
		Git: &git.Status{Branch: "feat/BILL-482-export", Head: "1a2b3c4d5e6f", DiffStat: "2 files changed, 40 insertions(+)",
			Changes: []git.Change{{Path: ".claude/", Code: "??"}, {Path: "internal/export/csv.go", Code: "??"},
				{Path: "internal/export/export.go", Code: ".M"}, {Path: ".project/compacts/20260301_110000-autocompact.md", Code: "??"}}},
		Redact: func(s string) string {
			return regexp.MustCompile(`sk-ant-[A-Za-z0-9-]+`).ReplaceAllString(s, "[REDACTED:anthropic-key]")
		},
	}
}

func TestBuildPlanted(t *testing.T) {
	c := Build(planted(t), input())
	// Issue 9: what the tooling writes in the project is not the work.
	if got := c.Git.Changes; len(got) != 2 || got[0].Path != "internal/export/csv.go" || got[1].Path != "internal/export/export.go" {
		t.Errorf("uncommitted changes %v", got)
	}
	if got := c.Task.Tickets; !cmp.Equal(got, []string{"BILL-482"}) {
		t.Errorf("tickets %v", got)
	}
	if !strings.HasPrefix(c.Task.First, "Implement the CSV export for BILL-482") {
		t.Errorf("first %q", c.Task.First)
	}
	wantConstraints := []string{
		"Never touch the migrations folder.",
		"Use pnpm, not npm.",
		"also make sure the header row is always written, even for empty exports.",
	}
	if diff := cmp.Diff(wantConstraints, c.Constraints); diff != "" {
		t.Errorf("constraints (-want +got):\n%s", diff)
	}
	if open := c.OpenTodos(); len(open) != 2 || open[0].Content != "Add export tests" {
		t.Errorf("open todos %+v", open)
	}
	if len(c.Files) != 1 || c.Files[0].Path != "internal/export/csv.go" || !c.Files[0].Created || c.Files[0].Edits != 1 {
		t.Errorf("files %+v", c.Files)
	}
	if !cmp.Equal(c.KeyReads, []string{"internal/export/export.go"}) {
		t.Errorf("key reads %v", c.KeyReads)
	}
	if len(c.Errors) != 2 || !c.Errors[0].Resolved || c.Errors[1].Resolved || c.Errors[1].Subject != "make lint" {
		t.Errorf("errors %+v", c.Errors)
	}
	if len(c.Commands) != 2 || c.Commands[0].Runs != 2 || *c.Commands[0].ExitCode != 0 || *c.Commands[1].ExitCode != 2 {
		t.Errorf("commands %+v", c.Commands)
	}
	if len(c.Decisions) != 1 || !strings.Contains(c.Decisions[0], "encoding/csv rather than hand-written quoting because") {
		t.Errorf("decisions %v", c.Decisions)
	}
	if diff := cmp.Diff([]string{"Fix the lint warning in export.go", "Write the empty-export test", "Update docs/export.md"}, c.NextSteps); diff != "" {
		t.Errorf("next steps (-want +got):\n%s", diff)
	}
	js, _ := json.Marshal(c)
	if strings.Contains(string(js), "sk-ant-api03") {
		t.Error("the secret survived into the checkpoint")
	}
}

func TestRenderings(t *testing.T) {
	c := Build(planted(t), input())
	c.ID = 7
	golden.Check(t, filepath.Join("testdata", "planted.md"), c.Markdown())
	restore := c.Restore(Compaction{Trigger: "auto", PreTokens: 167094, PostTokens: 9120}, DefaultRestoreBudget)
	golden.Check(t, filepath.Join("testdata", "planted-restore.md"), restore)
	steer := c.Steer()
	golden.Check(t, filepath.Join("testdata", "planted-steer.txt"), steer)
	if Tokens(restore) > DefaultRestoreBudget || Tokens(steer) > SteerBudget {
		t.Errorf("restore %d tokens, steer %d tokens", Tokens(restore), Tokens(steer))
	}
	// Every planted fact is in the restore.
	for _, fact := range []string{"BILL-482", "Never touch the migrations folder", "Use pnpm, not npm", "header row is always written",
		"Add export tests", "csv.go", "go test ./internal/export/...", "make lint", "exit 2", "encoding/csv rather than",
		"Fix the lint warning", "feat/BILL-482-export", "cairn show checkpoint 7", "Continue with the task"} {
		if !strings.Contains(restore, fact) {
			t.Errorf("restore lacks %q", fact)
		}
	}
	for _, fact := range []string{"BILL-482", "Never touch the migrations folder", "Add export tests", "csv.go", "make lint", "encoding/csv"} {
		if !strings.Contains(steer, fact) {
			t.Errorf("steer lacks %q", fact)
		}
	}
}

func TestRestoreBudgetShrinksLowPriorityFirst(t *testing.T) {
	c := Build(planted(t), input())
	for i := 0; i < 40; i++ {
		c.Files = append(c.Files, File{Path: fmt.Sprintf("/work/shop/generated/file%02d.go", i), Edits: 1})
		c.Decisions = append(c.Decisions, fmt.Sprintf("Decision %d: keep going because reason number %d matters a lot for the design.", i, i))
	}
	for _, budget := range []int{1500, 600, 300} {
		r := c.Restore(Compaction{Trigger: "auto"}, budget)
		if Tokens(r) > budget {
			t.Errorf("budget %d: restore is %d tokens", budget, Tokens(r))
		}
		if !strings.Contains(r, "BILL-482") || !strings.Contains(r, "Continue with the task") {
			t.Errorf("budget %d: the task or the pointer went first:\n%s", budget, r)
		}
	}
	r := c.Restore(Compaction{Trigger: "auto"}, 1500)
	if !strings.Contains(r, "Never touch the migrations folder") {
		t.Error("constraints dropped before decisions and files")
	}
	if strings.Contains(r, "Decision 0:") {
		t.Error("the oldest decisions should go first")
	}
}

// fixtureCheckpoint is the checkpoint built from a real session just
// before its compaction.
type fixtureCheckpoint struct {
	fx fixtures.Compaction
	c  Checkpoint
}

// fixtureCheckpoints builds the checkpoint of every real compaction in
// the fixtures, as PreCompact would.
func fixtureCheckpoints(t *testing.T) []fixtureCheckpoint {
	t.Helper()
	dir, err := fixtures.Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var out []fixtureCheckpoint
	for _, fx := range fixtures.Compactions {
		s := transcript.New(filepath.Join(dir, fx.Session+".jsonl"))
		var p transcript.Parser
		if _, err := s.Update(&p); err != nil {
			t.Fatal(err)
		}
		out = append(out, fixtureCheckpoint{fx, Build(s, Input{Project: "/p", Trigger: "precompact-auto", Now: time.Now()})})
	}
	return out
}

// Real sessions: the restore and the steering text fit their budgets and
// keep the task.
func TestRealSessions(t *testing.T) {
	for _, fc := range fixtureCheckpoints(t) {
		fx, c := fc.fx, fc.c
		r := c.Restore(Compaction{Trigger: fx.Trigger, PreTokens: fx.PreTokens}, DefaultRestoreBudget)
		if Tokens(r) > DefaultRestoreBudget || !strings.Contains(r, "Asked first") {
			t.Errorf("%s: restore %d tokens:\n%s", fx.Session[:8], Tokens(r), r)
		}
		if st := c.Steer(); Tokens(st) > SteerBudget {
			t.Errorf("%s: steer %d tokens", fx.Session[:8], Tokens(st))
		}
		if len(c.Task.Tickets) == 0 {
			t.Errorf("%s: no bead id found (prompts: %q)", fx.Session[:8], c.Task.First)
		}
	}
}

// Issue 16: a test run piped into tail that printed failures is an error,
// shown as failed, not "exit 0"; it is resolved only by a later run of the
// same work that passed by its output too.
func TestPipedFailure(t *testing.T) {
	bash := func(cmd string) step {
		return step{tool: "Bash", input: map[string]any{"command": cmd}}
	}
	failing := "  1) test export writes the header (ExportTest)\n     test/export_test.exs:31\n     Assertion with == failed\n\nFinished in 0.4 seconds\n297 tests, 11 failures"
	c := Build(build(t, []step{
		{user: "Make the export tests pass."},
		bash("mix test --seed 0 2>&1 | tail -30"),
		{result: failing},
		bash("git status | head"), // another command that exits 0
		{result: "On branch main"},
	}), input())
	if len(c.Errors) != 1 || c.Errors[0].Resolved || !strings.Contains(c.Errors[0].Message, "11 failures") || !strings.Contains(c.Errors[0].Message, "test/export_test.exs:31") {
		t.Fatalf("errors %+v", c.Errors)
	}
	r := c.Restore(Compaction{Trigger: "auto"}, 1500)
	if !strings.Contains(r, "`mix test --seed 0 2>&1 | tail -30` → exit status hidden by the pipe; output says 297 tests, 11 failures") {
		t.Errorf("restore:\n%s", r)
	}
	if strings.Contains(r, "tail -30` → exit 0") {
		t.Errorf("a failed run called exit 0:\n%s", r)
	}

	c = Build(build(t, []step{
		{user: "Make the export tests pass."},
		bash("mix test 2>&1 | tail -30"),
		{result: failing},
		bash("mix test test/export_test.exs 2>&1 | tail -5"),
		{result: "Finished in 0.1 seconds\n12 tests, 0 failures"},
	}), input())
	if len(c.Errors) != 1 || !c.Errors[0].Resolved {
		t.Errorf("a later passing run of the same work does not resolve it: %+v", c.Errors)
	}

	// A passing run of another part of the suite fixes nothing.
	c = Build(build(t, []step{
		{user: "Run the app's tests."},
		bash("./manage.py test contacts"),
		{result: "Exit code 1\nFAIL: test_merge (contacts.tests.test_dedupe.DedupeTests)\n  File \"contacts/tests/test_dedupe.py\", line 58\nAssertionError: 'Ann' != 'Ann Lee'\n\nRan 31 tests in 0.4s\n\nFAILED (failures=1)", isError: true},
		bash("./manage.py test contacts.tests.test_exports"),
		{result: "Ran 5 tests in 0.1s\n\nOK"},
	}), input())
	if len(c.Errors) != 1 || c.Errors[0].Resolved {
		t.Errorf("a passing run of another part resolves the suite's failure: %+v", c.Errors)
	}

	// Nor when the failed run's output names that part among those that
	// passed: where it failed is in its failing lines.
	c = Build(build(t, []step{
		{user: "Run the whole suite."},
		bash("bundle exec rspec 2>&1 | tail -14"),
		{result: "spec/checkout/gift_card_applier_spec.rb ....\nFailures:\n  1) Checkout::ReceiptFormatter uses a decimal comma for German receipts\n\n212 examples, 1 failure\n\nFailed examples:\n\nrspec ./spec/checkout/receipt_formatter_spec.rb:4 # Checkout::ReceiptFormatter uses a decimal comma"},
		bash("bundle exec rspec spec/checkout/gift_card_applier_spec.rb"),
		{result: "7 examples, 0 failures"},
	}), input())
	if len(c.Errors) != 1 || c.Errors[0].Resolved {
		t.Errorf("a passing run of a part the failed output only names resolves the suite's failure: %+v", c.Errors)
	}
	c = Build(build(t, []step{
		{user: "Run the whole suite."},
		bash("bundle exec rspec"),
		{result: "Exit code 1\nspec/checkout/gift_card_applier_spec.rb ....\nFailures:\n  1) Checkout::ReceiptFormatter uses a decimal comma\n\n212 examples, 1 failure\n\nFailed examples:\n\nrspec ./spec/checkout/receipt_formatter_spec.rb:4 # Checkout::ReceiptFormatter uses a decimal comma", isError: true},
		bash("bundle exec rspec spec/checkout/gift_card_applier_spec.rb"),
		{result: "7 examples, 0 failures"},
	}), input())
	if len(c.Errors) != 1 || c.Errors[0].Resolved {
		t.Errorf("unpiped, a passing run of a part the failed output only names resolves the suite's failure: %+v", c.Errors)
	}
}

// Issue 9: what was left open turns before the end reaches the restore,
// right after the task; what was done since is not shown as open, and a
// secret in an item is taken out.
func TestOpenThread(t *testing.T) {
	c := Build(build(t, []step{
		{user: "Port the billing module to the new API."},
		{text: "I ported the invoice client. Remaining: update the webhook handler, then rotate the token ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5 in CI."},
		{text: "Should the retries stay at 3, or follow the new API's limit?"},
		{user: "keep 3"},
		{tool: "Write", input: map[string]any{"file_path": "/work/shop/billing/client.go", "content": "package billing"}},
		{result: "File created successfully"},
		{text: "I have not fixed the flaky TestRefund yet; I left it for later."},
		{text: "Done with the client."},
		{text: "ok"},
	}), input())
	r := c.Restore(Compaction{Trigger: "auto"}, 1500)
	for _, want := range []string{"## Open items", "webhook handler", "TestRefund"} {
		if !strings.Contains(r, want) {
			t.Errorf("restore lacks %q:\n%s", want, r)
		}
	}
	if strings.Contains(r, "ghp_") {
		t.Errorf("restore leaks the token:\n%s", r)
	}
	if strings.Index(r, "## Open items") > strings.Index(r, "## User constraints") && strings.Contains(r, "## User constraints") {
		t.Errorf("open items not right after the task:\n%s", r)
	}
	var answered bool
	for _, o := range c.Closed {
		answered = answered || (o.Kind == "question" && strings.Contains(o.Evidence, "keep 3"))
	}
	if !answered {
		t.Errorf("the answered question is not closed with the answer: %+v", c.Closed)
	}
}

// TestEnded: a command's line says how it ended by its outcome where the
// exit code would mislead: a tool's run, a failure, and a run whose status
// a pipe hid with an error line in its output; else by the exit code.
func TestEnded(t *testing.T) {
	zero := 0
	for _, tt := range []struct {
		command, output, want string
	}{
		{"./ops/migrate.sh --dry-run 2>&1 | tee dry.log", "ERROR:  canceling statement due to lock timeout\n", "exit status hidden by the pipe; output shows an error: ERROR:  canceling statement due to lock timeout"},
		{"ls -la | head -3", "total 8\n", "exit 0"},
		{"./scripts/e2e.sh 2>&1 | tail -3", "done\n", "exit status hidden by the pipe"},
		// A program Judge does not know, whose exit status is its verdict
		// (a comparison that found differences), piped into a filter.
		{"h5diff --delta=1e-9 run/a.h5 golden/a.h5 | tail -2", "37 differences found\n", "exit status hidden by the pipe"},
		{"./bin/compare-snapshots old/ new/ 2>&1 | head -20", "snapshot users.json: 2 fields differ\n", "exit status hidden by the pipe"},
		{"git log --oneline | head -5", "a1b2c3 fix\n", "exit 0"},
		{"make smoke || true", "done\n", "exit status hidden by ||; output does not say"},
		{"go test ./... 2>&1 | tail -3", "ok  \tx\t0.1s\n", "exit status hidden by the pipe; output shows no failure"},
	} {
		o := outcome.Judge(tt.command, tt.output, &zero)
		c := Command{Command: tt.command, ExitCode: &zero, Outcome: &o}
		if got := c.Ended(); got != tt.want {
			t.Errorf("%s: Ended() = %q, want %q", tt.command, got, tt.want)
		}
	}
}

// TestHistory: a command run more than once says how its runs went, not
// only the last exit code: "exit 0 (2 runs)" would hide the first run's
// failure.
func TestHistory(t *testing.T) {
	run := func(cmd, result string, isError bool) []step {
		return []step{{tool: "Bash", input: map[string]any{"command": cmd}}, {result: result, isError: isError}}
	}
	for _, tt := range []struct {
		name  string
		steps [][]step
		want  string
	}{
		{"failed then passed", [][]step{
			run("go test ./...", "Exit code 1\n--- FAIL: TestX (0.00s)\n    x_test.go:3: bad\nFAIL\nFAIL\tp\t0.1s", true),
			run("go test ./...", "ok  \tp\t0.1s", false),
		}, "`go test ./...` → exit 1, then exit 0"},
		{"failed twice then passed twice", [][]step{
			run("make", "Exit code 2\nmake: *** [all] Error 1", true),
			run("make", "Exit code 2\nmake: *** [all] Error 1", true),
			run("make", "done", false),
			run("make", "done", false),
		}, "`make` → exit 2 (2 runs), then exit 0 (2 runs)"},
		{"the same every time", [][]step{
			run("ls", "a", false),
			run("ls", "a", false),
		}, "`ls` → exit 0 (2 runs)"},
		{"a pipe hid the failure", [][]step{
			run("pytest 2>&1 | tail -3", "FAILED tests/a.py::test_b - assert 1 == 2\n1 failed, 3 passed in 0.1s", false),
			run("pytest 2>&1 | tail -3", "4 passed in 0.1s", false),
		}, "`pytest 2>&1 | tail -3` → failed, then exit status hidden by the pipe; output says 4 passed"},
		{"a pipe hid the status of a script that does not say", [][]step{
			run("./run-suite.sh 2>&1 | tail -3", "suite done", false),
			run("./run-suite.sh 2>&1 | tail -3", "suite done", false),
		}, "`./run-suite.sh 2>&1 | tail -3` → exit status hidden by the pipe (2 runs)"},
		{"a pipe hid the status of a data command", [][]step{
			run("git log --oneline | head -3", "a1 x", false),
			run("git log --oneline | head -3", "a1 x", false),
		}, "`git log --oneline | head -3` → exit 0 (2 runs)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var steps []step
			steps = append(steps, step{user: "go"})
			for _, s := range tt.steps {
				steps = append(steps, s...)
			}
			c := Build(build(t, steps), input())
			if len(c.Commands) != 1 {
				t.Fatalf("commands %+v", c.Commands)
			}
			if got := commandLine(c.Commands[0]); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// A request or question in the middle of a long first prompt is cut from
// the quote of the prompt: it is listed among the open items instead; a
// question the user left for later and the assistant answered turns
// after is listed with the answer.
func TestRestoreShowsWhatTheQuoteCuts(t *testing.T) {
	long := "Some context first, sorry this is long. " + strings.Repeat("The nightly build broke after the bump and the release depends on it. ", 6) +
		"And could we finally drop the MSVC workaround in geo/tiles/portable.h?"
	c := Checkpoint{SessionID: "s",
		Task: Task{First: long, Latest: []string{"Now run the tests"}},
		Open: []OpenItem{
			{Text: "And could we finally drop the MSVC workaround in geo/tiles/portable.h?", Kind: "request", By: "user"},
			{Text: "Now run the tests", Kind: "request", By: "user"},
		},
		Answers: []Answer{{Question: "does anything still call EncodeLegacy()?", Answer: "only services/tiler/legacy_routes.cc does", By: "user"}},
	}
	r := c.Restore(Compaction{Trigger: "auto"}, DefaultRestoreBudget)
	if !strings.Contains(r, "- (the user asked) And could we finally drop the MSVC workaround in geo/tiles/portable.h?") {
		t.Errorf("the request cut from the quote is not an open item:\n%s", r)
	}
	if strings.Contains(r, "- (the user asked) Now run the tests") {
		t.Errorf("a request the quote shows whole is listed again:\n%s", r)
	}
	if !strings.Contains(r, "the user asked “does anything still call EncodeLegacy()?” → you found: “only services/tiler/legacy_routes.cc does”") {
		t.Errorf("the answered question is missing:\n%s", r)
	}
}

// A fixed error carries what the agent reported of its fix right after
// the run that passed (Error.Fix), and the restore shows that statement
// with the error, once; a statement about something else, or one after
// more changes, is not its fix.
func TestFixOfError(t *testing.T) {
	bash := func(cmd string) step { return step{tool: "Bash", input: map[string]any{"command": cmd}} }
	edit := step{tool: "Edit", input: map[string]any{"file_path": "/work/shop/contacts/models.py", "old_string": "a", "new_string": "b"}}
	failing := step{result: "Exit code 1\ndjango.db.utils.IntegrityError: null value in column \"last_name\" violates not-null constraint", isError: true}
	fixed := "Fixed: `last_name` now has `default=\"\"` in `contacts/models.py`, so the column is never null and migrate applies."
	tests := []struct {
		name  string
		after []step
		fix   string
	}{
		{name: "reported after a check", after: []step{bash("./manage.py test contacts.tests.test_split"), {result: "Ran 9 tests\n\nOK"}, {text: fixed}}, fix: fixed},
		{name: "about something else", after: []step{{text: "The export module still writes 3 columns in the header row."}}},
		{name: "after more work", after: []step{edit, {result: "The file has been updated"}, {text: fixed}}},
		{name: "after the user spoke", after: []step{{user: "and now?"}, {text: fixed}}},
		// A question asked at the end of the report leans on the
		// sentence before it, which sets it up: that is no fix.
		{name: "the premise of the next question", after: []step{bash("./manage.py test contacts.tests.test_split"), {result: "Ran 9 tests\n\nOK"},
			{text: "All 9 pass. Before I go on: `contacts/models.py` declares `last_name` as a CharField, the migration adds it as a TextField. Which of the two should win?"}}},
		{name: "a report, then a question of its own", after: []step{bash("./manage.py test contacts.tests.test_split"), {result: "Ran 9 tests\n\nOK"},
			{text: fixed + " Want me to add a regression test for the null case?"}}, fix: fixed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps := []step{{user: "Split the name column."}, bash("./manage.py migrate contacts"), failing, edit, {result: "The file has been updated"},
				bash("./manage.py migrate contacts"), {result: "Applying contacts.0015... OK"}}
			c := Build(build(t, append(steps, tt.after...)), input())
			if len(c.Errors) != 1 || !c.Errors[0].Resolved {
				t.Fatalf("errors %+v", c.Errors)
			}
			if c.Errors[0].Fix != tt.fix {
				t.Errorf("fix %q, want %q", c.Errors[0].Fix, tt.fix)
			}
			r := c.Restore(Compaction{Trigger: "auto"}, 1500)
			if tt.fix == "" {
				return
			}
			findings := ""
			if i := strings.Index(r, "## Findings"); i >= 0 {
				findings, _, _ = strings.Cut(r[i:], "\n\n")
			}
			if strings.Contains(findings, "`last_name` now has") || !strings.Contains(r, "violates not-null constraint; then: "+tt.fix) {
				t.Errorf("the fix is not shown with its error, or again among the findings:\n%s", r)
			}
		})
	}
}

// A build that fails on one error, is changed, and then fails further on
// (compile, then link, then the image's size) fixed the first: only the
// error it stops on now is unresolved. An error that comes back after the
// change, on a line the edit moved, is not fixed.
func TestErrorGotPast(t *testing.T) {
	bash := func(cmd string) step { return step{tool: "Bash", input: map[string]any{"command": cmd}} }
	edit := func(p string) step {
		return step{tool: "Edit", input: map[string]any{"file_path": "/work/shop/" + p, "old_string": "a", "new_string": "b"}}
	}
	updated := step{result: "The file has been updated"}
	cmd := "cmake --build --preset release"
	compile := step{result: "Exit code 1\nsrc/sensors.c:8:12: error: implicit declaration of function 'read_legacy'", isError: true}
	moved := step{result: "Exit code 1\nsrc/sensors.c:10:12: error: implicit declaration of function 'read_legacy'", isError: true}
	overflow := step{result: "Exit code 1\n/usr/bin/ld: region `FLASH' overflowed by 1184 bytes\ncollect2: error: ld returned 1 exit status", isError: true}
	tests := []struct {
		name       string
		steps      []step
		unresolved []string
	}{
		{name: "further after a change", steps: []step{bash(cmd), compile, edit("src/sensors.c"), updated, bash(cmd), overflow},
			unresolved: []string{"overflowed by 1184 bytes"}},
		{name: "the same error, moved by the edit", steps: []step{bash(cmd), compile, edit("src/sensors.c"), updated, bash(cmd), moved},
			unresolved: []string{"src/sensors.c:8:12", "src/sensors.c:10:12"}},
		{name: "nothing changed in between", steps: []step{bash(cmd), compile, bash(cmd), overflow},
			unresolved: []string{"read_legacy", "overflowed by 1184 bytes"}},
		// The build tool's own closing line comes back with every failure;
		// the located error it closes does not.
		{name: "further, with the tool's summary line each time", steps: []step{
			bash("stack build"), {result: "Exit code 1\nsrc/Pay/Fee.hs:41:9: error: Variable not in scope: roundFee\nError: [S-7282] Stack failed to build.", isError: true},
			edit("src/Pay/Fee.hs"), updated,
			bash("stack build"), {result: "Exit code 1\nsrc/Pay/Invoice.hs:12:1: error: Non-exhaustive patterns in renderLine\nError: [S-7282] Stack failed to build.", isError: true}},
			unresolved: []string{"src/Pay/Invoice.hs:12:1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Build(build(t, append([]step{{user: "get the release build green"}}, tt.steps...)), input())
			var open []string
			for _, e := range c.Unresolved() {
				open = append(open, e.Message)
			}
			if len(open) != len(tt.unresolved) {
				t.Fatalf("unresolved %q, want %q", open, tt.unresolved)
			}
			for i, want := range tt.unresolved {
				if !strings.Contains(open[i], want) {
					t.Errorf("unresolved %q, want %q", open, tt.unresolved)
				}
			}
		})
	}
}

// A constraint said at the end of a long prompt is a repeat of the
// prompt's quote while the quote shows it; once the budget clips the quote
// before it, the constraint is shown on its own. Under a budget that
// clips nothing it is still shown once.
func TestConstraintTheClipCuts(t *testing.T) {
	prompt := "great. could you check on staging that the table name isn't already taken? conn string is " +
		"postgresql://orders_app:[REDACTED:password]@staging-db.internal:5432/orders (and pls don't bump spring boot while you're in the pom, we're pinned to 3.2.x by the platform team)"
	constraint := "conn string is postgresql://orders_app:[REDACTED:password]@staging-db.internal:5432/orders (and pls don't bump spring boot while you're in the pom, we're pinned to 3.2.x by the platform team)"
	c := Checkpoint{SessionID: "s",
		Task:        Task{First: "ORD-1442: a transactional outbox for order events", Latest: []string{prompt, "ok, go on"}},
		Constraints: []string{constraint},
	}
	for i := range 80 {
		c.Findings = append(c.Findings, fmt.Sprintf("Finding %d: the publisher polls table_%d every %d ms and the replica lag is %d s.", i, i, 100*i, i))
	}
	for _, budget := range []int{DefaultRestoreBudget, 20000} {
		r := c.Restore(Compaction{Trigger: "auto"}, budget)
		if n := strings.Count(r, "pinned to 3.2.x"); n != 1 {
			t.Errorf("budget %d: the constraint is shown %d times, want once:\n%s", budget, n, r)
		}
	}
}

// A file written and then removed with rm is listed as such, not as
// created: the restore would point the model at a file that is gone. One
// written again after the rm is there.
func TestFileRemoved(t *testing.T) {
	write := step{tool: "Write", input: map[string]any{"file_path": "/work/shop/db/V7__outbox.sql", "content": "create table"}}
	written := step{result: "File created successfully"}
	rm := step{tool: "Bash", input: map[string]any{"command": "rm db/V7__outbox.sql"}}
	tests := []struct {
		name  string
		steps []step
		want  string
	}{
		{name: "written, then removed", steps: []step{write, written, rm, {result: ""}}, want: "db/V7__outbox.sql (created, then deleted)"},
		{name: "removed, then written again", steps: []step{write, written, rm, {result: ""}, write, written}, want: "db/V7__outbox.sql (created, 2 writes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Build(build(t, append([]step{{user: "add the outbox table"}}, tt.steps...)), input())
			if len(c.Files) != 1 || fileLine(c.Files[0]) != tt.want {
				t.Errorf("files %+v, want %q", c.Files, tt.want)
			}
		})
	}
}

// The user's question in the latest request is what the model answers
// next: it is not listed again as an open question. One asked in an
// earlier prompt and not answered is.
func TestLatestQuestionNotOpen(t *testing.T) {
	c := Checkpoint{SessionID: "s",
		Task: Task{First: "SUB-2207: customers are charged twice", Latest: []string{"does the webhook also double-charge?", "back! where were we?"}},
		Open: []OpenItem{
			{Text: "does the webhook also double-charge?", Kind: "question", By: "user"},
			{Text: "back! where were we?", Kind: "question", By: "user"},
		},
	}
	r := c.Restore(Compaction{Trigger: "auto"}, DefaultRestoreBudget)
	if strings.Contains(r, "(the user's open question) back! where were we?") {
		t.Errorf("the latest request is listed as an open question:\n%s", r)
	}
	if !strings.Contains(r, "(the user's open question) does the webhook also double-charge?") {
		t.Errorf("an earlier open question is missing:\n%s", r)
	}
}

// TestListedQuestionsAnsweredInTurn: three listed questions answered one
// prompt at a time pair each answer with its own question, and a later
// prompt that takes back one answer by naming it is shown with that
// answer only, not with another whose question shares a word with it.
func TestListedQuestionsAnsweredInTurn(t *testing.T) {
	c := Build(build(t, []step{
		{user: "Get the docs site ready for the 2.4 release."},
		{text: "Strict build is clean. Questions before the versioning items:\n1. Version the site with mike?\n2. Which alias should be the default?\n3. Keep the 1.x docs online?"},
		{user: "yes"},
		{text: "mike it is. Default alias?"},
		{user: "latest"},
		{text: "Default alias: latest. And the 1.x docs?"},
		{user: "drop"},
		{text: "2.4 is deployed under latest, and latest is the default."},
		{user: "wait, actually don't drop 1.x yet, support ends in March. keep it deployed but hide it from the version selector"},
		{text: "1.x stays deployed and is hidden from the selector."},
	}), input())
	got := map[string]Answer{}
	for _, a := range c.Answers {
		got[a.Question] = a
	}
	want := []struct{ question, answer string }{
		{"Version the site with mike?", "yes"},
		{"Which alias should be the default?", "latest"},
		{"Keep the 1.x docs online?", "drop"},
	}
	for _, w := range want {
		var a Answer
		for q, x := range got {
			if strings.Contains(q, w.question) {
				a = x
			}
		}
		if a.Answer != w.answer {
			t.Errorf("%q answered %q, want %q (answers: %+v)", w.question, a.Answer, w.answer, c.Answers)
		}
		if revised := a.Revised != ""; revised != (w.answer == "drop") {
			t.Errorf("%q revised by %q", w.question, a.Revised)
		}
	}
}

func TestComputed(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"With three €10.00 items and a €25.00 card, each share is 8.3333…, which rounds to 8.33, and 3 × 8.33 = 24.99, so one cent is never taken off the card.", true},
		{"12 * 40ms = 480ms of waiting per request.", true},
		{"0.1+0.2 = 0.30000000000000004 in Float.", true},
		{"Set retries = 3 in the config.", false},
		{"The spec has 6 examples, 0 failures.", false},
		{"x = y + 1 in the loop", false},
	} {
		if got := computed(tt.s); got != tt.want {
			t.Errorf("computed(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

// TestFiguresOutliveProse: under a tight budget a finding that works
// figures out stays while prose findings and older decisions go.
func TestFiguresOutliveProse(t *testing.T) {
	c := Build(planted(t), input())
	c.Findings = append([]string{"With three €10.00 items and a €25.00 card each share rounds to 8.33, and 3 × 8.33 = 24.99, so one cent is never taken off the card."}, c.Findings...)
	for i := 0; i < 12; i++ {
		c.Findings = append(c.Findings, fmt.Sprintf("Finding %d: the applier module reads the card balance in step %d before the order total.", i, i))
		c.Decisions = append(c.Decisions, fmt.Sprintf("Decision %d: keep going because reason number %d matters a lot for the design.", i, i))
	}
	r := c.Restore(Compaction{Trigger: "auto"}, 450)
	if !strings.Contains(r, "3 × 8.33 = 24.99") {
		t.Errorf("the worked-out figure went:\n%s", r)
	}
	if strings.Contains(r, "Finding 0:") {
		t.Errorf("prose findings kept before the figure:\n%s", r)
	}
}

// TestDropped: what a /compact's instructions tell the summary to leave
// out, as content words; focusing, keeping and vague words drop nothing.
func TestDropped(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want [][]string
	}{
		{"focus on what's left, drop the telescope part", [][]string{{"telescope"}}},
		{"keep the EXPLAIN findings and what's left", nil},
		{"focus on the todo list and what's left", nil},
		{"don't keep the uuid v7 idea and skip the flaky login test", [][]string{{"uuid"}, {"flaky", "login", "test"}}},
		{"leave out the CI history", nil},
		{"focus on where we are with the checkout thing, skip the back and forth", [][]string{{"back", "forth"}}},
		{"drop the telescope part and the harpoon notes", [][]string{{"telescope"}, {"harpoon", "notes"}}},
		{"", nil},
	} {
		if got := dropped(tt.in); !cmp.Equal(got, tt.want) {
			t.Errorf("dropped(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestFiguresBeyondTwo: the last two worked-out figures get their section;
// earlier ones stay among the findings, not dropped, when the budget has
// room.
func TestFiguresBeyondTwo(t *testing.T) {
	c := Build(planted(t), input())
	for _, f := range []string{
		"Batch one: 4 × 250 = 1000 rows, so the import fits in one transaction.",
		"Batch two: 12 × 80 = 960 ms, so the timeout of 1 s is just enough.",
		"Batch three: 3 × 8.33 = 24.99, so one cent stays on the card.",
	} {
		c.Findings = append(c.Findings, f)
	}
	r := c.Restore(Compaction{Trigger: "auto"}, 4000)
	for _, want := range []string{"4 × 250 = 1000", "12 × 80 = 960", "3 × 8.33 = 24.99"} {
		if !strings.Contains(r, want) {
			t.Errorf("%q went:\n%s", want, r)
		}
	}
}

// TestInstructionsWhere: a /compact's instructions are in the full
// checkpoint and a later session's resume, not in the steering nor the
// restore, where the client already carries them.
func TestInstructionsWhere(t *testing.T) {
	c := Build(planted(t), input())
	c.Instructions = "keep both tickets"
	const want = "At /compact the user asked: “keep both tickets”"
	for name, got := range map[string]string{"markdown": c.Markdown(), "resume": c.Resume(4000)} {
		if !strings.Contains(got, want) {
			t.Errorf("%s lacks the instructions:\n%s", name, got)
		}
	}
	for name, got := range map[string]string{"steering": c.Steer(), "restore": c.Restore(Compaction{Trigger: "manual", Steered: true}, 1500)} {
		if strings.Contains(got, "At /compact") {
			t.Errorf("%s repeats the instructions:\n%s", name, got)
		}
	}
}

// A subagent whose report is mostly the findings already listed is named,
// not quoted again; one whose report says more keeps its excerpt.
func TestFoundIn(t *testing.T) {
	findings := []string{
		"All 5,511 missing rows have created_at between 01:00 and 01:59 UTC on 2026-11-01.",
		"extract_orders is fine: its counts match the source.",
	}
	for _, tt := range []struct {
		report string
		want   bool
	}{
		{"All 5,511 missing rows have created_at between 01:00 and 01:59 UTC on 2026-11-01. extract_orders is fine: its counts match the source.", true},
		{"Looked at three DAGs. All 5,511 missing rows have created_at between 01:00 and 01:59 UTC on 2026-11-01. The loader retries twice, the extractor paginates by id, and the warehouse role lacks nothing.", false},
		{"Nothing found in the loader.", false},
	} {
		if got := foundIn(tt.report, findings); got != tt.want {
			t.Errorf("foundIn(%q) = %v, want %v", tt.report, got, tt.want)
		}
	}
}

// A traceback pasted into a prompt: the quote keeps the error it reports,
// not the frames a Python traceback prints first.
func TestPastedTrace(t *testing.T) {
	var frames strings.Builder
	for i := range 8 {
		fmt.Fprintf(&frames, "  File \"/srv/app/.venv/lib/python3.12/site-packages/lib%d/mod.py\", line %d, in call\n    return self.inner(*args, **kwargs)\n", i, 100+i)
	}
	prompt := "Staging blows up on every call to the orders list:\n\n```\nTraceback (most recent call last):\n" + frames.String() +
		"sqlalchemy.exc.ProgrammingError: (psycopg.errors.UndefinedColumn) column orders.fulfilled_at does not exist\n```\n\nCan you find out why?"
	for _, at := range []string{"first", "later"} {
		steps := []step{{user: prompt}, {user: "ok"}}
		if at == "later" {
			steps = []step{{user: "Look at the orders API."}, {user: prompt}, {user: "ok"}}
		}
		c := Build(build(t, steps), input())
		r := c.Restore(Compaction{Trigger: "auto"}, DefaultRestoreBudget)
		if !strings.Contains(r, "column orders.fulfilled_at does not exist") {
			t.Errorf("%s prompt: the pasted error is lost:\n%s", at, r)
		}
		if strings.Contains(r, "lib3/mod.py") {
			t.Errorf("%s prompt: the library frames are quoted:\n%s", at, r)
		}
	}
}

// TestDeferredTicket: a ticket named only as where work is put off to is
// not the work's ticket; one named for the work stays, also in a prompt
// that defers another part.
func TestDeferredTicket(t *testing.T) {
	tests := []struct {
		name    string
		prompts []string
		want    []string
	}{
		{"only deferred", []string{"Fix the off-by-one in the pager now. The caching layer is a separate change, that's PAY-310's job."}, nil},
		{"the work's and a follow-up", []string{"PAY-12: the pager skips the last page. The cache goes in a follow-up (PAY-310), not this one."}, []string{"PAY-12"}},
		{"put off for later", []string{"park the metrics question in OPS-9 for later", "then fix OPS-4 please"}, []string{"OPS-4"}},
		{"named again for the work", []string{"the export bug is a separate ticket, DATA-77", "actually let's do DATA-77 right now"}, []string{"DATA-77"}},
		{"named beside the clause that defers", []string{"Work on WEB-8 please.", "Skip the avif part! It has its own issue, WEB-31, keep it out of here."}, []string{"WEB-8"}},
		{"filed for what is left", []string{"SRE-5 first", "leave the flaky retry test alone, I filed SRE-77 for that. carry on"}, []string{"SRE-5"}},
		{"a clause after that does not point back", []string{"the docs are a separate change, and fix SRE-90 now"}, []string{"SRE-90"}},
		{"a ticket whose clause leaves something as it is", []string{"API-7: leave the old route in place and add the new one beside it"}, []string{"API-7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &transcript.Session{}
			for i, p := range tt.prompts {
				s.Prompts = append(s.Prompts, transcript.Prompt{Text: p, Line: i + 1})
			}
			if got := tickets(s, nil); !cmp.Equal(got, tt.want, cmpopts.EquateEmpty()) {
				t.Errorf("tickets = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSameButQuoted: when the session ran more commands than the list
// holds, the same command with other quoted arguments, ended the same way
// (notes posted to one chat hook), is one line that counts the others, so
// the session's other steps stay in the list; one that ended another way,
// or a command with nothing quoted, stays apart. A list with room keeps
// every command.
func TestSameButQuoted(t *testing.T) {
	run := func(cmd, result string, isError bool) []step {
		return []step{{tool: "Bash", input: map[string]any{"command": cmd}}, {result: result, isError: isError}}
	}
	post := func(msg string) string {
		return `curl -sS -X POST --data '{"msg":"` + msg + `"}' https://chat.example.test/hooks/ops`
	}
	head := [][]step{
		run("vault write -f auth/token/rotate", "rotated", false),
		run(post("rotating the token"), "ok", false),
		run(post("token rotated"), "ok", false),
		run("make smoke", "Exit code 2\nsmoke: 1 failed", true),
		run(post("smoke failing"), "Exit code 22\ncurl: (22) 500", true),
		run(post("smoke fixed"), "ok", false),
	}
	headLines := []string{
		"`vault write -f auth/token/rotate` → exit 0",
		"`" + post("rotating the token") + "` → exit 0",
		"`" + post("token rotated") + "` → exit 0",
		"`make smoke` → exit 2",
		"`" + post("smoke failing") + "` → exit 22",
		"`" + post("smoke fixed") + "` → exit 0",
	}
	merged := []string{
		"`vault write -f auth/token/rotate` → exit 0",
		"`make smoke` → exit 2",
		"`" + post("smoke failing") + "` → exit 22",
		"`" + post("smoke fixed") + "` → exit 0 (2 earlier runs with other quoted arguments, ended the same)",
	}
	for _, tt := range []struct {
		name string
		more int
		want []string
	}{
		{"room for all", 2, headLines},
		{"more than the list holds", 6, merged},
	} {
		t.Run(tt.name, func(t *testing.T) {
			steps := []step{{user: "rotate the api token and keep #ops posted"}}
			for _, s := range head {
				steps = append(steps, s...)
			}
			want := slices.Clone(tt.want)
			for k := 1; k <= tt.more; k++ {
				cmd := fmt.Sprintf("make smoke SHARD=%d", k)
				steps = append(steps, run(cmd, "done", false)...)
				want = append(want, "`"+cmd+"` → exit 0")
			}
			c := Build(build(t, steps), input())
			var got []string
			for _, cm := range c.Commands {
				got = append(got, commandLine(cm))
			}
			if !slices.Equal(got, want) {
				t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestTicketsTyped: a key the user typed in lower case is the work's
// ticket once the agent writes it as a key (its commit); another party's
// ticket ("they have OPS-881 for it, not ours", "blocked on SEC-12") is
// not.
func TestTicketsTyped(t *testing.T) {
	c := Build(build(t, []step{
		{user: "pay-412. the refund rounding is off by a cent on partial refunds, fix it in refunds/round.go"},
		{tool: "Bash", input: map[string]any{"command": "git commit -am 'PAY-412: round half to even on partial refunds'", "description": "Commit"}},
		{result: "[main 1a2b3c4] PAY-412: round half to even on partial refunds"},
		{user: "the staging db is the platform team's, they have OPS-881 for it. and publishing is blocked on SEC-12 anyway"},
		{text: "Understood."},
	}), input())
	if got := c.Task.Tickets; !slices.Contains(got, "PAY-412") || slices.Contains(got, "OPS-881") || slices.Contains(got, "SEC-12") {
		t.Errorf("tickets %v, want PAY-412 and neither OPS-881 nor SEC-12", got)
	}
}

// TestOneReplyManyQuestions: a reply that answered several of the agent's
// questions is quoted once, after them all, and a reply that is the latest
// request (quoted in the task) is pointed to rather than quoted again.
func TestOneReplyManyQuestions(t *testing.T) {
	reply := "go with the ring buffer, and keep the 64 KiB cap; the metrics can wait for next week"
	c := Checkpoint{SessionID: "s",
		Task: Task{Latest: []string{"fine, ship the patch to staging first and ping me when it's up; the canary dashboard is the one Ops pinned in the channel"}},
		Answers: []Answer{
			{Question: "Ring buffer or a linked list of chunks?", Answer: reply},
			{Question: "Should the cap stay at 64 KiB?", Answer: reply},
			{Question: "Do you want the metrics in this PR?", Answer: "no"},
			{Question: "Staging or prod first?", Answer: "fine, ship the patch to staging first and ping me when it's up; the canary dashboard is the one Ops pinned in the channel"},
		}}
	r := c.Restore(Compaction{}, DefaultRestoreBudget)
	if n := strings.Count(r, "ring buffer, and keep"); n != 1 {
		t.Errorf("the shared reply is quoted %d times:\n%s", n, r)
	}
	if !strings.Contains(r, "“Ring buffer or a linked list of chunks?”; “Should the cap stay at 64 KiB?” → the user: “go with the ring buffer") {
		t.Errorf("the two questions are not listed before their one reply:\n%s", r)
	}
	if !strings.Contains(r, "“Do you want the metrics in this PR?” → the user: “no”") {
		t.Errorf("another answer was merged:\n%s", r)
	}
	if !strings.Contains(r, "“Staging or prod first?” → the user: the latest request, above") || strings.Count(r, "ping me when it's up") != 1 {
		t.Errorf("the latest request is quoted again as an answer:\n%s", r)
	}
	c.Task.Latest = []string{"no"}
	if r := c.Restore(Compaction{}, DefaultRestoreBudget); !strings.Contains(r, "“Do you want the metrics in this PR?” → the user: “no”") {
		t.Errorf("a short answer that is the latest request is not quoted beside its question:\n%s", r)
	}
}

// TestErrorLineAbsent: a command that failed because its program or make
// target is not there is "not available", not an unresolved failure of
// the work; a run that failed on its own is still unresolved, and one
// that passed later is fixed.
func TestErrorLineAbsent(t *testing.T) {
	for _, tt := range []struct {
		e    Error
		want string
	}{
		{Error{Tool: "Bash", Subject: "just lint", Message: "exit 127: bash: line 1: just: command not found"}, "not available (Bash `just lint`)"},
		{Error{Tool: "Bash", Subject: "make bench", Message: "exit 2: make: *** No rule to make target 'bench'.  Stop."}, "not available (Bash `make bench`)"},
		{Error{Tool: "Bash", Subject: "make check", Message: "exit 2: cc: error: unknown type name 'sizet'"}, "unresolved (Bash `make check`)"},
		{Error{Tool: "Bash", Subject: "tox -e py312", Message: "exit 127: tox: command not found", Resolved: true}, "fixed later (Bash `tox -e py312`)"},
		{Error{Tool: "Read", Subject: "docs/command not found.md", Message: "File does not exist. command not found"}, "unresolved (Read docs/command not found.md)"},
	} {
		if got := errorLine(tt.e); !strings.HasPrefix(got, tt.want) {
			t.Errorf("errorLine(%+v) = %q, want it to start %q", tt.e, got, tt.want)
		}
	}
}
