package checkpoint

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/ledger"
	"github.com/cairn-agent/cairn/internal/outcome"
	"github.com/cairn-agent/cairn/internal/transcript"
)

func TestOverrules(t *testing.T) {
	tests := []struct {
		name           string
		later, earlier string
		want           bool
	}{
		{"a later plan replaces the earlier one",
			"Done: Encode() now rejects levels above 23 with absl::InvalidArgumentError instead of clamping, and the tile tests pass.",
			"I'll clamp levels above 23 down to 23 inside Encode(), because a hard error there would turn into a 500.", true},
		{"a later plan replaces the earlier one, with an aside after what it turns down",
			"Done: Encode() now rejects levels above 23 with absl::InvalidArgumentError instead of clamping (a clamped request would get the wrong tile without anyone noticing), services/tiler/handler.cc answers that with HTTP 400.",
			"I'll clamp levels above 23 down to 23 inside Encode(), because services/tiler passes the zoom straight through from the URL.", true},
		{"a short reply refuses outright",
			"no enum. plain string reason_code, validated server-side. mobile pins old enum sets, new values break them.",
			"a RefundReason enum, and field 4 (reason) switched to it", true},
		{"a replacement about something else",
			"I'll use encoding/csv instead of hand-written quoting for the export.",
			"I'll clamp levels above 23 down to 23 inside Encode().", false},
		{"a long sentence's bare no does not refuse",
			"There is no test for the header row yet, so the export keeps its current quoting for now.",
			"Add a test for the header row of the export.", false},
		{"a place turned down that the earlier plan only named",
			"I'll rename it in 0041 rather than in the backfill, since `country_code` matches the rest of the schema.",
			"I'll keep orders.address_id nullable until the backfill is done, because the mobile app still writes the JSON column.", false},
		{"a place turned down that the earlier plan chose",
			"I'll do the rename in 0041 rather than in the backfill, since the backfill is long enough.",
			"I'll rename the column in the backfill, since it runs anyway.", true},
		{"a replacement that shares a word with the earlier choice but turns down another thing",
			"EventJson sets encodeDefaults = true. I'll set explicitNulls = false in EventJson rather than annotating every nullable field, since the consumers treat a missing field and null the same.",
			"That's your serializer error: the plugin no longer falls back here. I'll write a CurrencyAsCodeSerializer and annotate the field with @Serializable(with = CurrencyAsCodeSerializer::class) rather than registering it contextually in a SerializersModule, because Money is also decoded by the Kafka consumer.", false},
		{"a replacement of what the earlier plan chose, in other words",
			"I'll register it contextually in the SerializersModule instead of annotating the field, since every module uses our Json.",
			"I'll write a CurrencyAsCodeSerializer and annotate the field with @Serializable(with = CurrencyAsCodeSerializer::class), because Money is also decoded by the Kafka consumer.", true},
		{"a refusal of another word",
			"no rush.",
			"a RefundReason enum, and field 4 (reason) switched to it", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := overrules(tt.later, tt.earlier); got != tt.want {
				t.Errorf("overrules = %v, want %v (refused %q)", got, tt.want, refused(tt.later, true))
			}
		})
	}
}

func TestThin(t *testing.T) {
	for _, tt := range []struct {
		it   ledger.Item
		want bool
	}{
		{ledger.Item{Text: "Noted for later", Kind: ledger.Deferred, By: ledger.ByAssistant}, true},
		{ledger.Item{Text: "status?", Kind: ledger.Question, By: ledger.ByUser}, true},
		{ledger.Item{Text: "later: metrics per reason_code", Kind: ledger.Deferred, By: ledger.ByUser}, false},
		{ledger.Item{Text: "run the migration", Kind: ledger.Request, By: ledger.ByUser}, false},
		{ledger.Item{Text: "why is it slow?", Kind: ledger.Question, By: ledger.ByUser}, false},
	} {
		if got := thin(tt.it); got != tt.want {
			t.Errorf("thin(%q) = %v, want %v", tt.it.Text, got, tt.want)
		}
	}
}

