package ledger

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// step is one event fed to a ledger in a closing test.
type step struct {
	kind string // "a" assistant text, "u" user prompt, "f" file, "c" command ok, "x" command failed, "t" todo
	text string
}

func run(steps []step) *Ledger {
	var l Ledger
	for i, s := range steps {
		line, turn := 10*(i+1), i+1
		switch s.kind {
		case "a":
			l.Assistant(turn, line, time.Time{}, s.text)
		case "u":
			l.User(turn, line, time.Time{}, s.text)
		case "f":
			l.FileChanged(turn, line, s.text)
		case "c":
			l.CommandEnded(turn, line, s.text, true)
		case "x":
			l.CommandEnded(turn, line, s.text, false)
		case "t":
			l.TodoCompleted(turn, line, s.text)
		}
	}
	return &l
}

// TestClosing: items close on evidence that names them, and on nothing
// else.
func TestClosing(t *testing.T) {
	tests := []struct {
		name   string
		steps  []step
		open   []string // pieces of the open items' texts, in order
		closed []string // "piece<-by" for each closed item, in closing order
		pairs  []string // "piece->answer": the question's answer
		// glosses are "piece->gloss": how the assistant took the answer
		glosses []string
	}{
		{name: "a question the assistant later calls still open is not answered by the earlier reply",
			steps: []step{
				{"a", "Two findings: the retry loop never backs off, and the log level is debug in production. One question first: should the retry budget stay at five attempts, or go down to three like the gateway's?"},
				{"u", "a) add the backoff b) set the level to info"},
				{"a", "Backoff added and the level is info now. The retry budget question is still open, I kept five attempts for the moment."},
				{"u", "three"},
			},
			closed: []string{"a) add the backoff<-said", "retry budget stay<-answer"},
			pairs:  []string{"retry budget stay->three"}},
		{name: "a reopened question is not answered by a reply about another matter",
			steps: []step{
				{"a", "The importer crashes on empty rows. Two questions: 1. should empty rows be skipped or kept as nulls? 2. bump the minor version?"},
				{"u", "bump it to 2.3, and please use the streaming reader, the file can be 4 GB"},
				{"a", "Streaming reader in, version 2.3. The empty rows question is still open: I skip them for now. Also the BOM at the start of UTF-8 files breaks the header match."},
				{"u", "the BOM thing is #212, leave it for that ticket"},
				{"a", "Understood, the BOM stays with #212."},
				{"u", "now run the benchmarks"},
				{"a", "Benchmarks: 1.2 GB/s, as before."},
				{"u", "keep them as nulls"},
			},
			open:   []string{"streaming reader", "run the benchmarks", "keep them as nulls"},
			closed: []string{"empty rows be skipped<-answer"},
			pairs:  []string{"empty rows be skipped->keep them as nulls"}},
		{name: "a later still-open remark about another question reopens nothing",
			steps: []step{
				{"a", "Which separator should the export use, comma or semicolon?"},
				{"u", "semicolon"},
				{"a", "Semicolons it is. The timezone question is still open."},
			},
			open:   []string{"timezone question"},
			closed: []string{"separator should the export<-answer"},
			pairs:  []string{"separator should the export->semicolon"}},
		{name: "file the item names",
			steps:  []step{{"a", "Next: update `internal/export/csv.go` to write the header."}, {"f", "/repo/internal/export/csv.go"}},
			closed: []string{"csv.go<-file"}},
		{name: "identifier named in CamelCase, file in snake_case",
			steps:  []step{{"a", "Remaining: the SessionLive template."}, {"f", "/repo/lib/web/live/session_live.ex"}},
			closed: []string{"SessionLive<-file"}},
		{name: "another file does not close",
			steps: []step{{"a", "Next: update `internal/export/csv.go` to write the header."}, {"f", "/repo/README.md"}},
			open:  []string{"csv.go"}},
		{name: "a unit of work begun by its id stays open through its steps",
			steps: []step{{"a", "Now gqc.6 — close project review session."}, {"c", "bd update spotter-gqc.6 --status in_progress"},
				{"f", "/repo/lib/web/live/project_review_live.ex"}, {"c", "mix test test/web/live/project_review_live_test.exs"}},
			open: []string{"gqc.6"}},
		{name: "a unit of work closes on a command that names it",
			steps:  []step{{"a", "Now the final task — **spotter-a0y.4**."}, {"f", "/repo/lib/web/live/session_live.ex"}, {"c", "bd close spotter-a0y.4 --reason=done"}},
			closed: []string{"spotter-a0y.4<-command"}},
		{name: "a request for all the work stands while parts are done",
			steps: []step{{"u", "continue until all are done"}, {"a", "The importer is done."}, {"f", "/repo/importer.go"}},
			open:  []string{"continue until all are done"}},
		{name: "a request for all the work closes when a list of what is done says all",
			steps:  []step{{"u", "continue until all are done"}, {"a", "**Epic spotter-a0y complete.** All 4 subtasks done and pushed:\n\n1. **spotter-a0y.1**: hooks\n2. **spotter-a0y.2**: sync"}},
			closed: []string{"continue until all are done<-said"}},
		{name: "a step of work, a version: no unit of work",
			steps: []step{{"a", "Now let me read `session_live.ex`."}, {"a", "Now v1.2 of the parser."}}},
		{name: "a change before the statement does not close",
			steps: []step{{"f", "/repo/internal/export/csv.go"}, {"a", "Next: update `internal/export/csv.go` to write the header."}},
			open:  []string{"csv.go"}},
		{name: "command it names",
			steps:  []step{{"a", "Remaining: run `go test ./...` once the fixtures are back."}, {"c", "go test ./... 2>&1 | tail -5"}},
			closed: []string{"go test<-command"}},
		{name: "failed command does not close",
			steps: []step{{"a", "Remaining: run `go test ./...` once the fixtures are back."}, {"x", "go test ./..."}},
			open:  []string{"go test"}},
		{name: "reading is not doing",
			steps: []step{{"a", "Next: fix the typo in `README.md`."}, {"c", "cat README.md | grep typo"}},
			open:  []string{"README.md"}},
		{name: "marking work as started is not finishing it",
			steps: []step{{"a", "Next: ABC-12 streaming export."}, {"c", "tracker update ABC-12 --status in_progress"}},
			open:  []string{"ABC-12"}},
		{name: "commit message carrying the item's words",
			steps:  []step{{"a", "Remaining: pagination for the orders list."}, {"c", `git commit -m "Add pagination to the orders list"`}},
			closed: []string{"pagination<-command"}},
		{name: "pushing a branch named after the ticket is not evidence",
			steps: []step{{"u", "Implement ABC-12."}, {"c", "git push --set-upstream origin ABC-12"}},
			open:  []string{"ABC-12"}},
		{name: "a ticket id in a commit message is a reference, not the end of the ticket",
			steps: []step{{"u", "Implement ABC-12."}, {"c", `git commit -m "feat: add the parser (ABC-12)"`}},
			open:  []string{"ABC-12"}},
		{name: "an option's value is metadata",
			steps: []step{{"u", "Implement ABC-12."}, {"c", "tracker create --parent=ABC-12 --title=parser"}},
			open:  []string{"ABC-12"}},
		{name: "moving into a worktree named after the ticket is not evidence",
			steps: []step{{"u", "Work on ABC-12."}, {"c", "cd /work/trees/ABC-12 && make build"}},
			open:  []string{"ABC-12"}},
		{name: "a named item is not closed by a file whose folder shares its words",
			steps: []step{{"a", "Remaining: the `TranscriptTailSupervisor` module."}, {"f", "/repo/lib/transcript_tail_adapter/tail_f.ex"}},
			open:  []string{"TranscriptTailSupervisor"}},
		{name: "a sentence about another id is not about this one",
			steps: []step{{"a", "Next steps:\n- ABC-13: trace the channel"}, {"a", "ABC-12 is committed."}},
			open:  []string{"ABC-13"}},
		{name: "sibling id does not close",
			steps:  []step{{"a", "Remaining:\n- spotter-gqc.6: close the review session\n- spotter-gqc.7: launch the review"}, {"c", `bd close spotter-gqc.6 --reason="close the review session done"`}},
			open:   []string{"spotter-gqc.7"},
			closed: []string{"spotter-gqc.6<-command"}},
		{name: "child id does not close the parent",
			steps: []step{{"u", "Implement spotter-gqc."}, {"c", "bd close spotter-gqc.1"}},
			open:  []string{"spotter-gqc"}},
		{name: "said done, same subject",
			steps:  []step{{"a", "I have not fixed the race in the cache yet."}, {"a", "The race in the cache is fixed now."}},
			closed: []string{"race<-said"}},
		{name: "said done about something else",
			steps: []step{{"a", "I have not fixed the race in the cache yet."}, {"a", "The parser is fixed now."}},
			open:  []string{"race"}},
		{name: "still failing, then passing",
			steps:  []step{{"a", "Dialyzer is still complaining about the pattern match."}, {"a", "Dialyzer passes."}},
			closed: []string{"Dialyzer<-said"}},
		{name: "todo completed",
			steps:  []step{{"a", "Remaining: document the export flag."}, {"t", "Document the export flag"}},
			closed: []string{"export flag<-todo"}},
		{name: "a done list closes what it names",
			steps:  []step{{"a", "Next steps:\n- add the `--export` flag\n- write the changelog"}, {"a", "## Done\n- `--export` flag added"}},
			open:   []string{"changelog"},
			closed: []string{"--export<-said"}},
		{name: "a plan reported done in other words after work on it",
			steps: []step{{"a", "My plan: pass an idempotency key derived from the subscription id and billing period to Stripe, rather than taking a DB lock, because Stripe already accepted the first charge."},
				{"f", "/repo/app/Jobs/ChargeSubscription.php"},
				{"a", "All three ChargeSubscription tests pass now: the retry reuses the same idempotency key, so Stripe returns the original PaymentIntent."}},
			closed: []string{"idempotency key<-said"}},
		{name: "a plan reported done in other words, with no work since, stays open",
			steps: []step{{"a", "My plan: pass an idempotency key derived from the subscription id and billing period to Stripe, rather than taking a DB lock, because Stripe already accepted the first charge."},
				{"a", "All three ChargeSubscription tests pass now: the retry reuses the same idempotency key, so Stripe returns the original PaymentIntent."}},
			open: []string{"idempotency key"}},
		{name: "all done closes tasks and requests, not problems or deferred work",
			steps:  []step{{"u", "Add CSV export."}, {"a", "Remaining: the XLSX variant. The watcher still fails on network drives. I left retries for later."}, {"a", "All done."}},
			open:   []string{"network drives", "retries"},
			closed: []string{"CSV export<-said", "XLSX<-said"}},
		{name: "a done heading closes what it names",
			steps:  []step{{"u", "create the beads"}, {"a", "## Beads Created\n\n| id | task |\n|---|---|\n| x-1 | a |"}},
			closed: []string{"beads<-said"}},
		{name: "all done with one thing is not all done",
			steps: []step{{"a", "Remaining: the XLSX variant."}, {"a", "All done with the parser."}},
			open:  []string{"XLSX"}},
		{name: "question answered by the user",
			steps:  []step{{"a", "I finished the export.\n\nShould I also add an XLSX export?"}, {"u", "yes please"}},
			open:   []string{"XLSX export? → yes please"},
			closed: []string{"XLSX<-answer"}},
		{name: "questions answered one prompt at a time, each by its own answer",
			steps: []step{{"a", "Three questions before I start:\n1. Which database does the service run on in prod?\n2. Flyway or Liquibase for the migration?\n3. How often should the publisher poll the outbox?"},
				{"u", "postgres"}, {"u", "flyway"}, {"u", "500ms"}},
			closed: []string{"Which database", "Flyway or Liquibase", "How often"},
			pairs:  []string{"Which database->postgres", "Flyway or Liquibase->flyway", "How often->500ms"}},
		{name: "a yes to listed questions answers the first, the next prompts the next",
			steps: []step{{"a", "Questions before the release:\n1. Tag the release as a draft?\n2. Which branch should it be cut from?\n3. Keep the old changelog section?"},
				{"u", "yes"}, {"u", "main"}, {"u", "drop"}},
			open:   []string{"Tag the release as a draft? → yes", "drop"},
			closed: []string{"Tag the release", "Which branch", "old changelog"},
			pairs:  []string{"Tag the release->yes", "Which branch->main", "old changelog->drop"}},
		{name: "yes to all listed questions answers them all",
			steps: []step{{"a", "Two questions:\n1. Tag the release as a draft?\n2. Keep the old changelog section?"},
				{"u", "yes to both"}},
			open:   []string{"draft? → yes to both", "changelog section? → yes to both"},
			closed: []string{"Tag the release", "old changelog"},
			pairs:  []string{"Tag the release->yes to both", "old changelog->yes to both"}},
		{name: "a question after a lead with a colon is put to the user",
			steps:  []step{{"a", "The estimate says \"Instant download\" when @digital is set. Before I derive @digital from the product: do bundles that contain a physical item count as digital?"}, {"u", "no"}},
			closed: []string{"physical item"},
			pairs:  []string{"physical item->no"}},
		{name: "a request to find something out is done when the reply says it",
			steps:  []step{{"u", "The release job went red overnight. Can you figure out the root cause? Don't bump anything."}, {"a", "Let me trace who pulls getrandom in."}, {"a", "Root cause: uuid's v4 feature pulls getrandom 0.2.15, which has no backend for wasm32 unless its js feature is on."}},
			closed: []string{"root cause<-reply"}},
		{name: "a request to find out and fix stays open after the finding",
			steps: []step{{"u", "Can you figure out the root cause and fix it?"}, {"a", "Root cause: uuid's v4 feature pulls getrandom 0.2.15, which has no backend for wasm32 unless its js feature is on."}},
			open:  []string{"root cause"}},
		{name: "a short answer keeps how the assistant took it",
			steps:   []step{{"a", "Before I derive @digital from the product: do bundles that contain a physical item count as digital?"}, {"u", "no"}, {"a", "Got it: a bundle with any physical item ships as physical; only all-digital bundles get the instant label. Now the estimate."}},
			closed:  []string{"physical item"},
			pairs:   []string{"physical item->no"},
			glosses: []string{"physical item->Got it: a bundle with any physical item ships as physical; only all-digital bundles get the instant label."}},
		{name: "a yes answers the questions that ask yes or no, not which",
			steps:  []step{{"a", "The build is green. Should I tag the release? And which branch should it be cut from?"}, {"u", "yes"}},
			open:   []string{"which branch", "tag the release? → yes"},
			closed: []string{"tag the release"},
			pairs:  []string{"tag the release->yes"}},
		{name: "a yes to listed questions answers the first that asks yes or no",
			steps:  []step{{"a", "Questions:\n1. Which branch should it be cut from?\n2. Tag the release as a draft?"}, {"u", "yes"}},
			open:   []string{"Which branch", "draft? → yes"},
			closed: []string{"Tag the release"},
			pairs:  []string{"Tag the release->yes"}},
		{name: "a short acknowledgement is a gloss, a question back is not",
			steps: []step{{"a", "Rebase finished and the server tests pass. Squash the two commits into one before you push?"}, {"u", "no"}, {"a", "Keeping both commits as they are."},
				{"a", "Anything else on the PR? Should I run the linters?"}, {"u", "yes"}, {"a", "Running them?"}},
			open:    []string{"linters? → yes"},
			closed:  []string{"Squash the two commits", "run the linters"},
			pairs:   []string{"Squash the two commits->no", "run the linters->yes"},
			glosses: []string{"Squash the two commits->Keeping both commits as they are.", "run the linters->"}},
		{name: "sentences to listed questions, the assistant asking for the next by number",
			steps: []step{{"a", "Before I wire the signup flow:\n1. Which database: postgres or sqlite?\n2. On a duplicate email: reject it, or merge the two accounts?\n3. Send the welcome mail right away or in the nightly batch?\n4. Do we still support Node 18?"},
				{"u", "postgres"}, {"a", "Postgres then. And 2?"},
				{"u", "hmm, tough one. people forget they already signed up years ago, so merging the accounts is kinder"}, {"a", "Merging duplicates, noted. 3?"},
				{"u", "nightly"}},
			open:   []string{"Node 18"},
			closed: []string{"Which database", "duplicate email", "welcome mail"},
			pairs:  []string{"Which database->postgres", "duplicate email->hmm, tough one. people forget they already signed up years ago, so merging the accounts is kinder", "welcome mail->nightly"}},
		{name: "a sentence answers together the listed questions asked for again by number, each with its part",
			steps: []step{{"a", "Before I wire the signup flow:\n1. Which database: postgres or sqlite?\n2. On a duplicate email: reject it, or merge the two accounts?\n3. Send the welcome mail right away or in the nightly batch?\n4. Do we still support Node 18?"},
				{"u", "postgres"}, {"a", "Postgres then. 2, 3 and 4?"},
				{"u", "merging is kinder. batch is fine, and node 20 only since last spring"}},
			closed: []string{"Which database", "duplicate email", "welcome mail", "Node 18"},
			pairs:  []string{"Which database->postgres", "duplicate email->merging is kinder", "welcome mail->batch is fine", "Node 18->node 20 only since last spring"}},
		{name: "a sentence to two questions asked for again, the first part naming neither",
			steps: []step{{"a", "A few questions:\n1. Local storage: drift or hive?\n2. Minimum Android API level: still 23?\n3. Do photos attached to notes need to work offline too?"},
				{"u", "drift"}, {"a", "Drift it is. 2 and 3?"},
				{"u", "24 now, we bumped it in march. photos no, text only for now, photos are phase 2"}},
			closed: []string{"Local storage", "API level", "photos"},
			pairs:  []string{"Local storage->drift", "API level->24 now, we bumped it in march", "photos attached->photos no, text only for now, photos are phase 2"}},
		{name: "a hedged answer keeps how the assistant took it",
			steps: []step{{"a", "A few questions:\n1. Local storage: drift or hive?\n2. When the same note changed on two devices: last-write-wins, or keep both copies?\n3. Minimum Android API level: still 23?"},
				{"u", "drift"}, {"a", "Drift it is. And 2?"},
				{"u", "ooh, tough one. keep both I think? hikers hate losing stuff, they'd rather tidy up a duplicate"}, {"a", "Keep both on conflict, noted. 3?"}},
			open:    []string{"API level"},
			closed:  []string{"Local storage", "two devices"},
			glosses: []string{"two devices->Keep both on conflict, noted."}},
		{name: "a reply about something else is no gloss of the answer",
			steps: []step{{"a", "Before I write the cache: per-tenant quota or one global pool?"},
				{"u", "global."}, {"a", "The import tests pass now, but the nightly job times out on the staging dump."}},
			closed:  []string{"per-tenant quota"},
			glosses: []string{"per-tenant quota->"}},
		{name: "a sentence to two questions that names only one is not split",
			steps: []step{{"a", "A few questions:\n1. Local storage: drift or hive?\n2. Minimum Android API level: still 23?\n3. Do photos attached to notes need to work offline too?"},
				{"u", "drift"}, {"a", "Drift it is. 2 and 3?"},
				{"u", "photos no, text only"}},
			closed: []string{"Local storage", "API level", "photos"},
			pairs:  []string{"Local storage->drift", "API level->photos no, text only", "photos attached->photos no, text only"}},
		{name: "listed questions answered in one line by number, one put off",
			steps: []step{{"a", "Before I change anything:\n\n1. Should POST /hooks also require an Idempotency-Key header?\n2. Move the signature check to v2 now, or keep v1?\n3. Rate limiting: Redis-backed limiter now, or in-memory, or leave it?\n4. Roll out to staging only, or staging and prod together?"},
				{"u", "1 yes 2 no, keep v1 3 later 4 staging only"}, {"a", "Decoding the header from base64 now."}, {"u", "k"},
				{"u", "actually make the webhook retries reuse the event id"}},
			open:   []string{"Rate limiting", "Idempotency-Key header? → yes", "reuse the event id"},
			closed: []string{"Idempotency-Key", "signature check", "Roll out"},
			pairs:  []string{"Idempotency-Key->yes", "signature check->no, keep v1", "Roll out->staging only"}},
		{name: "terse listed questions, answered one word a turn",
			steps: []step{{"a", "Counts match. Three things before I write the report:\n1. How should I compare the two exports: per-row hash or totals?\n2. include archived invoices?\n3. mail the mismatches to ops?"},
				{"u", "hash"}, {"a", "OK. And 2?"},
				{"u", "no"}, {"a", "Archived ones stay out, then. And 3?"}},
			open:   []string{"mismatches to ops"},
			closed: []string{"compare the two exports", "archived invoices"},
			pairs:  []string{"compare the two exports->hash", "archived invoices->no"}},
		{name: "a version number is no question's number",
			steps: []step{{"a", "Two questions first:\n1. Keep the old endpoint?\n2. Which client version should the SDK pin?"},
				{"a", "Looking at the SDK now. Pin it to 1.2?"},
				{"u", "the newest one, we dropped the old endpoint last week"}},
			closed: []string{"old endpoint", "client version"}},
		{name: "a reply by topic leaves the question whose topic it skips open",
			steps: []step{{"a", "Before I wire the exporter, two questions:\n1. Which retention period should the bucket lifecycle use?\n2. The alerts: page the on-call, or only post to the channel?"},
				{"u", "Thanks for spotting the typo. As for the alerts: channel only, nobody wants pages for this. Carry on with the rest!"},
				{"a", "Alerts go to the channel now."},
				{"u", "thirty days"}},
			closed: []string{"The alerts", "Which retention period"},
			pairs:  []string{"Which retention period->thirty days", "The alerts->As for the alerts: channel only, nobody wants pages for this, Carry on with the rest"}},
		{name: "questions under a heading of things needed are questions, each answered by its topic's part",
			steps: []step{{"a", "Two things I need from you before I change the scheduler:\n1. Which queue: only the default one, or also the batch queue on 3.1?\n2. For the backoff I would use full jitter, it spreads retries best. Or keep the fixed 30 s like the other jobs?"},
				{"u", "For the backoff: keep the fixed 30 s, ops has alerts tuned to it. And the queue: only the default one, batch 3.1 is frozen. Also my laptop can't reach the broker"}},
			closed: []string{"Which queue", "For the backoff"},
			pairs:  []string{"Which queue->And the queue: only the default one, batch 3.1 is frozen, Also my laptop can't reach the broker", "For the backoff->For the backoff: keep the fixed 30 s, ops has alerts tuned to it"}},
		{name: "one answer to several questions closes them all",
			steps: []step{{"a", "Two questions:\n1. Which database does the service run on?\n2. How often should the publisher poll?"},
				{"u", "postgres, and poll every 500ms"}},
			closed: []string{"Which database", "How often"},
			pairs:  []string{"Which database->postgres, and poll every 500ms", "How often->postgres, and poll every 500ms"}},
		{name: "answer that is a request of its own",
			steps:  []step{{"a", "The next ticket is ABC-7. Want me to start on it?"}, {"u", "no, first fix the flaky login test"}},
			open:   []string{"ABC-7", "flaky login test"},
			closed: []string{"Want me<-answer"}},
		{name: "a question asked in passing goes when the assistant works on",
			steps: []step{{"a", "Should I check the router as well?"}, {"f", "/repo/router.go"}},
			open:  nil},
		{name: "a labelled next step that asks is a question, answered by a yes",
			steps:  []step{{"a", "Dropped the 32-bit arm builds. Next: ship windows/arm64? The config ignores it today."}, {"u", "yes"}},
			open:   []string{"ship windows/arm64? → yes"},
			closed: []string{"ship windows/arm64?<-answer"},
			pairs:  []string{"ship windows/arm64->yes"}},
		{name: "a rule the user sets in a long prompt is no open item",
			steps: []step{{"u", "I thought the fulfilled_at migration went out last week?? Ticket is SHIP-2207. Oh and whatever you do, don't run alembic downgrade against anything, the staging DB is shared with the data team's backfill job right now. Can you figure out what's going on and fix it properly? I'd rather understand it than just patch around it."}},
			open:  []string{"fulfilled_at migration went out", "figure out what's going on"}},
		{name: "a reply that names only the release does not answer the question",
			steps: []step{{"u", "REL-56: cutting ferry v1.4.0 today. Here's the review thread, can you go through it? Don't tag anything."},
				{"a", "Let me run goreleaser check first."}, {"u", "later"},
				{"a", "OK, no cosign signing for v1.4.0; I'll leave it as a follow-up."}},
			open: []string{"go through it", "follow-up"}},
		{name: "a choice over another answers the user's question",
			steps:  []step{{"u", "ok reference.conf it is. which mode tho? the old application.conf had HALF_UP i think"}, {"a", "I'll use HALF_EVEN rather than HALF_UP: it's the same rounding the bank statements use."}},
			closed: []string{"which mode<-reply"}},
		{name: "a question put to someone else is not answered by the user's next prompt",
			steps: []step{{"a", "Next is the Q2 comparison. Open question for Dana: does the board deck want the median or the mean onboarding time?"}, {"u", "go"}},
			open:  []string{"Q2 comparison", "Open question for Dana: does the board deck want the median"}},
		{name: "an explicit open question stays when the assistant works on",
			steps: []step{{"a", "Open question: should exports include archived rows?"}, {"f", "/repo/export.go"}},
			open:  []string{"archived rows"}},
		{name: "user question answered by the assistant",
			steps:  []step{{"u", "why does the export skip the header row?"}, {"a", "Let me check."}, {"a", "The header row is skipped because the writer starts at index 1; I fixed the loop."}},
			closed: []string{"header row<-reply"}},
		{name: "a question inside a long prompt stays open past a reply about something else",
			steps: []step{{"u", "Some context first: the nightly build broke after the bump and I'd like it green again before Friday, the release depends on it. " +
				"Also, at some point, no rush: does anything under services/ still call the deprecated EncodeLegacy()? Anyway, start with the build."},
				{"a", "Starting with the build."}, {"a", "The build is green again."}},
			open: []string{"EncodeLegacy"}},
		{name: "a question left for later closes with the reply that names it",
			steps: []step{{"u", "Some context first: the nightly build broke after the bump and I'd like it green again before Friday, the release depends on it. " +
				"Also, at some point, no rush: does anything under services/ still call the deprecated EncodeLegacy()? Anyway, start with the build."},
				{"a", "Starting with the build."}, {"u", "thanks, now the benchmark please"},
				{"a", "Encode takes 41 ns per call. To answer your earlier question: only services/tiler/legacy_routes.cc still calls EncodeLegacy()."}},
			closed: []string{"EncodeLegacy<-reply"}},
		{name: "a function named by its call closes with the statement that it is done",
			steps: []step{{"u", "Please make Encode() reject anything above the maximum with an error status instead, and have the tiler turn that into a client error rather than a 500."},
				{"a", "Done: Encode() now rejects levels above 23 with absl::InvalidArgumentError instead of clamping, and the tiler answers that with HTTP 400."}},
			closed: []string{"Encode()<-said"}},
		{name: "restated item is one item, closed once",
			steps:  []step{{"a", "Next: run the migration."}, {"a", "Remaining: run the migration."}, {"c", "mix ecto.migrate"}},
			closed: []string{"migration<-command"}},
		{name: "restated after closing opens again",
			steps: []step{{"a", "Next: run the migration."}, {"c", "mix ecto.migrate"}, {"a", "Still to do: run the migration on staging."}},
			open:  []string{"migration on staging"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := run(tt.steps)
			var open, closed []string
			for _, it := range l.Open() {
				open = append(open, it.Text)
			}
			for _, it := range l.Closed() {
				closed = append(closed, it.Text+"<-"+it.Closed.By)
			}
			check := func(what string, got, want []string) {
				t.Helper()
				if len(got) != len(want) {
					t.Fatalf("%s: got %q, want %d items like %q", what, got, len(want), want)
				}
				for i, w := range want {
					piece, by, _ := strings.Cut(w, "<-")
					if !strings.Contains(got[i], piece) || (by != "" && !strings.HasSuffix(got[i], "<-"+by)) {
						t.Errorf("%s %d: got %q, want %q", what, i, got[i], w)
					}
				}
			}
			check("open", open, tt.open)
			check("closed", closed, tt.closed)
			for _, p := range tt.pairs {
				q, a, _ := strings.Cut(p, "->")
				for _, it := range l.Closed() {
					if strings.Contains(it.Text, q) && it.Closed.Evidence != a {
						t.Errorf("%q answered by %q, want %q", it.Text, it.Closed.Evidence, a)
					}
				}
			}
			for _, p := range tt.glosses {
				q, g, _ := strings.Cut(p, "->")
				for _, it := range l.Closed() {
					if strings.Contains(it.Text, q) && it.Closed.Gloss != g {
						t.Errorf("%q glossed %q, want %q", it.Text, it.Closed.Gloss, g)
					}
				}
			}
		})
	}
}

