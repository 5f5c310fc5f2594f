package e2e

import (
	"path/filepath"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's seventeenth blind set: five held-out sessions written
// without reading cairn's extraction, checkpoint, render or redaction code
// nor any other scenario's body or facts, only the bench's types and
// helpers, the client's protocol notes and the brief's list of stacks
// already used. Their first run on main is the blind measurement; a check
// may only be corrected where it could not have matched a faithful
// restore, never because cairn missed it.
//
// Each is a kind of session no earlier set used, in a voice of its own:
//   - Perl with prove, a long session (thirteen turns before one automatic
//     compaction) for a terse lowercase user who corrects what the agent
//     understood (half-to-even, not half up), a core-only rule lifted, a
//     piped full prove run whose failure the pipe hides and which is left
//     to a colleague, a TodoWrite list that changes, a question answered
//     late, and a database password inside a URL a script prints;
//   - a GnuCOBOL nightly batch for a user whose English is not native,
//     compacted three times (/compact with instructions, auto, bare
//     /compact), a plan laid out as a Markdown table, the agent's NUMVAL
//     plan overruled, a decision taken back within one message, a question
//     answered with a bare value after a compaction, and a runbook owned by
//     someone else;
//   - an Ada/SPARK ring buffer proved with gnatprove, compacted inside a
//     turn, for a user who writes headings and lists and an agent that
//     reasons at length: the approach dropped in the first turn is taken
//     up again after a subagent finds a sibling package proved that way;
//   - a PowerShell module tested with Pester for a user who mixes French
//     into English, TaskCreate tasks updated across an automatic
//     compaction and a /compact with instructions, a parallel plan refused
//     for PowerShell 5.1, an API key in a file the agent reads and a
//     staging key in a <private> span;
//   - a Packer/Vagrant base box for a chatty user who pastes logs and a
//     variables file with a Vault token: a piped build whose failure the
//     pipe hides and which is then fixed, a plugin refused, an answer
//     given and taken back, publishing blocked on a security review.
//
// They run only in the report (TestRecallReport) and are marked
// "held-out, blind17" in its shape column.

// blind17Scenarios are the seventeenth blind set the recall report runs.
func blind17Scenarios() []scenario {
	return []scenario{blind17Perl(), blind17Cobol(), blind17Ada(), blind17Pester(), blind17Packer()}
}

// blind17Tools are the tools every blind17 session lets run unasked.
var blind17Tools = []string{"Bash", "Read", "Edit", "Write", "TodoWrite", "TaskCreate", "TaskUpdate", "Agent"}

const blind17PerlSecret = "Hk4u9pQz7xLedgerR0"

const blind17RoundingPM = `package Invoice::Rounding;
use strict;
use warnings;
use Exporter 'import';
our @EXPORT_OK = qw(round_minor);

# Rounds an amount for display and for the ledger export.
sub round_minor {
    my ($amount, $currency) = @_;
    return sprintf('%.2f', $amount);
}

1;
`

const blind17RoundingT = `use strict;
use warnings;
use Test::More;
use Invoice::Rounding qw(round_minor);

is(round_minor(10.005, 'EUR'), '10.00', 'EUR half to even');
is(round_minor(10.015, 'EUR'), '10.02', 'EUR half to even up');
is(round_minor(1234.5, 'JPY'), '1234', 'JPY 1234.5 rounds to 1234');
is(round_minor(1235.5, 'JPY'), '1236', 'JPY 1235.5 rounds to 1236');
is(round_minor(99.999, 'USD'), '100.00', 'USD carry');
is(round_minor(0, 'JPY'), '0', 'JPY zero');

done_testing;
`

const blind17CurrencyPM = `package Invoice::Currency;
use strict;
use warnings;

# ISO 4217 minor units for the currencies we bill in.
my %MINOR = (EUR => 2, USD => 2, GBP => 2, JPY => 0, KRW => 0, KWD => 3, BHD => 3);

sub minor_units {
    my ($code) = @_;
    return exists $MINOR{$code} ? $MINOR{$code} : 2;
}

sub format_amount {
    my ($amount, $code) = @_;
    return sprintf('%.2f %s', $amount, $code);
}

1;
`

const blind17ProveBin = `#!/bin/sh
if [ "$1" = "-lr" ]; then
  echo "t/currency.t .... 1/14"
  echo "#   Failed test 'KWD 1.2345 formats as 1.235'"
  echo "#   Failed test 'KWD total keeps 3 decimals'"
  echo "t/currency.t .... Dubious, test returned 2 (wstat 512, 0x200)"
  echo "Failed 2/14 subtests"
  echo "t/rounding.t .... ok"
  echo ""
  echo "Test Summary Report"
  echo "-------------------"
  echo "t/currency.t (Wstat: 512 (exited 2) Tests: 14 Failed: 2)"
  echo "  Failed tests:  7, 11"
  echo "Files=2, Tests=23,  1 wallclock secs"
  echo "Result: FAIL"
  exit 1
fi
if grep -q '_half_even' lib/Invoice/Rounding.pm; then
  echo "t/rounding.t .. ok"
  echo "All tests successful."
  if grep -q 'KWD' t/rounding.t; then echo "Files=1, Tests=9,  0 wallclock secs"; else echo "Files=1, Tests=6,  0 wallclock secs"; fi
  echo "Result: PASS"
  exit 0
fi
echo "t/rounding.t .. 1/6"
echo "#   Failed test 'JPY 1234.5 rounds to 1234'"
echo "#          got: '1234.50'"
echo "#     expected: '1234'"
echo "#   Failed test 'JPY 1235.5 rounds to 1236'"
echo "#          got: '1235.50'"
echo "t/rounding.t .. Failed 2/6 subtests"
echo "Result: FAIL"
exit 1
`

func blind17Perl() scenario {
	return scenario{
		Name:           "blind17-perl-prove-long",
		Shape:          "held-out, blind17: Perl/prove, 13 turns then auto, user corrects the agent, piped prove, TodoWrite, secret in a URL",
		Compactions:    []string{"auto"},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		PermissionMode: "acceptEdits",
		AllowedTools:   blind17Tools,
		Files: map[string]string{
			"lib/Invoice/Rounding.pm": blind17RoundingPM,
			"lib/Invoice/Currency.pm": blind17CurrencyPM,
			"t/rounding.t":            blind17RoundingT,
			"reports/monthly.pl":      "#!/usr/bin/env perl\nuse strict;\nuse warnings;\n# monthly revenue per currency\nprintf(\"%.2f\\n\", $_) for @ARGV;\n",
			"script/replay-batch": "#!/bin/sh\n# replays a month of invoices against the ledger replica\n" +
				"echo \"replaying $1 ...\"\n" +
				"if grep -q '_half_even' lib/Invoice/Rounding.pm; then\n" +
				"  echo 'invoices replayed: 4812'\n  echo 'ledger drift, main:         37 JPY'\n  echo 'ledger drift, working tree: 0 JPY'\nelse\n" +
				"  echo 'invoices replayed: 4812'\n  echo 'ledger drift, main:         37 JPY'\n  echo 'ledger drift, working tree: 37 JPY'\nfi\n",
			"script/show-config": "#!/bin/sh\necho 'APP_ENV=replay'\necho 'LEDGER_DSN=postgres://ledger_ro:" + blind17PerlSecret + "@ledger-replica.int:5432/ledger?sslmode=require'\necho 'REPLAY_WORKERS=4'\n",
		},
		Bins: map[string]string{
			"prove":      blind17ProveBin,
			"perlcritic": "#!/bin/sh\necho 'Subroutine \"_half_even\" does not end with \"return\" at line 20, column 1.  See page 197 of PBP.  (Severity: 4)'\nexit 2\n",
		},
		Script: func(dir string) (before, after []turn) {
			pm := filepath.Join(dir, "lib/Invoice/Rounding.pm")
			cur := filepath.Join(dir, "lib/Invoice/Currency.pm")
			rt := filepath.Join(dir, "t/rounding.t")
			before = []turn{
				{Prompt: "fin-2291. jpy invoices print 1234.00 and the monthly batch total drifts a few yen vs the ledger. fix is somewhere in lib/Invoice/Rounding.pm. no new cpan deps, core only pls", Replies: []fakeapi.Reply{
					reply("", 21000, read("pl1", pm)),
					reply("", 22000, bash("pl2", "prove -l t/rounding.t", "run the rounding tests")),
					reply("t/rounding.t fails 2 of 6, both JPY: round_minor() always does sprintf('%.2f') and never looks at the currency. I'll make it use the currency's minor units and round half up, which is what most invoice code does.", 22500),
				}},
				{Prompt: "no. not half up. the ledger does bankers rounding, half to even. thats exactly why the batch drifts. match the ledger", Replies: []fakeapi.Reply{
					reply("", 23000, read("pl3", cur)),
					reply("Understood, half-to-even (banker's) like the ledger. lib/Invoice/Currency.pm already has minor_units() with JPY => 0 and KWD => 3, so Rounding only has to call it; I won't change Currency.pm.", 23500),
				}},
				{Prompt: "ok go", Replies: []fakeapi.Reply{
					reply("", 23800, read("pl3b", pm)),
					reply("", 24000, todoWrite("pl4",
						[2]string{"round_minor uses Currency::minor_units", "in_progress"},
						[2]string{"half-to-even helper _half_even", "pending"},
						[2]string{"JPY/KWD cases in t/rounding.t", "pending"},
						[2]string{"replay the october batch", "pending"})),
					reply("", 24500, edit("pl5", pm, "    return sprintf('%.2f', $amount);\n}\n",
						"    my $units = Invoice::Currency::minor_units($currency);\n    my $scaled = _half_even($amount * 10**$units);\n    return sprintf(\"%.${units}f\", $scaled / 10**$units);\n}\n\n# Banker's rounding, as the ledger does it.\nsub _half_even {\n    my ($x) = @_;\n    my $f = int($x);\n    my $d = $x - $f;\n    return $f + 1 if $d > 0.5;\n    return $f if $d < 0.5;\n    $f % 2 ? $f + 1 : $f;\n}\n")),
					reply("", 25000, bash("pl6", "prove -l t/rounding.t", "rerun the rounding tests")),
					reply("rounding.t passes now, 6/6.", 25500),
				}},
				{Prompt: "full suite?", Replies: []fakeapi.Reply{
					reply("", 26000, bash("pl7", "prove -lr t/ 2>&1 | tail -n 6", "whole test suite, last lines")),
					reply("Careful, the exit status above is tail's: the full run FAILS. t/currency.t fails 2 of 14 (tests 7 and 11), both KWD with 3 decimals printed as 2. That's format_amount() in Currency.pm hardcoding %.2f, not my change; rounding.t is fine.", 26500),
				}},
				{Prompt: "kwd is priyas, FIN-2304. leave currency.t alone, dont fix it here", Replies: []fakeapi.Reply{
					reply("ok, t/currency.t stays red on this branch; it's Priya's under FIN-2304.", 27000),
				}},
				{Prompt: "replay october", Replies: []fakeapi.Reply{
					reply("", 27500, bash("pl8", "script/replay-batch 2026-10", "replay october invoices")),
					reply("", 28000, todoWrite("pl9",
						[2]string{"round_minor uses Currency::minor_units", "completed"},
						[2]string{"half-to-even helper _half_even", "completed"},
						[2]string{"JPY/KWD cases in t/rounding.t", "in_progress"},
						[2]string{"replay the october batch", "completed"})),
					reply("October: 4812 invoices replayed, drift 37 JPY on main and 0 JPY with the fix.", 28500),
				}},
				{Prompt: "what db does the replay hit. not prod i hope", Replies: []fakeapi.Reply{
					reply("", 29000, bash("pl10", "script/show-config", "show the replay config")),
					reply("It's the replica (ledger-replica.int) as the read-only ledger_ro user, not the primary.", 29500),
				}},
				{Prompt: "good. add jpy and kwd cases to rounding.t", Replies: []fakeapi.Reply{
					reply("", 30000, read("pl11", rt)),
					reply("", 30500, edit("pl12", rt, "is(round_minor(0, 'JPY'), '0', 'JPY zero');\n",
						"is(round_minor(0, 'JPY'), '0', 'JPY zero');\nis(round_minor(2.5, 'JPY'), '2', 'JPY half to even down');\nis(round_minor(1.2345, 'KWD'), '1.234', 'KWD three decimals');\nis(round_minor(1.2355, 'KWD'), '1.236', 'KWD half to even up');\n")),
					reply("", 31000, bash("pl13", "prove -l t/rounding.t", "rerun the rounding tests")),
					reply("Added 3 cases, t/rounding.t passes 9/9.", 31500),
				}},
				{Prompt: "re core only: ops ok'd Math::Round from cpan if it makes this simpler", Replies: []fakeapi.Reply{
					reply("Thanks, but I'd keep our own _half_even: Math::Round's nearest() rounds .5 away from zero, so it would not match the ledger, and it adds a dependency for six lines. One question while we're here: reports/monthly.pl does its own sprintf('%.2f') too. Should I switch it to round_minor in this ticket, or leave it for a separate one?", 32000),
				}},
				{Prompt: "hm. need to ask finance", Replies: []fakeapi.Reply{
					reply("Sure, I'll leave reports/monthly.pl as it is until you hear back.", 32500),
				}},
				{Prompt: "commit what we have", Replies: []fakeapi.Reply{
					reply("", 33000, bash("pl14", "git add lib/Invoice/Rounding.pm t/rounding.t && git commit -q -m 'FIN-2291: round per currency minor units, half to even like the ledger' && git log --oneline -1", "commit the fix")),
					reply("Committed.", 33500),
				}},
				{Prompt: "perlcritic on the module", Replies: []fakeapi.Reply{
					reply("", 34000, bash("pl15", "perlcritic --severity 4 lib/Invoice/Rounding.pm", "perlcritic at severity 4")),
					reply("", 34500, todoWrite("pl16",
						[2]string{"JPY/KWD cases in t/rounding.t", "completed"},
						[2]string{"perlcritic RequireFinalReturn in _half_even", "in_progress"})),
					reply("perlcritic -4 fails with one violation: RequireFinalReturn, _half_even's last line is an expression without return. Easy fix, I'll do it next.", 35000),
				}},
				{Prompt: "finance says yes, do monthly.pl in this ticket too. after lunch tho", Replies: []fakeapi.Reply{
					reply("", 35500, todoWrite("pl17",
						[2]string{"perlcritic RequireFinalReturn in _half_even", "in_progress"},
						[2]string{"reports/monthly.pl: use round_minor instead of sprintf", "pending"})),
					full("Noted: reports/monthly.pl moves to round_minor under FIN-2291, after lunch. The perlcritic fix comes first."),
				}},
			}
			after = []turn{
				{Prompt: "back. carry on", Replies: []fakeapi.Reply{
					reply("Picking up where we were.", 20000),
				}},
			}
			return before, after
		},
		Facts: []fact{
			rx("ticket FIN-2291", `(?i)FIN-2291`),
			rx("constraint lifted: Math::Round from CPAN allowed", `Math::Round`),
			rx("decision corrected by the user: banker's rounding, half to even", `(?i)(half[- _]?(to[- _])?even|banker)`),
			lit("file changed lib/Invoice/Rounding.pm", "lib/Invoice/Rounding.pm"),
			lit("file changed t/rounding.t", "t/rounding.t"),
			rx("key file read lib/Invoice/Currency.pm (minor_units)", `lib/Invoice/Currency\.pm|Currency\.pm`, `minor_units`),
			rx("command prove -l t/rounding.t passes after the fix", `(?i)rounding\.t[^\n]{0,120}(pass|\bok\b|success|green|exit 0|9/9)`),
			pipedFailed("piped command prove -lr t/ failed in t/currency.t", `prove -lr`, `currency\.t`),
			rx("open thread: t/currency.t KWD failures left to Priya, FIN-2304", `(?i)FIN-2304`),
			rx("finding: 4812 invoices, drift 37 JPY on main, 0 with the fix", `4,?812`, `\b37\b`),
			rx("failing command perlcritic RequireFinalReturn", `(?i)perlcritic`, `(?i)RequireFinalReturn|final return`).
				notRx(`(?i)perlcritic[^\n]{0,80}(exit(ed)?( with)?( code)? 0\b|\bpass(es|ed)?\b|\bclean\b|succeeded)`),
			rx("open thread: reports/monthly.pl to round_minor, after lunch", `reports/monthly\.pl`),
		},
		Secrets: []secret{{Family: "password in a DSN URL printed by a script", Value: blind17PerlSecret}},
	}
}

const blind17PayrunCBL = `       IDENTIFICATION DIVISION.
       PROGRAM-ID. PAYRUN.
       ENVIRONMENT DIVISION.
       INPUT-OUTPUT SECTION.
       FILE-CONTROL.
           SELECT EMP-FILE ASSIGN TO EMPIN
               ORGANIZATION IS LINE SEQUENTIAL.
       DATA DIVISION.
       FILE SECTION.
       FD  EMP-FILE.
           COPY EMPREC.
       WORKING-STORAGE SECTION.
       01  WS-EOF               PIC X VALUE 'N'.
       01  WS-OT-TOTAL          PIC 9(7)V99 VALUE 0.
       01  WS-PAY-TOTAL         PIC 9(9)V99 VALUE 0.
       PROCEDURE DIVISION.
       MAIN-PARA.
           OPEN INPUT EMP-FILE
           PERFORM UNTIL WS-EOF = 'Y'
               READ EMP-FILE
                   AT END MOVE 'Y' TO WS-EOF
                   NOT AT END PERFORM PAY-PARA
               END-READ
           END-PERFORM
           DISPLAY 'TRAILER TOTAL ' WS-PAY-TOTAL
           CLOSE EMP-FILE
           STOP RUN.
       PAY-PARA.
           ADD OT-HOURS TO WS-OT-TOTAL
           COMPUTE WS-PAY-TOTAL = WS-PAY-TOTAL + BASE-PAY
               + OT-HOURS * OT-RATE.
`

const blind17RunBatch = `#!/bin/sh
# nightly PAYRUN driver, the scheduler starts it at 01:30
IN=${1:-data/emp.dat}
cobc -x -o build/payrun src/PAYRUN.cbl -I copybooks || exit 12
if ! grep -q 'IS NOT NUMERIC' src/PAYRUN.cbl; then
  echo "PAYRUN: reading $IN"
  echo "libcob: error: field OT-HOURS (Type: NUMERIC DISPLAY) not numeric: '-0' (record 1187)" >&2
  exit 134
fi
echo "PAYRUN: 23400 read, 23398 paid, 2 rejected (records 1187, 20911)"
echo "TRAILER TOTAL 4,117,655.25"
REJECTS=2
exit 0
`

const blind17CobcBin = `#!/bin/sh
src=""
for a in "$@"; do case "$a" in *.cbl) src="$a";; esac; done
if grep -q 'REJECT-REC' "$src" && ! grep -q 'SELECT REJECT-FILE' "$src"; then
  echo "$src:34: error: 'REJECT-FILE' is not defined" >&2
  echo "$src:35: error: 'REJECT-REC' is not defined" >&2
  exit 1
fi
mkdir -p build
exit 0
`

func blind17Cobol() scenario {
	return scenario{
		Name:           "blind17-cobol-three",
		Shape:          "held-out, blind17: GnuCOBOL batch, /compact with instructions then auto then bare /compact, plan as a table, NUMVAL overruled, non-native English",
		Compactions:    []string{"manual", "auto", "manual"},
		PermissionMode: "acceptEdits",
		AllowedTools:   blind17Tools,
		Files: map[string]string{
			"src/PAYRUN.cbl":       blind17PayrunCBL,
			"copybooks/EMPREC.cpy": "      * shared with the HR extract, layout v4\n       01  EMP-REC.\n           05 EMP-ID       PIC 9(6).\n           05 BASE-PAY     PIC 9(7)V99.\n           05 OT-HOURS     PIC S9(3)V9.\n           05 OT-RATE      PIC 9(3)V99.\n",
			"run-batch.sh":         blind17RunBatch,
			"data/emp.dat":         "0011870000412500-00000450\n0209110000835000-00000450\n",
		},
		Bins: map[string]string{"cobc": blind17CobcBin},
		Script: func(dir string) (before, after []turn) {
			cbl := filepath.Join(dir, "src/PAYRUN.cbl")
			cpy := filepath.Join(dir, "copybooks/EMPREC.cpy")
			run := filepath.Join(dir, "run-batch.sh")
			before = []turn{
				{Prompt: "Hello, we have problem with the nightly batch PAYRUN, ticket OPS-77. Since monday it stops at record 1187 with libcob error that OT-HOURS is not numeric. Please can you look. But attention: the copybook EMPREC.cpy is shared with the HR system, we must not change it.", Replies: []fakeapi.Reply{
					reply("", 21000, read("cb1", cbl)),
					reply("", 21500, read("cb2", cpy)),
					reply("", 22000, bash("cb3", "./run-batch.sh data/emp.dat", "reproduce the abend")),
					reply("Reproduced: record 1187 carries '-0' in OT-HOURS, which is signed in EMPREC.cpy (S9(3)V9) but arrives as a separate leading minus, so ADD OT-HOURS abends. My plan:\n\n"+
						"| # | step | where | status |\n|---|---|---|---|\n"+
						"| 1 | reproduce with record 1187 | data/emp.dat | done |\n"+
						"| 2 | read OT-HOURS through FUNCTION NUMVAL on a PIC X redefine, so '-0' becomes 0 | src/PAYRUN.cbl | planned |\n"+
						"| 3 | compile with cobc -x and run the full night file | run-batch.sh | planned |\n"+
						"| 4 | check the trailer total against HR's control total | output | planned |\n\n"+
						"EMPREC.cpy stays as it is; the redefine would live in PAYRUN's working storage.", 22500),
				}},
				{Prompt: "No, not NUMVAL please. Finance want the bad records out, not guessed. Write them to a reject file and go on with the next record. Table step 2 change like this.", Replies: []fakeapi.Reply{
					reply("", 22800, read("cb3b", cbl)),
					reply("", 23000, edit("cb4", cbl, "       PAY-PARA.\n           ADD OT-HOURS TO WS-OT-TOTAL\n",
						"       PAY-PARA.\n           IF OT-HOURS IS NOT NUMERIC\n               MOVE EMP-REC TO REJECT-REC\n               WRITE REJECT-REC\n               EXIT PARAGRAPH\n           END-IF\n           ADD OT-HOURS TO WS-OT-TOTAL\n")),
					reply("", 23500, bash("cb5", "cobc -x -o build/payrun src/PAYRUN.cbl -I copybooks", "compile PAYRUN")),
					reply("Step 2 is now: records with non-numeric OT-HOURS go to a reject file (REJECTS.dat), no NUMVAL. The compile fails though: 'REJECT-FILE' is not defined, 'REJECT-REC' is not defined. I still need the SELECT and the FD for the reject file.", 24000),
				}},
				{Prompt: "Ok make it. The reject file must land in /var/batch/out/REJECTS.dat, not in the work directory, operations collect it from there.", Replies: []fakeapi.Reply{
					reply("", 24200, read("cb5b", cbl)),
					reply("", 24500, edit("cb6", cbl, "           SELECT EMP-FILE ASSIGN TO EMPIN\n               ORGANIZATION IS LINE SEQUENTIAL.\n",
						"           SELECT EMP-FILE ASSIGN TO EMPIN\n               ORGANIZATION IS LINE SEQUENTIAL.\n           SELECT REJECT-FILE ASSIGN TO REJOUT\n               ORGANIZATION IS LINE SEQUENTIAL.\n")),
					reply("", 25000, edit("cb7", cbl, "       WORKING-STORAGE SECTION.\n",
						"       FD  REJECT-FILE.\n       01  REJECT-REC           PIC X(120).\n       WORKING-STORAGE SECTION.\n")),
					reply("", 25500, read("cb8", run)),
					reply("", 26000, edit("cb9", run, "IN=${1:-data/emp.dat}\n", "IN=${1:-data/emp.dat}\nexport DD_REJOUT=/var/batch/out/REJECTS.dat\n")),
					reply("", 26500, bash("cb10", "cobc -x -o build/payrun src/PAYRUN.cbl -I copybooks && echo compiled", "compile again")),
					reply("Compiles clean now. REJECT-FILE is assigned to REJOUT, and run-batch.sh exports DD_REJOUT=/var/batch/out/REJECTS.dat so GnuCOBOL writes it there.", 27000),
				}},
				{Prompt: "/compact bitte focus on the batch fix, the rest is noise"},
				{Prompt: "So, where we are now? Run the full night file please.", Replies: []fakeapi.Reply{
					reply("", 21000, bash("cb11", "./run-batch.sh data/emp.dat", "full night file")),
					reply("Full night file: 23,400 records read, 23,398 paid, 2 rejected (records 1187 and 20911), RC 0. Trailer total printed: 4,117,655.25.", 21500),
				}},
				{Prompt: "Good. But HR control total says 4,118,902.50. Is this the rejected ones? Then put REJECTED-AMT in the trailer... no wait, the trailer layout is fixed by the bank, we cannot add field. Put the rejected amount in the reject file, at the end, as own trailer record.", Replies: []fakeapi.Reply{
					reply("", 22000, bash("cb12", "cut -c7-15 data/emp.dat", "base pay fields of the rejected records")),
					reply("", 22500, read("cb13", cbl)),
					reply("", 23000, edit("cb14", cbl, "           DISPLAY 'TRAILER TOTAL ' WS-PAY-TOTAL\n           CLOSE EMP-FILE\n",
						"           DISPLAY 'TRAILER TOTAL ' WS-PAY-TOTAL\n           MOVE SPACES TO REJECT-REC\n           STRING 'REJECTED-AMT ' WS-REJ-AMT DELIMITED BY SIZE\n               INTO REJECT-REC\n           WRITE REJECT-REC\n           CLOSE EMP-FILE REJECT-FILE\n")),
					reply("", 23500, edit("cb15", cbl, "       01  WS-PAY-TOTAL         PIC 9(9)V99 VALUE 0.\n",
						"       01  WS-PAY-TOTAL         PIC 9(9)V99 VALUE 0.\n       01  WS-REJ-AMT           PIC 9(7)V99 VALUE 0.\n")),
					full("Yes: 4,118,902.50 minus 4,117,655.25 is 1,247.25, exactly the base pay of the two rejected records. The bank's trailer stays as it is; the reject file now ends with its own REJECTED-AMT trailer record. One question for the scheduler: should run-batch.sh end with RC=4 when there are rejects, so the operator sees a warning instead of a clean RC 0?"),
				}},
				{Prompt: "4", Replies: []fakeapi.Reply{
					reply("", 21000, read("cb16", run)),
					reply("", 21500, edit("cb17", run, "REJECTS=2\nexit 0\n", "REJECTS=2\nif [ \"$REJECTS\" -gt 0 ]; then\n  exit 4\nfi\nexit 0\n")),
					reply("", 22000, bash("cb18", "./run-batch.sh data/emp.dat; echo \"rc=$?\"", "check the return code")),
					reply("Done: run-batch.sh now exits with 4 when records were rejected (rc=4 on the night file), 0 otherwise.", 22500),
				}},
				{Prompt: "And the operator documentation? That is Jürgen from operations, he owns the runbook, he must update it for the RC 4, not us.", Replies: []fakeapi.Reply{
					reply("Understood, I won't touch the runbook; the RC 4 note for operators is Jürgen's to write.", 23000),
				}},
				{Prompt: "/compact"},
			}
			after = []turn{
				{Prompt: "Weiter bitte.", Replies: []fakeapi.Reply{
					reply("Continuing.", 20000),
				}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket OPS-77", "OPS-77"),
			rx("constraint: copybook EMPREC.cpy shared with HR, not changed",
				`(?i)EMPREC\.cpy[^\n]{0,120}(shared|\bHR\b|not|n't|never|unchanged|untouched|read[- ]only)|(shared|\bHR\b|not|n't|never)[^\n]{0,120}EMPREC\.cpy`),
			rx("decision: bad records go to a reject file REJECTS.dat", `REJECTS\.dat`),
			rx("decision overruled: NUMVAL conversion refused by the user",
				`(?i)(not|no|instead of|rather than|without|refus|reject|overrul)[^\n]{0,60}NUMVAL|NUMVAL[^\n]{0,80}(overrul|refus|reject|dropped|not|no\b|n't)`),
			rx("failure fixed: REJECT-FILE not defined, fixed by SELECT and FD", `REJECT-FILE`, `(?i)\bSELECT\b|\bFD\b`),
			lit("file changed src/PAYRUN.cbl", "src/PAYRUN.cbl"),
			rx("constraint: reject file in /var/batch/out", `/var/batch/out`),
			rx("finding: 23,400 read, 2 rejected, records 1187 and 20911", `23,?400`, `20,?911`).from(2),
			rx("finding: trailer short of HR's control total by 1,247.25", `1,?247\.25`).from(2),
			rx("decision taken back: rejected amount in the reject file's own trailer, bank trailer fixed", `REJECTED-AMT`, `(?i)bank`).from(2),
			rx("open question: RC=4 from run-batch.sh when records are rejected", `(?i)(\bRC\b|return code|exit)[^\n]{0,30}\b4\b`).from(2).until(2),
			rx("question answered: run-batch.sh exits 4 on rejects", `run-batch\.sh`, `(?i)(\bRC\b|return code|exit|rc=)[^\n]{0,30}\b4\b`).from(3),
			rx("open thread: runbook owned by Jürgen from operations", `J(ü|ue|u)rgen`, `(?i)runbook`).from(3),
		},
	}
}

const blind17RingADS = `with Telemetry; use Telemetry;

package Telemetry.Ring with SPARK_Mode is
   Capacity : constant := 64;
   subtype Index is Positive range 1 .. Capacity;
   type Buffer is private;
   procedure Push (B : in out Buffer; F : Frame);
   procedure Pop (B : in out Buffer; F : out Frame);
   function Count (B : Buffer) return Natural;
private
   type Frame_Array is array (Index) of Frame;
   type Buffer is record
      Data : Frame_Array;
      Head : Index := Index'First;
      Tail : Index := Index'First;
      Len  : Natural range 0 .. Capacity := 0;
   end record;
   function Count (B : Buffer) return Natural is (B.Len);
end Telemetry.Ring;
`

const blind17RingADB = `package body Telemetry.Ring with SPARK_Mode is

   procedure Push (B : in out Buffer; F : Frame) is
   begin
      if B.Len = Capacity then
         return; -- full: drop the new frame
      end if;
      B.Data (B.Tail) := F;
      if B.Tail = Index'Last then
         B.Tail := Index'First;
      else
         B.Tail := B.Tail + 1;
      end if;
      B.Len := B.Len + 1;
   end Push;

   procedure Pop (B : in out Buffer; F : out Frame) is
   begin
      F := B.Data (B.Head);
      if B.Head = Index'Last then
         B.Head := Index'First;
      else
         B.Head := B.Head + 1;
      end if;
      B.Len := B.Len - 1;
   end Pop;

end Telemetry.Ring;
`

const blind17GprbuildBin = `#!/bin/sh
mkdir -p bin
cat > bin/test_ring <<'EOF'
#!/bin/sh
echo "Test_Push_Pop: PASS"
echo "Test_Count: PASS"
if grep -q 'drop the new frame' src/telemetry-ring.adb; then
  echo "Test_Overwrite_Oldest: FAIL (expected frame 65 at tail, got frame 64)"
  echo "3 tests, 1 failure"
  exit 1
fi
echo "Test_Overwrite_Oldest: PASS"
echo "3 tests, 0 failures"
EOF
chmod +x bin/test_ring
exit 0
`

const blind17GnatproveBin = `#!/bin/sh
echo "Phase 1 of 2: generation of data representation information ..."
echo "Phase 2 of 2: flow analysis and proof ..."
if grep -q 'is mod Capacity' src/telemetry-ring.ads; then
  echo "Summary logged in obj/gnatprove/gnatprove.out"
  echo "telemetry-ring.adb: 17 checks, 17 proved, 0 unproved"
  exit 0
fi
if grep -q 'pragma Assert' src/telemetry-ring.adb; then
  echo "telemetry-ring.adb:10:28: medium: assertion might fail"
  echo "telemetry-ring.adb:10:28: possible fix: subprogram at line 3 should mention B in a precondition"
  exit 1
fi
echo "telemetry-ring.adb:13:28: medium: overflow check might fail, cannot prove upper bound for B.Head + 1"
echo "telemetry-ring.adb:20:28: medium: overflow check might fail, cannot prove upper bound for B.Tail + 1"
exit 1
`

func blind17Ada() scenario {
	subPrompt := "Read src/uplink-queue.ads and src/uplink-queue.adb and tell me how that queue indexes its buffer and wraps around, and whether it proves at gnatprove --level=2 without annotations. Report only, change nothing."
	return scenario{
		Name:           "blind17-ada-inturn",
		Shape:          "held-out, blind17: Ada/SPARK gnatprove, compacted inside a turn, subagent, back to the approach dropped first, headings and lists",
		Compactions:    []string{"in-turn"},
		PermissionMode: "acceptEdits",
		AllowedTools:   blind17Tools,
		Files: map[string]string{
			"telemetry.gpr":          "project Telemetry is\n   for Source_Dirs use (\"src\", \"tests\");\n   for Object_Dir use \"obj\";\n   for Exec_Dir use \"bin\";\nend Telemetry;\n",
			"src/telemetry.ads":      "package Telemetry with SPARK_Mode is\n   --  decoded by the ground segment: do not reorder\n   type Frame is record\n      Seq   : Natural := 0;\n      Stamp : Natural := 0;\n      Value : Integer := 0;\n   end record;\nend Telemetry;\n",
			"src/telemetry-ring.ads": blind17RingADS,
			"src/telemetry-ring.adb": blind17RingADB,
			"src/uplink-queue.ads":   "package Uplink.Queue with SPARK_Mode is\n   type Slot is mod 64;\n   type Queue is private;\nprivate\n   type Cmd_Array is array (Slot) of Natural;\n   type Queue is record\n      Data : Cmd_Array := (others => 0);\n      Head, Tail : Slot := 0;\n   end record;\nend Uplink.Queue;\n",
			"src/uplink-queue.adb":   "package body Uplink.Queue with SPARK_Mode is\n   --  Slot is modular: Head + 1 wraps at 64 with no branch, nothing to prove.\n   procedure Put (Q : in out Queue; C : Natural) is\n   begin\n      Q.Data (Q.Tail) := C;\n      Q.Tail := Q.Tail + 1;\n   end Put;\nend Uplink.Queue;\n",
		},
		Bins: map[string]string{
			"gprbuild":  blind17GprbuildBin,
			"gprclean":  "#!/bin/sh\nexit 0\n",
			"gnatprove": blind17GnatproveBin,
		},
		Script: func(dir string) (before, after []turn) {
			ads := filepath.Join(dir, "src/telemetry-ring.ads")
			adb := filepath.Join(dir, "src/telemetry-ring.adb")
			before = []turn{
				{Prompt: "## TLM-412\n\n- the telemetry ring buffer (src/telemetry-ring.adb) drops the NEWEST frame when full, it has to drop the OLDEST\n- gnatprove has to stay at --level=2 (silver), and no pragma Annotate to hide what it can't prove\n- don't touch the Frame record in src/telemetry.ads, the ground segment decodes it byte for byte", Replies: []fakeapi.Reply{
					reply("", 21000, read("ad1", ads)),
					reply("", 21500, read("ad2", adb)),
					reply("Push returns early when Len = Capacity, so the incoming frame is lost. To keep the newest we have to advance Head (dropping the oldest) and then write at Tail. I see two ways to do the wrap-around:\n\n"+
						"(A) make Index a modular type (`type Index is mod Capacity`). Then `Head + 1` wraps by itself, there is no branch, and the prover has nothing to worry about. But Index is visible in the spec of Telemetry.Ring, so every client that indexes with it sees a different type, and I'd rather not change a visible spec for a bug fix.\n\n"+
						"(B) keep `subtype Index is Positive range 1 .. Capacity` and wrap explicitly with `if Head = Index'Last then Index'First else Head + 1`, as Pop already does. Spec untouched, a few more lines.\n\n"+
						"I'd go with B, because it keeps the spec stable and matches the existing Pop. The cost is that gnatprove has to see that `Head + 1` cannot overflow in the else branch, which it usually does.", 22000),
				}},
				{Prompt: "ok, B.\n- run the tests before you change anything, I want a baseline", Replies: []fakeapi.Reply{
					reply("", 22500, bash("ad3", "gprbuild -P telemetry.gpr -q && ./bin/test_ring", "baseline tests")),
					reply("", 22800, read("ad3b", adb)),
					reply("", 23000, edit("ad4", adb, "      if B.Len = Capacity then\n         return; -- full: drop the new frame\n      end if;\n",
						"      if B.Len = Capacity then\n         -- full: overwrite the oldest frame\n         if B.Head = Index'Last then\n            B.Head := Index'First;\n         else\n            B.Head := B.Head + 1;\n         end if;\n         B.Len := B.Len - 1;\n      end if;\n")),
					reply("", 23500, bash("ad5", "gprbuild -P telemetry.gpr -q && ./bin/test_ring", "tests after approach B")),
					reply("Baseline: 3 tests, 1 failure, Test_Overwrite_Oldest (it expected frame 65 at the tail and got 64). With B in Push: 3 tests, 0 failures.", 24000),
				}},
				{Prompt: "proof?", Replies: []fakeapi.Reply{
					reply("", 24500, bash("ad6", "gnatprove -P telemetry.gpr --level=2 -u telemetry-ring.adb", "prove at silver")),
					reply("", 25000, read("ad7", adb)),
					reply("", 25500, edit("ad8", adb, "         else\n            B.Head := B.Head + 1;\n         end if;\n         B.Len := B.Len - 1;\n      end if;\n",
						"         else\n            pragma Assert (B.Head < Index'Last);\n            B.Head := B.Head + 1;\n         end if;\n         B.Len := B.Len - 1;\n      end if;\n")),
					reply("", 26000, bash("ad9", "gnatprove -P telemetry.gpr --level=2 -u telemetry-ring.adb", "prove again")),
					reply("gnatprove --level=2 fails: 'overflow check might fail, cannot prove upper bound for B.Head + 1' at telemetry-ring.adb:13, and the same for B.Tail + 1 at line 20. I thought the prover would carry `B.Head /= Index'Last` from the if into the else branch and combine it with the subtype's range, but at level 2 it does not seem to relate the two for a record component that Push also writes. I added `pragma Assert (B.Head < Index'Last)` to give it the step; that only moves the problem: now 'assertion might fail' at line 10. A precondition on Push would have to talk about the private record, which spreads into every caller. I'm not happy with B any more.", 26500),
				}},
				{Prompt: "hm.\n- what do other packages do? there's a ring somewhere in uplink, src/uplink-queue.adb I think\n- put a subagent on it, I want you on the proof\n- fyi the HIL run on the bench board is Marta's, she has the board booked until thursday, so not for us today", Replies: []fakeapi.Reply{
					reply("", 27000, agentCall("ad10", "general-purpose", "inspect uplink queue indexing", subPrompt)),
					{Text: "", Tools: []fakeapi.ToolUse{read("ad11", filepath.Join(dir, "src/uplink-queue.adb"))}, Usage: usageAt(9000), For: "tell me how that queue indexes its buffer"},
					{Text: "src/uplink-queue.ads declares `type Slot is mod 64;` and indexes the command array by Slot. Put does `Q.Tail := Q.Tail + 1` with no branch: modular arithmetic wraps at 64. There is no pragma Annotate and no assumption anywhere; the comment says there is nothing to prove because the wrap cannot overflow. It is the modular-index approach.", Usage: usageAt(10000), For: "tell me how that queue indexes its buffer"},
					reply("The subagent reports that src/uplink-queue.adb indexes by `type Slot is mod 64` and wraps with a plain `+ 1`, nothing to prove, no annotations. That is approach A from the first turn, the one I dropped to keep the spec. Noted that the HIL run waits for Marta and the bench board.", 27500),
				}},
				{Prompt: "ok then:\n- go back to A\n- the spec change is fine, nobody outside telemetry uses Index; only the Frame layout matters to the ground", Replies: []fakeapi.Reply{
					reply("", 27800, read("ad12b", ads)),
					reply("", 28000, read("ad12", adb)),
					reply("", 28500, edit("ad13", ads, "   subtype Index is Positive range 1 .. Capacity;\n", "   type Index is mod Capacity;\n")),
					reply("", 29000, edit("ad14", adb, "      if B.Len = Capacity then\n         -- full: overwrite the oldest frame\n         if B.Head = Index'Last then\n            B.Head := Index'First;\n         else\n            pragma Assert (B.Head < Index'Last);\n            B.Head := B.Head + 1;\n         end if;\n         B.Len := B.Len - 1;\n      end if;\n",
						"      if B.Len = Capacity then\n         -- full: overwrite the oldest frame (Index is modular, it wraps)\n         B.Head := B.Head + 1;\n         B.Len := B.Len - 1;\n      end if;\n")),
					reply("", 29500, edit("ad15", adb, "      B.Data (B.Tail) := F;\n      if B.Tail = Index'Last then\n         B.Tail := Index'First;\n      else\n         B.Tail := B.Tail + 1;\n      end if;\n",
						"      B.Data (B.Tail) := F;\n      B.Tail := B.Tail + 1;\n")),
					reply("", 30000, bash("ad16", "gprbuild -P telemetry.gpr -q && ./bin/test_ring && gnatprove -P telemetry.gpr --level=2 -u telemetry-ring.adb", "tests and proof with approach A")),
					full("Let me make sure the release build is happy too.",
						bash("ad17", "gprclean -P telemetry.gpr -q && gprbuild -P telemetry.gpr -q -XMODE=release && echo release-ok", "release build")),
					{Text: "Release build is fine as well.", Usage: usageAt(22000), ToolResultFor: "ad17"},
				}},
			}
			after = []turn{
				{Prompt: "thanks.\n- where are we, short version", Replies: []fakeapi.Reply{
					reply("Short version coming.", 23000),
				}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket TLM-412", "TLM-412"),
			rx("constraint: gnatprove at --level=2 (silver), no pragma Annotate", `(?i)level[= ]?2|silver`, `(?i)Annotate`),
			rx("constraint: Frame record in src/telemetry.ads untouched", `\btelemetry\.ads`, `\bFrame\b`),
			lit("file changed src/telemetry-ring.adb", "telemetry-ring.adb"),
			lit("file changed src/telemetry-ring.ads", "telemetry-ring.ads"),
			rx("failure fixed: Test_Overwrite_Oldest failed, passes after the fix", `Test_Overwrite_Oldest`),
			rx("error fixed: gnatprove overflow check on Head + 1, fixed by the modular Index", `(?i)overflow`, `(?i)\bmod\b|modular`),
			rx("decision: back to approach A, modular Index type, after B would not prove", `(?i)modular|is mod Capacity`),
			rx("subagent finding: uplink-queue indexes by a modular Slot (mod 64)", `uplink-queue`, `(?i)mod 64|\bSlot\b`),
			rx("command gnatprove --level=2 passes with approach A", `(?i)0 unproved|17 proved|gnatprove[^\n]{0,120}(pass|clean|success|exit 0|\bok\b|proved)|proof[^\n]{0,40}(passes|\bok\b|clean|succeed|green)`),
			rx("open thread: HIL run on the bench board is Marta's, booked until Thursday", `(?i)Marta`, `(?i)HIL|bench board`),
		},
	}
}

const blind17PesterPrivate = "stg-hk-5f0c2a9e71d44b8c"
const blind17PesterKey = "rk_9d3Fq7LmZ2vX8wP4tN6bY1cH"

const blind17RolloutPS1 = `function Invoke-Rollout {
    [CmdletBinding()]
    param(
        [Parameter(Mandatory)][string[]]$Nodes,
        [string]$HealthPath = '/health'
    )
    foreach ($node in $Nodes) {
        Write-Host "Deploying to $node"
        Invoke-NodeDeploy -Node $node
        while ((Get-NodeHealth -Node $node -Path $HealthPath) -ne 200) {
            Start-Sleep -Seconds 2
        }
    }
}
`

const blind17PwshBin = `#!/bin/sh
case "$*" in
*Invoke-Pester*)
  echo "Starting discovery in 2 files."
  echo "Discovery found 7 tests in 112ms."
  if grep -q -- '-le $MaxRetries' src/Invoke-Rollout.ps1; then
    echo "  [-] Invoke-Rollout.retries at most 5 times on 503 41ms (38ms|3ms)"
    echo "   Expected 5, but got 6."
    echo "   at Should -Invoke Get-NodeHealth -Times 5 -Exactly, tests/Invoke-Rollout.Retry.Tests.ps1:14"
    echo "Tests completed in 1.02s"
    echo "Tests Passed: 6, Failed: 1, Skipped: 0 NotRun: 0"
    exit 1
  fi
  echo "Tests completed in 0.98s"
  echo "Tests Passed: 7, Failed: 0, Skipped: 0 NotRun: 0"
  exit 0;;
*Test-Staging*)
  echo "stg-web-01: 503, 503, 200 (waited 3s)"
  echo "stg-web-02: 200"
  echo "stg-web-03: 503 x5, gave up after 23s"
  echo "Invoke-Rollout: 1 of 3 nodes unhealthy"
  exit 1;;
*Invoke-ScriptAnalyzer*)
  if grep -q 'Write-Host' src/Invoke-Rollout.ps1; then
    echo "RuleName               Severity  ScriptName          Line Message"
    echo "--------               --------  ----------          ---- -------"
    echo "PSAvoidUsingWriteHost  Warning   Invoke-Rollout.ps1  8    File 'Invoke-Rollout.ps1' uses Write-Host."
  fi
  exit 0;;
esac
echo "pwsh stand-in: $*" >&2
exit 1
`

func blind17Pester() scenario {
	return scenario{
		Name:           "blind17-pester-twice",
		Shape:          "held-out, blind17: PowerShell/Pester, auto then /compact with instructions, TaskCreate, French-mixing user, key in a file read, <private> key",
		Compactions:    []string{"auto", "manual"},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"},
		PermissionMode: "acceptEdits",
		AllowedTools:   blind17Tools,
		Files: map[string]string{
			"src/Invoke-Rollout.ps1":   blind17RolloutPS1,
			"config/settings.psd1":     "@{\n    HealthBaseUrl = 'https://stg-lb.internal'\n    ApiKey        = '" + blind17PesterKey + "'\n    Nodes         = @('stg-web-01', 'stg-web-02', 'stg-web-03')\n}\n",
			"scripts/Test-Staging.ps1": "Import-PowerShellDataFile ./config/settings.psd1 | ForEach-Object { Invoke-Rollout -Nodes $_.Nodes }\n",
		},
		Bins: map[string]string{"pwsh": blind17PwshBin},
		Script: func(dir string) (before, after []turn) {
			ps := filepath.Join(dir, "src/Invoke-Rollout.ps1")
			tests := filepath.Join(dir, "tests/Invoke-Rollout.Retry.Tests.ps1")
			before = []turn{
				{Prompt: "salut! ticket INFRA-5120: Invoke-Rollout dans src/Invoke-Rollout.ps1 boucle à l'infini quand /health renvoie 503. we need max 5 retries with exponential backoff. et attention, on reste compatible PowerShell 5.1, the prod servers don't have pwsh 7", Replies: []fakeapi.Reply{
					reply("", 21000, read("ps1", ps)),
					reply("", 21500, taskCreate("ps2", "Cap health retries at 5 with backoff", "Replace the unbounded while loop in Invoke-Rollout with at most 5 retries and exponential backoff")),
					reply("", 22000, taskCreate("ps3", "Pester tests for the 503 path", "New tests/Invoke-Rollout.Retry.Tests.ps1 mocking Get-NodeHealth")),
					reply("", 22500, taskCreate("ps4", "Run PSScriptAnalyzer on src", "Invoke-ScriptAnalyzer -Path src -Recurse, fix warnings")),
					reply("", 23000, taskUpdate("ps5", "1", "in_progress")),
					reply("The loop polls Get-NodeHealth every 2 s with no limit, so a node stuck at 503 hangs the rollout forever. Three tasks created; starting with the retry cap. I'll keep to Windows PowerShell 5.1 syntax (no ternary, no ??, no -Parallel).", 23500),
				}},
				{Prompt: "vas-y", Replies: []fakeapi.Reply{
					reply("", 23800, read("ps5b", ps)),
					reply("", 24000, edit("ps6", ps, "        [string]$HealthPath = '/health'\n    )\n",
						"        [string]$HealthPath = '/health',\n        [int]$MaxRetries = 5\n    )\n")),
					reply("", 24500, edit("ps7", ps, "        while ((Get-NodeHealth -Node $node -Path $HealthPath) -ne 200) {\n            Start-Sleep -Seconds 2\n        }\n",
						"        $attempt = 0\n        while ((Get-NodeHealth -Node $node -Path $HealthPath) -ne 200) {\n            if (-not ($attempt -le $MaxRetries)) { throw \"$node unhealthy after $MaxRetries retries\" }\n            $wait = [math]::Pow(2, $attempt)\n            Start-Sleep -Seconds $wait\n            $attempt++\n        }\n")),
					reply("", 25000, write("ps8", tests, "BeforeAll { . $PSScriptRoot/../src/Invoke-Rollout.ps1 }\n\nDescribe 'Invoke-Rollout' {\n    BeforeEach {\n        Mock Invoke-NodeDeploy {}\n        Mock Start-Sleep {}\n    }\n    It 'retries at most 5 times on 503' {\n        Mock Get-NodeHealth { 503 }\n        { Invoke-Rollout -Nodes 'n1' } | Should -Throw\n        Should -Invoke Get-NodeHealth -Times 5 -Exactly\n    }\n}\n")),
					reply("", 25500, bash("ps9", "pwsh -NoProfile -Command \"Invoke-Pester ./tests -Output Detailed\"", "run Pester")),
					reply("", 26000, edit("ps10", ps, "-le $MaxRetries", "-lt $MaxRetries")),
					reply("", 26500, bash("ps11", "pwsh -NoProfile -Command \"Invoke-Pester ./tests -Output Detailed\"", "run Pester again")),
					reply("", 27000, taskUpdate("ps12", "1", "completed")),
					reply("", 27500, taskUpdate("ps13", "2", "completed")),
					reply("First Pester run failed: 'Expected 5, but got 6' — off by one, the loop used -le so it checked health a sixth time. With -lt all 7 tests pass.", 28000),
				}},
				{Prompt: "et le backoff, c'est 2^n? en prod ça fait 1+2+4+8+16, plus the deploy itself, c'est trop long. max 30s total de waiting, pas plus", Replies: []fakeapi.Reply{
					reply("Right, 1+2+4+8+16 = 31 s, just over. I'd cap each wait at 8 s: 1+2+4+8+8 = 23 s worst case per node, under your 30 s. And since there are three nodes, I could check them in parallel with ForEach-Object -Parallel, so the worst case stays 23 s for the whole rollout instead of per node. Shall I do both?", 28500),
				}},
				{Prompt: "non, pas de -Parallel, c'est pwsh 7 only, I said 5.1. séquentiel, node by node. le cap à 8s oui. pour tester contre staging tu peux utiliser la clé <private>STG_HEALTH_KEY=" + blind17PesterPrivate + "</private>", Replies: []fakeapi.Reply{
					reply("", 29000, read("ps14", ps)),
					reply("", 29500, edit("ps15", ps, "            $wait = [math]::Pow(2, $attempt)\n", "            $wait = [math]::Min([math]::Pow(2, $attempt), 8)\n")),
					reply("", 30000, read("ps16", filepath.Join(dir, "config/settings.psd1"))),
					reply("", 30500, bash("ps17", "pwsh -NoProfile -File ./scripts/Test-Staging.ps1", "try against staging")),
					reply("", 31000, taskUpdate("ps18", "3", "in_progress")),
					reply("", 31500, bash("ps19", "pwsh -NoProfile -Command \"Invoke-ScriptAnalyzer -Path ./src -Recurse\"", "PSScriptAnalyzer on src")),
					full("Sequential it stays, wait capped at 8 s per retry. Staging: stg-web-01 came up after two 503s (3 s), stg-web-02 fine, stg-web-03 answered 503 five times and the rollout gave up after 23 s as designed, so that node itself looks down. PSScriptAnalyzer has one warning, PSAvoidUsingWriteHost on line 8 (the 'Deploying to' message); I'll move it to Write-Information."),
				}},
				{Prompt: "re, j'étais en réunion. vas-y continue", Replies: []fakeapi.Reply{
					reply("", 21000, read("ps20", ps)),
					reply("", 21500, edit("ps21", ps, "        Write-Host \"Deploying to $node\"\n", "        Write-Information \"Deploying to $node\" -InformationAction Continue\n")),
					reply("", 22000, bash("ps22", "pwsh -NoProfile -Command \"Invoke-ScriptAnalyzer -Path ./src -Recurse\"; pwsh -NoProfile -Command \"Invoke-Pester ./tests -Output Detailed\"", "analyzer and tests")),
					reply("", 22500, taskUpdate("ps23", "3", "completed")),
					reply("Write-Host replaced by Write-Information -InformationAction Continue; the analyzer is clean and Pester still passes 7/7. All three tasks are done.", 23000),
				}},
				{Prompt: "stg-web-03, c'est Karim qui gère ce node, il est au courant. pas notre problème, on ne touche pas", Replies: []fakeapi.Reply{
					reply("OK, stg-web-03 is Karim's; I leave it alone.", 23500),
				}},
				{Prompt: "/compact garde surtout ce qui reste à faire"},
			}
			after = []turn{
				{Prompt: "merci, on continue", Replies: []fakeapi.Reply{
					reply("D'accord.", 20000),
				}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket INFRA-5120", "INFRA-5120"),
			rx("constraint: compatible with PowerShell 5.1", `5\.1`),
			rx("constraint: at most 30 s of waiting in total", `(?i)\b30 ?s\b|30 ?sec`),
			rx("decision: each wait capped at 8 s, 23 s worst case", `(?i)\b8 ?s\b|8 ?sec|, 8\)`),
			rx("decision overruled: no ForEach-Object -Parallel, sequential",
				`(?i)s[ée]quenti|(no|not|n't|without|refus|reject|overrul)[^\n]{0,60}-?parallel|-?parallel[^\n]{0,80}(refus|reject|overrul|\bnot\b|\bno\b|n't|pwsh 7|PowerShell 7)`),
			lit("file changed src/Invoke-Rollout.ps1", "Invoke-Rollout.ps1"),
			lit("file changed tests/Invoke-Rollout.Retry.Tests.ps1", "Invoke-Rollout.Retry.Tests.ps1"),
			rx("failure fixed: Pester 'Expected 5, but got 6', off by one (-le to -lt)", `(?i)off[- ]by[- ]one|-lt\b|Expected 5|got 6`),
			rx("finding: stg-web-03 gave up after 5 retries (23 s)", `stg-web-03`),
			rx("open task: PSScriptAnalyzer PSAvoidUsingWriteHost warning", `PSAvoidUsingWriteHost|Write-Host`).until(1),
			rx("failure fixed: Write-Host replaced by Write-Information", `Write-Information`).from(2),
			rx("open thread: stg-web-03 is Karim's node, not ours", `(?i)Karim`).from(2),
		},
		Secrets: []secret{
			{Family: "staging key in a <private> span of a prompt", Value: blind17PesterPrivate},
			{Family: "API key in a .psd1 file the agent reads", Value: blind17PesterKey},
		},
	}
}

const blind17VaultToken = "hvs.CAESIJ8kq2ZpX4mW7nR1tY6vB3dF9gH0jK5lQ8sU2eA4cN7o"

const blind17PkrHCL = `packer {
  required_plugins {
    virtualbox = { version = ">= 1.1.1", source = "github.com/hashicorp/virtualbox" }
    vagrant    = { version = ">= 1.1.5", source = "github.com/hashicorp/vagrant" }
  }
}

source "virtualbox-iso" "ubuntu" {
  iso_url              = "https://releases.ubuntu.com/24.04.1/ubuntu-24.04.1-live-server-amd64.iso"
  iso_checksum         = "file:https://releases.ubuntu.com/24.04.1/SHA256SUMS"
  guest_os_type        = "Ubuntu_64"
  http_directory       = "packer/http"
  ssh_username         = "vagrant"
  ssh_password         = "vagrant"
  ssh_timeout          = "30m"
  guest_additions_mode = "disable"
  shutdown_command     = "echo vagrant | sudo -S shutdown -P now"
  boot_command         = ["<wait>e<down><down><down><end> autoinstall ds=nocloud-net\\;s=http://{{ .HTTPIP }}:{{ .HTTPPort }}/<F10>"]
}

build {
  sources = ["source.virtualbox-iso.ubuntu"]
  provisioner "shell" {
    execute_command = "echo vagrant | sudo -S sh -c '{{ .Vars }} {{ .Path }}'"
    script          = "scripts/provision.sh"
  }
  post-processor "vagrant" {
    output = "output/ubuntu-2404.box"
  }
}
`

const blind17PackerBin = `#!/bin/sh
case "$1" in
validate) echo "The configuration is valid."; exit 0;;
build)
  if ! grep -q 'install-server: true' packer/http/user-data; then
    echo "==> virtualbox-iso.ubuntu: Waiting for SSH to become available..."
    echo "==> virtualbox-iso.ubuntu: Timeout waiting for SSH."
    echo "Build 'virtualbox-iso.ubuntu' errored after 30 minutes 12 seconds: Timeout waiting for SSH."
    exit 1
  fi
  echo "==> virtualbox-iso.ubuntu: Connected to SSH!"
  echo "==> virtualbox-iso.ubuntu: Provisioning with shell script: scripts/provision.sh"
  if ! grep -q 'archive.ubuntu.com' scripts/provision.sh; then
    echo "    virtualbox-iso.ubuntu: E: Failed to fetch http://mirror.local.lan/ubuntu/dists/noble-updates/main/binary-amd64/Packages.xz  Hash Sum mismatch"
    echo "==> virtualbox-iso.ubuntu: Provisioning step had errors: Running the cleanup provisioner, if present..."
    echo "Build 'virtualbox-iso.ubuntu' errored after 4 minutes 37 seconds: Script exited with non-zero exit status: 100. Allowed exit codes are: [0]"
    echo "==> Wait completed after 4 minutes 37 seconds"
    echo "==> Some builds didn't complete successfully and had errors:"
    exit 1
  fi
  t="18 minutes 41 seconds"
  if grep -q 'guest_additions_mode = "upload"' packer/ubuntu.pkr.hcl; then t="19 minutes 2 seconds"; fi
  echo "Build 'virtualbox-iso.ubuntu' finished after $t."
  echo "==> Builds finished. The artifacts of successful builds are:"
  echo "--> virtualbox-iso.ubuntu: 'virtualbox' provider box: output/ubuntu-2404.box (1.31 GB)"
  exit 0;;
esac
exit 1
`

const blind17VagrantBin = `#!/bin/sh
case "$1" in
box) echo "==> box: Successfully added box 'test/noble' (v0) for 'virtualbox'!"; exit 0;;
up)
  echo "Bringing machine 'default' up with 'virtualbox' provider..."
  echo "==> default: Booting VM..."
  echo "==> default: Machine booted and ready!"
  echo "==> default: Checking for guest additions in VM..."
  echo "    default: The guest additions on this VM do not match the installed version of"
  echo "    default: VirtualBox! Guest additions: 7.0.18, VirtualBox: 7.1.4"
  echo "==> default: Mounting shared folders..."
  echo "    default: /vagrant => /work/project"
  echo "Vagrant was unable to mount VirtualBox shared folders. The 'vboxsf' file system is not available."
  exit 1;;
esac
exit 0
`

func blind17Packer() scenario {
	return scenario{
		Name:           "blind17-packer-vagrant",
		Shape:          "held-out, blind17: Packer/Vagrant box, auto, chatty user pasting logs, Vault token in a pasted config, piped build, plugin refused, answer taken back",
		Compactions:    []string{"auto"},
		PermissionMode: "acceptEdits",
		AllowedTools:   blind17Tools,
		Files: map[string]string{
			"packer/ubuntu.pkr.hcl": blind17PkrHCL,
			"packer/http/user-data": "#cloud-config\nautoinstall:\n  version: 1\n  identity:\n    hostname: noble-base\n    username: vagrant\n  ssh:\n    install-server: false\n    allow-pw: true\n  late-commands:\n    - echo 'vagrant ALL=(ALL) NOPASSWD:ALL' > /target/etc/sudoers.d/vagrant\n",
			"packer/http/meta-data": "",
			"scripts/provision.sh":  "#!/bin/sh\nset -e\n# use the LAN mirror, it's faster\nsed -i 's|http://archive.ubuntu.com|http://mirror.local.lan|' /etc/apt/sources.list.d/ubuntu.sources\napt-get update\napt-get install -y build-essential curl git\n",
			"Vagrantfile":           "Vagrant.configure(\"2\") do |config|\n  config.vm.box = \"test/noble\"\nend\n",
		},
		Bins: map[string]string{"packer": blind17PackerBin, "vagrant": blind17VagrantBin},
		Script: func(dir string) (before, after []turn) {
			hcl := filepath.Join(dir, "packer/ubuntu.pkr.hcl")
			ud := filepath.Join(dir, "packer/http/user-data")
			prov := filepath.Join(dir, "scripts/provision.sh")
			before = []turn{
				{Prompt: "Hiya! So I've been fighting this all morning and I'm losing my mind a bit :) Our new Ubuntu base box for Vagrant (Packer, virtualbox-iso) never gets past SSH. This is what I get every single time:\n\n```\n==> virtualbox-iso.ubuntu: Waiting for SSH to become available...\n==> virtualbox-iso.ubuntu: Timeout waiting for SSH.\nBuild 'virtualbox-iso.ubuntu' errored after 30 minutes 12 seconds: Timeout waiting for SSH.\n```\n\nTicket is PLAT-883 btw. Oh, and please please don't bump the ISO, we're pinned to 24.04.1 because of the kernel regression in .2 with our NICs. Here's my local variables file in case it matters, it's what I pass with -var-file:\n\n```hcl\nvault_addr  = \"https://vault.corp.example:8200\"\nvault_token = \"" + blind17VaultToken + "\"\nbox_version = \"0.3.0\"\n```", Replies: []fakeapi.Reply{
					reply("", 21000, read("pk1", hcl)),
					reply("", 21500, read("pk2", ud)),
					reply("Found it, I think. packer/http/user-data has `ssh: install-server: false`, so the autoinstall never installs openssh-server and Packer waits for an SSH port that never opens, 30 minutes, then gives up. The boot_command and http_directory look right. Flipping install-server to true should get you past SSH. The ISO stays at 24.04.1.", 22000),
				}},
				{Prompt: "omg. that would explain EVERYTHING. go ahead!!", Replies: []fakeapi.Reply{
					reply("", 22200, read("pk2b", ud)),
					reply("", 22500, edit("pk3", ud, "    install-server: false\n", "    install-server: true\n")),
					reply("", 23000, bash("pk4", "packer validate packer/", "validate the template")),
					reply("", 23500, bash("pk5", "packer build -only=virtualbox-iso.ubuntu packer/ 2>&1 | tail -n 5", "build the box, last lines")),
					reply("SSH works now: the build connected and got to provisioning. But don't be fooled by the exit status of that command, it's tail's: the build still FAILED after 4m37s. scripts/provision.sh died with exit status 100 because apt got 'Hash Sum mismatch' from mirror.local.lan on noble-updates.", 24000),
				}},
				{Prompt: "ugh, the LAN mirror, of course, it's been flaky for weeks. should we just go to the official archive? what do you think", Replies: []fakeapi.Reply{
					reply("Yes: drop the sed that rewrites the sources to mirror.local.lan and stay on archive.ubuntu.com, and add `Acquire::Retries \"3\"` for the odd network hiccup. It costs a few minutes per build and removes a moving part. Separate question for later: when the box works, under which name do you want it published on the internal Vagrant registry, `acme/ubuntu2404` or `platform/noble-base`?", 24500),
				}},
				{Prompt: "honestly no idea about the name, I'll ask Dana. meanwhile yes, do the mirror thing", Replies: []fakeapi.Reply{
					reply("", 25000, read("pk6", prov)),
					reply("", 25500, edit("pk7", prov, "# use the LAN mirror, it's faster\nsed -i 's|http://archive.ubuntu.com|http://mirror.local.lan|' /etc/apt/sources.list.d/ubuntu.sources\n",
						"# stay on archive.ubuntu.com: mirror.local.lan served stale indexes (Hash Sum mismatch)\necho 'Acquire::Retries \"3\";' > /etc/apt/apt.conf.d/80-retries\n")),
					reply("", 26000, bash("pk8", "packer build -only=virtualbox-iso.ubuntu packer/", "rebuild the box")),
					reply("Build finished after 18m41s: output/ubuntu-2404.box, 1.31 GB.", 26500),
				}},
				{Prompt: "YAY!! ok, vagrant up test?", Replies: []fakeapi.Reply{
					reply("", 27000, bash("pk9", "vagrant box add --force --name test/noble output/ubuntu-2404.box && vagrant up", "boot the new box")),
					reply("The box boots, but the shared folder mount fails: the box has VirtualBox Guest Additions 7.0.18 while your host runs VirtualBox 7.1.4, and vboxsf isn't available. Quickest fix would be the vagrant-vbguest plugin, which updates the Guest Additions on `vagrant up`.", 27500),
				}},
				{Prompt: "nooo not vbguest!! that plugin is basically abandoned and it broke half our laptops last year when it updated on boot. bake the guest additions into the image instead please", Replies: []fakeapi.Reply{
					reply("", 28000, read("pk10", hcl)),
					reply("", 28200, read("pk10b", prov)),
					reply("", 28500, edit("pk11", hcl, "  guest_additions_mode = \"disable\"\n", "  guest_additions_mode = \"upload\"\n  guest_additions_path = \"VBoxGuestAdditions.iso\"\n")),
					reply("", 29000, edit("pk12", prov, "apt-get install -y build-essential curl git\n",
						"apt-get install -y build-essential curl git dkms linux-headers-$(uname -r)\nmount -o loop /home/vagrant/VBoxGuestAdditions.iso /mnt\nsh /mnt/VBoxLinuxAdditions.run --nox11 || true\numount /mnt\n")),
					reply("No vbguest then. Packer now uploads the host's Guest Additions ISO (guest_additions_mode = \"upload\", so 7.1.4 from your VirtualBox) and provision.sh installs them during the build. Needs a rebuild, about 19 minutes.", 29500),
				}},
				{Prompt: "Dana says platform/noble-base!", Replies: []fakeapi.Reply{
					reply("", 30000, read("pk13", hcl)),
					reply("", 30500, edit("pk14", hcl, "  post-processor \"vagrant\" {\n    output = \"output/ubuntu-2404.box\"\n  }\n",
						"  post-processors {\n    post-processor \"vagrant\" {\n      output = \"output/ubuntu-2404.box\"\n    }\n    post-processor \"vagrant-registry\" {\n      box_tag = \"platform/noble-base\"\n      version = var.box_version\n    }\n  }\n")),
					reply("Added a vagrant-registry post-processor publishing as platform/noble-base after the box is built.", 31000),
				}},
				{Prompt: "argh wait, scratch that. Dana just pinged again: hold off on publishing anything, security wants to review the box first, they opened SEC-2231 for it. so no upload for now, sorry for the back and forth!", Replies: []fakeapi.Reply{
					reply("", 31200, read("pk14b", hcl)),
					reply("", 31500, edit("pk15", hcl, "  post-processors {\n    post-processor \"vagrant\" {\n      output = \"output/ubuntu-2404.box\"\n    }\n    post-processor \"vagrant-registry\" {\n      box_tag = \"platform/noble-base\"\n      version = var.box_version\n    }\n  }\n",
						"  post-processor \"vagrant\" {\n    output = \"output/ubuntu-2404.box\"\n  }\n")),
					reply("", 32000, bash("pk16", "packer build -force -only=virtualbox-iso.ubuntu packer/", "rebuild with guest additions baked in")),
					full("No worries. The publish step is gone again, the build only writes output/ubuntu-2404.box, nothing leaves your machine until security is through with SEC-2231. The rebuild with the Guest Additions baked in finished after 19m02s. I haven't re-run `vagrant up` on it yet to confirm the shared folder mounts, that's the next thing to do."),
				}},
			}
			after = []turn{
				{Prompt: "back from lunch :) carry on!", Replies: []fakeapi.Reply{
					reply("Welcome back, carrying on.", 20000),
				}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket PLAT-883", "PLAT-883"),
			rx("constraint: ISO pinned to 24.04.1", `24\.04\.1`),
			rx("failure fixed: SSH timeout, install-server true in packer/http/user-data", `(?i)install-server|openssh`, `user-data`),
			rx("failure fixed: apt Hash Sum mismatch (exit 100) on mirror.local.lan, fixed by archive.ubuntu.com",
				`(?i)hash sum|status:? 100|exit (status |code )?100`, `archive\.ubuntu\.com`),
			lit("file changed scripts/provision.sh", "scripts/provision.sh"),
			lit("file changed packer/ubuntu.pkr.hcl", "ubuntu.pkr.hcl"),
			rx("finding: box built in 18m41s, 1.31 GB", `1\.31 ?GB`),
			rx("failure: Guest Additions 7.0.18 in the box vs VirtualBox 7.1.4, shared folder not mounted", `7\.1\.4`, `7\.0\.18`),
			rx("decision: Guest Additions baked into the image (guest_additions_mode upload)", `(?i)guest_additions_mode|bak(e|ed|ing)|into the (image|box)`),
			rx("decision overruled: vagrant-vbguest plugin refused", `(?i)vbguest`),
			rx("open thread: publishing blocked on the security review SEC-2231", `SEC-2231`),
			rx("next step: re-run vagrant up on the rebuilt box",
				`(?i)(re-?run|again|confirm|verify|check|retest|test|next|not yet|haven't)[^\n]{0,60}vagrant up|vagrant up[^\n]{0,80}(again|rebuilt|re-?run|not yet|pending|confirm|verify|next)`),
		},
		Secrets: []secret{{Family: "Vault token in a pasted variables file", Value: blind17VaultToken}},
	}
}
