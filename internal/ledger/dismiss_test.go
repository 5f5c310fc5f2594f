package ledger

import (
	"strings"
	"testing"
)

// TestWaives: a sentence that names a thing and then dismisses it asks
// for no work; one that asks for work before dismissing another does.
func TestWaives(t *testing.T) {
	tests := []struct {
		sentence string
		want     bool
	}{
		{"The tooltip wording is bikeshedding, ignore it.", true},
		{"Logging in the hot loop — leave it as is", true},
		{"The changelog entry, skip that for now.", true},
		{"Fix the header, skip the footer.", false},
		{"Update the README, then skip it in the release notes.", false},
		{"Skip it.", false}, // nothing named before it: an answer, not a waiver
		{"The retry count is wrong, it should be 5.", false},
		{"The migration is slow, take it from there.", false},
	}
	for _, tt := range tests {
		t.Run(tt.sentence, func(t *testing.T) {
			if got := waives(tt.sentence); got != tt.want {
				t.Errorf("waives = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestTakenBack: a prompt that opens a sentence by undoing what came
// before takes it back; one that declines or asks for more does not.
func TestTakenBack(t *testing.T) {
	tests := []struct {
		prompt string
		want   bool
	}{
		{"hmm no. scratch that, the cron job has to keep its old name", true},
		{"actually revert it, ops relies on the old output", true},
		{"oh wait, take those out again", true},
		{"never mind, the old way was fine", true},
		{"roll that back please", true},
		{"skip it", false},  // declines an offer
		{"leave it", false}, // likewise
		{"take it from there", false},
		{"remove the debug prints and run the tests", false},
		{"great. now the README", false},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			if got := TakenBack(tt.prompt) != ""; got != tt.want {
				t.Errorf("TakenBack = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDismissedNotOpen: a waived thing in a long prompt is no open item,
// and a request the next prompt takes back closes; a prompt that answers
// the reply's question takes nothing back.
func TestDismissedNotOpen(t *testing.T) {
	long := "The review came back with four comments. Move the retry loop out of the handler, it hides timeouts. " +
		"Add a test for the empty batch. Refactor of parse.go is a matter of taste, ignore it. " +
		"And the question about metrics can wait until the next sprint, we'll see what the dashboards say once the new consumer has run for a week in production."
	l := run([]step{{"u", long}})
	for _, it := range l.Open() {
		if strings.Contains(it.Text, "ignore it") {
			t.Errorf("waived thing open: %q", it.Text)
		}
	}
	if len(l.Open()) == 0 {
		t.Errorf("the prompt's requests are lost")
	}

	l = run([]step{
		{"u", "also write the audit rows to a second table"},
		{"a", "Looking at where `audit.go` writes its rows first."},
		{"u", "hmm no, scratch that, one table is enough"},
	})
	for _, it := range l.Open() {
		if strings.Contains(it.Text, "second table") {
			t.Errorf("taken-back request still open: %q", it.Text)
		}
	}

	l = run([]step{
		{"u", "also write the audit rows to a second table"},
		{"a", "Should the second table also get the deleted rows?"},
		{"u", "drop those"},
	})
	found := false
	for _, it := range l.Open() {
		found = found || strings.Contains(it.Text, "second table") && it.By == ByUser
	}
	if !found {
		t.Errorf("an answer to the reply's question took back the request: %+v", l.Items)
	}
}

// TestAskedOfSomeoneElse: a question the assistant puts to a third
// person is not answered by the user's next, unrelated prompt; one put
// to the user is.
func TestAskedOfSomeoneElse(t *testing.T) {
	tests := []struct {
		name     string
		reply    string
		answered bool
	}{
		{"a question for her, after a colon", "The billing team owns the exporter. I'll keep it as a question for her: should refunds count as negative revenue?", false},
		{"for a named person to decide", "That one is for Tomasz to decide, so I'll note it: should refunds count as negative revenue?", false},
		{"checked with a team", "I'll check with the finance team first: should refunds count as negative revenue?", false},
		{"a label that puts it to a team", "Done. Open question for the data team: should refunds count as negative revenue?", false},
		{"a question to the user", "Before I change the exporter: should refunds count as negative revenue?", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := run([]step{{"u", "add refunds to the monthly export"}, {"a", tt.reply}, {"u", "ok. how long does the export take to run these days?"}})
			for _, it := range l.Items {
				if it.Kind != Question || it.By != ByAssistant {
					continue
				}
				if got := it.Closed != nil && it.Closed.By == ClosedByAnswer; got != tt.answered {
					t.Errorf("answered = %v, want %v (%+v)", got, tt.answered, it.Closed)
				}
				return
			}
			t.Errorf("no question kept: %+v", l.Items)
		})
	}
	// Put to "her", the question keeps the sentence that says who she is.
	l := run([]step{{"a", "That is Mona's call, she owns the exporter. I'll keep it as a question for her: should refunds count as negative revenue?"}})
	if open := l.Open(); len(open) != 1 || !strings.HasPrefix(open[0].Text, "That is Mona's call") {
		t.Errorf("open %+v", open)
	}
}

// TestInquiryDone: a request to find out that names nothing of its own
// ("could you dig in?") is done once its prompt got a reply with
// substance and the user spoke again; not when the reply asked back, and
// not a request that also asks for a change.
func TestInquiryDone(t *testing.T) {
	const found = "The export job skips rows whose `updated_at` is NULL: 312 of them since Monday, all from the legacy importer."
	tests := []struct {
		name   string
		prompt string
		reply  string
		open   bool
	}{
		{"dig in, answered", "The nightly export has been short by a few hundred rows since Monday. could you dig in?", found, false},
		{"hunt it down, answered", "the invoice totals are off again for the EU tenants. Can you hunt it down?", found, false},
		{"the reply asks back", "The nightly export has been short by a few hundred rows since Monday. could you dig in?", "Which export do you mean: the CSV one or the parquet one?", true},
		{"asks for a change too", "can you look at the export job and fix the NULL handling in `export.go`?", found, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := run([]step{{"u", tt.prompt}, {"a", tt.reply}, {"u", "ok, and how long has that been going on?"}})
			open := false
			for _, it := range l.Open() {
				open = open || it.By == ByUser && it.Line == 10
			}
			if open != tt.open {
				t.Errorf("open = %v, want %v: %+v", open, tt.open, l.Items)
			}
		})
	}
}

// TestAsksBack: a prompt that only asks the assistant something back
// answers none of its questions; the answer comes with a later prompt.
func TestAsksBack(t *testing.T) {
	for _, tt := range []struct {
		said string
		back bool
	}{
		{"how big is that index going to be roughly", true},
		{"hm ok. and the $lookup into customers, is that slow too?", true},
		{"why not just raise the tick rate to 120 instead, would that also fix it", true},
		{"what's the p99 now?", true},
		{"nice. what next", true},
		{"rolling.", false},
		{"keep both I think?", false},
		{"ok. how long does the export take to run these days?", false},
		{"no. 1.4 is frozen", false},
		{"yes, and can you also bump the version?", false},
	} {
		if got := asksBack(tt.said); got != tt.back {
			t.Errorf("asksBack(%q) = %v, want %v", tt.said, got, tt.back)
		}
	}
	seen := false
	l := run([]step{
		{"a", "Open question before anything gets built: a rolling build on the secondaries, or straight on the primary?"},
		{"u", "how big is that index going to be roughly"},
		{"a", "About 1.4 GB. Another question: should the old status index be dropped once the new one is in?"},
		{"u", "rolling."},
	})
	for _, it := range l.Items {
		if it.Kind != Question || it.By != ByAssistant {
			continue
		}
		rolling := strings.Contains(it.Text, "rolling build")
		seen = seen || rolling
		answered := it.Closed != nil && it.Closed.By == ClosedByAnswer
		switch {
		case rolling && (!answered || it.Closed.Evidence != "rolling."):
			t.Errorf("the build question: %+v", it.Closed)
		case !rolling && answered:
			t.Errorf("the drop question was answered by %q", it.Closed.Evidence)
		}
	}
	if !seen {
		t.Errorf("the build question is not kept: %+v", l.Items)
	}
}

// An "ok" to a reply that asked nothing takes note of it: a question
// asked before stays open.
func TestNoteTakingOK(t *testing.T) {
	l := run([]step{
		{"a", "Open question: should the old status index be dropped once the new one is in?"},
		{"u", "how big is the new one going to be"},
		{"a", "About 1.4 GB, going by the existing ones."},
		{"u", "ok"},
	})
	for _, it := range l.Open() {
		if it.Kind == Question && strings.Contains(it.Text, "old status index") {
			return
		}
	}
	t.Errorf("the question is not open after an ok to another reply: %+v", l.Items)
}
