package e2e

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's fourth blind set: four held-out sessions written
// without reading cairn's extraction or restore code (internal/...) nor
// any other scenario's facts, only the bench's harness (its types,
// helpers and the fake). Their first run on their branch is the blind
// measurement; a check was only to be corrected where it could not have
// matched a faithful restore.
//
// Each is a kind of session no other blind one is: a polars/pandas
// metric script whose numbers are measured and compared (two automatic
// compactions), a pnpm + turbo monorepo where a subagent finds a type
// error in one package fixed in another's exported type (a manual
// /compact with the user's own instructions), a production incident with
// a pasted stack trace, a piped migration dry-run that fails and three
// planted secrets (a compaction inside a turn), and a meandering Swift
// session whose user changes their mind twice, with a TodoWrite list and
// three open items said three different ways (a manual /compact, then an
// automatic one).
//
// They run only in the report (TestRecallReport) and are marked
// "held-out, blind4" in its shape column.

// blind4Scenarios are the fourth set of blind scenarios.
func blind4Scenarios() []scenario {
	return []scenario{
		blind4PolarsMetric(),
		blind4TurboMonorepo(),
		blind4OrdersIncident(),
		blind4SwiftMeander(),
	}
}

// blind4PolarsMetric: an analyst's retention metric is too high; the
// cohort double counts users with several signup events. The tests, run
// through `| tail`, print a failure the pipe hides; the user asks to keep
// a column name for a downstream team. Ported to polars after a measured
// comparison, then an automatic compaction; the failing test fixed with a
// decision, a second week measured, a question left to the user, then a
// second automatic compaction.
func blind4PolarsMetric() scenario {
	retention := `"""Weekly d28 retention for the board deck."""
import argparse

import pandas as pd

EVENTS = "data/events.parquet"


def _pct(retained, cohort):
    return round(100 * retained / cohort, 1)


def weekly(week):
    ev = pd.read_parquet(EVENTS)
    signups = ev[(ev.event == "signup") & (ev.iso_week == week)]
    cohort = len(signups)
    active = ev[(ev.event == "session") & (ev.days_since_signup >= 28)]
    retained = signups.user_id.isin(active.user_id).sum()
    return {"week": week, "cohort": cohort, "retained": retained,
            "d28_retained_pct": _pct(retained, cohort)}


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--week", required=True)
    r = weekly(p.parse_args().week)
    print(" ".join(f"{k}={v}" for k, v in r.items()))
`
	py := `#!/bin/sh
# stand-in for the project's python: prints what the session needs
case "$*" in
  "metrics/retention.py --week 2026-W45")
    if grep -qE 'drop_duplicates|n_unique' metrics/retention.py; then
      echo "week=2026-W45 cohort=11482 retained=4156 d28_retained_pct=36.2"
    else
      echo "week=2026-W45 cohort=12904 retained=5394 d28_retained_pct=41.8"
    fi ;;
  "metrics/retention.py --week 2026-W44")
    echo "week=2026-W44 cohort=11207 retained=4023 d28_retained_pct=35.9" ;;
  "-c "*nunique*)
    echo "12904 11482" ;;
  "-m pytest tests -q")
    if grep -q 'return None' metrics/retention.py; then
      echo "............                                                             [100%]"
      echo "12 passed in 1.84s"
      exit 0
    fi
    echo "...........F                                                             [100%]"
    echo "=================================== FAILURES ==================================="
    echo "_______________________________ test_empty_cohort _______________________________"
    echo "    def _pct(retained, cohort):"
    echo ">       return round(100 * retained / cohort, 1)"
    echo "E       ZeroDivisionError: division by zero"
    echo "metrics/retention.py:10: ZeroDivisionError"
    echo "=========================== short test summary info ============================"
    echo "FAILED tests/test_retention.py::test_empty_cohort - ZeroDivisionError: division by zero"
    echo "1 failed, 11 passed in 1.91s"
    exit 1 ;;
  "scripts/bench_retention.py --year 2026")
    echo "engine   wall     peak RSS"
    echo "pandas   94.2 s   11.3 GB"
    echo "polars    7.8 s    1.4 GB   (scan_parquet, lazy)" ;;
  "metrics/compare_weeks.py 2026-W44 2026-W45")
    echo "2026-W44  d28_retained_pct=35.9"
    echo "2026-W45  d28_retained_pct=36.2"
    echo "delta     +0.3 pp" ;;
  *)
    echo "python stand-in: unexpected arguments: $*" >&2
    exit 2 ;;
esac
`
	sc := scenario{
		Name:        "blind4-polars-metric",
		Shape:       "held-out, blind4: Python metric script (pandas to polars), numbers measured, pytest piped to tail hiding a failure; auto, then auto",
		Compactions: []string{"auto", "auto"},
		Files: map[string]string{
			"metrics/retention.py":    retention,
			"tests/test_retention.py": "from metrics.retention import _pct\n\n\ndef test_pct():\n    assert _pct(1, 4) == 25.0\n\n\ndef test_empty_cohort():\n    assert _pct(0, 0) is None\n",
			"pyproject.toml":          "[project]\nname = \"board-metrics\"\nversion = \"0.9.0\"\ndependencies = [\"pandas>=2.2\", \"polars>=1.9\", \"pyarrow\"]\n",
		},
		Bins:           map[string]string{"python": py},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(python:*)", "Bash(tail:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			ret := p("metrics/retention.py")
			bench := "\"\"\"Times the d28 retention over a whole year with each engine.\"\"\"\nimport time\nimport resource\n\n# run: python scripts/bench_retention.py --year 2026\n"
			compare := "\"\"\"Prints d28 retention for two ISO weeks and the difference.\"\"\"\nimport sys\n\nfrom metrics.retention import weekly\n\na, b = sys.argv[1], sys.argv[2]\nra, rb = weekly(a), weekly(b)\nprint(f\"{a}  d28_retained_pct={ra['d28_retained_pct']}\")\nprint(f\"{b}  d28_retained_pct={rb['d28_retained_pct']}\")\nprint(f\"delta     {rb['d28_retained_pct'] - ra['d28_retained_pct']:+.1f} pp\")\n"
			before = []turn{
				{
					Prompt: "hey! so the weekly retention figure in the board deck looks off to me (that's ANL-3307 on the tracker). " +
						"The deck says 41.8% for W45 but the warehouse dashboard has it somewhere around 36. Could you take a look at metrics/retention.py? " +
						"One thing that really matters: the output column is called d28_retained_pct and it has to stay called exactly that, " +
						"the finance team's Looker dashboard reads it by name and they'd be very unhappy if it vanished.",
					Replies: []fakeapi.Reply{
						reply("Let me reproduce the number first.", 14000, read("toolu_pm_read", ret)),
						reply("", 15000, bash("toolu_pm_run1", "python metrics/retention.py --week 2026-W45", "Compute W45 retention as the deck does")),
						reply("Same 41.8 as the deck. The cohort is len(signups), i.e. signup *events*. Checking whether users sign up more than once:", 16000,
							bash("toolu_pm_dupes", "python -c \"import pandas as pd; ev = pd.read_parquet('data/events.parquet'); s = ev[(ev.event == 'signup') & (ev.iso_week == '2026-W45')]; print(len(s), s.user_id.nunique())\"", "Count signup events vs distinct users")),
						reply("That's it: 12,904 signup events but only 11,482 distinct users — 1,422 people signed up twice (re-installs), and each duplicate inflates the ratio because a returning re-installer is almost always retained. "+
							"I'll count the cohort on distinct user_id (drop_duplicates on user_id before the join) instead of raw events.", 17000,
							edit("toolu_pm_fix", ret, "    cohort = len(signups)\n", "    signups = signups.drop_duplicates(\"user_id\")\n    cohort = len(signups)\n")),
						reply("", 18000, bash("toolu_pm_run2", "python metrics/retention.py --week 2026-W45", "Recompute W45 retention")),
						reply("", 19000, bash("toolu_pm_tests", "python -m pytest tests -q 2>&1 | tail -5", "Run the metric tests")),
						reply("W45 now comes out at 36.2%, within a couple of tenths of the warehouse. The column name is untouched.\n\n"+
							"The test run isn't clean though: test_empty_cohort dies with a ZeroDivisionError in _pct when a week has no signups. That's older than my change; I'd like to handle it after we settle the engine question.", 20000),
					},
				},
				{
					Prompt: "ooh nice catch on the re-installs. While you're in there — should we move the whole thing to polars? pandas takes ages when I run it over the full year, my laptop fan sounds like a jet engine",
					Replies: []fakeapi.Reply{
						reply("Worth measuring before deciding. A small timing script:", 21000, write("toolu_pm_bench", p("scripts/bench_retention.py"), bench)),
						reply("", 21500, read("toolu_pm_read_port", ret)),
						reply("", 22000, bash("toolu_pm_bench_run", "python scripts/bench_retention.py --year 2026", "Time pandas vs polars over 2026")),
						reply("Over the full year pandas takes 94.2 s and peaks at 11.3 GB of RSS; polars with a lazy scan_parquet does it in 7.8 s at 1.4 GB. "+
							"I'm porting retention.py to polars (lazy scan) mainly for the memory: 11.3 GB doesn't fit on the 8 GB CI runners at all, the speed is a bonus.", 23000,
							edit("toolu_pm_port1", ret, "import pandas as pd\n", "import polars as pl\n")),
						reply("", 24000, edit("toolu_pm_port2", ret,
							"    ev = pd.read_parquet(EVENTS)\n    signups = ev[(ev.event == \"signup\") & (ev.iso_week == week)]\n    signups = signups.drop_duplicates(\"user_id\")\n    cohort = len(signups)\n    active = ev[(ev.event == \"session\") & (ev.days_since_signup >= 28)]\n    retained = signups.user_id.isin(active.user_id).sum()\n",
							"    ev = pl.scan_parquet(EVENTS)\n    signups = ev.filter((pl.col(\"event\") == \"signup\") & (pl.col(\"iso_week\") == week))\n    cohort = signups.select(pl.col(\"user_id\").n_unique()).collect().item()\n    active = ev.filter((pl.col(\"event\") == \"session\") & (pl.col(\"days_since_signup\") >= 28))\n    retained = (signups.join(active, on=\"user_id\", how=\"semi\")\n                .select(pl.col(\"user_id\").n_unique()).collect().item())\n")),
						reply("", 25000, bash("toolu_pm_run3", "python metrics/retention.py --week 2026-W45", "Check the polars port gives the same W45 figure")),
						full("The polars version gives the same W45 figure as the fixed pandas one."),
					},
				},
				{
					Prompt: "right, where were we. can you sort out that broken test now, and then compare W44 against W45? " +
						"Oh and please don't commit anything under data/, the sample parquet has real customer ids in it.",
					Replies: []fakeapi.Reply{
						reply("", 8000, read("toolu_pm_read2", ret)),
						reply("For an empty week _pct will return None instead of 0.0: a 0 would land on the dashboard looking like total churn for that week, while None shows as a gap.", 9000,
							edit("toolu_pm_none", ret, "def _pct(retained, cohort):\n    return round(", "def _pct(retained, cohort):\n    if cohort == 0:\n        return None\n    return round(")),
						reply("", 10000, bash("toolu_pm_tests2", "python -m pytest tests -q", "Rerun the metric tests")),
						reply("All 12 pass. Now the week-on-week comparison:", 11000, write("toolu_pm_cmp", p("metrics/compare_weeks.py"), compare)),
						reply("", 12000, bash("toolu_pm_cmp_run", "python metrics/compare_weeks.py 2026-W44 2026-W45", "Compare W44 and W45")),
						reply("W44 was 35.9% and W45 is 36.2%, so +0.3 points week on week — nothing dramatic once the duplicates are gone. Nothing under data/ is staged.", 13000),
					},
				},
				{
					Prompt: "lovely. anything stopping me from opening the PR?",
					Replies: []fakeapi.Reply{
						reply("One thing I can't decide for you: does finance want d28_retained_pct on a 0–100 scale (what the script prints today, e.g. 36.2) or as a 0–1 fraction (0.362)? "+
							"Their Looker tile might be doing its own ×100. I'd rather not open the PR until we know.", 14000),
					},
				},
				{
					Prompt: "hmm good point, I'll ask Joanna in finance tomorrow morning. park it for now",
					Replies: []fakeapi.Reply{
						full("Parked — nothing more to do on this until you hear back."),
					},
				},
			}
			after = []turn{
				{Prompt: "morning! picking this back up", Replies: []fakeapi.Reply{reply("Morning — picking up where we left off.", 6000)}},
				{Prompt: "no answer from joanna yet, let's wait", Replies: []fakeapi.Reply{reply("Fine, waiting.", 6500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "ANL-3307"),
			rx("constraint: d28_retained_pct keeps its name",
				`(?i)d28_retained_pct[^\n]{0,150}(unchanged|keep|renam|by name|same|stay|as.is|exactly)|(keep|unchanged|renam|not change|don't change|same|stay)[^\n]{0,150}d28_retained_pct`),
			lit("file edited: the metric script", "metrics/retention.py"),
			rx("finding: the deck's figure, 41.8%", `41\.8`),
			rx("finding: the fixed figure, 36.2%", `36\.2`),
			rx("finding: 1,422 users signed up twice", `1,?422`),
			rx("decision: count the cohort on distinct users", `(?i)(distinct|unique|dedup|drop_duplicates|n_unique|nunique|duplicate)`),
			pipedFailed("piped command: pytest piped to tail hid test_empty_cohort failing", `python -m pytest tests -q`,
				`(?i)test_empty_cohort|ZeroDivisionError|1 failed`).until(1),
			rx("finding: pandas 94.2 s vs polars 7.8 s", `94\.2`, `\b7\.8\b`),
			rx("decision: polars for the memory, pandas peaked at 11.3 GB", `(?i)polars`, `11\.3`),
			rx("failure fixed: empty cohort test passes", `(?i)(test_empty_cohort|ZeroDivisionError|empty.(cohort|week))[^\n]{0,200}(fix|pass|resolv|None)|(fix|pass|resolv)[^\n]{0,100}(test_empty_cohort|ZeroDivisionError|empty.(cohort|week))|12 passed`).from(2),
			rx("decision: None rather than 0.0, a 0 reads as total churn", `(?i)\b(None|null)\b`, `(?i)churn`).from(2),
			lit("file created: metrics/compare_weeks.py", "metrics/compare_weeks.py").from(2),
			rx("finding: W44 was 35.9%", `35\.9`).from(2),
			rx("constraint: nothing under data/ committed", `(?i)commit[^\n]{0,100}data/|data/[^\n]{0,100}commit`).from(2),
			rx("open thread: 0-100 scale or 0-1 fraction, asked of the user", `(?i)\b0\s*(-|–|to|\.\.)\s*100\b`, `(?i)\b0\s*(-|–|to|\.\.)\s*1\b|fraction`).from(2),
		},
	}
	return sc
}

// blind4TurboMonorepo: a terse user, a pnpm + turbo workspace. A
// subagent runs the typecheck and finds the error in apps/checkout; it is
// fixed in packages/money's exported type (a decision with a reason), a
// README read says the schema must be regenerated, lint fails on a rule
// the user forbids disabling, a question answered by the user, a next
// step; then /compact with the user's own instructions.
func blind4TurboMonorepo() scenario {
	money := "export type CurrencyCode = \"EUR\" | \"GBP\" | \"USD\" | \"SEK\";\n\nexport type Price = {\n  amount: number;\n};\n\nexport function formatPrice(p: Price, locale = \"en-GB\"): string {\n  return new Intl.NumberFormat(locale).format(p.amount / 100);\n}\n"
	summary := "import { formatPrice, type Price } from \"@acme/money\";\n\ntype Props = { price?: Price; label: string };\n\nexport function Summary({ price, label }: Props) {\n  const p = price!;\n  return (\n    <dl>\n      <dt>{label}</dt>\n      <dd>{formatPrice(p)} {p.currency}</dd>\n    </dl>\n  );\n}\n"
	readme := "# @acme/money\n\nMoney types shared by every app.\n\n## Changing a type\n\n`Price` is also consumed by payments-service through a generated JSON schema.\n" +
		"Whenever you change `Price` (or anything it references), regenerate the schema with `pnpm gen:schema`\n" +
		"and commit `schema/price.json` in the same change, or payments-service's contract test fails on the next deploy.\n"
	pnpm := `#!/bin/sh
# stand-in for pnpm in this workspace
case "$*" in
  "turbo run typecheck"*)
    if grep -q 'currency: CurrencyCode' packages/money/src/index.ts; then
      echo "@acme/checkout:typecheck: > tsc --noEmit"
      echo ""
      echo " Tasks:    7 successful, 7 total"
      echo "Cached:    5 cached, 7 total"
      echo "  Time:    3.214s"
      exit 0
    fi
    echo "@acme/checkout:typecheck: > tsc --noEmit"
    echo "@acme/checkout:typecheck: src/summary.tsx(10,38): error TS2339: Property 'currency' does not exist on type 'Price'."
    echo "@acme/checkout:typecheck: ELIFECYCLE  Command failed with exit code 2."
    echo "@acme/checkout#typecheck: command (apps/checkout) pnpm run typecheck exited (2)"
    echo ""
    echo " Tasks:    6 successful, 7 total"
    echo "Failed:    @acme/checkout#typecheck"
    exit 2 ;;
  "turbo run lint"*)
    if grep -q 'price!' apps/checkout/src/summary.tsx; then
      echo "@acme/checkout:lint: /repo/apps/checkout/src/summary.tsx"
      echo "@acme/checkout:lint:   6:13  error  Forbidden non-null assertion  @typescript-eslint/no-non-null-assertion"
      echo "@acme/checkout:lint: 1 problem (1 error, 0 warnings)"
      echo " Tasks:    6 successful, 7 total"
      echo "Failed:    @acme/checkout#lint"
      exit 1
    fi
    echo " Tasks:    7 successful, 7 total"
    exit 0 ;;
  "gen:schema"|"run gen:schema"|"--filter @acme/money gen:schema")
    mkdir -p packages/money/schema
    printf '{"title":"Price","type":"object","required":["amount","currency"]}\n' > packages/money/schema/price.json
    echo "> @acme/money gen:schema"
    echo "wrote packages/money/schema/price.json (Price: amount, currency)"
    exit 0 ;;
  *)
    echo "pnpm stand-in: unexpected arguments: $*" >&2
    exit 1 ;;
esac
`
	subPrompt := "Run the workspace typecheck (pnpm turbo run typecheck --continue) from the repo root and tell me exactly which package, file, line and TS error code fails, and where the type involved is exported from. Do not edit anything."
	sc := scenario{
		Name:        "blind4-turbo-monorepo",
		Shape:       "held-out, blind4: pnpm + turbo monorepo, subagent typecheck, fix in another package's exported type, lint rule not to be disabled; manual /compact with the user's instructions",
		Trigger:     "manual",
		CompactArgs: "focus on where we are with the checkout thing, skip the back and forth",
		Files: map[string]string{
			"package.json":                  "{\n  \"name\": \"acme-web\",\n  \"private\": true,\n  \"packageManager\": \"pnpm@9.12.0\",\n  \"devDependencies\": { \"turbo\": \"2.1.3\", \"typescript\": \"5.4.5\" }\n}\n",
			"pnpm-workspace.yaml":           "packages:\n  - apps/*\n  - packages/*\n",
			"turbo.json":                    "{\n  \"tasks\": {\n    \"typecheck\": { \"dependsOn\": [\"^typecheck\"] },\n    \"lint\": {}\n  }\n}\n",
			"packages/money/src/index.ts":   money,
			"packages/money/README.md":      readme,
			"apps/checkout/src/summary.tsx": summary,
			"apps/admin/src/prices.tsx":     "import { formatPrice, type Price } from \"@acme/money\";\n\nexport const Cell = ({ p }: { p: Price }) => <td>{formatPrice(p)}</td>;\n",
			".eslintrc.cjs":                 "module.exports = {\n  rules: { \"@typescript-eslint/no-non-null-assertion\": \"error\" },\n};\n",
		},
		Bins:           map[string]string{"pnpm": pnpm},
		AllowedTools:   []string{"Bash(pnpm:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			idx, sum := p("packages/money/src/index.ts"), p("apps/checkout/src/summary.tsx")
			before = []turn{
				{
					Prompt: "CHK-418. checkout typecheck red on main since the money pkg refactor. find out why + fix. " +
						"we're pinned to typescript 5.4 because of the storybook build, don't bump it",
					Replies: []fakeapi.Reply{
						reply("I'll have a subagent run the workspace typecheck while I look at the money package.", 12000,
							agentCall("toolu_tm_agent", "general-purpose", "Typecheck the workspace", subPrompt)),
						{Text: "", Tools: []fakeapi.ToolUse{bash("toolu_tm_sub_tc", "pnpm turbo run typecheck --continue", "Typecheck every package")}, Usage: usageAt(3000), For: "Run the workspace typecheck"},
						{Text: "One task fails, @acme/checkout#typecheck (exit 2):\n\n- apps/checkout/src/summary.tsx line 10, col 38: TS2339, Property 'currency' does not exist on type 'Price'.\n" +
							"- `Price` is exported from packages/money/src/index.ts and only has `amount`; `CurrencyCode` is exported there too but nothing uses it.\n\nThe other 6 tasks pass.", Usage: usageAt(4000), For: "Run the workspace typecheck"},
						reply("", 13000, read("toolu_tm_read_idx", idx)),
						reply("", 14000, read("toolu_tm_read_readme", p("packages/money/README.md"))),
						reply("The refactor dropped `currency` from `Price`. I'm putting it back as a required field, `currency: CurrencyCode`, not an optional one: "+
							"optional would force a `?? \"EUR\"` fallback into 11 call sites across the apps, and a silent EUR default is exactly the kind of bug this type exists to stop.", 15000,
							edit("toolu_tm_edit_idx", idx, "  amount: number;\n};", "  amount: number;\n  currency: CurrencyCode;\n};")),
						reply("", 16000, bash("toolu_tm_tc", "pnpm turbo run typecheck", "Typecheck the workspace again")),
						reply("The money README says any change to Price needs the schema regenerated for payments-service, so:", 17000,
							bash("toolu_tm_schema", "pnpm --filter @acme/money gen:schema", "Regenerate the Price JSON schema")),
						reply("Typecheck is green (7/7) and schema/price.json now lists currency as required.", 18000),
					},
				},
				{
					Prompt: "lint too pls",
					Replies: []fakeapi.Reply{
						reply("", 19000, bash("toolu_tm_lint1", "pnpm turbo run lint", "Lint the workspace")),
						reply("Lint fails: summary.tsx line 6 uses a non-null assertion (`price!`). Quickest is an eslint-disable-next-line on that line; or I can restructure the component. Which do you prefer?", 20000),
					},
				},
				{
					Prompt: "no. don't disable no-non-null-assertion, not per line, not in the eslintrc, nowhere. fix the code",
					Replies: []fakeapi.Reply{
						reply("", 21000, read("toolu_tm_read_sum", sum)),
						reply("Replacing the assertion with an early return when there's no price.", 22000,
							edit("toolu_tm_edit_sum", sum, "  const p = price!;\n", "  if (!price) return null;\n  const p = price;\n")),
						reply("", 23000, bash("toolu_tm_lint2", "pnpm turbo run lint", "Lint again")),
						reply("Lint is clean now. apps/admin renders prices too (prices.tsx) — should it start showing the currency in this change as well?", 24000),
					},
				},
				{
					Prompt: "leave admin alone until after thursday's release",
					Replies: []fakeapi.Reply{
						reply("OK, admin stays as it is until after Thursday's release. What's left here is a changeset for @acme/money — a minor bump, since Price gained a required field — and then the PR.", 25000),
					},
				},
				{
					Prompt: "k. how long does the full typecheck take now",
					Replies: []fakeapi.Reply{
						reply("About 3 seconds warm; most of the packages come out of turbo's cache.", 26000),
					},
				},
			}
			after = []turn{
				{Prompt: "ok go on", Replies: []fakeapi.Reply{reply("Going on.", 5000)}},
				{Prompt: "and after that?", Replies: []fakeapi.Reply{reply("Then the PR.", 5500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "CHK-418"),
			rx("constraint: TypeScript stays on 5.4", `(?i)(typescript|\bTS\b)[^\n]{0,80}5\.4|5\.4[^\n]{0,80}(typescript|storybook)`),
			rx("constraint: never disable no-non-null-assertion",
				`(?i)(disabl|eslint-disable|turn(ing)? off|switch(ing)? off)[^\n]{0,120}no-non-null-assertion|no-non-null-assertion[^\n]{0,120}(disabl|eslint-disable|turn(ing)? off|switch(ing)? off)`),
			rx("subagent finding: TS2339 in apps/checkout/src/summary.tsx", `TS2339|'?currency'? does not exist`, `summary\.tsx`),
			lit("file edited: packages/money/src/index.ts", "packages/money/src/index.ts"),
			lit("file edited: apps/checkout/src/summary.tsx", "apps/checkout/src/summary.tsx"),
			rx("failure fixed: typecheck", `(?i)typecheck[^\n]{0,200}(pass|fixed|succe|green|clean|7 successful|7/7|exit 0)`),
			rx("failure fixed: lint", `(?i)turbo run lint[^\n]{0,200}(pass|fixed|succe|green|clean|exit 0)|lint[^\n]{0,20}(now )?(passes|clean|green)`),
			rx("decision: currency required on Price, not optional", `(?i)currency[^\n]{0,200}(required|optional)|(required|optional)[^\n]{0,200}currency`),
			rx("decision's reason: 11 call sites", `(?i)\b(11|eleven)\b[^\n]{0,20}(call.sites|callers|places|usages)`),
			rx("key file read: README says regenerate the schema (gen:schema)", `gen:schema`),
			rx("open thread: apps/admin waits for Thursday's release", `apps/admin|\badmin\b`, `(?i)thursday`),
			rx("next step: changeset for @acme/money", `(?i)changeset[^\n]{0,120}(money|minor)|(money|minor)[^\n]{0,120}changeset`),
		},
	}
	return sc
}

// blind4OrdersIncident: a production incident. The user pastes a stack
// trace with the database URL (password and all); the agent greps the
// service log (which dumps cloud keys at boot), counts the errors, runs a
// migration dry-run through `| tee` that fails on a lock timeout the pipe
// hides, finds the autovacuum holding the table with psql (password on
// the command line), decides on the maintenance window and notes a
// rollback; the user's constraints; the mitigation flag is applied and
// the compaction happens inside that turn.
func blind4OrdersIncident() scenario {
	const (
		dbPass    = "Qm7vR2tLx9Pz4Kd8"
		awsKeyID  = "AKIA5BLIND4INCIDENT7"
		awsSecret = "h3Kq9ZpT7vLm2Xc8Rb5Nw1Yd6Fs4Ga0JeUoViTy"
	)
	dbURL := "postgresql://orders_app:" + dbPass + "@orders-db.internal:5432/orders"
	var log strings.Builder
	log.WriteString("2026-11-24T13:58:02Z INFO  boot orders-api 2026.11.24-3 config: region=eu-west-1 s3_bucket=acme-orders-exports aws_access_key_id=" + awsKeyID + " aws_secret_access_key=" + awsSecret + " db_pool=20\n")
	log.WriteString("2026-11-24T13:58:03Z INFO  migrations: 0086 applied, 0087_add_fulfilment_sla skipped (MIGRATE_ON_BOOT=false)\n")
	for i := 0; i < 1284; i++ {
		sec := 17 + i*2
		ts := fmt.Sprintf("2026-11-24T%02d:%02d:%02dZ", 14+sec/3600, 2+(sec%3600)/60%58, sec%60)
		fmt.Fprintf(&log, "%s ERROR GET /v1/orders/%d 500 psycopg2.errors.UndefinedColumn: column orders.fulfilment_sla does not exist\n", ts, 880100+i*7)
		if i%9 == 0 {
			fmt.Fprintf(&log, "%s INFO  GET /healthz 200\n", ts)
		}
	}
	migrate := `#!/bin/sh
# ops/migrate.sh: runs one numbered migration against orders-db
case "$1 $2" in
  "--dry-run 0087")
    echo "migrate: plan 0087_add_fulfilment_sla: ALTER TABLE orders ADD COLUMN fulfilment_sla interval NOT NULL DEFAULT '48 hours'"
    echo "migrate: SET lock_timeout = '5s'"
    echo "migrate: BEGIN (dry run, will roll back)"
    echo "ERROR:  canceling statement due to lock timeout"
    echo "migrate: could not obtain ACCESS EXCLUSIVE lock on table \"orders\" within 5s; dry run aborted"
    exit 3 ;;
  "--rollback 0087")
    echo "migrate: ALTER TABLE orders DROP COLUMN IF EXISTS fulfilment_sla" ;;
  *)
    echo "usage: ops/migrate.sh --dry-run|--apply|--rollback NNNN" >&2
    exit 64 ;;
esac
`
	psql := `#!/bin/sh
# stand-in for psql against orders-db
echo "  pid  | state  | wait_event_type |   age    | query"
echo "-------+--------+-----------------+----------+----------------------------------------------------------"
echo " 48113 | active |                 | 00:41:07 | autovacuum: VACUUM public.orders (to prevent wraparound)"
echo ' 50277 | idle   | Client          | 00:00:01 | SELECT id, status FROM orders WHERE id = $1'
echo "(2 rows)"
`
	flags := `#!/bin/sh
# ops/flags.sh: pushes config/flags.yaml to the flag service
if [ "$1" = apply ]; then
  echo "flags: orders-api (prod): fulfilment_sla_enabled true -> false"
  echo "flags: applied 1 change, revision 212"
  exit 0
fi
echo "usage: ops/flags.sh apply FILE" >&2
exit 64
`
	errs := `#!/bin/sh
# ops/errors.sh: 5xx counts for orders-api from the log pipeline
echo "orders-api 5xx since $2: 0 (UndefinedColumn: 0); last UndefinedColumn at 14:45:03Z"
`
	sc := scenario{
		Name:        "blind4-orders-incident",
		Shape:       "held-out, blind4: prod incident, pasted stack trace, log grep, migration dry-run piped to tee failing on a lock timeout, rollback noted, 3 secrets; compaction inside a turn",
		Compactions: []string{"in-turn"},
		Files: map[string]string{
			"logs/orders-api.log":                    log.String(),
			"ops/migrate.sh":                         migrate,
			"ops/flags.sh":                           flags,
			"ops/errors.sh":                          errs,
			"config/flags.yaml":                      "orders-api:\n  fulfilment_sla_enabled: true\n  new_checkout_copy: false\n",
			"migrations/0087_add_fulfilment_sla.sql": "ALTER TABLE orders ADD COLUMN fulfilment_sla interval NOT NULL DEFAULT '48 hours';\n",
		},
		Bins:           map[string]string{"psql": psql},
		AllowedTools:   []string{"Bash(grep:*)", "Bash(./ops/migrate.sh:*)", "Bash(./ops/flags.sh:*)", "Bash(./ops/errors.sh:*)", "Bash(tee:*)", "Bash(psql:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			applyID := "toolu_oi_flags_apply"
			before = []turn{
				{
					Prompt: "INC-4471 — orders API is throwing 500s since the 14:00 deploy. Pager's going off. Trace from Sentry:\n\n" +
						"Traceback (most recent call last):\n  File \"/app/orders/api/views.py\", line 212, in get_order\n    order = repo.fetch(order_id)\n" +
						"  File \"/app/orders/repo.py\", line 88, in fetch\n    row = cur.execute(FETCH_SQL, (order_id,)).fetchone()\n" +
						"psycopg2.errors.UndefinedColumn: column orders.fulfilment_sla does not exist\nLINE 1: SELECT id, status, fulfilment_sla FROM orders WHERE id = $1\n\n" +
						"env on the pod: DATABASE_URL=" + dbURL + "\nlogs are in logs/orders-api.log",
					Replies: []fakeapi.Reply{
						reply("", 14000, bash("toolu_oi_grep_boot", "grep -m 4 -n -E 'boot|migrations|ERROR' logs/orders-api.log", "Look at boot and the first errors")),
						reply("", 15000, bash("toolu_oi_grep_count", "grep -c 'UndefinedColumn' logs/orders-api.log", "Count the UndefinedColumn errors")),
						reply("1,284 UndefinedColumn errors since 14:02. The boot log says why: migration 0087_add_fulfilment_sla was skipped (MIGRATE_ON_BOOT=false), but release 2026.11.24-3 already selects the column.", 16000),
					},
				},
				{
					Prompt: "ok. ground rules: nobody restarts the primary, and nothing changes in prod unless Priya signs off in #ops-changes. see if the migration would even go through",
					Replies: []fakeapi.Reply{
						reply("", 17000, bash("toolu_oi_dryrun", "./ops/migrate.sh --dry-run 0087 2>&1 | tee logs/dryrun-0087.log", "Dry-run migration 0087, keeping the output")),
						reply("", 18000, bash("toolu_oi_psql", "psql \""+dbURL+"\" -c \"SELECT pid, state, wait_event_type, now() - xact_start AS age, query FROM pg_stat_activity WHERE datname = 'orders' AND state <> 'idle in transaction' ORDER BY age DESC LIMIT 5\"", "See what holds the orders table")),
						reply("The dry run can't get its ACCESS EXCLUSIVE lock within the 5 s lock_timeout: an anti-wraparound autovacuum (pid 48113) has been running on public.orders for 41 minutes. "+
							"I won't cancel that autovacuum — a wraparound vacuum just restarts from scratch when cancelled, and we'd be closer to wraparound — so 0087 should go in tonight's 02:00 UTC maintenance window, when the vacuum is done and traffic is low. "+
							"If it misbehaves then, the way back is `./ops/migrate.sh --rollback 0087`.", 19000),
					},
				},
				{
					Prompt: "agreed. Priya approved turning the feature flag off in #ops-changes, go ahead and stop the bleeding",
					Replies: []fakeapi.Reply{
						reply("", 20000, read("toolu_oi_read_flags", p("config/flags.yaml"))),
						reply("", 21000, edit("toolu_oi_edit_flags", p("config/flags.yaml"), "  fulfilment_sla_enabled: true\n", "  fulfilment_sla_enabled: false\n")),
						full("", bash(applyID, "./ops/flags.sh apply config/flags.yaml", "Push the flag change")),
						{Tools: []fakeapi.ToolUse{bash("toolu_oi_errors", "./ops/errors.sh --since 5m", "Check the 5xx rate")}, Usage: usageAt(9000), ToolResultFor: applyID},
						reply("The flag is off in prod and orders-api has had no 5xx in the last 5 minutes.", 10000),
					},
				},
			}
			after = []turn{
				{Prompt: "good. write me the handover for the night shift", Replies: []fakeapi.Reply{reply("Here's the handover.", 11000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "INC-4471"),
			rx("finding: UndefinedColumn on orders.fulfilment_sla", `fulfilment_sla`, `(?i)UndefinedColumn|does not exist|missing`),
			rx("finding: 1,284 errors in the log", `1,?284`),
			rx("finding: 0087 skipped at boot", `0087`, `(?i)skipped|MIGRATE_ON_BOOT|not (run|applied)|never ran`),
			pipedFailed("piped command: migrate.sh dry-run 0087 piped to tee failed on a lock timeout", `migrate\.sh --dry-run 0087`,
				`(?i)lock.timeout|could not obtain[^\n]{0,40}lock|ACCESS EXCLUSIVE|exit (code )?3`),
			rx("finding: anti-wraparound autovacuum on orders for 41 minutes", `(?i)autovacuum|wraparound`),
			rx("decision: not cancelling the autovacuum", `(?i)(not|don't|won't|never|no)[^\n]{0,40}(cancel|kill|terminat)[^\n]{0,80}(autovacuum|vacuum)|(autovacuum|vacuum)[^\n]{0,80}(not|don't|won't|never)[^\n]{0,20}(cancel|kill|terminat)`),
			rx("decision: 0087 in the 02:00 UTC maintenance window", `02:00`, `(?i)window`),
			rx("open thread: rollback command noted", `migrate\.sh --rollback 0087`),
			rx("constraint: nobody restarts the primary", `(?i)restart[^\n]{0,60}primary|primary[^\n]{0,60}restart`),
			rx("constraint: prod changes need Priya's sign-off in #ops-changes", `Priya`, `(?i)sign.?s? ?off|approv|#ops-changes`),
			lit("file edited: config/flags.yaml", "config/flags.yaml"),
			rx("decision: mitigation, fulfilment_sla_enabled flag off", `(?i)fulfilment_sla_enabled|feature flag`),
		},
		Secrets: []secret{
			{"Postgres password in a DATABASE_URL", dbPass},
			{"AWS access key id", awsKeyID},
			{"AWS secret access key", awsSecret},
		},
	}
	return sc
}

// blind4SwiftMeander: a long, rambling Swift session. The user picks full
// jitter, compacts by hand before lunch, then changes their mind twice
// (Retry-After only, then Retry-After with a capped exponential
// fallback, for a reason a colleague gave). A leftover reference breaks
// the build and is fixed; a TodoWrite list has an item blocked on
// someone's review; a test is left failing on purpose; the last open
// items are a question to the user, "I'll do X once Y", and that test.
// An automatic compaction ends it.
func blind4SwiftMeander() scenario {
	client := "import Foundation\n\npublic final class HTTPClient {\n    let session: URLSession\n\n    public init(session: URLSession = .shared) { self.session = session }\n\n    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {\n        let (data, response) = try await session.data(for: request)\n        return (data, response as! HTTPURLResponse)\n    }\n}\n"
	policy1 := "import Foundation\n\n/// How long to wait before retrying a request that got a 429.\npublic enum Jitter { case none, full }\n\npublic struct RetryPolicy {\n    public var base: TimeInterval = 0.5\n    public var cap: TimeInterval = 30\n    public var maxAttempts = 5\n    public var jitter: Jitter = .full\n\n    public func delay(attempt: Int) -> TimeInterval {\n        let exp = min(cap, base * pow(2, Double(attempt)))\n        return jitter == .full ? Double.random(in: 0...exp) : exp\n    }\n}\n"
	tests1 := "import XCTest\n@testable import Networking\n\nfinal class RetryPolicyTests: XCTestCase {\n    func testDelayNeverExceedsCap() {\n        let p = RetryPolicy()\n        for n in 0..<20 { XCTAssertLessThanOrEqual(p.delay(attempt: n), 30) }\n    }\n}\n"
	swift := `#!/bin/sh
# stand-in for the Swift toolchain in this package
f=Sources/Networking/RetryPolicy.swift
case "$1" in
  build)
    if grep -q 'Jitter' "$f" && ! grep -q 'enum Jitter' "$f"; then
      echo "Building for debugging..."
      echo "$f:10:23: error: cannot find type 'Jitter' in scope"
      echo "    public var jitter: Jitter = .full"
      echo "                       ^~~~~~"
      echo "error: fatalError"
      exit 1
    fi
    echo "Building for debugging..."
    echo "Build complete! (4.12s)"
    exit 0 ;;
  test)
    if grep -q 'testRetryAfterHTTPDateInPast' Tests/NetworkingTests/RetryPolicyTests.swift; then
      echo "Test Suite 'All tests' started"
      echo "Tests/NetworkingTests/RetryPolicyTests.swift:31: error: -[NetworkingTests.RetryPolicyTests testRetryAfterHTTPDateInPast] : XCTAssertEqual failed: (\"0.0\") is not equal to (\"1.0\")"
      echo "Test Case '-[NetworkingTests.RetryPolicyTests testRetryAfterHTTPDateInPast]' failed (0.003 seconds)."
      echo "Executed 24 tests, with 1 failure (0 unexpected) in 0.412 (0.418) seconds"
      exit 1
    fi
    echo "Executed 21 tests, with 0 failures (0 unexpected) in 0.377 (0.380) seconds"
    exit 0 ;;
esac
echo "swift stand-in: unexpected arguments: $*" >&2
exit 1
`
	sc := scenario{
		Name:        "blind4-swift-meander",
		Shape:       "held-out, blind4: Swift package, long meandering session, user changes approach twice, TodoWrite with a blocked item, three open items in three forms, test left failing on purpose; manual, then auto",
		Compactions: []string{"manual", "auto"},
		Files: map[string]string{
			"Package.swift":                        "// swift-tools-version:5.10\nimport PackageDescription\n\nlet package = Package(\n    name: \"Networking\",\n    platforms: [.iOS(.v16)],\n    products: [.library(name: \"Networking\", targets: [\"Networking\"])],\n    targets: [\n        .target(name: \"Networking\"),\n        .testTarget(name: \"NetworkingTests\", dependencies: [\"Networking\"]),\n    ]\n)\n",
			"Sources/Networking/HTTPClient.swift":  client,
			"Sources/Networking/FeedService.swift": "import Foundation\n\n/// Loads the home feed; retries by hand, three times, no delay.\npublic struct FeedService {\n    let client: HTTPClient\n}\n",
			"CHANGELOG.md":                         "# Changelog\n\n## 2.13.0\n- Image cache honours Cache-Control max-age.\n",
		},
		Bins:           map[string]string{"swift": swift},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(swift:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			pol, cli, tst := p("Sources/Networking/RetryPolicy.swift"), p("Sources/Networking/HTTPClient.swift"), p("Tests/NetworkingTests/RetryPolicyTests.swift")
			before = []turn{
				{
					Prompt: "ok so, context: IOS-2760. the home feed basically hammers the API whenever it gets a 429, it just retries three times instantly, and the backend folks are (rightly) annoyed. " +
						"I want a proper retry policy in the Networking package. I'm thinking exponential backoff with full jitter, like in that old AWS architecture blog post? " +
						"also — and this is a hard one — we can't add anything to Package.swift, every new dependency has to go through legal review and that takes weeks, so whatever we do is hand-rolled.",
					Replies: []fakeapi.Reply{
						reply("", 11000, read("toolu_sm_read_client", cli)),
						reply("Full jitter it is: delay = random(0, min(cap, base·2^n)). It spreads a crowd of clients retrying at once better than plain or equal jitter, which is the point when the whole fleet hits a 429 together.", 12000,
							write("toolu_sm_write_policy", pol, policy1)),
						reply("", 13000, write("toolu_sm_write_tests", tst, tests1)),
						reply("", 14000, todoWrite("toolu_sm_todo1",
							[2]string{"Write RetryPolicy", "in_progress"},
							[2]string{"Wire RetryPolicy into HTTPClient.send", "pending"},
							[2]string{"Migrate FeedService off its hand-rolled retries", "pending"})),
						reply("", 15000, bash("toolu_sm_build1", "swift build", "Build the package")),
						reply("It builds. RetryPolicy is in place with a test that the delay never exceeds the 30 s cap.", 16000),
					},
				},
				{
					Prompt: "cool cool. hook it into HTTPClient? then I'm off to lunch, I'll compact first so we start fresh after",
					Replies: []fakeapi.Reply{
						reply("", 16500, read("toolu_sm_read_client2", cli)),
						reply("", 17000, edit("toolu_sm_edit_client", cli,
							"        let (data, response) = try await session.data(for: request)\n        return (data, response as! HTTPURLResponse)\n",
							"        var attempt = 0\n        while true {\n            let (data, response) = try await session.data(for: request)\n            let http = response as! HTTPURLResponse\n            guard http.statusCode == 429, attempt < retry.maxAttempts else { return (data, http) }\n            try await Task.sleep(for: .seconds(retry.delay(attempt: attempt)))\n            attempt += 1\n        }\n")),
						reply("", 18000, edit("toolu_sm_edit_client2", cli, "    let session: URLSession\n", "    let session: URLSession\n    var retry = RetryPolicy()\n")),
						reply("", 19000, bash("toolu_sm_build2", "swift build", "Build with the client wired")),
						reply("HTTPClient.send now retries 429s through the policy. Enjoy lunch.", 20000),
					},
				},
				{Prompt: "/compact"},
				{
					Prompt: "back!! ok so I was thinking about it over lunch and I changed my mind. scratch the jitter entirely. " +
						"the server sends Retry-After on its 429s anyway, so let's just honour that and nothing else, no backoff maths of our own",
					Replies: []fakeapi.Reply{
						reply("", 8000, read("toolu_sm_read_policy", pol)),
						reply("Switching to Retry-After only.", 9000, edit("toolu_sm_edit_nojitter", pol,
							"/// How long to wait before retrying a request that got a 429.\npublic enum Jitter { case none, full }\n",
							"/// How long to wait before retrying a request that got a 429:\n/// whatever its Retry-After header says.\n")),
						reply("", 10000, bash("toolu_sm_build3", "swift build", "Build after removing jitter")),
						reply("The build breaks: RetryPolicy.swift:10 still declares `jitter: Jitter`. Removing the leftover property and its use.", 11000,
							edit("toolu_sm_edit_nojitter2", pol,
								"    public var jitter: Jitter = .full\n\n    public func delay(attempt: Int) -> TimeInterval {\n        let exp = min(cap, base * pow(2, Double(attempt)))\n        return jitter == .full ? Double.random(in: 0...exp) : exp\n    }\n",
								"    public func delay(retryAfter header: String?) -> TimeInterval? {\n        header.flatMap(RetryAfter.parse)\n    }\n")),
						reply("", 12000, bash("toolu_sm_build4", "swift build", "Build again")),
						reply("", 13000, todoWrite("toolu_sm_todo2",
							[2]string{"Write RetryPolicy", "completed"},
							[2]string{"Wire RetryPolicy into HTTPClient.send", "completed"},
							[2]string{"Parse Retry-After (delta-seconds and HTTP-date)", "in_progress"},
							[2]string{"Migrate FeedService off its hand-rolled retries (blocked: waiting on Dana's review of PR #512)", "pending"})),
						reply("Builds again, and the list is updated — FeedService has to wait: Dana's PR #512 rewrites FeedService and is still in review.", 14000),
					},
				},
				{
					Prompt: "ugh, wait, sorry. Marco from the platform team just told me the CDN edge strips Retry-After from 429s that come from the origin, so half the time we won't get the header at all. " +
						"so, final answer (promise): use Retry-After when it's there, otherwise exponential backoff capped at 30 seconds. still no jitter.",
					Replies: []fakeapi.Reply{
						reply("", 14500, read("toolu_sm_read_policy2", pol)),
						reply("", 14700, read("toolu_sm_read_tests", tst)),
						reply("Retry-After first, exponential fallback capped at 30 s, no jitter.", 15000, edit("toolu_sm_edit_fallback", pol,
							"    public func delay(retryAfter header: String?) -> TimeInterval? {\n        header.flatMap(RetryAfter.parse)\n    }\n",
							"    public func delay(attempt: Int, retryAfter header: String?) -> TimeInterval {\n        if let s = header.flatMap(RetryAfter.parse) { return max(1, s) }\n        return min(cap, base * pow(2, Double(attempt)))\n    }\n")),
						reply("", 16000, edit("toolu_sm_edit_tests", tst, "    func testDelayNeverExceedsCap() {",
							"    func testRetryAfterHTTPDateInPast() {\n        let p = RetryPolicy()\n        XCTAssertEqual(p.delay(attempt: 0, retryAfter: \"Wed, 21 Oct 2015 07:28:00 GMT\"), 1.0)\n    }\n\n    func testDelayNeverExceedsCap() {")),
						reply("", 17000, bash("toolu_sm_test1", "swift test", "Run the package tests")),
						reply("One of 24 fails: testRetryAfterHTTPDateInPast gets 0.0 where it expects the 1 s floor — RetryAfter.parse returns a negative interval for a date in the past and max(1, s) never sees it because parse clamps to 0 first. "+
							"The dates in the past come from the origin's skewed clock, though, so I'm not sure whether to fix it on our side.", 18000),
					},
				},
				{
					Prompt: "leave that one failing. it's the server's clock skew bug, Dana's team has SRV-88 for it. and don't skip it or mark it expected-failure either, I want it red in CI so nobody forgets",
					Replies: []fakeapi.Reply{
						reply("Understood: testRetryAfterHTTPDateInPast stays as it is, red, no XCTSkip, until SRV-88 is fixed on the server. "+
							"I'll move FeedService onto RetryPolicy once Dana has approved #512 — no point touching it before her rewrite lands.", 19000),
					},
				},
				{
					Prompt: "anything else you need from me?",
					Replies: []fakeapi.Reply{
						reply("One question: a 503 Service Unavailable from the edge — should it get the same Retry-After/backoff treatment, or do we retry only on 429 as the ticket says?", 20000),
					},
				},
				{
					Prompt: "good q, I'll ask Marco. meanwhile can you put a changelog entry in",
					Replies: []fakeapi.Reply{
						reply("", 21000, read("toolu_sm_read_cl", p("CHANGELOG.md"))),
						reply("", 22000, edit("toolu_sm_edit_cl", p("CHANGELOG.md"), "# Changelog\n\n", "# Changelog\n\n## Unreleased\n- HTTPClient retries 429s with RetryPolicy (Retry-After, else capped backoff).\n\n")),
						full("Added an Unreleased entry."),
					},
				},
			}
			after = []turn{
				{Prompt: "thanks. what's the state of things?", Replies: []fakeapi.Reply{reply("Here's where we are.", 6000)}},
				{Prompt: "ok", Replies: []fakeapi.Reply{reply("Waiting on Marco and Dana.", 6500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "IOS-2760"),
			rx("constraint: no new dependencies in Package.swift (legal review)",
				`(?i)(Package\.swift|dependenc)[^\n]{0,120}(legal|review)|(legal|review)[^\n]{0,120}(Package\.swift|dependenc)|\b(no|don't|not|never|can't|cannot)\b[^\n]{0,40}(Package\.swift|dependenc)`),
			lit("file created: Sources/Networking/RetryPolicy.swift", "Sources/Networking/RetryPolicy.swift"),
			lit("file edited: Sources/Networking/HTTPClient.swift", "Sources/Networking/HTTPClient.swift"),
			rx("decision (superseded after compaction 1): full jitter", `(?i)full jitter|jitter`).until(1),
			rx("open todo: migrate FeedService", `FeedService`),
			rx("failure fixed: swift build, cannot find type 'Jitter'",
				`(?i)cannot find (type )?'?Jitter|Jitter'? in scope|swift build[^\n]{0,120}(exit (code )?1|fail)[^\n]{0,160}(fix|pass|succe|complete)`).from(2),
			rx("late decision: Retry-After, else exponential backoff capped at 30 s", `(?i)Retry-After`, `(?i)exponential|backoff`, `(?i)\b30 ?(s|sec|secs|seconds)\b`).from(2),
			rx("decision's reason: the CDN edge strips Retry-After", `(?i)(CDN|edge)[^\n]{0,120}(strip|drop|remov|omit|lose|missing|without)|(strip|drop|omit)[^\n]{0,60}Retry-After`).from(2),
			rx("failing test left on purpose: testRetryAfterHTTPDateInPast",
				`(?i)testRetryAfterHTTPDateInPast[^\n]{0,200}(leave|left|keep|stays?|deliberate|on purpose|intentional|skip|red\b|known|SRV-88)|(leave|left|keep|deliberate|on purpose|intentional|skip)[^\n]{0,200}testRetryAfterHTTPDateInPast`).from(2),
			rx("command: swift test, 1 failure of 24", `(?i)swift test[^\n]{0,200}(1 failure|exit (code )?1|fail)|1 failure`).from(2),
			lit("ticket: the server's clock skew bug, SRV-88", "SRV-88").from(2),
			rx("open thread: FeedService once Dana approves #512", `FeedService`, `(?i)Dana|#512`).from(2),
			rx("open thread: retry 503 too? asked of the user", `\b503\b`).from(2),
			lit("file edited: CHANGELOG.md", "CHANGELOG.md").from(2),
		},
	}
	return sc
}
