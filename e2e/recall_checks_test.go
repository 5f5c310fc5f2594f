package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's own checks, on made-up requests and files: no client
// needed. A check that credits a fact it should not, or blames cairn for
// the client's text, would make the report lie.

func TestFactChecks(t *testing.T) {
	piped := pipedFailed("pytest failed", "pytest -q tests/[ `]", `(?i)pytest -q tests/[ `+"`"+`][^\n]{0,200}fail|\b2 failed\b`)
	for _, tc := range []struct {
		name         string
		f            fact
		text         string
		in, contra   bool
		checkedAfter []int // of compactions 1..3
	}{
		{"literal present", lit("ticket", "INV-2291"), "Ticket: INV-2291", true, false, []int{1, 2, 3}},
		{"literal absent", lit("ticket", "INV-2291"), "Ticket: INV-2292", false, false, []int{1, 2, 3}},
		{"every pattern must match", rx("two", "a", "b"), "only a", false, false, []int{1, 2, 3}},
		{"failure told", piped, "- `pytest -q tests/ 2>&1 | tail -20` → 2 failed, 40 passed", true, false, []int{1, 2, 3}},
		{"told as exit 0", piped, "- `pytest -q tests/ 2>&1 | tail -20` → exit 0", false, true, []int{1, 2, 3}},
		{"failure told and contradicted", piped, "2 failed\n- `pytest -q tests/ 2>&1 | tail -20` → exit 0", false, true, []int{1, 2, 3}},
		{"told as succeeded", piped, "`pytest -q tests/` succeeded", false, true, []int{1, 2, 3}},
		{"passed counts are no contradiction", piped, "`pytest -q tests/ 2>&1 | tail -20`: 2 failed, 40 passed", true, false, []int{1, 2, 3}},
		{"from the second compaction", lit("late", "x").from(2), "x", true, false, []int{2, 3}},
		{"until the first", lit("early", "x").until(1), "x", true, false, []int{1}},
		{"second only", lit("mid", "x").from(2).until(2), "x", true, false, []int{2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.f.in(tc.text); got != tc.in {
				t.Errorf("in(%q) = %v, want %v", tc.text, got, tc.in)
			}
			if got := tc.f.contradicted(tc.text); got != tc.contra {
				t.Errorf("contradicted(%q) = %v, want %v", tc.text, got, tc.contra)
			}
			var at []int
			for n := 1; n <= 3; n++ {
				if tc.f.checkedAt(n) {
					at = append(at, n)
				}
			}
			if !slices.Equal(at, tc.checkedAfter) {
				t.Errorf("checked after compactions %v, want %v", at, tc.checkedAfter)
			}
		})
	}
}

// hookBody is a request whose system message joins hook context with the
// client's own paragraphs, as 2.1.328 sends them.
func hookBody(system string) map[string]any {
	return map[string]any{"messages": []any{
		map[string]any{"role": "user", "content": "go on"},
		map[string]any{"role": "system", "content": []any{map[string]any{"type": "text", "text": system}}},
	}}
}

