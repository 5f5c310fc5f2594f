package checkpoint

import (
	"slices"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/outcome"
	"github.com/cairn-agent/cairn/internal/transcript"
)

func TestFixes(t *testing.T) {
	bash := func(cmd string) step { return step{tool: "Bash", input: map[string]any{"command": cmd}} }
	edit := func(path string) step {
		return step{tool: "Edit", input: map[string]any{"file_path": path, "old_string": "a", "new_string": "b"}}
	}
	fail := func(out string) step { return step{result: "Exit code 2\n" + out, isError: true} }
	ok := step{result: "ok"}
	pass := step{result: "Finished in 0.1 seconds\n5 tests, 0 failures"}
	// mix test's failures, as the real sessions in the fixtures printed them.
	lazy := "  1) test mount renders the page (ReviewTest)\n     test/review_test.exs:35\n     ** (RuntimeError) Phoenix LiveView requires lazy_html as a test dependency.\n\n5 tests, 5 failures"
	secret := "  1) test mount renders the page (ReviewTest)\n     test/review_test.exs:35\n     ** (RuntimeError) no :secret_key_base configuration found in Endpoint\n\n5 tests, 5 failures"

	type want struct {
		message string // part of the error's message
		files   []string
		passed  string
		times   int
	}
	for _, tc := range []struct {
		name  string
		steps []step
		want  []want
	}{
		{
			name: "each failure is fixed by what changed before the next attempt",
			steps: []step{
				{user: "Make the review tests pass."},
				bash("mix test test/review_test.exs"), fail(secret),
				edit("/work/shop/config/test.exs"), ok,
				bash("mix test test/review_test.exs"), fail(lazy),
				edit("/work/shop/mix.exs"), ok,
				bash("mix test test/review_test.exs"), pass,
			},
			want: []want{
				{message: "secret_key_base", files: []string{"config/test.exs"}, passed: "mix test test/review_test.exs"},
				{message: "lazy_html", files: []string{"mix.exs"}, passed: "mix test test/review_test.exs"},
			},
		},
		{
			name: "a rerun that fails the same way is one failure, fixed by all the changes",
			steps: []step{
				{user: "Fix the build."},
				bash("mix test"), fail(lazy),
				edit("/work/shop/lib/a.ex"), ok,
				bash("mix test"), fail(lazy),
				edit("/work/shop/mix.exs"), ok,
				bash("mix test 2>&1 | tail -5"), pass,
			},
			want: []want{{message: "lazy_html", files: []string{"lib/a.ex", "mix.exs"}, passed: "mix test 2>&1 | tail -5", times: 1}},
		},
		{
			name: "not fixed: no files, nothing passed",
			steps: []step{
				{user: "Fix the build."},
				bash("mix test"), fail(lazy),
				edit("/work/shop/lib/a.ex"), ok,
			},
			want: []want{{message: "lazy_html"}},
		},
		{
			name: "another command passing fixes nothing",
			steps: []step{
				{user: "Push it."},
				bash("git push"), {result: "Exit code 128\nfatal: The current branch x has no upstream branch.", isError: true},
				bash("mix test"), pass,
				bash("git push --set-upstream origin x"), ok,
			},
			want: []want{{message: "no upstream branch", passed: "git push --set-upstream origin x"}},
		},
		{
			name: "an edit that failed is fixed by the next edit of the file",
			steps: []step{
				{user: "Rename it."},
				edit("/work/shop/lib/a.ex"), {result: "<tool_use_error>String to replace not found in file.</tool_use_error>", isError: true},
				edit("/work/shop/lib/a.ex"), ok,
			},
			want: []want{{message: "String to replace not found", files: []string{"lib/a.ex"}, passed: "Edit /work/shop/lib/a.ex"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Fixes(build(t, tc.steps), strings.ToUpper)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d fixes, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				f := got[i]
				// Everything went through the redaction function.
				if !strings.Contains(f.Error.Message, strings.ToUpper(w.message)) {
					t.Errorf("fix %d: message %q, want it to hold %q", i, f.Error.Message, w.message)
				}
				var files []string
				for _, p := range w.files {
					files = append(files, strings.ToUpper(p))
				}
				if !slices.Equal(f.Files, files) {
					t.Errorf("fix %d: files %q, want %q", i, f.Files, files)
				}
				if f.Passed != strings.ToUpper(w.passed) || f.Error.Resolved != (w.passed != "") {
					t.Errorf("fix %d: passed %q resolved %t, want %q", i, f.Passed, f.Error.Resolved, w.passed)
				}
				if f.Error.Times != w.times {
					t.Errorf("fix %d: times %d, want %d", i, f.Error.Times, w.times)
				}
				if f.Time.IsZero() || f.Passed != "" && !f.PassedAt.After(f.Time) {
					t.Errorf("fix %d: times %v → %v", i, f.Time, f.PassedAt)
				}
			}
		})
	}
}

// A command that exits with the code the user asked for is no error: the
// user named it in a prompt, or answered the agent's question about it
// with it. Another code, a question answered otherwise, or a wish stated
// after the run leave the error as it is.
func TestWantedExit(t *testing.T) {
	three := 3
	run := func(line int) transcript.ToolCall {
		o := outcome.Judge("./sync.sh --dry-run", "planned 12 changes\n", &three)
		return transcript.ToolCall{Name: "Bash", Command: "./sync.sh --dry-run", ExitCode: &three, Done: true, IsError: true, Outcome: &o, Line: line}
	}
	const ask = "Should a dry run that finds changes end with status 3, so cron mails the diff?"
	tests := []struct {
		name  string
		said  []lined
		asked []lined
		error bool
	}{
		{name: "the prompt wants that code", said: []lined{{"make the dry run exit 3 when it would change something", 5}}},
		{name: "the user answered the question with it", said: []lined{{"3", 5}}, asked: []lined{{ask, 4}}},
		{name: "another code wanted", said: []lined{{"the dry run should exit 2 when it would change something", 5}}, error: true},
		{name: "the answer was no", said: []lined{{"no, keep 0", 5}}, asked: []lined{{ask, 4}}, error: true},
		{name: "the wish came after the run", said: []lined{{"the dry run should exit 3 anyway", 15}}, error: true},
		{name: "a number that is no exit code", said: []lined{{"sync the 3 mirrors", 5}}, error: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es := toolErrors(wantedExits([]transcript.ToolCall{run(10)}, tt.said, tt.asked), "/p", nil, &Memo{})
			if got := len(es) > 0; got != tt.error {
				t.Errorf("error shown = %v, want %v (%+v)", got, tt.error, es)
			}
		})
	}
}
