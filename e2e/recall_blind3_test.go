package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's third set of blind scenarios: five more held-out
// sessions, written without reading cairn's extraction or restore code
// (internal/...) nor any other scenario's facts, only the bench's types
// and helpers. Their first run is the blind measurement; their checks are
// only ever corrected where a check could not have matched a faithful
// restore.
//
// Each is a toolchain no other scenario uses, in a voice of its own:
//
//   - blind3-bazel-three: a Bazel C++ monorepo, a verbose user; three
//     compactions in a row (auto, auto, manual with instructions); a build
//     error in a .cc file fixed in its BUILD.bazel, a decision the user
//     overrules, two questions asked at the start, one answered after the
//     first compaction and one left open, a benchmark figure, an ASan
//     failure left unfixed.
//   - blind3-dbt-inturn: a dbt/Snowflake project, a user who pastes logs
//     (and a secret with them); a piped `| tee | tail` test run that
//     failed while the pipe exited 0, a failing mart test fixed in the
//     staging model, a compaction inside a turn.
//   - blind3-probe-subagent: an embedded no_std Rust firmware flashed with
//     probe-rs, a non-native speaker; a link error fixed in Cargo.toml, a
//     panic on the board found by a subagent (Agent tool), an automatic
//     compaction.
//   - blind3-ansible-oneword: an Ansible playbook, a user who answers the
//     agent's questions in one word; TodoWrite, three secrets (a vault
//     password file, an AWS key pair, one of them in a command line), a
//     decision the user reverses, a manual /compact with instructions.
//   - blind3-buf-terse: a Go service with protobuf and buf, a terse user;
//     a manual compaction then an automatic one, `buf breaking` failing
//     with exit 100, a decision reversed, a test fixed in another file, a
//     question answered between the compactions and one item left for
//     later, two secrets (a Stripe key read from .env, a database password
//     in a psql command).
//
// They run only in the report (TestRecallReport), after the blind ones,
// marked "held-out, blind3" in its shape column.

// blind3Scenarios are the third set of blind scenarios the report runs.
func blind3Scenarios() []scenario {
	return []scenario{
		blind3BazelThree(),
		blind3DbtInTurn(),
		blind3ProbeSubagent(),
		blind3AnsibleOneWord(),
		blind3BufTerse(),
	}
}

// blind3Exit matches command cmd (a regexp) told with exit code n, on the
// command's line or the one after it ("exit 3", "exit code 3", "exited
// with status 3", "(exit 3)").
func blind3Exit(cmd string, n int) string {
	return fmt.Sprintf(`(?i)%s[^\n]{0,160}(\n[^\n]{0,80})?\b(exit(ed)?|code|status)\D{0,12}\b%d\b`, cmd, n)
}

