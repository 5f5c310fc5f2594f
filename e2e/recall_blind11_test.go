package e2e

import (
	"path/filepath"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's eleventh blind set: four held-out sessions written
// without reading cairn's extraction, checkpoint, render or redaction code
// nor any other scenario's facts, only the bench's types and helpers. Their
// first run on main is the blind measurement; checks were corrected only
// where one could not have matched a faithful restore.
//
//   - a Haskell/cabal session whose GHC type error is buried in cabal's
//     build output beside an old warning, fixed the user's way after the
//     agent's quick fix is refused, then a second error of another kind;
//     it compacts twice, automatically;
//   - a MySQL data migration for a terse lowercase user who types fast:
//     row counts before and after, a batch size overruled with a bare
//     number, a rollback plan, a column drop asked for then taken back,
//     answers to three questions given one word a turn; /compact by hand;
//   - a SvelteKit/Playwright flaky-test hunt for a chatty user: piped runs
//     whose exit status hides the failures, a failure that comes back after
//     its fix, a test quarantined, a question left for another team, a
//     subagent that greps; it compacts inside a turn;
//   - a Java/Maven Kafka consumer change from a pasted pull-request review
//     (two comments done, two deferred, one left open), two designs of
//     which the user picks the second for stated reasons, a .env the agent
//     writes and a curl with a bearer token.
//
// They run only in the report (TestRecallReport), marked "held-out,
// blind11" in its shape column.

// blind11Scenarios are the eleventh blind set the recall report runs.
func blind11Scenarios() []scenario {
	return []scenario{
		blind11CabalTwice(),
		blind11MySQLBackfill(),
		blind11PlaywrightFlaky(),
		blind11KafkaReview(),
	}
}

// cabalStandIn prints what cabal-install 3.12 with GHC 9.8.2 prints for
// the ledger project: a type error in Ledger.Balance until inferElided
// exists, then a -Werror incomplete-patterns error in Ledger.Report until
// renderAmount has a Nothing equation; `cabal test` fails a golden test
// until the golden file is accepted.
const cabalStandIn = `#!/bin/sh
# stand-in for cabal-install 3.12.1 / ghc 9.8.2
prelude() {
cat <<'EOF'
Resolving dependencies...
Build profile: -w ghc-9.8.2 -O1
In order, the following will be built (use -v for more details):
 - ledger-core-0.4.0 (lib) (configuration changed)
 - ledger-core-0.4.0 (test:ledger-core-test) (configuration changed)
 - ledger-0.4.0 (exe:ledger) (configuration changed)
Configuring library for ledger-core-0.4.0...
Preprocessing library for ledger-core-0.4.0...
Building library for ledger-core-0.4.0...
[1 of 9] Compiling Ledger.Amount    ( src/Ledger/Amount.hs, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger/Amount.o, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger/Amount.dyn_o )
src/Ledger/Amount.hs:7:1: warning: [GHC-66111] [-Wunused-imports]
    The import of ‘Data.Maybe’ is redundant
      except perhaps to import instances from ‘Data.Maybe’
    To import instances alone, use: import Data.Maybe()
  |
7 | import Data.Maybe (fromMaybe)
  | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
[2 of 9] Compiling Ledger.Posting   ( src/Ledger/Posting.hs, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger/Posting.o, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger/Posting.dyn_o )
[3 of 9] Compiling Ledger.Account   ( src/Ledger/Account.hs, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger/Account.o, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger/Account.dyn_o )
[4 of 9] Compiling Ledger.Transaction ( src/Ledger/Transaction.hs, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger/Transaction.o, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger/Transaction.dyn_o )
EOF
}
case "$1" in
build)
  prelude
  if ! grep -q inferElided src/Ledger/Balance.hs; then
    cat <<'EOF'
[5 of 9] Compiling Ledger.Balance   ( src/Ledger/Balance.hs, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger/Balance.o, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger/Balance.dyn_o )

src/Ledger/Balance.hs:57:31: error: [GHC-83865]
    • Couldn't match expected type ‘Amount’
                  with actual type ‘Maybe Amount’
    • In the second argument of ‘addAmount’, namely ‘(pAmount p)’
      In the expression: addAmount acc (pAmount p)
      In an equation for ‘step’: step acc p = addAmount acc (pAmount p)
   |
57 |     step acc p = addAmount acc (pAmount p)
   |                               ^^^^^^^^^^^
Error: [Cabal-7125]
Failed to build ledger-core-0.4.0 (which is required by exe:ledger from ledger-0.4.0).
EOF
    exit 1
  fi
  echo "[5 of 9] Compiling Ledger.Balance   ( src/Ledger/Balance.hs, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger/Balance.o )"
  echo "[6 of 9] Compiling Ledger.Import.Csv ( src/Ledger/Import/Csv.hs, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger/Import/Csv.o )"
  if ! grep -q 'renderAmount Nothing' src/Ledger/Report.hs; then
    cat <<'EOF'
[7 of 9] Compiling Ledger.Report    ( src/Ledger/Report.hs, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger/Report.o, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger/Report.dyn_o )

src/Ledger/Report.hs:14:1: error: [GHC-62161] [-Wincomplete-patterns, Werror=incomplete-patterns]
    Pattern match(es) are non-exhaustive
    In an equation for ‘renderAmount’:
        Patterns of type ‘Maybe Amount’ not matched: Nothing
   |
14 | renderAmount (Just (Amount cents)) = showCents cents
   | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
Error: [Cabal-7125]
Failed to build ledger-core-0.4.0 (which is required by exe:ledger from ledger-0.4.0).
EOF
    exit 1
  fi
  cat <<'EOF'
[7 of 9] Compiling Ledger.Report    ( src/Ledger/Report.hs, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger/Report.o )
[8 of 9] Compiling Ledger.Journal   ( src/Ledger/Journal.hs, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger/Journal.o )
[9 of 9] Compiling Ledger           ( src/Ledger.hs, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/build/Ledger.o )
Configuring executable 'ledger' for ledger-0.4.0...
Preprocessing executable 'ledger' for ledger-0.4.0...
Building executable 'ledger' for ledger-0.4.0...
[1 of 1] Compiling Main             ( app/Main.hs, dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-0.4.0/x/ledger/build/ledger/ledger-tmp/Main.o )
[2 of 2] Linking dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-0.4.0/x/ledger/build/ledger/ledger
EOF
  exit 0
  ;;
test)
  case "$*" in
  *--accept*)
    printf '2025-03-02 Kontor card payment\n    expenses:food      12.40\n    assets:kontor\n' > test/golden/kontor-elided.txt
    cat <<'EOF'
Build profile: -w ghc-9.8.2 -O1
Running 1 test suites...
Test suite ledger-core-test: RUNNING...
ledger-core-test
  Golden
    import/kontor-elided.csv: OK
      Accepted the new version. Make sure it is what you expect.

All 148 tests passed (2.38s)
Test suite ledger-core-test: PASS
1 of 1 test suites (1 of 1 test cases) passed.
EOF
    exit 0
    ;;
  esac
  if grep -q 'assets:kontor     -12.40' test/golden/kontor-elided.txt; then
    cat <<'EOF'
Build profile: -w ghc-9.8.2 -O1
In order, the following will be built (use -v for more details):
 - ledger-core-0.4.0 (test:ledger-core-test) (first run)
Preprocessing test suite 'ledger-core-test' for ledger-core-0.4.0...
Building test suite 'ledger-core-test' for ledger-core-0.4.0...
Running 1 test suites...
Test suite ledger-core-test: RUNNING...
ledger-core-test
  Ledger.Balance
    balances a two-posting transaction:   OK
    infers one elided amount:             OK
    rejects two elided amounts:           OK
  Ledger.Import.Csv
    parses Kontor headers:                OK
    parses a blank amount as elided:      OK
  Golden
    import/kontor-basic.csv:              OK
    import/kontor-elided.csv:             FAIL
      Files differ: test/golden/kontor-elided.txt (golden) vs dist-newstyle/golden/kontor-elided.actual
      Use -p '/import\/kontor-elided.csv/' to rerun this test only.

1 out of 148 tests failed (2.41s)
Test suite ledger-core-test: FAIL
Test suite logged to:
dist-newstyle/build/x86_64-linux/ghc-9.8.2/ledger-core-0.4.0/t/ledger-core-test/test/ledger-core-0.4.0-ledger-core-test.log
0 of 1 test suites (0 of 1 test cases) passed.
Error: [Cabal-7125]
Tests failed for test:ledger-core-test from ledger-core-0.4.0.
EOF
    exit 1
  fi
  echo "All 148 tests passed (2.30s)"
  exit 0
  ;;
esac
echo "cabal: unexpected $*" >&2
exit 1
`

// blind11CabalTwice is a Haskell session for a friendly user: a field made
// a Maybe, a GHC type error under cabal's build chatter, the agent's quick
// fix refused for a reason and replaced by the user's, a second error of
// another kind, an open question for a named colleague; an automatic
// compaction with that error unresolved; then the fix, a golden test
// regenerated the way the user asked three turns earlier, and a second
// automatic compaction.
func blind11CabalTwice() scenario {
	posting := `module Ledger.Posting (Posting (..)) where

import Data.Text (Text)
import Ledger.Amount (Amount)

-- | One line of a transaction.
data Posting = Posting
  { pAccount :: Text
  , pAmount  :: Amount
  , pComment :: Maybe Text
  }
  deriving (Eq, Show)
`
	balance := `module Ledger.Balance (balanceTransaction, BalanceError (..)) where

import Ledger.Amount
import Ledger.Posting
import Ledger.Transaction

data BalanceError
  = Unbalanced TxnId Amount
  | TooManyElided TxnId
  deriving (Eq, Show)

-- | A balanced transaction's postings sum to zero.
balanceTransaction :: Transaction -> Either BalanceError Transaction
balanceTransaction t
  | total == zero = Right t
  | otherwise = Left (Unbalanced (txnId t) total)
  where
    total = foldl step zero (txnPostings t)
    step acc p = addAmount acc (pAmount p)
`
	report := `module Ledger.Report (renderPosting) where

import Data.Text (Text)
import qualified Data.Text as T
import Ledger.Amount
import Ledger.Posting

-- | A posting as one line of the register report.
renderPosting :: Posting -> Text
renderPosting p = T.intercalate "  " [pAccount p, renderAmount (pAmount p)]

renderAmount :: Amount -> Text
renderAmount (Amount cents) = showCents cents
`
	sc := scenario{
		Name:  "blind11-cabal-twice",
		Shape: "held-out, blind11: Haskell/cabal, GHC error under build output, quick fix refused, second error; two auto compactions",
		Files: map[string]string{
			"cabal.project":                 "packages: ledger-core ledger\nindex-state: 2025-09-01T00:00:00Z\nwith-compiler: ghc-9.8.2\n",
			"ledger-core.cabal":             "cabal-version: 3.0\nname: ledger-core\nversion: 0.4.0\n\nlibrary\n  hs-source-dirs: src\n  ghc-options: -Wall -Werror=incomplete-patterns\n",
			"src/Ledger/Posting.hs":         posting,
			"src/Ledger/Balance.hs":         balance,
			"src/Ledger/Report.hs":          report,
			"test/golden/kontor-elided.txt": "2025-03-02 Kontor card payment\n    expenses:food      12.40\n    assets:kontor     -12.40\n",
			"CHANGELOG.md":                  "# Changelog\n\n## Unreleased\n\n## 0.4.0\n- CSV import for Kontor statements\n",
		},
		Bins:           map[string]string{"cabal": cabalStandIn},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(cabal:*)"},
		PermissionMode: "acceptEdits",
		Compactions:    []string{"auto", "auto"},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{
					Prompt: "Morning! Ticket for today is LED-241. Bank CSVs from Kontor come with the amount left blank on the balancing posting, " +
						"and the importer just dies with `read: no parse`. I'd like Posting's amount to become a `Maybe Amount` so we can represent the " +
						"elided one properly and fill it in later. One thing before you start: please leave the index-state in cabal.project alone, " +
						"CI pins it and bumping it means a full day of rebuilding our Nix cache.",
					Replies: []fakeapi.Reply{
						reply("Let me look at the Posting type first.", 21000, read("toolu_read_posting", p("src/Ledger/Posting.hs"))),
						reply("", 22500, edit("toolu_edit_posting", p("src/Ledger/Posting.hs"), "  , pAmount  :: Amount\n", "  , pAmount  :: Maybe Amount -- Nothing: elided, inferred when balancing\n")),
						reply("", 23500, bash("toolu_build_1", "cabal build all", "Build everything after the type change")),
						reply("The build stops in Ledger.Balance (the Data.Maybe warning in Ledger.Amount above it is old and harmless):\n\n"+
							"`src/Ledger/Balance.hs:57:31: error: [GHC-83865] Couldn't match expected type ‘Amount’ with actual type ‘Maybe Amount’` in `step`, "+
							"where the balance folds `pAmount`.\n\nThe quickest fix is `fromMaybe (Amount 0)` in `step`. Shall I do that?", 25000),
					},
				},
				{
					Prompt: "hm, no. don't zero it, a zero would silently unbalance the transaction and nobody would notice. An elided amount has to be " +
						"inferred from the other postings in the same transaction (it's minus their sum), and two elided ones in one txn is an error for now. " +
						"Oh and while you're in there: golden files under test/golden are only ever regenerated with --accept, never edited by hand.",
					Replies: []fakeapi.Reply{
						reply("", 26500, read("toolu_read_balance", p("src/Ledger/Balance.hs"))),
						reply("Inferring the elided amount before the sum.", 28000, edit("toolu_edit_balance", p("src/Ledger/Balance.hs"),
							"balanceTransaction t\n  | total == zero = Right t\n  | otherwise = Left (Unbalanced (txnId t) total)\n  where\n    total = foldl step zero (txnPostings t)\n    step acc p = addAmount acc (pAmount p)\n",
							"balanceTransaction t0 = do\n  t <- inferElided t0\n  let total = foldl step zero (txnPostings t)\n  if total == zero then Right t else Left (Unbalanced (txnId t) total)\n  where\n    step acc p = maybe acc (addAmount acc) (pAmount p)\n\n"+
								"-- | Fills the one elided amount with minus the sum of the others;\n-- two elided amounts in one transaction are an error for now.\n"+
								"inferElided :: Transaction -> Either BalanceError Transaction\ninferElided t = case [p | p <- txnPostings t, pAmount p == Nothing] of\n"+
								"  [] -> Right t\n  [_] -> Right t {txnPostings = map fill (txnPostings t)}\n  _ -> Left (TooManyElided (txnId t))\n  where\n"+
								"    known = foldl addAmount zero [a | Just a <- map pAmount (txnPostings t)]\n    fill p = if pAmount p == Nothing then p {pAmount = Just (negateAmount known)} else p\n")),
						reply("", 29500, read("toolu_read_report", p("src/Ledger/Report.hs"))),
						reply("", 31000, edit("toolu_edit_report_sig", p("src/Ledger/Report.hs"),
							"renderAmount :: Amount -> Text\nrenderAmount (Amount cents) = showCents cents\n",
							"renderAmount :: Maybe Amount -> Text\nrenderAmount (Just (Amount cents)) = showCents cents\n")),
						reply("", 32500, bash("toolu_build_2", "cabal build all", "Rebuild with inferElided")),
						reply("", 34000, todoWrite("toolu_todo_1",
							[2]string{"Infer elided amounts in balanceTransaction", "completed"},
							[2]string{"Make renderAmount total in Report.hs", "in_progress"},
							[2]string{"Add a property test: balanced transactions stay balanced after inference", "pending"},
							[2]string{"Add a line to CHANGELOG.md under Unreleased", "pending"})),
						reply("Ledger.Balance compiles now: `inferElided` fills the single elided posting with minus the sum of the others, and two elided postings give "+
							"`Left (TooManyElided txnId)`.\n\nThe build now fails further on, a different error: `src/Ledger/Report.hs:14:1: error: [GHC-62161] "+
							"[-Wincomplete-patterns, Werror=incomplete-patterns]`: `renderAmount` has no equation for `Nothing`.", 35500),
					},
				},
				{
					Prompt: "Before you fix that one, who should decide the two-elided case long term?",
					Replies: []fakeapi.Reply{
						reply("That's for Priya, she owns the Kontor importer. I'll keep it as an open question for her: should the CSV importer warn and skip a "+
							"transaction with two elided amounts instead of failing the whole file? Until she answers, it stays an error.", 37000),
					},
				},
				{
					Prompt: "ok. how long does a clean CI build take these days, roughly?",
					Replies: []fakeapi.Reply{
						full("With the Nix cache warm, about six minutes; cold, most of a day, which is why the pinned index-state matters."),
					},
				},
				{
					Prompt: "right, carry on",
					Replies: []fakeapi.Reply{
						reply("", 9000, read("toolu_read_report_2", p("src/Ledger/Report.hs"))),
						reply("I'll render an elided amount as an empty cell, the way hledger prints them, so the report columns stay aligned.", 10500,
							edit("toolu_edit_report_nothing", p("src/Ledger/Report.hs"),
								"renderAmount (Just (Amount cents)) = showCents cents\n",
								"renderAmount (Just (Amount cents)) = showCents cents\nrenderAmount Nothing = \"\" -- elided\n")),
						reply("", 12000, bash("toolu_build_3", "cabal build all", "Build again")),
						reply("", 13000, bash("toolu_test_1", "cabal test ledger-core-test", "Run the test suite")),
						reply("The build is clean. One golden test differs, `import/kontor-elided.csv`: the balancing posting is now rendered blank, which is the "+
							"intended change, so I'm regenerating the golden file with --accept rather than touching it.", 14500,
							bash("toolu_test_accept", "cabal test ledger-core-test --test-options=--accept", "Regenerate the golden file")),
						reply("", 15500, todoWrite("toolu_todo_2",
							[2]string{"Infer elided amounts in balanceTransaction", "completed"},
							[2]string{"Make renderAmount total in Report.hs", "completed"},
							[2]string{"Add a property test: balanced transactions stay balanced after inference", "pending"},
							[2]string{"Add a line to CHANGELOG.md under Unreleased", "pending"})),
						reply("All 148 tests pass.", 16500),
					},
				},
				{
					Prompt: "nice. what's left?",
					Replies: []fakeapi.Reply{
						full("Left:\n1. the property test that inference keeps transactions balanced\n2. the CHANGELOG entry\n3. Priya's answer on two elided amounts"),
					},
				},
			}
			after = []turn{
				{Prompt: "go on with 1", Replies: []fakeapi.Reply{reply("Writing it.", 6000)}},
				{Prompt: "thanks", Replies: []fakeapi.Reply{reply("Sure.", 6500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "LED-241"),
			rx("constraint: index-state", `(?i)(leave|don'?t|do not|never|not)[^\n]{0,60}index-state`),
			rx("constraint: golden files with --accept", `(?i)golden[^\n]{0,80}--accept`),
			lit("file edited: Posting", "src/Ledger/Posting.hs"),
			lit("file edited: Balance", "src/Ledger/Balance.hs"),
			lit("file edited: Report", "src/Ledger/Report.hs"),
			rx("failed command: the buried type error", `Balance\.hs:57`, `(?i)couldn'?t match`),
			lit("decision: infer the elided amount", "inferred from the other postings"),
			lit("decision's reason: not zero", "silently unbalance the transaction"),
			rx("failing command: second error, incomplete patterns", `Report\.hs:14`, `(?i)incomplete-patterns|non-exhaustive`).until(1),
			rx("open thread: question for Priya", `Priya`, `(?i)two elided amounts`),
			lit("open todo: property test", "balanced transactions stay balanced after inference"),
			lit("open todo: changelog", "CHANGELOG.md under Unreleased"),
			rx("failure fixed: incomplete patterns", `(?i)(Report\.hs|renderAmount)[^\n]{0,120}(fixed|resolved|now (builds|compiles|passes)|clean)|(fixed|resolved)[^\n]{0,60}(Report\.hs|renderAmount)`).
				notRx(`(?i)Report\.hs:14[^\n]{0,80}(unresolved|still fail)`).from(2),
			lit("decision: elided as an empty cell", "empty cell").from(2),
			lit("decision's reason: aligned columns", "report columns stay aligned").from(2),
			rx("command: golden regenerated with --accept", `(?i)--test-options=--accept`).from(2),
		},
	}
	return sc
}

// backfillScript is the project's backfill tool: it copies
// orders.shipping_addr into order_addresses in batches and stops on a
// postcode too long for its column until the widening migration exists.
const backfillScript = `#!/bin/sh
# backfill-addresses: copies orders.shipping_addr (JSON) into order_addresses,
# in batches keyed on orders.id; rows whose JSON is invalid go to order_addresses_rejects.
BATCH=5000
DRY=0
FROM=1
while [ $# -gt 0 ]; do
  case "$1" in
    --batch-size) BATCH=$2; shift 2 ;;
    --dry-run) DRY=1; shift ;;
    --resume-from) FROM=$2; shift 2 ;;
    *) echo "backfill-addresses: unknown flag $1" >&2; exit 2 ;;
  esac
done
ROWS=1284337
BATCHES=$(( (ROWS + BATCH - 1) / BATCH ))
if [ $DRY = 1 ]; then
  echo "dry run: $ROWS rows with a shipping_addr, $BATCHES batches of $BATCH (est. $(( BATCHES / 120 )) min at 2 batches/s)"
  exit 0
fi
echo "backfill-addresses: $ROWS rows, $BATCHES batches of $BATCH, from batch $FROM"
if ! grep -q 'VARCHAR(16)' migrations/0042_widen_postcode.sql 2>/dev/null; then
  i=$FROM
  while [ $i -lt 1184 ]; do
    echo "batch $i/$BATCHES ok ($BATCH rows, 0 rejected) 0.4s"
    i=$((i + 59))
  done
  echo "batch 1183/$BATCHES ok ($BATCH rows, 1 rejected) 0.5s"
  echo "batch 1184/$BATCHES: ERROR 1406 (22001) at line 1: Data too long for column 'postcode' at row 212" >&2
  echo "stopped after 591500 rows copied; resume with --resume-from 1184" >&2
  exit 1
fi
echo "batch $FROM/$BATCHES ok ($BATCH rows, 0 rejected) 0.4s"
echo "batch 2569/$BATCHES ok (337 rows, 0 rejected) 0.3s"
echo "done: copied 1284102 rows, rejected 235 (invalid JSON -> order_addresses_rejects), $BATCHES batches, 19m42s"
`

// mysqlStandIn answers the queries the migration session runs against
// db-stg-2, in the mysql 8.0 client's table format.
const mysqlStandIn = `#!/bin/sh
# stand-in for the mysql 8.0 client against db-stg-2
echo "mysql: [Warning] Using a password on the command line interface can be insecure." >&2
case "$*" in
*"JSON_VALID"*)
  printf '+----------+\n| COUNT(*) |\n+----------+\n|      235 |\n+----------+\n' ;;
*"FROM orders WHERE shipping_addr IS NOT NULL"*)
  printf '+----------+\n| COUNT(*) |\n+----------+\n|  1284337 |\n+----------+\n' ;;
*"AS copied"*)
  printf '+---------+----------+\n| copied  | rejected |\n+---------+----------+\n| 1284102 |      235 |\n+---------+----------+\n' ;;
esac
exit 0
`

// blind11MySQLBackfill is a MySQL data migration for a terse user who
// types in lowercase and misspells: counts before, a batch size the user
// overrules with a bare number, a rollback plan, a column drop asked for
// and taken back, an error fixed by a widening migration, counts after,
// three answers given one word a turn; then /compact by hand.
func blind11MySQLBackfill() scenario {
	const pw = "qV7rT2xLw9KdN4sZ"
	conn := "mysql -h db-stg-2 -u migrator -p" + pw + " shop"
	sc := scenario{
		Name:  "blind11-mysql-backfill",
		Shape: "held-out, blind11: MySQL data migration, terse lowercase user, bare-number overrule, taken back, one-word answers; manual compaction",
		Files: map[string]string{
			"scripts/backfill-addresses":                  backfillScript,
			"migrations/0041_order_addresses.sql":         "CREATE TABLE order_addresses (\n  order_id BIGINT PRIMARY KEY,\n  line1 VARCHAR(255) NOT NULL,\n  city VARCHAR(128) NOT NULL,\n  postcode VARCHAR(10) NOT NULL,\n  country CHAR(2) NOT NULL\n);\n",
			"migrations/0041_order_addresses_rejects.sql": "CREATE TABLE order_addresses_rejects (order_id BIGINT PRIMARY KEY, raw TEXT);\n",
		},
		Bins:           map[string]string{"mysql": mysqlStandIn},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(mysql:*)", "Bash(sh:*)"},
		PermissionMode: "acceptEdits",
		Trigger:        "manual",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			script := p("scripts/backfill-addresses")
			before = []turn{
				{
					Prompt: "ship-312: move orders.shipping_addr json into the new order_addresses table. staging only (db-stg-2), never point anything at prod-db. conn is " + conn,
					Replies: []fakeapi.Reply{
						reply("Counting what there is to move.", 14000, bash("toolu_count_before", conn+` -e "SELECT COUNT(*) FROM orders WHERE shipping_addr IS NOT NULL"`, "Count orders with a shipping address")),
						reply("", 15000, bash("toolu_count_invalid", conn+` -e "SELECT COUNT(*) FROM orders WHERE shipping_addr IS NOT NULL AND JSON_VALID(shipping_addr) = 0"`, "Count invalid JSON addresses")),
						reply("1,284,337 orders have a shipping_addr, and 235 of those aren't valid JSON. My plan: backfill in batches of 5,000 keyed on orders.id, "+
							"and send the 235 bad rows to order_addresses_rejects instead of failing the run.", 16000),
					},
				},
				{
					Prompt: "nah, 500. replica lag on stg-2 goes nuts above that",
					Replies: []fakeapi.Reply{
						reply("", 17000, read("toolu_read_script", script)),
						reply("", 18000, edit("toolu_edit_batch", script, "BATCH=5000\n", "BATCH=500 # replica lag on db-stg-2 above this\n")),
						reply("", 19000, bash("toolu_dry", "sh scripts/backfill-addresses --batch-size 500 --dry-run", "Dry run with batches of 500")),
						reply("Batch size is 500 now: 2,569 batches, about 21 minutes by the dry run.", 20000),
					},
				},
				{
					Prompt: "k. rollback plan?",
					Replies: []fakeapi.Reply{
						reply("", 21500, write("toolu_write_rollback", p("migrations/rollback_ship312.sql"),
							"-- rollback for SHIP-312: the backfill never writes to orders, so dropping the new tables is the whole rollback\n"+
								"DROP TABLE IF EXISTS order_addresses_rejects;\nDROP TABLE IF EXISTS order_addresses;\n")),
						reply("Rollback is migrations/rollback_ship312.sql: drop order_addresses and order_addresses_rejects. The backfill only reads orders, so "+
							"shipping_addr stays the source of truth and there is nothing to restore.", 22500),
					},
				},
				{
					Prompt: "also drop the old colum at the end of the script, saves us a migration",
					Replies: []fakeapi.Reply{
						reply("", 23500, read("toolu_read_script_2", script)),
						reply("", 24500, edit("toolu_edit_drop", script,
							"echo \"done: copied 1284102 rows",
							"# last step: the legacy column goes\n"+conn+" -e \"ALTER TABLE orders DROP COLUMN shipping_addr\"\necho \"done: copied 1284102 rows")),
						reply("Added `ALTER TABLE orders DROP COLUMN shipping_addr` as the script's last step. Note this turns the rollback into a restore from backup.", 25500),
					},
				},
				{
					Prompt: "wait no. take that out, keep shipping_addr untill finance signs off on the numbers. rollback has to stay a plain drop table",
					Replies: []fakeapi.Reply{
						reply("", 26500, read("toolu_read_script_3", script)),
						reply("", 27500, edit("toolu_edit_undrop", script,
							"# last step: the legacy column goes\n"+conn+" -e \"ALTER TABLE orders DROP COLUMN shipping_addr\"\n", "")),
						reply("Taken out. shipping_addr stays until finance signs off, and the rollback stays the two DROP TABLEs.", 28500),
					},
				},
				{
					Prompt: "run it",
					Replies: []fakeapi.Reply{
						reply("", 29500, bash("toolu_run_1", "sh scripts/backfill-addresses --batch-size 500", "Run the backfill")),
						reply("It stopped at batch 1184 of 2569: `ERROR 1406 (22001): Data too long for column 'postcode' at row 212`, after 591,500 rows. "+
							"order_addresses.postcode is VARCHAR(10), and some Irish and Dutch postcodes with spaces plus padding don't fit. I'll widen it to VARCHAR(16) in a new migration.", 31000,
							write("toolu_write_widen", p("migrations/0042_widen_postcode.sql"), "ALTER TABLE order_addresses MODIFY postcode VARCHAR(16) NOT NULL;\n")),
						reply("", 32000, bash("toolu_apply_widen", conn+" < migrations/0042_widen_postcode.sql", "Apply the postcode widening")),
						reply("", 33000, bash("toolu_run_2", "sh scripts/backfill-addresses --batch-size 500 --resume-from 1184", "Resume the backfill at batch 1184")),
						reply("", 34000, bash("toolu_count_after", conn+` -e "SELECT (SELECT COUNT(*) FROM order_addresses) AS copied, (SELECT COUNT(*) FROM order_addresses_rejects) AS rejected"`, "Count copied and rejected rows")),
						reply("Backfill done: order_addresses has 1,284,102 rows and order_addresses_rejects 235; 1,284,102 + 235 = 1,284,337, the count before.\n\n"+
							"Three things before I write the verification query:\n1. how should I compare the two tables: a hash per row, or daily counts?\n"+
							"2. include soft-deleted orders?\n3. send the list of rejects to finance?", 35000),
					},
				},
				{
					Prompt:  "checksum",
					Replies: []fakeapi.Reply{reply("OK. And 2?", 36000)},
				},
				{
					Prompt:  "no",
					Replies: []fakeapi.Reply{reply("No soft-deleted orders, then. And 3?", 36500)},
				},
				{
					Prompt: "yes csv to marta",
					Replies: []fakeapi.Reply{
						reply("", 37500, todoWrite("toolu_todo",
							[2]string{"Backfill order_addresses from orders.shipping_addr", "completed"},
							[2]string{"Write the verification query for order_addresses", "pending"},
							[2]string{"Export the rejected rows for finance", "pending"},
							[2]string{"Drop orders.shipping_addr after finance signs off", "pending"})),
						reply("Noted.", 38500),
					},
				},
			}
			after = []turn{
				{Prompt: "go", Replies: []fakeapi.Reply{reply("Writing the verification query.", 5000)}},
				{Prompt: "thx", Replies: []fakeapi.Reply{reply("Done soon.", 5500)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("ticket", `(?i)ship-312`),
			lit("constraint: never prod", "never point anything at prod-db"),
			rx("finding: rows before", `1,?284,?337`),
			rx("finding: invalid JSON rows", `(?i)\b235\b[^\n]{0,80}(reject|invalid|not valid|bad)|(reject|invalid|bad)[^\n]{0,80}\b235\b`),
			rx("decision: batch size 500", `(?i)batch[^\n]{0,40}\b500\b`),
			lit("decision's reason: replica lag", "replica lag"),
			lit("file created: rollback", "migrations/rollback_ship312.sql"),
			rx("decision: rollback stays a plain drop table", `(?i)plain drop table`),
			rx("constraint: keep shipping_addr (drop taken back)", `(?i)keep shipping_addr unt?ill? finance signs off`),
			rx("failed command: backfill, error 1406", `(?i)ERROR 1406|Data too long for column 'postcode'`),
			rx("failure fixed: postcode widened", `(?i)VARCHAR\(16\)`),
			lit("file created: widening migration", "0042_widen_postcode.sql"),
			rx("finding: rows after", `1,?284,?102`),
			rx("answer 1: checksum", `(?i)checksum`),
			rx("answer 2: no soft-deleted", `(?i)(no|not|exclud\w*|skip\w*|without)[^\n]{0,30}soft-deleted|soft-deleted[^\n]{0,60}(\bno\b|exclud|skip|without)`),
			rx("answer 3: rejects as csv to marta", `(?i)csv to marta`),
			lit("open todo: drop after sign-off", "Drop orders.shipping_addr after finance signs off"),
		},
		Secrets: []secret{{"MySQL password on a command line", pw}},
	}
	return sc
}

// slackHook is a Slack incoming-webhook URL the e2e run's teardown prints.
const slackHook = "https://hooks.slack.com/services/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"

// pnpmStandIn prints what `pnpm exec playwright test` prints on the
// storefront: the cart test fails 3 of 40 until it waits for the PATCH,
// passes 40 of 40 then, but fails again at 50 repeats (with the search
// test) until it waits for the summary refetch.
const pnpmStandIn = `#!/bin/sh
# stand-in for pnpm exec playwright test (Playwright 1.49, SvelteKit storefront)
if [ "$1 $2 $3" != "exec playwright test" ]; then echo "pnpm: unexpected $*" >&2; exit 1; fi
patch=0; summary=0
grep -q "waitForResponse" tests/cart.spec.ts && patch=1
grep -q "api/cart/summary" tests/cart.spec.ts && summary=1
# the teardown posts a run summary when a run passes
teardown() { echo "[teardown] run summary posted to ` + slackHook + `"; }
case "$*" in
*"repeat-each=10"*)
  echo "[WebServer] VITE v5.4.11  ready in 812 ms"
  echo
  echo "Running 40 tests using 2 workers"
  echo
  if [ $patch = 0 ]; then
    cat <<'EOF'
  ✓   1 [chromium] › tests/cart.spec.ts:12:3 › cart › adds an item from the product page (1.9s)
  ✓   2 [chromium] › tests/cart.spec.ts:27:3 › cart › removes an item (1.4s)
  ✘  13 [chromium] › tests/cart.spec.ts:42:3 › cart › updates total after quantity change (repeat3) (5.8s)
  ✘  25 [chromium] › tests/cart.spec.ts:42:3 › cart › updates total after quantity change (repeat6) (5.7s)
  ✘  37 [chromium] › tests/cart.spec.ts:42:3 › cart › updates total after quantity change (repeat9) (5.9s)

  1) [chromium] › tests/cart.spec.ts:42:3 › cart › updates total after quantity change (repeat3)

    Error: Timed out 5000ms waiting for expect(locator).toHaveText(expected)

    Locator: getByTestId('cart-total')
    Expected string: "€ 59,80"
    Received string: "€ 29,90"
    Call log:
      - expect.toHaveText with timeout 5000ms
      - waiting for getByTestId('cart-total')
      -   locator resolved to <output data-testid="cart-total">€ 29,90</output>
      -   unexpected value "€ 29,90"

      45 |   await page.getByRole('button', { name: 'Increase quantity' }).click();
    > 46 |   await expect(page.getByTestId('cart-total')).toHaveText('€ 59,80');
         |                                                ^

  3 failed
    [chromium] › tests/cart.spec.ts:42:3 › cart › updates total after quantity change (repeat3)
    [chromium] › tests/cart.spec.ts:42:3 › cart › updates total after quantity change (repeat6)
    [chromium] › tests/cart.spec.ts:42:3 › cart › updates total after quantity change (repeat9)
  37 passed (48.2s)
EOF
    exit 1
  fi
  echo "  40 passed (46.0s)"
  teardown
  exit 0
  ;;
*"repeat-each=50"*)
  if [ $summary = 1 ]; then
    echo "Running 200 tests using 2 workers"
    echo "  200 passed (3.9m)"
    teardown
    exit 0
  fi
  echo "Running 350 tests using 2 workers"
  cat <<'EOF'
  1) [chromium] › tests/cart.spec.ts:42:3 › cart › updates total after quantity change (repeat31)

    Error: Timed out 5000ms waiting for expect(locator).toHaveText(expected)

    Locator: getByTestId('cart-total')
    Expected string: "€ 59,80"
    Received string: "€ 29,90"

  3) [chromium] › tests/search.spec.ts:18:5 › search › shows suggestions while typing (repeat2)

    Error: Timed out 1000ms waiting for expect(locator).toBeVisible()

    Locator: getByRole('listbox', { name: 'Suggestions' })
    Expected: visible
    Received: <element(s) not found>

  9 failed
    [chromium] › tests/cart.spec.ts:42:3 › cart › updates total after quantity change (repeat31)
    [chromium] › tests/cart.spec.ts:42:3 › cart › updates total after quantity change (repeat44)
    [chromium] › tests/search.spec.ts:18:5 › search › shows suggestions while typing (repeat2)
    [chromium] › tests/search.spec.ts:18:5 › search › shows suggestions while typing (repeat9)
    [chromium] › tests/search.spec.ts:18:5 › search › shows suggestions while typing (repeat17)
    [chromium] › tests/search.spec.ts:18:5 › search › shows suggestions while typing (repeat23)
    [chromium] › tests/search.spec.ts:18:5 › search › shows suggestions while typing (repeat30)
    [chromium] › tests/search.spec.ts:18:5 › search › shows suggestions while typing (repeat38)
    [chromium] › tests/search.spec.ts:18:5 › search › shows suggestions while typing (repeat47)
  341 passed (6.1m)
EOF
  exit 1
  ;;
esac
echo "pnpm: unexpected $*" >&2
exit 1
`

// blind11PlaywrightFlaky is a flaky-test hunt in a SvelteKit storefront
// for a chatty user: piped Playwright runs whose pipe exits 0 over
// failures, a fix that holds at 10 repeats and fails again at 50, a test
// of another team's quarantined by tag, a question for that team, a
// subagent that finds the refetch; it compacts inside a turn, right after
// the second fix is written and before it is run.
func blind11PlaywrightFlaky() scenario {
	cartSpec := `import { test, expect } from '@playwright/test';

test.describe('cart', () => {
  test('updates total after quantity change', async ({ page }) => {
    await page.goto('/products/linen-tote');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.goto('/cart');
    await page.getByRole('button', { name: 'Increase quantity' }).click();
    await expect(page.getByTestId('cart-total')).toHaveText('€ 59,80');
  });
});
`
	searchSpec := `import { test, expect } from '@playwright/test';

test.describe('search', () => {
  test('shows suggestions while typing', async ({ page }) => {
    await page.goto('/');
    await page.getByRole('searchbox').pressSequentially('lin');
    await expect(page.getByRole('listbox', { name: 'Suggestions' })).toBeVisible({ timeout: 1000 });
  });
});
`
	config := `import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'tests',
  retries: 0,
  webServer: { command: 'pnpm build && pnpm preview', port: 4173 },
});
`
	cartRow := `<script lang="ts">
  import { updateQuantity } from '$lib/cart/store';
  let { line } = $props();
  let timer: ReturnType<typeof setTimeout>;
  function bump(delta: number) {
    clearTimeout(timer);
    // debounce: one PATCH per burst of clicks
    timer = setTimeout(() => updateQuantity(line.id, line.quantity + delta), 300);
  }
</script>

<button aria-label="Increase quantity" onclick={() => bump(1)}>+</button>
`
	store := `import { writable } from 'svelte/store';

export const summary = writable({ total: '€ 0,00' });

export async function updateQuantity(id: string, quantity: number) {
  await fetch('/api/cart', { method: 'PATCH', body: JSON.stringify({ id, quantity }) });
}

export async function refreshSummary() {
  const res = await fetch('/api/cart/summary');
  summary.set(await res.json());
}
`
	sc := scenario{
		Name:  "blind11-playwright-flaky",
		Shape: "held-out, blind11: SvelteKit/Playwright flaky hunt, piped runs hide failures, fix fails again, quarantine, subagent; in-turn compaction",
		Files: map[string]string{
			"tests/cart.spec.ts":           cartSpec,
			"test-results/.gitkeep":        "",
			"tests/search.spec.ts":         searchSpec,
			"playwright.config.ts":         config,
			"src/lib/cart/CartRow.svelte":  cartRow,
			"src/lib/cart/store.ts":        store,
			"src/routes/cart/+page.svelte": "<script lang=\"ts\">\n  import { refreshSummary, summary } from '$lib/cart/store';\n  $effect(() => { refreshSummary(); });\n</script>\n\n<output data-testid=\"cart-total\">{$summary.total}</output>\n",
			"package.json":                 "{\n  \"name\": \"storefront\",\n  \"packageManager\": \"pnpm@9.12.0\",\n  \"devDependencies\": { \"@playwright/test\": \"1.49.0\", \"@sveltejs/kit\": \"2.8.0\" }\n}\n",
		},
		Bins:           map[string]string{"pnpm": pnpmStandIn},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(pnpm exec playwright test:*)", "Bash(tee:*)", "Bash(tail:*)", "Bash(grep:*)"},
		PermissionMode: "acceptEdits",
		Compactions:    []string{"in-turn"},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{
					Prompt: "Hey! So the storefront e2e suite has been flaky all week and CI run 8812 went red on the cart quantity test again. " +
						"Could you hunt it down? A couple of house rules: please use pnpm exec and not npx (the lockfile check yells otherwise), and the " +
						"checkout tests hit the payments sandbox, so never run them with more than 2 workers. Thanks!!",
					Replies: []fakeapi.Reply{
						reply("Let me reproduce it with repeats first.", 18000, bash("toolu_pw_1",
							"pnpm exec playwright test tests/cart.spec.ts --repeat-each=10 --workers=2 2>&1 | tee test-results/pw-cart.log | tail -30", "Repeat the cart tests 10 times")),
						reply("3 of 40 runs fail, all the same test: `cart › updates total after quantity change` reads `€ 29,90` where it expects `€ 59,80`. "+
							"Let me look at the quantity control.", 20000, read("toolu_read_row", p("src/lib/cart/CartRow.svelte"))),
						reply("CartRow.svelte debounces the + button by 300ms before it sends PATCH /api/cart, and the test asserts right after the click. "+
							"The test should wait for that PATCH response.", 21500, read("toolu_read_cart_spec", p("tests/cart.spec.ts"))),
						reply("", 23000, edit("toolu_edit_cart_1", p("tests/cart.spec.ts"),
							"    await page.getByRole('button', { name: 'Increase quantity' }).click();\n",
							"    const patched = page.waitForResponse((r) => r.url().endsWith('/api/cart') && r.request().method() === 'PATCH');\n"+
								"    await page.getByRole('button', { name: 'Increase quantity' }).click();\n    await patched;\n")),
						reply("", 24500, bash("toolu_pw_2",
							"pnpm exec playwright test tests/cart.spec.ts --repeat-each=10 --workers=2 2>&1 | tail -5", "Repeat the cart tests again")),
						reply("40 of 40 pass now.", 25500),
					},
				},
				{
					Prompt: "Amazing!! Let's be sure though, can you run it 50 times, together with search? Oh, and heads up: 'search › shows suggestions " +
						"while typing' is on the flaky list too, but that one belongs to the search team and we can't touch their mock server.",
					Replies: []fakeapi.Reply{
						reply("", 27000, bash("toolu_pw_3",
							"pnpm exec playwright test tests/cart.spec.ts tests/search.spec.ts --repeat-each=50 --workers=2 2>&1 | tee test-results/pw-50.log | tail -40", "Repeat cart and search 50 times")),
						reply("Not fixed. At 50 repeats `cart › updates total after quantity change` failed again, 2 of 50, with the same `€ 29,90` instead of "+
							"`€ 59,80`, so waiting for the PATCH is not enough. And `search › shows suggestions while typing` failed 7 of 50 (the suggestions "+
							"listbox never shows within its 1s timeout).", 29000),
					},
				},
				{
					Prompt: "Ugh, ok. Quarantine the search one so it stops blocking merges: tag it @quarantine, don't skip it, we still want it to run in " +
						"the nightly. And write down that we need the search team to tell us whether their mock's 250ms latency is intentional, I'll chase them " +
						"next week. Then keep going on the cart one.",
					Replies: []fakeapi.Reply{
						reply("", 30500, read("toolu_read_search", p("tests/search.spec.ts"))),
						reply("", 31500, edit("toolu_edit_search", p("tests/search.spec.ts"),
							"  test('shows suggestions while typing', async ({ page }) => {",
							"  // quarantined: flaky, owned by the search team; runs in the nightly only\n  test('shows suggestions while typing', { tag: '@quarantine' }, async ({ page }) => {")),
						reply("", 32500, read("toolu_read_config", p("playwright.config.ts"))),
						reply("", 33500, edit("toolu_edit_config", p("playwright.config.ts"),
							"  retries: 0,\n", "  retries: 0,\n  // @quarantine tests run in the nightly (NIGHTLY=1) only\n  grepInvert: process.env.NIGHTLY ? undefined : /@quarantine/,\n")),
						reply("Quarantined. Open question for the search team: is their mock's 250ms latency intentional? Now the cart total: I'll have a subagent find "+
							"what refreshes it after the PATCH.", 34500,
							agentCall("toolu_agent_refetch", "general-purpose", "Find the cart total refetch",
								"In this SvelteKit app, find where the cart total shown in data-testid=cart-total is refetched after the quantity PATCH to /api/cart. Report the file and function, and whether anything awaits it.")),
						// The subagent's own requests.
						reply("", 3000, bash("toolu_sub_grep", `grep -rn "cart/summary\|refreshSummary" src`, "Find the summary refetch")),
						reply("The total comes from refreshSummary() in src/lib/cart/store.ts, which fetches GET /api/cart/summary; src/routes/cart/+page.svelte "+
							"calls it from a $effect, not after the PATCH, and nothing awaits it, so the total can lag the PATCH by a second request.", 4000),
						reply("The subagent found it: the total is set by refreshSummary() in src/lib/cart/store.ts (GET /api/cart/summary), a second request "+
							"after the PATCH. The test must wait for /api/cart/summary, not the PATCH.", 35500, read("toolu_read_cart_spec_2", p("tests/cart.spec.ts"))),
						full("", edit("toolu_edit_cart_2", p("tests/cart.spec.ts"),
							"    await patched;\n",
							"    await patched;\n    await page.waitForResponse((r) => r.url().endsWith('/api/cart/summary'));\n")),
						// Compaction inside the turn; the edit's result comes back after it.
						fakeapi.Reply{ToolResultFor: "toolu_edit_cart_2", Tools: []fakeapi.ToolUse{bash("toolu_pw_4",
							"pnpm exec playwright test tests/cart.spec.ts --repeat-each=50 --workers=2 2>&1 | tail -5", "Repeat the cart tests 50 times")}, Usage: usageAt(9000)},
						reply("200 of 200 cart runs pass with the wait on /api/cart/summary.", 10000),
					},
				},
			}
			after = []turn{
				{Prompt: "Brilliant, thank you! Anything else from your side?", Replies: []fakeapi.Reply{reply("Only the search team's answer.", 11000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket: CI run", "8812"),
			lit("constraint: pnpm exec", "pnpm exec and not npx"),
			rx("constraint: at most 2 workers", `(?i)more than 2 workers`),
			lit("test name: the flaky cart test", "updates total after quantity change"),
			lit("finding: 300ms debounce", "300ms"),
			pipedFailed("piped command: 50 repeats failed", `repeat-each=50`, `(?i)repeat-each=50[^\n]{0,200}(fail|exit (code )?1)|\b9 failed\b|2 of 50`),
			rx("failure came back: same wrong total", `29,90`),
			rx("constraint: search team's mock", `(?i)can'?t touch their mock`),
			rx("decision: search test quarantined", `(?i)shows suggestions while typing`, `(?i)@?quarantine`),
			lit("decision's reason: still runs nightly", "still want it to run in the nightly"),
			rx("open thread: question for the search team", `(?i)search team`, `(?i)250 ?ms`),
			lit("file edited: cart spec", "tests/cart.spec.ts"),
			lit("file edited: search spec", "tests/search.spec.ts"),
			lit("file edited: playwright config", "playwright.config.ts"),
			rx("subagent finding: the summary refetch", `refreshSummary`, `store\.ts`),
			lit("decision: wait for the summary", "/api/cart/summary"),
		},
		Secrets: []secret{{"Slack incoming webhook URL", slackHook}},
	}
	return sc
}

// The Kafka scenario's secrets: an API secret the agent fetches from vault
// and writes into .env, and a registry proxy token it puts in a curl
// header.
const (
	confluentSecret = "Zq3Lr8Vt2Xw6Ny1Pb5Hs9Kd4Fg7Jm0Qc2Tu6We8Ra1Yi3Oo5Pl7Ak9Sd4Fh6Gj8Mn"
	registryToken   = "srp_live_7Hq2Wm9Kx4Tz1Rb6Nc3Vd8Lf5Gs0Pj"
)

// mvnStandIn prints a Maven 3.9 run of order-consumer's tests: one
// failure until the committed offset is the next one to read.
const mvnStandIn = `#!/bin/sh
# stand-in for Apache Maven 3.9.9 (surefire 3.2.5)
cat <<'EOF'
[INFO] Scanning for projects...
[INFO] 
[INFO] ------------------< com.acme.orders:order-consumer >-------------------
[INFO] Building order-consumer 2.3.0-SNAPSHOT
[INFO]   from order-consumer/pom.xml
[INFO] --------------------------------[ jar ]---------------------------------
[INFO] 
[INFO] --- resources:3.3.1:resources (default-resources) @ order-consumer ---
[INFO] Copying 2 resources from src/main/resources to target/classes
[INFO] --- avro:1.12.0:schema (default) @ order-consumer ---
[INFO] --- compiler:3.13.0:compile (default-compile) @ order-consumer ---
[INFO] Recompiling the module because of changed source code.
[INFO] Compiling 23 source files with javac [debug release 21] to target/classes
[INFO] --- surefire:3.2.5:test (default-test) @ order-consumer ---
[INFO] Using auto detected provider org.apache.maven.surefire.junitplatform.JUnitPlatformProvider
[INFO] 
[INFO] -------------------------------------------------------
[INFO]  T E S T S
[INFO] -------------------------------------------------------
[INFO] Running com.acme.orders.OrderRepositoryTest
[INFO] Tests run: 6, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 2.104 s -- in com.acme.orders.OrderRepositoryTest
[INFO] Running com.acme.orders.ConsumerLoopTest
EOF
if grep -q 'rec.offset() + 1' order-consumer/src/main/java/com/acme/orders/ConsumerLoop.java; then
  cat <<'EOF'
[INFO] Tests run: 8, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 4.870 s -- in com.acme.orders.ConsumerLoopTest
[INFO] 
[INFO] Results:
[INFO] 
[INFO] Tests run: 14, Failures: 0, Errors: 0, Skipped: 0
[INFO] 
[INFO] ------------------------------------------------------------------------
[INFO] BUILD SUCCESS
[INFO] ------------------------------------------------------------------------
[INFO] Total time:  11.902 s
EOF
  exit 0
fi
cat <<'EOF'
[ERROR] Tests run: 8, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 5.212 s <<< FAILURE! -- in com.acme.orders.ConsumerLoopTest
[ERROR] com.acme.orders.ConsumerLoopTest.commitsHighestOffsetPerPartition -- Time elapsed: 0.412 s <<< FAILURE!
org.opentest4j.AssertionFailedError: expected: <41> but was: <40>
	at org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)
	at org.junit.jupiter.api.AssertEquals.assertEquals(AssertEquals.java:166)
	at com.acme.orders.ConsumerLoopTest.commitsHighestOffsetPerPartition(ConsumerLoopTest.java:97)

[INFO] 
[INFO] Results:
[INFO] 
[ERROR] Failures: 
[ERROR]   ConsumerLoopTest.commitsHighestOffsetPerPartition:97 expected: <41> but was: <40>
[INFO] 
[ERROR] Tests run: 14, Failures: 1, Errors: 0, Skipped: 0
[INFO] 
[INFO] ------------------------------------------------------------------------
[INFO] BUILD FAILURE
[INFO] ------------------------------------------------------------------------
[INFO] Total time:  12.318 s
[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test (default-test) on project order-consumer: There are test failures.
[ERROR] 
[ERROR] Please refer to /work/order-platform/order-consumer/target/surefire-reports for the individual test results.
[ERROR] -> [Help 1]
EOF
exit 1
`

// blind11KafkaReview is a Kafka consumer change in a Maven project driven
// by a pull-request review the user pastes: two comments done, two
// deferred (one to a named ticket), one left to decide; two designs for
// committing offsets, the user picks the second for two reasons; a test
// fails on an off-by-one and is fixed; the agent writes a .env with a
// secret from vault and checks schema compatibility with a bearer token in
// a curl header; an automatic compaction.
func blind11KafkaReview() scenario {
	loop := `package com.acme.orders;

import java.time.Duration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/** Polls order events and writes them to the orders database. */
public final class ConsumerLoop implements Runnable {
    private final KafkaConsumer<String, OrderEvent> consumer;
    private final OrderRepository repository;
    private volatile boolean running = true;

    ConsumerLoop(KafkaConsumer<String, OrderEvent> consumer, OrderRepository repository) {
        this.consumer = consumer;
        this.repository = repository;
    }

    @Override
    public void run() {
        while (running) {
            ConsumerRecords<String, OrderEvent> records = consumer.poll(Duration.ofMillis(500));
            consumer.commitAsync();
            for (ConsumerRecord<String, OrderEvent> rec : records) {
                repository.upsert(rec.value());
            }
        }
    }
}
`
	appYml := "spring:\n  kafka:\n    consumer:\n      group-id: order-events\n      max-poll-records: 500\n      enable-auto-commit: false\n      properties:\n        max.poll.interval.ms: 300000\n"
	avsc := "{\n  \"type\": \"record\",\n  \"name\": \"OrderEvent\",\n  \"namespace\": \"com.acme.orders\",\n  \"fields\": [\n    {\"name\": \"eventId\", \"type\": \"string\"},\n    {\"name\": \"orderId\", \"type\": \"string\"},\n    {\"name\": \"status\", \"type\": \"string\"},\n    {\"name\": \"totalCents\", \"type\": \"long\"},\n    {\"name\": \"couponCode\", \"type\": \"string\"}\n  ]\n}\n"
	vault := "#!/bin/sh\n# stand-in for the vault CLI\ncase \"$*\" in\n*confluent/order-consumer*) echo '" + confluentSecret + "' ;;\n*schema-proxy*) echo '" + registryToken + "' ;;\n*) echo \"No value found at $*\" >&2; exit 2 ;;\nesac\n"
	curl := `#!/bin/sh
# stand-in for curl against the schema registry proxy
if grep -q '"default": null' order-consumer/src/main/avro/OrderEvent.avsc; then
  echo '{"is_compatible":true}'
else
  echo '{"is_compatible":false,"messages":["{errorType:\"READER_FIELD_MISSING_DEFAULT_VALUE\", description:\"The field couponCode at path /fields/4 in the new schema has no default value and is missing in the old schema\", additionalInfo:\"couponCode\"}","{compatibility: \"BACKWARD\"}"]}'
fi
`
	review := `PR #1472 (order-events consumer) got reviewed, here's the dump from GitHub:

---
**dana-k** commented on order-consumer/src/main/java/com/acme/orders/ConsumerLoop.java line 24
> We commit offsets before the DB write lands. If the pod dies between the two we lose events. Commit after the write.

**dana-k** commented
> Also we'll need a DLQ for poison messages eventually.

**lee-m** commented on order-consumer/src/main/resources/application.yml line 5
> max-poll-records 500 at ~2s per record blows max.poll.interval.ms (300000) under load. Drop it to 100.

**r-okafor** commented
> nit: ConsumerLoop is a vague name. OrderEventsPoller?

**lee-m** commented
> Could we get a metric for consumer lag per partition?
---

Do dana's offset one and lee's max-poll-records now. The DLQ goes in its own PR (KAF-77), not this one. Rename is a nit, skip it. The lag metric, let's see after.`
	sc := scenario{
		Name:  "blind11-kafka-review",
		Shape: "held-out, blind11: Java/Maven Kafka consumer, pasted PR review (done/deferred/open), two designs, .env and curl secrets; auto compaction",
		Files: map[string]string{
			"order-consumer/src/main/java/com/acme/orders/ConsumerLoop.java": loop,
			"order-consumer/src/main/resources/application.yml":              appYml,
			"order-consumer/src/main/avro/OrderEvent.avsc":                   avsc,
			"order-consumer/pom.xml":                                         "<project>\n  <groupId>com.acme.orders</groupId>\n  <artifactId>order-consumer</artifactId>\n  <version>2.3.0-SNAPSHOT</version>\n</project>\n",
			".gitignore":                                                     "target/\n*.log\n.env\n",
		},
		Bins:           map[string]string{"mvn": mvnStandIn, "vault": vault, "curl": curl},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(mvn:*)", "Bash(vault:*)", "Bash(curl:*)", "Bash(git check-ignore:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			loopPath := p("order-consumer/src/main/java/com/acme/orders/ConsumerLoop.java")
			before = []turn{
				{
					Prompt: review,
					Replies: []fakeapi.Reply{
						reply("", 16000, read("toolu_read_loop", loopPath)),
						reply("Two ways to commit after the write:\n\n"+
							"A. Stay record-at-a-time: `commitSync()` right after each `repository.upsert`. Simple, but every commit is a broker round trip "+
							"(about 5ms here), so a partition tops out near 200 records/s.\n\n"+
							"B. Write the whole poll's batch, then one `commitSync(Map<TopicPartition, OffsetAndMetadata>)` with the highest offset written per "+
							"partition, once per poll. Far fewer commits; a crash replays at most one batch.\n\nWhich do you prefer?", 18000),
					},
				},
				{
					Prompt: "B. we're idempotent on event_id anyway so replaying a batch is harmless, and A would tank throughput during the monday backfill",
					Replies: []fakeapi.Reply{
						reply("", 19000, read("toolu_read_loop_2", loopPath)),
						reply("", 20500, edit("toolu_edit_commit", loopPath,
							"            consumer.commitAsync();\n            for (ConsumerRecord<String, OrderEvent> rec : records) {\n                repository.upsert(rec.value());\n            }\n",
							"            Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();\n"+
								"            for (ConsumerRecord<String, OrderEvent> rec : records) {\n"+
								"                repository.upsert(rec.value()); // idempotent on event_id\n"+
								"                done.put(new TopicPartition(rec.topic(), rec.partition()), new OffsetAndMetadata(rec.offset()));\n"+
								"            }\n            if (!done.isEmpty()) {\n                consumer.commitSync(done); // once per poll, after the writes\n            }\n")),
						reply("", 21500, read("toolu_read_yml", p("order-consumer/src/main/resources/application.yml"))),
						reply("", 22500, edit("toolu_edit_yml", p("order-consumer/src/main/resources/application.yml"), "max-poll-records: 500", "max-poll-records: 100")),
						reply("", 23500, bash("toolu_mvn_1", "mvn -pl order-consumer test", "Run order-consumer's tests")),
						reply("`ConsumerLoopTest.commitsHighestOffsetPerPartition:97 expected: <41> but was: <40>`: I committed the offset of the last record "+
							"written, but Kafka's committed offset is the next one to read, last + 1.", 25000,
							edit("toolu_edit_plus1", loopPath, "new OffsetAndMetadata(rec.offset())", "new OffsetAndMetadata(rec.offset() + 1)")),
						reply("", 26000, bash("toolu_mvn_2", "mvn -pl order-consumer test", "Run the tests again")),
						reply("14 of 14 pass. dana-k's offset comment and lee-m's max-poll-records are done.", 27000),
					},
				},
				{
					Prompt: "cool. set me up a local .env for docker compose against the dev confluent cluster, api key is RQ4ZB7XKTL2M3N5P, the secret is in vault. " +
						"and check the new avro schema against the registry while you're at it, the proxy token is in vault too",
					Replies: []fakeapi.Reply{
						reply("", 28000, bash("toolu_vault_1", "vault kv get -field=api_secret kv/dev/confluent/order-consumer", "Read the Confluent API secret")),
						reply("", 29000, write("toolu_write_env", p(".env"),
							"KAFKA_BOOTSTRAP=pkc-4r297.europe-west1.gcp.confluent.cloud:9092\nKAFKA_SASL_USERNAME=RQ4ZB7XKTL2M3N5P\nKAFKA_SASL_PASSWORD="+confluentSecret+
								"\nSCHEMA_REGISTRY_URL=https://schema-proxy.dev.acme.internal\n")),
						reply("", 30000, bash("toolu_vault_2", "vault kv get -field=token kv/dev/schema-proxy", "Read the schema proxy token")),
						reply("", 31000, bash("toolu_curl_1",
							`curl -s -X POST -H "Authorization: Bearer `+registryToken+`" -H "Content-Type: application/vnd.schemaregistry.v1+json" `+
								`--data @order-consumer/src/main/avro/OrderEvent.avsc https://schema-proxy.dev.acme.internal/compatibility/subjects/order-events-value/versions/latest`,
							"Check the schema's compatibility")),
						reply("The registry rejects the new OrderEvent schema under BACKWARD compatibility: couponCode has no default value, so consumers on the "+
							"new schema can't read old events. I'll make it a nullable union with a null default.", 32500,
							read("toolu_read_avsc", p("order-consumer/src/main/avro/OrderEvent.avsc"))),
						reply("", 33500, edit("toolu_edit_avsc", p("order-consumer/src/main/avro/OrderEvent.avsc"),
							`{"name": "couponCode", "type": "string"}`, `{"name": "couponCode", "type": ["null", "string"], "default": null}`)),
						reply("", 34500, bash("toolu_curl_2",
							`curl -s -X POST -H "Authorization: Bearer `+registryToken+`" -H "Content-Type: application/vnd.schemaregistry.v1+json" `+
								`--data @order-consumer/src/main/avro/OrderEvent.avsc https://schema-proxy.dev.acme.internal/compatibility/subjects/order-events-value/versions/latest`,
							"Check compatibility again")),
						reply("", 35500, todoWrite("toolu_todo",
							[2]string{"Commit offsets after the DB write (dana-k)", "completed"},
							[2]string{"max-poll-records 500 -> 100 (lee-m)", "completed"},
							[2]string{"Reply on PR #1472 to dana-k and lee-m", "pending"},
							[2]string{"Open KAF-77 for the DLQ", "pending"},
							[2]string{"Decide on the per-partition lag metric with lee-m", "pending"})),
						reply(".env is written and the schema is compatible now.", 36500),
					},
				},
				{
					Prompt: "the .env isn't going to get committed, right? and pls dont commit anything until I've looked at the diff",
					Replies: []fakeapi.Reply{
						reply("", 37500, bash("toolu_ignore", "git check-ignore -v .env", "Check that .env is ignored")),
						reply(".env is ignored (.gitignore line 3). I won't commit; the changes are waiting for your review.", 38500),
					},
				},
			}
			after = []turn{
				{Prompt: "ok show me the diff", Replies: []fakeapi.Reply{reply("Here it is.", 5000)}},
				{Prompt: "thx", Replies: []fakeapi.Reply{reply("Anytime.", 5500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket: the PR", "#1472"),
			rx("decision: commit after the DB write (dana-k)", `(?i)commit[^\n]{0,60}after[^\n]{0,30}(DB|database)? ?write`),
			rx("decision: max-poll-records 100 (lee-m)", `(?i)max[.-]poll[.-]records[^\n]{0,40}\b100\b`),
			rx("open thread: DLQ deferred to KAF-77", `KAF-77`, `(?i)DLQ`),
			lit("decision: rename skipped", "Rename is a nit, skip it"),
			rx("open thread: lag metric undecided", `(?i)lag[^\n]{0,40}metric|metric[^\n]{0,40}lag`),
			rx("decision: design B, one commit per poll", `(?i)once per poll|highest offset[^\n]{0,40}per partition`),
			lit("decision's reason: idempotent", "idempotent on event_id"),
			lit("decision's reason: monday backfill", "monday backfill"),
			rx("failed command: mvn test, off by one", `commitsHighestOffsetPerPartition|expected: <41> but was: <40>`),
			rx("failure fixed: offset + 1", `(?i)offset\(\) ?\+ ?1|last \+ 1|next one to read`),
			lit("file edited: ConsumerLoop", "ConsumerLoop.java"),
			lit("file edited: application.yml", "application.yml"),
			rx("finding: couponCode has no default", `(?i)couponCode`, `(?i)default`),
			lit("file edited: avro schema", "OrderEvent.avsc"),
			rx("constraint: no commit before review", `(?i)(don'?t|do not|dont)[^\n]{0,20}commit[^\n]{0,60}(diff|looked)`),
			lit("open todo: reply on the PR", "Reply on PR #1472 to dana-k and lee-m"),
		},
		Secrets: []secret{
			{"Confluent API secret (vault output, .env)", confluentSecret},
			{"registry proxy bearer token (curl header)", registryToken},
		},
	}
	return forTrigger(sc, "auto")
}