// TestAnswerLeftForLater: the evidence of a user's question answered
// after a later prompt is the part of the reply about it, and says it
// was answered later.
func TestAnswerLeftForLater(t *testing.T) {
	l := run([]step{{"u", "Some context first: the nightly build broke after the bump and I'd like it green again before Friday, the release depends on it. " +
		"Also, at some point, no rush: does anything under services/ still call the deprecated EncodeLegacy()? Anyway, start with the build."},
		{"a", "Starting with the build."}, {"u", "thanks, now the benchmark please"},
		{"a", "Encode takes 41 ns per call. To answer your earlier question: only services/tiler/legacy_routes.cc still calls EncodeLegacy()."}})
	var got *Item
	for _, it := range l.Closed() {
		if strings.Contains(it.Text, "EncodeLegacy") {
			got = &it
		}
	}
	if got == nil {
		t.Fatalf("the question did not close: %+v", l.Items)
	}
	if want := "To answer your earlier question: only services/tiler/legacy_routes.cc still calls EncodeLegacy()."; got.Closed.Evidence != want || !got.Closed.Later {
		t.Errorf("closure %+v, want evidence %q, later", got.Closed, want)
	}
}

// TestRestatement: a restated item keeps where it was first said and
// moves to where it was last said.
func TestRestatement(t *testing.T) {
	l := run([]step{{"a", "Next: run the migration."}, {"a", "Let me read the schema first."}, {"a", "Next step: run the migration."}, {"a", "Remaining: run the migration."}})
	open := l.Open()
	if len(open) != 1 {
		t.Fatalf("got %d open items, want 1: %+v", len(open), open)
	}
	it := open[0]
	if it.FirstLine != 10 || it.Line != 40 || it.Turn != 4 || it.Restated != 2 {
		t.Errorf("got first line %d, line %d, turn %d, restated %d; want 10, 40, 4, 2", it.FirstLine, it.Line, it.Turn, it.Restated)
	}
}

