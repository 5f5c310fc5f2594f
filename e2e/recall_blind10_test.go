package e2e

import (
	"fmt"
	"path/filepath"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's tenth blind set: four more held-out sessions, written
// without reading cairn's extraction, checkpoint, render or redaction code
// nor any other scenario's facts, only the bench's types and helpers and
// real transcripts. Their first run on main is the blind measurement;
// nothing in cairn was tuned on them, and a check may only be corrected
// where it could not have matched a faithful restore.
//
// Each is a stack no other set used, in a voice of its own:
//   - a Rails + Sidekiq job fix by a terse user, compacted three times in
//     a row (auto, auto, then /compact with the user's own instructions),
//     where the user moves the job's queue twice and the last word stands;
//   - a pandas/Airflow ETL investigation by a chatty analyst where Agent
//     subagents do the digging (row counts, a DST bug, a chunk size) and
//     the compaction falls inside a turn, right after a subagent's result;
//   - a Bun TypeScript webhook service where the agent asks four numbered
//     questions, the user answers them in one terse line and later takes
//     one back, with a TodoWrite list finished out of order and an item
//     deleted;
//   - an AWS CDK change with an access key pair printed by a command and a
//     GitHub token in a remote URL the user pastes, in a session swollen
//     by long synth, diff and jest outputs.
//
// They run only in the report (TestRecallReport) and are marked
// "held-out, blind10" in its shape column.

// blind10Scenarios are the tenth blind set.
func blind10Scenarios() []scenario {
	return []scenario{
		blind10SidekiqThrice(),
		blind10AirflowSubagents(),
		blind10BunQuestions(),
		blind10CDKSecrets(),
	}
}

// b10Grep is a Grep tool call as the client's model makes one.
func b10Grep(id, pattern, path, glob string) fakeapi.ToolUse {
	in := map[string]any{"pattern": pattern, "path": path, "output_mode": "content", "-n": true}
	if glob != "" {
		in["glob"] = glob
	}
	return fakeapi.ToolUse{ID: id, Name: "Grep", Input: in}
}

// b10Ran is a check that a command ran and ended with the given exit code
// (or, for a failure, was told as failing), on one line of the request.
func b10Ran(name, cmd string, code int) fact {
	ended := fmt.Sprintf(`(exit(ed)?( with)?( code| status)?:? ?%d\b|\(%d\))`, code, code)
	if code != 0 {
		ended = `(` + ended + `|\bfail(ed|s|ure)?\b|\berror\b)`
	} else {
		ended = `(` + ended + `|\bpass(ed|es|ing)?\b|\bsucceed(ed|s)?\b|\bclean\b|\bgreen\b|\bfixed\b)`
	}
	return rx(name, `(?i)`+cmd+`[^\n]{0,200}`+ended)
}

// blind10SidekiqThrice: a terse Rails developer fixes duplicate invoice
// reminders sent when Sidekiq retries after a Postmark timeout. Three
// compactions in a row: automatic, automatic, then /compact with the
// user's own instructions. The job's queue is a constraint the user
// changes twice (low, then mailers, then default): each is checked only
// while it stands.
func blind10SidekiqThrice() scenario {
	job := "app/sidekiq/invoice_reminder_job.rb"
	rails := `#!/bin/sh
# bin/rails: binstub stand-in for this checkout (no Ruby on the bench box)
job=app/sidekiq/invoice_reminder_job.rb
case "$1" in
test)
  echo "Running 4 tests in a single process (parallelization threshold is 50)"
  echo "Run options: --seed 40917"
  echo ""
  echo "# Running:"
  echo ""
  if grep -q 'rescue PostmarkError' $job; then
    echo "..E."
    echo ""
    echo "Error:"
    echo "InvoiceReminderJobTest#test_retry_after_postmark_timeout_does_not_resend:"
    echo "NameError: uninitialized constant InvoiceReminderJob::PostmarkError"
    echo "    app/sidekiq/invoice_reminder_job.rb:15:in 'block in InvoiceReminderJob#perform'"
    echo "    app/sidekiq/invoice_reminder_job.rb:9:in 'InvoiceReminderJob#perform'"
    echo "    test/sidekiq/invoice_reminder_job_test.rb:34:in 'block in <class:InvoiceReminderJobTest>'"
    echo ""
    echo "bin/rails test test/sidekiq/invoice_reminder_job_test.rb:31"
    echo ""
    echo "Finished in 0.412893s, 9.6878 runs/s, 14.5317 assertions/s."
    echo "4 runs, 6 assertions, 0 failures, 1 errors, 0 skips"
    exit 1
  fi
  if grep -q 'reminder_sent_at' $job; then
    echo "...."
    echo ""
    echo "Finished in 0.388120s, 10.3061 runs/s, 23.1887 assertions/s."
    echo "4 runs, 9 assertions, 0 failures, 0 errors, 0 skips"
    exit 0
  fi
  echo "..F."
  echo ""
  echo "Failure:"
  echo "InvoiceReminderJobTest#test_retry_after_postmark_timeout_does_not_resend [test/sidekiq/invoice_reminder_job_test.rb:31]:"
  echo "\"ActionMailer::Base.deliveries.size\" didn't change by 1, but by 2."
  echo "Expected: 1"
  echo "  Actual: 2"
  echo ""
  echo "bin/rails test test/sidekiq/invoice_reminder_job_test.rb:31"
  echo ""
  echo "Finished in 0.401554s, 9.9613 runs/s, 19.9226 assertions/s."
  echo "4 runs, 8 assertions, 1 failures, 0 errors, 0 skips"
  exit 1
  ;;
runner)
  echo "duplicate reminders since 2026-11-17: 214 invoices (431 emails)"
  echo "worst: invoice 88213, reminded 4 times"
  echo "by day: 11-17 31 | 11-18 22 | 11-19 40 | 11-20 18 | 11-21 37 | 11-22 29 | 11-23 37"
  ;;
db:migrate)
  echo "== 20261124093012 AddReminderSentAtToInvoices: migrating ======================"
  echo "-- add_column(:invoices, :reminder_sent_at, :datetime)"
  echo "   -> 0.0123s"
  echo "-- add_index(:invoices, :reminder_sent_at)"
  echo "   -> 0.0415s"
  echo "== 20261124093012 AddReminderSentAtToInvoices: migrated (0.0541s) ============="
  ;;
*)
  echo "Unrecognized command \"$1\" (Rails::Command::UnrecognizedCommandError)" >&2
  exit 1
  ;;
esac
`
	sc := scenario{
		Name:  "blind10-sidekiq-thrice",
		Shape: "held-out, blind10: Rails + Sidekiq, terse user, auto + auto + /compact with instructions, a constraint changed twice",
		Files: map[string]string{
			"Gemfile":   "source \"https://rubygems.org\"\n\ngem \"rails\", \"~> 7.2.2\"\ngem \"sidekiq\", \"~> 7.3\"\ngem \"postmark-rails\", \"~> 0.22\"\ngem \"mysql2\"\n",
			"bin/rails": rails,
			job:         "class InvoiceReminderJob\n  include Sidekiq::Job\n  sidekiq_options queue: :low, retry: 5\n\n  def perform(invoice_id)\n    invoice = Invoice.find(invoice_id)\n    return if invoice.paid?\n\n    InvoiceMailer.reminder(invoice).deliver_now\n    invoice.increment!(:reminders_count)\n  end\nend\n",
			"test/sidekiq/invoice_reminder_job_test.rb":  "require \"test_helper\"\n\nclass InvoiceReminderJobTest < ActiveSupport::TestCase\n  include ActionMailer::TestHelper\n\n  test \"retry after postmark timeout does not resend\" do\n    invoice = invoices(:overdue)\n    assert_difference -> { ActionMailer::Base.deliveries.size }, 1 do\n      InvoiceReminderJob.new.perform(invoice.id)\n      InvoiceReminderJob.new.perform(invoice.id)\n    end\n  end\nend\n",
			"config/sidekiq.yml":                         ":concurrency: 10\n:queues:\n  - critical\n  - default\n  - mailers\n  - low\n",
			"script/count_duplicate_reminders.rb":        "# Counts invoices that got more than one reminder since a date.\nsince = Date.new(2026, 11, 17)\n",
			"app/views/invoice_mailer/reminder.html.erb": "<p>Invoice <%= @invoice.number %> is overdue.</p>\n",
		},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(bin/rails:*)"},
		PermissionMode: "acceptEdits",
		Compactions:    []string{"auto", "auto", "manual"},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			test := "bin/rails test test/sidekiq/invoice_reminder_job_test.rb"
			before = []turn{
				{
					Prompt: "ENG-4127. invoice reminders go out twice when postmark times out and sidekiq retries. job is " + job + ". it has to stay on the `low` queue. dont run the whole suite (40 min), only test/sidekiq",
					Replies: []fakeapi.Reply{
						reply("", 14000, read("toolu_b10s_read_job", p(job))),
						reply("", 15200, b10Grep("toolu_b10s_grep", "deliver_(now|later)", p("app"), "*.rb")),
						reply("", 16100, bash("toolu_b10s_test1", test, "Run the reminder job test")),
						reply("Reproduced: the test sees two deliveries for one invoice. perform sends the mail and only then bumps reminders_count, so when Postmark times out after accepting the message, Sidekiq retries and sends it again.", 17000),
					},
				},
				{
					Prompt: "how many dupes went out",
					Replies: []fakeapi.Reply{
						reply("", 18000, bash("toolu_b10s_count", "bin/rails runner script/count_duplicate_reminders.rb", "Count duplicate reminders since Nov 17")),
						reply("214 invoices got a duplicate reminder since Nov 17 (431 emails in all); the worst, invoice 88213, got four.", 18800),
					},
				},
				{
					Prompt: "ok fix it. marta owns the mailer views, dont touch app/views/invoice_mailer without asking her",
					Replies: []fakeapi.Reply{
						reply("I'll guard the send with a row lock and a reminder_sent_at column instead of a Redis idempotency key: Sidekiq's retry backoff can outlive any TTL we'd give the key.", 20000,
							write("toolu_b10s_migration", p("db/migrate/20261124093012_add_reminder_sent_at_to_invoices.rb"),
								"class AddReminderSentAtToInvoices < ActiveRecord::Migration[7.2]\n  def change\n    add_column :invoices, :reminder_sent_at, :datetime\n    add_index :invoices, :reminder_sent_at\n  end\nend\n")),
						reply("", 21000, edit("toolu_b10s_edit_lock", p(job),
							"    InvoiceMailer.reminder(invoice).deliver_now\n    invoice.increment!(:reminders_count)\n",
							"    invoice.with_lock do\n      return if invoice.reminder_sent_at&.after?(12.hours.ago)\n\n      InvoiceMailer.reminder(invoice).deliver_now\n      invoice.update!(reminder_sent_at: Time.current, reminders_count: invoice.reminders_count + 1)\n    end\n")),
						reply("", 21800, bash("toolu_b10s_migrate", "bin/rails db:migrate", "Apply the migration")),
						reply("", 22500, bash("toolu_b10s_test2", test, "Rerun the reminder job test")),
						reply("", 23000, todoWrite("toolu_b10s_todo1",
							[2]string{"Guard InvoiceReminderJob with reminder_sent_at under a row lock", "completed"},
							[2]string{"Backfill reminder_sent_at for invoices reminded since Nov 17", "pending"},
							[2]string{"Log the invoice id in sidekiq_retries_exhausted", "pending"})),
						full("Fixed: the send is guarded by the lock and the timestamp, and the job test passes (4 runs, 0 failures)."),
					},
				},
				// Compaction 1 (auto) happens before this turn's first request.
				{
					Prompt: "next",
					Replies: []fakeapi.Reply{
						reply("", 8200, read("toolu_b10s_reread_job", p(job))),
						reply("Next: a Postmark timeout should be logged and re-raised so Sidekiq still retries.", 9000,
							edit("toolu_b10s_edit_rescue", p(job),
								"      InvoiceMailer.reminder(invoice).deliver_now\n",
								"      begin\n        InvoiceMailer.reminder(invoice).deliver_now\n      rescue PostmarkError => e\n        Rails.logger.warn(\"reminder #{invoice.id}: #{e.message}\")\n        raise\n      end\n")),
						reply("", 10000, bash("toolu_b10s_test3", test, "Run the reminder job test")),
						reply("NameError: there is no top-level PostmarkError; the gem raises Postmark::TimeoutError. Fixing the rescue.", 11000,
							edit("toolu_b10s_edit_rescue2", p(job), "rescue PostmarkError => e", "rescue Postmark::TimeoutError => e")),
						reply("", 11800, bash("toolu_b10s_test4", test, "Rerun the reminder job test")),
						reply("Green again: timeouts are logged with the invoice id and re-raised.", 12400),
					},
				},
				{
					Prompt: "change of plan on the queue: move it to `mailers`, we got a dedicated worker pool for that now",
					Replies: []fakeapi.Reply{
						reply("", 13500, edit("toolu_b10s_edit_q1", p(job), "queue: :low", "queue: :mailers")),
						full("Moved to the mailers queue (config/sidekiq.yml already lists it)."),
					},
				},
				// Compaction 2 (auto) happens before this turn's first request.
				{
					Prompt: "ok",
					Replies: []fakeapi.Reply{
						reply("", 8000, todoWrite("toolu_b10s_todo2",
							[2]string{"Guard InvoiceReminderJob with reminder_sent_at under a row lock", "completed"},
							[2]string{"Log the invoice id in sidekiq_retries_exhausted", "completed"},
							[2]string{"Backfill reminder_sent_at for invoices reminded since Nov 17", "pending"})),
						reply("The retries_exhausted log was already covered by the rescue; only the backfill is left.", 8600),
					},
				},
				{
					Prompt: "scratch both queue changes. leave it on `default`. ops wont add or resize a queue before the freeze",
					Replies: []fakeapi.Reply{
						reply("", 9000, read("toolu_b10s_reread_job2", p(job))),
						reply("", 9400, edit("toolu_b10s_edit_q2", p(job), "queue: :mailers", "queue: :default")),
						reply("It's on default now. Next: dry-run the backfill on staging (bin/rails runner script/backfill_reminder_sent_at.rb --dry-run) before anything touches prod.", 10100),
					},
				},
				// Compaction 3: the user's own /compact with instructions.
				{Prompt: "/compact keep the dedupe fix, where the queue ended up and the backfill plan. drop the test output"},
			}
			after = []turn{
				{Prompt: "where were we", Replies: []fakeapi.Reply{reply("Picking up from the restored state.", 6000)}},
				{Prompt: "go", Replies: []fakeapi.Reply{reply("On it.", 6400)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "ENG-4127"),
			rx("constraint: stay on the low queue (first word)", `(?i)stay on the .?low.? queue`).until(1),
			rx("constraint: mailers queue (first change)", `(?i)mailers.? queue|queue: :mailers`).from(2).until(2),
			rx("constraint: default queue (last change)", `(?i)leave it on .?default|default.? queue|queue: :default`).from(3),
			rx("constraint's reason: no queue changes before the freeze", `(?i)before the freeze`).from(3),
			rx("constraint: not the whole suite", `(?i)whole suite`),
			rx("constraint: mailer views are Marta's", `(?i)marta`, `app/views/invoice_mailer`),
			lit("file edited", job),
			lit("file created: migration", "db/migrate/20261124093012_add_reminder_sent_at_to_invoices.rb"),
			b10Ran("failed command: the job test, exit 1", `invoice_reminder_job_test\.rb`, 1).until(1),
			b10Ran("failure fixed: the job test passes", `invoice_reminder_job_test\.rb`, 0),
			lit("decision", "instead of a Redis idempotency key"),
			rx("decision's reason", `(?i)retry backoff can outlive any TTL`),
			rx("finding: 214 invoices reminded twice", `\b214\b[^\n]{0,80}(?i:invoice|dup|remind)|(?i:dup|remind)[^\n]{0,80}\b214\b`),
			rx("failure after compaction 1: NameError", `uninitialized constant InvoiceReminderJob::PostmarkError|NameError[^\n]{0,80}PostmarkError`).from(2),
			lit("failure's fix: Postmark::TimeoutError", "Postmark::TimeoutError").from(2),
			lit("open todo: backfill", "Backfill reminder_sent_at for invoices reminded since Nov 17"),
			rx("next step: backfill dry-run on staging", `(?i)dry-run[^\n]{0,80}staging|staging[^\n]{0,120}dry-run|backfill_reminder_sent_at\.rb --dry-run`).from(3),
		},
	}
	return sc
}

// blind10AirflowSubagents: a chatty analyst has an Airflow DAG
// undercounting orders since the DST change. Agent subagents do the
// digging: row counts by hour (and a command printing a warehouse
// password), the timezone bug in the pandas transform, a chunk size
// benchmark. The compaction falls inside the last turn, right after the
// benchmark subagent's result, before the main agent answers it.
func blind10AirflowSubagents() scenario {
	python := `#!/bin/sh
# python stand-in: the two repo scripts this session runs
case "$*" in
*count_rows.py*)
  echo "ds          source(orders)  warehouse(fact_orders)  missing"
  echo "2026-10-31       1,301,774               1,301,774        0"
  echo "2026-11-01       1,284,913               1,279,402    5,511"
  echo "2026-11-02       1,266,020               1,266,020        0"
  echo ""
  echo "missing rows on 2026-11-01 by created_at hour (UTC):"
  for h in 00 02 03 04 05 06 07 08 09 10 11; do echo "  $h:00  0"; done
  echo "  01:00  5511"
  for h in 12 13 14 15 16 17 18 19 20 21 22 23; do echo "  $h:00  0"; done
  ;;
*bench_chunks.py*)
  echo "chunksize   wall      peak_rss   gc_pauses"
  echo "   50000    14m12s    0.83 GiB   212"
  echo "  100000     8m05s    1.41 GiB   118"
  echo "  200000     6m58s    2.63 GiB    64"
  echo "input: orders 2026-11-23 (1,412,337 rows), pandas 2.2.3, pyarrow 17.0.0"
  ;;
*)
  echo "python: can't open file '$1': [Errno 2] No such file or directory" >&2
  exit 2
  ;;
esac
`
	pytest := `#!/bin/sh
# pytest stand-in: fails while the test pins the old localisation
if grep -q 'tz_convert' etl/transforms/orders.py && grep -q '01:30:00+00:00' tests/test_orders_transform.py; then
  echo "....                                                                     [100%]"
  echo "4 passed in 1.87s"
  exit 0
fi
if grep -q 'tz_convert' etl/transforms/orders.py; then
  echo "...F                                                                     [100%]"
  echo "=================================== FAILURES ==================================="
  echo "___________________________ test_keeps_ambiguous_hour ___________________________"
  echo ""
  echo "    def test_keeps_ambiguous_hour():"
  echo "        out = transform(sample_orders())"
  echo ">       assert str(out.created_at.iloc[0]) == \"2026-11-01 01:30:00-05:00\""
  echo "E       AssertionError: assert '2026-10-31 20:30:00-05:00' == '2026-11-01 01:30:00-05:00'"
  echo ""
  echo "tests/test_orders_transform.py:29: AssertionError"
  echo "=========================== short test summary info ============================"
  echo "FAILED tests/test_orders_transform.py::test_keeps_ambiguous_hour - AssertionError"
  echo "1 failed, 3 passed in 1.92s"
  exit 1
fi
echo "...."
echo "4 passed in 1.80s"
`
	airflow := `#!/bin/sh
# airflow CLI stand-in
case "$*" in
"connections get warehouse_pg -o yaml")
  echo "conn_id: warehouse_pg"
  echo "conn_type: postgres"
  echo "description: analytics warehouse (loader role)"
  echo "extra: '{\"sslmode\": \"require\"}'"
  echo "get_uri: postgresql://etl_loader:Wq7-tusk-Harbor-0193@warehouse.internal.acme:5432/analytics?sslmode=require"
  echo "host: warehouse.internal.acme"
  echo "login: etl_loader"
  echo "password: Wq7-tusk-Harbor-0193"
  echo "port: 5432"
  echo "schema: analytics"
  ;;
*)
  echo "airflow command error: argument GROUP_OR_COMMAND: invalid choice" >&2
  exit 2
  ;;
esac
`
	orders := `"""Transform step of orders_daily_rollup: raw orders to fact rows."""
import pandas as pd

CHUNKSIZE = 250_000
LOCAL_TZ = "America/Chicago"


def read_orders(path):
    return pd.read_parquet(path)


def transform(df: pd.DataFrame) -> pd.DataFrame:
    # created_at comes from the source as a naive timestamp
    df["created_at"] = pd.to_datetime(df["created_at"]).dt.tz_localize(LOCAL_TZ, ambiguous="NaT")
    df = df.dropna(subset=["created_at"])
    df["order_date"] = df["created_at"].dt.date
    return df
`
	sc := scenario{
		Name:  "blind10-airflow-subagents",
		Shape: "held-out, blind10: pandas/Airflow ETL, chatty user, findings from Agent subagents, compacted inside a turn right after a subagent's result",
		Files: map[string]string{
			"dags/orders_daily_rollup.py":    "from airflow import DAG\nfrom airflow.operators.python import PythonOperator\nimport pendulum\n\nwith DAG(\n    dag_id=\"orders_daily_rollup\",\n    schedule=\"0 6 * * *\",\n    start_date=pendulum.datetime(2025, 1, 1, tz=\"UTC\"),\n    catchup=False,\n    max_active_runs=1,\n) as dag:\n    extract_orders = PythonOperator(task_id=\"extract_orders\", python_callable=lambda: None)\n    transform_orders = PythonOperator(task_id=\"transform_orders\", python_callable=lambda: None)\n    load_orders_fact = PythonOperator(task_id=\"load_orders_fact\", python_callable=lambda: None)\n    extract_orders >> transform_orders >> load_orders_fact\n",
			"etl/transforms/orders.py":       orders,
			"tests/test_orders_transform.py": "from etl.transforms.orders import transform\n\n\ndef test_keeps_ambiguous_hour():\n    out = transform(sample_orders())\n    assert str(out.created_at.iloc[0]) == \"2026-11-01 01:30:00-05:00\"\n",
			"scripts/count_rows.py":          "\"\"\"Compare source and warehouse order counts per ds.\"\"\"\n",
			"scripts/bench_chunks.py":        "\"\"\"Time the orders transform at several chunk sizes.\"\"\"\n",
		},
		Bins:           map[string]string{"python": python, "pytest": pytest, "airflow": airflow},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(python:*)", "Bash(pytest:*)", "Bash(airflow connections get:*)"},
		PermissionMode: "acceptEdits",
		// Automatic, inside the last turn: the client compacts after the
		// benchmark subagent returns, before the request that carries its
		// result. (Not "in-turn": the last conversation request before the
		// compaction is the subagent's, which made no tool call.)
		Compactions: []string{"auto"},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			countPrompt := "Compare source vs warehouse row counts of orders_daily_rollup for ds 2026-10-31, 2026-11-01 and 2026-11-02 and break any gap down by created_at hour. Use python scripts/count_rows.py; the warehouse connection is warehouse_pg in Airflow. Report numbers, don't change anything."
			tzPrompt := "Find where etl/ localises or converts created_at and explain why orders created 01:00-01:59 UTC on 2026-11-01 never reach fact_orders. Read-only: don't edit files. Say which DAG tasks are affected."
			benchPrompt := "Benchmark the orders transform at chunk sizes 50000, 100000 and 200000 with python scripts/bench_chunks.py and recommend one for the transform pod (memory limit 2Gi). Give the numbers."
			before = []turn{
				{
					Prompt: "Hey!! so the orders_daily_rollup DAG has been undercounting since the clocks changed, finance noticed the Nov 1 revenue is off vs Shopify 😬 ticket is ANLT-2290. could you dig in? please use subagents for the digging so your context stays clean. oh and one thing, no backfills wider than 3 days per run, we got a scary warehouse bill the last time someone backfilled a month. thanks!!",
					Replies: []fakeapi.Reply{
						reply("", 12000, read("toolu_b10a_read_dag", p("dags/orders_daily_rollup.py"))),
						reply("The DAG is extract_orders >> transform_orders >> load_orders_fact, daily at 06:00 UTC. I'll have a subagent compare the counts first.", 13000,
							agentCall("toolu_b10a_agent_counts", "general-purpose", "Compare order row counts", countPrompt)),
						{For: "Compare source vs warehouse row counts", Usage: usageAt(3000), Tools: []fakeapi.ToolUse{
							bash("toolu_b10a_sub_count", "python scripts/count_rows.py --ds 2026-10-31 --ds 2026-11-01 --ds 2026-11-02 --by-hour", "Count rows per ds and hour")}},
						{For: "Compare source vs warehouse row counts", Usage: usageAt(4200), Tools: []fakeapi.ToolUse{
							bash("toolu_b10a_sub_conn", "airflow connections get warehouse_pg -o yaml", "Check which warehouse the loader writes to")}},
						{For: "Compare source vs warehouse row counts", Usage: usageAt(5000), Text: "Row counts, source `orders` vs warehouse `fact_orders`:\n- 2026-10-31: 1,301,774 vs 1,301,774\n- 2026-11-01: 1,284,913 vs 1,279,402 -> 5,511 rows missing\n- 2026-11-02: 1,266,020 vs 1,266,020\n\nAll 5,511 missing rows have created_at between 01:00 and 01:59 UTC on 2026-11-01; every other hour matches. The loader writes to warehouse.internal.acme/analytics as etl_loader."},
						reply("The subagent found the gap: 5,511 orders missing on 2026-11-01, all created between 01:00 and 01:59 UTC; the days around it match exactly.", 14500),
					},
				},
				{
					Prompt: "omg ok that's gotta be the DST hour. which tasks are affected? and can you find the actual bug",
					Replies: []fakeapi.Reply{
						reply("", 15500, agentCall("toolu_b10a_agent_tz", "general-purpose", "Find the timezone bug", tzPrompt)),
						{For: "Find where etl/ localises or converts created_at", Usage: usageAt(3100), Tools: []fakeapi.ToolUse{
							b10Grep("toolu_b10a_sub_grep", `tz_localize|tz_convert|dropna`, p("etl"), "*.py")}},
						{For: "Find where etl/ localises or converts created_at", Usage: usageAt(4000), Tools: []fakeapi.ToolUse{
							read("toolu_b10a_sub_read", p("etl/transforms/orders.py"))}},
						{For: "Find where etl/ localises or converts created_at", Usage: usageAt(5200), Text: "Found it. etl/transforms/orders.py, transform(): created_at is stored as naive UTC, but the code does `pd.to_datetime(df[\"created_at\"]).dt.tz_localize(LOCAL_TZ, ambiguous=\"NaT\")` with LOCAL_TZ = \"America/Chicago\". It treats UTC wall times as Chicago wall times. On 2026-11-01 the 01:00-01:59 wall-clock hour happens twice in Chicago (CDT falls back to CST), so those timestamps are ambiguous, become NaT, and the next line, `df.dropna(subset=[\"created_at\"])`, drops them silently.\n\nFix: `.dt.tz_localize(\"UTC\").dt.tz_convert(LOCAL_TZ)`.\n\nAffected tasks: transform_orders (drops the rows) and load_orders_fact (loads what transform gives it). extract_orders is fine: its counts match the source."},
						reply("", 16000, read("toolu_b10a_read_orders", p("etl/transforms/orders.py"))),
						reply("Affected: transform_orders and load_orders_fact; extract_orders is fine. The bug: naive UTC timestamps are localised as America/Chicago with ambiguous=\"NaT\", so the repeated hour turns into NaT and dropna removes it. Fixing it the way the subagent suggests: localise as UTC, then convert.", 16500,
							edit("toolu_b10a_edit_tz", p("etl/transforms/orders.py"),
								`dt.tz_localize(LOCAL_TZ, ambiguous="NaT")`, `dt.tz_localize("UTC").dt.tz_convert(LOCAL_TZ)`)),
						reply("", 17200, bash("toolu_b10a_pytest1", "pytest tests/test_orders_transform.py -q", "Run the transform tests")),
						reply("", 17600, read("toolu_b10a_read_test", p("tests/test_orders_transform.py"))),
						reply("That test pinned the buggy behaviour: it expected 01:30 UTC to be read as 01:30 Chicago time. Correcting its expectation to the real instant.", 18000,
							edit("toolu_b10a_edit_test", p("tests/test_orders_transform.py"), `"2026-11-01 01:30:00-05:00"`, `"2026-11-01 01:30:00+00:00"`)),
						reply("", 18600, bash("toolu_b10a_pytest2", "pytest tests/test_orders_transform.py -q", "Rerun the transform tests")),
						reply("Tests pass (4 passed).", 19000),
					},
				},
				{
					Prompt: "amazing 🙌 last thing, transform_orders keeps getting OOMKilled on big days. can you figure out a sane chunk size? subagent again please. and keep catchup=False on the DAG, don't flip that whatever you do",
					Replies: []fakeapi.Reply{
						full("", agentCall("toolu_b10a_agent_bench", "general-purpose", "Benchmark chunk sizes", benchPrompt)),
						{For: "Benchmark the orders transform at chunk sizes", Usage: usageAt(3000), Tools: []fakeapi.ToolUse{
							bash("toolu_b10a_sub_bench", "python scripts/bench_chunks.py --sizes 50000,100000,200000", "Benchmark chunk sizes")}},
						{For: "Benchmark the orders transform at chunk sizes", Usage: usageAt(3900), Text: "Benchmark on 2026-11-23 (1,412,337 rows):\n\n| chunksize | wall | peak RSS |\n|---|---|---|\n| 50000 | 14m12s | 0.83 GiB |\n| 100000 | 8m05s | 1.41 GiB |\n| 200000 | 6m58s | 2.63 GiB |\n\nRecommendation: chunksize 100000. 200000 peaks at 2.63 GiB, over the pod's 2Gi limit (that is the OOMKill; the current 250_000 is worse), and 50000 is almost twice as slow for no gain."},
						// The compaction happens here, before the request carrying the result.
						{ToolResultFor: "toolu_b10a_agent_bench", Usage: usageAt(9000), Tools: []fakeapi.ToolUse{
							edit("toolu_b10a_edit_chunk", p("etl/transforms/orders.py"), "CHUNKSIZE = 250_000", "CHUNKSIZE = 100_000")}},
						reply("CHUNKSIZE is 100_000 now.", 9600),
					},
				},
			}
			after = []turn{
				{Prompt: "sounds good! what's next?", Replies: []fakeapi.Reply{reply("Let me pick up from there.", 10400)}},
				{Prompt: "perfect, go ahead", Replies: []fakeapi.Reply{reply("Going ahead.", 10900)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "ANLT-2290"),
			rx("constraint: backfills at most 3 days per run", `(?i)(no )?backfills? wider than 3 days|backfills?[^\n]{0,60}(3|three) days`),
			rx("constraint: keep catchup=False", `(?i)keep catchup=False|catchup=False[^\n]{0,80}(don't|do not|never|keep)`),
			lit("key file read: the DAG", "dags/orders_daily_rollup.py"),
			rx("subagent finding: 5,511 rows missing on 2026-11-01", `5,?511`, `2026-11-01|Nov(ember)? 1\b`),
			rx("subagent finding: source vs warehouse counts", `1,?284,?913`, `1,?279,?402`),
			rx("subagent finding: the missing hour is 01:00-01:59 UTC", `(?i)01:00[^\n]{0,30}01:59|01:00[^\n]{0,20}UTC|1 ?am[^\n]{0,20}UTC`),
			rx("subagent finding: tz_localize America/Chicago with ambiguous=NaT", `tz_localize\((LOCAL_TZ|"America/Chicago")[^\n]{0,30}ambiguous="NaT"`),
			rx("subagent finding's fix: localise as UTC then convert", `tz_localize\("UTC"\)\.dt\.tz_convert|tz_localize\("UTC"\)[^\n]{0,40}tz_convert`),
			rx("answer: tasks affected", `transform_orders`, `load_orders_fact`, `(?i)extract_orders( is|[^\n]{0,40}(fine|unaffected|not affected|ok))`),
			lit("file edited: the transform", "etl/transforms/orders.py"),
			lit("file edited: the test", "tests/test_orders_transform.py"),
			b10Ran("failed command: pytest, exit 1", `pytest tests/test_orders_transform\.py`, 1),
			rx("failure fixed: pytest passes", `(?i)pytest tests/test_orders_transform\.py[^\n]{0,200}(exit(ed)?( code)?:? ?0\b|4 passed|\bpass(ed|es)?\b|fixed)|4 passed`),
			rx("subagent finding: chunk size 100000", `(?i)chunk ?size:? ?100,?_?000|100,?_?000[^\n]{0,40}chunk`),
			rx("subagent finding's reason: 200000 peaks at 2.63 GiB over the 2Gi limit", `2\.63 ?GiB`, `(?i)2 ?Gi\b`),
		},
		Secrets: []secret{{"database password (Airflow connection)", "Wq7-tusk-Harbor-0193"}},
	}
	return sc
}

// blind10BunQuestions: a terse user's Bun webhook relay rejects a
// partner's signatures. The agent asks four numbered questions; the user
// answers all four in one line, then after the first compaction takes the
// first answer back. A TodoWrite list is finished out of order, and the
// item the retracted answer asked for is deleted from it.
func blind10BunQuestions() scenario {
	bun := `#!/bin/sh
# bun stand-in: bun test for this repo
if [ "$1" != "test" ]; then echo "bun: stand-in knows only 'bun test'" >&2; exit 1; fi
echo "bun test v1.2.19 (aad3abea)"
echo ""
echo "test/webhooks.test.ts:"
if grep -q 'timingSafeEqual' src/webhooks/verify.ts && grep -q 'base64' src/webhooks/verify.ts; then
  echo "(pass) POST /webhooks > rejects a missing signature [0.61ms]"
  echo "(pass) POST /webhooks > rejects a bad v1 signature [1.42ms]"
  echo "(pass) POST /webhooks > accepts a valid v1 signature [2.88ms]"
  echo "(pass) POST /webhooks > rejects a stale timestamp [0.70ms]"
  echo "(pass) POST /webhooks > returns 413 over 256 KiB [4.02ms]"
  echo ""
  echo " 5 pass"
  echo " 0 fail"
  echo " 11 expect() calls"
  echo "Ran 5 tests across 1 file. [188.00ms]"
  exit 0
fi
echo "(pass) POST /webhooks > rejects a missing signature [0.58ms]"
echo "(pass) POST /webhooks > rejects a bad v1 signature [1.39ms]"
echo "(fail) POST /webhooks > accepts a valid v1 signature [3.10ms]"
echo ""
echo "   6 |   const res = await app.fetch(signed(body, SECRET));"
echo "   7 |   expect(res.status).toBe(200);"
echo "                          ^"
echo "error: expect(received).toBe(expected)"
echo ""
echo "Expected: 200"
echo "Received: 401"
echo ""
echo "      at <anonymous> (test/webhooks.test.ts:7:22)"
echo "(pass) POST /webhooks > rejects a stale timestamp [0.66ms]"
echo "(pass) POST /webhooks > returns 413 over 256 KiB [3.97ms]"
echo ""
echo " 4 pass"
echo " 1 fail"
echo " 10 expect() calls"
echo "Ran 5 tests across 1 file. [212.00ms]"
exit 1
`
	bunx := `#!/bin/sh
# bunx stand-in: tsc --noEmit over src/
if [ "$1" != "tsc" ]; then echo "bunx: stand-in knows only tsc" >&2; exit 1; fi
if grep -q 'event_id: unknown' src/webhooks/guard.ts 2>/dev/null || grep -q '"event_id" in' src/webhooks/guard.ts 2>/dev/null; then
  exit 0
fi
echo "src/webhooks/guard.ts(7,16): error TS2339: Property 'event_id' does not exist on type 'object'."
echo "src/webhooks/guard.ts(8,16): error TS2339: Property 'type' does not exist on type 'object'."
echo ""
echo "Found 2 errors in the same file, starting at: src/webhooks/guard.ts:7"
exit 2
`
	verify := `import { createHmac } from "node:crypto";

// verifyV1 checks the partner's X-Relay-Signature header: HMAC-SHA256 of
// "<timestamp>.<body>" with the shared secret.
export function verifyV1(secret: string, timestamp: string, body: string, header: string): boolean {
  const digest = createHmac("sha256", secret).update(timestamp + "." + body).digest("hex");
  return digest === header;
}
`
	const (
		todoA = "Validate the webhook payload with a hand-written type guard"
		todoB = "Fix v1 HMAC comparison in src/webhooks/verify.ts"
		todoC = "Add Idempotency-Key check on POST /webhooks"
		todoD = "Set WEBHOOK_SIGNATURE_VERSION=v1 in fly.staging.toml"
		todoE = "Write bun tests for replayed partner events"
		todoF = "Document the v1 signature header in README"
	)
	sc := scenario{
		Name:  "blind10-bun-questions",
		Shape: "held-out, blind10: Bun/TypeScript, terse user, four numbered questions answered in one line and one taken back, TodoWrite done out of order with a deletion, two autos",
		Files: map[string]string{
			"package.json":           "{\n  \"name\": \"hooks-relay\",\n  \"module\": \"src/index.ts\",\n  \"type\": \"module\",\n  \"scripts\": { \"test\": \"bun test\", \"typecheck\": \"bunx tsc --noEmit\" },\n  \"devDependencies\": { \"@types/bun\": \"1.2.19\", \"typescript\": \"5.6.3\" }\n}\n",
			"src/index.ts":           "import { verifyV1 } from \"./webhooks/verify\";\n\nexport default {\n  port: 8787,\n  fetch(req: Request) {\n    return new Response(\"ok\");\n  },\n};\n",
			"src/webhooks/verify.ts": verify,
			"test/webhooks.test.ts":  "import { expect, test } from \"bun:test\";\n\ntest(\"POST /webhooks > accepts a valid v1 signature\", async () => {\n  expect(1).toBe(1);\n});\n",
			"fly.staging.toml":       "app = \"hooks-relay-staging\"\nprimary_region = \"ord\"\n\n[env]\n  LOG_LEVEL = \"info\"\n",
		},
		Bins:           map[string]string{"bun": bun, "bunx": bunx},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(bun test:*)", "Bash(bunx tsc:*)"},
		PermissionMode: "acceptEdits",
		Compactions:    []string{"auto", "auto"},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			questions := "The partner signs with HMAC-SHA256 but our check compares a hex digest to their header. Before I change anything:\n\n" +
				"1. Should POST /webhooks also enforce an Idempotency-Key header?\n" +
				"2. Move the signature check to v2 (Ed25519) now, or keep v1 (HMAC-SHA256)?\n" +
				"3. Rate limiting: Redis-backed limiter now, or in-memory, or leave it?\n" +
				"4. Roll out to staging only, or staging and prod together?"
			before = []turn{
				{
					Prompt: "SUP-1142 partner webhooks 401 since tue. src/webhooks/verify.ts. no new deps",
					Replies: []fakeapi.Reply{
						reply("", 11000, read("toolu_b10b_read_verify", p("src/webhooks/verify.ts"))),
						reply("", 11900, bash("toolu_b10b_test1", "bun test", "Run the test suite")),
						reply(questions, 12600),
					},
				},
				{
					Prompt: "1 yes 2 no, keep v1 3 later 4 staging only",
					Replies: []fakeapi.Reply{
						reply("", 13500, todoWrite("toolu_b10b_todo1",
							[2]string{todoA, "pending"}, [2]string{todoB, "in_progress"}, [2]string{todoC, "pending"},
							[2]string{todoD, "pending"}, [2]string{todoE, "pending"})),
						reply("Their header is base64, we hex-encode the digest. I'll decode the header from base64 and compare with crypto.timingSafeEqual rather than ===, because === on strings returns at the first differing byte and leaks timing.", 14600,
							edit("toolu_b10b_edit_verify", p("src/webhooks/verify.ts"),
								"import { createHmac } from \"node:crypto\";",
								"import { createHmac, timingSafeEqual } from \"node:crypto\";")),
						reply("", 15400, edit("toolu_b10b_edit_verify2", p("src/webhooks/verify.ts"),
							"  const digest = createHmac(\"sha256\", secret).update(timestamp + \".\" + body).digest(\"hex\");\n  return digest === header;",
							"  const digest = createHmac(\"sha256\", secret).update(timestamp + \".\" + body).digest();\n  const given = Buffer.from(header, \"base64\");\n  return given.length === digest.length && timingSafeEqual(given, digest);")),
						reply("", 16100, bash("toolu_b10b_test2", "bun test", "Run the test suite")),
						reply("", 16500, read("toolu_b10b_read_fly", p("fly.staging.toml"))),
						reply("", 16800, edit("toolu_b10b_edit_fly", p("fly.staging.toml"), "  LOG_LEVEL = \"info\"\n", "  LOG_LEVEL = \"info\"\n  WEBHOOK_SIGNATURE_VERSION = \"v1\"\n")),
						reply("", 17300, todoWrite("toolu_b10b_todo2",
							[2]string{todoA, "in_progress"}, [2]string{todoB, "completed"}, [2]string{todoC, "pending"},
							[2]string{todoD, "completed"}, [2]string{todoE, "pending"})),
						full("v1 verification is fixed (5 pass) and staging pins the v1 scheme. Payload guard is next, then the Idempotency-Key check."),
					},
				},
				// Compaction 1 (auto) happens before this turn's first request.
				{
					Prompt: "k",
					Replies: []fakeapi.Reply{
						reply("", 8000, write("toolu_b10b_write_guard", p("src/webhooks/guard.ts"),
							"export type RelayEvent = { event_id: string; type: string };\n\nexport function isRelayEvent(v: unknown): v is RelayEvent {\n  if (typeof v !== \"object\" || v === null) return false;\n  const o = v as object;\n  return (\n    typeof o.event_id === \"string\" &&\n    typeof o.type === \"string\"\n  );\n}\n")),
						reply("", 8700, bash("toolu_b10b_tsc1", "bunx tsc --noEmit", "Typecheck")),
						reply("TS2339: narrowing to object loses the keys. Checking with the in operator instead.", 9300,
							edit("toolu_b10b_edit_guard", p("src/webhooks/guard.ts"),
								"    typeof o.event_id === \"string\" &&\n    typeof o.type === \"string\"",
								"    \"event_id\" in o && typeof o.event_id === \"string\" &&\n    \"type\" in o && typeof o.type === \"string\"")),
						reply("", 9900, bash("toolu_b10b_tsc2", "bunx tsc --noEmit", "Typecheck again")),
						reply("Typecheck is clean; the payload guard is in src/webhooks/guard.ts.", 10400),
					},
				},
				{
					Prompt: "actually scratch my 1. no Idempotency-Key on /webhooks, the partner retries reuse the event id and those have to go through",
					Replies: []fakeapi.Reply{
						reply("", 11200, todoWrite("toolu_b10b_todo3",
							[2]string{todoA, "completed"}, [2]string{todoB, "completed"}, [2]string{todoD, "completed"},
							[2]string{todoE, "in_progress"}, [2]string{todoF, "pending"})),
						full("Dropped the Idempotency-Key item: retried deliveries with the same event id will go through. Working on the replay tests next."),
					},
				},
				// Compaction 2 (auto) happens before this turn's first request.
			}
			after = []turn{
				{Prompt: "go on", Replies: []fakeapi.Reply{reply("Continuing.", 7000)}},
				{Prompt: "status", Replies: []fakeapi.Reply{reply("Still on it.", 7400)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "SUP-1142"),
			rx("constraint: no new dependencies", `(?i)no new dep(s|endencies)`),
			rx("answer 2: keep v1, not Ed25519", `(?i)keep v1`, `(?i)Ed25519|\bv2\b`),
			rx("answer 3: rate limiting later", `(?i)limit`, `(?i)\b3\b[^\n]{0,6}later|later[^\n]{0,80}limit|limit[^\n]{0,120}\blater\b`),
			rx("answer 4: staging only", `(?i)staging only`, `(?i)prod`),
			rx("answer 1 as first given: Idempotency-Key yes", `(?i)Idempotency-Key`, `(?i)\b1 yes\b|Idempotency-Key[^\n]{0,80}\byes\b`).until(1),
			rx("answer 1 taken back: no Idempotency-Key check", `(?i)scratch my 1|no Idempotency-Key|Idempotency-Key[^\n]{0,100}(dropped|removed|taken back|withdrawn|retracted|reversed|not needed|no longer)|(dropped|removed|withdrew|retracted)[^\n]{0,60}Idempotency-Key`).
				notRx(`(?i)(\[ \]|pending|in.progress|open|todo)[^\n,;]{0,12}Add Idempotency-Key check`, `(?i)Add Idempotency-Key check on POST /webhooks[^\n,;]{0,12}(pending|in.progress|\[ \])`).from(2),
			lit("file edited: verify.ts", "src/webhooks/verify.ts"),
			b10Ran("failed command: bun test, exit 1", `bun test`, 1).until(1),
			rx("failure fixed: bun test passes", `(?i)bun test[^\n]{0,200}(exit(ed)?( code)?:? ?0\b|5 pass|\bpass(ed|es)?\b|fixed|green)|5 pass\b`),
			lit("decision: timingSafeEqual rather than ===", "timingSafeEqual rather than ==="),
			rx("decision's reason: === leaks timing", `(?i)leaks timing`),
			lit("open todo: Idempotency-Key check (before the take-back)", todoC).until(1),
			rx("todo done out of order: staging config", `(?i)fly\.staging\.toml`).
				notRx(`(?i)(\[ \]|pending|in.progress|open|todo)[^\n,;]{0,12}Set WEBHOOK_SIGNATURE_VERSION`, `(?i)Set WEBHOOK_SIGNATURE_VERSION=v1 in fly\.staging\.toml[^\n,;]{0,12}(pending|in.progress|\[ \])`),
			lit("open todo: replay tests", todoE),
			lit("open todo: README (after the take-back)", todoF).from(2),
			lit("file created: the guard", "src/webhooks/guard.ts").from(2),
			rx("failure after compaction 1: tsc TS2339", `TS2339|(?i)tsc --noEmit[^\n]{0,200}(exit(ed)?( code)?:? ?2\b|fail|error)`).from(2),
		},
	}
	return sc
}

// blind10CDKSecrets: an AWS CDK change (a dead-letter queue and an alarm)
// in a session grown long by synth, diff and jest outputs. An access key
// pair is printed by `aws configure export-credentials`; the user pastes a
// remote URL carrying a GitHub token, which the agent adds and git prints
// back.
func blind10CDKSecrets() scenario {
	const (
		keyID     = "AKIAX3BLND10CDKQ7WZP"
		keySecret = "r8Vq2Lm5Tz9Wb3Nk7Yd1Hx4Cs6Pf0Gj8Ua2Ee5Io"
		ghToken   = "ghp_b10Rk7Qm2Zx9Lt4Vn8Ws3Yc6Pd1Hf5Jg0Ka2"
	)
	remote := "https://" + ghToken + "@github.com/acme-infra/ingest-cdk.git"
	aws := `#!/bin/sh
# aws CLI stand-in (no network on the bench box)
case "$*" in
"sts get-caller-identity --profile sandbox")
  echo "{"
  echo "    \"UserId\": \"AIDAX3BLND10CDKUSER01\","
  echo "    \"Account\": \"481516234200\","
  echo "    \"Arn\": \"arn:aws:iam::481516234200:user/ci-ingest-deployer\""
  echo "}"
  ;;
"configure export-credentials --profile sandbox --format env")
  echo "export AWS_ACCESS_KEY_ID=` + keyID + `"
  echo "export AWS_SECRET_ACCESS_KEY=` + keySecret + `"
  ;;
*)
  echo "aws: error: stand-in does not know: $*" >&2
  exit 252
  ;;
esac
`
	// npx prints long outputs as the real cdk and jest do: the session's
	// context fills with them.
	npx := `#!/bin/sh
# npx stand-in: cdk synth / cdk diff / jest for this repo
stack=lib/ingest-stack.ts
dlq=lib/constructs/dlq-alarm.ts
synth_yaml() {
  echo "Resources:"
  for i in $(seq 1 40); do
    echo "  IngestHandlerPolicyStatement$i:"
    echo "    Type: AWS::IAM::Policy"
    echo "    Properties:"
    echo "      PolicyDocument:"
    echo "        Statement:"
    echo "          - Action:"
    echo "              - sqs:ReceiveMessage"
    echo "              - sqs:DeleteMessage"
    echo "              - sqs:GetQueueAttributes"
    echo "            Effect: Allow"
    echo "            Resource:"
    echo "              Fn::GetAtt:"
    echo "                - IngestQueue4D8B1C2A"
    echo "                - Arn"
    echo "        Version: \"2012-10-17\""
    echo "      PolicyName: IngestHandlerServiceRoleDefaultPolicy$i"
    echo "    Metadata:"
    echo "      aws:cdk:path: IngestStack/IngestHandler/ServiceRole/DefaultPolicy$i/Resource"
  done
  echo "  IngestRawBucket7F2B3C1D:"
  echo "    Type: AWS::S3::Bucket"
  echo "    UpdateReplacePolicy: Retain"
  echo "    DeletionPolicy: Retain"
}
case "$*" in
"cdk synth IngestStack --profile sandbox")
  if grep -q 'Duration.days(21)' $dlq 2>/dev/null; then
    echo "Error: Resolution error: IngestStack/IngestDLQ: message retention period must be between 60 and 1,209,600 seconds (14 days); got 1,814,400 (Duration.days(21))."
    echo "    at Queue.validateQueueProps (/repo/node_modules/aws-cdk-lib/aws-sqs/lib/queue.js:1:4212)"
    echo "    at new Queue (/repo/node_modules/aws-cdk-lib/aws-sqs/lib/queue.js:1:2207)"
    echo "    at new DlqAlarm (/repo/lib/constructs/dlq-alarm.ts:14:17)"
    echo "    at new IngestStack (/repo/lib/ingest-stack.ts:22:5)"
    echo ""
    echo "Subprocess exited with error 1"
    exit 1
  fi
  synth_yaml
  ;;
"cdk diff IngestStack --profile sandbox")
  echo "Stack IngestStack"
  echo "IAM Statement Changes"
  echo "┌───┬──────────────────────────────┬────────┬───────────────────┬──────────────────────────────┐"
  echo "│   │ Resource                     │ Effect │ Action            │ Principal                    │"
  echo "├───┼──────────────────────────────┼────────┼───────────────────┼──────────────────────────────┤"
  for i in $(seq 1 30); do
    echo "│ + │ \${IngestDLQ.Arn}             │ Allow  │ sqs:SendMessage$i  │ Service:sqs.amazonaws.com    │"
  done
  echo "└───┴──────────────────────────────┴────────┴───────────────────┴──────────────────────────────┘"
  echo ""
  echo "Resources"
  echo "[+] AWS::SQS::Queue IngestDLQ IngestDLQ5E1A9F02"
  echo "[+] AWS::CloudWatch::Alarm IngestDLQ/NotEmptyAlarm IngestDLQNotEmptyAlarm3C44B1D7"
  echo "[+] AWS::SNS::Topic IngestDLQ/AlarmTopic IngestDLQAlarmTopic91B0E6A2"
  echo "[~] AWS::SQS::Queue IngestQueue IngestQueue4D8B1C2A"
  echo " └─ [+] RedrivePolicy"
  echo "     └─ {\"deadLetterTargetArn\":{\"Fn::GetAtt\":[\"IngestDLQ5E1A9F02\",\"Arn\"]},\"maxReceiveCount\":5}"
  if grep -q 'acme-ingest-raw-' $stack; then
    echo "[~] AWS::S3::Bucket IngestRawBucket IngestRawBucket7F2B3C1D replace"
    echo " └─ [~] BucketName (requires replacement)"
    echo "     ├─ [-] acme-ingest-raw"
    echo "     └─ [+] acme-ingest-raw-481516234200"
  fi
  echo ""
  echo "✨  Number of stacks with differences: 1"
  ;;
"jest test/ingest-stack.test.ts")
  if grep -q 'RedrivePolicy' test/__snapshots__/ingest-stack.test.ts.snap 2>/dev/null; then
    echo "PASS test/ingest-stack.test.ts"
    echo "Tests:       3 passed, 3 total"
    echo "Snapshots:   1 passed, 1 total"
    exit 0
  fi
  echo "FAIL test/ingest-stack.test.ts (6.412 s)"
  echo "  ● IngestStack › matches the synthesized template"
  echo ""
  echo "    expect(received).toMatchSnapshot()"
  echo ""
  echo "    Snapshot name: \"IngestStack matches the synthesized template 1\""
  echo ""
  echo "    - Snapshot  -   0"
  echo "    + Received  + 148"
  echo ""
  for i in $(seq 1 148); do echo "    +       \"IngestDLQ5E1A9F02Line$i\": { \"Type\": \"AWS::SQS::Queue\" },"; done
  echo ""
  echo "      at Object.toMatchSnapshot (test/ingest-stack.test.ts:18:38)"
  echo ""
  echo " › 1 snapshot failed."
  echo "Snapshot Summary"
  echo " › 1 snapshot failed from 1 test suite. Inspect your code changes or run \"npx jest -u\" to update them."
  echo ""
  echo "Tests:       1 failed, 2 passed, 3 total"
  echo "Snapshots:   1 failed, 1 total"
  exit 1
  ;;
"jest test/ingest-stack.test.ts -u")
  mkdir -p test/__snapshots__
  echo "exports[IngestStack matches the synthesized template 1] = RedrivePolicy IngestDLQ" > test/__snapshots__/ingest-stack.test.ts.snap
  echo "PASS test/ingest-stack.test.ts"
  echo " › 1 snapshot updated."
  echo "Snapshot Summary"
  echo " › 1 snapshot updated from 1 test suite."
  echo ""
  echo "Tests:       3 passed, 3 total"
  echo "Snapshots:   1 updated, 1 total"
  ;;
*)
  echo "npx: stand-in does not know: $*" >&2
  exit 1
  ;;
esac
`
	stack := `import { Duration, RemovalPolicy, Stack, StackProps } from "aws-cdk-lib";
import * as s3 from "aws-cdk-lib/aws-s3";
import * as sqs from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";

export class IngestStack extends Stack {
  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    const raw = new s3.Bucket(this, "IngestRawBucket", {
      bucketName: "acme-ingest-raw",
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const queue = new sqs.Queue(this, "IngestQueue", {
      visibilityTimeout: Duration.minutes(5),
    });
  }
}
`
	sc := scenario{
		Name:  "blind10-cdk-secrets",
		Shape: "held-out, blind10: AWS CDK, an access key pair in a command's output and a GitHub token in a pasted remote URL, long synth/diff/jest outputs, one auto",
		Files: map[string]string{
			"package.json":              "{\n  \"name\": \"ingest-cdk\",\n  \"bin\": { \"ingest\": \"bin/ingest.ts\" },\n  \"scripts\": { \"test\": \"jest\", \"cdk\": \"cdk\" },\n  \"devDependencies\": { \"aws-cdk\": \"2.170.0\", \"jest\": \"29.7.0\", \"ts-jest\": \"29.2.5\" },\n  \"dependencies\": { \"aws-cdk-lib\": \"2.170.0\", \"constructs\": \"10.4.2\" }\n}\n",
			"cdk.json":                  "{\n  \"app\": \"npx ts-node --prefer-ts-exts bin/ingest.ts\",\n  \"context\": { \"@aws-cdk/aws-s3:createDefaultLoggingPolicy\": true }\n}\n",
			"bin/ingest.ts":             "import { App } from \"aws-cdk-lib\";\nimport { IngestStack } from \"../lib/ingest-stack\";\n\nnew IngestStack(new App(), \"IngestStack\");\n",
			"lib/ingest-stack.ts":       stack,
			"test/ingest-stack.test.ts": "import { App } from \"aws-cdk-lib\";\nimport { Template } from \"aws-cdk-lib/assertions\";\nimport { IngestStack } from \"../lib/ingest-stack\";\n\ntest(\"matches the synthesized template\", () => {\n  const t = Template.fromStack(new IngestStack(new App(), \"IngestStack\"));\n  expect(t.toJSON()).toMatchSnapshot();\n});\n",
		},
		Bins:           map[string]string{"aws": aws, "npx": npx},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(aws sts:*)", "Bash(aws configure:*)", "Bash(npx cdk:*)", "Bash(npx jest:*)", "Bash(git:*)"},
		PermissionMode: "acceptEdits",
		Trigger:        "auto",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			n := 12000
			next := func() int { n += 2600; return n }
			synth := "npx cdk synth IngestStack --profile sandbox"
			diff := "npx cdk diff IngestStack --profile sandbox"
			dlq := "import { Duration } from \"aws-cdk-lib\";\nimport * as cloudwatch from \"aws-cdk-lib/aws-cloudwatch\";\nimport * as actions from \"aws-cdk-lib/aws-cloudwatch-actions\";\nimport * as sns from \"aws-cdk-lib/aws-sns\";\nimport * as sqs from \"aws-cdk-lib/aws-sqs\";\nimport { Construct } from \"constructs\";\n\n// DlqAlarm is a dead-letter queue with an alarm that fires while it holds\n// any message.\nexport class DlqAlarm extends Construct {\n  readonly queue: sqs.Queue;\n\n  constructor(scope: Construct, id: string) {\n    super(scope, id);\n    this.queue = new sqs.Queue(this, \"Queue\", { retentionPeriod: Duration.days(21) });\n    const topic = new sns.Topic(this, \"AlarmTopic\");\n    new cloudwatch.Alarm(this, \"NotEmptyAlarm\", {\n      metric: this.queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),\n      threshold: 0,\n      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,\n      evaluationPeriods: 1,\n    }).addAlarmAction(new actions.SnsAction(topic));\n  }\n}\n"
			before = []turn{
				{
					Prompt: "INFRA-902 - ingest queue has no DLQ, poison messages loop forever. add a DLQ + alarm in lib/ingest-stack.ts. hard rules: only ever --profile sandbox from this box, never deploy prod from here. the raw bucket keeps RemovalPolicy.RETAIN no matter what",
					Replies: []fakeapi.Reply{
						reply("", next(), read("toolu_b10c_read_stack", p("lib/ingest-stack.ts"))),
						reply("", next(), bash("toolu_b10c_sts", "aws sts get-caller-identity --profile sandbox", "Check which account the sandbox profile is")),
						reply("", next(), bash("toolu_b10c_creds", "aws configure export-credentials --profile sandbox --format env", "See which credentials cdk will pick up")),
						reply("The sandbox profile is account 481516234200 and uses long-lived static keys, not SSO; worth rotating, and I won't copy them anywhere. Synthesizing the current stack first.", next(),
							bash("toolu_b10c_synth1", synth, "Synthesize the stack as it is")),
						reply("Synth is clean on the current stack.", next()),
					},
				},
				{
					Prompt: "go",
					Replies: []fakeapi.Reply{
						reply("", next(), write("toolu_b10c_write_dlq", p("lib/constructs/dlq-alarm.ts"), dlq)),
						reply("", next(), edit("toolu_b10c_edit_stack", p("lib/ingest-stack.ts"),
							"      bucketName: \"acme-ingest-raw\",\n",
							"      bucketName: `acme-ingest-raw-${this.account}`,\n")),
						reply("", next(), edit("toolu_b10c_edit_stack2", p("lib/ingest-stack.ts"),
							"    const queue = new sqs.Queue(this, \"IngestQueue\", {\n      visibilityTimeout: Duration.minutes(5),\n    });\n",
							"    const dlq = new DlqAlarm(this, \"IngestDLQ\");\n    const queue = new sqs.Queue(this, \"IngestQueue\", {\n      visibilityTimeout: Duration.minutes(5),\n      deadLetterQueue: { queue: dlq.queue, maxReceiveCount: 5 },\n    });\n")),
						reply("", next(), bash("toolu_b10c_synth2", synth, "Synthesize with the DLQ")),
						reply("SQS caps retention at 14 days; I asked for 21.", next(),
							edit("toolu_b10c_edit_retention", p("lib/constructs/dlq-alarm.ts"), "Duration.days(21)", "Duration.days(14)")),
						reply("", next(), bash("toolu_b10c_synth3", synth, "Synthesize again")),
						reply("", next(), bash("toolu_b10c_diff1", diff, "Diff against the sandbox stack")),
						reply("The diff would REPLACE IngestRawBucket: I had templated its bucketName with the account id, and a name change forces a new bucket (the retained old one would be orphaned with the data in it). Reverting the name.", next(),
							edit("toolu_b10c_edit_revert", p("lib/ingest-stack.ts"),
								"      bucketName: `acme-ingest-raw-${this.account}`,\n",
								"      bucketName: \"acme-ingest-raw\",\n")),
						reply("", next(), bash("toolu_b10c_diff2", diff, "Diff again")),
						reply("Now the diff only adds the DLQ, its alarm and topic, and a RedrivePolicy (maxReceiveCount 5) on IngestQueue. I alarm on the DLQ's ApproximateNumberOfMessagesVisible > 0 over 5 minutes rather than on NumberOfMessagesSent, because messages moved in by a redrive policy don't count as sent.", next()),
					},
				},
				{
					Prompt: "remote is broken on this box, use " + remote + " . commit with -s, we need signoff on everything",
					Replies: []fakeapi.Reply{
						reply("", next(), bash("toolu_b10c_remote", "git remote add origin "+remote, "Add the origin remote")),
						reply("", next(), bash("toolu_b10c_remote_v", "git remote -v", "Check the remote")),
						reply("", next(), bash("toolu_b10c_jest1", "npx jest test/ingest-stack.test.ts", "Run the stack tests")),
						reply("Only the snapshot differs, by the new DLQ resources, which is expected. Updating it.", next(),
							bash("toolu_b10c_jest2", "npx jest test/ingest-stack.test.ts -u", "Update the snapshot")),
						reply("", next(), bash("toolu_b10c_commit", "git add -A && git commit -s -q -m \"INFRA-902: dead-letter queue and alarm for the ingest queue\"", "Commit with sign-off")),
						reply("", next(), todoWrite("toolu_b10c_todo",
							[2]string{"Add DLQ + alarm to IngestStack", "completed"},
							[2]string{"Get the PagerDuty integration key from ops for the DLQ alarm topic", "pending"},
							[2]string{"Write the DLQ redrive runbook in docs/runbooks/ingest.md", "pending"})),
						full("Committed with sign-off. Next step: run cdk deploy --profile sandbox once you've reviewed the diff; nothing has been deployed yet."),
					},
				},
			}
			after = []turn{
				{Prompt: "ok where are we", Replies: []fakeapi.Reply{reply("Picking it back up.", 7000)}},
				{Prompt: "thx", Replies: []fakeapi.Reply{reply("Anytime.", 7300)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "INFRA-902"),
			rx("constraint: sandbox profile only, never prod", `(?i)--profile sandbox`, `(?i)never deploy prod`),
			rx("constraint: bucket stays RETAIN", `(?i)RemovalPolicy\.RETAIN no matter what|keeps RemovalPolicy\.RETAIN`),
			rx("constraint: commits signed off", `(?i)commit with -s|sign-?off`),
			lit("file created: the DLQ construct", "lib/constructs/dlq-alarm.ts"),
			lit("file edited: the stack", "lib/ingest-stack.ts"),
			b10Ran("failed command: cdk synth, exit 1", `cdk synth IngestStack --profile sandbox`, 1),
			rx("failure's message and fix: retention over 14 days", `(?i)retention`, `(?i)14 days|Duration\.days\(14\)|1,?209,?600`),
			rx("finding: the bucket would be replaced by the name change", `(?i)replac[^\n]{0,120}(bucket|IngestRawBucket)|(bucket|IngestRawBucket)[^\n]{0,120}replac`),
			rx("decision: alarm on ApproximateNumberOfMessagesVisible", `ApproximateNumberOfMessagesVisible[^\n]{0,120}rather than[^\n]{0,20}NumberOfMessagesSent`),
			rx("decision's reason: redriven messages don't count as sent", `(?i)redrive policy don't count as sent|redriven?[^\n]{0,60}(don't|do not|aren't|are not)[^\n]{0,20}(count|counted)`),
			rx("finding: the sandbox account", `481516234200`),
			rx("failure fixed: jest snapshot updated", `(?i)jest test/ingest-stack\.test\.ts -u[^\n]{0,200}(exit(ed)?( code)?:? ?0\b|pass|updated|succeeded|\bok\b)|snapshot[^\n]{0,80}updated|updated[^\n]{0,40}snapshot`),
			lit("open todo: PagerDuty key", "Get the PagerDuty integration key from ops for the DLQ alarm topic"),
			lit("open todo: runbook", "docs/runbooks/ingest.md"),
			rx("next step: deploy to sandbox after review", `(?i)cdk deploy[^\n]{0,40}--profile sandbox`),
		},
		Secrets: []secret{
			{"AWS access key id", keyID},
			{"AWS secret access key", keySecret},
			{"GitHub token in a remote URL", ghToken},
		},
	}
	return sc
}
