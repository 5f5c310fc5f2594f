package memory

import (
	"strings"
	"testing"
)

// A run that reported counts is remembered at its moment, with the calls
// that changed something around it: the count "after X" is findable by X.
// A run without a number in its counts, a failed call and a call that
// only looks are not. What the agent said just before and after the run
// names the moment in its words.
func TestSessionCounts(t *testing.T) {
	bash := func(cmd, desc string) step {
		return step{tool: "Bash", input: map[string]any{"command": cmd, "description": desc}}
	}
	s := session(t, t.TempDir(), []step{
		{user: "Do BILL-7."},
		bash("bd update BILL-7 --status=in_progress", "Claim BILL-7"),
		{result: "Updated"},
		{tool: "Edit", input: map[string]any{"file_path": "/work/shop/lib/export.ex", "old_string": "a", "new_string": "b"}},
		{result: "The file has been updated"},
		bash("ls lib", ""),
		{result: "export.ex"},
		{text: "The regression tests for the export are written; running the suite."},
		bash("mix test 2>&1", "Full test suite"),
		{result: "Finished in 0.4 seconds\n14 doctests, 87 tests, 0 failures"},
		{text: "87 tests (was 80), all passing."},
		bash("mix credo --strict", "Lint"),
		{result: "Analysis took 0.1 seconds\nfound no issues."},
		bash("bd close BILL-7 --reason=\"CSV export done\"", "Close BILL-7"),
		{result: "Closed"},
		bash("git push", "Push"),
		{result: "Everything up-to-date"},
	})
	obs := sessionCounts(Observation{Project: "/work/shop", SessionID: "sess-1"}, s, tailOf(s, maxEditScan))
	if len(obs) != 1 {
		t.Fatalf("%d count observations, want 1: %+v", len(obs), obs)
	}
	o := obs[0]
	if o.Kind != KindCount || !strings.HasPrefix(o.Title, "14 doctests, 87 tests, 0 failures: `mix test 2>&1` passed") {
		t.Errorf("kind %q, title %q", o.Kind, o.Title)
	}
	for _, want := range []string{"(Full test suite)",
		"\nBefore, the agent said: The regression tests for the export are written; running the suite.\n",
		"\nAfter, the agent said: 87 tests (was 80), all passing.\n", "After: Claim BILL-7: `bd update BILL-7 --status=in_progress`; edited export.ex\n",
		"Then: Lint: `mix credo --strict`; Close BILL-7: `bd close BILL-7 --reason=\"CSV export done\"`; Push: `git push`\n"} {
		if !strings.Contains(o.Body, want) {
			t.Errorf("no %q in body:\n%s", want, o.Body)
		}
	}
	if strings.Contains(o.Body, "ls lib") {
		t.Errorf("a call that only looks in the body:\n%s", o.Body)
	}
	if o.replace {
		t.Error("a count with its calls after it all seen is replaced by a later checkpoint")
	}
}