// TestBounded: however much is said, the ledger keeps at most MaxItems,
// dropping the oldest closed items before any open one.
func TestBounded(t *testing.T) {
	var l Ledger
	line := 0
	for i := 0; i < 3*MaxItems; i++ {
		line++
		l.Assistant(i, line, time.Time{}, fmt.Sprintf("Remaining: module%d needs a test.", i))
		if i%2 == 0 {
			line++
			l.FileChanged(i, line, fmt.Sprintf("/repo/module%d.go", i))
		}
	}
	if len(l.Items) != MaxItems {
		t.Fatalf("got %d items, want %d", len(l.Items), MaxItems)
	}
	if n := len(l.Closed()); n != 0 {
		t.Errorf("%d closed items kept while open ones were dropped", n)
	}
	open := l.Open()
	if last := open[len(open)-1].Text; !strings.Contains(last, fmt.Sprintf("module%d", 3*MaxItems-1)) {
		t.Errorf("newest open item %q, want the last one stated", last)
	}
}

// TestBoundedKeepsAnswers: an answer given early outlives the closed
// work items that came after it: past MaxItems they go first.
func TestBoundedKeepsAnswers(t *testing.T) {
	var l Ledger
	l.Assistant(1, 1, time.Time{}, "Before I derive the flag: do bundles that contain a physical item count as digital?")
	l.User(2, 2, time.Time{}, "no")
	line := 2
	for i := 0; i < 2*MaxItems; i++ {
		line++
		l.Assistant(i, line, time.Time{}, fmt.Sprintf("Remaining: module%d needs a test.", i))
		line++
		l.FileChanged(i, line, fmt.Sprintf("/repo/module%d.go", i))
	}
	var answered []string
	for _, it := range l.Closed() {
		if it.Closed.By == ClosedByAnswer {
			answered = append(answered, it.Text+" -> "+it.Closed.Evidence)
		}
	}
	if len(answered) != 1 || !strings.Contains(answered[0], "physical item") || !strings.HasSuffix(answered[0], "-> no") {
		t.Errorf("answers kept: %q, want the bundles question with its no", answered)
	}
	if len(l.Items) != MaxItems {
		t.Errorf("got %d items, want %d", len(l.Items), MaxItems)
	}
}