// A failure fixed in another file says where the fix went; the failed
// edit's own file is not listed, nor what was only read.
func TestFixedIn(t *testing.T) {
	one, zero := 1, 0
	fail := outcome.Judge("bazel build //geo/...", "quadkey.cc:4:10: fatal error: absl/strings/str_cat.h: No such file or directory\n", &one)
	pass := outcome.Judge("bazel build //geo/...", "INFO: Build completed successfully, 4 total actions\n", &zero)
	calls := []transcript.ToolCall{
		{Name: "Bash", Command: "bazel build //geo/...", ExitCode: &one, Done: true, IsError: true, Outcome: &fail, Line: 1},
		{Name: "Read", FilePath: "/p/geo/tiles/quadkey.cc", Done: true, Line: 2},
		{Name: "Edit", FilePath: "/p/geo/tiles/BUILD.bazel", Done: true, Line: 3},
		{Name: "Bash", Command: "bazel build //geo/...", ExitCode: &zero, Done: true, Outcome: &pass, Line: 4},
	}
	es := toolErrors(calls, "/p", nil, &Memo{})
	if len(es) != 1 || !es[0].Resolved || !slices.Equal(es[0].FixedIn, []string{"geo/tiles/BUILD.bazel"}) {
		t.Fatalf("errors %+v", es)
	}
	if got := errorLine(es[0]); !strings.HasPrefix(got, "fixed later (Bash `bazel build //geo/...`; fixed in geo/tiles/BUILD.bazel)") {
		t.Errorf("error line %q", got)
	}
}

// An answer the user took back later is shown with the later words.
func TestRevision(t *testing.T) {
	q := "should password authentication be disabled for every account, the breakglass user included?"
	said := []lined{{"yes", 10}, {"reload", 20}, {"wait. breakglass keeps passwords.", 30}, {"yes", 40}}
	if got, _ := revision(q, "yes", 10, said); got != "wait. breakglass keeps passwords." {
		t.Errorf("revision = %q", got)
	}
	if got, _ := revision(q, "yes", 35, said); got != "" {
		t.Errorf("a prompt before the answer revised it: %q", got)
	}
	if got, _ := revision("MaxAuthTries 3 or 4?", "4", 10, said); got != "" {
		t.Errorf("a prompt about something else revised it: %q", got)
	}
	// The turn may come after an interjection; an interjection alone
	// turns nothing back.
	fw := []lined{{"flyway", 10}, {"hm actually scrap flyway — the other services are on liquibase. switch please", 20}}
	if got, _ := revision("Flyway or Liquibase for the migration?", "flyway", 10, fw); got != fw[1].text {
		t.Errorf("revision after an interjection = %q", got)
	}
	fw[1].text = "ok, flyway it is, but keep the migration small"
	if got, _ := revision("Flyway or Liquibase for the migration?", "flyway", 10, fw); got != "" {
		t.Errorf("an interjection alone revised it: %q", got)
	}
	// A revision of one answer is not another's: the database question's
	// "postgres" is not taken back by "scrap flyway", though both speak of
	// the services.
	fw[1].text = "hm actually scrap flyway — the other services are on liquibase. switch please"
	if got, _ := revision("Which database does the orders service run on?", "postgres", 10, fw); got != "" {
		t.Errorf("a revision of another answer revised it: %q", got)
	}
	// A take-back that names what it takes back, none of it this
	// question's or this answer's, is not this answer's revision,
	// whatever name the two share; one that names nothing, or names
	// the answer, is.
	hand := "not my call, ask Ravi, he owns the schema. park it. meanwhile the import is slow, profile it"
	ravi := []lined{{hand, 10}, {"hmm actually scrap the one-file rule, Ravi says splitting is fine", 20}}
	if got, _ := revision("Keep the audit columns or drop them?", hand, 10, ravi); got != "" {
		t.Errorf("a take-back of a rule revised the answer: %q", got)
	}
	ravi[1].text = "hmm actually scrap the audit columns, Ravi says nobody reads them"
	if got, _ := revision("Keep the audit columns or drop them?", hand, 10, ravi); got != ravi[1].text {
		t.Errorf("a take-back that names the question's columns = %q", got)
	}
	ravi[1].text = "actually forget what I said, Ravi says keep them"
	if got, _ := revision("Keep the audit columns or drop them?", hand, 10, ravi); got != ravi[1].text {
		t.Errorf("a take-back that names nothing = %q", got)
	}
	// The taking back may come in a later part of a longer prompt, and
	// is that part; a later part that only leaves a thing out of the
	// work ("ignore the flaky lint job") takes back no answer.
	logs := []lined{{"rotate daily", 10}, {"deploy looks good, thanks. oh and disregard my earlier answer on the logs: rotate weekly, disk is cheap", 20}}
	if got, _ := revision("Should the logs rotate daily or weekly?", "rotate daily", 10, logs); got != "oh and disregard my earlier answer on the logs: rotate weekly, disk is cheap" {
		t.Errorf("a take-back in a later part = %q", got)
	}
	logs[1].text = "deploy looks good, thanks.\n- ignore the flaky lint job, it rotates daily anyway"
	if got, _ := revision("Should the logs rotate daily or weekly?", "rotate daily", 10, logs); got != "" {
		t.Errorf("a later part that leaves out a thing revised the answer: %q", got)
	}
	logs[1].text = "deploy looks good. and forget what I said about the staging banner, keep it"
	if got, _ := revision("Should the logs rotate daily or weekly?", "rotate daily", 10, logs); got != "" {
		t.Errorf("a later take-back of another matter revised the answer: %q", got)
	}
	c := Checkpoint{SessionID: "s", Answers: []Answer{{Question: q, Answer: "yes", Revised: "wait. breakglass keeps passwords."}}}
	if r := c.Restore(Compaction{}, DefaultRestoreBudget); !strings.Contains(r, "→ the user first: “yes”, then took it back: “wait. breakglass keeps passwords.”") {
		t.Errorf("restore:\n%s", r)
	}
}

