package ledger

import (
	"strings"
	"testing"
)

// want is one open item a text should yield: its kind and a piece of its
// text.
type want struct {
	kind Kind
	has  string
}

// TestExtract: what texts written in different styles leave open. These
// cases are written for the ledger, in styles the fixtures do not have
// (terse, chatty, non-native, lower case, headed, checkboxes); they are
// the material its rules were tuned on, with the negative cases beside
// them.
func TestExtract(t *testing.T) {
	tests := []struct {
		name string
		user bool
		text string
		want []want
	}{
		// Labels and headed lists.
		{name: "terse label with then", text: "Remaining: run the migration, then deploy to staging.",
			want: []want{{Task, "run the migration"}, {Task, "deploy to staging"}}},
		{name: "still open label", text: "Still open: whether we keep the v1 endpoint.",
			want: []want{{Task, "keep the v1 endpoint"}}},
		{name: "next label", text: "Next: regenerate the fixtures.", want: []want{{Task, "regenerate the fixtures"}}},
		{name: "an ellipsis between words ends no sentence", text: "Then all replicas publish the same rows. Next step: claim rows with SELECT ... FOR UPDATE SKIP LOCKED in pending(), so each replica takes its own batch.",
			want: []want{{Task, "claim rows with SELECT ... FOR UPDATE SKIP LOCKED"}}},
		{name: "todo label", text: "TODO: remove the debug logging before release.", want: []want{{Task, "debug logging"}}},
		{name: "open question label", text: "Open question: should exports include archived rows?",
			want: []want{{Question, "archived rows"}}},
		{name: "blocker label", text: "Blocker: CI has no access to the staging database.", want: []want{{Problem, "staging database"}}},
		{name: "follow-up label", text: "Follow-up: split the handler into two files.", want: []want{{Deferred, "split the handler"}}},
		{name: "not done yet label", text: "Not done yet: the migration for the orders table.", want: []want{{Task, "orders table"}}},
		// A choice not to do something for now is a decision, not work left.
		{name: "choosing not to, yet", text: "I'm not turning on the write-ahead cache yet, so that the numbers stay comparable with last week's run.", want: nil},
		{name: "not done, yet", text: "I haven't turned on the write-ahead cache yet.", want: []want{{Task, "write-ahead cache"}}},
		{name: "leaving out, with its reason", text: "I'm leaving the `--prune` flag out of the deploy script: the runners pin an old rsync that doesn't know it yet, and an option it can't parse would break every deploy.", want: nil},
		{name: "skipping, with its reason", text: "We are skipping the arm64 image because the base layer isn't published for it yet.", want: nil},
		{name: "leaving for later is put off", text: "I'm leaving the `--prune` flag for later.", want: []want{{Deferred, "--prune"}}},
		{name: "bold heading and bullets", text: "**Still to do**\n- wire the CLI flag\n- update the README",
			want: []want{{Task, "CLI flag"}, {Task, "README"}}},
		{name: "markdown heading and numbers", text: "I finished the parser.\n\n## Next steps\n\n1. Add the header test\n2. Document the `--export` flag",
			want: []want{{Task, "header test"}, {Task, "--export"}}},
		{name: "known issues heading", text: "### Known issues\n- Windows paths with spaces break the watcher",
			want: []want{{Problem, "Windows paths"}}},
		{name: "open questions heading", text: "## Open questions\n1. Do we need a migration for the old rows\n2. Which timezone do reports use",
			want: []want{{Question, "migration"}, {Question, "timezone"}}},
		{name: "later heading", text: "Deferred:\n- retry with backoff\n- metrics", want: []want{{Deferred, "retry"}, {Deferred, "metrics"}}},
		{name: "checkboxes", text: "- [x] parser\n- [ ] exporter\n- [ ] docs for the flag",
			want: []want{{Task, "exporter"}, {Task, "docs"}}},
		{name: "emoji status", text: "Status:\n- ✅ parser\n- ⏳ exporter streaming",
			want: []want{{Task, "exporter streaming"}}},
		{name: "plan intro with a modal", text: "The key changes needed are:\n\n1. A `Cursor` type in cursor.go\n2. Pagination in the list handler",
			want: []want{{Task, "Cursor"}, {Task, "Pagination"}}},
		{name: "plan intro after a future sentence", text: "Now I'll rewrite the renderer. The key changes:\n- drop the 5-line truncation\n- add group metadata",
			want: []want{{Task, "truncation"}, {Task, "group metadata"}}},
		{name: "open heading then intro", text: "### Next Steps\nThe remaining tasks are:\n- ABC-12: streaming export\n- ABC-13: docs",
			want: []want{{Task, "ABC-12"}, {Task, "ABC-13"}}},
		{name: "comma list after label", text: "Left to do: tests, docs and the changelog.",
			want: []want{{Task, "tests"}, {Task, "docs"}, {Task, "changelog"}}},

		// Prose: modality, negation of completion, deferral.
		{name: "not yet", text: "I have not fixed the flaky retry test yet.", want: []want{{Problem, "flaky retry test"}}},
		{name: "not yet, plain", text: "The changelog entry is not written yet.", want: []want{{Task, "changelog entry"}}},
		{name: "still fails after a fix", text: "I fixed the parser. The CSV export still fails on empty files.",
			want: []want{{Problem, "CSV export still fails"}}},
		{name: "but clause", text: "The endpoint works, but pagination is still missing.", want: []want{{Problem, "pagination"}}},
		{name: "left for later", text: "I left the flaky retry test for later.", want: []want{{Deferred, "flaky retry test"}}},
		{name: "chatty deferral", text: "Okay, so I got the parser working end to end, which is great! I left the streaming mode for later though, since it needs the new buffer API.",
			want: []want{{Deferred, "streaming mode"}}},
		{name: "follow-up PR", text: "I'll handle the docs in a follow-up PR.", want: []want{{Deferred, "docs"}}},
		{name: "for now", text: "I hardcoded the port for now.", want: []want{{Deferred, "hardcoded the port"}}},
		{name: "out of scope", text: "Renaming the package is out of scope for this change.", want: []want{{Deferred, "Renaming the package"}}},
		{name: "next sentence", text: "Next, I'll add the retry budget to the client.", want: []want{{Task, "retry budget"}}},
		{name: "except after success", text: "Everything compiles, except the benchmark package.",
			want: []want{{Problem, "benchmark package"}}},
		{name: "failed attempt", text: "Couldn't get the e2e test to pass on arm64.", want: []want{{Problem, "arm64"}}},
		{name: "present negation of working", text: "The watcher doesn't work on network drives.", want: []want{{Problem, "network drives"}}},
		{name: "declined fix", text: "This is a real bug in the importer. But this is not something I should fix in this PR.",
			want: []want{{Deferred, "importer"}}},
		{name: "question ends the text", text: "I implemented the CSV export and the tests pass.\n\nShould I also add an XLSX export?",
			want: []want{{Question, "XLSX"}}},
		{name: "short question borrows the sentence before", text: "The next ticket is ABC-7. Want me to start on it?",
			want: []want{{Task, "ABC-7"}, {Question, "ABC-7"}}},

		// Non-native and lower-case writing.
		{name: "non-native", text: "The export is working now, but the import still have problem with big files. I will do the pagination later.",
			want: []want{{Problem, "import still have problem"}, {Deferred, "pagination"}}},
		{name: "lower case terse", text: "next: bump version. still failing: TestExportCSV on windows.",
			want: []want{{Task, "bump version"}, {Problem, "TestExportCSV"}}},
		{name: "no capitals no punctuation", text: "parser done\nstill need to wire the flag into main",
			want: []want{{Task, "wire the flag"}}},

		// Negative cases.
		{name: "no remaining issues", text: "All tests pass. No remaining issues."},
		{name: "nothing left", text: "There is nothing left to do."},
		{name: "past tense completion with remaining", text: "I fixed the remaining lint warnings and pushed."},
		{name: "plain past tense", text: "I added the export flag, wrote the tests, and updated the README."},
		{name: "summary heading", text: "## Summary\n- Added the flag\n- Fixed the parser\n- Remaining warnings silenced"},
		{name: "no open questions heading", text: "**No open questions.**\n\nEverything is pushed."},
		{name: "question in a code block", text: "Here is the script:\n```sh\n# TODO: still failing?\necho next\n```\nIt runs."},
		{name: "quoted old request", text: "You asked me to \"finish the remaining migrations later\", which I did."},
		{name: "quotation line", text: "> Next: deploy to production\n\nThat was the plan last week; it shipped."},
		{name: "self-answered question", text: "Why does the cache miss? Because the key includes the timestamp. I changed it to use the hash."},
		{name: "question followed by more work", text: "Should I check the other handler? Let me look at the router first.\n\nThe router is fine."},
		{name: "immediate action with remaining", text: "Let me apply the remaining changes now."},
		{name: "transient state then action", text: "The import isn't used yet because I haven't updated the template. Let me update the template now."},
		{name: "progress remark", text: "Still compiling, let me wait."},
		{name: "a problem then fixing it now", text: "The bug: naive timestamps are localised with ambiguous=NaT, so the repeated hour is dropped. Fixing it the way the report suggests: localise as UTC, then convert."},
		{name: "a gerund subject", text: "Renaming the module would break the plugin loader."},
		{name: "now and an imperative is an action", text: "Now update the router to pass the new option, which is still missing there."},
		{name: "dismissed", text: "The only remaining unstaged change is `.mcp.json`, which is unrelated."},
		{name: "not a problem", text: "The warning is not a problem; it comes from a vendored file."},
		{name: "next to", text: "The flag sits next to the other export options."},
		{name: "empty label", text: "Remaining: none."},
		{name: "inline code cues", text: "I renamed `still_pending` to `queued` and `todo()` to `later()`."},

		// User prompts.
		{name: "user request", user: true, text: "Implement the CSV export for BILL-482.", want: []want{{Request, "CSV export"}}},
		{name: "user non-native request", user: true, text: "pls also add test for empty file, i forgot to say before",
			want: []want{{Request, "empty file"}}},
		{name: "user polite request as question", user: true, text: "can you check why the build is red?",
			want: []want{{Request, "build is red"}}},
		{name: "user question", user: true, text: "why does the export skip the header row?", want: []want{{Question, "header row"}}},
		{name: "user problem report", user: true, text: "the login page still crashes when the password is empty",
			want: []want{{Problem, "login page"}}},
		{name: "user problem report, sloppy", user: true, text: "mix phx.server doesnt seem to start",
			want: []want{{Problem, "phx.server"}}},
		{name: "user acknowledgement", user: true, text: "ok"},
		{name: "user constraint only", user: true, text: "never touch the migrations folder"},
		{name: "user pasted code", user: true, text: "here's the error:\n```\nTODO still failing? next\n```"},
		{name: "user pasted settings", user: true, text: "the staging values:\nNEXT_SYNC_WINDOW=15m\nSTILL_PENDING_MAX=40"},
		{name: "snake_case names in prose", text: "The scheduler reads next_retry_at and todo_queue_depth from the same row."},
		{name: "user quoting the summary", user: true, text: "> Next: deploy to staging\n\nthat's from yesterday's notes."},
		{name: "user long prompt", user: true, text: strings.Repeat("Some background about the billing system that matters. ", 6) +
			"Add a retry to the webhook sender. Make sure the header row is always written. Also document the new flag in the README.",
			want: []want{{Request, "retry"}, {Request, "header row"}, {Request, "document the new flag"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []statement
			sts := extract(tt.text, tt.user)
			if tt.user {
				sts = userStatements(new(reader), tt.text)
			}
			for _, st := range sts {
				if !st.done && (!tt.user || hasTerms(st.text) || st.kind == Question) {
					got = append(got, st)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d open items, want %d:\n%s", len(got), len(tt.want), dump(got))
			}
			for i, w := range tt.want {
				if got[i].kind != w.kind || !strings.Contains(got[i].text, w.has) {
					t.Errorf("item %d = %s %q, want %s containing %q", i, got[i].kind, got[i].text, w.kind, w.has)
				}
			}
		})
	}
}

func dump(sts []statement) string {
	var b strings.Builder
	for _, st := range sts {
		b.WriteString("  " + string(st.kind) + ": " + st.text + "\n")
	}
	return b.String()
}

// A label that is a clause reporting what is wrong ("It does not match:")
// heads no list: what follows explains the problem, one item, not pieces.
func TestProblemReportedUnderALabel(t *testing.T) {
	got := extract("This still fails: pg_dump exits 1, 3 tables skipped, schema public locked.", false)
	if len(got) != 1 || got[0].kind != Problem || !strings.Contains(got[0].text, "3 tables skipped") {
		t.Fatalf("want one problem holding the whole explanation, got %+v", got)
	}
	got = extract("Still open: the changelog, the docs and the release notes.", false)
	if len(got) != 3 {
		t.Fatalf("a heading over items still splits them: %+v", got)
	}
}