// TestResume: a ledger saved as JSON and loaded again between any two
// events (as hook processes do) ends where one fed without a break ends.
func TestResume(t *testing.T) {
	evs := readEvents(t, fixturePath(t, "fa812bfe-b295-4cca-9c2f-fdf01028cb46"))
	var whole Ledger
	feed(&whole, evs, false)
	var resumed Ledger
	for i := 0; i < len(evs); i += 37 {
		feed(&resumed, evs[i:min(i+37, len(evs))], false)
		data, err := json.Marshal(&resumed)
		if err != nil {
			t.Fatal(err)
		}
		resumed = Ledger{}
		if err := json.Unmarshal(data, &resumed); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(whole.Items, resumed.Items, cmpopts.IgnoreUnexported(Item{}), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("resumed ledger differs (-whole +resumed):\n%s", diff)
	}
}

// TestSmallFixtures: the sessions without compaction leave few items, each
// one line and clipped.
func TestSmallFixtures(t *testing.T) {
	for _, name := range []string{"short", "subagent", "tool_heavy"} {
		t.Run(name, func(t *testing.T) {
			var l Ledger
			feed(&l, readEvents(t, fixturePath(t, name)), false)
			for _, it := range l.Items {
				if strings.Contains(it.Text, "\n") || len(it.Text) > maxItemBytes+len("…") {
					t.Errorf("item not one clipped line: %q", it.Text)
				}
				t.Logf("%s %s line %d closed=%v: %s", it.By, it.Kind, it.Line, it.Closed != nil, it.Text)
			}
		})
	}
}

func TestAnswered(t *testing.T) {
	tests := []struct {
		name             string
		question, answer string
		wantClosed       []string
	}{
		{"kept closed by its answer", "Which rig do these beads belong to?", "No rig", []string{"Which rig do these beads belong to? -> No rig"}},
		{"no answer, nothing kept", "Which rig?", " ", nil},
		{"no question, nothing kept", "", "No rig", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l Ledger
			l.Answered(1, 10, time.Time{}, tt.question, tt.answer)
			var got []string
			for _, it := range l.Closed() {
				if it.Kind != Question || it.By != ByAssistant || it.Closed.By != ClosedByAnswer {
					t.Errorf("item %+v, want the assistant's question closed by an answer", it)
				}
				got = append(got, it.Text+" -> "+it.Closed.Evidence)
			}
			if !slices.Equal(got, tt.wantClosed) {
				t.Errorf("closed = %q, want %q", got, tt.wantClosed)
			}
			if open := l.Open(); len(open) != 0 {
				t.Errorf("open = %+v, want none", open)
			}
		})
	}
}