// blind3BazelThree ports a tiles library to a new abseil in a Bazel C++
// monorepo for a user who writes long, friendly paragraphs; it compacts
// automatically twice, then by hand.
func blind3BazelThree() scenario {
	bazel := `#!/bin/sh
# stand-in for bazel 7.4.1: prints what the scenario needs
case "$*" in
  "build //geo/...")
    if grep -q 'absl/strings' geo/tiles/BUILD.bazel; then
      cat <<'EOF'
INFO: Analyzed 9 targets (0 packages loaded, 0 targets configured).
INFO: Found 9 targets...
INFO: Elapsed time: 6.412s, Critical Path: 5.87s
INFO: 14 processes: 3 internal, 11 linux-sandbox.
INFO: Build completed successfully, 14 total actions
EOF
      exit 0
    fi
    cat >&2 <<'EOF'
INFO: Analyzed 9 targets (41 packages loaded, 1873 targets configured).
ERROR: /home/dev/geo/geo/tiles/BUILD.bazel:1:11: Compiling geo/tiles/quadkey.cc failed: (Exit 1): gcc failed: error executing CppCompile command (from target //geo/tiles:quadkey) /usr/bin/gcc -U_FORTIFY_SOURCE -fstack-protector -Wall -Wunused-but-set-parameter ... (remaining 38 arguments skipped)
geo/tiles/quadkey.cc:4:10: fatal error: absl/strings/str_cat.h: No such file or directory
    4 | #include "absl/strings/str_cat.h"
      |          ^~~~~~~~~~~~~~~~~~~~~~~~
compilation terminated.
INFO: Elapsed time: 3.901s, Critical Path: 1.22s
INFO: 6 processes: 6 internal.
ERROR: Build did NOT complete successfully
EOF
    exit 1 ;;
  "test //geo/tiles:all")
    if grep -q 'kMaxLevel' geo/tiles/quadkey.cc; then
      cat <<'EOF'
INFO: Analyzed 3 targets (0 packages loaded, 0 targets configured).
INFO: Found 2 targets and 1 test target...
INFO: Elapsed time: 4.118s, Critical Path: 3.64s
//geo/tiles:quadkey_test                                                 PASSED in 0.3s

Executed 1 out of 1 test: 1 test passes.
EOF
      exit 0
    fi
    cat >&2 <<'EOF'
INFO: Analyzed 3 targets (0 packages loaded, 0 targets configured).
INFO: Found 2 targets and 1 test target...
FAIL: //geo/tiles:quadkey_test (see /home/dev/.cache/bazel/_bazel_dev/4f1c0d/execroot/_main/bazel-out/k8-fastbuild/testlogs/geo/tiles/quadkey_test/test.log)
[ RUN      ] QuadkeyTest.AboveMaxLevel
geo/tiles/quadkey_test.cc:31: Failure
Expected: (key->size()) > (0u), actual: 0 vs 0
[  FAILED  ] QuadkeyTest.AboveMaxLevel (0 ms)
INFO: Elapsed time: 4.377s, Critical Path: 3.90s
//geo/tiles:quadkey_test                                                 FAILED in 0.3s

Executed 1 out of 1 test: 1 fails locally.
EOF
    exit 3 ;;
  "test --config=asan --test_output=errors //geo/tiles:all")
    cat >&2 <<'EOF'
INFO: Analyzed 3 targets (12 packages loaded, 611 targets configured).
FAIL: //geo/tiles:quadkey_test (see /home/dev/.cache/bazel/_bazel_dev/4f1c0d/execroot/_main/bazel-out/k8-fastbuild-asan/testlogs/geo/tiles/quadkey_test/test.log)
==48213==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000f3a at pc 0x55d0c1e2b9a4 bp 0x7ffd3a1c8e10 sp 0x7ffd3a1c8e08
READ of size 1 at 0x602000000f3a thread T0
    #0 0x55d0c1e2b9a3 in geo::tiles::DecodeTile(std::basic_string_view<char, std::char_traits<char> >) geo/tiles/quadkey.cc:77:18
    #1 0x55d0c1e2a51f in QuadkeyTest_RoundTrip_Test::TestBody() geo/tiles/quadkey_test.cc:48:3
SUMMARY: AddressSanitizer: heap-buffer-overflow geo/tiles/quadkey.cc:77:18 in geo::tiles::DecodeTile(std::basic_string_view<char, std::char_traits<char> >)
==48213==ABORTING
//geo/tiles:quadkey_test                                                 FAILED in 0.9s

Executed 1 out of 1 test: 1 fails locally.
EOF
    exit 3 ;;
  "run -c opt //geo/tiles:quadkey_bench -- --benchmark_filter=BM_Encode")
    cat <<'EOF'
INFO: Build completed successfully, 5 total actions
2026-11-24T14:02:33+00:00
Running /home/dev/.cache/bazel/_bazel_dev/4f1c0d/execroot/_main/bazel-out/k8-opt/bin/geo/tiles/quadkey_bench
Run on (16 X 4200 MHz CPU s)
-----------------------------------------------------------------
Benchmark                       Time             CPU   Iterations
-----------------------------------------------------------------
BM_Encode/level:12           29.4 ns         29.3 ns     23870511
BM_Encode/level:18           41.7 ns         41.6 ns     16787212
BM_Encode/level:23           52.3 ns         52.2 ns     13401998
EOF
    exit 0 ;;
  *)
    echo "bazel stand-in: unexpected arguments: $*" >&2
    exit 2 ;;
esac
`
	quadkey := `#include "geo/tiles/quadkey.h"

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace geo::tiles {

absl::StatusOr<std::string> Encode(double lat, double lng, int level) {
  std::string key;
  if (level > 23) return key;  // GEO-3318: what should happen here?
  for (int i = level; i > 0; --i) {
    absl::StrAppend(&key, Digit(lat, lng, i));
  }
  return key;
}

}  // namespace geo::tiles
`
	handler := `#include "services/tiler/handler.h"

#include "geo/tiles/quadkey.h"

namespace tiler {

Response HandleTile(const Request& req) {
  auto key = geo::tiles::Encode(req.lat(), req.lng(), req.zoom());
  if (!key.ok()) return Response::Status(500);
  return Response::Tile(Lookup(*key));
}

}  // namespace tiler
`
	sc := scenario{
		Name:        "blind3-bazel-three",
		Shape:       "held-out, blind3; Bazel C++ monorepo, auto + auto + manual; verbose user, fix in BUILD.bazel, overruled decision, question answered later, ASan left failing",
		Compactions: []string{"auto", "auto", "manual"},
		Files: map[string]string{
			"MODULE.bazel": "module(name = \"geo_monorepo\", version = \"0.0.0\")\n\nbazel_dep(name = \"abseil-cpp\", version = \"20240722.0\")\nbazel_dep(name = \"googletest\", version = \"1.15.2\")\nbazel_dep(name = \"google_benchmark\", version = \"1.8.5\")\n",
			".bazelrc":     "build --cxxopt=-std=c++20\nbuild:asan --copt=-fsanitize=address --copt=-fno-omit-frame-pointer --linkopt=-fsanitize=address\n",
			"geo/tiles/BUILD.bazel": `cc_library(
    name = "quadkey",
    srcs = ["quadkey.cc"],
    hdrs = ["quadkey.h", "portable.h"],
    deps = [
        "@abseil-cpp//absl/status:statusor",
    ],
    visibility = ["//visibility:public"],
)

cc_test(
    name = "quadkey_test",
    srcs = ["quadkey_test.cc"],
    deps = [":quadkey", "@googletest//:gtest_main"],
)

cc_binary(
    name = "quadkey_bench",
    srcs = ["quadkey_bench.cc"],
    deps = [":quadkey", "@google_benchmark//:benchmark_main"],
)
`,
			"geo/tiles/quadkey.cc":            quadkey,
			"geo/tiles/quadkey.h":             "#pragma once\n#include <string>\n#include \"absl/status/statusor.h\"\n#include \"geo/tiles/portable.h\"\n\nnamespace geo::tiles {\nabsl::StatusOr<std::string> Encode(double lat, double lng, int level);\n[[deprecated]] std::string EncodeLegacy(double lat, double lng, int level);\n}  // namespace geo::tiles\n",
			"geo/tiles/portable.h":            "#pragma once\n// Works around MSVC 19.29 lacking std::bit_cast in constexpr contexts.\n#if defined(_MSC_VER)\n#define GEO_CONSTEXPR_BITCAST inline\n#else\n#define GEO_CONSTEXPR_BITCAST constexpr\n#endif\n",
			"geo/tiles/quadkey_test.cc":       "#include \"geo/tiles/quadkey.h\"\n#include \"gtest/gtest.h\"\n\nTEST(QuadkeyTest, AboveMaxLevel) {\n  auto key = geo::tiles::Encode(52.52, 13.405, 24);\n  ASSERT_TRUE(key.ok());\n  EXPECT_GT(key->size(), 0u);\n}\n",
			"geo/tiles/quadkey_bench.cc":      "#include \"benchmark/benchmark.h\"\n#include \"geo/tiles/quadkey.h\"\n",
			"services/tiler/handler.cc":       handler,
			"services/tiler/legacy_routes.cc": "#include \"geo/tiles/quadkey.h\"\n\nnamespace tiler {\n\n// The /v1/tile route predates zoom validation.\nstd::string LegacyTileKey(double lat, double lng, int zoom) {\n  return geo::tiles::EncodeLegacy(lat, lng, zoom);\n}\n\n}  // namespace tiler\n",
			"services/tiler/server.cc":        "#include \"services/tiler/handler.h\"\n\nint main() { return tiler::Serve(); }\n",
			"third_party/earcut/earcut.hpp":   "// vendored earcut.hpp 2.2.4, do not edit\n#pragma once\n",
		},
		Bins:           map[string]string{"bazel": bazel},
		AllowedTools:   []string{"Bash(bazel:*)", "Bash(grep:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{
					Prompt: "Hi! So, a bit of context before you dive in, sorry this is long. I'm picking up GEO-3318 from Priya, who's on leave until January. " +
						"Ever since we bumped abseil to 20240722.0 in MODULE.bazel the geo tiles library doesn't build anymore, and on top of that the quadkey test " +
						"for zoom levels above the maximum has been broken for a while. Two ground rules, and I'm serious about both: please don't touch anything under " +
						"third_party/, it's vendored and the platform team owns it (they get grumpy, and rightly so); and whatever we end up with has to stay green with " +
						"both -c opt and --config=asan, because that's exactly what CI runs on every merge. Also two things I'd love to know at some point, no need to " +
						"answer right away: does anything under services/ still call the deprecated EncodeLegacy()? And could we finally drop the MSVC workaround in " +
						"geo/tiles/portable.h, or is some Windows build still depending on it? Anyway, start with the build, and thanks!",
					Replies: []fakeapi.Reply{
						reply("Starting with the build.", 21000, bash("toolu_bz_build1", "bazel build //geo/...", "Build everything under geo")),
						reply("", 22000, read("toolu_bz_readbuild", p("geo/tiles/BUILD.bazel"))),
						reply("The error shows up in quadkey.cc, but the include there is right: since abseil 20240722 the absl/status target no longer drags absl/strings in "+
							"transitively, so //geo/tiles:quadkey has to declare it itself. The fix belongs in geo/tiles/BUILD.bazel, not in the source file.", 22500,
							edit("toolu_bz_editbuild", p("geo/tiles/BUILD.bazel"), "        \"@abseil-cpp//absl/status:statusor\",\n", "        \"@abseil-cpp//absl/status:statusor\",\n        \"@abseil-cpp//absl/strings\",\n")),
						reply("", 23500, bash("toolu_bz_build2", "bazel build //geo/...", "Build again")),
						reply("The build is green again: declaring @abseil-cpp//absl/strings in geo/tiles/BUILD.bazel fixed the missing absl/strings/str_cat.h.", 24000),
					},
				},
				{
					Prompt: "Lovely, that was quicker than I feared! Could you run the tile tests now? Priya's handover note says the above-max-level case is the one " +
						"that's been failing, and I'd honestly rather understand why than just skip it.",
					Replies: []fakeapi.Reply{
						reply("", 26000, bash("toolu_bz_test1", "bazel test //geo/tiles:all", "Run the tile tests")),
						reply("", 26500, read("toolu_bz_readqk", p("geo/tiles/quadkey.cc"))),
						reply("QuadkeyTest.AboveMaxLevel fails because Encode() returns an empty key for level 24. I'll clamp levels above 23 down to 23 inside Encode(), "+
							"because services/tiler passes the zoom straight through from the URL and a hard error there would turn into a 500.", 27500,
							edit("toolu_bz_clamp", p("geo/tiles/quadkey.cc"), "  std::string key;\n  if (level > 23) return key;  // GEO-3318: what should happen here?\n",
								"  constexpr int kMaxLevel = 23;\n  std::string key;\n  level = std::min(level, kMaxLevel);\n")),
						reply("", 28500, bash("toolu_bz_test2", "bazel test //geo/tiles:all", "Run the tile tests again")),
						reply("The tile tests pass now.", 29000),
					},
				},
				{
					Prompt: "Hmm, so I've been chewing on the clamping over lunch, and I'm going to overrule it, sorry! If we silently clamp, someone asking for " +
						"level 24 gets a level-23 tile back, which is simply the wrong tile, and nobody would ever notice. Please make Encode() reject anything " +
						"above the maximum with an error status instead, and have the tiler turn that into a client error rather than a 500.",
					Replies: []fakeapi.Reply{
						reply("Fair point; reverting the clamp.", 30500,
							edit("toolu_bz_reject", p("geo/tiles/quadkey.cc"), "  level = std::min(level, kMaxLevel);\n",
								"  if (level > kMaxLevel) {\n    return absl::InvalidArgumentError(absl::StrCat(\"level \", level, \" above \", kMaxLevel));\n  }\n")),
						reply("", 31000, edit("toolu_bz_edittest", p("geo/tiles/quadkey_test.cc"), "  ASSERT_TRUE(key.ok());\n  EXPECT_GT(key->size(), 0u);\n",
							"  EXPECT_EQ(key.status().code(), absl::StatusCode::kInvalidArgument);\n")),
						reply("", 31500, read("toolu_bz_readhandler", p("services/tiler/handler.cc"))),
						reply("", 32000, edit("toolu_bz_edithandler", p("services/tiler/handler.cc"), "  if (!key.ok()) return Response::Status(500);\n",
							"  if (absl::IsInvalidArgument(key.status())) return Response::Status(400);\n  if (!key.ok()) return Response::Status(500);\n")),
						reply("", 32500, bash("toolu_bz_test3", "bazel test //geo/tiles:all", "Run the tile tests")),
						full("Done: Encode() now rejects levels above 23 with absl::InvalidArgumentError instead of clamping (a clamped request would get the wrong tile " +
							"without anyone noticing), services/tiler/handler.cc answers that with HTTP 400, and the tile tests pass."),
					},
				},
				{
					// Compaction 1 (auto) happens before this turn's first request.
					Prompt: "Great. Next, the performance part of the ticket: can you get me a number for how fast encoding is these days?",
					Replies: []fakeapi.Reply{
						reply("", 8000, bash("toolu_bz_bench", "bazel run -c opt //geo/tiles:quadkey_bench -- --benchmark_filter=BM_Encode", "Run the encode benchmark")),
						reply("Encode takes 41.7 ns per call at level 18 (52.3 ns at level 23), against the 63.2 ns in the last release notes. While I'm at it, your first question:", 9000,
							bash("toolu_bz_grep", "grep -rn EncodeLegacy services/", "Find callers of EncodeLegacy")),
						full("To answer your earlier question: the only caller of the deprecated EncodeLegacy() left under services/ is services/tiler/legacy_routes.cc, " +
							"in LegacyTileKey() for the old /v1/tile route; everything else goes through Encode()."),
					},
				},
				{
					// Compaction 2 (auto) happens before this turn's first request.
					Prompt: "Super. One last thing before I hand this back for today: the sanitizer config.",
					Replies: []fakeapi.Reply{
						reply("", 7000, bash("toolu_bz_asan", "bazel test --config=asan --test_output=errors //geo/tiles:all", "Run the tile tests under ASan")),
						reply("ASan stops the tile tests (exit code 3): a heap-buffer-overflow, a 1-byte read past the end of the buffer in DecodeTile() at geo/tiles/quadkey.cc:77. "+
							"It is a separate bug from the level check and it is not fixed yet. Next I'll make DecodeTile() stop at the end of the quadkey string instead of "+
							"reading one character past it, then rerun the asan config.", 7500),
					},
				},
				{Prompt: "/compact please keep the sanitizer finding in mind"},
			}
			after = []turn{
				{Prompt: "ok, go ahead", Replies: []fakeapi.Reply{reply("On it.", 5000)}},
				{Prompt: "and?", Replies: []fakeapi.Reply{reply("Still working through it.", 5200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "GEO-3318"),
			rx("constraint: third_party is off limits", `(?i)third_party`,
				`(?i)(touch|edit|modif|chang|alone)[^\n]{0,60}third_party|third_party[^\n]{0,80}(vendored|platform team|alone|untouched|off.limits|do not|don.t)`),
			rx("constraint: green with -c opt and asan", `(?i)-c opt[^\n]{0,80}asan|asan[^\n]{0,80}-c opt`),
			rx("failure fixed in another file: str_cat.h via BUILD.bazel", `str_cat\.h`, `geo/tiles/BUILD\.bazel`),
			// Corrected after the blind run: a restore that says the run's
			// failure was "fixed later (Bash `bazel test //geo/tiles:all`)" tells
			// the outcome faithfully; the check first wanted a pass word after
			// the command only.
			rx("command outcome: tile tests pass", `(?i)bazel test //geo/tiles:all[^\n]{0,160}(exit (code )?0\b|pass|succe|\bok\b|green)|(fixed|resolved)[^\n]{0,40}bazel test //geo/tiles:all`),
			rx("decision: reject levels above 23 with InvalidArgumentError", `InvalidArgumentError`),
			rx("decision's reason: clamping serves the wrong tile", `(?i)wrong tile`),
			lit("file changed: quadkey.cc", "geo/tiles/quadkey.cc"),
			lit("file changed: handler.cc", "services/tiler/handler.cc"),
			rx("open thread: MSVC workaround in portable.h", `portable\.h`, `(?i)msvc`),
			rx("open thread: callers of EncodeLegacy", `EncodeLegacy`).until(1),
			rx("open thread answered: legacy_routes.cc is the last caller", `legacy_routes\.cc`).from(2),
			rx("finding: Encode 41.7 ns at level 18", `41\.7`).from(2),
			rx("failing command: asan tests exit 3", blind3Exit(`config=asan`, 3)).from(3),
			rx("failure: heap-buffer-overflow in DecodeTile", `heap-buffer-overflow`).from(3),
			rx("next step: bound DecodeTile", `DecodeTile`).from(3),
		},
	}
	return sc
}

// blind3DbtInTurn fixes a failing dbt test for a user who pastes job logs
// (and the job's environment, secret and all); the test run piped through
// tee and tail failed while the pipe exited 0, and the session compacts
// inside a turn, between the rerun and the reply to its result.
func blind3DbtInTurn() scenario {
	const passphrase = "Marlin-Quartz-7391-vex!Kp"
	dbt := `#!/bin/sh
# stand-in for dbt-core 1.8.7 with dbt-snowflake: prints what the scenario needs
case "$*" in
  "test --select fct_revenue --target dev")
    if grep -q 'refund_amount_cents' models/staging/stg_orders.sql; then
      cat <<'EOF'
20:31:02  Running with dbt=1.8.7
20:31:03  Registered adapter: snowflake=1.8.4
20:31:04  Found 38 models, 113 data tests, 9 sources, 611 macros
20:31:04  Concurrency: 8 threads (target='dev')
20:31:07  Finished running 4 data tests in 0 hours 0 minutes and 2.88 seconds (2.88s).
20:31:07  Completed successfully
20:31:07  Done. PASS=4 WARN=0 ERROR=0 SKIP=0 TOTAL=4
EOF
      exit 0
    fi
    cat <<'EOF'
20:11:52  Running with dbt=1.8.7
20:11:53  Registered adapter: snowflake=1.8.4
20:11:53  Found 38 models, 112 data tests, 9 sources, 611 macros
20:11:53  Concurrency: 8 threads (target='dev')
20:11:55  1 of 4 START test not_null_fct_revenue_order_id ........................ [RUN]
20:11:55  1 of 4 PASS not_null_fct_revenue_order_id .............................. [PASS in 0.38s]
20:11:55  2 of 4 START test not_null_fct_revenue_order_total ..................... [RUN]
20:11:56  2 of 4 FAIL 214 not_null_fct_revenue_order_total ....................... [FAIL 214 in 0.41s]
20:11:56  3 of 4 PASS unique_fct_revenue_order_id ................................ [PASS in 0.40s]
20:11:56  4 of 4 PASS relationships_fct_revenue_customer_id ...................... [PASS in 0.52s]
20:11:56  Finished running 4 data tests in 0 hours 0 minutes and 3.02 seconds (3.02s).
20:11:56  Completed with 1 error and 0 warnings:
20:11:56  Failure in test not_null_fct_revenue_order_total (models/marts/_marts.yml)
20:11:56    Got 214 results, configured to fail if != 0
20:11:56  Done. PASS=3 WARN=0 ERROR=1 SKIP=0 TOTAL=4
EOF
    exit 1 ;;
  "show --inline"*)
    cat <<'EOF'
20:14:07  Running with dbt=1.8.7
20:14:08  Registered adapter: snowflake=1.8.4
20:14:09  Previewing inline node:
| STATUS   |   N |
| -------- | --- |
| refunded | 214 |
EOF
    exit 0 ;;
  *)
    echo "dbt stand-in: unexpected arguments: $*" >&2
    exit 2 ;;
esac
`
	stg := `with source as (
    select * from {{ source('shop', 'orders') }}
)

select
    order_id,
    customer_id,
    amount_cents,
    status,
    created_at
from source
`
	sc := scenario{
		Name:        "blind3-dbt-inturn",
		Shape:       "held-out, blind3; dbt/Snowflake, compaction inside a turn; user pastes logs (and a secret), piped tee|tail failure, mart test fixed in staging",
		Compactions: []string{"in-turn"},
		Files: map[string]string{
			"dbt_project.yml":                    "name: 'acme_analytics'\nversion: '1.0.0'\nprofile: 'acme'\nmodel-paths: [\"models\"]\nmacro-paths: [\"macros\"]\n",
			"models/staging/stg_orders.sql":      stg,
			"models/staging/_stg_orders.yml":     "version: 2\n\nmodels:\n  - name: stg_orders\n    columns:\n      - name: order_id\n        data_tests: [unique, not_null]\n      - name: status\n        data_tests:\n          - accepted_values:\n              values: ['placed', 'shipped', 'completed', 'returned']\n",
			"models/marts/fct_revenue.sql":       "select\n    order_id,\n    customer_id,\n    {{ cents_to_dollars('amount_cents') }} as order_total,\n    created_at::date as order_date\nfrom {{ ref('stg_orders') }}\n",
			"models/marts/fct_revenue_daily.sql": "select order_date, sum(order_total) as revenue\nfrom {{ ref('fct_revenue') }}\ngroup by 1\n",
			"models/marts/_marts.yml":            "version: 2\n\nmodels:\n  - name: fct_revenue\n    columns:\n      - name: order_id\n        data_tests: [unique, not_null]\n      - name: order_total\n        data_tests: [not_null]\n",
			"macros/cents_to_dollars.sql":        "{% macro cents_to_dollars(col) %}({{ col }} / 100)::numeric(16, 2){% endmacro %}\n",
			"logs/.gitkeep":                      "",
		},
		Bins:           map[string]string{"dbt": dbt},
		AllowedTools:   []string{"Bash(dbt:*)", "Bash(tee:*)", "Bash(tail:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			piped := "dbt test --select fct_revenue --target dev 2>&1 | tee logs/fct_revenue_test.log | tail -n 5"
			before = []turn{
				{
					Prompt: "nightly failed again, ANLT-902. log from the job:\n\n```\n06:02:11  Running with dbt=1.8.7\n06:02:11  Registered adapter: snowflake=1.8.4\n" +
						"06:02:14  Found 38 models, 112 data tests, 9 sources, 611 macros\n06:02:14  Concurrency: 16 threads (target='prod')\n...\n" +
						"06:09:40  Completed with 1 error and 2 warnings:\n06:09:40  Failure in test not_null_fct_revenue_order_total (models/marts/_marts.yml)\n" +
						"06:09:40    Got 214 results, configured to fail if != 0\n06:09:40  Done. PASS=108 WARN=2 ERROR=1 SKIP=1 TOTAL=112\n```\n\n" +
						"env of the runner in case it matters:\n\n```\nDBT_TARGET=prod\nSNOWFLAKE_ACCOUNT=acme-eu1\nSNOWFLAKE_USER=DBT_SVC\n" +
						"DBT_ENV_SECRET_SNOWFLAKE_PASSPHRASE=" + passphrase + "\n```\n\n" +
						"run only against --target dev, never prod. and do NOT just set the test to severity warn, that's how we ended up with a broken revenue dashboard for two weeks last time",
					Replies: []fakeapi.Reply{
						reply("Reproducing on dev first.", 20000, bash("toolu_dbt_piped", piped, "Run the fct_revenue tests on dev")),
						reply("Same failure on dev. order_total is only cents_to_dollars(amount_cents), so the nulls should come from upstream.", 21000,
							read("toolu_dbt_readfct", p("models/marts/fct_revenue.sql"))),
						reply("", 22000, bash("toolu_dbt_show",
							`dbt show --inline "select status, count(*) as n from {{ ref('stg_orders') }} where amount_cents is null group by 1" --target dev`,
							"Count null amounts in stg_orders by status")),
						reply("All 214 rows with a null amount_cents in stg_orders have status 'refunded'. Looks like the shop now sends refunds as their own rows, "+
							"with the amount somewhere else and amount_cents left null.", 23000),
					},
				},
				{
					Prompt: "yes that matches, from the shop team's changelog:\n\n```\n2026-11-18  orders: refunds now emitted as separate rows, status='refunded', " +
						"amount in refund_amount_cents (amount_cents NULL)\n2026-11-18  orders: status 'returned' deprecated\n```\n\n" +
						"fix it where it makes sense. also at some point check fct_revenue_daily, pretty sure it has the same issue, not now though",
					Replies: []fakeapi.Reply{
						reply("", 24000, read("toolu_dbt_readstg", p("models/staging/stg_orders.sql"))),
						reply("I'll fix it in staging, not in the mart: stg_orders turns a refund into a negative amount_cents instead of fct_revenue filtering refunds out, "+
							"because finance reconciles against net revenue, so refunds have to subtract.", 25000,
							edit("toolu_dbt_editstg", p("models/staging/stg_orders.sql"), "    amount_cents,\n",
								"    case\n        when status = 'refunded' then -refund_amount_cents\n        else amount_cents\n    end as amount_cents,\n")),
						reply("", 26000, read("toolu_dbt_readyml", p("models/staging/_stg_orders.yml"))),
						reply("Adding a not_null test on amount_cents in staging, so this kind of change fails next to the source, and 'refunded' to the accepted statuses.", 26500,
							edit("toolu_dbt_edityml", p("models/staging/_stg_orders.yml"), "        data_tests: [unique, not_null]\n      - name: status\n",
								"        data_tests: [unique, not_null]\n      - name: amount_cents\n        data_tests: [not_null]\n      - name: status\n")),
						reply("", 27000, edit("toolu_dbt_edityml2", p("models/staging/_stg_orders.yml"), "'completed', 'returned']", "'completed', 'returned', 'refunded']")),
						reply("Staging now carries refunds as negative amounts and tests amount_cents itself.", 27500),
					},
				},
				{
					Prompt: "ok rerun",
					Replies: []fakeapi.Reply{
						// The compaction comes between this call and the reply to its result.
						full("Rerunning the mart tests on dev.", bash("toolu_dbt_rerun", "dbt test --select fct_revenue --target dev", "Rerun the fct_revenue tests")),
						{Text: "The fct_revenue tests pass on dev now: PASS=4, ERROR=0.", Usage: usageAt(6000), ToolResultFor: "toolu_dbt_rerun"},
					},
				},
			}
			after = []turn{
				{Prompt: "nice. whats left", Replies: []fakeapi.Reply{reply("Just what you flagged for later.", 6500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "ANLT-902"),
			rx("constraint: dev target only, never prod", `(?i)\b(never|not|don.t|no)\b[^\n]{0,60}prod|only[^\n]{0,40}(--)?target[ =]dev`),
			rx("constraint: no severity warn", `(?i)\b(not?|never|don.t)\b[^\n]{0,80}(severity|warn)`),
			pipedFailed("piped command: dbt test failed while the pipe exited 0", `dbt test --select fct_revenue --target dev 2>&1 \| tee`,
				`(?i)(not_null_fct_revenue_order_total|dbt test)[^\n]{0,200}(fail|ERROR=1|\b214\b)|(fail|ERROR=1)[^\n]{0,120}not_null_fct_revenue_order_total`),
			lit("failure fixed: not_null_fct_revenue_order_total", "not_null_fct_revenue_order_total"),
			rx("finding: the 214 null rows are refunds", `(?i)refund`, `\b214\b`),
			rx("decision: refunds as negative amounts in staging", `(?i)refund[^\n]{0,120}negative|negative[^\n]{0,120}refund`),
			rx("decision's reason: finance reconciles net revenue", `(?i)net revenue`),
			lit("file changed: stg_orders.sql", "models/staging/stg_orders.sql"),
			lit("file changed: _stg_orders.yml", "models/staging/_stg_orders.yml"),
			rx("open thread: fct_revenue_daily", `fct_revenue_daily`),
		},
		Secrets: []secret{{"Snowflake key passphrase (pasted env)", passphrase}},
	}
	return sc
}

// blind3ProbeSubagent fixes a no_std firmware that no longer links and
// then panics on the board, for a user whose English is not native; a
// subagent finds the panic's cause.
func blind3ProbeSubagent() scenario {
	cargo := strings.ReplaceAll(`#!/bin/sh
# stand-in for cargo 1.83 (thumbv7em-none-eabihf): prints what the scenario needs
case "$*" in
  "build --release")
    if grep -q 'lto = "fat"' Cargo.toml; then
      cat >&2 <<'EOF'
   Compiling sensor-fw v0.4.0 (/home/dev/sensor-fw)
    Finished ~release~ profile [optimized + debuginfo] target(s) in 41.27s
EOF
      exit 0
    fi
    cat >&2 <<'EOF'
   Compiling embassy-nrf v0.3.1
   Compiling sensor-fw v0.4.0 (/home/dev/sensor-fw)
error: linking with ~flip-link~ failed: exit status: 1
  |
  = note: rust-lld: error: section '.text' will not fit in region 'FLASH': overflowed by 1536 bytes
          rust-lld: error: section '.rodata' will not fit in region 'FLASH': overflowed by 1536 bytes

error: could not compile ~sensor-fw~ (bin "sensor-fw") due to 1 previous error
EOF
    exit 101 ;;
  "size --release -- -A")
    cat <<'EOF'
sensor-fw  :
section             size        addr
.vector_table        256     0xc000
.text             247812     0xc100
.rodata             9088    0x48a04
.data                 56 0x20000000
.bss               21440 0x20000038
.uninit             1024 0x20005438
Total             279676
EOF
    exit 0 ;;
  "tree -i embassy-nrf")
    cat <<'EOF'
embassy-nrf v0.3.1
└── sensor-fw v0.4.0 (/home/dev/sensor-fw)
EOF
    exit 0 ;;
  *)
    echo "cargo stand-in: unexpected arguments: $*" >&2
    exit 2 ;;
esac
`, "~", "`")
	probe := strings.ReplaceAll(`#!/bin/sh
# stand-in for probe-rs 0.25 with an nRF52840-DK attached
case "$*" in
  "run --chip nRF52840_xxAA target/thumbv7em-none-eabihf/release/sensor-fw")
    echo "      Erasing ✔ 100% [####################] 252.00 KiB @  61.02 KiB/s"
    echo "  Programming ✔ 100% [####################] 252.00 KiB @  40.11 KiB/s"
    if grep -q 'bind_interrupts' src/main.rs; then
      echo "0.000000 INFO  sensor-fw 0.4.0 booting"
      echo "0.000122 INFO  radio up, advertising on channel 37"
      exit 0
    fi
    echo "0.000000 INFO  sensor-fw 0.4.0 booting"
    echo "0.000088 ERROR panicked at src/radio.rs:88:41:"
    echo 'called ~Option::unwrap()~ on a ~None~ value'
    echo "└─ panic_probe::print_defmt::print @ /home/dev/.cargo/registry/src/panic-probe-0.3.2/src/lib.rs:104"
    echo "Error: the target panicked (core halted, exit code 1)" >&2
    exit 1 ;;
  *)
    echo "probe-rs stand-in: unexpected arguments: $*" >&2
    exit 2 ;;
esac
`, "~", "`")
	radio := "use embassy_nrf::peripherals::RADIO;\n\n" + strings.Repeat("// radio driver internals\n", 83) +
		"pub fn init() -> Radio<'static> {\n    let p = unsafe { RADIO::steal_once() };\n    let radio = Radio::new(p.take().unwrap());\n    radio\n}\n"
	const subPrompt = "Find why the nRF52840 firmware panics at src/radio.rs:88 right after boot"
	sc := scenario{
		Name:  "blind3-probe-subagent",
		Shape: "held-out, blind3; no_std Rust firmware with probe-rs, auto; non-native user, link error fixed in Cargo.toml, subagent finds a panic",
		Files: map[string]string{
			"Cargo.toml": "[package]\nname = \"sensor-fw\"\nversion = \"0.4.0\"\nedition = \"2021\"\n\n[dependencies]\n" +
				"embassy-nrf = { version = \"0.3.1\", features = [\"nrf52840\", \"time-driver-rtc1\", \"gpiote\"] }\n" +
				"embassy-executor = { version = \"0.7\", features = [\"arch-cortex-m\", \"executor-thread\"] }\n" +
				"cortex-m-rt = \"0.7\"\ndefmt = \"0.3\"\ndefmt-rtt = \"0.4\"\npanic-probe = { version = \"0.3\", features = [\"print-defmt\"] }\nheapless = \"0.8\"\n\n" +
				"[profile.release]\ndebug = 2\nopt-level = 3\n",
			".cargo/config.toml":         "[build]\ntarget = \"thumbv7em-none-eabihf\"\n\n[target.thumbv7em-none-eabihf]\nrunner = \"probe-rs run --chip nRF52840_xxAA\"\nlinker = \"flip-link\"\n",
			"memory.x":                   "MEMORY\n{\n  /* mcuboot owns 0x00000..0x0C000 and the swap area after the app */\n  FLASH : ORIGIN = 0x0000C000, LENGTH = 256K\n  RAM : ORIGIN = 0x20000000, LENGTH = 256K\n}\n",
			"src/main.rs":                "#![no_std]\n#![no_main]\n\nuse embassy_executor::Spawner;\nuse {defmt_rtt as _, panic_probe as _};\n\nmod radio;\n\n#[embassy_executor::main]\nasync fn main(_spawner: Spawner) {\n    let p = embassy_nrf::init(Default::default());\n    let _radio = radio::init();\n}\n",
			"src/radio.rs":               radio,
			".github/workflows/size.yml": "name: size\non: [push]\njobs:\n  size:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: cargo size --release -- -A | awk '/^.text/ { if ($2 > 245760) exit 1 }'\n",
		},
		Bins:           map[string]string{"cargo": cargo, "probe-rs": probe},
		AllowedTools:   []string{"Bash(cargo:*)", "Bash(probe-rs:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			run := "probe-rs run --chip nRF52840_xxAA target/thumbv7em-none-eabihf/release/sensor-fw"
			sub := func(r fakeapi.Reply) fakeapi.Reply { r.For = subPrompt; return r }
			before = []turn{
				{
					Prompt: "Hello. Ticket is FW-211. After I am changing memory.x for make space to the new bootloader, the firmware is not building anymore in release. " +
						"Please you can look? Important: the application must stay under 256K of flash, the bootloader (mcuboot) is using the rest, so memory.x is " +
						"correct like it is now, please not change it. And we are no_std strict: no alloc crate, no heap, please.",
					Replies: []fakeapi.Reply{
						reply("", 20000, bash("toolu_rs_build1", "cargo build --release", "Build the release firmware")),
						reply("", 20500, read("toolu_rs_readcargo", p("Cargo.toml"))),
						reply("The link fails: .text does not fit in FLASH, overflowed by 1536 bytes. memory.x is fine (256K from 0xC000); the binary is just 1.5 KB too big. "+
							"I keep opt-level = 3 and get the space from lto = \"fat\" and codegen-units = 1 in Cargo.toml rather than opt-level = \"z\", because with \"z\" "+
							"the radio interrupt handler misses its 150 µs turnaround.", 21500,
							edit("toolu_rs_editcargo", p("Cargo.toml"), "debug = 2\nopt-level = 3\n", "debug = 2\nopt-level = 3\nlto = \"fat\"\ncodegen-units = 1\n")),
						reply("", 22500, bash("toolu_rs_build2", "cargo build --release", "Build again")),
						reply("", 23000, bash("toolu_rs_size", "cargo size --release -- -A", "Measure the sections")),
						reply("Release build links again. .text is 247812 bytes; with the vector table and .rodata the image uses 257156 of the 262144 bytes, 4988 bytes left.", 23500),
					},
				},
				{
					Prompt: "Super, thank you! I flash it on the board now with probe-rs... it crash at the start. Can you see please? Also later we need to update " +
						"the size check in .github/workflows/size.yml for the new limit, but not now.",
					Replies: []fakeapi.Reply{
						reply("", 25000, bash("toolu_rs_run1", run, "Flash and run on the board")),
						reply("It panics at src/radio.rs:88 (Option::unwrap() on None) right after boot. I'll have a subagent dig into the radio init while I keep the build state.", 26000,
							agentCall("toolu_rs_agent", "general-purpose", "Find the radio init panic", subPrompt+
								". Look at src/radio.rs and src/main.rs and at which embassy-nrf version the crate uses, and report the cause and the smallest fix.")),
						sub(reply("", 3000, bash("toolu_rs_sub_tree", "cargo tree -i embassy-nrf", "Which embassy-nrf version"))),
						sub(reply("", 3500, read("toolu_rs_sub_read", p("src/radio.rs")))),
						sub(reply("Cause: src/radio.rs:88 calls take().unwrap() on the RADIO peripheral, but with embassy-nrf 0.3.1 the peripheral is already moved out "+
							"by embassy_nrf::init() in main.rs, so take() returns None. Smallest fix: declare the RADIO interrupt with bind_interrupts! in src/main.rs and "+
							"pass p.RADIO into radio::init() instead of taking it again in radio.rs.", 4000)),
						reply("The subagent found it: RADIO is already owned by embassy_nrf::init() with embassy-nrf 0.3.1, so radio.rs:88 unwraps a None. "+
							"I'll bind the RADIO interrupt with bind_interrupts! in src/main.rs and pass the peripheral in.", 27500,
							edit("toolu_rs_editmain", p("src/main.rs"), "    let _radio = radio::init();\n",
								"    let _radio = radio::init(p.RADIO, Irqs);\n")),
						reply("", 27800, edit("toolu_rs_editmain2", p("src/main.rs"), "mod radio;\n",
							"mod radio;\n\nembassy_nrf::bind_interrupts!(pub struct Irqs {\n    RADIO => embassy_nrf::radio::InterruptHandler<embassy_nrf::peripherals::RADIO>;\n});\n")),
						reply("", 28000, edit("toolu_rs_editradio", p("src/radio.rs"),
							"pub fn init() -> Radio<'static> {\n    let p = unsafe { RADIO::steal_once() };\n    let radio = Radio::new(p.take().unwrap());\n",
							"pub fn init(p: RADIO, irqs: crate::Irqs) -> Radio<'static> {\n    let radio = Radio::new(p, irqs);\n")),
						reply("", 28500, bash("toolu_rs_build3", "cargo build --release", "Rebuild")),
						reply("", 29000, bash("toolu_rs_run2", run, "Flash and run again")),
						reply("That's it for the crash.", 30000),
					},
				},
			}
			after = []turn{
				{Prompt: "Good. And now what is next?", Replies: []fakeapi.Reply{reply("Let me see where we are.", 6000)}},
				{Prompt: "Ok.", Replies: []fakeapi.Reply{reply("Fine.", 6500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "FW-211"),
			rx("constraint: application under 256K of flash", `256 ?K`, `(?i)flash|bootloader|mcuboot`),
			rx("constraint: memory.x stays as it is", `(?i)\b(not|never|don.t|no)\b[^\n]{0,40}(chang|touch|edit|modif)[^\n]{0,30}memory\.x|memory\.x[^\n]{0,80}(correct|unchanged|as it is|leave|keep|not (be )?chang)`),
			rx("constraint: no alloc, no heap", `(?i)no[ _-]?(alloc|heap)|alloc crate|without (alloc|a heap)`),
			rx("failure fixed: FLASH overflowed by 1536 bytes", `(?i)overflow`, `1536`),
			lit("file changed: Cargo.toml", "Cargo.toml"),
			rx("decision: lto and codegen-units rather than opt-level z", `(?i)\blto\b`, `(?i)opt-level`),
			rx("decision's reason: 150 µs radio turnaround", `150 ?(µs|us)`),
			rx("finding: .text is 247812 bytes", `247[,. ]?812`),
			rx("failure: panic at src/radio.rs:88", `radio\.rs:88`),
			rx("subagent finding: bind_interrupts! for RADIO", `bind_interrupts`),
			lit("file changed: src/main.rs", "src/main.rs"),
			lit("file changed: src/radio.rs", "src/radio.rs"),
			rx("open thread: size check in size.yml", `size\.yml`),
		},
	}
	return forTrigger(sc, "auto")
}

// blind3AnsibleOneWord hardens sshd with an Ansible role for a user who
// answers the agent's questions in one word; it keeps a TodoWrite list,
// vaults a secret it finds (the secret is in the command line), and is
// compacted by hand with instructions.
func blind3AnsibleOneWord() scenario {
	const (
		vaultPass = "h7Qw!Lp2#Zr9Vt4n-oyster"
		keyID     = "AKIA4B7QZK2NW5TR9PLM"
		secretKey = "q7Rk2vLw9XbN3hTzP0mYc5JdF8sGaE1uQ4iKoV6n"
	)
	lint := `#!/bin/sh
# stand-in for ansible-lint 24.10
if grep -q 'changed_when' roles/sshd/tasks/main.yml; then
  echo "Passed: 0 failure(s), 0 warning(s) on 6 files. Last profile that met the validation criteria was 'production'."
  exit 0
fi
cat <<'EOF'
WARNING  Listing 2 violation(s) that are fatal
no-changed-when: Commands should not change things if nothing needs doing.
roles/sshd/tasks/main.yml:9 Task/Handler: Validate sshd config

risky-file-permissions: File permissions unset or incorrect.
roles/sshd/tasks/main.yml:3 Task/Handler: Render sshd_config

Read documentation for instructions on how to ignore specific rule violations.

Failed: 2 failure(s), 0 warning(s) on 6 files. Last profile that met the validation criteria was 'min'.
EOF
exit 2
`
	playbook := `#!/bin/sh
# stand-in for ansible-playbook 2.17 against the two staging bastions
case "$*" in
  "-i inventories/staging/hosts.ini site.yml --limit bastion --check --diff") ;;
  *) echo "ansible-playbook stand-in: unexpected arguments: $*" >&2; exit 5 ;;
esac
echo "PLAY [bastion] *****************************************************************"
echo "TASK [Gathering Facts] *********************************************************"
echo "ok: [bastion-stg-1]"
echo "ok: [bastion-stg-2]"
echo "TASK [sshd : Render sshd_config] ***********************************************"
echo "changed: [bastion-stg-1]"
echo "changed: [bastion-stg-2]"
echo "TASK [sshd : Validate sshd config] *********************************************"
if grep -q 'KexAlgorithm ' roles/sshd/templates/sshd_config.j2; then
  cat <<'EOF'
fatal: [bastion-stg-1]: FAILED! => {"changed": false, "cmd": ["sshd", "-t", "-f", "/etc/ssh/sshd_config.new"], "msg": "non-zero return code", "rc": 255, "stderr": "/etc/ssh/sshd_config.new line 19: Bad configuration option: KexAlgorithm\n/etc/ssh/sshd_config.new: terminating, 1 bad configuration options"}
fatal: [bastion-stg-2]: FAILED! => {"changed": false, "cmd": ["sshd", "-t", "-f", "/etc/ssh/sshd_config.new"], "msg": "non-zero return code", "rc": 255, "stderr": "/etc/ssh/sshd_config.new line 19: Bad configuration option: KexAlgorithm\n/etc/ssh/sshd_config.new: terminating, 1 bad configuration options"}

PLAY RECAP *********************************************************************
bastion-stg-1              : ok=4    changed=1    unreachable=0    failed=1    skipped=0    rescued=0    ignored=0
bastion-stg-2              : ok=4    changed=1    unreachable=0    failed=1    skipped=0    rescued=0    ignored=0
EOF
  exit 2
fi
cat <<'EOF'
ok: [bastion-stg-1]
ok: [bastion-stg-2]
RUNNING HANDLER [sshd : reload sshd] *******************************************
changed: [bastion-stg-1]
changed: [bastion-stg-2]

PLAY RECAP *********************************************************************
bastion-stg-1              : ok=9    changed=3    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0
bastion-stg-2              : ok=9    changed=3    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0
EOF
exit 0
`
	vault := `#!/bin/sh
# stand-in for ansible-vault 2.17 encrypt_string
cat <<'EOF'
Encryption successful
backup_s3_secret_key: !vault |
          $ANSIBLE_VAULT;1.1;AES256
          66386439653236336462626566653063336164663966303231363934653561363964363833
          3313366538636230623831356330623761356632640a366464663130353435303835363934
EOF
`
	template := `# Managed by Ansible (roles/sshd), do not edit by hand.
Port 22
Protocol 2
PermitRootLogin no
PasswordAuthentication yes
MaxAuthTries 6
X11Forwarding no
AllowAgentForwarding no
ClientAliveInterval 300
`
	tasks := `- name: Render sshd_config
  ansible.builtin.template:
    src: sshd_config.j2
    dest: /etc/ssh/sshd_config.new

- name: Validate sshd config
  ansible.builtin.command: sshd -t -f /etc/ssh/sshd_config.new
  notify: reload sshd
`
	groupVars := "bastion_allowed_cidrs:\n  - 10.20.0.0/16\nbackup_s3_bucket: acme-bastion-backups\nbackup_s3_access_key: " + keyID +
		"\nbackup_s3_secret_key: \"" + secretKey + "\"\n"
	sc := scenario{
		Name:        "blind3-ansible-oneword",
		Shape:       "held-out, blind3; Ansible sshd hardening, manual /compact with instructions; one-word answers, TodoWrite, 3 secrets (one in a command), decision reversed",
		Trigger:     "manual",
		CompactArgs: "focus on the sshd work, the lint details don't matter",
		Files: map[string]string{
			"ansible.cfg":                   "[defaults]\ninventory = inventories/staging/hosts.ini\nvault_password_file = .vault_pass\nroles_path = roles\n",
			".vault_pass":                   vaultPass + "\n",
			"site.yml":                      "- hosts: bastion\n  become: true\n  roles:\n    - sshd\n",
			"inventories/staging/hosts.ini": "[bastion]\nbastion-stg-1 ansible_host=10.20.0.11\nbastion-stg-2 ansible_host=10.20.0.12\n",
			"inventories/staging/group_vars/bastion.yml": groupVars,
			"roles/sshd/tasks/main.yml":                  tasks,
			"roles/sshd/templates/sshd_config.j2":        template,
			"roles/sshd/handlers/main.yml":               "- name: reload sshd\n  ansible.builtin.service:\n    name: sshd\n    state: restarted\n",
		},
		Bins:           map[string]string{"ansible-lint": lint, "ansible-playbook": playbook, "ansible-vault": vault},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(ansible-lint:*)", "Bash(ansible-playbook:*)", "Bash(ansible-vault:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			tpl := p("roles/sshd/templates/sshd_config.j2")
			check := "ansible-playbook -i inventories/staging/hosts.ini site.yml --limit bastion --check --diff"
			before = []turn{
				{
					Prompt: "INFRA-4471: harden sshd on the bastion hosts. Staging first; prod only after CAB approval. Ask if unclear.",
					Replies: []fakeapi.Reply{
						reply("", 15000, read("toolu_an_readtpl", tpl)),
						reply("", 15500, read("toolu_an_readvars", p("inventories/staging/group_vars/bastion.yml"))),
						reply("Question 1 of 3: should password authentication be disabled for every account, the breakglass user included?", 16000),
					},
				},
				{
					Prompt:  "yes",
					Replies: []fakeapi.Reply{reply("Question 2 of 3: MaxAuthTries, 3 or 4?", 16500)},
				},
				{
					Prompt: "3",
					Replies: []fakeapi.Reply{reply("Question 3 of 3: inventories/staging/group_vars/bastion.yml has backup_s3_secret_key in plain text, "+
						"committed. Shall I vault it while I'm here?", 17000)},
				},
				{
					Prompt: "yes",
					Replies: []fakeapi.Reply{
						reply("", 18000, bash("toolu_an_vault",
							"ansible-vault encrypt_string --vault-password-file .vault_pass '"+secretKey+"' --name backup_s3_secret_key",
							"Encrypt the backup secret key")),
						reply("", 18500, edit("toolu_an_editvars", p("inventories/staging/group_vars/bastion.yml"), "backup_s3_secret_key: \""+secretKey+"\"\n",
							"backup_s3_secret_key: !vault |\n          $ANSIBLE_VAULT;1.1;AES256\n          66386439653236336462626566653063336164663966303231363934653561363964363833\n          3313366538636230623831356330623761356632640a366464663130353435303835363934\n")),
						reply("", 19000, edit("toolu_an_edittpl", tpl, "PasswordAuthentication yes\nMaxAuthTries 6\n",
							"PasswordAuthentication no\nKbdInteractiveAuthentication no\nMaxAuthTries 3\nKexAlgorithm sntrup761x25519-sha512@openssh.com,curve25519-sha256\n")),
						reply("", 19500, todoWrite("toolu_an_todo1",
							[2]string{"Vault backup_s3_secret_key in staging group_vars", "completed"},
							[2]string{"Harden the sshd_config template", "completed"},
							[2]string{"Run the playbook in check mode against the staging bastions", "pending"},
							[2]string{"Rotate the deploy user's SSH key to ed25519", "pending"},
							[2]string{"Apply to prod after CAB approval", "pending"})),
						reply("", 20000, bash("toolu_an_lint1", "ansible-lint roles/sshd", "Lint the sshd role")),
						reply("", 20500, read("toolu_an_readtasks", p("roles/sshd/tasks/main.yml"))),
						reply("", 21000, edit("toolu_an_edittasks", p("roles/sshd/tasks/main.yml"),
							"    dest: /etc/ssh/sshd_config.new\n\n", "    dest: /etc/ssh/sshd_config.new\n    mode: \"0600\"\n\n")),
						reply("", 21500, edit("toolu_an_edittasks2", p("roles/sshd/tasks/main.yml"),
							"  ansible.builtin.command: sshd -t -f /etc/ssh/sshd_config.new\n", "  ansible.builtin.command: sshd -t -f /etc/ssh/sshd_config.new\n  changed_when: false\n")),
						reply("", 22000, bash("toolu_an_lint2", "ansible-lint roles/sshd", "Lint again")),
						reply("Secret vaulted, template hardened, lint clean. One more: when the config changes, may the handler restart sshd on the bastions, or reload only?", 22500),
					},
				},
				{
					Prompt: "reload",
					Replies: []fakeapi.Reply{
						reply("", 23000, read("toolu_an_readhandlers", p("roles/sshd/handlers/main.yml"))),
						reply("Reload only, no restart: switching the handler.", 23500,
							edit("toolu_an_edithandler", p("roles/sshd/handlers/main.yml"), "    state: restarted\n", "    state: reloaded\n")),
						reply("", 24000, bash("toolu_an_check1", check, "Check mode against the staging bastions")),
						reply("The check run fails on both bastions at 'Validate sshd config': sshd -t rejects 'KexAlgorithm', my typo in the template, the option is KexAlgorithms.", 24500,
							edit("toolu_an_fixkex", tpl, "KexAlgorithm sntrup761x25519", "KexAlgorithms sntrup761x25519")),
						reply("", 25000, bash("toolu_an_check2", check, "Check mode again")),
						reply("", 25500, todoWrite("toolu_an_todo2",
							[2]string{"Vault backup_s3_secret_key in staging group_vars", "completed"},
							[2]string{"Harden the sshd_config template", "completed"},
							[2]string{"Run the playbook in check mode against the staging bastions", "completed"},
							[2]string{"Rotate the deploy user's SSH key to ed25519", "pending"},
							[2]string{"Apply to prod after CAB approval", "pending"})),
						reply("Check mode is clean on bastion-stg-1 and bastion-stg-2 (changed=3, failed=0). Run it for real on staging?", 26000),
					},
				},
				{
					Prompt: "wait. breakglass keeps passwords.",
					Replies: []fakeapi.Reply{
						reply("Changing that: PasswordAuthentication stays no for everyone, with a Match User breakglass block that allows it again for that account only.", 27000,
							edit("toolu_an_match", tpl, "ClientAliveInterval 300\n", "ClientAliveInterval 300\n\nMatch User breakglass\n    PasswordAuthentication yes\n")),
						reply("", 27500, bash("toolu_an_check3", check, "Check mode again")),
						reply("Done, check mode still clean. For the change record: the reason is that on-call needs a way in when LDAP is down?", 28000),
					},
				},
				{
					Prompt:  "yes",
					Replies: []fakeapi.Reply{reply("Noted for the change record: breakglass keeps password login so on-call can get in during an LDAP outage.", 28500)},
				},
			}
			after = []turn{
				{Prompt: "next", Replies: []fakeapi.Reply{reply("Picking up from the list.", 5000)}},
				{Prompt: "ok", Replies: []fakeapi.Reply{reply("Carrying on.", 5200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "INFRA-4471"),
			rx("constraint: prod only after CAB approval", `(?i)prod[^\n]{0,80}CAB|CAB[^\n]{0,80}prod`),
			rx("constraint: reload sshd, never restart", `(?i)reload[^\n]{0,80}restart|restart[^\n]{0,80}reload|(only|just) reload`),
			rx("user's answer: MaxAuthTries 3", `(?i)MaxAuthTries\W{0,3}3\b`),
			rx("decision reversed: breakglass keeps password auth", `(?i)breakglass`, `(?i)password`),
			rx("decision's reason: on-call access when LDAP is down", `(?i)LDAP`),
			lit("file changed: sshd_config.j2", "roles/sshd/templates/sshd_config.j2"),
			lit("file changed: handlers/main.yml", "roles/sshd/handlers/main.yml"),
			lit("file changed: group_vars/bastion.yml (secret vaulted)", "inventories/staging/group_vars/bastion.yml"),
			rx("failure fixed: KexAlgorithm typo", `KexAlgorithm\b`),
			rx("command outcome: check mode clean", `(?i)ansible-playbook[^\n]{0,200}(exit (code )?0\b|pass|clean|succe|failed=0)`),
			rx("open todo: rotate deploy key to ed25519", `(?i)ed25519`),
		},
		Secrets: []secret{
			{"Ansible vault password", vaultPass},
			{"AWS access key id", keyID},
			{"AWS secret access key (in a command line)", secretKey},
		},
	}
	return sc
}

// blind3BufTerse adds a field to a protobuf API checked by buf for a user
// of very few words: compacted by hand, then automatically.
func blind3BufTerse() scenario {
	const (
		stripeKey = "sk_live_51QxBench3Zq8LrT0vYp6WmN2cK4hJ9sDfGa7XeU1oRb5TiWd"
		dbPass    = "Hq9vT2xLmR7pW4kN"
	)
	dsn := "postgres://ledger:" + dbPass + "@127.0.0.1:5432/ledger"
	buf := `#!/bin/sh
# stand-in for buf 1.47
case "$*" in
  "breaking --against .git#branch=main")
    if grep -q 'RefundReason reason = 4' proto/ledger/v1/refund.proto; then
      echo 'proto/ledger/v1/refund.proto:10:3:Field "4" with name "reason" on message "RefundRequest" changed type from "string" to "enum".'
      exit 100
    fi
    exit 0 ;;
  "generate") exit 0 ;;
  *) echo "buf stand-in: unexpected arguments: $*" >&2; exit 2 ;;
esac
`
	goBin := `#!/bin/sh
# stand-in for go 1.22 test
case "$*" in
  "test ./...") ;;
  *) echo "go stand-in: unexpected arguments: $*" >&2; exit 2 ;;
esac
if grep -q 'allowedReasonCodes' internal/api/validate.go; then
  cat <<'EOF'
ok  	example.com/ledger/cmd/gateway	0.007s
ok  	example.com/ledger/internal/api	0.021s
ok  	example.com/ledger/internal/store	(cached)
EOF
  exit 0
fi
cat <<'EOF'
ok  	example.com/ledger/cmd/gateway	0.007s
--- FAIL: TestRefundValidation (0.00s)
    --- FAIL: TestRefundValidation/unknown_reason_code (0.00s)
        refund_test.go:41: POST /v1/refunds: status = 500, want 400
FAIL
FAIL	example.com/ledger/internal/api	0.019s
ok  	example.com/ledger/internal/store	(cached)
FAIL
EOF
exit 1
`
	psql := `#!/bin/sh
# stand-in for psql 16 against the local ledger database
cat <<'EOF'
 count
-------
  1289
(1 row)

EOF
`
	proto := `syntax = "proto3";

package ledger.v1;

option go_package = "example.com/ledger/gen/go/ledger/v1;ledgerv1";

message RefundRequest {
  string payment_id = 1;
  int64 amount_minor = 2;
  string currency = 3;
  string reason = 4;
}
`
	validate := "package api\n\nimport \"fmt\"\n\nfunc validateRefund(r *ledgerv1.RefundRequest) error {\n\tif r.GetAmountMinor() <= 0 {\n\t\treturn fmt.Errorf(\"amount_minor must be positive\")\n\t}\n\treturn nil\n}\n"
	sc := scenario{
		Name:        "blind3-buf-terse",
		Shape:       "held-out, blind3; Go + protobuf/buf, manual then auto; terse user, buf breaking exit 100, decision reversed, test fixed in another file, 2 secrets",
		Compactions: []string{"manual", "auto"},
		Files: map[string]string{
			"go.mod":                       "module example.com/ledger\n\ngo 1.22\n",
			"buf.yaml":                     "version: v2\nmodules:\n  - path: proto\nbreaking:\n  use:\n    - WIRE_JSON\nlint:\n  use:\n    - STANDARD\n",
			"buf.gen.yaml":                 "version: v2\nplugins:\n  - remote: buf.build/protocolbuffers/go\n    out: gen/go\n    opt: paths=source_relative\n",
			"proto/ledger/v1/refund.proto": proto,
			"internal/api/refund.go":       "package api\n\nfunc (s *Server) CreateRefund(ctx context.Context, r *ledgerv1.RefundRequest) (*ledgerv1.Refund, error) {\n\tif err := validateRefund(r); err != nil {\n\t\treturn nil, err\n\t}\n\treturn s.store.InsertRefund(ctx, r)\n}\n",
			"internal/api/validate.go":     validate,
			"internal/api/refund_test.go":  "package api\n\nimport \"testing\"\n\nfunc TestRefundValidation(t *testing.T) {}\n",
			"cmd/gateway/main.go":          "package main\n\nvar marshaler = &runtime.JSONPb{\n\tUnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: true},\n}\n",
			".env":                         "STRIPE_SECRET_KEY=" + stripeKey + "\nDATABASE_URL=" + dsn + "\nLOG_LEVEL=debug\n",
		},
		Bins:           map[string]string{"buf": buf, "go": goBin, "psql": psql},
		AllowedTools:   []string{"Bash(buf:*)", "Bash(go:*)", "Bash(psql:*)", "Bash(grep:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			pr := p("proto/ledger/v1/refund.proto")
			breaking := "buf breaking --against '.git#branch=main'"
			before = []turn{
				{
					Prompt: "LEDGER-58. RefundRequest needs a structured reason. no breaking changes. go 1.22, don't bump. q: does the gateway drop unknown fields? find out sometime.",
					Replies: []fakeapi.Reply{
						reply("", 14000, read("toolu_pb_readproto", pr)),
						reply("Checking how the existing reasons look first; the DSN is in .env.", 15000, read("toolu_pb_readenv", p(".env"))),
						reply("", 16000, bash("toolu_pb_psql", "psql \""+dsn+"\" -c \"select count(*) from refunds where reason = ''\"", "Count refunds without a reason")),
						reply("1289 stored refunds have an empty reason string. Plan: a RefundReason enum, and field 4 (reason) switched to it.", 17000,
							edit("toolu_pb_enum", pr, "  string reason = 4;\n}\n", "  RefundReason reason = 4;\n}\n\nenum RefundReason {\n  REFUND_REASON_UNSPECIFIED = 0;\n  REFUND_REASON_DUPLICATE = 1;\n  REFUND_REASON_FRAUD = 2;\n  REFUND_REASON_CUSTOMER_REQUEST = 3;\n}\n")),
						reply("", 18000, bash("toolu_pb_breaking1", breaking, "Check for breaking changes")),
						reply("buf breaking rejects that (exit 100): changing field 4 from string to an enum breaks the wire format. Instead: `reason` stays as it is, "+
							"deprecated, and a new field 5, reason_code, carries the enum.", 19000,
							edit("toolu_pb_field5", pr, "  RefundReason reason = 4;\n}\n", "  string reason = 4 [deprecated = true];\n  RefundReason reason_code = 5;\n}\n")),
						reply("", 19500, bash("toolu_pb_breaking2", breaking, "Check again")),
						reply("buf breaking is clean.", 20000),
					},
				},
				{
					Prompt: "no enum. plain string reason_code, validated server-side. mobile pins old enum sets, new values break them.",
					Replies: []fakeapi.Reply{
						reply("Switching reason_code to a string.", 21000,
							edit("toolu_pb_string", pr, "  RefundReason reason_code = 5;\n}\n\nenum RefundReason {\n  REFUND_REASON_UNSPECIFIED = 0;\n  REFUND_REASON_DUPLICATE = 1;\n  REFUND_REASON_FRAUD = 2;\n  REFUND_REASON_CUSTOMER_REQUEST = 3;\n}\n",
								"  // One of the codes in internal/api/validate.go.\n  string reason_code = 5;\n}\n")),
						reply("", 21500, bash("toolu_pb_breaking3", breaking, "Check for breaking changes")),
						reply("", 22000, bash("toolu_pb_generate", "buf generate", "Regenerate the Go code")),
						reply("", 22500, read("toolu_pb_readrefund", p("internal/api/refund.go"))),
						reply("", 23000, edit("toolu_pb_editrefund", p("internal/api/refund.go"), "\tif err := validateRefund(r); err != nil {\n\t\treturn nil, err\n\t}\n",
							"\tif err := validateRefund(r); err != nil {\n\t\treturn nil, status.Error(codes.InvalidArgument, err.Error())\n\t}\n")),
						reply("", 23500, bash("toolu_pb_test1", "go test ./...", "Run the tests")),
						reply("TestRefundValidation/unknown_reason_code gets a 500 instead of a 400: validate.go doesn't know reason_code, so an unknown code reaches the store "+
							"and fails there. The test is right; the fix goes into internal/api/validate.go.", 24000, read("toolu_pb_readvalidate", p("internal/api/validate.go"))),
						reply("", 24500, edit("toolu_pb_editvalidate", p("internal/api/validate.go"), "\treturn nil\n}\n",
							"\tif r.GetReasonCode() != \"\" && !allowedReasonCodes[r.GetReasonCode()] {\n\t\treturn fmt.Errorf(\"unknown reason_code %q\", r.GetReasonCode())\n\t}\n\treturn nil\n}\n\n"+
								"var allowedReasonCodes = map[string]bool{\"duplicate\": true, \"fraud\": true, \"customer_request\": true}\n")),
						reply("", 25000, bash("toolu_pb_test2", "go test ./...", "Run the tests again")),
						reply("All packages pass.", 25500),
					},
				},
				{Prompt: "/compact"},
				{
					Prompt: "gateway question?",
					Replies: []fakeapi.Reply{
						reply("", 6000, bash("toolu_pb_grep", "grep -n DiscardUnknown cmd/gateway/main.go", "Look at the gateway's JSON options")),
						reply("Yes: the gateway discards unknown JSON fields (protojson DiscardUnknown: true in cmd/gateway/main.go), so an old gateway ignores reason_code "+
							"instead of rejecting the request, and old clients that never send it are unaffected.", 7000),
					},
				},
				{
					Prompt:  "good. later: metrics per reason_code. not now.",
					Replies: []fakeapi.Reply{full("Noted for later.")},
				},
			}
			after = []turn{
				{Prompt: "status?", Replies: []fakeapi.Reply{reply("Here's where things stand.", 5000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "LEDGER-58"),
			rx("constraint: no breaking changes", `(?i)\b(no|not?|never|without|avoid)\b[^\n]{0,20}breaking`),
			rx("constraint: stay on go 1.22", `1\.22`),
			rx("finding: 1289 refunds with an empty reason", `1[,.]?289`),
			rx("failed command: buf breaking exit 100", blind3Exit(`buf breaking`, 100)),
			rx("decision reversed: reason_code is a plain string", `(?i)string[^\n]{0,60}reason_code|reason_code[^\n]{0,60}string`),
			rx("decision's reason: mobile pins old enum sets", `(?i)mobile`),
			lit("file changed: refund.proto", "proto/ledger/v1/refund.proto"),
			lit("failure fixed: TestRefundValidation", "TestRefundValidation"),
			lit("file changed: validate.go (the fix)", "internal/api/validate.go"),
			lit("file changed: refund.go", "internal/api/refund.go"),
			rx("open thread: does the gateway drop unknown fields", `(?i)unknown fields?`).until(1),
			rx("open thread answered: DiscardUnknown", `DiscardUnknown`).from(2),
			rx("open thread: metrics per reason_code", `(?i)metrics?[^\n]{0,40}reason_code|reason_code[^\n]{0,40}metric`).from(2),
		},
		Secrets: []secret{
			{"Stripe live secret key (.env, read)", stripeKey},
			{"Postgres password (DSN in a psql command)", dbPass},
		},
	}
	return sc
}

// TestBlind3FactChecks checks each blind3 check against a restore written
// by hand that carries its fact faithfully, in words other than the
// session's where a restore may paraphrase: a check that could not match
// it would count a faithful restore as a loss. It was written before the
// scenarios' first (blind) run.
func TestBlind3FactChecks(t *testing.T) {
	faithful := map[string]string{
		"blind3-bazel-three": `Ticket: GEO-3318
- User: please don't touch anything under third_party/, it's vendored and the platform team owns it
- User: has to stay green with both -c opt and --config=asan
- Fixed: geo/tiles/quadkey.cc: fatal error: absl/strings/str_cat.h: No such file or directory — added @abseil-cpp//absl/strings to geo/tiles/BUILD.bazel
- ` + "`bazel test //geo/tiles:all`" + ` → exit 0 (passed)
- Decision: Encode() rejects levels above 23 with absl::InvalidArgumentError (user overruled clamping: a clamped request gets the wrong tile)
- Files: geo/tiles/quadkey.cc, services/tiler/handler.cc
- Open: can we drop the MSVC workaround in geo/tiles/portable.h?
- Open: does anything under services/ still call EncodeLegacy()?
- Answered: only services/tiler/legacy_routes.cc calls EncodeLegacy
- Encode takes 41.7 ns at level 18
- ` + "`bazel test --config=asan --test_output=errors //geo/tiles:all`" + ` → exit 3
- AddressSanitizer: heap-buffer-overflow geo/tiles/quadkey.cc:77:18 in DecodeTile
- Next: make DecodeTile() stop at the end of the string`,
		"blind3-dbt-inturn": `Ticket: ANLT-902
- run only against --target dev, never prod
- do NOT just set the test to severity warn
- ` + "`dbt test --select fct_revenue --target dev 2>&1 | tee logs/fct_revenue_test.log | tail -n 5`" + ` → failed: not_null_fct_revenue_order_total Got 214 results (pipe exit 0)
- All 214 rows with a null amount_cents have status 'refunded'
- Decision: refunds become a negative amount_cents in staging, because finance reconciles against net revenue
- Files: models/staging/stg_orders.sql, models/staging/_stg_orders.yml
- Open: check fct_revenue_daily`,
		"blind3-probe-subagent": `Ticket: FW-211
- the application must stay under 256K of flash, the bootloader (mcuboot) is using the rest, so memory.x is correct like it is now, please not change it
- no_std strict: no alloc crate, no heap
- Fixed: rust-lld: section '.text' will not fit in region 'FLASH': overflowed by 1536 bytes
- Files: Cargo.toml, src/main.rs, src/radio.rs
- Decision: keep opt-level = 3, lto = "fat" and codegen-units = 1 rather than opt-level = "z", because with z the radio ISR misses its 150 µs turnaround
- .text is 247812 bytes
- probe-rs run: panicked at src/radio.rs:88:41
- Subagent: declare RADIO with bind_interrupts! in src/main.rs
- Open: update the size check in .github/workflows/size.yml`,
		"blind3-ansible-oneword": `Ticket: INFRA-4471
- Staging first; prod only after CAB approval
- User: reload only, never restart sshd
- MaxAuthTries 3
- Decision: breakglass keeps password auth (Match User breakglass), reason: on-call access when LDAP is down
- Files: roles/sshd/templates/sshd_config.j2, roles/sshd/handlers/main.yml, inventories/staging/group_vars/bastion.yml
- Fixed: Bad configuration option: KexAlgorithm
- ` + "`ansible-playbook -i inventories/staging/hosts.ini site.yml --limit bastion --check --diff`" + ` → exit 0
- Todo: Rotate the deploy user's SSH key to ed25519`,
		"blind3-buf-terse": `Ticket: LEDGER-58
- no breaking changes. go 1.22, don't bump.
- 1289 stored refunds have an empty reason
- ` + "`buf breaking --against '.git#branch=main'`" + ` → exit 100
- Decision: plain string reason_code, validated server-side (mobile pins old enum sets)
- Files: proto/ledger/v1/refund.proto, internal/api/validate.go, internal/api/refund.go
- Fixed: TestRefundValidation
- Open: does the gateway drop unknown fields?
- Answered: DiscardUnknown: true
- Later: metrics per reason_code`,
	}
	for _, sc := range blind3Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			text, ok := faithful[sc.Name]
			if !ok {
				t.Fatal("no faithful restore written for this scenario")
			}
			for _, f := range sc.Facts {
				if !f.in(text) {
					t.Errorf("%s: a faithful restore does not match it", f.Name)
				}
			}
		})
	}
	// A restore that reports the piped dbt run as a success has lost it.
	dbt := blind3DbtInTurn()
	for _, f := range dbt.Facts {
		if strings.HasPrefix(f.Name, "piped command") {
			lie := "- `dbt test --select fct_revenue --target dev 2>&1 | tee logs/fct_revenue_test.log | tail -n 5` → exit 0\n- not_null_fct_revenue_order_total failed"
			if f.in(lie) || !f.contradicted(lie) {
				t.Errorf("%s: credited to a restore that reports the piped run as exit 0", f.Name)
			}
		}
	}
}
