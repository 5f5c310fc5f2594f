package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's ninth blind set: four more held-out sessions, written
// without reading cairn's extraction code nor any other scenario's facts,
// from the bench's types and helpers and the real transcripts only. Their
// first run on main is the blind measurement: nothing in cairn was tuned
// on them.
//
// Each is a toolchain and a voice of its own: an sbt/Scala ledger service
// whose real error sits under sbt's TestsFailedException wrapper, with a
// subagent and a compaction inside a turn (a chatty user); an R churn
// analysis whose findings are numbers, for a terse user who answers one
// word at a time and overrules a threshold; a Nix flake with a Meson
// package, compacted twice in a row, its TodoWrite list rewritten four
// times and an item dropped (a user who writes lists); a goreleaser release
// of a Go CLI with a pasted PR review thread whose open questions belong to
// other people, one-word answers, a token in a prompt and a file written
// and a webhook URL in a file read and a command's argument.
//
// Several facts also carry the claim that would contradict them (a
// question paired with the wrong answer, a fixed error reported as still
// failing, a dropped todo shown as open, a taken-back decision shown as
// the current one): a request that makes it has lost the fact.
//
// They run only in the report (TestRecallReport) and are marked
// "held-out, blind9" in its shape column.

// blind9Scenarios are the ninth blind set the recall report runs.
func blind9Scenarios() []scenario {
	return []scenario{
		blind9SbtInTurn(),
		blind9RTerse(),
		blind9NixTwice(),
		blind9Goreleaser(),
	}
}

// backticks turns ‹bt› into a backtick, for tool output quoted in raw
// strings (R's and Go's errors quote code in backticks).
func backticks(s string) string { return strings.ReplaceAll(s, "‹bt›", "`") }

