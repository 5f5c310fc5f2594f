package e2e

import (
	"path/filepath"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's other scenarios. Each is a session of its own kind,
// written the way its user and agent would write it (terse, chatty,
// non-native English, headings, lists, long reasoning), in a toolchain of
// its own, with facts planted where they occur naturally. Together they
// cover the shapes the four scenarios of scenarios_test.go do not: two and
// three compactions, a compaction inside a turn, subagents, todos in an
// interactive session, secrets, a long session against the budget, the
// open thread (remaining work, questions and answers, deferred items,
// known bugs) said turns before the compaction, piped test commands that
// print failures but exit 0, and files the agent read and reasoned about
// without changing them.

// recallPytest is a Python service fixed by a chatty, lowercase user: a
// piped pytest run that prints failures, files read and reasoned about,
// an open question and the user's answer, a test left failing on
// purpose, and the remaining work said three turns before the compaction.
func recallPytest() scenario {
	return scenario{
		Name:  "pytest-pipe",
		Shape: "Python/pytest, auto; piped test failures, files read, open thread",
		Files: map[string]string{
			"pyproject.toml":            "[project]\nname = \"invoicing\"\nversion = \"3.14.0\"\nrequires-python = \">=3.9\"\ndependencies = [\"babel==2.12.1\", \"weasyprint==59.0\", \"freezegun==1.2.2\"]\n\n[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\naddopts = \"-ra\"\n",
			"docs/rounding.md":          "# Rounding rules\n\nAll amounts are Decimal, never float.\n\n- Line items are rounded to 0.01 with ROUND_HALF_UP.\n- CHF invoices paid in cash are rounded to the nearest 0.05 (Rappenrundung),\n  on the final total only, never per line.\n- VAT is computed on the rounded net total.\n",
			"src/invoicing/__init__.py": "",
			"src/invoicing/tax.py":      "from decimal import Decimal, ROUND_HALF_UP\n\nVAT_RATES = {\"CH\": [(\"2018-01-01\", Decimal(\"0.077\")), (\"2024-01-01\", Decimal(\"0.081\"))]}\n\n\ndef quantize(amount):\n    return amount.quantize(Decimal(\"0.01\"), rounding=ROUND_HALF_UP)\n\n\ndef line_total(qty, unit_price, currency):\n    total = quantize(qty * unit_price)\n    if currency == \"CHF\":\n        total = (total / Decimal(\"0.05\")).quantize(Decimal(\"1\"), rounding=ROUND_HALF_UP) * Decimal(\"0.05\")\n    return total\n\n\ndef cash_total(lines, currency, payment_method):\n    return sum(line_total(q, p, currency) for q, p in lines)\n",
			"src/invoicing/pdf.py":      "from invoicing import tax\n\n\ndef footer(invoice):\n    total = tax.cash_total(invoice.lines, invoice.currency, invoice.payment_method)\n    return f\"Total {invoice.currency} {total:,.2f}\"\n",
			"tests/conftest.py":         "import pytest\nfrom freezegun import freeze_time\n\nFROZEN_NOW = \"2023-12-31T23:59:59+01:00\"\n\n\n@pytest.fixture(autouse=True)\ndef frozen_clock():\n    with freeze_time(FROZEN_NOW):\n        yield\n",
			"tests/test_tax.py":         "from decimal import Decimal\n\nfrom invoicing import tax\n\n\ndef test_chf_cash_rounding():\n    lines = [(1, Decimal(\"0.42\")), (1, Decimal(\"0.42\")), (1, Decimal(\"0.42\"))]\n    assert tax.cash_total(lines, \"CHF\", \"cash\") == Decimal(\"1.25\")\n",
		},
		Bins: map[string]string{"pytest": `#!/bin/sh
# stand-in for pytest: prints what this project's suite prints
if grep -q 'payment_method == "cash"' src/invoicing/tax.py 2>/dev/null; then
  cat <<'EOF'
.........F..                                                             [100%]
=================================== FAILURES ===================================
___________________________ test_rounding_half_even ____________________________
E       AssertionError: assert Decimal('0.12') == Decimal('0.13')
=========================== short test summary info ============================
FAILED tests/test_tax.py::test_rounding_half_even - AssertionError: assert Decimal('0.12') == Decimal('0.13')
1 failed, 11 passed in 0.31s
EOF
  exit 1
fi
cat <<'EOF'
....F.................................F...                               [100%]
=================================== FAILURES ===================================
____________________________ test_chf_cash_rounding ____________________________
E       AssertionError: assert Decimal('1.30') == Decimal('1.25')
___________________________ test_rounding_half_even ____________________________
E       AssertionError: assert Decimal('0.12') == Decimal('0.13')
=========================== short test summary info ============================
FAILED tests/test_tax.py::test_chf_cash_rounding - AssertionError: assert Decimal('1.30') == Decimal('1.25')
FAILED tests/test_tax.py::test_rounding_half_even - AssertionError: assert Decimal('0.12') == Decimal('0.13')
2 failed, 40 passed in 0.84s
EOF
exit 1
`},
		AllowedTools:   []string{"Bash(pytest:*)", "Bash(tail:*)"},
		PermissionMode: "acceptEdits",
		Trigger:        "auto",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			first := "hey! so invoices for swiss customers are off by a few rappen sometimes, ticket is INV-2291. can you take a look? pls don't bump any deps in pyproject, we're pinned because of the py3.9 build box"
			before = []turn{
				{Prompt: first, Replies: []fakeapi.Reply{
					reply("Let me look at the rounding code and the docs first.", 18000,
						read("toolu_py_read_doc", p("docs/rounding.md")), read("toolu_py_read_tax", p("src/invoicing/tax.py"))),
					reply("", 19000, read("toolu_py_read_conftest", p("tests/conftest.py"))),
					reply("", 21000, bash("toolu_py_pytest_all", "pytest -q tests/ 2>&1 | tail -20", "Run the test suite")),
					reply("Found it, I think. docs/rounding.md says CHF cash payments round to the nearest 0.05 on the final total only, never per line, but `line_total()` in tax.py does the 0.05 rounding on every line, so an invoice with several lines drifts by up to 0.05 per extra line. The suite agrees: `test_chf_cash_rounding` is red.\n\nOne more thing from tests/conftest.py: it freezes the clock at 2023-12-31T23:59:59+01:00, the last second at the old 7.7% VAT, so every test computes with 7.7% and nothing covers 8.1% yet.", 22000),
				}},
				{Prompt: "ugh ok. what's the plan then", Replies: []fakeapi.Reply{
					reply("Plan:\n1. Move the 0.05 rounding out of `line_total()` into `cash_total()`, applied once to the sum\n2. Only do it when the invoice is actually paid in cash\n3. Add a test with a 3-line CHF invoice\n\nQuestion before I change anything: should card payments in CHF also get the 0.05 rounding, or only cash? The docs only talk about cash.", 22500),
				}},
				{Prompt: "only cash. cards stay at 0.01. and keep the old behaviour behind a LEGACY_ROUNDING flag until the march close is done, finance wants to compare numbers", Replies: []fakeapi.Reply{
					reply("", 23500, edit("toolu_py_edit_tax", p("src/invoicing/tax.py"),
						"    if currency == \"CHF\":\n        total = (total / Decimal(\"0.05\")).quantize(Decimal(\"1\"), rounding=ROUND_HALF_UP) * Decimal(\"0.05\")\n    return total\n\n\ndef cash_total(lines, currency, payment_method):\n    return sum(line_total(q, p, currency) for q, p in lines)\n",
						"    return total\n\n\ndef cash_total(lines, currency, payment_method):\n    total = sum(line_total(q, p, currency) for q, p in lines)\n    if currency == \"CHF\" and payment_method == \"cash\":\n        total = (total / Decimal(\"0.05\")).quantize(Decimal(\"1\"), rounding=ROUND_HALF_UP) * Decimal(\"0.05\")\n    return total\n")),
					reply("", 24500, bash("toolu_py_pytest_tax", "pytest -q tests/test_tax.py 2>&1 | tail -5", "Run the tax tests")),
					reply("Cash rounding now happens once on the total and `test_chf_cash_rounding` passes. `test_rounding_half_even` still fails: it expects banker's rounding (ROUND_HALF_EVEN) for line items, which contradicts docs/rounding.md. I have not fixed it yet. I think the test is wrong rather than the code, but that's your call.", 25000),
				}},
				{Prompt: "hm leave that test alone for now, I'll ask finance. what else is left?", Replies: []fakeapi.Reply{
					reply("Remaining: wire the LEGACY_ROUNDING flag into settings.py (default on until the March close), then regenerate the golden PDFs in tests/golden/ with `make golden`, since the totals change.", 26000),
				}},
				{Prompt: "does the pdf renderer do its own rounding btw?", Replies: []fakeapi.Reply{
					reply("", 26500, read("toolu_py_read_pdf", p("src/invoicing/pdf.py"))),
					reply("No, pdf.py only formats. It calls `tax.cash_total()` for the footer, so it picks up the fix without changes.", 27000),
				}},
				{Prompt: "nice. brb, coffee", Replies: []fakeapi.Reply{full("☕ sure")}},
			}
			after = []turn{
				{Prompt: "back. go on", Replies: []fakeapi.Reply{reply("On it.", 5000)}},
				{Prompt: "ok", Replies: []fakeapi.Reply{reply("Working.", 5200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "INV-2291"),
			rx("constraint: no dependency bumps", `(?i)don't bump any deps`),
			lit("key file read: the rounding rules", "docs/rounding.md"),
			rx("key file's rule: 0.05 on the final total only", `(?i)final total only`),
			lit("key file read: the frozen clock", "tests/conftest.py"),
			rx("key file's finding: nothing covers 8.1% VAT", `8\.1 ?%`),
			lit("key file read: the PDF renderer", "src/invoicing/pdf.py"),
			pipedFailed("piped command: pytest run failed", "pytest -q tests/[ `]", `(?i)(pytest -q tests/[ `+"`"+`][^\n]{0,200}fail|\b2 failed\b)`),
			lit("open thread: answer, only cash, cards stay at 0.01", "cards stay at 0.01"),
			rx("constraint: legacy rounding until the March close", `(?i)LEGACY_ROUNDING[^\n]{0,120}march close|march close[^\n]{0,120}LEGACY_ROUNDING`),
			pipedFailed("open thread: known failing test, not fixed", `pytest -q tests/test_tax\.py`,
				`(?i)test_rounding_half_even[^\n]{0,200}(still fail|not fixed|fail|unresolved)|(still fail|not fixed|unresolved|fail)[^\n]{0,200}test_rounding_half_even`),
			rx("open thread: user will ask finance", `(?i)ask finance`),
			rx("open thread: remaining, flag in settings.py", `(?i)LEGACY_ROUNDING[^\n]{0,80}settings\.py|settings\.py[^\n]{0,80}LEGACY_ROUNDING`),
			lit("open thread: remaining, regenerate golden PDFs", "make golden"),
			lit("file edited", "src/invoicing/tax.py"),
		},
	}
}

// recallMixInTurn is an Elixir ledger fixed for a user writing in
// non-native English; the compaction comes inside a turn, between the
// full test run and its result.
func recallMixInTurn() scenario {
	return scenario{
		Name:  "mix-in-turn",
		Shape: "Elixir/mix, auto inside a turn; piped test failures, files read",
		Files: map[string]string{
			"mix.exs":                  "defmodule Ledger.MixProject do\n  use Mix.Project\n\n  def project, do: [app: :ledger, version: \"0.9.0\", elixir: \"~> 1.15\", deps: deps()]\n\n  defp deps, do: [{:ecto_sql, \"~> 3.11\"}, {:postgrex, \">= 0.0.0\"}]\nend\n",
			".formatter.exs":           "[inputs: [\"{mix,.formatter}.exs\", \"{config,lib,test}/**/*.{ex,exs}\"]]\n",
			"lib/ledger/posting.ex":    "defmodule Ledger.Posting do\n  use Ecto.Schema\n\n  schema \"postings\" do\n    field :account_id, :integer\n    field :amount, :integer\n    field :direction, Ecto.Enum, values: [:debit, :credit]\n  end\n\n  def reverse(%__MODULE__{} = p) do\n    %__MODULE__{account_id: p.account_id, amount: p.amount, direction: p.direction}\n  end\nend\n",
			"lib/ledger/balance.ex":    "defmodule Ledger.Balance do\n  alias Ledger.Posting\n\n  def recompute(postings) do\n    Enum.reduce(postings, 0, fn\n      %Posting{direction: :debit, amount: a}, acc -> acc + a\n      %Posting{direction: :credit, amount: a}, acc -> acc - a\n    end)\n  end\nend\n",
			"lib/ledger/import/csv.ex": "defmodule Ledger.Import.CSV do\n  def reversal(row), do: %Ledger.Posting{account_id: row.account, amount: row.amount, direction: row.direction}\nend\n",
			"priv/repo/migrations/20230102090000_create_postings.exs": "defmodule Ledger.Repo.Migrations.CreatePostings do\n  use Ecto.Migration\n\n  def change do\n    create table(:postings) do\n      add :account_id, references(:accounts), null: false\n      add :amount, :bigint, null: false\n      add :direction, :string, null: false\n      timestamps()\n    end\n\n    create constraint(:postings, :amount_positive, check: \"amount > 0\")\n  end\nend\n",
			"test/ledger/posting_test.exs":                            "defmodule Ledger.PostingTest do\n  use ExUnit.Case, async: true\n\n  test \"reverse/1 swaps debit and credit\" do\n    p = %Ledger.Posting{account_id: 1, amount: 100, direction: :debit}\n    assert Ledger.Posting.reverse(p).direction == :credit\n  end\nend\n",
		},
		Bins: map[string]string{"mix": `#!/bin/sh
# stand-in for mix: prints what this project's test suite prints
case "$*" in
"test test/ledger/posting_test.exs")
  cat <<'EOF'
Compiling 14 files (.ex)
Generated ledger app
..

  1) test reverse/1 swaps debit and credit (Ledger.PostingTest)
     test/ledger/posting_test.exs:4
     Assertion with == failed
     code:  assert Ledger.Posting.reverse(p).direction == :credit
     left:  :debit
     right: :credit

Finished in 0.04 seconds (0.04s async, 0.00s sync)
3 tests, 1 failure
EOF
  exit 2 ;;
test)
  cat <<'EOF'
  1) test recompute/1 with a reversed debit nets to zero (Ledger.BalanceTest)
     test/ledger/balance_test.exs:18
  2) test recompute/1 after a partial reversal (Ledger.BalanceTest)
     test/ledger/balance_test.exs:31

Finished in 0.4 seconds (0.3s async, 0.1s sync)
48 tests, 2 failures
EOF
  exit 2 ;;
esac
echo "mix: nothing to do for $*"
`},
		AllowedTools:   []string{"Bash(mix:*)", "Bash(tail:*)"},
		PermissionMode: "acceptEdits",
		Compactions:    []string{"in-turn"},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{Prompt: "Hello, I need help with the ledger app. Ticket is LED-318. After a reversal posting the balance of some accounts is wrong (it is double). Please do not change the database schema, we can not do a migration this week. And `mix format` before every commit is mandatory, CI will refuse otherwise.", Replies: []fakeapi.Reply{
					reply("I'll read the posting and balance modules first.", 15000,
						read("toolu_ex_read_posting", p("lib/ledger/posting.ex")), read("toolu_ex_read_balance", p("lib/ledger/balance.ex"))),
					reply("", 16000, bash("toolu_ex_mix_posting", "mix test test/ledger/posting_test.exs | tail -15", "Run the posting tests")),
					reply("I see the problem. `Ledger.Posting.reverse/1` copies the amount but keeps the original direction, so reversing a debit books a second debit instead of a credit. `Ledger.Balance.recompute/1` sums by direction, so the account moves twice. The existing test for reverse/1 catches exactly this.", 17000),
				}},
				{Prompt: "Ok, I see. How you want to fix it, flip the direction or make the amount negative?", Replies: []fakeapi.Reply{
					reply("", 17500, read("toolu_ex_read_migration", p("priv/repo/migrations/20230102090000_create_postings.exs"))),
					reply("Flip the direction. Amounts are stored unsigned: the postings migration has a check constraint `amount > 0`, so a negative amount would be rejected by Postgres, and changing that is a schema change.\n\nSide note: `Ledger.Import.CSV` builds reversals by hand with the same mistake. I left it for later since it's a different code path; maybe a separate ticket?", 18500),
				}},
				{Prompt: "Yes, for the CSV import we make LED-322, not now. Go with flip.", Replies: []fakeapi.Reply{
					reply("", 20000, edit("toolu_ex_edit_posting", p("lib/ledger/posting.ex"),
						"direction: p.direction}\n  end\n", "direction: opposite(p.direction)}\n  end\n\n  defp opposite(:debit), do: :credit\n  defp opposite(:credit), do: :debit\n")),
					full("Now the whole suite.", bash("toolu_ex_mix_all", "mix test 2>&1 | tail -8", "Run all tests")),
					{Text: "The reversal test passes now. Two failures remain in test/ledger/balance_test.exs: both build reversed postings by hand with the old direction, so their expected balances encode the bug.",
						Usage: usageAt(6000), ToolResultFor: "toolu_ex_mix_all"},
				}},
			}
			after = []turn{
				{Prompt: "Ok, fix the tests then.", Replies: []fakeapi.Reply{reply("Fixing them.", 6500)}},
				{Prompt: "And then format.", Replies: []fakeapi.Reply{reply("Will do.", 6800)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "LED-318"),
			rx("constraint: no schema change", `(?i)not change the database schema`),
			rx("constraint: mix format before every commit", `(?i)mix format[^\n]{0,80}(mandatory|before every commit)`),
			lit("key file read: the balance module", "lib/ledger/balance.ex"),
			lit("key file read: the postings migration", "20230102090000_create_postings.exs"),
			rx("finding: the reversal keeps the direction", `(?i)keeps the original direction`),
			rx("decision: flip the direction", `(?i)flip the direction`),
			lit("decision's reason: amount > 0 check", "amount > 0"),
			pipedFailed("piped command: posting tests failed", `mix test test/ledger/posting_test\.exs`,
				`(?i)posting_test\.exs[^\n]{0,200}fail|\b1 failure\b`),
			lit("open thread: CSV import deferred to LED-322", "LED-322"),
			lit("file edited", "lib/ledger/posting.ex"),
		},
	}
}

// recallCargoTwice is a Rust ring buffer for a terse user, compacted
// automatically twice: what was decided and left open before the first
// compaction must still be there after the second.
func recallCargoTwice() scenario {
	return scenario{
		Name:  "cargo-twice",
		Shape: "Rust/cargo, auto twice; facts before each",
		Files: map[string]string{
			"Cargo.toml":            "[package]\nname = \"ringbuf\"\nversion = \"0.4.2\"\nedition = \"2021\"\n\n[[bench]]\nname = \"throughput\"\nharness = false\n",
			"src/lib.rs":            "//! Lock-free single-producer single-consumer ring buffer for audio frames.\n#![forbid(unsafe_code)]\npub mod ring;\npub mod shm;\n",
			"src/ring.rs":           "pub const CAP: usize = 1024;\n\npub struct Ring {\n    buf: Vec<f32>,\n    head: usize,\n    tail: usize,\n}\n\nimpl Ring {\n    pub fn len(&self) -> usize {\n        (self.head + CAP - self.tail) % CAP\n    }\n}\n",
			"src/shm.rs":            "//! Shared memory between the capture process and the mixer.\n#[cfg(unix)]\npub fn open(name: &str) -> std::io::Result<std::fs::File> {\n    memfd::open(name)\n}\n",
			"benches/throughput.rs": "fn main() {}\n",
		},
		Bins: map[string]string{"cargo": `#!/bin/sh
# stand-in for cargo: prints what this crate prints
case "$1" in
test)
  if grep -q 'full: bool' src/ring.rs 2>/dev/null; then
    echo 'running 12 tests'
    echo '............'
    echo 'test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.02s'
    exit 0
  fi
  cat <<'EOF'
---- ring::tests::wraps_without_loss stdout ----
thread 'ring::tests::wraps_without_loss' panicked at src/ring.rs:61:9:
assertion failed: r.len() == CAP
test result: FAILED. 11 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.02s
EOF
  exit 101 ;;
clippy)
  cat >&2 <<'EOF'
error: this ` + "`if`" + ` has identical blocks
  --> src/ring.rs:88:9
   |
88 |         if self.full { self.tail = (self.tail + 1) % CAP } else { self.tail = (self.tail + 1) % CAP }
   |
   = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#if_same_then_else
error: could not compile ` + "`ringbuf`" + ` (lib) due to 1 previous error
EOF
  exit 101 ;;
bench)
  cat <<'EOF'
throughput/push_pop     time:   [412.31 ns 415.02 ns 418.77 ns]
                        change: [+5.2% +6.1% +7.0%] (p = 0.00 < 0.05)
                        Performance has regressed.
EOF
  exit 0 ;;
esac
`},
		AllowedTools:   []string{"Bash(cargo:*)", "Bash(tail:*)", "Bash(git add:*)", "Bash(git commit:*)"},
		PermissionMode: "acceptEdits",
		Compactions:    []string{"auto", "auto"},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{Prompt: "ringbuf drops samples under load. RB-77. no unsafe.", Replies: []fakeapi.Reply{
					reply("", 12000, read("toolu_rs_read_ring", p("src/ring.rs"))),
					reply("", 12500, read("toolu_rs_read_lib", p("src/lib.rs"))),
					reply("", 13000, bash("toolu_rs_test_1", "cargo test -q 2>&1 | tail -3", "Run the tests")),
					reply("`push()` overwrites when head == tail after a wrap, and `len()` then reports 0, so the consumer thinks the buffer is empty and skips a whole lap. `wraps_without_loss` catches it.", 13500),
				}},
				{Prompt: "fix", Replies: []fakeapi.Reply{
					reply("", 14500, edit("toolu_rs_edit_ring", p("src/ring.rs"), "    tail: usize,\n}", "    tail: usize,\n    full: bool,\n}")),
					reply("", 15000, bash("toolu_rs_test_2", "cargo test -q 2>&1 | tail -3", "Run the tests again")),
					reply("Fixed with a separate `full: bool` flag instead of sacrificing one slot, since the protocol frames are exactly 1024 samples and CAP has to stay 1024. Tests pass.", 15500),
				}},
				{Prompt: "windows?", Replies: []fakeapi.Reply{
					reply("", 16000, read("toolu_rs_read_shm", p("src/shm.rs"))),
					reply("Not yet. src/shm.rs only has the memfd backend, which is unix-only. I left the Windows shared-memory backend (CreateFileMapping) for later.", 16500),
				}},
				{Prompt: "k. commit", Replies: []fakeapi.Reply{
					reply("", 17000, bash("toolu_rs_commit", "git add -A && git commit -qm 'ring: track fullness with a flag (RB-77)'", "Commit the fix")),
					full("Committed."),
				}},
				// The first compaction: this turn's request.
				{Prompt: "next: clippy", Replies: []fakeapi.Reply{
					reply("", 5000, bash("toolu_rs_clippy", "cargo clippy --all-targets -- -D warnings", "Run clippy")),
					reply("Clippy fails on src/ring.rs:88 (if_same_then_else): both branches of the wrap check do the same thing now. I'll clean it up after the bench.", 5500),
				}},
				{Prompt: "bench first", Replies: []fakeapi.Reply{
					reply("", 6500, bash("toolu_rs_bench", "cargo bench --bench throughput 2>&1 | tail -4", "Run the throughput bench")),
					reply("push_pop takes 415 ns per op now, up 6.1% from the 391 ns on main. Probably the extra branch on `full`.", 7000),
				}},
				{Prompt: "target was < 400ns", Replies: []fakeapi.Reply{
					reply("Then it's over budget: 415 ns against your 400 ns target. I have not fixed that yet. Options: (a) cache-pad head and tail, since producer and consumer sit on different cores and share a cache line, or (b) branchless index math. (a) is cheaper to try.", 7500),
				}},
				{Prompt: "try padding tomorrow. done for today", Replies: []fakeapi.Reply{full("👍")}},
			}
			after = []turn{
				// The second compaction: this turn's request.
				{Prompt: "morning. go", Replies: []fakeapi.Reply{reply("Starting.", 6000)}},
				{Prompt: "ok", Replies: []fakeapi.Reply{reply("Working.", 6200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "RB-77"),
			rx("constraint: no unsafe", `(?i)no unsafe`),
			lit("key file read: the shared-memory backend", "src/shm.rs"),
			lit("decision: a full flag, not a sacrificed slot", "instead of sacrificing one slot"),
			rx("decision's reason: frames of 1024 samples", `(?i)exactly 1024 samples`),
			rx("open thread: Windows backend left for later", `(?i)windows[^\n]{0,80}(later|deferred|left|todo)|(later|deferred|left)[^\n]{0,80}windows`),
			pipedFailed("piped command: the first cargo test failed", `cargo test -q`,
				`(?i)cargo test[^\n]{0,200}fail|wraps_without_loss[^\n]{0,120}fail|fail[^\n]{0,120}wraps_without_loss`).until(1),
			rx("failed command: clippy on src/ring.rs:88", `(?i)clippy[^\n]{0,200}(exit (code )?101|fail|error)`, `ring\.rs:88`).from(2),
			rx("finding: push_pop at 415 ns", `415 ?ns`).from(2),
			rx("constraint: target under 400 ns", `400 ?ns`).from(2),
			rx("open thread: not fixed, try cache padding next", `(?i)(cache.?pad|padding)`).from(2),
		},
	}
}

// recallVitestThree is a TypeScript form migration compacted three times
// (by hand, automatically, by hand again), with an agent that writes
// headings and bullet lists: facts from before the first compaction that
// still hold must survive all three.
func recallVitestThree() scenario {
	return scenario{
		Name:  "vitest-three",
		Shape: "TypeScript/vitest, manual + auto + manual",
		Files: map[string]string{
			"package.json":                         "{\n  \"name\": \"shop-web\",\n  \"private\": true,\n  \"packageManager\": \"pnpm@9.1.0\",\n  \"scripts\": {\"test\": \"vitest run\", \"typecheck\": \"tsc --noEmit\"}\n}\n",
			"src/checkout/CheckoutForm.tsx":        "import { useFormik } from \"formik\";\nimport { checkoutSchema } from \"./schema\";\n\nexport interface CheckoutFormProps {\n  onSubmit(values: CheckoutValues): Promise<void>;\n  initialCountry?: string;\n}\n\nexport function CheckoutForm(props: CheckoutFormProps) {\n  const formik = useFormik({ initialValues: { country: props.initialCountry ?? \"DE\" }, onSubmit: props.onSubmit });\n  return null;\n}\n",
			"src/checkout/schema.ts":               "import { z } from \"zod\";\n\nconst postcodes: Record<string, RegExp> = { DE: /^\\d{5}$/, NL: /^\\d{4} ?[A-Z]{2}$/, GB: /^[A-Z]{1,2}\\d[A-Z\\d]? ?\\d[A-Z]{2}$/ };\n\nexport const checkoutSchema = z.object({\n  country: z.string().length(2),\n  postcode: z.string(),\n  isEuBusiness: z.boolean(),\n  vatId: z.string().optional(),\n});\n",
			"src/checkout/AddressAutocomplete.tsx": "export function AddressAutocomplete(props: { value: string; onChange(v: string): void }) {\n  return null;\n}\n",
			"src/lib/formik-utils.ts":              "export function toFormikErrors(issues: { path: string[]; message: string }[]) {\n  return Object.fromEntries(issues.map((i) => [i.path.join(\".\"), i.message]));\n}\n",
			"legacy/README.md":                     "Old jQuery checkout. Scheduled for deletion.\n",
		},
		Bins: map[string]string{"pnpm": `#!/bin/sh
# stand-in for pnpm: prints what this project's scripts print
case "$*" in
"vitest run src/checkout")
  if grep -q useWatch src/checkout/CheckoutForm.tsx 2>/dev/null; then
    echo ' Test Files  4 passed (4)'
    echo '      Tests  21 passed (21)'
    exit 0
  fi
  cat <<'EOF'
 FAIL  src/checkout/CheckoutForm.test.tsx > CheckoutForm > shows the VAT id field for EU businesses
TestingLibraryElementError: Unable to find a label with the text of: VAT ID
 ❯ src/checkout/CheckoutForm.test.tsx:48:26

 Test Files  1 failed | 3 passed (4)
      Tests  1 failed | 20 passed (21)
   Duration  1.92s
EOF
  exit 1 ;;
"tsc --noEmit")
  if grep -q 'postcode ?? ""' src/checkout/AddressAutocomplete.tsx 2>/dev/null; then exit 0; fi
  echo "src/checkout/AddressAutocomplete.tsx(41,7): error TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'."
  exit 2 ;;
esac
`},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"},
		AllowedTools:   []string{"Bash(pnpm:*)", "Bash(tail:*)"},
		PermissionMode: "acceptEdits",
		Compactions:    []string{"manual", "auto", "manual"},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			form := p("src/checkout/CheckoutForm.tsx")
			auto := p("src/checkout/AddressAutocomplete.tsx")
			before = []turn{
				{Prompt: "We're moving the checkout form off Formik onto react-hook-form, FE-1402. Keep the public props of <CheckoutForm> exactly as they are, three other teams import it. pnpm only please.", Replies: []fakeapi.Reply{
					reply("", 14000, read("toolu_ts_read_form", form), read("toolu_ts_read_schema", p("src/checkout/schema.ts"))),
					reply("", 15000, write("toolu_ts_write_hook", p("src/checkout/useCheckoutForm.ts"),
						"import { useForm } from \"react-hook-form\";\nimport { zodResolver } from \"@hookform/resolvers/zod\";\nimport { checkoutSchema } from \"./schema\";\n\nexport function useCheckoutForm(initialCountry = \"DE\") {\n  return useForm({ resolver: zodResolver(checkoutSchema), defaultValues: { country: initialCountry } });\n}\n")),
					reply("", 16000, edit("toolu_ts_edit_form_1", form, "import { useFormik } from \"formik\";", "import { useCheckoutForm } from \"./useCheckoutForm\";")),
					reply("", 17000, bash("toolu_ts_vitest_1", "pnpm vitest run src/checkout 2>&1 | tail -12", "Run the checkout tests")),
					reply("## Status\n\n- New hook `useCheckoutForm` wraps react-hook-form with the existing zod `checkoutSchema` (zodResolver), so the validation rules stay in one place.\n- `CheckoutForm` uses it; its props are untouched.\n\n## Tests\n\nOne failure: the VAT id field for EU businesses never shows. It renders on `values.country`, which Formik re-rendered on every keystroke; react-hook-form doesn't.", 18000),
				}},
				{Prompt: "fix it", Replies: []fakeapi.Reply{
					reply("", 18500, edit("toolu_ts_edit_form_2", form, "  return null;", "  const country = useWatch({ control, name: \"country\" });\n  return null;")),
					reply("", 19000, bash("toolu_ts_vitest_2", "pnpm vitest run src/checkout 2>&1 | tail -12", "Run the checkout tests again")),
					reply("## Fixed\n\nSwitched to `useWatch` for `country`; 21 of 21 pass.\n\n## Question\n\nShould the VAT id be checked against VIES on blur, or only on submit? On blur is nicer, but it calls their API every time the field loses focus.", 19500),
				}},
				{Prompt: "only on submit, VIES rate-limits us hard", Replies: []fakeapi.Reply{reply("OK, submit only.", 20000)}},
				{Prompt: "cool. let me compact before the next part", Replies: []fakeapi.Reply{reply("Sure.", 20500)}},
				{Prompt: "/compact keep the decisions"},
				{Prompt: "next up: address autocomplete", Replies: []fakeapi.Reply{
					reply("", 6000, read("toolu_ts_read_auto", auto)),
					reply("### Plan\n\n1. Debounce the places lookup at 300 ms, same as the search box, so the places quota stays predictable.\n2. Put it under a `Controller` so the form owns the value.", 7000, edit("toolu_ts_edit_auto_1", auto, "  return null;", "  const place = usePlace(props.value);\n  props.onChange(place.postcode);\n  return null;")),
					reply("", 7500, bash("toolu_ts_tsc_1", "pnpm tsc --noEmit", "Type-check")),
					reply("tsc: `AddressAutocomplete.tsx(41,7): error TS2345`, `place.postcode` is `string | undefined`. Will fix next.", 8000),
				}},
				{Prompt: "btw do NOT touch anything in legacy/, it's being deleted in Q3", Replies: []fakeapi.Reply{reply("Got it, legacy/ stays as it is.", 8500)}},
				{Prompt: "how much is left for the autocomplete", Replies: []fakeapi.Reply{full("The type error and the debounce itself; an hour, roughly.")}},
				// The second compaction (automatic): this turn's request.
				{Prompt: "go", Replies: []fakeapi.Reply{
					reply("", 5000, edit("toolu_ts_edit_auto_2", auto, "props.onChange(place.postcode);", "props.onChange(place.postcode ?? \"\");")),
					reply("", 5500, bash("toolu_ts_tsc_2", "pnpm tsc --noEmit", "Type-check again")),
					reply("tsc is clean.", 6000),
				}},
				{Prompt: "remaining work?", Replies: []fakeapi.Reply{
					reply("**Remaining**\n- Storybook stories for the new form states (empty, invalid, EU business)\n- Playwright e2e for the EU business path: `e2e/checkout-eu.spec.ts`\n\n**Still open**\n- Can `src/lib/formik-utils.ts` go? Payments still imports `toFormikErrors` from it, so not yet.", 6500),
				}},
				{Prompt: "I'll ask payments about toFormikErrors. do the stories first", Replies: []fakeapi.Reply{
					reply("", 7000, write("toolu_ts_write_stories", p("src/checkout/CheckoutForm.stories.tsx"),
						"import { CheckoutForm } from \"./CheckoutForm\";\n\nexport default { component: CheckoutForm };\nexport const Empty = {};\nexport const Invalid = { args: { initialCountry: \"XX\" } };\n")),
					reply("Stories added for empty and invalid; EU business next.", 7500),
				}},
				{Prompt: "lunch. compacting", Replies: []fakeapi.Reply{reply("Enjoy.", 8000)}},
				{Prompt: "/compact"},
			}
			after = []turn{
				{Prompt: "back, continue", Replies: []fakeapi.Reply{reply("On the EU business story.", 5000)}},
				{Prompt: "ok", Replies: []fakeapi.Reply{reply("Working.", 5200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "FE-1402"),
			rx("constraint: public props unchanged", `(?i)public props`),
			rx("constraint: pnpm only", `(?i)pnpm only`),
			lit("key file read: the zod schema", "src/checkout/schema.ts"),
			lit("file created", "src/checkout/useCheckoutForm.ts"),
			rx("decision: useWatch for country", `useWatch`),
			rx("open thread: answer, VIES only on submit", `(?i)VIES[^\n]{0,100}submit|submit[^\n]{0,100}VIES`),
			pipedFailed("piped command: the first vitest run failed", `pnpm vitest run src/checkout`,
				`(?i)pnpm vitest run src/checkout[^\n]{0,200}fail|VAT id field[^\n]{0,80}(never shows|fail)`).until(1),
			rx("constraint: leave legacy/ alone", `(?i)touch[^\n]{0,40}legacy/|legacy/[^\n]{0,60}(deleted|stays)`).from(2),
			rx("decision: debounce at 300 ms", `(?i)debounce[^\n]{0,60}300 ?ms`).from(2),
			lit("failed command: tsc TS2345", "TS2345").from(2).until(2),
			lit("open thread: remaining, Playwright spec", "e2e/checkout-eu.spec.ts").from(3),
			lit("open thread: still open, toFormikErrors", "toFormikErrors").from(3),
			rx("open thread: user will ask payments", `(?i)ask payments`).from(3),
		},
	}
}

// recallGradleSubagents is a Java gateway client where the main agent
// delegates: an Explore subagent finds where retries are configured, a
// general-purpose one runs the Gradle tests. What they found reaches the
// main conversation only as their tool results.
func recallGradleSubagents() scenario {
	const (
		first       = "Flaky retries in the payment gateway client, PAYG-5521."
		explore     = "Find where retries and backoff for GatewayClient are configured"
		runTests    = "Run the gateway module's tests with Gradle"
		retryPolicy = "src/main/java/com/acme/pay/RetryPolicy.java"
		client      = "src/main/java/com/acme/pay/GatewayClient.java"
	)
	return scenario{
		Name:  "gradle-subagents",
		Shape: "Java/gradle, auto; two subagents (Explore, general-purpose)",
		Files: map[string]string{
			"settings.gradle.kts":                "rootProject.name = \"payments\"\ninclude(\"gateway\")\n",
			"gradlew":                            "#!/bin/sh\n# stand-in for the Gradle wrapper: prints what this build prints\ncat <<'EOF'\n> Task :gateway:compileJava UP-TO-DATE\n> Task :gateway:test\n\nGatewayClientTest > retriesOnTimeout() FAILED\n    org.opentest4j.AssertionFailedError: expected: <3> but was: <1>\n        at com.acme.pay.GatewayClientTest.retriesOnTimeout(GatewayClientTest.java:57)\n\n14 tests completed, 1 failed\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task ':gateway:test'.\n> There were failing tests. See the report at: file:///build/reports/tests/test/index.html\n\nBUILD FAILED in 6s\nEOF\nexit 1\n",
			retryPolicy:                          "package com.acme.pay;\n\nimport java.time.Duration;\nimport java.util.Set;\n\npublic final class RetryPolicy {\n    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);\n    private final int maxAttempts;\n    private final Set<Class<? extends Exception>> retryOn = Set.of(java.net.ConnectException.class);\n\n    RetryPolicy(@Value(\"${payments.gateway.retry.max-attempts}\") int maxAttempts) {\n        this.maxAttempts = maxAttempts;\n    }\n}\n",
			client:                               "package com.acme.pay;\n\nimport org.springframework.retry.annotation.Retryable;\n\npublic class GatewayClient {\n    private final RetryPolicy retry;\n\n    GatewayClient(RetryPolicy retry) { this.retry = retry; }\n\n    @Retryable(maxAttempts = 2)\n    public Charge charge(ChargeRequest req) {\n        return retry.call(() -> http.post(\"/v2/charges\", req));\n    }\n}\n",
			"src/main/resources/application.yml": "payments:\n  gateway:\n    base-url: https://gateway.example.invalid\n    retry:\n      max-attempts: 3\n",
			"docs/retries.md":                    "# Retries\n\nThe gateway client retries connection failures.\n",
		},
		AllowedTools:   []string{"Bash(./gradlew:*)", "Bash(tail:*)", "Bash(grep:*)"},
		PermissionMode: "acceptEdits",
		Trigger:        "auto",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			main := func(r fakeapi.Reply) fakeapi.Reply { r.For = first; return r }
			sub := func(r fakeapi.Reply, prompt string) fakeapi.Reply { r.For = prompt; return r }
			before = []turn{
				{Prompt: first + " Please find where the retry/backoff is configured and why we see 6 attempts when the config says 3. Don't change the public API of GatewayClient, and no Lombok in new code.", Replies: []fakeapi.Reply{
					main(reply("I'll have an Explore agent map the retry setup.", 14000,
						agentCall("toolu_java_explore", "Explore", "Find retry config", explore+": annotations, config keys, hard-coded limits. Report file paths and values."))),
					sub(reply("", 3000, read("toolu_java_sub_read_policy", p(retryPolicy)), read("toolu_java_sub_read_yml", p("src/main/resources/application.yml"))), explore),
					sub(reply("", 3500, bash("toolu_java_sub_grep", "grep -rn 'Retryable\\|max-attempts' src/", "Find retry settings")), explore),
					sub(reply("Findings:\n- RetryPolicy.java reads payments.gateway.retry.max-attempts (3 in application.yml).\n- GatewayClient.charge() is also annotated @Retryable(maxAttempts = 2), so Spring Retry wraps RetryPolicy's loop: 3 x 2 = 6 attempts.\n- The backoff cap is hard-coded: RetryPolicy.MAX_BACKOFF = 30 s, not configurable.\n- RetryPolicy.retryOn only lists ConnectException.", 4000), explore),
					main(reply("That explains the 6 attempts. I'll drop the annotation and keep RetryPolicy as the single source.", 15000,
						edit("toolu_java_edit_client", p(client), "    @Retryable(maxAttempts = 2)\n", ""))),
					main(reply("Done: GatewayClient no longer has @Retryable; its signature is unchanged.", 15500)),
				}},
				{Prompt: "run the tests", Replies: []fakeapi.Reply{
					main(reply("", 16000, agentCall("toolu_java_tests", "general-purpose", "Run gateway tests", runTests+" (./gradlew :gateway:test) and report any failures with their cause."))),
					sub(reply("", 3000, bash("toolu_java_sub_gradle", "./gradlew :gateway:test --console=plain 2>&1 | tail -25", "Run the gateway tests")), runTests),
					sub(reply("", 3500, read("toolu_java_sub_read_policy_2", p(retryPolicy))), runTests),
					sub(reply("1 of 14 failed: GatewayClientTest.retriesOnTimeout expected 3 attempts but saw 1. The test's mock server times out after 10 ms, and SocketTimeoutException is not in RetryPolicy.retryOn, so without the annotation nothing retries it.", 4000), runTests),
					main(reply("So the test relied on the annotation. I'll add SocketTimeoutException to RetryPolicy.retryOn rather than bring @Retryable back, because timeouts are what the gateway actually does under load.", 17000,
						edit("toolu_java_edit_policy", p(retryPolicy), "Set.of(java.net.ConnectException.class)", "Set.of(java.net.ConnectException.class, java.net.SocketTimeoutException.class)"))),
					main(reply("RetryPolicy now retries timeouts too.", 17500)),
				}},
				{Prompt: "ok, and the WireMock stubs, are they still needed?", Replies: []fakeapi.Reply{
					main(reply("Open question for you: the stubs in src/test/resources/wiremock/ replay the 2022 gateway responses. Do we keep them, or switch the tests to the gateway's sandbox?", 18000)),
				}},
				{Prompt: "keep them, the sandbox is down half the time", Replies: []fakeapi.Reply{
					main(reply("Keeping them. Next: rerun the gateway tests, then document the single retry path in docs/retries.md.", 18500)),
				}},
				{Prompt: "wait until the build box is free, I'll ping you", Replies: []fakeapi.Reply{main(full("Sure, waiting."))}},
			}
			after = []turn{
				{Prompt: "go", Replies: []fakeapi.Reply{reply("Rerunning.", 5000)}},
				{Prompt: "and?", Replies: []fakeapi.Reply{reply("Running.", 5200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "PAYG-5521"),
			rx("constraint: GatewayClient's public API", `(?i)public API of GatewayClient`),
			rx("constraint: no Lombok", `(?i)no Lombok`),
			rx("subagent finding: double retry, 3 x 2 = 6", `(?i)@Retryable[^\n]{0,200}(3 ?x ?2|6 attempts)|(3 ?x ?2|6 attempts)[^\n]{0,200}@Retryable`),
			lit("subagent finding: the config key", "payments.gateway.retry.max-attempts"),
			rx("subagent finding: backoff capped at 30 s", `(?i)MAX_BACKOFF[^\n]{0,40}30|30 ?s[^\n]{0,40}(cap|backoff)`),
			pipedFailed("subagent's piped command: gradle test failed", `\./gradlew :gateway:test`,
				`(?i)retriesOnTimeout[^\n]{0,200}(fail|expected 3)|gradlew :gateway:test[^\n]{0,200}fail|BUILD FAILED`),
			rx("decision: retry SocketTimeoutException in RetryPolicy", `SocketTimeoutException`),
			rx("open thread: answer, keep the WireMock stubs", `(?i)keep them, the sandbox|(keep|keeping)[^\n]{0,40}(WireMock|stubs)`),
			lit("open thread: next, document in docs/retries.md", "docs/retries.md"),
			lit("file edited", "GatewayClient.java"),
		},
	}
}

// The secrets planted in recallTerraformSecrets: fake, but in the formats
// real ones have.
var (
	awsKeyID     = secret{"AWS access key id", "AKIAZ7BENCH4EXAMPLE2"}
	awsSecret    = secret{"AWS secret access key", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYBENCHKEY42"}
	githubToken  = secret{"GitHub token", "ghp_B3nchT0ken4RecallScenario0a1b2c3d4e5"}
	stripeKey    = secret{"Stripe secret key", "sk_live_51NbEnChReCaLl0123456789abcdefGHIJKLmnop"}
	stripeHook   = secret{"Stripe webhook secret", "whsec_8fKq3LmN0pR7sT2vW5xY9zA1bC4dE6gH"}
	dbURLPass    = secret{"password in a database URL", "Zq8vL2nR5tW9xY3kBench"}
	tfvarsPass   = secret{"password assignment", "Tr0ub4dor-Reporting-2024!"}
	slackToken   = secret{"Slack bot token", "xoxb-2741-9090-Bench0Recall1Token2Scen"}
	privateWords = secret{"<private> span", "hunter2-Reporting-2019"}
)

// recallTerraformSecrets moves a database between networks with Terraform
// in a session full of secrets: credentials pasted in a prompt, read from
// files, printed by commands, repeated by the agent, and a <private> span.
func recallTerraformSecrets() scenario {
	dbURL := "postgres://reporting:" + dbURLPass.Value + "@reporting-new.c9xyz.eu-central-1.rds.amazonaws.com:5432/reports"
	return scenario{
		Name:  "terraform-secrets",
		Shape: "Terraform/AWS, auto; 9 secrets of 8 kinds planted",
		Files: map[string]string{
			"infra/backend.tf":       "terraform {\n  backend \"s3\" {\n    bucket = \"acme-tfstate\"\n    key    = \"reporting/terraform.tfstate\"\n    region = \"eu-central-1\"\n  }\n}\n",
			"infra/rds.tf":           "resource \"aws_db_instance\" \"reporting\" {\n  identifier           = \"reporting\"\n  engine               = \"postgres\"\n  instance_class       = \"db.r6g.large\"\n  db_subnet_group_name = aws_db_subnet_group.legacy.name\n  password             = var.db_password\n}\n\nresource \"aws_db_subnet_group\" \"legacy\" {\n  subnet_ids = [\"subnet-0aa1\", \"subnet-0aa2\"] # vpc-0a1b2c3d\n}\n",
			"infra/terraform.tfvars": "region          = \"eu-central-1\"\ndb_password     = \"" + tfvarsPass.Value + "\"\nslack_bot_token = \"" + slackToken.Value + "\"\nnew_vpc_id      = \"vpc-0f9e8d7c\"\n",
			".env":                   "GITHUB_TOKEN=" + githubToken.Value + "\nSTRIPE_SECRET_KEY=" + stripeKey.Value + "\nSTRIPE_WEBHOOK_SECRET=whsec_0ld0ld0ld0ld0ld0ld0ld0ld0ld0ld0ld\n",
		},
		Bins: map[string]string{
			"terraform": "#!/bin/sh\n# stand-in for terraform: prints what this configuration prints\ncase \"$*\" in\n*plan*)\n  cat <<'EOF'\n  # aws_db_instance.reporting will be updated in-place\n  ~ resource \"aws_db_instance\" \"reporting\" {\n      ~ db_subnet_group_name = \"legacy\" -> \"reporting-vpc2\"\n    }\n\n  # aws_db_subnet_group.reporting_vpc2 will be created\n  # aws_security_group.reporting_vpc2 will be created\n  # aws_security_group_rule.reporting_ingress will be created\n\nPlan: 3 to add, 1 to change, 0 to destroy.\nEOF\n  exit 0 ;;\n*output*)\n  printf '%s' '" + dbURL + "'\n  exit 0 ;;\nesac\n",
			"psql":      "#!/bin/sh\nprintf ' ?column? \\n----------\\n        1\\n(1 row)\\n'\n",
			"aws":       "#!/bin/sh\nprintf '{\\n    \"Version\": 3,\\n    \"Tier\": \"Standard\"\\n}\\n'\n",
		},
		AllowedTools:   []string{"Bash(terraform:*)", "Bash(tail:*)", "Bash(psql:*)", "Bash(aws ssm:*)"},
		PermissionMode: "acceptEdits",
		Trigger:        "auto",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{Prompt: "need to move the reporting db into the new VPC (INFRA-904). creds for the sandbox account: AWS_ACCESS_KEY_ID=" + awsKeyID.Value + " AWS_SECRET_ACCESS_KEY=" + awsSecret.Value + " . plan only, do NOT apply anything, and no changes to the state backend config", Replies: []fakeapi.Reply{
					reply("Reading the RDS config and the vars first.", 15000, read("toolu_tf_read_rds", p("infra/rds.tf")), read("toolu_tf_read_vars", p("infra/terraform.tfvars"))),
					reply("", 16000, bash("toolu_tf_plan", "terraform -chdir=infra plan -no-color 2>&1 | tail -20", "Plan the move")),
					reply("rds.tf pins `db_subnet_group_name = aws_db_subnet_group.legacy.name`, and the legacy group only has subnets in vpc-0a1b2c3d, the old VPC. The plan adds a subnet group and a security group in vpc-0f9e8d7c and changes `aws_db_instance.reporting` in place: 3 to add, 1 to change, 0 to destroy. Moving a running instance to another subnet group reboots it, so expect roughly 10 minutes of downtime.", 17000),
				}},
				{Prompt: "<private>fyi the old master password was " + privateWords.Value + ", rotate it after the move, don't write it anywhere</private> can you check the new endpoint answers?", Replies: []fakeapi.Reply{
					reply("", 17500, bash("toolu_tf_output", "terraform -chdir=infra output -raw reporting_db_url", "Get the new endpoint")),
					reply("", 18000, bash("toolu_tf_psql", "psql '"+dbURL+"' -c 'select 1'", "Check the endpoint")),
					reply("The endpoint answers: I connected with "+dbURL+" and `select 1` came back.", 18500),
				}},
				{Prompt: "also the stripe webhook secret in .env is stale, new one is " + stripeHook.Value + " . put it in SSM, not in the repo", Replies: []fakeapi.Reply{
					reply("", 19000, read("toolu_tf_read_env", p(".env"))),
					reply("", 19500, bash("toolu_tf_ssm", "aws ssm put-parameter --name /reporting/stripe/webhook_secret --type SecureString --value "+stripeHook.Value+" --overwrite", "Store the webhook secret in SSM")),
					reply("Stored as a SecureString, /reporting/stripe/webhook_secret (version 3). I left .env alone; the reporting service should read the parameter instead, which needs a change in its config loader.", 20000),
				}},
				{Prompt: "whats left", Replies: []fakeapi.Reply{
					reply("Left:\n1. schedule the maintenance window with #data-platform (the subnet change reboots the instance, ~10 min)\n2. after the move, delete aws_db_subnet_group.legacy in a separate PR\n3. point the reporting service at the SSM parameter", 20500),
				}},
				{Prompt: "ok. wait for my go, I need to talk to data-platform first", Replies: []fakeapi.Reply{reply("Waiting.", 21000)}},
				{Prompt: "still waiting on them", Replies: []fakeapi.Reply{full("👍")}},
			}
			after = []turn{
				{Prompt: "go", Replies: []fakeapi.Reply{reply("Scheduling.", 5000)}},
				{Prompt: "ok", Replies: []fakeapi.Reply{reply("Working.", 5200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "INFRA-904"),
			rx("constraint: plan only, never apply", `(?i)plan only|do NOT apply`),
			rx("constraint: leave the state backend alone", `(?i)state backend`),
			lit("key file read: the RDS config", "infra/rds.tf"),
			rx("key file's finding: pinned to the legacy subnet group", `db_subnet_group_name`),
			lit("command outcome: the plan", "3 to add, 1 to change, 0 to destroy"),
			rx("finding: about 10 minutes of downtime", `(?i)10 min`),
			lit("decision: webhook secret in SSM", "/reporting/stripe/webhook_secret"),
			lit("open thread: remaining, window with #data-platform", "#data-platform"),
			rx("open thread: remaining, legacy group in a separate PR", `(?i)separate PR`),
			rx("open thread: remaining, service reads the SSM parameter", `(?i)(point|read)[^\n]{0,60}(SSM|parameter)`),
			rx("open thread: waiting for the user's go", `(?i)wait[^\n]{0,40}(my go|for the user|data-platform)`),
		},
		Secrets: []secret{awsKeyID, awsSecret, githubToken, stripeKey, stripeHook, dbURLPass, tfvarsPass, slackToken, privateWords},
	}
}

// recallSQLLong is a long session (ten turns, a dozen files, a dozen
// commands, four decisions, a todo list) splitting a JSON column into a
// table with SQL migrations and a Go store layer: the restore must keep
// its early and late facts within the budget.
func recallSQLLong() scenario {
	return scenario{
		Name:  "sql-long",
		Shape: "SQL migrations + Go, auto; long session against the budget",
		Files: map[string]string{
			"go.mod":                           "module example.com/shop\n\ngo 1.22\n",
			"db/schema.sql":                    "CREATE TABLE orders (\n  id bigserial PRIMARY KEY,\n  customer_id bigint NOT NULL,\n  shipping_address jsonb NOT NULL,\n  deleted_at timestamptz\n);\n",
			"db/migrations/0040_orders.up.sql": "CREATE TABLE orders (id bigserial PRIMARY KEY);\n",
			"docs/adr/0007-soft-deletes.md":    "# ADR 0007: soft deletes\n\nOrders are never deleted. Set deleted_at; the invoice archive keeps reading them.\nNo foreign key to orders may cascade deletes.\n",
			"internal/store/orders.go":         "package store\n\n// Order is an order as the API returns it.\ntype Order struct {\n\tID      int64\n\tAddress Address\n}\n",
			"internal/store/queries.sql":       "-- name: GetOrder :one\nSELECT * FROM orders WHERE id = $1;\n",
			"sqlc.yaml":                        "version: \"2\"\nsql:\n  - engine: postgresql\n    queries: internal/store/queries.sql\n    schema: db/migrations\n",
		},
		Bins: map[string]string{
			"goose": "#!/bin/sh\n# stand-in for goose\nif grep -q country_code db/migrations/0041_create_addresses.up.sql 2>/dev/null; then\n  echo 'OK   0041_create_addresses.up.sql (41.2ms)'\n  echo 'OK   0042_backfill_addresses.up.sql (9m58s)'\n  echo 'goose: successfully migrated database to version: 42'\n  exit 0\nfi\necho 'OK   0041_create_addresses.up.sql (40.8ms)'\necho '2024/05/14 10:02:11 goose run: ERROR 0042_backfill_addresses.up.sql: failed to run SQL migration: ERROR: column \"country_code\" of relation \"addresses\" does not exist (SQLSTATE 42703)' >&2\nexit 1\n",
			"psql":  "#!/bin/sh\nprintf '  count  \\n---------\\n 1204332\\n(1 row)\\n'\n",
			"sqlc":  "#!/bin/sh\nexit 0\n",
			"go":    "#!/bin/sh\n# stand-in for the go tool in this project\nif grep -q 'Postcode \\*string' internal/store/addresses.go 2>/dev/null; then\n  echo 'ok  \texample.com/shop/internal/store\t0.388s'\n  exit 0\nfi\ncat <<'EOF'\n--- FAIL: TestOrderWithAddress (0.02s)\n    orders_test.go:41: cannot use row.Postcode (variable of type sql.NullString) as string value in struct literal\nFAIL\nFAIL\texample.com/shop/internal/store\t0.412s\nFAIL\nEOF\nexit 1\n",
		},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0", "GOOSE_DRIVER=postgres", "GOOSE_DBSTRING=postgres://localhost:5432/shop_dev"},
		AllowedTools:   []string{"Bash(goose:*)", "Bash(psql:*)", "Bash(sqlc:*)", "Bash(go test:*)", "Bash(tail:*)"},
		PermissionMode: "acceptEdits",
		Trigger:        "auto",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			m := func(name string) string { return p("db/migrations/" + name) }
			before = []turn{
				{Prompt: "DB-2207: split the `orders.shipping_address` JSON column into a proper `addresses` table.\n\nRules:\n- every migration needs a working down migration\n- nothing that locks `orders` during business hours (indexes CONCURRENTLY, backfills in batches)", Replies: []fakeapi.Reply{
					reply("", 14000, read("toolu_sql_read_adr", p("docs/adr/0007-soft-deletes.md")), read("toolu_sql_read_schema", p("db/schema.sql"))),
					reply("Before writing anything: ADR 0007 says orders are never hard-deleted (deleted_at), so addresses must not use ON DELETE CASCADE from orders; a soft-deleted order keeps its address for the invoice archive anyway. I'll keep addresses.order_id's counterpart, orders.address_id, nullable until the backfill is done, because the mobile app (v4.2) still writes the JSON column directly and would break on a NOT NULL.", 15000,
						write("toolu_sql_w_0041_up", m("0041_create_addresses.up.sql"), "CREATE TABLE addresses (\n  id bigserial PRIMARY KEY,\n  order_id bigint NOT NULL REFERENCES orders(id),\n  line1 text NOT NULL,\n  postcode text,\n  city text NOT NULL,\n  country char(2) NOT NULL\n);\nALTER TABLE orders ADD COLUMN address_id bigint;\n")),
					reply("", 15500, write("toolu_sql_w_0041_down", m("0041_create_addresses.down.sql"), "ALTER TABLE orders DROP COLUMN address_id;\nDROP TABLE addresses;\n")),
					reply("0041 up and down are written.", 16000),
				}},
				{Prompt: "ok. country codes: ISO alpha-2 or alpha-3? the json has both, sadly", Replies: []fakeapi.Reply{
					reply("The JSON mixes them; about 3% of the rows have alpha-3 ('DEU'). Which should the column hold? I'd say alpha-2, since the tax service and Stripe both use it.", 16500),
				}},
				{Prompt: "alpha-2. map the alpha-3 ones during the backfill", Replies: []fakeapi.Reply{
					reply("", 17000, write("toolu_sql_w_0042_up", m("0042_backfill_addresses.up.sql"), "-- +goose NO TRANSACTION\nDO $$ BEGIN PERFORM backfill_addresses(batch_size => 5000); END $$;\nCREATE TRIGGER orders_address_sync AFTER UPDATE OF shipping_address ON orders FOR EACH ROW EXECUTE FUNCTION sync_address();\n")),
					reply("", 17500, write("toolu_sql_w_0042_down", m("0042_backfill_addresses.down.sql"), "DROP TRIGGER orders_address_sync ON orders;\n")),
					reply("", 18000, bash("toolu_sql_goose_1", "goose -dir db/migrations up", "Apply the migrations locally")),
					reply("0042 fails: 0041 names the column `country` but the backfill writes `country_code`. I'll rename it in 0041 rather than in the backfill, since `country_code` matches the rest of the schema.", 18500,
						edit("toolu_sql_e_0041", m("0041_create_addresses.up.sql"), "  country char(2) NOT NULL", "  country_code char(2) NOT NULL")),
					reply("", 19000, bash("toolu_sql_goose_2", "goose -dir db/migrations up", "Apply the migrations again")),
					reply("", 19500, bash("toolu_sql_psql_count", "psql -d shop_dev -c 'select count(*) from addresses'", "Count the backfilled rows")),
					reply("Both migrations applied; 1,204,332 addresses backfilled.", 20000),
				}},
				{Prompt: "batch size?", Replies: []fakeapi.Reply{
					reply("The backfill does 5,000 rows per transaction. I picked 5,000 because the replica lag alarm fires at 30 s and a 5,000-row batch takes about 2 s on staging.", 20500),
				}},
				{Prompt: "good. now the go side", Replies: []fakeapi.Reply{
					reply("", 21000, edit("toolu_sql_e_queries", p("internal/store/queries.sql"), "SELECT * FROM orders WHERE id = $1;\n", "SELECT * FROM orders WHERE id = $1;\n\n-- name: GetOrderWithAddress :one\nSELECT o.*, a.* FROM orders o LEFT JOIN addresses a ON a.id = o.address_id WHERE o.id = $1;\n")),
					reply("", 21500, bash("toolu_sql_sqlc", "sqlc generate", "Generate the queries")),
					reply("", 22000, write("toolu_sql_w_addresses", p("internal/store/addresses.go"), "package store\n\n// Address is a shipping address.\ntype Address struct {\n\tLine1       string\n\tPostcode    string\n\tCity        string\n\tCountryCode string\n}\n")),
					reply("", 22500, edit("toolu_sql_e_orders", p("internal/store/orders.go"), "\tAddress Address\n", "\tAddress *Address // nil until the order's address is backfilled\n")),
					reply("", 23000, bash("toolu_sql_gotest_1", "go test ./internal/store/... 2>&1 | tail -30", "Run the store tests")),
					reply("TestOrderWithAddress fails: sqlc generates `sql.NullString` for `postcode` (the column is nullable) but `store.Address.Postcode` is a `string`. I have not changed the API type yet; a missing postcode is legitimate (Hong Kong has none), so the fix is on our side.", 23500),
				}},
				{Prompt: "use *string in the api type, not NullString", Replies: []fakeapi.Reply{
					reply("", 24000, edit("toolu_sql_e_addresses", p("internal/store/addresses.go"), "\tPostcode    string\n", "\tPostcode    *string\n")),
					reply("", 24500, bash("toolu_sql_gotest_2", "go test ./internal/store/... 2>&1 | tail -30", "Run the store tests again")),
					reply("Done, the store tests pass.", 25000),
				}},
				{Prompt: "what about the index on addresses.order_id", Replies: []fakeapi.Reply{
					reply("", 25500, write("toolu_sql_w_0043_up", m("0043_addresses_order_id_idx.up.sql"), "-- +goose NO TRANSACTION\nCREATE INDEX CONCURRENTLY addresses_order_id_idx ON addresses (order_id);\n")),
					reply("", 26000, write("toolu_sql_w_0043_down", m("0043_addresses_order_id_idx.down.sql"), "-- +goose NO TRANSACTION\nDROP INDEX CONCURRENTLY addresses_order_id_idx;\n")),
					reply("0043 creates the index CONCURRENTLY, outside a transaction (goose NO TRANSACTION), since CONCURRENTLY can't run inside one.", 26500),
				}},
				{Prompt: "todo list pls", Replies: []fakeapi.Reply{
					reply("", 27000, todoWrite("toolu_sql_todos",
						[2]string{"Create the addresses table (0041)", "completed"},
						[2]string{"Backfill with alpha-3 mapping (0042)", "completed"},
						[2]string{"Store layer and API types", "completed"},
						[2]string{"Index on addresses.order_id (0043)", "completed"},
						[2]string{"Drop orders.shipping_address in 0044, two releases later", "pending"},
						[2]string{"Get the mobile app to stop writing the JSON column", "pending"},
						[2]string{"Grafana panel for replica lag during the backfill", "pending"})),
					reply("The list is up to date.", 27500),
				}},
				{Prompt: "the release is next tuesday. anything risky?", Replies: []fakeapi.Reply{
					reply("Two things. The backfill runs about 10 minutes at production size, so run 0042 outside the 08:00-20:00 window. And the mobile app keeps writing the JSON column, so the trigger in 0042 has to keep addresses in sync until v4.3 ships.", 28000),
				}},
				{Prompt: "ok, enough for today", Replies: []fakeapi.Reply{full("See you tomorrow.")}},
			}
			after = []turn{
				{Prompt: "morning. let's do the grafana panel", Replies: []fakeapi.Reply{reply("Starting on the panel.", 5000)}},
				{Prompt: "ok", Replies: []fakeapi.Reply{reply("Working.", 5200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "DB-2207"),
			rx("constraint: a working down migration", `(?i)working down migration`),
			rx("constraint: no locks on orders in business hours", `(?i)locks? .?orders.? during business hours`),
			lit("key file read: the soft-delete ADR", "docs/adr/0007-soft-deletes.md"),
			rx("key file's rule: no ON DELETE CASCADE", `(?i)ON DELETE CASCADE`),
			rx("early decision: address_id nullable until the backfill", `(?i)nullable until the backfill`),
			rx("early decision's reason: the mobile app writes the JSON", `(?i)mobile app \(v4\.2\)|v4\.2`),
			rx("open thread: answer, alpha-2", `(?i)alpha-2`),
			lit("first file", "db/migrations/0041_create_addresses.up.sql"),
			rx("failed command: goose up, fixed", `(?i)goose[^\n]{0,200}(exit (code )?1|fail|error)`),
			rx("late decision: batches of 5,000 for the replica lag alarm", `5,?000`, `(?i)replica lag`),
			pipedFailed("piped command: go test failed before the fix", `go test \./internal/store/\.\.\.`,
				`(?i)TestOrderWithAddress|go test \./internal/store/\.\.\.[^\n]{0,200}fail`),
			rx("decision: *string in the API type", `\*string`),
			lit("late file", "internal/store/addresses.go"),
			lit("open todo: drop the JSON column in 0044", "0044"),
			lit("open thread: run 0042 outside 08:00-20:00", "08:00-20:00"),
		},
	}
}

// recallInteractiveTasks is typed into the interactive client under tmux:
// the agent plans with TaskCreate and works through the list with
// TaskUpdate, the user answers a question and leaves for lunch, and the
// compaction comes with the prompt after.
func recallInteractiveTasks() scenario {
	return scenario{
		Name:  "interactive-tasks",
		Shape: "Go, interactive under tmux, auto; TaskCreate/TaskUpdate",
		Files: map[string]string{
			"go.mod":                "module example.com/api\n\ngo 1.22\n\nrequire golang.org/x/time v0.5.0\n",
			"internal/auth/keys.go": "package auth\n\nimport \"strings\"\n\n// Internal reports whether a key belongs to one of our own services.\n// Internal keys start with int_ and are issued by the platform team only.\nfunc Internal(key string) bool { return strings.HasPrefix(key, \"int_\") }\n",
			"config/limits.yaml":    "# requests per second by API key prefix\ndefault: 20\npk_live_: 50\n",
		},
		Bins: map[string]string{"go": "#!/bin/sh\necho 'ok  \texample.com/api/internal/http\t0.211s'\n"},
		// Interactive sessions offer no todo tool unless asked; the task
		// tools are what 2.1.328 then offers.
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"},
		AllowedTools:   []string{"Bash(go test:*)", "Bash(tail:*)"},
		PermissionMode: "acceptEdits",
		Interactive:    true,
		Trigger:        "auto",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{Prompt: "lets add rate limiting to the public API (API-660). plan it as tasks first", Replies: []fakeapi.Reply{
					reply("", 14000,
						taskCreate("toolu_go_task_1", "Token bucket middleware in internal/http/ratelimit.go", "Wrap the public router"),
						taskCreate("toolu_go_task_2", "Per-key limits from config/limits.yaml", "Limits by API key prefix"),
						taskCreate("toolu_go_task_3", "Return Retry-After on 429", "Seconds until a token is free"),
						taskCreate("toolu_go_task_4", "Load test with vegeta at 2k rps", "Before and after p99")),
					reply("The plan is in the task list: middleware, per-key limits, Retry-After, load test.", 14500),
				}},
				{Prompt: "start with the middleware. use golang.org/x/time/rate, dont write our own bucket", Replies: []fakeapi.Reply{
					reply("", 15000, taskUpdate("toolu_go_upd_1", "1", "in_progress")),
					reply("", 15500, write("toolu_go_write_rl", p("internal/http/ratelimit.go"), "package http\n\nimport \"golang.org/x/time/rate\"\n\n// Limiter limits requests per API key.\ntype Limiter struct {\n\tby map[string]*rate.Limiter\n}\n")),
					reply("", 16000, bash("toolu_go_test_rl", "go test ./internal/http/ -run RateLimit 2>&1 | tail -5", "Run the middleware tests")),
					reply("", 16500, taskUpdate("toolu_go_upd_2", "1", "completed"), taskUpdate("toolu_go_upd_3", "2", "in_progress")),
					reply("Middleware is in and its tests pass. On to the per-key limits; limits.yaml keys are API key prefixes.", 17000),
				}},
				{Prompt: "what about our internal callers?", Replies: []fakeapi.Reply{
					reply("", 17500, read("toolu_go_read_keys", p("internal/auth/keys.go"))),
					reply("internal/auth/keys.go says internal callers use keys starting with `int_`, issued by the platform team only. I'd exempt them from limiting entirely. OK?", 18000),
				}},
				{Prompt: "yes exempt the int_ keys, but log them so we see the volume", Replies: []fakeapi.Reply{reply("Will do: int_ keys skip the limiter and get a log line.", 18500)}},
				{Prompt: "ok Im off to lunch", Replies: []fakeapi.Reply{full("👋")}},
			}
			after = []turn{
				{Prompt: "back, carry on", Replies: []fakeapi.Reply{reply("Continuing with the per-key limits.", 5000)}},
				{Prompt: "ok", Replies: []fakeapi.Reply{reply("Working.", 5200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "API-660"),
			rx("constraint: golang.org/x/time/rate, no own bucket", `(?i)x/time/rate`),
			lit("open task: per-key limits (in progress)", "Per-key limits from config/limits.yaml"),
			lit("open task: Retry-After on 429", "Return Retry-After on 429"),
			lit("open task: load test", "Load test with vegeta at 2k rps"),
			lit("key file read: the key rules", "internal/auth/keys.go"),
			rx("open thread: answer, exempt int_ keys but log them", `(?i)exempt the int_ keys, but log|int_[^\n]{0,80}log`),
			lit("file created", "internal/http/ratelimit.go"),
		},
	}
}

// recallCeleryManual is a production bug in a Python/Celery service told
// by a user who mixes in some Spanish, worked through with long reasoning
// and code blocks, compacted with /compact and instructions of the user's.
func recallCeleryManual() scenario {
	return scenario{
		Name:        "celery-manual",
		Shape:       "Python/Celery, manual with instructions; long reasoning, code blocks",
		Trigger:     "manual",
		CompactArgs: "focus on the celery fix",
		Files: map[string]string{
			"app/celery.py":               "from celery import Celery\n\napp = Celery(\"app\", broker=\"redis://redis:6379/0\")\napp.conf.task_acks_late = True\napp.conf.broker_transport_options = {\"visibility_timeout\": 3600}\n",
			"app/tasks/reminders.py":      "from app.celery import app\nfrom app.mail import send\n\n\n@app.task\ndef send_reminders(tenant_id, reminder_date):\n    for r in due_reminders(tenant_id, reminder_date):\n        send(r.email, r.body)\n",
			"app/tests/test_reminders.py": "def test_sends_each_reminder_once(tenant, two_reminders_same_day):\n    ...\n",
		},
		Bins:           map[string]string{"python": "#!/bin/sh\n# stand-in for python -m pytest in this project\ncat <<'EOF'\nF.....                                                                   [100%]\nFAILED app/tests/test_reminders.py::test_sends_each_reminder_once - django.db.utils.IntegrityError: duplicate key value violates unique constraint \"reminderlog_tenant_date_uniq\"\n1 failed, 5 passed in 2.87s\nEOF\nexit 1\n"},
		AllowedTools:   []string{"Bash(python -m pytest:*)", "Bash(tail:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{Prompt: "Hola! We have a problem in prod: the nightly `send_reminders` celery task sends duplicate emails since the last deploy. Ticket OPS-4410. Please be careful, we cannot restart the workers during the day, only between 22:00 and 23:00 CET.", Replies: []fakeapi.Reply{
					reply("", 13000, read("toolu_cel_read_tasks", p("app/tasks/reminders.py")), read("toolu_cel_read_celery", p("app/celery.py"))),
					reply("I think I see it, and it isn't the task code. app/celery.py sets `task_acks_late = True` together with a Redis `visibility_timeout` of 3600 seconds:\n\n```python\napp.conf.task_acks_late = True\napp.conf.broker_transport_options = {\"visibility_timeout\": 3600}\n```\n\nWith late acks the message stays unacknowledged until the task returns. On the big tenants `send_reminders` now runs about 70 minutes (the last deploy added the SMS fallback, which is slow), so after an hour Redis assumes the worker died and hands the same message to a second worker, while the first one is still sending. Both finish, and every reminder after the 60-minute mark goes out twice. That also explains why only the large tenants complain.", 14000),
				}},
				{Prompt: "makes sense. what do we do", Replies: []fakeapi.Reply{
					reply("Two options:\n\n```python\n# A: raise the timeout above the longest run\napp.conf.broker_transport_options = {\"visibility_timeout\": 4 * 3600}\n\n# B: make the send idempotent\nReminderLog.objects.create(tenant_id=tenant_id, reminder_date=reminder_date)  # unique (tenant, date)\n```\n\nI'd do B, because raising the timeout only moves the cliff: tenants keep growing, and in a year the run is longer than four hours too. Which one do you want?", 14500),
				}},
				{Prompt: "B, but also A as a quick fix tonight", Replies: []fakeapi.Reply{
					reply("", 15000, write("toolu_cel_write_migration", p("app/migrations/0087_reminderlog.py"),
						"from django.db import migrations, models\n\n\nclass Migration(migrations.Migration):\n    dependencies = [(\"app\", \"0086_sms_fallback\")]\n    operations = [\n        migrations.CreateModel(\n            name=\"ReminderLog\",\n            fields=[(\"id\", models.BigAutoField(primary_key=True)), (\"tenant_id\", models.BigIntegerField()), (\"reminder_date\", models.DateField())],\n            options={\"constraints\": [models.UniqueConstraint(fields=[\"tenant_id\", \"reminder_date\"], name=\"reminderlog_tenant_date_uniq\")]},\n        ),\n    ]\n")),
					reply("", 15500, edit("toolu_cel_edit_task", p("app/tasks/reminders.py"),
						"def send_reminders(tenant_id, reminder_date):\n", "def send_reminders(tenant_id, reminder_date):\n    if not ReminderLog.claim(tenant_id, reminder_date):\n        return\n")),
					reply("", 16000, bash("toolu_cel_pytest", "python -m pytest app/tests/test_reminders.py -x -q 2>&1 | tail -6", "Run the reminder tests")),
					reply("The idempotency guard is in, with migration 0087. One test fails: the fixture `two_reminders_same_day` creates two reminders for the same tenant and day on purpose, and the unique constraint now rejects the second log row. I have not fixed it yet, because I'm not sure whether the fixture or the constraint is wrong.", 16500),
				}},
				{Prompt: "I think the fixture is wrong, but let me ask Priya tomorrow. keep it failing for now, don't mark it xfail", Replies: []fakeapi.Reply{
					reply("OK, it stays red and not xfail.\n\nStill open: the fixture question for Priya.\n\nRemaining:\n1. set visibility_timeout to 4 hours, tonight in the 22:00-23:00 window\n2. deploy migration 0087 before the code that uses ReminderLog", 17000),
				}},
				{Prompt: "perfect, gracias", Replies: []fakeapi.Reply{reply("De nada!", 17500)}},
			}
			after = []turn{
				{Prompt: "ok so where were we", Replies: []fakeapi.Reply{reply("On the fix.", 4000)}},
				{Prompt: "and then?", Replies: []fakeapi.Reply{reply("Then the deploy.", 4200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "OPS-4410"),
			rx("constraint: restart workers only 22:00-23:00 CET", `(?i)22:00[^\n]{0,20}23:00`),
			lit("key file read: the Celery config", "app/celery.py"),
			rx("finding: late acks with a 3600 s visibility timeout", `(?i)visibility.?timeout[^\n]{0,80}3600|3600[^\n]{0,80}visibility`),
			rx("finding: the task runs about 70 minutes", `(?i)70 minutes`),
			rx("decision: B, an idempotency key", `(?i)idempoten`),
			rx("decision's reason: a longer timeout only moves the cliff", `(?i)moves the cliff`),
			rx("open thread: answer, B and A tonight", `(?i)B, but also A|quick fix tonight`),
			pipedFailed("piped command: the reminder tests failed", `python -m pytest app/tests/test_reminders\.py`,
				`(?i)test_reminders\.py[^\n]{0,200}fail|1 failed|IntegrityError`),
			rx("constraint: keep it failing, no xfail", `(?i)xfail`),
			rx("open thread: ask Priya about the fixture", `(?i)Priya`),
			rx("open thread: remaining, visibility_timeout to 4 hours tonight", `(?i)visibility_timeout to 4 hours|4 \* 3600`),
			lit("open thread: remaining, migration 0087 before the code", "0087"),
		},
	}
}