func TestHookTexts(t *testing.T) {
	restore := restoreHeader + "\n\nThis session was just compacted.\n\n## Task\n- Ticket: X-1\n\nFull checkpoint: `cairn show checkpoint 3`. " + restoreEnd
	for _, tc := range []struct {
		name   string
		system string
		want   []string
		other  []string
	}{
		{"advisory then the client's paragraphs",
			"UserPromptSubmit hook additional context: cairn · context L3: wrap up now.\n\nThe following deferred tools are now available via ToolSearch.\nCronCreate\n\nAvailable agent types for the Agent tool:\n- claude",
			[]string{"cairn · context L3: wrap up now."}, []string{"cairn · context L3: wrap up now."}},
		{"restore with blank lines, a note, then the date",
			"# Environment\nYou have been invoked.\n\nYou are powered by the model named Opus 5.5.\n\nSessionStart hook additional context: " + restore + "\n\n\nCompact occurred. Run /compound.\n\nToday's date is 2026-11-24.",
			[]string{restore + "\n\n\nCompact occurred. Run /compound."}, []string{"Compact occurred. Run /compound."}},
		{"two hooks, one naming its tool",
			"PostToolUse:Bash hook additional context: cairn · note one\n\nUserPromptSubmit hook additional context: cairn · note two\n\n<system-reminder>x</system-reminder>",
			[]string{"cairn · note one", "cairn · note two"}, []string{"cairn · note one", "cairn · note two"}},
		{"no hook context", "Today's date is 2026-11-24.", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := hookBody(tc.system)
			if diff := cmp.Diff(tc.want, hookTexts(body)); diff != "" {
				t.Errorf("hookTexts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.other, otherHookText(body)); diff != "" {
				t.Errorf("otherHookText (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequestLeaks(t *testing.T) {
	key := secret{"AWS access key id", "AKIAZ7BENCH4EXAMPLE2"}
	token := secret{"GitHub token", "ghp_B3nchT0ken4RecallScenario0a1b2c3d4e5"}
	private := secret{"<private> span", "hunter2"}
	req := func(seq int, kind fakeapi.Kind, system string) fakeapi.Request {
		return fakeapi.Request{Seq: seq, Kind: kind, Body: hookBody(system)}
	}
	reqs := []fakeapi.Request{
		// Before the compaction the conversation carries everything: not
		// counted for the client, but cairn's own text always is.
		req(1, fakeapi.Main, "the user said "+key.Value+" and "+private.Value),
		req(2, fakeapi.Main, "UserPromptSubmit hook additional context: cairn · saw "+private.Value+"\n\nToday's date is 2026-11-24."),
		req(3, fakeapi.Compaction, "summarise "+key.Value),
		req(4, fakeapi.Main, "SessionStart hook additional context: "+restoreHeader+"\n- `aws --key "+key.Value+"`\n"+restoreEnd+"\n\nToday's date is 2026-11-24. Read .env: "+token.Value),
	}
	cairn, client := requestLeaks(reqs, []secret{key, token, private})
	wantCairn := map[string][]string{key.Value: {"#4 main"}, private.Value: {"#2 main"}}
	wantClient := map[string][]string{token.Value: {"#4 main"}}
	if diff := cmp.Diff(wantCairn, cairn); diff != "" {
		t.Errorf("cairn's leaks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantClient, client); diff != "" {
		t.Errorf("the client's (-want +got):\n%s", diff)
	}
}

func TestScanFiles(t *testing.T) {
	root := t.TempDir()
	sec := secret{"Stripe webhook secret", "whsec_8fKq3LmN0pR7sT2vW5xY9zA1bC4dE6gH"}
	files := map[string]string{
		"state/cairn/sessions/s.body":     `{"prompt":"` + sec.Value + `"}`,
		"data/cairn/cairn.db":             "\x00\x01binary " + sec.Value + " page",
		"project/.claude/handoffs/h.md":   "- `aws ssm put-parameter --value " + sec.Value + "`",
		"project/.env":                    "STRIPE_WEBHOOK_SECRET=" + sec.Value, // the test wrote it
		"project/.git/objects/x":          sec.Value,                            // git's, not scanned
		"project/src/clean.go":            "package src",
		"home/.config/something/settings": "nothing here",
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := scanFiles(root, []string{filepath.Join(root, "home"), filepath.Join(root, "state"), filepath.Join(root, "data"), filepath.Join(root, "missing")},
		filepath.Join(root, "project"), map[string]bool{".env": true}, []secret{sec})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{sec.Value: {"state/cairn/sessions/s.body", "data/cairn/cairn.db", "project/.claude/handoffs/h.md"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scanFiles (-want +got):\n%s", diff)
	}
}

func TestFactClass(t *testing.T) {
	for name, want := range map[string]string{
		"ticket":                                 "task",
		"constraint: pnpm":                       "constraint",
		"piped command: pytest run failed":       "piped test outcome",
		"subagent's piped command: gradle test":  "piped test outcome",
		"subagent finding: the config key":       "subagent finding",
		"open thread: answer, alpha-2":           "open thread",
		"next step 1":                            "open thread",
		"open todo 2":                            "todo",
		"key file read: docs/rounding.md":        "key file read",
		"key file's rule: 0.05":                  "key file read",
		"failed command, exit code":              "command outcome",
		"failure fixed":                          "command outcome",
		"late decision":                          "decision",
		"file edited":                            "file changed",
		"first file":                             "file changed",
		"finding: about 10 minutes of downtime":  "finding",
		"command outcome: the plan":              "command outcome",
		"decision's reason: amount > 0 check":    "decision",
		"open task: Retry-After on 429":          "todo",
		"key file's finding: nothing covers 8.1": "key file read",
	} {
		if got := factClass(name); got != want {
			t.Errorf("factClass(%q) = %q, want %q", name, got, want)
		}
	}
}