// blind9SbtInTurn: a Scala 3 ledger service built with sbt. The first
// test run is piped through tail (exit 0) and its real cause, a missing
// config key, is buried under sbt's wrapper in a long stack trace; a
// subagent maps the key's readers; the user has a change made and then
// taken back; a compile error in another module is fixed and the compile
// rerun is the tool call the compaction interrupts.
func blind9SbtInTurn() scenario {
	failTrace := `[info] welcome to sbt 1.10.2 (Eclipse Adoptium Java 21.0.4)
[info] loading settings for project ledger-build from plugins.sbt ...
[info] loading project definition from /src/ledger/project
[info] loading settings for project root from build.sbt ...
[info] set current project to ledger (in build file:/src/ledger/)
[info] compiling 2 Scala sources to /src/ledger/ledger-core/target/scala-3.3.3/test-classes ...
[info] ReconcileSpec:
[info] Reconciler
[info] - should match a statement line to a ledger entry *** FAILED ***
[info]   java.lang.ExceptionInInitializerError:
[info]   at ledger.core.fx.FxConverter$.<clinit>(FxConverter.scala:11)
[info]   at ledger.core.Reconciler.matchLine(Reconciler.scala:64)
[info]   at ledger.core.ReconcileSpec.$init$$$anonfun$1(ReconcileSpec.scala:22)
[info]   at org.scalatest.OutcomeOf.outcomeOf(OutcomeOf.scala:85)
[info]   at org.scalatest.OutcomeOf.outcomeOf$(OutcomeOf.scala:83)
[info]   at org.scalatest.OutcomeOf$.outcomeOf(OutcomeOf.scala:104)
[info]   at org.scalatest.Transformer.apply(Transformer.scala:22)
[info]   at org.scalatest.Transformer.apply(Transformer.scala:20)
[info]   at org.scalatest.flatspec.AnyFlatSpecLike$$anon$5.apply(AnyFlatSpecLike.scala:1832)
[info]   at org.scalatest.TestSuite.withFixture(TestSuite.scala:196)
[info]   ...
[info]   Cause: com.typesafe.config.ConfigException$Missing: reference.conf @ jar:file:/src/ledger/ledger-core/target/scala-3.3.3/classes!/reference.conf: 1: No configuration setting found for key 'ledger.fx.rounding-mode'
[info]   at com.typesafe.config.impl.SimpleConfig.findKeyOrNull(SimpleConfig.java:157)
[info]   at com.typesafe.config.impl.SimpleConfig.findOrNull(SimpleConfig.java:175)
[info]   at com.typesafe.config.impl.SimpleConfig.find(SimpleConfig.java:189)
[info]   at com.typesafe.config.impl.SimpleConfig.find(SimpleConfig.java:194)
[info]   at com.typesafe.config.impl.SimpleConfig.getString(SimpleConfig.java:251)
[info]   at ledger.core.fx.FxConverter$.<clinit>(FxConverter.scala:11)
[info]   ...
[info] - should reject a statement line in another currency without a rate
[info] - should net partial refunds
[info] - should survive 10k random statements (property)
[info] - should keep totals stable under reordering (property)
[info] - should flag duplicates
[info] Run completed in 2 seconds, 114 milliseconds.
[info] Total number of tests run: 6
[info] Suites: completed 1, aborted 0
[info] Tests: succeeded 5, failed 1, canceled 0, ignored 0, pending 0
[info] *** 1 TEST FAILED ***
[error] Failed tests:
[error] 	ledger.core.ReconcileSpec
[error] (ledger-core / Test / testOnly) sbt.TestsFailedException: Tests unsuccessful
[error] Total time: 41 s, completed Nov 25, 2026, 3:12:08 AM`
	passRun := `[info] welcome to sbt 1.10.2 (Eclipse Adoptium Java 21.0.4)
[info] loading project definition from /src/ledger/project
[info] set current project to ledger (in build file:/src/ledger/)
[info] ReconcileSpec:
[info] Reconciler
[info] - should match a statement line to a ledger entry
[info] - should reject a statement line in another currency without a rate
[info] - should net partial refunds
[info] - should survive 10k random statements (property)
[info] - should keep totals stable under reordering (property)
[info] - should flag duplicates
[info] Run completed in 9 seconds, 870 milliseconds.
[info] Total number of tests run: 6
[info] Suites: completed 1, aborted 0
[info] Tests: succeeded 6, failed 0, canceled 0, ignored 0, pending 0
[info] All tests passed.
[success] Total time: 23 s, completed Nov 25, 2026, 3:19:40 AM`
	compileFail := `[info] welcome to sbt 1.10.2 (Eclipse Adoptium Java 21.0.4)
[info] loading project definition from /src/ledger/project
[info] set current project to ledger (in build file:/src/ledger/)
[info] compiling 14 Scala sources to /src/ledger/ledger-api/target/scala-3.3.3/classes ...
[error] -- [E007] Type Mismatch Error: /src/ledger/ledger-api/src/main/scala/ledger/api/Routes.scala:88:42
[error] 88 |      complete(StatusCodes.OK, converter.convert(amount, to))
[error]    |                                          ^^^^^^^^^^^^^^^^^^^^^^^^^
[error]    |                                          Found:    BigDecimal
[error]    |                                          Required: ledger.core.Money
[error]    |
[error]    | longer explanation available when compiling with ` + "`-explain`" + `
[error] one error found
[error] (ledger-api / Compile / compileIncremental) Compilation failed
[error] Total time: 12 s, completed Nov 25, 2026, 3:31:02 AM`
	compileOK := `[info] welcome to sbt 1.10.2 (Eclipse Adoptium Java 21.0.4)
[info] loading project definition from /src/ledger/project
[info] set current project to ledger (in build file:/src/ledger/)
[info] compiling 1 Scala source to /src/ledger/ledger-api/target/scala-3.3.3/classes ...
[success] Total time: 9 s, completed Nov 25, 2026, 3:33:47 AM`
	sbt := "#!/bin/sh\n# stand-in for sbt: prints what the ledger build printed\ncase \"$*\" in\n" +
		"  *ReconcileSpec*)\n    if grep -q 'rounding-mode' ledger-core/src/main/resources/reference.conf; then\n      cat <<'EOF'\n" + passRun + "\nEOF\n      exit 0\n    fi\n    cat <<'EOF'\n" + failTrace + "\nEOF\n    exit 1 ;;\n" +
		"  *ledger-api/compile*)\n    if grep -q 'Money.of' ledger-api/src/main/scala/ledger/api/Routes.scala; then\n      cat <<'EOF'\n" + compileOK + "\nEOF\n      exit 0\n    fi\n    cat <<'EOF'\n" + compileFail + "\nEOF\n    exit 1 ;;\n" +
		"  *) echo \"[error] Not a valid command: $*\" >&2; exit 1 ;;\nesac\n"
	fxConverter := `package ledger.core.fx

import com.typesafe.config.ConfigFactory
import java.math.RoundingMode

/** Converts amounts between currencies at the day's rate. */
object FxConverter:
  private val conf = ConfigFactory.load()

  // rounding used for every converted amount (was in application.conf)
  val rounding: RoundingMode = RoundingMode.valueOf(conf.getString("ledger.fx.rounding-mode"))
  val provider: String = conf.getString("ledger.fx.provider")

  def convert(amount: BigDecimal, to: String): BigDecimal =
    (amount * Rates.today(provider, to)).setScale(2, rounding)
`
	ratesClient := `package ledger.core.fx

import com.typesafe.config.ConfigFactory
import scala.concurrent.duration.*

object RatesClient:
  private val conf = ConfigFactory.load()
  val timeout: FiniteDuration =
    if conf.hasPath("ledger.fx.timeout") then conf.getDuration("ledger.fx.timeout").toMillis.millis
    else 5.seconds
`
	spec := `package ledger.core

import org.scalatest.flatspec.AnyFlatSpec

class ReconcileSpec extends AnyFlatSpec:
  "Reconciler" should "match a statement line to a ledger entry" in {
    assert(Reconciler.matchLine(Fixtures.line1).contains(Fixtures.entry1))
  }
  it should "survive 10k random statements (property)" in {
    Props.randomStatements(10000).foreach(s => Reconciler.run(s))
  }
  it should "keep totals stable under reordering (property)" in {
    Props.reorderings(2000).foreach(r => assert(r.totalsStable))
  }
`
	routes := `package ledger.api

import ledger.core.Money
import ledger.core.fx.FxConverter

object Routes:
  // ... 80 lines of routes ...
  def convertRoute(amount: BigDecimal, to: String) =
      complete(StatusCodes.OK, converter.convert(amount, to))
`
	return scenario{
		Name:        "blind9-sbt-inturn",
		Shape:       "held-out, blind9: sbt/Scala, wrapped stack trace, subagent, compaction inside a turn",
		Compactions: []string{"in-turn"},
		Files: map[string]string{
			"build.sbt": "ThisBuild / scalaVersion := \"3.3.3\"\n\nlazy val core = (project in file(\"ledger-core\"))\n  .settings(name := \"ledger-core\", libraryDependencies += \"com.typesafe\" % \"config\" % \"1.4.3\")\n\nlazy val api = (project in file(\"ledger-api\")).dependsOn(core)\n",
			"ledger-core/src/main/resources/reference.conf":               "ledger {\n  fx {\n    provider = \"ecb\"\n  }\n}\n",
			"ledger-core/src/main/scala/ledger/core/fx/FxConverter.scala": fxConverter,
			"ledger-core/src/main/scala/ledger/core/fx/RatesClient.scala": ratesClient,
			"ledger-core/src/test/scala/ledger/core/ReconcileSpec.scala":  spec,
			"ledger-api/src/main/scala/ledger/api/Routes.scala":           routes,
			".github/workflows/ci.yml":                                    "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    timeout-minutes: 15\n    steps:\n      - uses: actions/checkout@v4\n      - run: sbt test\n",
		},
		Bins:           map[string]string{"sbt": sbt},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(sbt:*)", "Bash(tail:*)", "Bash(grep:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			refConf := p("ledger-core/src/main/resources/reference.conf")
			specPath := p("ledger-core/src/test/scala/ledger/core/ReconcileSpec.scala")
			routesPath := p("ledger-api/src/main/scala/ledger/api/Routes.scala")
			ciPath := p(".github/workflows/ci.yml")
			subPrompt := "Find every place in the repo that reads a ledger.fx.* config key, and for each say whether reference.conf gives it a default. Report file:line."
			before = []turn{
				{
					Prompt: "hey! so LEDG-2207 — the nightly reconcile job started blowing up right after Jonas merged the FX refactor yesterday, and I think ReconcileSpec reproduces it locally. could you take a look? two things up front: please don't bump scalaVersion, we're pinned to 3.3.3 LTS until the platform team moves, and no new libraryDependencies without asking Priya first (she's strict about that one).",
					Replies: []fakeapi.Reply{
						reply("Let me reproduce it first.", 14000,
							bash("toolu_sbt_spec1", `sbt "ledger-core/testOnly *ReconcileSpec" 2>&1 | tail -n 60`, "Run ReconcileSpec")),
						reply("One test fails. The TestsFailedException at the bottom is only sbt's wrapper; the actual error is the Cause under the ExceptionInInitializerError: ConfigException$Missing, no configuration setting found for key 'ledger.fx.rounding-mode', thrown when FxConverter initialises. Let me look at FxConverter.", 16500,
							read("toolu_read_fx", p("ledger-core/src/main/scala/ledger/core/fx/FxConverter.scala"))),
						reply("FxConverter reads the key at object init with no fallback. Before choosing a fix I'll have a subagent check the other ledger.fx readers.", 18000,
							agentCall("toolu_agent_fx", "general-purpose", "Map ledger.fx config readers", subPrompt)),
						{Tools: []fakeapi.ToolUse{bash("toolu_sub_grep", `grep -rn "ledger.fx" --include=*.scala --include=*.conf .`, "Find ledger.fx readers")}, Usage: usageAt(6000), For: subPrompt},
						{Text: "Three readers of ledger.fx keys:\n- ledger-core/src/main/scala/ledger/core/fx/FxConverter.scala:11 reads ledger.fx.rounding-mode with getString: NO default in reference.conf (this is the crash).\n- FxConverter.scala:12 reads ledger.fx.provider: default \"ecb\" in reference.conf.\n- ledger-core/src/main/scala/ledger/core/fx/RatesClient.scala:9 reads ledger.fx.timeout: no default in reference.conf either, but it is guarded by conf.hasPath and falls back to 5 seconds, so it cannot crash.", Usage: usageAt(7500), For: subPrompt},
						reply("Found it. Jonas's refactor dropped ledger.fx.rounding-mode from application.conf without adding a default to reference.conf, and FxConverter needs it at init. ledger.fx.timeout has no default either but RatesClient guards it with hasPath, so it's fine. Two ways out: add the default to reference.conf, or give FxConverter a fallback in code. I'd add it to reference.conf.", 20000),
					},
				},
				{
					Prompt: "ok reference.conf it is. which mode tho? the old application.conf had HALF_UP i think",
					Replies: []fakeapi.Reply{
						reply("I'll use HALF_EVEN rather than HALF_UP: it's the same rounding the bank statements use, and the reconcile compares our totals to theirs to the cent.", 21500,
							read("toolu_read_ref", refConf)),
						reply("", 22500, edit("toolu_edit_ref", refConf, "    provider = \"ecb\"\n", "    provider = \"ecb\"\n    # banker's rounding, as on the bank statements we reconcile against\n    rounding-mode = \"HALF_EVEN\"\n")),
						reply("", 24000, bash("toolu_sbt_spec2", `sbt "ledger-core/testOnly *ReconcileSpec"`, "Rerun ReconcileSpec")),
						reply("", 25000, todoWrite("toolu_todo_1",
							[2]string{"Add a reference.conf default for ledger.fx.rounding-mode", "completed"},
							[2]string{"Ask Jonas whether ledger.fx.timeout should get a reference.conf default too", "pending"},
							[2]string{"Add a regression test that loads reference.conf without application.conf", "pending"})),
						reply("ReconcileSpec passes now, 6 of 6.", 25500),
					},
				},
				{
					Prompt: "nice!! hmm, actually can you just mark the two slow property tests in ReconcileSpec as ignore for now? CI keeps timing out on them",
					Replies: []fakeapi.Reply{
						reply("", 26500, read("toolu_read_spec", specPath)),
						reply("", 27500, edit("toolu_edit_spec_ignore", specPath,
							"  it should \"survive 10k random statements (property)\" in {", "  ignore should \"survive 10k random statements (property)\" in {")),
						reply("", 28500, edit("toolu_edit_spec_ignore2", specPath,
							"  it should \"keep totals stable under reordering (property)\" in {", "  ignore should \"keep totals stable under reordering (property)\" in {")),
						reply("Done: both property tests are marked ignore.", 29000),
					},
				},
				{
					Prompt: "no wait, scratch that — put them back please, Priya wants the property tests running on every PR. bump the CI timeout instead, .github/workflows/ci.yml, make it 25 minutes",
					Replies: []fakeapi.Reply{
						reply("", 30000, edit("toolu_edit_spec_back", specPath,
							"  ignore should \"survive 10k random statements (property)\" in {", "  it should \"survive 10k random statements (property)\" in {")),
						reply("", 31000, edit("toolu_edit_spec_back2", specPath,
							"  ignore should \"keep totals stable under reordering (property)\" in {", "  it should \"keep totals stable under reordering (property)\" in {")),
						reply("", 32000, read("toolu_read_ci", ciPath)),
						reply("", 33000, edit("toolu_edit_ci", ciPath, "    timeout-minutes: 15\n", "    timeout-minutes: 25\n")),
						reply("Reverted the ignore: both property tests run again. The CI job's timeout-minutes is now 25.", 33500),
					},
				},
				{
					Prompt: "cool. can you compile the api module too? Jonas said Routes might be broken after his change",
					Replies: []fakeapi.Reply{
						reply("", 35000, bash("toolu_sbt_api1", "sbt ledger-api/compile", "Compile ledger-api")),
						reply("ledger-api fails to compile: Type Mismatch at Routes.scala:88, convert now returns BigDecimal but the route wants a ledger.core.Money. I'll wrap the result with Money.of in Routes rather than change FxConverter's signature, since the batch job already depends on the BigDecimal version.", 36500,
							read("toolu_read_routes", routesPath)),
						reply("", 37500, edit("toolu_edit_routes", routesPath,
							"complete(StatusCodes.OK, converter.convert(amount, to))", "complete(StatusCodes.OK, Money.of(converter.convert(amount, to), to))")),
						// The compaction comes between this call's result and
						// the next request.
						full("", bash("toolu_sbt_api2", "sbt ledger-api/compile", "Recompile ledger-api")),
						{Text: "ledger-api compiles again.", Usage: usageAt(9000), ToolResultFor: "toolu_sbt_api2"},
					},
				},
			}
			after = []turn{
				{Prompt: "great, what's left on my side?", Replies: []fakeapi.Reply{reply("The two open items from the list.", 10000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "LEDG-2207"),
			rx("constraint: scalaVersion pinned", `(?i)(don't|do not|never|not) bump scalaVersion`, `3\.3\.3`),
			rx("constraint: Priya approves dependencies", `(?i)no new libraryDependencies without asking Priya`),
			pipedFailed("piped command: ReconcileSpec run failed", `sbt "ledger-core/testOnly \*ReconcileSpec" 2>&1 \| tail`,
				`(?i)(ReconcileSpec|testOnly)[^\n]{0,200}(fail|TestsFailedException)|1 TEST FAILED|failed 1`),
			rx("failure's cause under the sbt wrapper: missing config key", `ledger\.fx\.rounding-mode`, `(?i)ConfigException|No configuration setting found|(missing|no) (config )?(key|setting|default)`),
			rx("failure fixed: ReconcileSpec passes", `(?i)ReconcileSpec[^\n]{0,160}(pass|exit 0|succeeded|fixed|6 of 6|6/6)`).
				notRx(`(?i)ReconcileSpec[^\n]{0,80}(still fail|unresolved|still broken|still red)`),
			rx("subagent finding: ledger.fx.timeout is guarded by hasPath", `ledger\.fx\.timeout|RatesClient`, `hasPath`),
			lit("file edited: reference.conf", "ledger-core/src/main/resources/reference.conf"),
			lit("decision: HALF_EVEN", "HALF_EVEN rather than HALF_UP"),
			lit("decision's reason: bank statements", "same rounding the bank statements use"),
			rx("decision reversed: property tests run again", `(?i)put them back|Reverted the ignore|property tests (run|running) (again|on every PR)`).
				notRx(`(?i)property tests[^\n]{0,40}(stay|remain|are still|still) (marked )?ignored?\b`),
			rx("file edited: CI timeout 25 minutes", `\.github/workflows/ci\.yml`, `(?i)timeout-minutes:? ?25|25 minutes`),
			rx("failed command: ledger-api type mismatch", `Routes\.scala:88`, `(?i)type mismatch|Required: ledger\.core\.Money`),
			lit("file edited: Routes.scala", "ledger-api/src/main/scala/ledger/api/Routes.scala"),
			lit("late decision: Money.of in Routes", "Money.of in Routes rather than change FxConverter's signature"),
			lit("late decision's reason", "the batch job already depends on the BigDecimal version"),
			lit("open todo 1", "Ask Jonas whether ledger.fx.timeout should get a reference.conf default too"),
			lit("open todo 2", "Add a regression test that loads reference.conf without application.conf"),
		},
	}
}

// blind9RTerse: an R churn analysis for a terse user. The findings are
// numbers (rows kept after cleaning, a p-value, medians), the user answers
// the agent's questions one word at a time, overrules the threshold the
// agent picked, and pastes a warehouse connection string with its
// password; a plot script fails on a missing aesthetic and is fixed.
func blind9RTerse() scenario {
	load := `‹bt›summarise()‹bt› has grouped output by 'plan'. You can override using the ‹bt›.groups‹bt› argument.
── Attaching core tidyverse packages ──────────────────────── tidyverse 2.0.0 ──
✔ dplyr     1.1.4     ✔ readr     2.1.5
✔ forcats   1.0.0     ✔ stringr   1.5.1
✔ ggplot2   3.5.1     ✔ tibble    3.2.1
✔ lubridate 1.9.3     ✔ tidyr     1.3.1
✔ purrr     1.0.2
── Conflicts ────────────────────────────────────────── tidyverse_conflicts() ──
✖ dplyr::filter() masks stats::filter()
✖ dplyr::lag()    masks stats::lag()
Rows: 19006 Columns: 14
── Column specification ────────────────────────────────────────────────────────
Delimiter: ","
chr  (5): account_id, plan, region, csm, source
dbl  (7): seats, mrr, onboarding_days, tickets_30d, logins_30d, churned_90d, churned_180d
lgl  (1): is_trial
date (1): signup_date
rows read:              19006
duplicate account_id:     412
trial accounts:           152
rows after cleaning:    18442
churned_90d = 1:         1571`
	test := `
	Wilcoxon rank sum test with continuity correction

data:  onboarding_days by churned_90d
W = 9866213, p-value = 0.003144
alternative hypothesis: true location shift is not equal to 0

# A tibble: 2 × 4
  churned_90d     n median_days mean_days
        <dbl> <int>       <dbl>     <dbl>
1           0 16871          12      14.2
2           1  1571          19      21.8`
	cutoff := `# A tibble: 6 × 5
  cutoff_days precision recall youden flagged
        <dbl>     <dbl>  <dbl>  <dbl>   <int>
1          10     0.142  0.912  0.214   10087
2          14     0.187  0.781  0.279    6563
3          18     0.231  0.642  0.301    4366
4          21     0.268  0.561  0.312    3288
5          28     0.311  0.377  0.244    1905
6          35     0.352  0.214  0.158     955
best by Youden's J: 21 days (J = 0.312)`
	plotFail := `Error in ‹bt›geom_histogram()‹bt›:
! Problem while computing stat.
ℹ Error occurred in the 1st layer.
Caused by error in ‹bt›setup_params()‹bt›:
! ‹bt›stat_bin()‹bt› requires an x aesthetic.
Backtrace:
    ▆
 1. ├─ggplot2::ggsave("figures/onboarding_by_churn.png", p, width = 7, height = 5)
 2. │ └─ggplot2:::plot_theme(plot)
 3. ├─ggplot2::ggplot_build(p)
 4. │ └─ggplot2:::ggplot_build.ggplot(plot)
 5. │   └─ggplot2:::by_layer(...)
 6. │     ├─rlang::try_fetch(...)
 7. │     │ ├─base::tryCatch(...)
 8. │     │ │ └─base (local) tryCatchList(expr, classes, parentenv, handlers)
 9. │     │ │   └─base (local) tryCatchOne(expr, names, parentenv, handlers[[1L]])
10. │     │ │     └─base (local) doTryCatch(return(expr), name, parentenv, handler)
11. │     │ └─base::withCallingHandlers(...)
12. │     └─ggplot2 (local) f(l = layers[[i]], d = data[[i]])
13. │       └─l$compute_statistic(d, layout)
14. │         └─ggplot2 (local) compute_statistic(..., self = self)
15. │           └─self$stat$setup_params(data, self$stat_params)
16. │             └─ggplot2 (local) setup_params(...)
17. │               └─cli::cli_abort("{.fn {snake_class(self)}} requires an x aesthetic.")
Execution halted`
	rscript := backticks("#!/bin/sh\n# stand-in for Rscript: prints what the churn analysis printed\ncase \"$1\" in\n" +
		"  analysis/01_load.R) cat <<'EOF'\n" + load + "\nEOF\n    ;;\n" +
		"  analysis/02_test.R) cat <<'EOF'\n" + test + "\nEOF\n    ;;\n" +
		"  analysis/03_cutoff.R) cat <<'EOF'\n" + cutoff + "\nEOF\n" +
		"    grep -o 'cutoff_days <- [0-9]*' analysis/03_cutoff.R | sed 's/cutoff_days <- /flag in use: onboarding_days >= /'\n    ;;\n" +
		"  analysis/04_plot.R)\n    if grep -q 'aes(x = onboarding_days' analysis/04_plot.R; then\n      mkdir -p figures && : > figures/onboarding_by_churn.png\n      echo 'Saving 7 x 5 in image'\n      exit 0\n    fi\n    cat <<'EOF' >&2\n" + plotFail + "\nEOF\n    exit 1 ;;\n" +
		"  *) echo \"Fatal error: cannot open file '$1': No such file or directory\" >&2; exit 2 ;;\nesac\n")
	loadR := `library(tidyverse)

raw <- read_csv("data/raw/accounts_2026q3.csv")
cat(sprintf("rows read:              %d\n", nrow(raw)))
accounts <- raw |>
  distinct(account_id, .keep_all = TRUE) |>
  filter(!is_trial)
cat(sprintf("rows after cleaning:    %d\n", nrow(accounts)))
write_rds(accounts, "analysis/cache/accounts_clean.rds")
`
	return scenario{
		Name:    "blind9-r-terse",
		Shape:   "held-out, blind9: R analysis, numeric findings, one-word answers, threshold overruled, terse user",
		Trigger: "auto",
		Files: map[string]string{
			"analysis/01_load.R":           loadR,
			"data/raw/accounts_2026q3.csv": "account_id,plan,region,csm,source,seats,mrr,onboarding_days,tickets_30d,logins_30d,churned_90d,churned_180d,is_trial,signup_date\nA-00001,team,emea,rk,web,5,250,12,0,41,0,0,FALSE,2026-07-01\n",
		},
		Bins:           map[string]string{"Rscript": rscript},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(Rscript:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			testR := "library(tidyverse)\naccounts <- read_rds(\"analysis/cache/accounts_clean.rds\")\nprint(wilcox.test(onboarding_days ~ churned_90d, data = accounts))\naccounts |> group_by(churned_90d) |> summarise(n = n(), median_days = median(onboarding_days), mean_days = mean(onboarding_days))\n"
			cutoffR := "library(tidyverse)\naccounts <- read_rds(\"analysis/cache/accounts_clean.rds\")\ncutoff_days <- 21  # Youden-optimal\nroc <- map_dfr(c(10, 14, 18, 21, 28, 35), \\(k) score_cutoff(accounts, k))\nprint(roc)\n"
			plotR := "library(tidyverse)\naccounts <- read_rds(\"analysis/cache/accounts_clean.rds\")\np <- ggplot(accounts) + geom_histogram(binwidth = 2) + facet_wrap(~churned_90d, ncol = 1)\nggsave(\"figures/onboarding_by_churn.png\", p, width = 7, height = 5)\n"
			before = []turn{
				{
					Prompt: "ANLY-318. does onboarding length predict churn, q3 cohort. data/raw is read-only, don't write there. base R + tidyverse only",
					Replies: []fakeapi.Reply{
						reply("", 9000, read("toolu_read_load", p("analysis/01_load.R"))),
						reply("The loader dedupes on account_id and writes a cache under analysis/cache, not data/raw. Which outcome: churned_90d or churned_180d?", 10000),
					},
				},
				{Prompt: "90d", Replies: []fakeapi.Reply{reply("Trial accounts: exclude them?", 10500)}},
				{
					Prompt: "yes",
					Replies: []fakeapi.Reply{
						reply("", 11500, bash("toolu_r_load", "Rscript analysis/01_load.R", "Load and clean the Q3 accounts")),
						reply("", 13000, write("toolu_write_test", p("analysis/02_test.R"), testR)),
						reply("", 14000, bash("toolu_r_test", "Rscript analysis/02_test.R", "Wilcoxon test of onboarding days by churn")),
						reply("18,442 accounts after dropping 412 duplicates and 152 trials; 1,571 churned within 90 days. Churners took a median 19 days to onboard vs 12 for retained accounts; Wilcoxon rank-sum p = 0.0031.", 15000),
					},
				},
				{
					Prompt: "cutoff for a slow-onboarding flag?",
					Replies: []fakeapi.Reply{
						reply("", 16500, write("toolu_write_cutoff", p("analysis/03_cutoff.R"), cutoffR)),
						reply("", 17500, bash("toolu_r_cutoff", "Rscript analysis/03_cutoff.R", "Score candidate cutoffs")),
						reply("I'll go with a cutoff of 21 days since it maximises Youden's J (0.312): precision 0.268, recall 0.561, 3,288 accounts flagged.", 18500),
					},
				},
				{
					Prompt: "no. 14. ops can only act in the first two weeks",
					Replies: []fakeapi.Reply{
						reply("", 19500, edit("toolu_edit_cutoff", p("analysis/03_cutoff.R"), "cutoff_days <- 21  # Youden-optimal", "cutoff_days <- 14  # ops can only act in the first two weeks")),
						reply("", 20500, bash("toolu_r_cutoff2", "Rscript analysis/03_cutoff.R", "Rescore with the 14-day cutoff")),
						reply("Cutoff is 14 days now: recall 0.781, precision 0.187, 6,563 accounts flagged. Noted in the script that it's an ops constraint, not the statistical optimum.", 21000),
					},
				},
				{
					Prompt: "plot",
					Replies: []fakeapi.Reply{
						reply("", 22000, write("toolu_write_plot", p("analysis/04_plot.R"), plotR)),
						reply("", 23000, bash("toolu_r_plot1", "Rscript analysis/04_plot.R", "Histogram of onboarding days by churn")),
						reply("geom_histogram has no x: the aes() mapping is missing. Adding aes(x = onboarding_days).", 24000,
							edit("toolu_edit_plot", p("analysis/04_plot.R"), "ggplot(accounts) + geom_histogram", "ggplot(accounts, aes(x = onboarding_days)) + geom_histogram")),
						reply("", 25000, bash("toolu_r_plot2", "Rscript analysis/04_plot.R", "Rerun the plot")),
						reply("Plot written to figures/onboarding_by_churn.png.", 25500),
					},
				},
				{
					Prompt: "warehouse for the Q2 comparison: postgres://analyst:Wq8rTz3vLp0Km@wh-prod.internal:5432/bi . don't put it in any script",
					Replies: []fakeapi.Reply{
						// The reply that ends the turn fills the context: the
						// next turn compacts.
						full("Understood: I'll read it from PGPASSWORD in the environment, never from a script. Next is the Q2 comparison. Open question for Dana: does the board deck want the median or the mean onboarding time?"),
					},
				},
			}
			after = []turn{
				{Prompt: "go", Replies: []fakeapi.Reply{reply("Starting the Q2 comparison.", 6000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "ANLY-318"),
			rx("constraint: data/raw read-only", `(?i)data/raw[^\n]{0,40}(read-only|don't write|do not write)`),
			lit("constraint: base R + tidyverse only", "base R + tidyverse only"),
			rx("answer: outcome column churned_90d", `churned_90d|\b90d\b`).
				notRx(`(?i)(→|->)[^\n]{0,20}(churned_)?180d\b|(outcome is|using|use) churned_180d`),
			rx("answer: trial accounts excluded", `(?i)(exclud|drop|remov|without)[^\n]{0,30}trial|trial[^\n]{0,40}(exclud|dropped|removed)|152 trials`).
				notRx(`(?i)(keep|kept|include|including)[^\n]{0,20}trial accounts`),
			rx("finding: 18,442 rows after cleaning", `18,?442`),
			rx("finding: p-value 0.0031", `0\.0031`),
			rx("finding: median 19 vs 12 days", `(?i)(median[^\n]{0,40}19[^\n]{0,40}\b12\b|19 days[^\n]{0,60}\b12\b)`),
			rx("decision: 14-day cutoff", `(?i)(cutoff|threshold|flag)[^\n]{0,40}\b14\b|\b14 days|\b14-day (cutoff|threshold|flag)`).
				notRx(`(?i)(go with|using|use|chose|chosen) a cutoff of 21 days`),
			lit("decision's reason: ops window", "ops can only act in the first two weeks"),
			lit("file edited: 03_cutoff.R", "analysis/03_cutoff.R"),
			rx("failed command: plot script", `(?i)04_plot\.R[^\n]{0,120}(exit (code )?1|fail|error)`),
			rx("failure's cause: no x aesthetic", `(?i)requires an x aesthetic|aes\(x = onboarding_days`),
			rx("failure fixed: plot written", `figures/onboarding_by_churn\.png|(?i)04_plot\.R[^\n]{0,120}(exit 0|fixed|succeeded|passes)`).
				notRx(`(?i)04_plot\.R[^\n]{0,80}(still fail|unresolved|still broken)`),
			lit("next step: Q2 comparison", "Q2 comparison"),
			rx("open thread: ask Dana median or mean", `(?i)Dana[^\n]{0,80}(median|mean)`),
		},
		Secrets: []secret{{"Postgres password in a connection URL (user prompt)", "Wq8rTz3vLp0Km"}},
	}
}

// blind9NixTwice: a Nix flake with a Go package (buildGoModule) and a C
// package built with Meson, for a user who writes lists. A vendorHash
// mismatch and a missing liburing are fixed, `nix flake check` is left
// failing on a real test, the TodoWrite list is rewritten four times (an
// item added, one dropped at the user's word), and the session compacts
// twice in a row: the user's one turn between the two adds a constraint.
func blind9NixTwice() scenario {
	hashFail := `tracerctl-go-modules> Running phase: unpackPhase
tracerctl-go-modules> unpacking source archive /nix/store/0c5fz1xq3k0b7mrs0n3a9h1yj2i4lw6d-source
tracerctl-go-modules> Running phase: patchPhase
tracerctl-go-modules> Running phase: updateAutotoolsGnuConfigScriptsPhase
tracerctl-go-modules> Running phase: configurePhase
tracerctl-go-modules> Running phase: buildPhase
tracerctl-go-modules> go: downloading github.com/spf13/cobra v1.8.1
tracerctl-go-modules> go: downloading github.com/spf13/pflag v1.0.5
tracerctl-go-modules> go: downloading golang.org/x/sys v0.22.0
tracerctl-go-modules> go: downloading github.com/cilium/ebpf v0.16.0
tracerctl-go-modules> Running phase: installPhase
error: hash mismatch in fixed-output derivation '/nix/store/4k2wq9s1d7l0n8xv3yb5c6m2r1t0p9hj-tracerctl-0.7.2-go-modules.drv':
         specified: sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=
            got:    sha256-q1Vx3ZsL8yKc0mN4pR7tW2bF9dH6jE5gA0uI3oY8sKc=
error: 1 dependencies of derivation '/nix/store/9zq1m4n7b2v5c8x0z3l6k9j1h4g7f0d2-tracerctl-0.7.2.drv' failed to build`
	mesonFail := `tracer> Running phase: unpackPhase
tracer> unpacking source archive /nix/store/8ya3bq0cz7m1x5v9n2l4k6j8h0g2f4d6-source
tracer> Running phase: patchPhase
tracer> Running phase: configurePhase
tracer> mesonConfigurePhase flags: --prefix=/nix/store/r2x8...-tracer-0.7.2 --libdir=/nix/store/r2x8...-tracer-0.7.2/lib --buildtype=plain --wrap-mode=nodownload
tracer> The Meson build system
tracer> Version: 1.4.1
tracer> Source dir: /build/source
tracer> Build dir: /build/source/build
tracer> Build type: native build
tracer> Project name: tracer
tracer> Project version: 0.7.2
tracer> C compiler for the host machine: gcc (gcc 13.2.0 "gcc (GCC) 13.2.0")
tracer> C linker for the host machine: gcc ld.bfd 2.41
tracer> Host machine cpu family: x86_64
tracer> Host machine cpu: x86_64
tracer> Found pkg-config: NO
tracer> Found CMake: NO
tracer> Run-time dependency liburing found: NO (tried pkgconfig and cmake)
tracer>
tracer> meson.build:19:12: ERROR: Dependency "liburing" not found, tried pkgconfig and cmake
tracer>
tracer> A full log can be found at /build/source/build/meson-logs/meson-log.txt
error: builder for '/nix/store/h7d2k9m1x4c6v8b0n3l5j7g9f1s3a5q7-tracer-0.7.2.drv' failed with exit code 1;
       last 10 log lines:
       > Host machine cpu: x86_64
       > Found pkg-config: NO
       > Found CMake: NO
       > Run-time dependency liburing found: NO (tried pkgconfig and cmake)
       >
       > meson.build:19:12: ERROR: Dependency "liburing" not found, tried pkgconfig and cmake
       >
       > A full log can be found at /build/source/build/meson-logs/meson-log.txt
       For full logs, run 'nix log /nix/store/h7d2k9m1x4c6v8b0n3l5j7g9f1s3a5q7-tracer-0.7.2.drv'.`
	checkFail := `warning: unknown flake output 'nixosModule'
checking flake output 'packages'...
checking derivation packages.x86_64-linux.tracer...
checking derivation packages.x86_64-linux.tracerctl...
checking flake output 'checks'...
checking derivation checks.x86_64-linux.tracer-tests...
error: builder for '/nix/store/c1v3b5n7m9k2j4h6g8f0d2s4a6q8w0e2-tracer-tests-0.7.2.drv' failed with exit code 2;
       last 10 log lines:
       > ninja: Entering directory '/build/source/build'
       > 1/3 tracer:ring / ring_init          OK     0.01s
       > 2/3 tracer:ring / ring_wraparound    FAIL   0.02s   exit status 1
       > # tracer_test.c:88: expected head == 0, got 4096
       > 3/3 tracer:ring / ring_drain         OK     0.01s
       > Ok:                 2
       > Fail:               1
       > Full log written to /build/source/build/meson-logs/testlog.txt
       For full logs, run 'nix log /nix/store/c1v3b5n7m9k2j4h6g8f0d2s4a6q8w0e2-tracer-tests-0.7.2.drv'.`
	nix := "#!/bin/sh\n# stand-in for nix: prints what the flake's builds printed\ncase \"$*\" in\n" +
		"  \"build .#tracerctl -L\")\n    grep -q 'sha256-q1Vx' flake.nix && exit 0\n    cat <<'EOF' >&2\n" + hashFail + "\nEOF\n    exit 1 ;;\n" +
		"  \"build .#tracer -L\")\n    grep -q 'liburing' flake.nix && grep -q 'pkg-config' flake.nix && exit 0\n    cat <<'EOF' >&2\n" + mesonFail + "\nEOF\n    exit 1 ;;\n" +
		"  \"flake check\"*)\n    cat <<'EOF' >&2\n" + checkFail + "\nEOF\n    exit 1 ;;\n" +
		"  *) echo \"error: unrecognised arguments: $*\" >&2; exit 1 ;;\nesac\n"
	flake := `{
  description = "tracer: io_uring tracing library and its CLI";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-24.05";

  outputs = { self, nixpkgs }:
    let
      pkgs = nixpkgs.legacyPackages.x86_64-linux;
      lib = pkgs.lib;
    in {
      packages.x86_64-linux.tracer = pkgs.stdenv.mkDerivation {
        pname = "tracer";
        version = "0.7.2";
        src = ./.;
        nativeBuildInputs = [ pkgs.meson pkgs.ninja ];
        buildInputs = [ ];
      };

      packages.x86_64-linux.tracerctl = pkgs.buildGoModule {
        pname = "tracerctl";
        version = "0.7.2";
        src = ./cmd/tracerctl;
        vendorHash = lib.fakeHash;
      };

      checks.x86_64-linux.tracer-tests = self.packages.x86_64-linux.tracer.overrideAttrs { doCheck = true; };

      nixosModule = import ./nix/module.nix;
    };
}
`
	return scenario{
		Name:        "blind9-nix-twice",
		Shape:       "held-out, blind9: Nix flake + Meson, two compactions in a row, TodoWrite rewritten four times, user writes lists",
		Compactions: []string{"auto", "auto"},
		Files: map[string]string{
			"flake.nix":                flake,
			"meson.build":              "project('tracer', 'c', version : '0.7.2')\n\nuring = dependency('liburing')\nlib = library('tracer', 'src/ring.c', dependencies : uring)\ntest('ring', executable('tracer_test', 'tests/tracer_test.c', link_with : lib))\n",
			"tests/tracer_test.c":      "#include \"../src/ring.h\"\n/* ring buffer tests; see ring_wraparound at line 88 */\n",
			"cmd/tracerctl/go.mod":     "module github.com/tracer-dev/tracer/cmd/tracerctl\n\ngo 1.22\n",
			"Dockerfile":               "FROM golang:1.22 AS build\nRUN apt-get update && apt-get install -y meson liburing-dev\n",
			".github/workflows/ci.yml": "name: ci\non: [push]\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: docker build .\n",
		},
		Bins:           map[string]string{"nix": nix},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(nix build:*)", "Bash(nix flake check:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			flakePath := filepath.Join(dir, "flake.nix")
			before = []turn{
				{
					Prompt: "INFRA-904\n\nGoal: nix build green for both packages so we can retire the Dockerfile.\n\nRules:\n- do NOT run nix flake update (nixpkgs is pinned to nixos-24.05 on purpose)\n- keep the Meson build, don't port tracer to CMake\n- x86_64-linux only for now",
					Replies: []fakeapi.Reply{
						reply("", 12000, todoWrite("toolu_todo_v1",
							[2]string{"Build tracerctl with nix", "in_progress"},
							[2]string{"Build tracer (Meson) with nix", "pending"},
							[2]string{"Get nix flake check passing", "pending"},
							[2]string{"Push build results to Cachix from CI", "pending"})),
						reply("", 13000, read("toolu_read_flake", flakePath)),
						reply("", 14000, bash("toolu_nix_ctl1", "nix build .#tracerctl -L", "Build tracerctl")),
						reply("vendorHash is still lib.fakeHash, so the go-modules derivation fails with a hash mismatch; nix printed the real hash. Putting it in.", 15500,
							edit("toolu_edit_vendorhash", flakePath, "vendorHash = lib.fakeHash;", "vendorHash = \"sha256-q1Vx3ZsL8yKc0mN4pR7tW2bF9dH6jE5gA0uI3oY8sKc=\";")),
						reply("", 16500, bash("toolu_nix_ctl2", "nix build .#tracerctl -L", "Rebuild tracerctl")),
						reply("", 17000, todoWrite("toolu_todo_v2",
							[2]string{"Build tracerctl with nix", "completed"},
							[2]string{"Build tracer (Meson) with nix", "in_progress"},
							[2]string{"Get nix flake check passing", "pending"},
							[2]string{"Push build results to Cachix from CI", "pending"})),
						reply("tracerctl builds (./result/bin/tracerctl).", 17500),
					},
				},
				{
					Prompt: "next: tracer",
					Replies: []fakeapi.Reply{
						reply("", 19000, bash("toolu_nix_tracer1", "nix build .#tracer -L", "Build tracer")),
						reply("Meson can't find liburing: it isn't in buildInputs, and there is no pkg-config in the build either. I'll add pkgs.liburing to buildInputs and pkg-config to nativeBuildInputs since meson finds it through pkg-config.", 20500,
							edit("toolu_edit_uring", flakePath, "        nativeBuildInputs = [ pkgs.meson pkgs.ninja ];\n        buildInputs = [ ];", "        nativeBuildInputs = [ pkgs.meson pkgs.ninja pkgs.pkg-config ];\n        buildInputs = [ pkgs.liburing ];")),
						reply("", 21500, bash("toolu_nix_tracer2", "nix build .#tracer -L", "Rebuild tracer")),
						reply("", 22000, todoWrite("toolu_todo_v3",
							[2]string{"Build tracerctl with nix", "completed"},
							[2]string{"Build tracer (Meson) with nix", "completed"},
							[2]string{"Get nix flake check passing", "pending"},
							[2]string{"Make tracer's Meson tests run in checkPhase", "pending"},
							[2]string{"Push build results to Cachix from CI", "pending"})),
						reply("tracer builds too. Both packages are green.", 22500),
					},
				},
				{
					Prompt: "two things\n- forget cachix, we're not paying for it\n- run flake check",
					Replies: []fakeapi.Reply{
						reply("", 23500, todoWrite("toolu_todo_v4",
							[2]string{"Build tracerctl with nix", "completed"},
							[2]string{"Build tracer (Meson) with nix", "completed"},
							[2]string{"Get nix flake check passing", "in_progress"},
							[2]string{"Make tracer's Meson tests run in checkPhase", "pending"},
							[2]string{"Replace the Dockerfile's build stage with nix build", "pending"})),
						reply("", 25000, bash("toolu_nix_check", "nix flake check", "Run the flake's checks")),
						// The reply that ends the turn fills the context: the
						// next turn compacts.
						full("nix flake check fails in tracer's own tests: ring_wraparound, tracer_test.c:88 expected head == 0, got 4096. That's a real bug in the ring buffer, not packaging, so I'll ask before touching tracer's C code. (Also a warning: nixosModule is a deprecated output name; nixosModules.default is the current one.)"),
					},
				},
				{
					Prompt: "btw Lena owns the ring buffer code. no changes to tracer_test.c or src/ring.c without her",
					Replies: []fakeapi.Reply{
						full("Understood: I'll leave src/ring.c and tracer_test.c to Lena and write up the ring_wraparound failure for her."),
					},
				},
				{
					Prompt:  "ok where are we",
					Replies: []fakeapi.Reply{reply("Both packages build; flake check waits on Lena.", 8000)},
				},
			}
			return before, nil
		},
		Facts: []fact{
			lit("ticket", "INFRA-904"),
			rx("constraint: no nix flake update", `(?i)(do not|don't|never) run nix flake update`),
			lit("constraint: keep Meson", "don't port tracer to CMake"),
			lit("constraint: x86_64-linux only", "x86_64-linux only"),
			rx("failed command, exit code: nix build tracerctl", `(?i)nix build \.#tracerctl[^\n]{0,120}(exit (code )?1|hash mismatch|fail)`),
			rx("failure fixed: tracerctl builds", `(?i)(nix build \.#tracerctl[^\n]{0,120}(exit 0|succeeded|fixed|passes|ok)|tracerctl builds)`).
				notRx(`(?i)nix build \.#tracerctl[^\n]{0,80}(still fail|unresolved)`),
			rx("failure's cause: liburing not found", `liburing`, `(?i)not found|missing|buildInputs`),
			lit("decision: pkg-config in nativeBuildInputs", "pkg-config to nativeBuildInputs"),
			lit("decision's reason: meson uses pkg-config", "meson finds it through pkg-config"),
			lit("file edited: flake.nix", "flake.nix"),
			pipedFailed("still failing: nix flake check", `nix flake check`, `(?i)nix flake check[^\n]{0,160}(exit (code )?1|fail)`),
			rx("finding: ring_wraparound at tracer_test.c:88", `ring_wraparound`, `tracer_test\.c:88`),
			lit("next step: ask before touching the C code", "ask before touching tracer's C code"),
			lit("open todo 1", "Make tracer's Meson tests run in checkPhase"),
			lit("open todo 2", "Replace the Dockerfile's build stage with nix build"),
			rx("decision reversed: Cachix dropped", `(?i)(forget|drop|dropped|removed|no) cachix|cachix[^\n]{0,60}(dropped|removed|not paying)`).
				notRx(`(?i)(pending|in_progress|in progress|\[ \]|open)[^\n]{0,60}Cachix|Cachix[^\n]{0,40}\((pending|in_progress)\)`),
			rx("constraint: Lena owns the ring buffer", `Lena`, `(?i)tracer_test\.c|src/ring\.c|ring buffer`).from(2),
		},
	}
}

// blind9Goreleaser: a Go CLI release with goreleaser. The user pastes the
// release PR's review thread, whose open questions are addressed to other
// people; the agent asks three questions and gets one-word answers, one
// per turn; goreleaser check and a snapshot release each fail and are
// fixed; the user pastes a tap token that the agent writes into a
// gitignored env file, and the agent reads a Slack webhook URL from a
// script and passes it as a curl argument. Compacted by hand.
func blind9Goreleaser() scenario {
	const (
		tapToken = "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"
		webhook  = "https://hooks.slack.com/services/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"
	)
	checkFail := `  • checking                                 path=.goreleaser.yaml
  ⨯ configuration is invalid                 error=only version: 2 configuration files are supported, yours is version: 0, please update your configuration
  ⨯ .goreleaser.yaml                         error=configuration is invalid: only version: 2 configuration files are supported, yours is version: 0, please update your configuration
  ⨯ check failed                             error=1 out of 1 configuration file(s) have issues`
	checkOK := `  • checking                                 path=.goreleaser.yaml
  • 1 configuration file(s) validated
  • thanks for using goreleaser!`
	snapshotHead := `  • skipping announce, publish and validate...
  • loading                                          path=.goreleaser.yaml
  • loading environment variables
  • getting and validating git state
    • git state                                      commit=3f9c2e1d8a0b7c6e5f4a3b2c1d0e9f8a7b6c5d4e branch=release/1.4 current_tag=v1.3.2 previous_tag=v1.3.1 dirty=true
    • pipe skipped or partially skipped              reason=disabled during snapshot mode
  • parsing tag
  • setting defaults
  • snapshotting
    • building snapshot...                           version=1.3.3-SNAPSHOT-3f9c2e1
  • ensuring distribution directory
  • setting up metadata
  • writing release metadata
  • loading go mod information
  • build prerequisites
  • writing effective config file
    • writing                                        config=dist/config.yaml
  • building binaries`
	snapshotFail := snapshotHead + `
  ⨯ release failed after 3s                         error=failed to build for linux_amd64_v1: template: failed to apply "-s -w -X github.com/ferry-dev/ferry/internal/buildinfo.Version={{.Version}} -X github.com/ferry-dev/ferry/internal/buildinfo.SentryDSN={{ .Env.SENTRY_DSN }}": map has no entry for key "SENTRY_DSN"`
	snapshotOK := snapshotHead + `
    • building                                       binary=dist/ferry_linux_amd64_v1/ferry
    • building                                       binary=dist/ferry_linux_arm64_v8.0/ferry
    • building                                       binary=dist/ferry_darwin_amd64_v1/ferry
    • building                                       binary=dist/ferry_darwin_arm64_v8.0/ferry
    • building                                       binary=dist/ferry_windows_amd64_v1/ferry.exe
    • building                                       binary=dist/ferry_windows_arm64_v8.0/ferry.exe
    • took: 31s
  • archives
    • archiving                                      name=dist/ferry_1.3.3-SNAPSHOT-3f9c2e1_linux_amd64.tar.gz
    • archiving                                      name=dist/ferry_1.3.3-SNAPSHOT-3f9c2e1_linux_arm64.tar.gz
    • archiving                                      name=dist/ferry_1.3.3-SNAPSHOT-3f9c2e1_darwin_amd64.tar.gz
    • archiving                                      name=dist/ferry_1.3.3-SNAPSHOT-3f9c2e1_darwin_arm64.tar.gz
    • archiving                                      name=dist/ferry_1.3.3-SNAPSHOT-3f9c2e1_windows_amd64.zip
    • archiving                                      name=dist/ferry_1.3.3-SNAPSHOT-3f9c2e1_windows_arm64.zip
  • linux packages
    • creating                                       package=ferry format=deb arch=amd64v1 file=dist/ferry_1.3.3~SNAPSHOT-3f9c2e1_amd64.deb
    • creating                                       package=ferry format=rpm arch=amd64v1 file=dist/ferry-1.3.3~SNAPSHOT_3f9c2e1-1.x86_64.rpm
  • calculating checksums
  • storing artifacts metadata
  • release succeeded after 44s
  • thanks for using goreleaser!`
	goreleaser := "#!/bin/sh\n# stand-in for goreleaser v2: prints what the ferry release printed\ncase \"$*\" in\n" +
		"  check)\n    if grep -q '^version: 2' .goreleaser.yaml; then\n      cat <<'EOF'\n" + checkOK + "\nEOF\n      exit 0\n    fi\n    cat <<'EOF' >&2\n" + checkFail + "\nEOF\n    exit 1 ;;\n" +
		"  \"release --snapshot --clean\")\n    if grep -q 'envOrDefault' .goreleaser.yaml; then\n      cat <<'EOF'\n" + snapshotOK + "\nEOF\n      exit 0\n    fi\n    cat <<'EOF' >&2\n" + snapshotFail + "\nEOF\n    exit 1 ;;\n" +
		"  *) echo \"  ⨯ command failed  error=unknown command $*\" >&2; exit 1 ;;\nesac\n"
	curl := "#!/bin/sh\n# stand-in for curl: the webhook answers ok\necho ok\n"
	config := `project_name: ferry

builds:
  - main: ./cmd/ferry
    env: [CGO_ENABLED=0]
    goos: [linux, darwin, windows]
    goarch: [amd64, arm64, arm]
    goarm: ["6", "7"]
    ignore:
      - goos: windows
        goarch: arm64
    ldflags:
      - -s -w -X github.com/ferry-dev/ferry/cmd/ferry.version={{.Version}} -X github.com/ferry-dev/ferry/internal/buildinfo.SentryDSN={{ .Env.SENTRY_DSN }}

nfpms:
  - formats: [deb, rpm]

brews:
  - repository:
      owner: ferry-dev
      name: homebrew-tap
      token: "{{ .Env.HOMEBREW_TAP_GITHUB_TOKEN }}"

changelog:
  sort: asc
  filters:
    exclude:
      - "^docs:"
`
	notify := "#!/bin/sh\n# posts release notes to #ferry-releases\nWEBHOOK_URL=\"" + webhook + "\"\ncurl -sS -X POST -H 'Content-type: application/json' --data \"{\\\"text\\\":\\\"$1\\\"}\" \"$WEBHOOK_URL\"\n"
	thread := `REL-56: cutting ferry v1.4.0 today. Here's the review thread from the release PR (#812), can you go through it?

> **mara-k** commented on .goreleaser.yaml line 18
> Do we still want to ship .deb and .rpm? Last I checked nobody installs the rpm. @tobias-w you own packaging, your call.
>
> **tobias-w** replied
> Not sure yet, I'll pull the download stats on Monday and decide.
>
> **mara-k** commented on .goreleaser.yaml line 12
> The -X path in ldflags is stale since the version moved to internal/buildinfo; ferry --version prints "dev" on the 1.3 builds.
>
> **jun-park** commented
> Is the Homebrew tap still ferry-dev/homebrew-tap or did it move to the ferry-org org? @mara-k do you know?
>
> **jun-park** commented on .goreleaser.yaml line 27
> nit: changelog should skip chore: commits too

Don't tag anything, I push the tag myself. And don't touch the CI workflow, Jun is in the middle of rewriting it.`
	return scenario{
		Name:        "blind9-goreleaser",
		Shape:       "held-out, blind9: Go CLI release, pasted PR review thread, one-word answers, 2 secrets (prompt+file written, file read+command argument), manual /compact",
		Trigger:     "manual",
		CompactArgs: "focus on what is left before the tag",
		Files: map[string]string{
			".goreleaser.yaml":              config,
			".gitignore":                    "dist/\n.env.release\n",
			"scripts/notify.sh":             notify,
			"cmd/ferry/main.go":             "package main\n\nimport \"github.com/ferry-dev/ferry/internal/buildinfo\"\n\nfunc main() { println(buildinfo.Version) }\n",
			"internal/buildinfo/bi.go":      "// Package buildinfo holds what the linker stamps into ferry.\npackage buildinfo\n\n// Version and SentryDSN are set with -X at release time.\nvar (\n\tVersion   = \"dev\"\n\tSentryDSN = \"\"\n)\n",
			".github/workflows/release.yml": "name: release\non:\n  push:\n    tags: ['v*']\njobs:\n  goreleaser:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: goreleaser/goreleaser-action@v6\n",
			"go.mod":                        "module github.com/ferry-dev/ferry\n\ngo 1.23\n",
		},
		Bins:           map[string]string{"goreleaser": goreleaser, "curl": curl},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(goreleaser:*)", "Bash(curl:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			cfg := p(".goreleaser.yaml")
			before = []turn{
				{
					Prompt: thread,
					Replies: []fakeapi.Reply{
						reply("", 15000, read("toolu_read_cfg", cfg)),
						reply("", 16000, bash("toolu_gr_check1", "goreleaser check", "Validate the goreleaser config")),
						reply("goreleaser check fails before anything else: the file has no version key, and goreleaser v2 only accepts version: 2. Adding it, then the two review fixes that are ours to make: mara's stale -X path and jun's chore: filter.", 17500,
							edit("toolu_edit_version", cfg, "project_name: ferry\n", "version: 2\n\nproject_name: ferry\n")),
						reply("", 18500, edit("toolu_edit_ldflags", cfg,
							"-X github.com/ferry-dev/ferry/cmd/ferry.version={{.Version}}", "-X github.com/ferry-dev/ferry/internal/buildinfo.Version={{.Version}}")),
						reply("", 19000, edit("toolu_edit_changelog", cfg, "      - \"^docs:\"\n", "      - \"^docs:\"\n      - \"^chore:\"\n")),
						reply("", 20000, bash("toolu_gr_check2", "goreleaser check", "Validate again")),
						reply("The config validates now. The ldflags stamp internal/buildinfo.Version, and the changelog skips chore: commits. A few questions before the snapshot build. First: keep the 32-bit arm builds (armv6/armv7)?", 21000),
					},
				},
				{
					Prompt: "no",
					Replies: []fakeapi.Reply{
						reply("", 22000, edit("toolu_edit_arm", cfg, "    goarch: [amd64, arm64, arm]\n    goarm: [\"6\", \"7\"]\n", "    goarch: [amd64, arm64]\n")),
						reply("Dropped the 32-bit arm builds. Next: ship windows/arm64? The config ignores it today.", 22500),
					},
				},
				{
					Prompt: "yes",
					Replies: []fakeapi.Reply{
						reply("", 23500, edit("toolu_edit_winarm", cfg, "    ignore:\n      - goos: windows\n        goarch: arm64\n", "")),
						reply("windows/arm64 is in. Last one: sign the checksums with cosign for this release?", 24000),
					},
				},
				{
					Prompt:  "later",
					Replies: []fakeapi.Reply{reply("OK, no cosign signing for v1.4.0; I'll leave it as a follow-up.", 24500)},
				},
				{
					Prompt: "snapshot build pls",
					Replies: []fakeapi.Reply{
						reply("", 26000, bash("toolu_gr_snap1", "goreleaser release --snapshot --clean", "Snapshot release")),
						reply("The snapshot fails while templating ldflags: .Env.SENTRY_DSN isn't set. I'll use {{ envOrDefault \"SENTRY_DSN\" \"\" }} rather than require the variable, since snapshot builds on laptops shouldn't need the release secrets; the release workflow still sets it.", 27500,
							edit("toolu_edit_sentry", cfg, "{{ .Env.SENTRY_DSN }}", "{{ envOrDefault \"SENTRY_DSN\" \"\" }}")),
						reply("", 29000, bash("toolu_gr_snap2", "goreleaser release --snapshot --clean", "Snapshot release again")),
						reply("Snapshot release succeeded: six archives, a .deb and an .rpm, in dist/.", 30000),
					},
				},
				{
					Prompt: "tap token for the brew step, put it in .env.release (gitignored): HOMEBREW_TAP_GITHUB_TOKEN=" + tapToken + "\nand ping #ferry-releases that the snapshot is good",
					Replies: []fakeapi.Reply{
						reply("", 31000, write("toolu_write_env", p(".env.release"), "HOMEBREW_TAP_GITHUB_TOKEN="+tapToken+"\n")),
						reply("", 32000, read("toolu_read_notify", p("scripts/notify.sh"))),
						reply("", 33000, bash("toolu_curl_slack",
							"curl -sS -X POST -H 'Content-type: application/json' --data '{\"text\":\"ferry v1.4.0 snapshot built OK (goreleaser --snapshot)\"}' "+webhook,
							"Post to #ferry-releases")),
						reply("The token is in .env.release (gitignored) and #ferry-releases has the note.", 33500),
					},
				},
				{
					Prompt:  "what's still open from the thread? for the PR description",
					Replies: []fakeapi.Reply{reply("Open, waiting on others:\n- @tobias-w: keep shipping .deb and .rpm? He decides Monday after the download stats.\n- @mara-k: is the Homebrew tap still ferry-dev/homebrew-tap, or did it move to ferry-org? (jun's question)\nDone: the stale ldflags path (mara) and the chore: changelog filter (jun).\nFollow-up: cosign signing of checksums, after v1.4.0.", 34500)},
				},
			}
			after = []turn{
				{Prompt: "ok next", Replies: []fakeapi.Reply{reply("Waiting on the two answers before the tag.", 6000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "REL-56"),
			lit("ticket: release version", "v1.4.0"),
			rx("constraint: user pushes the tag", `(?i)(don't|do not|never) tag anything|I push the tag myself`),
			lit("constraint: CI workflow", "don't touch the CI workflow"),
			rx("failed command, exit code: goreleaser check", `(?i)goreleaser check[^\n]{0,120}(exit (code )?1|fail|invalid)`),
			lit("failure's cause: config version", "only version: 2 configuration files are supported"),
			rx("failure fixed: goreleaser check", `(?i)goreleaser check[^\n]{0,120}(exit 0|valid|pass|succeeded|fixed)`).
				notRx(`(?i)goreleaser check[^\n]{0,80}(still fail|unresolved)`),
			lit("file edited: .goreleaser.yaml", ".goreleaser.yaml"),
			lit("review fix: ldflags path", "internal/buildinfo.Version"),
			rx("answer: 32-bit arm dropped", `(?i)((drop|dropped|remov|no)[^\n]{0,40}(32-bit arm|armv?6|armv?7|goarm)|(32-bit arm|armv6|goarm)[^\n]{0,40}(\bno\b|dropped|removed))`).
				notRx(`(?i)(32-bit arm|goarm|armv6)[^\n]{0,60}(→|->|:|=)\s*(yes|kept|keep)\b`),
			rx("answer: windows/arm64 shipped", `(?i)windows/arm64[^\n]{0,40}(\byes\b|\bin\b|added|ship|enabled)|(\byes\b|added|ship|enabled)[^\n]{0,40}windows/arm64`).
				notRx(`(?i)windows/arm64[^\n]{0,40}(→|->|:|=)\s*(no|skip|skipped|ignored)\b`),
			rx("open thread: cosign later", `(?i)cosign[^\n]{0,80}(later|follow-up|after v1\.4\.0)|later[^\n]{0,40}cosign`),
			rx("failed command, exit code: snapshot release", `(?i)--snapshot[^\n]{0,160}(exit (code )?1|fail)`, `SENTRY_DSN`),
			lit("decision: envOrDefault for SENTRY_DSN", "envOrDefault"),
			lit("decision's reason: laptops", "snapshot builds on laptops shouldn't need the release secrets"),
			rx("open thread: tobias-w decides deb/rpm", `(?i)tobias[^\n]{0,120}(deb|rpm)|(deb|rpm)[^\n]{0,120}tobias`),
			rx("open thread: mara-k on the Homebrew tap", `(?i)mara[^\n]{0,120}(tap|homebrew)|(tap|homebrew)[^\n]{0,120}mara`),
			lit("file created: .env.release", ".env.release"),
		},
		Secrets: []secret{
			{"GitHub fine-grained token (user prompt, file written)", tapToken},
			{"Slack webhook URL (file read, command argument)", webhook},
		},
	}
}

// TestBlind9WrongClaims checks the set's wrong-claim checks on made-up
// lines: the session's own words in order (a question before its answer,
// a change before its reversal) are no contradiction; the wrong answer or
// the reversed state stated as current is.
func TestBlind9WrongClaims(t *testing.T) {
	facts := map[string]fact{}
	for _, sc := range blind9Scenarios() {
		for _, f := range sc.Facts {
			facts[sc.Name+": "+f.Name] = f
		}
	}
	for _, tc := range []struct {
		fact, text string
		contra     bool
	}{
		{"blind9-r-terse: answer: outcome column churned_90d", "- “Which outcome: churned_90d or churned_180d?” → the user: “90d”", false},
		{"blind9-r-terse: answer: outcome column churned_90d", "- Which outcome? → churned_180d", true},
		{"blind9-r-terse: decision: 14-day cutoff", "- Cutoff is 14 days now: recall 0.781", false},
		{"blind9-r-terse: decision: 14-day cutoff", "- I'll go with a cutoff of 21 days since it maximises Youden's J", true},
		{"blind9-sbt-inturn: decision reversed: property tests run again", "- Done: both property tests are marked ignore.\n- Reverted the ignore: both property tests run again.", false},
		{"blind9-sbt-inturn: decision reversed: property tests run again", "- the two property tests are still ignored", true},
		{"blind9-sbt-inturn: piped command: ReconcileSpec run failed", "- `sbt \"ledger-core/testOnly *ReconcileSpec\" 2>&1 | tail -n 60` → exit 0", true},
		{"blind9-nix-twice: decision reversed: Cachix dropped", "- “forget cachix, we're not paying for it”", false},
		{"blind9-nix-twice: decision reversed: Cachix dropped", "- [pending] Push build results to Cachix from CI", true},
		{"blind9-goreleaser: answer: windows/arm64 shipped", "- windows/arm64: yes", false},
		{"blind9-goreleaser: answer: windows/arm64 shipped", "- windows/arm64 → no", true},
	} {
		t.Run(tc.fact, func(t *testing.T) {
			f, ok := facts[tc.fact]
			if !ok {
				t.Fatalf("no fact %q", tc.fact)
			}
			if got := f.contradicted(tc.text); got != tc.contra {
				t.Errorf("contradicted(%q) = %v, want %v", tc.text, got, tc.contra)
			}
		})
	}
}
