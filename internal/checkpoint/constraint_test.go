package checkpoint

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-agent/cairn/internal/transcript"
)

// A constraint is found wherever it sits in a prompt, in the shapes users
// bind the work with, and kept with its reason; a negation about how
// things are, a question, an idiom is not one.
func TestConstraints(t *testing.T) {
	long := "ok so, context: IOS-2760. the home feed basically hammers the API whenever it gets a 429, it just retries three times instantly, and the backend folks are (rightly) annoyed, " +
		"so I want a proper retry policy in the Networking package, something like exponential backoff with full jitter as in that old AWS architecture blog post, and while you are at it, " +
		"we can't add anything to Package.swift (every new dependency has to go through legal review and that takes weeks), so whatever we do is hand-rolled, thanks a lot!"
	tests := []struct {
		name   string
		prompt string
		want   []string
	}{
		{"a modal negation with we", "also — and this is a hard one — we can't add anything to Package.swift, every new dependency has to go through legal review and that takes weeks, so whatever we do is hand-rolled.",
			[]string{"also — and this is a hard one — we can't add anything to Package.swift, every new dependency has to go through legal review and that takes weeks, so whatever we do is hand-rolled."}},
		{"deep in a long sentence, with its reason", long,
			[]string{"… we can't add anything to Package.swift (every new dependency has to go through legal review and that takes weeks), so whatever we do is hand-rolled, thanks a lot!"}},
		{"an obligation on the work", "the output column is called d28_retained_pct and it has to stay called exactly that.",
			[]string{"the output column is called d28_retained_pct and it has to stay called exactly that."}},
		{"no, keep, leave, only at a clause's start", "no new deps. keep the public API unchanged. leave that test failing, I'll open a ticket. stdlib only, no x/ packages. pnpm only please.",
			[]string{"no new deps.", "keep the public API unchanged.", "leave that test failing, I'll open a ticket.", "stdlib only, no x/ packages.", "pnpm only please."}},
		{"the cue words", "Never touch the migrations folder. Use pnpm, not npm.", []string{"Never touch the migrations folder.", "Use pnpm, not npm."}},
		{"a bound on what the work measures", "And product is super strict that the gzipped .wasm stays under 300 KB. p99 has to remain below 200ms.",
			[]string{"And product is super strict that the gzipped .wasm stays under 300 KB.", "p99 has to remain below 200ms."}},
		{"a measure as it is", "the bundle is under 300 KB now. it stays under the limit.", nil},
		{"how things are", "mix phx.server doesnt seem to start", nil},
		{"a problem, not a rule", "scrolling back in xterm.js still does not work (maybe because outer web catches it)? websearch xterm.js tmux interactions", nil},
		{"idioms", "no answer from joanna yet, let's wait. no rush. Let's keep going. no, the other one.", nil},
		{"the speaker's own", "I can't reproduce it. I have to leave at five.", nil},
		{"a question", "leak = harness only? can we keep it?", nil},
		{"a thing named, then waived", "Do the two bug fixes first. The tooltip wording is bikeshedding, ignore it.",
			[]string{"The tooltip wording is bikeshedding, ignore it."}},
		{"put off, not bound", "not sure, ask Priya. leave that one for now. leave the schema question until the review. and leave the flaky test skipped for now.",
			[]string{"and leave the flaky test skipped for now."}},
		{"an error quoted", "urgent, the nightly importer dies with a 500: \"No such bucket\". and the worker log ends in 'no retries left, giving up'.", nil},
		{"only as a fact", "The CI runner has only 4 GB memory. it's only a one-off. I only changed the tests. no hurry.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := constraints([]transcript.Prompt{{Text: tt.prompt}}, nil)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("constraints (-want +got):\n%s", diff)
			}
			for _, c := range got {
				if len(c) > maxItem {
					t.Errorf("%d bytes: %q", len(c), c)
				}
			}
		})
	}
}

// The latest saying of a constraint is kept, once.
func TestConstraintsOnce(t *testing.T) {
	got, _ := constraints([]transcript.Prompt{{Text: "no new deps."}, {Text: "keep 3"}, {Text: "no new deps."}}, nil)
	if !cmp.Equal(got, []string{"keep 3", "no new deps."}) {
		t.Errorf("constraints = %q", got)
	}
}

// Issue 9: a constraint said deep in a long first prompt, past what the
// task's quote of it keeps, reaches the restore on its own, with its
// reason.
func TestRestoreKeepsDeepConstraint(t *testing.T) {
	prompt := "ok so, context: IOS-2760. the home feed basically hammers the API whenever it gets a 429, it just retries three times instantly, and the backend folks are (rightly) annoyed. " +
		"I want a proper retry policy in the Networking package. I'm thinking exponential backoff with full jitter, like in that old AWS architecture blog post? " +
		"also — and this is a hard one — we can't add anything to Package.swift, every new dependency has to go through legal review and that takes weeks, so whatever we do is hand-rolled."
	c := Build(build(t, []step{
		{user: prompt},
		{text: "Full jitter it is."},
		{tool: "Write", input: map[string]any{"file_path": "/work/shop/Sources/Networking/RetryPolicy.swift", "content": "public struct RetryPolicy {}"}},
		{result: "File created successfully"},
		{user: "cool. hook it into HTTPClient?"},
		{text: "HTTPClient.send now retries 429s through the policy."},
	}), input())
	r := c.Restore(Compaction{Trigger: "manual"}, DefaultRestoreBudget)
	if Tokens(r) > DefaultRestoreBudget {
		t.Fatalf("restore is %d tokens", Tokens(r))
	}
	if !strings.Contains(r, "## User constraints\n- “also — and this is a hard one — we can't add anything to Package.swift, every new dependency has to go through legal review") {
		t.Errorf("the constraint is not in the restore on its own:\n%s", r)
	}
}

