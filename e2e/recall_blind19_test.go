package e2e

import (
	"path/filepath"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's nineteenth blind set: five held-out sessions written
// without reading cairn's extraction, checkpoint, render or redaction code
// nor any other scenario's body or facts, only the bench's types and
// helpers, the client's protocol notes and the brief's list of stacks
// already used. Their first run on main is the blind measurement; a check
// may only be corrected where it could not have matched a faithful
// restore, never because cairn missed it.
//
// Each is a kind of session no earlier set used, in a voice of its own:
//   - a Crystal/Kemal link shortener for a user who writes headings and
//     lists, compacted three times (auto, bare /compact, /compact with the
//     user's words): TaskCreate tasks updated across all three, a plan
//     step (a boundary spec) finished without being named done, a slug
//     length the agent proposed and the user changed, a Crystal 1.9 rule
//     lifted after the second compaction, a piped crystal spec whose
//     failure the pipe's exit 0 hides, an index migration owned by a DBA;
//   - a Nim TSV tool for a terse lowercase user who pastes a long Nim
//     traceback: a command that is not installed and is replaced, an Edit
//     whose old string is not found and is retried, the agent's split
//     overruled for parseutils, two questions of which the user answers
//     only the second (the agent later says the first is still open), a
//     compaction inside the turn that runs the suite;
//   - F# with dotnet fsi and a FAKE script for a user whose English is not
//     native: a subagent that finds the call sites, two questions answered
//     in one message out of order, the agent's banker's rounding refused,
//     dotnet restore left failing on an expired feed token owned by
//     infra, and a password in a nuget.config the user pastes; /compact
//     with instructions;
//   - a SWI-Prolog clpfd rota for a chatty user who takes back a
//     suggestion in a later clause of the same message and keeps a
//     <private> login in it: a make target that does not exist, a TodoWrite
//     list that changes, plan steps done without being named, an
//     alternative measured and dropped, a one-word answer two turns late,
//     a rule left to a colleague; one automatic compaction;
//   - an Elasticsearch reindex behind an alias for a user who mixes Dutch
//     into English and pastes a long Java stack trace: the agent's slices
//     overruled, a piped count check whose mismatch the pipe hides, then
//     the mapping failure found and fixed, an alias swap, a Kibana task
//     owned by someone else, an API key in a pasted CLI config and a
//     password inside a URL a script prints (bare /compact, then auto).
//
// They run only in the report (TestRecallReport) and are marked
// "held-out, blind19" in its shape column.

// blind19Scenarios are the nineteenth blind set the recall report runs.
func blind19Scenarios() []scenario {
	return []scenario{b19Crystal(), b19Nim(), b19FSharp(), b19Prolog(), b19Elastic()}
}

// b19Tools are the tools every scenario of the set lets the client run
// without asking.
var b19Tools = []string{"Bash", "Read", "Edit", "Write"}

const b19StoreCr = `module Shortlink
  struct Link
    getter slug : String
    getter target : String
    getter expires_at : Time?

    def initialize(@slug, @target, @expires_at = nil)
    end

    def expired?(now = Time.utc) : Bool
      if at = expires_at
        now > at
      else
        false
      end
    end
  end
end
`

const b19RoutesCr = `require "kemal"
require "./store"

module Shortlink
  get "/:slug" do |env|
    link = STORE[env.params.url["slug"]]?
    if link.nil? || link.expired?
      halt env, status_code: 404
    end
    env.redirect link.target, 301
  end
end
`

const b19SlugCr = `module Shortlink::Slug
  ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"

  def self.generate : String
    n = Random.rand(36_i64**6)
    String.build do |io|
      6.times do
        io << ALPHABET[n % 36]
        n //= 36
      end
    end
  end
end
`

const b19SlugSpec = `require "./spec_helper"

describe Shortlink::Slug do
  it "is url safe" do
    Shortlink::Slug.generate.should match(/\A[a-z0-9]+\z/)
  end

  it "has a fixed length" do
    Shortlink::Slug.generate.size.should eq 6
  end
end
`

// b19CrystalBin stands in for crystal 1.12: the routes spec passes once
// expired? is inclusive and the route answers 410, the whole suite once
// the slug spec expects seven characters.
const b19CrystalBin = `#!/bin/sh
case "$1" in
--version) echo "Crystal 1.12.1 [4cea10199] (2024-07-12)"; exit 0;;
run)
  printf 'slugs generated: 1000000\n6 chars, Random.rand:       118 collisions\n7 chars, Random::Secure:      0 collisions\nelapsed: 2.41s\n'
  exit 0;;
spec)
  if [ "$2" = "spec/routes_spec.cr" ]; then
    if grep -q 'now >= at' src/shortlink/store.cr && grep -q '410' src/shortlink/routes.cr; then
      printf '.........\n\nFinished in 3.9 milliseconds\n9 examples, 0 failures, 0 errors, 0 pending\n'
      exit 0
    fi
    printf '........F\n\nFailures:\n\n  1) GET /:slug answers 410 when now == expires_at\n\n       Expected: 410\n            got: 404\n\n     # spec/routes_spec.cr:31\n\nFinished in 4.2 milliseconds\n9 examples, 1 failures, 0 errors, 0 pending\n\nFailed examples:\n\ncrystal spec spec/routes_spec.cr:31 # GET /:slug answers 410 when now == expires_at\n'
    exit 1
  fi
  if grep -q 'should eq 7' spec/slug_spec.cr; then
    printf '%s\n\nFinished in 61.3 milliseconds\n212 examples, 0 failures, 0 errors, 0 pending\n' '....................................................................................................'
    exit 0
  fi
  printf '.....F......\n\nFailures:\n\n  1) Shortlink::Slug has a fixed length\n\n       Expected: 6\n            got: 7\n\n     # spec/slug_spec.cr:9\n\nFinished in 60.8 milliseconds\n212 examples, 1 failures, 0 errors, 0 pending\n\nFailed examples:\n\ncrystal spec spec/slug_spec.cr:9 # Shortlink::Slug has a fixed length\n'
  exit 1;;
esac
echo "crystal: unknown command $1" >&2
exit 1
`

// b19Crystal: a Crystal link shortener compacted three times, for a user
// who writes headings and lists.
func b19Crystal() scenario {
	return scenario{
		Name:           "blind19-crystal-three",
		Shape:          "held-out, blind19: Crystal/Kemal, three compactions (auto, bare /compact, /compact with words), TaskCreate updated across them, agent's 8 chars changed to 7, 1.9 rule lifted, piped spec failure, DBA-owned index",
		Compactions:    []string{"auto", "manual", "manual"},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"},
		AllowedTools:   b19Tools,
		PermissionMode: "acceptEdits",
		Bins:           map[string]string{"crystal": b19CrystalBin},
		Files: map[string]string{
			"shard.yml":               "name: shortlink\nversion: 0.8.3\ncrystal: \">= 1.9.0, < 2.0\"\ndependencies:\n  kemal:\n    path: vendor/kemal\n",
			"src/shortlink/store.cr":  b19StoreCr,
			"src/shortlink/routes.cr": b19RoutesCr,
			"src/shortlink/slug.cr":   b19SlugCr,
			"spec/slug_spec.cr":       b19SlugSpec,
			"spec/spec_helper.cr":     "require \"spec\"\nrequire \"../src/shortlink/*\"\n",
			"spec/routes_spec.cr":     "require \"./spec_helper\"\n# 9 examples against the Kemal routes\n",
			"bench/slug_bench.cr":     "require \"../src/shortlink/slug\"\n# a million slugs, counting duplicates\n",
		},
		Script: func(dir string) (before, after []turn) {
			store := filepath.Join(dir, "src/shortlink/store.cr")
			routes := filepath.Join(dir, "src/shortlink/routes.cr")
			slug := filepath.Join(dir, "src/shortlink/slug.cr")
			slugSpec := filepath.Join(dir, "spec/slug_spec.cr")
			before = []turn{
				{Prompt: "## LNK-311\n\nTwo problems in the shortener:\n\n1. expired links answer **404**. Product wants **410 Gone** so the browser extensions stop retrying them.\n2. support saw two different targets behind one slug last week: collisions in the slug generator.\n\n### Constraints\n- no new shards, we vendor everything under vendor/\n- must still build on Crystal 1.9, the CI image is pinned to it\n\nStart with the 410 part please.",
					Replies: []fakeapi.Reply{
						reply("", 9000, read("b19c_r1", routes), read("b19c_r2", store)),
						reply("", 10500,
							taskCreate("b19c_t1", "Expired links answer 410", "routes.cr halts 404 for expired links; LNK-311 wants 410 Gone"),
							taskCreate("b19c_t2", "Stop slug collisions", "Slug.generate: Random.rand over 36**6, not Random::Secure"),
							taskCreate("b19c_t3", "Unique index on links.slug", "so a collision fails loudly instead of overwriting")),
						reply("Read both. The route treats expired the same as missing (`halt env, status_code: 404`). My plan for the first part:\n\n1. answer 410 in `routes.cr` when the link exists but `expired?` is true\n2. check `expired?` in `store.cr` at the boundary\n3. add a spec for a link expiring exactly now\n\nThree tasks are in the list.", 11800),
					}},
				{Prompt: "go",
					Replies: []fakeapi.Reply{
						reply("", 13000, read("b19c_r3", routes), read("b19c_r4", store)),
						reply("", 14000, edit("b19c_e1", routes, "    if link.nil? || link.expired?\n      halt env, status_code: 404\n    end", "    halt env, status_code: 404 if link.nil?\n    halt env, status_code: 410 if link.expired?")),
						reply("", 15000, bash("b19c_b1", "crystal spec spec/routes_spec.cr", "Run the route specs")),
						reply("The boundary example fails: 404 at `now == expires_at`. `expired?` uses `now > at`, so a link is still live during its expiry instant and the route falls through to the lookup miss.", 16200, edit("b19c_e2", store, "        now > at", "        now >= at")),
						reply("", 17000, bash("b19c_b2", "crystal spec spec/routes_spec.cr", "Rerun the route specs")),
						reply("", 17800, write("b19c_w1", filepath.Join(dir, "spec/expiry_spec.cr"), "require \"./spec_helper\"\n\ndescribe Shortlink::Link do\n  it \"is expired at exactly expires_at\" do\n    t = Time.utc(2026, 11, 25, 12, 0, 0)\n    Shortlink::Link.new(\"abc123\", \"https://x.test\", t).expired?(t).should be_true\n  end\nend\n")),
						reply("", 18200, taskUpdate("b19c_u1", "1", "completed")),
						reply("`crystal spec spec/routes_spec.cr`: 9 examples, 0 failures now. routes.cr answers 410 for an expired link and 404 only when there is no link; store.cr's `expired?` is inclusive (`>=`).", 18600),
					}},
				{Prompt: "## slugs\nWhat are the options? Don't write code yet.",
					Replies: []fakeapi.Reply{
						reply("", 20000, read("b19c_r5", slug)),
						full("`slug.cr` draws `Random.rand(36_i64**6)`: 6 base-36 characters from the default PRNG, about 2.2 billion values, and nothing stops a duplicate from overwriting an existing key.\n\n- **A.** keep 6 chars, retry on a duplicate key (needs the unique index first)\n- **B.** `Random::Secure`, longer slugs: 8 characters gives 2.8e12 values\n\nI'd go with B at 8 characters, plus the index later as a guard."),
					}},
				{Prompt: "B. But 7 characters, not 8: support reads slugs out over the phone and 8 tested badly in the last usability round. Keep the alphabet as is.",
					Replies: []fakeapi.Reply{
						reply("", 22000, read("b19c_r6", slug)),
						reply("", 23000, edit("b19c_e3", slug, "    n = Random.rand(36_i64**6)\n    String.build do |io|\n      6.times do", "    n = Random::Secure.rand(36_i64**7)\n    String.build do |io|\n      7.times do")),
						reply("", 24000, taskUpdate("b19c_u2", "2", "in_progress")),
						reply("", 25000, bash("b19c_b3", "crystal spec 2>&1 | tail -12", "Run the whole suite")),
						reply("Slug.generate now draws 7 characters from `Random::Secure`. The whole suite is not clean though: 212 examples, 1 failure, `spec/slug_spec.cr:9` still expects a size of 6 (the `| tail` hid it, the command itself exited 0). I have not touched that spec yet.", 25800),
					}},
				{Prompt: "/compact"},
				{Prompt: "## update\n- CI image moved to Crystal 1.12 last night, so forget the 1.9 requirement\n- fix the failing spec and measure the collisions",
					Replies: []fakeapi.Reply{
						reply("", 12000, read("b19c_r7", slugSpec)),
						reply("", 12600, edit("b19c_e4", slugSpec, "size.should eq 6", "size.should eq 7")),
						reply("", 13200, bash("b19c_b4", "crystal spec", "Run the whole suite, unpiped")),
						reply("", 13800, bash("b19c_b5", "crystal run bench/slug_bench.cr --release", "Count collisions over a million slugs")),
						reply("", 14400, taskUpdate("b19c_u3", "2", "completed")),
						reply("- `crystal spec`: **212 examples, 0 failures**\n- bench, 1,000,000 slugs: **118 collisions** with the old 6-char `Random.rand`, **0** with 7 chars from `Random::Secure`\n\nThe unique index (task 3) I can't do from here: migrations live in the platform repo and Priyanka (DBA) owns them. I've left it pending and blocked on her; she needs the table name `links` and the column `slug`.", 15000),
					}},
				{Prompt: "/compact keep where the index migration stands"},
			}
			after = []turn{
				{Prompt: "## back\nwhere are we?",
					Replies: []fakeapi.Reply{reply("Picking up from the restored state above.", 9000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "LNK-311"),
			rx("gone-410", `410`),
			rx("no-new-shards", `(?i)(no|not|n't|without)[^\n]{0,30}(shards?|dependenc|deps)`),
			rx("crystal-19", `(?i)crystal[^\n]{0,20}1\.9|1\.9[^\n]{0,40}(ci|crystal|compat|build)`).until(2),
			lit("routes-store-changed", "routes.cr", "store.cr"),
			rx("boundary-fix", `expired\?|expires_at`, `(?i)>=|inclusive|boundary|exactly|==`),
			lit("expiry-spec-written", "expiry_spec.cr"),
			rx("routes-spec-passes", `spec/routes_spec\.cr`),
			lit("slug-read", "slug.cr"),
			rx("seven-chars-secure", `(?i)\b(7|seven)\b[^\n]{0,30}char|char[^\n]{0,30}\b(7|seven)\b`, `Random::Secure`).from(2),
			pipedFailed("piped-slug-spec", `crystal spec 2>&1 \| tail`, `slug_spec`).from(2).until(2),
			rx("crystal-112", `1\.12`).from(3),
			rx("suite-212", `\b212\b`).from(3),
			rx("collisions-118", `\b118\b`).from(3),
			rx("index-priyanka", `(?i)priyanka`, `(?i)index`).from(3),
		},
	}
}

const b19ParseNim = `import std/strutils

proc splitRow*(line: string, ncols: int): seq[string] =
  ## Splits one TSV line into ncols fields.
  result = newSeq[string](ncols)
  var i = 0
  for field in line.split('\t'):
    result[i] = field
    inc i
`

const b19CliNim = `import std/[os, parseopt]
import ../tsvq, parse

proc runQuery(path: string, cols: seq[int], strict: bool) =
  for row in query(path, cols):
    echo row.join("\t")
  if strict:
    # --strict re-reads the header with splitRow to check the column count
    let header = readLines(path, 1)[0]
    discard splitRow(header, cols.len)
`

// b19NimTrace is the CI log the user pastes.
const b19NimTrace = `Run ./tsvq --strict -c 1,2,3 fixtures/orders_2026_11.tsv
Traceback (most recent call last)
/home/runner/work/tsvq/tsvq/src/tsvq.nim(41) tsvq
/home/runner/work/tsvq/tsvq/src/tsvq/cli.nim(63) main
/home/runner/work/tsvq/tsvq/src/tsvq/cli.nim(27) runQuery
/home/runner/work/tsvq/tsvq/src/tsvq.nim(18) query
/home/runner/.choosenim/toolchains/nim-2.0.8/lib/pure/streams.nim(1286) lines
/home/runner/work/tsvq/tsvq/src/tsvq.nim(22) query
/home/runner/work/tsvq/tsvq/src/tsvq/parse.nim(9) splitRow
/home/runner/.choosenim/toolchains/nim-2.0.8/lib/system/indices.nim(83) []=
/home/runner/.choosenim/toolchains/nim-2.0.8/lib/system/fatal.nim(53) sysFatal
Error: unhandled exception: index 3 not in 0 .. 2 [IndexDefect]
Error: Process completed with exit code 1.`

// b19NimBin stands in for nim and nimble: the parse test passes once
// splitRow uses parseutils and stops at ncols; the bench is faster with
// parseutils.
const b19NimBin = `#!/bin/sh
if grep -q 'parseUntil' src/tsvq/parse.nim; then fast=1; else fast=0; fi
if grep -q 'if i == ncols: break' src/tsvq/parse.nim; then bounded=1; else bounded=0; fi
case "$*" in
*b_rows*)
  if [ $fast = 1 ]; then echo "2000000 rows, 3 cols: 1.1 s"; else echo "2000000 rows, 3 cols: 1.8 s"; fi
  exit 0;;
*t_parse*)
  if [ $fast = 1 ] && [ $bounded = 1 ]; then
    printf '[Suite] splitRow\n  [OK] plain row\n  [OK] trailing tab\n  [OK] more fields than columns\n'
    exit 0
  fi
  printf '[Suite] splitRow\n  [OK] plain row\n/tmp/tsvq/tests/t_parse.nim(14) t_parse\n/tmp/tsvq/src/tsvq/parse.nim(11) splitRow\nError: unhandled exception: index 3 not in 0 .. 2 [IndexDefect]\n  [FAILED] trailing tab\n'
  exit 1;;
test*)
  printf '  Executing task test in tsvq.nimble\n[Suite] splitRow\n  [OK] plain row\n  [OK] trailing tab\n  [OK] more fields than columns\n[Suite] query\n  [OK] 21 tests\n   Success: 24 tests passed\n'
  exit 0;;
esac
echo "nim: unhandled arguments: $*" >&2
exit 1
`

// b19Nim: a Nim TSV tool for a terse lowercase user, compacted inside a
// turn.
func b19Nim() scenario {
	return scenario{
		Name:           "blind19-nim-inturn",
		Shape:          "held-out, blind19: Nim, compaction inside a turn, terse lowercase user, pasted traceback, command not found then replaced, Edit not found then retried, split overruled for parseutils, one of two questions answered and the other still open",
		Compactions:    []string{"in-turn"},
		AllowedTools:   b19Tools,
		PermissionMode: "acceptEdits",
		Bins:           map[string]string{"nim": b19NimBin, "nimble": b19NimBin},
		Files: map[string]string{
			"tsvq.nimble":        "version       = \"0.4.1\"\nauthor        = \"tsvq devs\"\nsrcDir        = \"src\"\nbin           = @[\"tsvq\"]\nrequires \"nim >= 2.0.0\"\n\ntask test, \"run tests\":\n  exec \"nim c -r tests/t_parse.nim\"\n",
			"src/tsvq.nim":       "import tsvq/parse\n\nproc query*(path: string, cols: seq[int]): seq[seq[string]] =\n  for line in lines(path):\n    result.add splitRow(line, cols.len)\n",
			"src/tsvq/parse.nim": b19ParseNim,
			"src/tsvq/cli.nim":   b19CliNim,
			"CHANGELOG.md":       "# Changelog\n\n## 0.4.1\n- `--strict` checks the header's column count\n",
			"bench/b_rows.nim":   "import ../src/tsvq/parse\n# 2M rows of 3 columns through splitRow\n",
		},
		Script: func(dir string) (before, after []turn) {
			parse := filepath.Join(dir, "src/tsvq/parse.nim")
			cli := filepath.Join(dir, "src/tsvq/cli.nim")
			changelog := filepath.Join(dir, "CHANGELOG.md")
			before = []turn{
				{Prompt: "tsvq dies on rows that end with a tab. ci log:\n\n```\n" + b19NimTrace + "\n```\n\ndont touch the exported procs in src/tsvq.nim, two other tools import them",
					Replies: []fakeapi.Reply{
						reply("", 8000, read("b19n_r1", parse), read("b19n_r2", cli)),
						reply("", 9000, bash("b19n_b1", "nim c -d:release -r bench/b_rows.nim", "Time splitRow before any change")),
						reply("Cause: `splitRow` in `src/tsvq/parse.nim` allocates `ncols` slots, but `\"a\\tb\\tc\\t\".split('\\t')` yields 4 fields, the 4th empty, so `result[3]` is the IndexDefect at parse.nim(9). `cli.nim` only reads here: `--strict` calls `splitRow` on the header too, so it crashes the same way and gets the fix for free.\n\nBaseline: bench/b_rows.nim, 2M rows, 1.8 s.\n\nMy plan: `line.split('\\t', maxsplit = ncols - 1)`.\n\nTwo questions:\n1. a trailing empty field: keep it (row gets an extra \"\" column) or drop it?\n2. changelog entry for this?", 10000),
					}},
				{Prompt: "no split, it allocates a seq per row and this is the hot loop. use parseutils. changelog yes, under 0.4.2",
					Replies: []fakeapi.Reply{
						reply("", 12000, bash("b19n_b2", "testament pattern 'tests/t_*.nim'", "Run the parse tests with testament")),
						reply("testament isn't installed here; I'll use `nim c -r` on the test file (what `nimble test` runs).", 12500, read("b19n_r3", parse)),
						reply("", 13000, edit("b19n_e1", parse, "import strutils\n", "import std/parseutils\n")),
						reply("old string not found: the import is `std/strutils`, not `strutils`. again:", 13500,
							edit("b19n_e2", parse, "import std/strutils\n", "import std/parseutils\n")),
						reply("", 14000, edit("b19n_e3", parse, "  var i = 0\n  for field in line.split('\\t'):\n    result[i] = field\n    inc i\n", "  var i, pos = 0\n  while pos <= line.len:\n    var field: string\n    pos += parseUntil(line, field, '\\t', pos) + 1\n    result[i] = field\n    inc i\n")),
						reply("", 14500, write("b19n_w1", filepath.Join(dir, "tests/t_parse.nim"), "import std/unittest\nimport ../src/tsvq/parse\n\nsuite \"splitRow\":\n  test \"plain row\":\n    check splitRow(\"a\\tb\\tc\", 3) == @[\"a\", \"b\", \"c\"]\n  test \"trailing tab\":\n    check splitRow(\"a\\tb\\tc\\t\", 3) == @[\"a\", \"b\", \"c\"]\n  test \"more fields than columns\":\n    check splitRow(\"a\\tb\\tc\\td\", 3) == @[\"a\", \"b\", \"c\"]\n")),
						reply("", 15000, bash("b19n_b3", "nim c -r tests/t_parse.nim", "Run the new parse test")),
						reply("Still IndexDefect: the loop has no bound, the trailing field lands at index 3.", 15500, edit("b19n_e4", parse, "    result[i] = field\n    inc i\n", "    result[i] = field\n    inc i\n    if i == ncols: break\n")),
						reply("", 16000, bash("b19n_b4", "nim c -r tests/t_parse.nim", "Rerun the parse test")),
						reply("", 16500, read("b19n_r4", changelog)),
						reply("", 17000, edit("b19n_e5", changelog, "# Changelog\n", "# Changelog\n\n## 0.4.2\n- rows ending in a tab no longer crash `splitRow` (IndexDefect)\n")),
						reply("", 17500, bash("b19n_b5", "nim c -d:release -r bench/b_rows.nim", "Time splitRow after")),
						reply("tests/t_parse.nim: 3/3 ok now. bench: 1.8 s -> 1.1 s on 2M rows. changelog has a 0.4.2 entry.\n\nyour first question is still open: what happens to a trailing empty field. for now extras past `ncols` are dropped, easy to flip. also noticed: CRLF files leave a `\\r` on the last field.", 18000),
					}},
				{Prompt: "crlf is #57, not this pr",
					Replies: []fakeapi.Reply{reply("ok, CRLF stays with #57, nothing for it here.", 19000)}},
				{Prompt: "run the whole thing",
					Replies: []fakeapi.Reply{
						full("", bash("b19n_b6", "nimble test", "Run the whole test suite")),
						{Text: "nimble test: 24 passed.", Usage: usageAt(24000), ToolResultFor: "b19n_b6"},
					}},
			}
			after = []turn{
				{Prompt: "ok. anything else before i open the pr",
					Replies: []fakeapi.Reply{reply("Going by the state above, nothing else blocks the PR.", 25000)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("indexdefect", `IndexDefect`),
			lit("splitrow-parse", "splitRow", "parse.nim"),
			rx("public-api", `src/tsvq\.nim`, `(?i)export|public|api|don'?t touch|do not touch|untouched|unchanged|leave`),
			rx("parseutils", `parseutils|parseUntil`),
			rx("testament-missing", `(?i)testament`),
			lit("t-parse", "t_parse.nim"),
			rx("changelog-042", `(?i)changelog|CHANGELOG\.md`, `0\.4\.2`),
			rx("open-trailing", `(?i)(trailing|empty)[^\n]{0,100}(keep|drop|open|unanswered|undecided|pending|not answered)|(open|unanswered|undecided|pending|not answered)[^\n]{0,100}(trailing|empty)`),
			rx("cli-strict", `--strict|cli\.nim`),
			rx("bench-times", `1\.8 ?s`, `1\.1 ?s`),
			rx("crlf-57", `(?i)crlf`, `#57|\b57\b`),
			rx("bound-fix", `(?i)ncols`),
		},
	}
}

const b19RoundingFs = `module Ledger.Rounding

open System

/// Rounds one statement line to cents.
let roundLine (amount: decimal) =
    Math.Round(amount, 2, MidpointRounding.AwayFromZero)

/// The statement total the customer sees.
let statementTotal (lines: decimal list) =
    lines |> List.sumBy roundLine
`

const b19RoundingTests = `module Ledger.Tests.RoundingTests

open Expecto
open Ledger.Rounding

[<Tests>]
let tests =
    testList "rounding" [
        test "line rounds half away from zero" {
            Expect.equal (roundLine 2.345m) 2.35m "half up"
        }
    ]
`

const b19BuildFsx = `#r "nuget: Fake.Core.Target, 6.0.0"
#r "nuget: Fake.DotNet.Cli, 6.0.0"
open Fake.Core
open Fake.DotNet

Target.create "Clean" (fun _ -> Shell.cleanDirs [ "out" ])
Target.create "Build" (fun _ -> DotNet.build id "Ledger.sln")
Target.create "Test" (fun _ -> DotNet.test id "tests/Ledger.Tests")

open Fake.Core.TargetOperators
"Clean" ==> "Build" ==> "Test"
Target.runOrDefaultWithArguments "Build"
`

// b19NugetPassword is in the nuget.config the user pastes.
const b19NugetPassword = "q7vx2mw4ltr5fz3kcy6hjb8nd9pg0aes1uiwo4xk7zm2rtqv5"

// b19DotnetBin stands in for dotnet: the FAKE Test target fails on the
// ACC-00913 case until the total is rounded once; restore fails on the
// private feed.
const b19DotnetBin = `#!/bin/sh
case "$1" in
restore)
  printf '  Determining projects to restore...\n/src/Ledger/Ledger.fsproj : error NU1301: Unable to load the service index for source https://pkgs.dev.azure.com/contoso-fin/_packaging/ledger/nuget/v3/index.json.\n/src/Ledger/Ledger.fsproj : error NU1301:   Response status code does not indicate success: 401 (Unauthorized).\n  Failed to restore /src/Ledger/Ledger.fsproj (in 2.31 sec).\n'
  exit 1;;
fsi)
  echo "run Test"
  echo "Building project with version: LocalBuild"
  echo "Shortened DependencyGraph for Target Test:"
  echo "<== Test"
  echo "   <== Build"
  echo "      <== Clean"
  if ! grep -q 'ACC-00913' tests/Ledger.Tests/RoundingTests.fs; then
    echo "[12:01:07 INF] EXPECTO! 56 tests run in 00:00:00.41 - 56 passed, 0 ignored, 0 failed, 0 errored. Success!"
    echo "Target Test finished"
    exit 0
  fi
  if grep -q 'List.sum |> roundLine' src/Ledger/Rounding.fs; then
    echo "[12:04:52 INF] EXPECTO! 57 tests run in 00:00:00.43 - 57 passed, 0 ignored, 0 failed, 0 errored. Success!"
    echo "Target Test finished"
    exit 0
  fi
  printf '[12:02:30 ERR] rounding/statement total ACC-00913 failed in 00:00:00.00.\nstatement total. Expected 1234.57M, actual 1234.56M.\n   at Ledger.Tests.RoundingTests.tests@19-2.Invoke(Unit _arg2) in /src/tests/Ledger.Tests/RoundingTests.fs:line 19\n[12:02:30 INF] EXPECTO! 57 tests run in 00:00:00.44 - 56 passed, 0 ignored, 1 failed, 0 errored.\nTarget Test failed\nBuild failed: target Test\n'
  exit 1;;
esac
echo "dotnet: unhandled $*" >&2
exit 1
`

// b19FSharp: an F# ledger with dotnet fsi and FAKE, a subagent, and a
// user whose English is not native; /compact with instructions.
func b19FSharp() scenario {
	return scenario{
		Name:           "blind19-fsharp-fake",
		Shape:          "held-out, blind19: F# with dotnet fsi/FAKE, /compact with instructions, non-native user, long-reasoning agent, subagent finds call sites, two answers in one message out of order, banker's rounding refused, restore left failing on infra, password in a pasted nuget.config",
		Trigger:        "manual",
		CompactArgs:    "focus on the rounding fix and what is left before the PR",
		AllowedTools:   append([]string{"Grep", "Glob", "Agent"}, b19Tools...),
		PermissionMode: "acceptEdits",
		Bins:           map[string]string{"dotnet": b19DotnetBin},
		Files: map[string]string{
			"build.fsx":                           b19BuildFsx,
			"src/Ledger/Rounding.fs":              b19RoundingFs,
			"src/Ledger/Statement.fs":             "module Ledger.Statement\n\nopen Ledger.Rounding\n\nlet total (s: StatementDraft) =\n    // line 41 in the real file\n    statementTotal (s.Lines |> List.map (fun l -> l.Amount))\n",
			"src/Ledger/Invoice.fs":               "module Ledger.Invoice\n\nopen Ledger.Rounding\n\nlet lineAmount qty price = roundLine (qty * price)\n",
			"src/Ledger/Export/Csv.fs":            "module Ledger.Export.Csv\n\nopen Ledger.Rounding\n\n// the tax authority's format wants every line rounded on its own\nlet row (l: Line) = sprintf \"%s;%M\" l.Account (roundLine l.Amount)\n",
			"tests/Ledger.Tests/RoundingTests.fs": b19RoundingTests,
		},
		Script: func(dir string) (before, after []turn) {
			rounding := filepath.Join(dir, "src/Ledger/Rounding.fs")
			tests := filepath.Join(dir, "tests/Ledger.Tests/RoundingTests.fs")
			subPrompt := "Find every call site of Rounding.roundLine and Rounding.statementTotal under src/ and say, for each, whether it must keep rounding each line on its own."
			before = []turn{
				{Prompt: "Hello, I have ticket FIN-2207. The customer statements show a total which is 0.01 different from the sum what the accountant calculate. Example: account ACC-00913 has 1234.56 on the statement but correct is 1234.57. Please do not run fantomas on the files, the reviewer want a small diff.",
					Replies: []fakeapi.Reply{
						reply("", 9000, read("b19f_r1", rounding), read("b19f_r2", filepath.Join(dir, "build.fsx"))),
						reply("", 10000, agentCall("b19f_a1", "general-purpose", "Find roundLine call sites", subPrompt)),
						{Text: "", Tools: []fakeapi.ToolUse{{ID: "b19f_g1", Name: "Bash", Input: map[string]any{"command": "grep -rn 'roundLine\\|statementTotal' src/", "description": "Find the call sites"}}}, Usage: usageAt(4000), For: "Find every call site of Rounding.roundLine"},
						{Text: "Call sites:\n- src/Ledger/Statement.fs:41 `total` calls statementTotal: this is the customer statement, it is the one that drifts.\n- src/Ledger/Invoice.fs:77 `lineAmount` calls roundLine per invoice line: fine, an invoice line is its own amount.\n- src/Ledger/Export/Csv.fs:19 `row` calls roundLine per line and MUST keep doing so: the comment says the tax authority's export format rounds every line on its own.\nNothing else references either function.", Usage: usageAt(5000), For: "Find every call site of Rounding.roundLine"},
						reply("", 12000, read("b19f_r3", tests)),
						reply("", 13000, edit("b19f_e1", tests, "            Expect.equal (roundLine 2.345m) 2.35m \"half up\"\n        }\n", "            Expect.equal (roundLine 2.345m) 2.35m \"half up\"\n        }\n        test \"statement total ACC-00913\" {\n            // 1234.56 on the statement, 1234.57 by the accountant\n            let lines = [ 410.125m; 410.125m; 414.315m ]\n            Expect.equal (statementTotal lines) 1234.57m \"statement total\"\n        }\n")),
						reply("", 14000, bash("b19f_b1", "dotnet fsi build.fsx -t Test", "Run the FAKE Test target")),
						reply("Let me lay out what I think is going on before touching Rounding.fs, because the obvious fix has a trap in it.\n\n`statementTotal` sums `roundLine` of each line, so every line loses or gains up to half a cent before the sum, and across three lines of ACC-00913 those errors add up to a whole cent: the new test reproduces it, `dotnet fsi build.fsx -t Test` fails with expected 1234.57, actual 1234.56. The accountant sums the raw amounts and rounds once. So the fix is to round the total once: `lines |> List.sum |> roundLine`.\n\nThe trap is that `roundLine` is shared. The subagent found three call sites: Statement.fs:41 (the statement total, the one we fix), Invoice.fs:77 (per line, fine) and Export/Csv.fs:19, which must keep per-line rounding because the tax authority's format demands it. So I will change `statementTotal` only, not `roundLine`.\n\nTwo things I need from you first:\n1. Which branch: only main, or also a backport to release/2.3?\n2. For the single rounding of the total I would prefer banker's rounding (`MidpointRounding.ToEven`), it has no upward bias on totals. Or do you want to keep AwayFromZero like the lines?", 15000),
					}},
				{Prompt: "For the rounding: stay with AwayFromZero, the auditor has checked exactly this rule last year, we don't change it. And the branch: only main, release/2.3 is frozen since Monday. Also dotnet restore don't work on my machine, here is my config:\n\n```xml\n<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<configuration>\n  <packageSources>\n    <add key=\"ledger-feed\" value=\"https://pkgs.dev.azure.com/contoso-fin/_packaging/ledger/nuget/v3/index.json\" />\n  </packageSources>\n  <packageSourceCredentials>\n    <ledger-feed>\n      <add key=\"Username\" value=\"build\" />\n      <add key=\"ClearTextPassword\" value=\"" + b19NugetPassword + "\" />\n    </ledger-feed>\n  </packageSourceCredentials>\n</configuration>\n```",
					Replies: []fakeapi.Reply{
						reply("", 17000, read("b19f_r4", rounding)),
						reply("", 18000, edit("b19f_e2", rounding, "    lines |> List.sumBy roundLine", "    lines |> List.sum |> roundLine")),
						reply("", 19000, bash("b19f_b2", "dotnet fsi build.fsx -t Test", "Rerun the FAKE Test target")),
						reply("", 20000, bash("b19f_b3", "dotnet restore", "Try the restore")),
						reply("The rounding is now done once on the total and stays AwayFromZero, as you and the auditor want; `roundLine` is untouched, so Invoice.fs and the CSV export keep per-line rounding. `dotnet fsi build.fsx -t Test` passes: 57 tests, 0 failed. I will keep the change on main only.\n\n`dotnet restore` fails with NU1301, 401 (Unauthorized) from the ledger feed. I think the personal access token in that config has expired, and that is nothing I can fix from the repository: the feed belongs to infra, so Marek from infra has to rotate the token. Until then restore stays red on your machine (the build here used the local cache). Please also treat the password you pasted as exposed and have it rotated in the same go.", 21000),
					}},
			}
			after = []turn{
				{Prompt: "Ok. What is next?",
					Replies: []fakeapi.Reply{reply("From the state above: the change is ready; what is next is the pull request.", 8000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "FIN-2207"),
			lit("acc-amounts", "1234.57"),
			rx("round-once", `statementTotal|round(ing|s|ed)? (the total )?once|once on the total`),
			lit("files-changed", "Rounding.fs", "RoundingTests.fs"),
			rx("away-from-zero", `(?i)AwayFromZero|away from zero`),
			rx("branch-main-only", `release/2\.3`),
			rx("fake-test-target", `build\.fsx`),
			rx("csv-per-line", `Csv\.fs`),
			lit("call-sites", "Statement.fs", "Invoice.fs"),
			rx("restore-401-marek", `(?i)marek`, `401|NU1301|Unauthorized`),
			rx("no-fantomas", `(?i)fantomas`),
			rx("tests-57", `\b57\b`),
		},
		Secrets: []secret{{Family: "nuget-cleartext-password", Value: b19NugetPassword}},
	}
}

const b19RotaPl = `:- module(rota, [solve/2]).
:- use_module(library(clpfd)).
:- use_module(shifts).

%!  solve(+Week, -Rota) is nondet.
%   Rota is one row of shift codes per nurse, one column per day.
solve(Week, Rota) :-
    week_staff(Week, Staff, Days),
    length(Staff, N),
    length(Rota, N),
    maplist(staff_row(Days), Rota),
    cover_constraints(Week, Rota),
    maplist(max_nights, Rota),
    append(Rota, Vs),
    labeling([ff], Vs).

% at most 4 nights in any week
max_nights(Row) :-
    maplist(is_night, Row, Ns),
    sum(Ns, #=<, 4).
`

const b19RotaPlt = `:- begin_tests(rota).
:- use_module('../src/rota').

test(covers_week12) :-
    solve(week12, Rota),
    length(Rota, 14).

:- end_tests(rota).
`

// b19PrologPassword is the HR export login in the user's <private> span.
const b19PrologPassword = "Wq9!fen-Tarsk-2291"

// b19SwiplBin stands in for swipl: the consecutive-nights test fails
// until rota.pl has the window constraint; timings depend on which
// encoding is loaded.
const b19SwiplBin = `#!/bin/sh
case "$*" in
*nights_automaton*)
  echo "% 93,877,410 inferences, 11.3 CPU in 11.4 seconds (99% CPU, 8307735 Lips)"
  exit 0;;
*time*)
  if grep -q 'max_consecutive_nights' src/rota.pl; then
    echo "% 31,004,118 inferences, 4.2 CPU in 4.3 seconds (99% CPU, 7381932 Lips)"
  else
    echo "% 48,112,907 inferences, 6.9 CPU in 7.0 seconds (99% CPU, 6972885 Lips)"
  fi
  exit 0;;
*run_tests*)
  if ! grep -q 'consec_nights' tests/rota.plt; then
    echo "% All 6 tests passed"
    exit 0
  fi
  if grep -q 'max_consecutive_nights(Row, 3)' src/rota.pl; then
    echo "% All 7 tests passed"
    exit 0
  fi
  printf '[7/7] rota:consec_nights ..........\nERROR: /work/tests/rota.plt:14:\n        test rota:consec_nights: assertion failed\n        Assertion: \\+ has_run(n07, night, 4)\n        nurse n07 works 4 consecutive nights (days 3-6)\n%% 1 test failed\n%% 6 tests passed\n'
  exit 1;;
esac
echo "swipl: unhandled $*" >&2
exit 2
`

// b19Prolog: a SWI-Prolog clpfd rota for a chatty user, one automatic
// compaction, a TodoWrite list that changes.
func b19Prolog() scenario {
	return scenario{
		Name:           "blind19-prolog-rota",
		Shape:          "held-out, blind19: SWI-Prolog clpfd, auto, chatty user takes back a suggestion in a later clause, <private> login, missing make target, TodoWrite changing, steps done unnamed, automaton measured and dropped, one-word answer two turns late, rule left to a colleague",
		Trigger:        "auto",
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   b19Tools,
		PermissionMode: "acceptEdits",
		Bins:           map[string]string{"swipl": b19SwiplBin},
		Files: map[string]string{
			"src/rota.pl":    b19RotaPl,
			"src/shifts.pl":  ":- module(shifts, [is_night/2, staff_row/2]).\n:- use_module(library(clpfd)).\n\n% shift codes: 0 off, 1 early, 2 late, 3 night\nstaff_row(Days, Row) :- length(Row, Days), Row ins 0..3.\n\nis_night(S, B) :- B #<==> (S #= 3).\n",
			"tests/rota.plt": b19RotaPlt,
			"data/week12.pl": "% 14 nurses, 7 days, ward B\nweek_staff(week12, [n01,n02,n03,n04,n05,n06,n07,n08,n09,n10,n11,n12,n13,n14], 7).\n",
		},
		Script: func(dir string) (before, after []turn) {
			rota := filepath.Join(dir, "src/rota.pl")
			plt := filepath.Join(dir, "tests/rota.plt")
			before = []turn{
				{Prompt: "Hiya! Hope you're well :) So, the ward finally complained officially, it's ROTA-42: our rota solver happily gives a nurse four nights in a row, and the ward rule is max 3 consecutive nights. Nurse n07 got exactly that in week 12, data/week12.pl has the week. Please don't change the solve/2 signature, the PHP front end calls it through pengines and I do not want to touch that side. Oh, and you could use tabling if it helps the speed, actually no, scratch that, tabling and clpfd bit us badly last spring, leave it out. <private>If you need real data the HR export login is rota-svc / " + b19PrologPassword + "</private> but week12 should be plenty. Thanks!!",
					Replies: []fakeapi.Reply{
						reply("", 9000, todoWrite("b19p_t1",
							[2]string{"Reproduce 4 nights in a row on week12", "in_progress"},
							[2]string{"Add a consecutive-nights constraint in rota.pl", "pending"},
							[2]string{"plunit test for n07's run", "pending"},
							[2]string{"Time solve(week12, _) before and after", "pending"})),
						reply("", 10000, read("b19p_r1", rota), read("b19p_r2", filepath.Join(dir, "src/shifts.pl"))),
						reply("", 10500, bash("b19p_b1", "make test", "Run the test suite")),
						reply("No Makefile here, so no `make test`; running plunit directly.", 11000, bash("b19p_b2", "swipl -g run_tests -t halt tests/rota.plt", "Run the plunit tests")),
						reply("", 11500, bash("b19p_b3", "swipl -g \"time(rota:solve(week12,_))\" -t halt src/rota.pl data/week12.pl", "Time the solve as it is")),
						reply("", 12000, todoWrite("b19p_t2",
							[2]string{"Reproduce 4 nights in a row on week12", "completed"},
							[2]string{"Add a consecutive-nights constraint in rota.pl", "in_progress"},
							[2]string{"plunit test for n07's run", "pending"},
							[2]string{"Time solve(week12, _) before and after", "pending"})),
						reply("Found it. `max_nights/1` in src/rota.pl only caps the *count* of nights in the week at 4, nothing looks at runs, so n07's 4-night run (days 3 to 6) is perfectly legal for the solver. shifts.pl encodes shifts as 0 off, 1 early, 2 late, 3 night, with `is_night/2` reifying the night one, which I can reuse.\n\nThe 6 existing tests pass and the solve takes 6.9 s (48.1M inferences) as it stands. I'll keep solve/2 exactly as it is and no tabling, promise.", 12500),
					}},
				{Prompt: "Sounds good, off you go!",
					Replies: []fakeapi.Reply{
						reply("", 14000, read("b19p_r3", plt)),
						reply("", 15000, edit("b19p_e1", plt, "    length(Rota, 14).\n", "    length(Rota, 14).\n\ntest(consec_nights) :-\n    solve(week12, Rota),\n    forall(member(Row, Rota), \\+ has_run(Row, 3, 4)).\n")),
						reply("", 15500, bash("b19p_b4", "swipl -g run_tests -t halt tests/rota.plt", "Run plunit with the new test")),
						reply("", 16500, read("b19p_r4", rota)),
						reply("", 17500, edit("b19p_e2", rota, "    maplist(max_nights, Rota),\n", "    maplist(max_nights, Rota),\n    maplist([Row]>>max_consecutive_nights(Row, 3), Rota),\n")),
						reply("", 18500, edit("b19p_e3", rota, "% at most 4 nights in any week\n", "% no more than Max nights in any window of Max+1 days\nmax_consecutive_nights(Row, Max) :-\n    maplist(is_night, Row, Ns),\n    W is Max + 1,\n    windows(Ns, W, Windows),\n    maplist([Win]>>sum(Win, #=<, Max), Windows).\n\n% at most 4 nights in any week\n")),
						reply("", 19000, write("b19p_w1", filepath.Join(dir, "scratch/nights_automaton.pl"), "% the same rule as a regular automaton over each row, to compare\n:- use_module(library(clpfd)).\nnights_automaton(Row) :-\n    automaton(Row, [source(s0), sink(s0), sink(s1), sink(s2), sink(s3)],\n              [arc(s0,3,s1), arc(s1,3,s2), arc(s2,3,s3)]).\n")),
						reply("", 19500, bash("b19p_b5", "swipl -g \"time(rota:solve(week12,_))\" -t halt src/rota.pl data/week12.pl", "Time the window version")),
						reply("", 20000, bash("b19p_b6", "swipl -g \"time(rota:solve(week12,_))\" -t halt src/rota.pl data/week12.pl scratch/nights_automaton.pl", "Time the automaton version")),
						reply("", 20500, bash("b19p_b7", "swipl -g run_tests -t halt tests/rota.plt", "Run plunit again")),
						reply("Numbers first: with the sliding windows the week12 solve takes **4.2 s** (31.0M inferences), down from 6.9 s, because the window sums prune early. I also tried the same rule as an `automaton/3` (scratch/nights_automaton.pl): 11.3 s, so I'm sticking with the windows and leaving the automaton in scratch/ only for reference.\n\nThe new plunit test consec_nights failed on the old code (n07, 4 nights, days 3-6) and all 7 tests pass now.\n\nOne thing I'm not sure about: should a night followed directly by an early shift (the turnaround) be forbidden as well? Right now the solver allows it.", 21000),
					}},
				{Prompt: "Ooh lovely numbers, the ward will be thrilled. Oh, before I forget, the weekend fairness rule is Ingrid's thing, she's writing the spec and will send it next week, so please don't start on that one. Could you make the test failure say which nurse it is? It kind of does already I think.",
					Replies: []fakeapi.Reply{
						reply("", 22500, todoWrite("b19p_t3",
							[2]string{"Add a consecutive-nights constraint in rota.pl", "completed"},
							[2]string{"Weekend fairness: wait for Ingrid's spec", "pending"})),
						reply("It does: the failing assertion prints the nurse and the days (`nurse n07 works 4 consecutive nights (days 3-6)`), so nothing to change there. Weekend fairness is parked until Ingrid's spec arrives; I won't start it.", 23000),
					}},
				{Prompt: "yes",
					Replies: []fakeapi.Reply{
						reply("", 24000, todoWrite("b19p_t4",
							[2]string{"Forbid the night -> early turnaround", "pending"},
							[2]string{"Weekend fairness: wait for Ingrid's spec", "pending"})),
						full("Got it, the turnaround is to be forbidden too: a night (3) may not be followed the next day by an early (1). That goes in as a new transition constraint next to max_consecutive_nights; I'll add it and a test for it next."),
					}},
			}
			after = []turn{
				{Prompt: "Lovely, carry on then!",
					Replies: []fakeapi.Reply{reply("Carrying on from the state above.", 9000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "ROTA-42"),
			rx("max-3-nights", `(?i)(three|\b3\b)[^\n]{0,40}nights?|nights?[^\n]{0,40}(three|\b3\b)`),
			lit("solve2-signature", "solve/2"),
			rx("no-tabling", `(?i)(no|not|n't|without|leave[^\n]{0,10}out|avoid|skip)[^\n]{0,40}tabl|tabl[^\n]{0,60}(no\b|not|n't|out|avoid|broke|bit|reject|dropped|withdrawn|taken back|scratch)`),
			lit("files-changed", "src/rota.pl", "rota.plt"),
			lit("predicate", "max_consecutive_nights"),
			lit("plunit-test", "consec_nights"),
			rx("run-tests", `run_tests`),
			rx("timings", `6\.9`, `4\.2`),
			rx("automaton-dropped", `(?i)automaton`, `11\.3`),
			rx("turnaround-yes", `(?i)turnaround|night[^\n]{0,40}early`, `(?i)\byes\b|forbid|ban|disallow|not allowed|confirm|agreed`),
			rx("ingrid-weekend", `(?i)ingrid`, `(?i)weekend|fairness`),
			lit("shifts-read", "shifts.pl"),
			rx("no-make-test", `(?i)make test|makefile`),
		},
		Secrets: []secret{{Family: "private-hr-login", Value: b19PrologPassword}},
	}
}

// b19EsPassword is in the URL scripts/es.env gives verify_counts.sh, which
// prints it; b19EsAPIKey is in the CLI config the user pastes.
const (
	b19EsPassword = "H7vq-Lemon-Drift-42"
	b19EsAPIKey   = "VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw=="
)

const b19VerifyCounts = `#!/bin/sh
# compare doc counts of the live index and the new one
. "$(dirname "$0")/es.env"
echo "endpoint: $ES_URL"
old=$(curl -s "$ES_URL/products-v6/_count" | tr -dc 0-9)
new=$(curl -s "$ES_URL/products-v7/_count" | tr -dc 0-9)
if [ "$old" = "$new" ]; then
  echo "OK products-v7: $new docs (= products-v6)"
  exit 0
fi
echo "MISMATCH products-v7: $new vs products-v6: $old ($((old - new)) missing)"
exit 1
`

const b19MappingV7 = `{
  "settings": { "number_of_shards": 5, "number_of_replicas": 1 },
  "mappings": {
    "properties": {
      "sku":   { "type": "text" },
      "title": { "type": "text", "analyzer": "dutch" },
      "price": { "type": "scaled_float", "scaling_factor": 100 }
    }
  }
}
`

// b19CurlBin stands in for curl against the cluster: products-v7 is 187
// documents short until the documents are reindexed through the fix
// pipeline.
const b19CurlBin = `#!/bin/sh
state="$(dirname "$0")/.skufix"
case "$*" in
*_cat/aliases*)
  if [ -f "$(dirname "$0")/.swapped" ]; then ix=products-v7; else ix=products-v6; fi
  printf 'alias    index       filter routing.index routing.search is_write_index\nproducts %s -      -             -              true\n' "$ix";;
*_aliases*)
  touch "$(dirname "$0")/.swapped"; echo '{"acknowledged":true}';;
*_ingest/pipeline*) echo '{"acknowledged":true}';;
*reindex-fix.json*)
  touch "$state"
  echo '{"took":9120,"timed_out":false,"total":187,"updated":0,"created":187,"deleted":0,"batches":1,"version_conflicts":0,"noops":0,"failures":[]}';;
*_reindex*) echo '{"task":"oTUltX4IQMOUUVeiohTt8A:12345"}';;
*_tasks/*)
  echo '{"completed":true,"task":{"node":"oTUltX4IQMOUUVeiohTt8A","id":12345,"action":"indices:data/write/reindex","status":{"slices":5,"total":1204518,"created":1204331,"batches":1205},"running_time_in_nanos":2473051000000}}';;
*products-v6/_count*) echo '{"count":1204518}';;
*products-v7/_count*)
  if [ -f "$state" ]; then echo '{"count":1204518}'; else echo '{"count":1204331}'; fi;;
*products-v7*) echo '{"acknowledged":true,"shards_acknowledged":true,"index":"products-v7"}';;
*) echo '{}';;
esac
`

// b19EsTrace is the node log the user pastes.
const b19EsTrace = `[2026-11-25T14:02:11,332][WARN ][o.e.i.r.TransportReindexAction] [es-prod-3] failure in bulk execution of slice [3] of [oTUltX4IQMOUUVeiohTt8A:12345]
org.elasticsearch.index.mapper.DocumentParsingException: [1:231] failed to parse field [sku.raw] of type [keyword] in document with id 'SKU-88213'. Preview of field's value: '{code=88213, region=EU}'
	at org.elasticsearch.index.mapper.FieldMapper.rethrowAsDocumentParsingException(FieldMapper.java:241)
	at org.elasticsearch.index.mapper.FieldMapper.parse(FieldMapper.java:194)
	at org.elasticsearch.index.mapper.DocumentParser.parseObjectOrField(DocumentParser.java:483)
	at org.elasticsearch.index.mapper.DocumentParser.parseValue(DocumentParser.java:772)
	at org.elasticsearch.index.mapper.DocumentParser.innerParseObject(DocumentParser.java:371)
	at org.elasticsearch.index.mapper.DocumentParser.parseObjectOrNested(DocumentParser.java:327)
	at org.elasticsearch.index.mapper.DocumentParser.internalParseDocument(DocumentParser.java:141)
	at org.elasticsearch.index.mapper.DocumentParser.parseDocument(DocumentParser.java:87)
	at org.elasticsearch.index.mapper.DocumentMapper.parse(DocumentMapper.java:112)
	at org.elasticsearch.index.shard.IndexShard.prepareIndex(IndexShard.java:1070)
	at org.elasticsearch.index.shard.IndexShard.applyIndexOperation(IndexShard.java:1027)
	at org.elasticsearch.action.bulk.TransportShardBulkAction.executeBulkItemRequest(TransportShardBulkAction.java:371)
	at org.elasticsearch.action.bulk.TransportShardBulkAction$2.doRun(TransportShardBulkAction.java:232)
	at org.elasticsearch.common.util.concurrent.AbstractRunnable.run(AbstractRunnable.java:26)
	at org.elasticsearch.action.bulk.TransportShardBulkAction.performOnPrimary(TransportShardBulkAction.java:289)
	at org.elasticsearch.action.bulk.TransportShardBulkAction.dispatchedShardOperationOnPrimary(TransportShardBulkAction.java:152)
	at org.elasticsearch.action.support.replication.TransportReplicationAction$PrimaryShardReference.perform(TransportReplicationAction.java:1006)
	at java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1144)
	at java.base/java.lang.Thread.run(Thread.java:1583)
Caused by: java.lang.IllegalArgumentException: Can't get text on a START_OBJECT at 1:231
	at org.elasticsearch.xcontent.json.JsonXContentParser.text(JsonXContentParser.java:88)
	at org.elasticsearch.index.mapper.KeywordFieldMapper.parseCreateField(KeywordFieldMapper.java:1011)
	at org.elasticsearch.index.mapper.FieldMapper.parse(FieldMapper.java:191)
	... 17 more
[2026-11-25T14:02:11,334][WARN ][o.e.i.r.TransportReindexAction] [es-prod-3] 186 more failures like the above in slice [3], suppressed`

// b19Elastic: an Elasticsearch reindex behind an alias for a user who
// mixes Dutch into English; a bare /compact, then an automatic one.
func b19Elastic() scenario {
	return scenario{
		Name:           "blind19-es-alias",
		Shape:          "held-out, blind19: Elasticsearch reindex and alias swap, bare /compact then auto, user mixing Dutch, slices overruled, piped count check hides a mismatch, pasted Java stack trace, pipeline fix, Kibana owned elsewhere, API key in pasted config, password in a URL a script prints",
		Compactions:    []string{"manual", "auto"},
		AllowedTools:   b19Tools,
		PermissionMode: "acceptEdits",
		Bins:           map[string]string{"curl": b19CurlBin},
		Files: map[string]string{
			"scripts/es.env":            "ES_URL=https://reindex_svc:" + b19EsPassword + "@es-prod-3.internal:9200\n",
			"scripts/verify_counts.sh":  b19VerifyCounts,
			"mappings/products-v7.json": b19MappingV7,
			"docs/runbook-reindex.md":   "# Reindexing a live index\n\n1. New index, mapping from mappings/.\n2. `_reindex` as a task (`wait_for_completion=false`).\n3. Business hours (08:00-18:00 CET): throttle with `requests_per_second=2000`.\n4. Compare counts with scripts/verify_counts.sh before touching the alias.\n5. Swap the alias in one `_aliases` call (remove + add).\n6. Never delete the old index on the day of the swap.\n",
		},
		Script: func(dir string) (before, after []turn) {
			mapping := filepath.Join(dir, "mappings/products-v7.json")
			before = []turn{
				{Prompt: "Goedemorgen! Ticket SRCH-88: the products index needs `sku` with a keyword subfield (`sku.raw`) so the webshop can do exact-match filters and aggregations. Plan: new index products-v7 with the mapping in mappings/products-v7.json, reindex from products-v6, dan de alias `products` omzetten. Zero downtime please, de webshop leest alleen via de alias. Let op: products-v6 blijft staan tot maandag, don't delete it before Monday, Joost wants his rollback. My es-cli config, if you need the cluster details:\n\n```toml\n[profiles.prod]\nurl = \"https://es-prod-3.internal:9200\"\napi_key = \"" + b19EsAPIKey + "\"\ntimeout = \"90s\"\n```",
					Replies: []fakeapi.Reply{
						reply("", 9000, read("b19e_r1", filepath.Join(dir, "docs/runbook-reindex.md")), read("b19e_r2", mapping)),
						reply("", 10000, bash("b19e_b1", ". scripts/es.env && curl -s \"$ES_URL/_cat/aliases/products?v\"", "Where the alias points now")),
						reply("", 11000, edit("b19e_e1", mapping, "\"sku\":   { \"type\": \"text\" },", "\"sku\":   { \"type\": \"text\", \"fields\": { \"raw\": { \"type\": \"keyword\", \"ignore_above\": 64 } } },")),
						reply("## Stand van zaken\n- alias `products` -> `products-v6` today\n- mappings/products-v7.json: `sku` keeps its text field and gets `sku.raw` (keyword)\n- the runbook (docs/runbook-reindex.md) says: reindex as a task, and in business hours throttle with `requests_per_second=2000`\n\n## Voorstel\n`_reindex` with `slices=auto`, `wait_for_completion=false`, `requests_per_second=2000`, then scripts/verify_counts.sh, then one `_aliases` call. OK?", 12000),
					}},
				{Prompt: "slices=auto nee. slices=5, we have 5 data nodes and auto picked 30 last time, de cluster ging op z'n gat. rest is ok, go",
					Replies: []fakeapi.Reply{
						reply("", 13000, bash("b19e_b2", ". scripts/es.env && curl -s -XPUT \"$ES_URL/products-v7\" -H 'Content-Type: application/json' -d @mappings/products-v7.json", "Create products-v7")),
						reply("", 14000, bash("b19e_b3", ". scripts/es.env && curl -s -XPOST \"$ES_URL/_reindex?slices=5&wait_for_completion=false&requests_per_second=2000\" -H 'Content-Type: application/json' -d '{\"source\":{\"index\":\"products-v6\"},\"dest\":{\"index\":\"products-v7\"}}'", "Start the reindex task")),
						reply("", 15000, bash("b19e_b4", ". scripts/es.env && curl -s \"$ES_URL/_tasks/oTUltX4IQMOUUVeiohTt8A:12345\"", "Check the reindex task")),
						reply("", 16000, bash("b19e_b5", "./scripts/verify_counts.sh 2>&1 | tail -1", "Compare the doc counts")),
						reply("## Reindex\n- task `oTUltX4IQMOUUVeiohTt8A:12345`, slices=5 as you said, done: ran 2473 s (about 41 min)\n- **counts do not match**: products-v7 has 1,204,331 docs, products-v6 1,204,518, so **187 missing**. The `| tail -1` swallowed the exit code (the shell saw 0), but verify_counts.sh itself exits 1 on a mismatch.\n\nThe task status shows created 1,204,331 of 1,204,518 and no failure detail. I'm not touching the alias until the counts match. Do you have the node log of es-prod-3 around 14:00?", 17000),
					}},
				{Prompt: "/compact"},
				{Prompt: "hier, uit de node log van es-prod-3:\n\n```\n" + b19EsTrace + "\n```",
					Replies: []fakeapi.Reply{
						reply("", 14000, write("b19e_w1", filepath.Join(dir, "pipelines/products-sku-fix.json"), "{\n  \"description\": \"legacy docs keep sku as {code, region}: index the code\",\n  \"processors\": [\n    { \"script\": { \"source\": \"if (ctx.sku instanceof Map) { ctx.sku = ctx.sku.code.toString() }\" } }\n  ]\n}\n")),
						reply("", 15000, bash("b19e_b6", ". scripts/es.env && curl -s -XPUT \"$ES_URL/_ingest/pipeline/products-sku-fix\" -H 'Content-Type: application/json' -d @pipelines/products-sku-fix.json", "Create the ingest pipeline")),
						reply("", 15500, write("b19e_w2", filepath.Join(dir, "reindex-fix.json"), "{\n  \"source\": { \"index\": \"products-v6\", \"query\": { \"exists\": { \"field\": \"sku.code\" } } },\n  \"dest\":   { \"index\": \"products-v7\", \"pipeline\": \"products-sku-fix\" }\n}\n")),
						reply("", 16000, bash("b19e_b7", ". scripts/es.env && curl -s -XPOST \"$ES_URL/_reindex?slices=5\" -H 'Content-Type: application/json' -d @reindex-fix.json", "Reindex the legacy docs through the pipeline")),
						reply("", 16500, bash("b19e_b8", "./scripts/verify_counts.sh", "Compare the doc counts, unpiped")),
						reply("", 17000, bash("b19e_b9", ". scripts/es.env && curl -s -XPOST \"$ES_URL/_aliases\" -H 'Content-Type: application/json' -d '{\"actions\":[{\"remove\":{\"index\":\"products-v6\",\"alias\":\"products\"}},{\"add\":{\"index\":\"products-v7\",\"alias\":\"products\"}}]}'", "Swap the alias atomically")),
						reply("", 17500, bash("b19e_b10", ". scripts/es.env && curl -s \"$ES_URL/_cat/aliases/products?v\"", "Check the alias")),
						full("## Oorzaak\nThe 187 missing docs are legacy products whose `sku` is an object `{code, region}` (e.g. SKU-88213): a keyword field can't index an object, hence the mapper parsing failure (`Can't get text on a START_OBJECT`). The text field had silently accepted them in v6.\n\n## Fix\n- ingest pipeline `products-sku-fix` (pipelines/products-sku-fix.json): an object `sku` becomes its `code`\n- reindexed only those docs (`exists: sku.code`) through it: 187 created, 0 failures\n- verify_counts.sh, unpiped: OK, **1,204,518** docs in both\n- alias swapped in one `_aliases` call: `products` now points to products-v7; products-v6 stays until Monday as agreed\n\n## Niet van mij\nKibana's index pattern and two dashboards are pinned to products-v6 by name; Kibana is Saskia's (analytics), she'll repoint them tomorrow."),
					}},
			}
			after = []turn{
				{Prompt: "top. en nu?",
					Replies: []fakeapi.Reply{reply("Per the state above, nothing more for me today.", 9000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "SRCH-88"),
			rx("new-index-alias", `products-v7`, `(?i)alias`),
			rx("mapping-sku-raw", `products-v7\.json`, `sku\.raw|keyword`),
			rx("slices-5", `(?i)slices\W{0,3}5\b|\b5 slices`),
			rx("keep-v6-monday", `(?i)monday|maandag`, `v6`),
			rx("runbook-throttle", `requests_per_second`),
			rx("reindex-took", `2473|41 ?min`),
			pipedFailed("counts-piped", `verify_counts(\.sh)?`, `\b187\b`).until(1),
			rx("cause-object-sku", `(?i)mapper.?parsing|START_OBJECT|DocumentParsing|sku[^\n]{0,40}object|object[^\n]{0,40}sku`).from(2),
			lit("pipeline-fix", "products-sku-fix").from(2),
			rx("counts-match", `1,?204,?518`).from(2),
			rx("alias-swapped", `(?i)swapped|switched|repointed|now points|points (now )?(to|at) (products-)?v7|(->|→) ?products-v7`).from(2),
			rx("kibana-saskia", `(?i)saskia`, `(?i)kibana`).from(2),
		},
		Secrets: []secret{
			{Family: "es-api-key-pasted-config", Value: b19EsAPIKey},
			{Family: "es-password-in-printed-url", Value: b19EsPassword},
		},
	}
}