// refusers is written out: it must stay the bare refusals and then every
// replacer.
func TestRefusersEndWithReplacers(t *testing.T) {
	if len(refusers) <= len(replacers) || !reflect.DeepEqual(refusers[len(refusers)-len(replacers):], replacers) {
		t.Errorf("refusers %q do not end with replacers %q", refusers, replacers)
	}
}

// TestOverruledByUser: the user's terse reply to the agent's just-stated
// choice ("no. 14.") makes the decision the user's, without the agent's
// figure as the one in force.
func TestOverruledByUser(t *testing.T) {
	const cutoff = "I'll go with a cutoff of 21 days since it maximises Youden's J (0.312): precision 0.268, recall 0.561."
	tests := []struct {
		name     string
		decision string
		prompts  []string // the prompts after the decision, in order
		want     string   // the decision as shown
	}{
		{"a refusal, then the figure", cutoff, []string{"no. 14. ops can only act in the first two weeks"},
			"A cutoff of 14 days — the user's call (“no. 14. ops can only act in the first two weeks”), not 21."},
		{"a figure with its own unit", "I'll set the client timeout to 2s because the upstream answers in 1.4s at p99.", []string{"nah, make it 500ms"},
			"I'll set the client timeout to 500ms — the user's call (“nah, make it 500ms”), not 2s."},
		{"make it, with no refusal", "I'll go with 3 retries, since the queue redelivers anyway.", []string{"make it 5"},
			"5 retries — the user's call (“make it 5”), not 3."},
		{"a bare figure", cutoff, []string{"14 days."},
			"A cutoff of 14 days — the user's call (“14 days.”), not 21."},
		{"a value that is no figure", "I'll use sqlite for the job queue since it needs no server.", []string{"no, use postgres"},
			"The user's call: “no, use postgres”, over your choice: “I'll use sqlite for the job queue”."},
		{"a new request is no overrule", cutoff, []string{"plot"}, cutoff},
		{"a refusal with a long reason is not a terse value", cutoff, []string{"no. don't flag anyone before we talk to ops, they will hate it"}, cutoff},
		{"a bare word is no overrule", "I'll use sqlite for the job queue since it needs no server.", []string{"great"}, "I'll use sqlite for the job queue since it needs no server."},
		{"the same figure agrees", cutoff, []string{"yes, 21"}, cutoff},
		{"not the prompt right after the choice", cutoff, []string{"ok", "no. 14."}, cutoff},
		// The agent asked something after its choice (line 15): the
		// bare value answers that question.
		{"a bare value answers a question asked since", "I'll set batch_size 16 with gradient accumulation 4, which keeps effective batch 64.", []string{"1e-4"},
			"I'll set batch_size 16 with gradient accumulation 4, which keeps effective batch 64."},
		// A question asked before the choice (line 5) that the prompt
		// answers: "no. 1.4 is frozen" is about release/1.4.
		{"a terse no answers a question asked before", "And I'd keep the physics tick rate at 60: doubling it doubles the physics cost of every body.", []string{"no. 1.4 is frozen"},
			"And I'd keep the physics tick rate at 60: doubling it doubles the physics cost of every body."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var said []lined
			for i, p := range tt.prompts {
				said = append(said, lined{text: p, line: 20 + 10*i})
			}
			var asked questions
			switch {
			case strings.Contains(tt.name, "answers a question asked since"):
				asked = questions{{Kind: ledger.Question, By: ledger.ByAssistant, Line: 15}}
			case strings.Contains(tt.name, "answers a question asked before"):
				asked = questions{{Kind: ledger.Question, By: ledger.ByAssistant, Line: 5, Closed: &ledger.Closure{By: ledger.ClosedByAnswer, Line: 20}}}
			}
			got := overruledByUser([]transcript.Note{{Line: 10, Text: tt.decision}}, said, asked)
			if got[0].Text != tt.want {
				t.Errorf("decision = %q, want %q", got[0].Text, tt.want)
			}
		})
	}
}