// A later prompt that lifts a rule ("Windows doesn't matter anymore")
// takes the rule out; the lifting stands in its place. A sentence that
// names nothing the rules name lifts none.
func TestConstraintLifted(t *testing.T) {
	got, _ := constraints([]transcript.Prompt{
		{Text: "ground rules: no new deps. it has to build on Windows too, so no symlinks in the repo."},
		{Text: "go on"},
		{Text: "oh and actually Windows doesn't matter anymore, we dropped that target last sprint."},
		{Text: "the old flag is fine now too"},
	}, nil)
	want := []string{"ground rules: no new deps.", "oh and actually Windows doesn't matter anymore, we dropped that target last sprint."}
	if !cmp.Equal(got, want) {
		t.Errorf("constraints = %q, want %q", got, want)
	}
}

// A rule lifted in other words ("X is fine from now on, no need to ask")
// leaves the constraints, and the first prompt quoted as the task no
// longer states it.
func TestConstraintLiftedFromNowOn(t *testing.T) {
	first := "Fix the flaky upload retry in sync/upload.go. Rules: never force-push to the shared branch without asking me, and keep the public API as is."
	got, lifted := constraints([]transcript.Prompt{
		{Text: first},
		{Text: "looks good"},
		{Text: "update: force-pushing is okay again from now on, no need to ask each time. the API rule stays."},
	}, nil)
	for _, c := range got {
		if strings.Contains(c, "never force-push") {
			t.Errorf("the lifted rule is still a constraint: %q", got)
		}
	}
	if !slices.ContainsFunc(got, func(c string) bool { return strings.Contains(c, "public API") }) {
		t.Errorf("the rule not lifted went too: %q", got)
	}
	quoted := withoutLifted(first, lifted)
	if strings.Contains(quoted, "never force-push") || !strings.Contains(quoted, "public API") || !strings.Contains(quoted, "since lifted") {
		t.Errorf("the task's quote = %q", quoted)
	}
	if g, _ := constraints([]transcript.Prompt{{Text: "never force-push to main."}, {Text: "the build is fine, thanks"}}, nil); len(g) != 1 {
		t.Errorf("a remark that something is fine lifted a rule: %q", g)
	}
}

// A rule that holds only for a while ("no edits until I've read the
// plan", "don't tag it yet") leaves the constraints once the agent did the
// thing after a later prompt of the user's; before that, or with nothing
// done, it stays, and a standing rule stays whatever was done.
func TestConstraintForNow(t *testing.T) {
	prompts := []transcript.Prompt{
		{Text: "Sketch how you'd split the parser first, no edits until I've read the plan. Never touch vendor/.", Line: 1},
		{Text: "plan looks right, go with the second layout", Line: 10},
	}
	edit := transcript.ToolCall{Name: "Edit", FilePath: "/p/parser/split.go", Line: 12}
	got, lifted := constraints(prompts, []transcript.ToolCall{edit})
	if slices.ContainsFunc(got, func(c string) bool { return strings.Contains(c, "no edits") }) || len(lifted) == 0 {
		t.Errorf("the for-now rule stayed after the edit it held back: %q (lifted %q)", got, lifted)
	}
	if !slices.ContainsFunc(got, func(c string) bool { return strings.Contains(c, "vendor/") }) {
		t.Errorf("the standing rule went: %q", got)
	}
	early := edit
	early.Line = 5 // before the user's go-ahead
	if got, _ := constraints(prompts, []transcript.ToolCall{early}); !slices.ContainsFunc(got, func(c string) bool { return strings.Contains(c, "no edits") }) {
		t.Errorf("an edit before the next prompt lifted the rule: %q", got)
	}
	tagged := []transcript.Prompt{{Text: "don't tag the release yet", Line: 1}, {Text: "ok CI is green", Line: 4}}
	if got, _ := constraints(tagged, []transcript.ToolCall{{Name: "Bash", Command: "git tag v1.4.0 && git push --tags", Line: 6}}); len(got) != 0 {
		t.Errorf("the tag rule stayed after git tag: %q", got)
	}
	if got, _ := constraints(tagged, []transcript.ToolCall{{Name: "Bash", Command: "go test ./...", Line: 6}}); len(got) != 1 {
		t.Errorf("the tag rule went with nothing tagged: %q", got)
	}
	api := []transcript.Prompt{{Text: "don't change the public API yet", Line: 1}, {Text: "go on with the docs", Line: 4}}
	if got, _ := constraints(api, []transcript.ToolCall{{Name: "Edit", FilePath: "/p/docs/usage.md", Line: 6}}); len(got) != 1 {
		t.Errorf("an edit of another file lifted a rule about one thing: %q", got)
	}
	if forNow("never force-push to main") || forNow("we don't ship on Fridays") || !forNow("Don't write code yet.") || !forNow("hold off on the migration until I say so") {
		t.Errorf("forNow misjudged a rule")
	}
}