// TestReplyPutsOff: a reply that puts the assistant's question off leaves
// it open, with the reply; a reply that answers it closes it.
func TestReplyPutsOff(t *testing.T) {
	tests := []struct {
		reply    string
		wantOpen bool
	}{
		{"no idea, I'll ask Joanna tomorrow. park it for now", true},
		{"let's decide that later", true},
		{"0 to 1, like the other scores", false},
		{"yes please", false},
	}
	for _, tt := range tests {
		t.Run(tt.reply, func(t *testing.T) {
			var l Ledger
			l.Assistant(1, 10, time.Time{}, "The metric is computed. Should the score be on a 0-100 scale or 0-1?")
			l.User(2, 20, time.Time{}, tt.reply)
			var open []string
			for _, it := range l.Open() {
				if it.Kind == Question {
					open = append(open, it.Text)
				}
			}
			switch {
			case tt.wantOpen && (len(open) != 1 || !strings.Contains(open[0], "→ the user: "+tt.reply)):
				t.Errorf("open questions %q, want the question with the reply", open)
			case !tt.wantOpen && len(open) != 0:
				t.Errorf("open questions %q, want none", open)
			}
		})
	}
}

// TestConsults: a reply that leaves the choice to a third person first is
// a leaning, not the answer; asking the assistant, or checking a thing,
// is not that.
func TestConsults(t *testing.T) {
	for _, c := range []struct {
		said string
		want bool
	}{
		{"A probably, but let me check with Priya first, she owns the display code.", true},
		{"I'll ask the DBA tomorrow morning", true},
		{"still waiting on ops for the quota", true},
		{"B, once I hear back from legal", true},
		{"can you check with the linter first?", false},
		{"check the logs with grep", false},
		{"I asked you about the timeout", false},
		{"wait for the build, then deploy", false},
		{"A", false},
	} {
		t.Run(c.said, func(t *testing.T) {
			if got := consults(c.said); got != c.want {
				t.Errorf("consults = %v, want %v", got, c.want)
			}
		})
	}
	l := run([]step{{"a", "A drops float printf, B moves the font to SPI flash. A is the smaller change. Which one?"},
		{"u", "A probably, but let me check with Priya first, she owns the display code."}, {"c", "grep -rn LOG_LEVEL Core/Inc"}, {"f", "/repo/Core/Inc/board_config.h"}})
	open := false
	for _, it := range l.Items {
		if it.By == ByAssistant && it.Closed != nil {
			t.Errorf("a choice waiting on someone else is settled: %+v", it)
		}
		open = open || it.By == ByAssistant && it.Closed == nil && strings.Contains(it.Text, "Priya")
	}
	if !open {
		t.Errorf("the choice waiting on someone else is gone once the assistant works on: %+v", l.Items)
	}
}