// TestTurnedDown: a proposal that a later prompt refuses by naming what
// it proposes is shown with the refusal; a report, or a refusal of
// something else, is not.
func TestTurnedDown(t *testing.T) {
	const policy = "Proposal: switch maxmemory-policy to allkeys-lru, and raise maxmemory to 12gb."
	const timeout = "While the cache refills I'll raise proxy_read_timeout on /v2/checkout from 10s to 30s so in-flight checkouts stop failing."
	tests := []struct {
		name, proposal, prompt, want string
	}{
		{"part of a proposal refused", policy, "do the policy change, that's approved. not the maxmemory bump though, the box only has 16G", "not the maxmemory bump though"},
		{"a plan refused by a part of its name", timeout, "hold on, don't ship the timeout bump. the CDN origin timeout is 15s. put it back to 10s", "don't ship the timeout bump"},
		{"a report is no proposal", "Redis is at maxmemory (7.81G of 8G) and evicting about 12k keys/s.", "not the maxmemory bump though", ""},
		{"a refusal of something else", policy, "don't touch the CI workflow, Jun is rewriting it", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := turnedDown(tt.proposal, 10, []lined{{text: tt.prompt, line: 20}}); got != tt.want {
				t.Errorf("turnedDown = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestOverruledPlans: a plan among the findings that the user's next
// prompt overrules tersely is shown as the user's call; a report beside
// it, and a plan the next prompt does not overrule, are left as they were.
func TestOverruledPlans(t *testing.T) {
	const report = "Counted 9,120 stale sessions in the sessions table."
	const plan = "My plan: delete them in chunks of 2,000 rows so the table lock stays short."
	tests := []struct {
		name   string
		prompt string
		want   []string
	}{
		{"a terse figure", "no, 250. the primary is small",
			[]string{report, "Delete them in chunks of 250 rows so the table lock stays short — the user's call (“no, 250. the primary is small”), not 2,000."}},
		{"a go-ahead", "sounds good, do it", []string{report, plan}},
		{"a new request", "also check the audit log for the same user", []string{report, plan}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := overruledPlans([]transcript.Note{{Line: 10, Text: report}, {Line: 10, Text: plan}}, []lined{{text: tt.prompt, line: 20}}, nil)
			var texts []string
			for _, n := range got {
				texts = append(texts, n.Text)
			}
			if !slices.Equal(texts, tt.want) {
				t.Errorf("findings = %q, want %q", texts, tt.want)
			}
		})
	}
}

// TestTakenBackStep: a step the agent reports done (or plans) that the
// user's next prompt takes back is shown with it; a report of what was
// found, or a prompt that takes nothing back, leaves it as it was.
func TestTakenBackStep(t *testing.T) {
	const step = "Added a `--force` flag to the deploy script so reruns skip the lock."
	tests := []struct {
		name, statement, prompt, want string
	}{
		{"a step taken back", step, "hmm, scratch that. a forced deploy already bit us once",
			step + " (the user took this back: “hmm, scratch that. a forced deploy already bit us once”)"},
		{"a plan taken back", "I'll cache the token for an hour.", "actually revert it, tokens rotate every 15 minutes",
			"I'll cache the token for an hour. (the user took this back: “actually revert it, tokens rotate every 15 minutes”)"},
		{"a finding is not taken back", "The lock file is 3 days old.", "scratch that", "The lock file is 3 days old."},
		{"a prompt that asks for more", step, "nice, now run it on staging", step},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withUserRefusal(tt.statement, tt.statement, 10, []lined{{text: tt.prompt, line: 20}}); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRejectedGuess: a guess or a plan the user's next prompt answers
// with a flat no is shown with that no (a guess by the no alone: it was
// wrong); a no that answers a question
// asked with it, a report of what was measured, or a prompt that does
// not refuse leave it as it was.
func TestRejectedGuess(t *testing.T) {
	const guess = "The export drops 12 rows; I suspect the CSV writer's quoting of embedded newlines is the cause."
	const no = "nope, quoting is fine, the rows never reach the writer. check the filter"
	tests := []struct {
		name, statement, prompt string
		asked                   questions
		want                    string
	}{
		{"a guess answered no", guess, no, nil, "A guess of yours the user ruled out: “" + no + "”"},
		{"a plan answered no", "I'd bump the pool to 40 connections.", "wrong. the pool isn't the bottleneck", nil,
			"I'd bump the pool to 40 connections. (the user said no to this: “wrong. the pool isn't the bottleneck”)"},
		{"a measurement", "The export drops 12 rows out of 4,000.", no, nil, "The export drops 12 rows out of 4,000."},
		{"a no to the question asked with it", guess, no, questions{{Text: "Shall I patch the writer?", Line: 10}}, guess},
		{"not a refusal", guess, "nobody reads those rows anyway, move on", nil, guess},
		{"a no that names the plan the question asked with it offered",
			"I could also move the nightly cron onto the worker pool.", "no, the cron stays on the box, the pool is for uploads. the TTL change yes",
			questions{{Text: "Shall I do both?", Line: 10, Closed: &ledger.Closure{By: ledger.ClosedByAnswer, Line: 20}}},
			"I could also move the nightly cron onto the worker pool. (the user said no to this: “no, the cron stays on the box, the pool is for uploads. the TTL change yes”)"},
		{"a no to the question asked with the plan, about something else",
			"I'll raise the cache lifetime to an hour.", "no, leave the CDN alone",
			questions{{Text: "Shall I also purge the CDN?", Line: 10, Closed: &ledger.Closure{By: ledger.ClosedByAnswer, Line: 20}}},
			"I'll raise the cache lifetime to an hour."},
		{"a no that names the plan, answering a question asked before it",
			"I could also move the nightly cron onto the worker pool.", "no, the cron stays on the box",
			questions{{Text: "Should the cron log to syslog?", Line: 5, Closed: &ledger.Closure{By: ledger.ClosedByAnswer, Line: 20}}},
			"I could also move the nightly cron onto the worker pool."},
		{"a no to a question asked before it", guess, no,
			questions{{Text: "Want the fix on the 2.x branch too?", Line: 5, Closed: &ledger.Closure{By: ledger.ClosedByAnswer, Line: 20}}}, guess},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.statement
			if r := rejected(tt.statement, 10, []lined{{text: tt.prompt, line: 20}}, tt.asked); r != "" {
				got = withRejection(got, r, guessOnly(tt.statement))
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// A flat no in the user's own language ("non, ...", "Nein, ...") rejects
// a plan as "no" does.
func TestSaysNoInOtherLanguages(t *testing.T) {
	for _, p := range []string{"non, pas de cache partagé, c'est trop risqué", "Nein, kein Redis hier.", "não. fica como está", "nee, laat maar"} {
		if !saysNo(p) {
			t.Errorf("saysNo(%q) = false", p)
		}
	}
	for _, p := range []string{"nonetheless, go on", "nice, ship it"} {
		if saysNo(p) {
			t.Errorf("saysNo(%q) = true", p)
		}
	}
}

// A tool that refused a call as made (an edit whose old text is not in
// the file) and took the next one is no failure of the work; the same
// refusal with nothing after it stays, as does a command's failure.
func TestToolRefusalRetried(t *testing.T) {
	refused := transcript.ToolCall{Name: "Edit", FilePath: "/p/conf/app.toml", Done: true, IsError: true,
		ErrorText: "<tool_use_error>String to replace not found in file.\nString: timeout = 30</tool_use_error>", Line: 1}
	retried := transcript.ToolCall{Name: "Edit", FilePath: "/p/conf/app.toml", Done: true, Line: 2}
	if es := toolErrors([]transcript.ToolCall{refused, retried}, "/p", nil, &Memo{}); len(es) != 0 {
		t.Errorf("a refused edit retried is listed: %+v", es)
	}
	if es := toolErrors([]transcript.ToolCall{refused}, "/p", nil, &Memo{}); len(es) != 1 || es[0].Resolved {
		t.Errorf("a refused edit not retried: %+v", es)
	}
	one, zero := 1, 0
	fail := outcome.Judge("tox -e lint", "lint: commands failed\n", &one)
	pass := outcome.Judge("tox -e lint", "lint: OK\n", &zero)
	calls := []transcript.ToolCall{
		{Name: "Bash", Command: "tox -e lint", ExitCode: &one, Done: true, IsError: true, ErrorText: "<tool_use_error>lint: commands failed</tool_use_error>", Outcome: &fail, Line: 1},
		{Name: "Bash", Command: "tox -e lint", ExitCode: &zero, Done: true, Outcome: &pass, Line: 2},
	}
	if es := toolErrors(calls, "/p", nil, &Memo{}); len(es) != 1 || !es[0].Resolved {
		t.Errorf("a command's failure fixed later: %+v", es)
	}
}