// TestMovedOn: the question that ends a prompt is answered by the reply
// to that prompt once the user speaks again, in whatever words; not by a
// reply that only announces a look, and a question in the middle of a
// prompt waits for a reply that names it.
func TestMovedOn(t *testing.T) {
	reply := "Biggest items: the font table (2,088 bytes of .rodata) and the float printf the toolchain file links (about 7 KB)."
	tests := []struct {
		name  string
		steps []step
		open  bool
	}{
		{name: "answered by the reply", steps: []step{{"u", "ok. no -Os, the ISR timing was tuned at -O2. what's eating it?"}, {"a", reply}, {"u", "hm ok"}}},
		{name: "not before the user speaks again", steps: []step{{"u", "ok. no -Os, the ISR timing was tuned at -O2. what's eating it?"}, {"a", reply}}, open: true},
		{name: "answered by a choice", steps: []step{{"u", "what's eating it?"}, {"a", "I'll go with dropping the float printf since it costs about 7 KB of the flash."}, {"u", "no. keep it"}}},
		{name: "not by an announcement", steps: []step{{"u", "ok. no -Os, the ISR timing was tuned at -O2. what's eating it?"}, {"a", "Let me look at the map file."}, {"u", "and?"}}, open: true},
		{name: "not in the middle of a prompt", steps: []step{{"u", "what's eating the flash? anyway, start with the build please."}, {"a", reply}, {"u", "ok"}}, open: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := run(tt.steps)
			open := false
			for _, it := range l.Open() {
				open = open || it.Kind == Question && strings.Contains(it.Text, "eating")
			}
			if open != tt.open {
				t.Errorf("open %v, want %v: %+v", open, tt.open, l.Items)
			}
		})
	}
}

func TestNumberedParts(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"1 yes 2 no, keep v1 3 later 4 staging only", []string{"yes", "no, keep v1", "later", "staging only"}},
		{"1) drift\n2) 24 now\n3) no", []string{"drift", "24 now", "no"}},
		{"1. yes 2. no", []string{"yes", "no"}},
		{"3 retries 4 seconds", nil},
		{"1 worker is enough", nil},
		{"use 1 worker and 2 queues", nil},
		{"1 2 3", nil},
	} {
		if got := numberedParts(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("numberedParts(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestDeclinedProposal: what the assistant proposed in its reply closes
// when the user's next prompt says no to it by name; the other proposal,
// not named, stays open, and "don't forget" is no refusal.
func TestDeclinedProposal(t *testing.T) {
	l := run([]step{{"u", "the import job for the warehouse keeps running out of memory on the big tenants"},
		{"a", "Two changes I'd make:\n\n- Stream the CSV in chunks of 50k rows instead of loading it whole.\n- Raise the pod's memory limit to 8Gi in deploy/import.yaml as a safety margin.\n\nOK to go ahead?"},
		{"u", "chunks sounds right. the memory limit, nope, ops caps us at 4Gi"}})
	var streamOpen, limitClosed bool
	for _, it := range l.Open() {
		streamOpen = streamOpen || strings.Contains(it.Text, "Stream the CSV")
	}
	for _, it := range l.Closed() {
		limitClosed = limitClosed || strings.Contains(it.Text, "memory limit") && it.Closed.By == ClosedByAnswer
	}
	if !streamOpen || !limitClosed {
		t.Errorf("want the chunks open and the memory limit declined: open %+v, closed %+v", l.Open(), l.Closed())
	}
	l = run([]step{{"u", "the import job for the warehouse keeps running out of memory"},
		{"a", "Next: raise the pod's memory limit to 8Gi in deploy/import.yaml."},
		{"u", "sounds good, and don't forget the memory limit of the staging pod too"}})
	for _, it := range l.Closed() {
		if strings.Contains(it.Text, "memory limit") {
			t.Errorf("a reminder declined the proposal: %+v", it)
		}
	}
}
