package e2e

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's eighth blind set: four held-out sessions written
// without reading cairn's extraction, checkpoint, render or redaction code,
// nor any other scenario's facts; only the bench's types and helpers. Their
// first run on main is the blind measurement.
//
// Each is a toolchain no earlier set used (CMake/C++ with sanitizers,
// FastAPI with alembic and pytest, Flutter/Dart, an nginx/Redis/CDN
// incident) in a voice of its own (terse, a long prompt with a pasted
// traceback, a chatty user answering questions one word at a time, an
// on-call engineer on a bridge). One compacts three times, one of them
// inside a turn; one delegates a code search to a subagent; one compacts by
// hand with instructions, then automatically; one plants four secrets of
// different kinds. Some facts carry a wrong claim (a question paired with
// the answer taken back, a fixed error shown as open): a restore making it
// loses the fact.
//
// They run only in the report (TestRecallReport), marked "held-out,
// blind8" in its shape column.

// blind8Scenarios are the eighth blind set.
func blind8Scenarios() []scenario {
	return []scenario{
		blind8CMakeSanitizers(),
		blind8FastAPIAlembic(),
		blind8FlutterAnswers(),
		blind8EdgeIncident(),
	}
}

// blind8Exit is a command reported with exit code code, in any of the
// usual phrasings, on the same line as the command.
func blind8Exit(cmd string, code int) string {
	return fmt.Sprintf(`(?i)%s[^\n]{0,160}\b(exit(ed)?|code|status|rc)\b[^\n]{0,12}\b%d\b`, cmd, code)
}

// blind8Paired is the claim that the question ending in question was
// answered with another question's answer: the question followed on its
// line, within 50 characters, by one of wrong. Added after the blind run
// (a separate commit): the checks committed before it caught only "label:
// wrong value", and the restore paired questions with wrong answers as
// quotes.
func blind8Paired(question string, wrong ...string) string {
	return `(?i)` + question + `[^\n]{0,50}\W(` + strings.Join(wrong, "|") + `)\b`
}

// blind8CMakeSanitizers: a terse user, a C++ geometry library built with
// ASan, UBSan and TSan presets; an ASan use-after-free fixed, a piped
// UBSan run that printed failures, an auto compaction, a one-word decision,
// a TSan run whose result arrives after a compaction inside the turn, and
// a manual /compact at the end.
func blind8CMakeSanitizers() scenario {
	cmake := `#!/bin/sh
# stand-in for cmake: configure and build output for the presets
case "$1" in
  --preset)
    echo "Preset CMake variables:"
    echo ""
    echo "  CMAKE_BUILD_TYPE=\"RelWithDebInfo\""
    echo "  TESSEL_SANITIZER=\"$2\""
    echo ""
    echo "-- The CXX compiler identification is Clang 19.1.7"
    echo "-- Detecting CXX compiler ABI info - done"
    echo "-- Check for working CXX compiler: /usr/bin/clang++ - skipped"
    echo "-- Performing Test HAVE_FSANITIZE_$2 - Success"
    echo "-- Found Threads: TRUE"
    echo "-- Configuring done (1.9s)"
    echo "-- Generating done (0.1s)"
    echo "-- Build files have been written to: build/$2"
    ;;
  --build)
    p="$3"
    for f in core/threadpool mesh/halfedge mesh/io_obj geom/predicates geom/triangulate; do
      echo "[$(( $(echo $f | wc -c) % 9 + 1 ))/41] Building CXX object src/CMakeFiles/tessel.dir/$f.cpp.o"
    done
    echo "[39/41] Linking CXX static library src/libtessel.a"
    echo "[40/41] Linking CXX executable tests/tessel_tests"
    echo "[41/41] Linking CXX executable tools/tessel-cli"
    ;;
esac
exit 0
`
	ctest := `#!/bin/sh
# stand-in for ctest with the presets' outcomes
case "$*" in
  *"--preset asan"*)
    if grep -q 'const EdgeId he' src/mesh/halfedge.cpp; then
      echo "Test project build/asan"
      echo "    Start 12: halfedge.collapse_boundary"
      echo "1/3 Test #12: halfedge.collapse_boundary ........   Passed    0.31 sec"
      echo "2/3 Test #13: halfedge.collapse_interior ........   Passed    0.28 sec"
      echo "3/3 Test #14: halfedge.flip_and_split ...........   Passed    0.22 sec"
      echo ""
      echo "100% tests passed, 0 tests failed out of 3"
      exit 0
    fi
    echo "Test project build/asan"
    echo "    Start 12: halfedge.collapse_boundary"
    echo "1/3 Test #12: halfedge.collapse_boundary ........***Failed    0.44 sec"
    echo "=================================================================="
    echo "==48213==ERROR: AddressSanitizer: heap-use-after-free on address 0x6080000003a8 at pc 0x55d1c2e4b1f0 bp 0x7ffd6b1e0a10 sp 0x7ffd6b1e0a08"
    echo "READ of size 4 at 0x6080000003a8 thread T0"
    echo "    #0 0x55d1c2e4b1ef in tessel::HalfEdgeMesh::collapseEdge(unsigned int) src/mesh/halfedge.cpp:214:27"
    echo "    #1 0x55d1c2e3f0a2 in HalfEdge_collapse_boundary_Test::TestBody() tests/mesh/halfedge_test.cpp:88:3"
    echo "    #2 0x55d1c2f1c9d4 in testing::Test::Run() gtest.cc:2687:5"
    echo "0x6080000003a8 is located 8 bytes inside of 96-byte region [0x6080000003a0,0x608000000400)"
    echo "freed by thread T0 here:"
    echo "    #0 0x55d1c2e0d3ad in operator delete(void*) asan_new_delete.cpp:152:3"
    echo "    #1 0x55d1c2e4c611 in std::vector<tessel::HalfEdge>::_M_realloc_append stl_vector.h:1287:7"
    echo "    #2 0x55d1c2e4b0c3 in tessel::HalfEdgeMesh::collapseEdge(unsigned int) src/mesh/halfedge.cpp:209:12"
    echo "previously allocated by thread T0 here:"
    echo "    #0 0x55d1c2e0cb4d in operator new(unsigned long) asan_new_delete.cpp:95:3"
    echo "SUMMARY: AddressSanitizer: heap-use-after-free src/mesh/halfedge.cpp:214:27 in tessel::HalfEdgeMesh::collapseEdge(unsigned int)"
    echo "==48213==ABORTING"
    echo "2/3 Test #13: halfedge.collapse_interior ........   Passed    0.29 sec"
    echo "3/3 Test #14: halfedge.flip_and_split ...........   Passed    0.21 sec"
    echo ""
    echo "67% tests passed, 1 tests failed out of 3"
    echo ""
    echo "The following tests FAILED:"
    echo "	 12 - halfedge.collapse_boundary (Failed)"
    echo "Errors while running CTest"
    exit 8
    ;;
  *"--preset ubsan"*)
    echo "Test project build/ubsan"
    i=1
    while [ $i -le 35 ]; do
      echo "$i/37 Test #$i: suite.case_$i ...................   Passed    0.0$((i % 9)) sec"
      i=$((i + 1))
    done
    if grep -q 'int64_t' src/geom/predicates.cpp; then
      echo "36/37 Test #36: predicates.orient2d_large ........   Passed    0.02 sec"
      echo "37/37 Test #37: triangulate.delaunay_grid ........   Passed    0.41 sec"
      echo ""
      echo "100% tests passed, 0 tests failed out of 37"
      exit 0
    fi
    echo "src/geom/predicates.cpp:88:31: runtime error: signed integer overflow: 2147480000 * 46341 cannot be represented in type 'int'"
    echo "36/37 Test #36: predicates.orient2d_large ........***Failed    0.02 sec"
    echo "37/37 Test #37: triangulate.delaunay_grid ........***Failed    0.40 sec"
    echo ""
    echo "95% tests passed, 2 tests failed out of 37"
    echo ""
    echo "The following tests FAILED:"
    echo "	 36 - predicates.orient2d_large (Failed)"
    echo "	 37 - triangulate.delaunay_grid (Failed)"
    echo "Errors while running CTest"
    exit 8
    ;;
  *"--preset tsan"*)
    if grep -q 'std::atomic<bool> stop_' src/core/threadpool.h; then
      echo "Test project build/tsan"
      echo "1/2 Test #21: threadpool.shutdown_while_busy ....   Passed    1.12 sec"
      echo "2/2 Test #22: threadpool.resubmit ...............   Passed    0.87 sec"
      echo ""
      echo "100% tests passed, 0 tests failed out of 2"
      exit 0
    fi
    echo "Test project build/tsan"
    echo "1/2 Test #21: threadpool.shutdown_while_busy ....***Failed    1.40 sec"
    echo "=================="
    echo "WARNING: ThreadSanitizer: data race (pid=51877)"
    echo "  Write of size 1 at 0x7b0c00000158 by main thread:"
    echo "    #0 tessel::ThreadPool::shutdown() src/core/threadpool.cpp:142:11"
    echo "    #1 ThreadPool_shutdown_while_busy_Test::TestBody() tests/core/threadpool_test.cpp:51:8"
    echo "  Previous read of size 1 at 0x7b0c00000158 by thread T3:"
    echo "    #0 tessel::ThreadPool::workerLoop() src/core/threadpool.cpp:97:17"
    echo "  Location is heap block of size 216 at 0x7b0c00000080 allocated by main thread"
    echo "SUMMARY: ThreadSanitizer: data race src/core/threadpool.cpp:142:11 in tessel::ThreadPool::shutdown()"
    echo "=================="
    echo "2/2 Test #22: threadpool.resubmit ...............   Passed    0.91 sec"
    echo ""
    echo "50% tests passed, 1 tests failed out of 2"
    echo "Errors while running CTest"
    exit 8
    ;;
esac
echo "No tests were found!!!"
exit 0
`
	halfedge := "#include \"tessel/mesh/halfedge.h\"\n\nnamespace tessel {\n\n// collapseEdge merges the two ends of edge e.\nvoid HalfEdgeMesh::collapseEdge(EdgeId e) {\n  auto& he = edges_[e];\n  edges_.push_back(HalfEdge{he.twin, he.next});\n  faces_[he.face].edge = he.next;\n}\n\n}  // namespace tessel\n"
	predicates := "#include <cstdint>\n\nnamespace tessel {\n\n// orient2d is the sign of the signed area of a, b, c.\nint orient2d(Point a, Point b, Point c) {\n  int32_t det = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);\n  return (det > 0) - (det < 0);\n}\n\n}  // namespace tessel\n"
	threadpool := "#pragma once\n#include <condition_variable>\n#include <thread>\n#include <vector>\n\nnamespace tessel {\n\nclass ThreadPool {\n public:\n  void shutdown();\n\n private:\n  std::vector<std::thread> workers_;\n  std::condition_variable cv_;\n  bool stop_ = false;\n};\n\n}  // namespace tessel\n"
	presets := `{
  "version": 6,
  "configurePresets": [
    {"name": "base", "hidden": true, "generator": "Ninja", "binaryDir": "build/${presetName}",
     "cacheVariables": {"CMAKE_BUILD_TYPE": "RelWithDebInfo", "CMAKE_CXX_FLAGS": "-O1 -fno-omit-frame-pointer"}},
    {"name": "asan", "inherits": "base", "cacheVariables": {"TESSEL_SANITIZER": "address"}},
    {"name": "ubsan", "inherits": "base", "cacheVariables": {"TESSEL_SANITIZER": "undefined"}}
  ],
  "buildPresets": [
    {"name": "asan", "configurePreset": "asan"},
    {"name": "ubsan", "configurePreset": "ubsan"}
  ],
  "testPresets": [
    {"name": "asan", "configurePreset": "asan", "output": {"outputOnFailure": true}},
    {"name": "ubsan", "configurePreset": "ubsan", "output": {"outputOnFailure": true}}
  ]
}
`
	sc := scenario{
		Name:        "blind8-cmake-sanitizers",
		Shape:       "held-out, blind8; CMake/C++ with ASan/UBSan/TSan presets, auto, in-turn, then manual; terse user, one-word decision, piped ctest failure",
		Compactions: []string{"auto", "in-turn", "manual"},
		Files: map[string]string{
			"CMakeLists.txt":               "cmake_minimum_required(VERSION 3.28)\nproject(tessel CXX)\nset(CMAKE_CXX_STANDARD 20)\nadd_subdirectory(src)\nadd_subdirectory(tests)\n",
			"CMakePresets.json":            presets,
			"src/mesh/halfedge.cpp":        halfedge,
			"src/geom/predicates.cpp":      predicates,
			"src/core/threadpool.h":        threadpool,
			"third_party/robust/README.md": "Shewchuk's robust predicates, vendored as-is.\n",
		},
		Bins:           map[string]string{"cmake": cmake, "ctest": ctest},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{
					Prompt: "GEO-318. asan build of tessel crashes in the halfedge tests. use the asan preset, don't touch third_party/. no new deps.",
					Replies: []fakeapi.Reply{
						reply("", 14000, bash("toolu_b8c_conf", "cmake --preset asan", "Configure the ASan preset")),
						reply("", 15000, bash("toolu_b8c_build", "cmake --build --preset asan -j2 2>&1 | tail -25", "Build with ASan")),
						reply("", 16500, bash("toolu_b8c_asan1", "ctest --preset asan -R halfedge --output-on-failure", "Run the halfedge tests under ASan")),
						reply("", 18000, read("toolu_b8c_read_he", p("src/mesh/halfedge.cpp"))),
						reply("heap-use-after-free in HalfEdgeMesh::collapseEdge: `he` is a reference into `edges_`, and the `push_back` two lines later reallocates the vector, so `he.face` reads freed memory. I'll store the edge index instead of holding a reference, rather than calling edges_.reserve() up front: reserve() only hides it until the next growth.", 19500,
							edit("toolu_b8c_edit_he", p("src/mesh/halfedge.cpp"), "  auto& he = edges_[e];\n  edges_.push_back(HalfEdge{he.twin, he.next});\n  faces_[he.face].edge = he.next;",
								"  const EdgeId he = e;\n  const HalfEdge copy = edges_[he];\n  edges_.push_back(HalfEdge{copy.twin, copy.next});\n  faces_[edges_[he].face].edge = edges_[he].next;")),
						reply("", 21000, bash("toolu_b8c_asan2", "ctest --preset asan -R halfedge --output-on-failure", "Rerun the halfedge tests under ASan")),
						reply("halfedge tests pass under ASan now (3/3).", 22000),
					},
				},
				{
					Prompt: "ubsan too. full suite",
					Replies: []fakeapi.Reply{
						reply("", 23500, bash("toolu_b8c_ubconf", "cmake --preset ubsan && cmake --build --preset ubsan -j2 2>&1 | tail -5", "Configure and build UBSan")),
						reply("", 25000, bash("toolu_b8c_ub1", "ctest --preset ubsan 2>&1 | tail -15", "Run the full suite under UBSan")),
						reply("Two failures under UBSan: signed integer overflow in orient2d at src/geom/predicates.cpp:88, the int32 product of two coordinate deltas overflows on the large-coordinate test, and delaunay_grid fails through it. Options: widen the determinant to int64, or use the exact predicates in third_party/robust (off-limits per your note). Which one?",
							26000),
					},
				},
				{
					Prompt: "widen it.",
					Replies: []fakeapi.Reply{
						reply("", 27000, edit("toolu_b8c_edit_pred", p("src/geom/predicates.cpp"), "  int32_t det = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);",
							"  const int64_t det = int64_t(b.x - a.x) * (c.y - a.y) - int64_t(b.y - a.y) * (c.x - a.x);")),
						full("Widened the orient2d determinant to int64_t; rerunning the UBSan suite next."),
					},
				},
				{
					Prompt: "go",
					Replies: []fakeapi.Reply{
						reply("", 8000, bash("toolu_b8c_ub2", "ctest --preset ubsan 2>&1 | tail -15", "Rerun the UBSan suite")),
						reply("", 9000, todoWrite("toolu_b8c_todo",
							[2]string{"Fix ASan use-after-free in collapseEdge", "completed"},
							[2]string{"Fix UBSan overflow in orient2d", "completed"},
							[2]string{"Add a TSan preset", "in_progress"},
							[2]string{"Fuzz the OBJ loader with libFuzzer", "pending"})),
						reply("UBSan suite: 37/37 pass.", 10000),
					},
				},
				{
					Prompt: "tsan preset next. keep -O1 for sanitizer builds, -O0 hides races.",
					Replies: []fakeapi.Reply{
						reply("", 11000, read("toolu_b8c_read_presets", p("CMakePresets.json"))),
						reply("", 12500, edit("toolu_b8c_edit_presets", p("CMakePresets.json"),
							"    {\"name\": \"ubsan\", \"inherits\": \"base\", \"cacheVariables\": {\"TESSEL_SANITIZER\": \"undefined\"}}\n  ],",
							"    {\"name\": \"ubsan\", \"inherits\": \"base\", \"cacheVariables\": {\"TESSEL_SANITIZER\": \"undefined\"}},\n    {\"name\": \"tsan\", \"inherits\": \"base\", \"cacheVariables\": {\"TESSEL_SANITIZER\": \"thread\"}}\n  ],")),
						reply("", 13500, edit("toolu_b8c_edit_presets2", p("CMakePresets.json"),
							"    {\"name\": \"ubsan\", \"configurePreset\": \"ubsan\", \"output\": {\"outputOnFailure\": true}}\n",
							"    {\"name\": \"ubsan\", \"configurePreset\": \"ubsan\", \"output\": {\"outputOnFailure\": true}},\n    {\"name\": \"tsan\", \"configurePreset\": \"tsan\", \"output\": {\"outputOnFailure\": true}}\n")),
						reply("", 14500, bash("toolu_b8c_tconf", "cmake --preset tsan && cmake --build --preset tsan -j2 2>&1 | tail -8", "Configure and build TSan")),
						full("", bash("toolu_b8c_tsan1", "ctest --preset tsan -j1 -R threadpool --output-on-failure", "Run the threadpool tests under TSan")),
						fakeapi.Reply{Text: "TSan: data race on `stop_` in ThreadPool::shutdown (src/core/threadpool.cpp:142) against the read in workerLoop: it's a plain bool written without the lock. Making it std::atomic<bool> rather than taking the mutex in workerLoop, since the loop checks it on every iteration.",
							Tools:         []fakeapi.ToolUse{edit("toolu_b8c_edit_tp", p("src/core/threadpool.h"), "  bool stop_ = false;", "  std::atomic<bool> stop_{false};")},
							Usage:         usageAt(9000),
							ToolResultFor: "toolu_b8c_tsan1"},
						reply("", 10000, bash("toolu_b8c_tsan2", "ctest --preset tsan -j1 -R threadpool --output-on-failure", "Rerun the threadpool tests under TSan")),
						reply("Race fixed; threadpool tests clean under TSan (2/2).", 11000),
					},
				},
				{
					Prompt: "one thing: CI has no TSan support on arm64, so the tsan preset is x86_64 only. gate it.",
					Replies: []fakeapi.Reply{
						reply("", 12000, edit("toolu_b8c_edit_gate", p("CMakePresets.json"),
							"{\"name\": \"tsan\", \"inherits\": \"base\", \"cacheVariables\": {\"TESSEL_SANITIZER\": \"thread\"}}",
							"{\"name\": \"tsan\", \"inherits\": \"base\", \"cacheVariables\": {\"TESSEL_SANITIZER\": \"thread\"},\n     \"condition\": {\"type\": \"equals\", \"lhs\": \"$env{TESSEL_ARCH}\", \"rhs\": \"x86_64\"}}")),
						reply("Gated on TESSEL_ARCH=x86_64. Still open: the libFuzzer harness for the OBJ loader, and CI wiring for the three sanitizer presets.", 13000),
					},
				},
				{Prompt: "/compact"},
			}
			after = []turn{
				{Prompt: "where were we", Replies: []fakeapi.Reply{reply("Picking up from the open items.", 6000)}},
				{Prompt: "k", Replies: []fakeapi.Reply{reply("Okay.", 6500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "GEO-318"),
			lit("constraint: third_party", "don't touch third_party/"),
			lit("constraint: no new deps", "no new deps"),
			lit("file edited: src/mesh/halfedge.cpp", "src/mesh/halfedge.cpp"),
			rx("failed command: ctest asan, exit 8", blind8Exit(`ctest --preset asan`, 8)),
			rx("failure fixed: heap-use-after-free in collapseEdge",
				`(?i)(heap-use-after-free|use-after-free|collapseEdge)`,
				`(?i)(fix(ed)?|resolved|pass(es|ed)?)[^\n]{0,100}(use-after-free|collapseEdge|halfedge)|(use-after-free|collapseEdge|halfedge)[^\n]{0,120}(fixed|resolved|now pass|pass(es)? under ASan|3/3)`).
				notRx(`(?i)(still|unresolved|open)[^\n]{0,40}heap-use-after-free|heap-use-after-free[^\n]{0,60}(still (fail|open|present)|unresolved)`),
			lit("decision: edge index, not a reference", "store the edge index instead of holding a reference"),
			lit("decision's reason: reserve only hides it", "reserve() only hides it until the next growth"),
			pipedFailed("piped command: ctest ubsan printed 2 failures", `ctest --preset ubsan`,
				`(?i)2 tests failed out of 37|ctest --preset ubsan[^\n]{0,200}(fail|overflow)|orient2d[^\n]{0,80}overflow|overflow[^\n]{0,80}orient2d`).until(1),
			rx("decision: widen orient2d to int64 (one-word answer)", `(?i)widened[^\n]{0,60}int64|int64_t det|int64[^\n]{0,40}(chosen|chose|decided|answer)`),
			lit("constraint: -O1 for sanitizer builds", "keep -O1 for sanitizer builds").from(2),
			lit("file edited: CMakePresets.json", "CMakePresets.json").from(2),
			lit("open todo: libFuzzer for the OBJ loader", "Fuzz the OBJ loader with libFuzzer").from(2),
			rx("finding: TSan data race on stop_ in ThreadPool::shutdown", `(?i)(data race|race)[^\n]{0,80}(stop_|shutdown)|(stop_|shutdown)[^\n]{0,80}(data race|race)`).from(2),
			lit("decision: std::atomic<bool> for stop_", "std::atomic<bool>").from(3),
			rx("constraint: tsan preset x86_64 only (no TSan on arm64 in CI)", `(?i)arm64`, `(?i)x86_64`).from(3),
			rx("next step: CI wiring for the sanitizer presets", `(?i)CI wiring for the three sanitizer presets`).from(3),
		},
	}
	return sc
}

// blind8FastAPIAlembic: a long first prompt with a pasted traceback, the
// ticket and a constraint said once after it; a subagent searches the code
// and the migrations; more constraints come a turn at a time; a pytest run
// fails on the wrong database port and is fixed, a piped full run prints a
// failure the user says to leave alone; next steps as a list, then an
// automatic compaction.
func blind8FastAPIAlembic() scenario {
	alembic := `#!/bin/sh
# stand-in for alembic against the app's migrations
case "$1" in
  current)
    echo "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl."
    echo "INFO  [alembic.runtime.migration] Will assume transactional DDL."
    echo "7f1e5a0d9c33"
    ;;
  heads)
    if ls migrations/versions/*merge_heads* >/dev/null 2>&1; then
      echo "9a0b1c2d3e4f (head)"
    else
      echo "7f1e5a0d9c33 (head)"
      echo "c58a4f1e2b90 (head)"
    fi
    ;;
  *)
    echo "alembic: unsupported in this checkout: $*" >&2
    exit 2
    ;;
esac
`
	pytest := `#!/bin/sh
# stand-in for pytest
case "$*" in
  *tests/test_migrations.py*)
    if grep -q ':5433/' .env.test 2>/dev/null; then
      echo "...                                                                      [100%]"
      echo "3 passed in 2.41s"
      exit 0
    fi
    echo "E                                                                        [100%]"
    echo "==================================== ERRORS ===================================="
    echo "_________________ ERROR at setup of test_single_alembic_head _________________"
    echo "sqlalchemy.exc.OperationalError: (psycopg.OperationalError) connection failed: connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  database \"app_test\" does not exist"
    echo "=========================== short test summary info ============================"
    echo "ERROR tests/test_migrations.py::test_single_alembic_head - sqlalchemy.exc.OperationalError"
    echo "!!!!!!!!!!!!!!!!!!!!!!!!!! stopping after 1 failures !!!!!!!!!!!!!!!!!!!!!!!!!!!"
    echo "1 error in 0.87s"
    exit 1
    ;;
  *)
    i=0
    while [ $i -lt 12 ]; do echo "........................................................................ [ $((i * 8))%]"; i=$((i + 1)); done
    echo "..........F"
    echo "=================================== FAILURES ==================================="
    echo "_______________________ test_list_orders_pagination ___________________________"
    echo "    def test_list_orders_pagination(client, orders_factory):"
    echo "        orders_factory(120)"
    echo "        resp = client.get(\"/v2/orders\")"
    echo ">       assert len(resp.json()[\"items\"]) == 20"
    echo "E       AssertionError: assert 50 == 20"
    echo "tests/api/test_orders.py:74: AssertionError"
    echo "=========================== short test summary info ============================"
    echo "FAILED tests/api/test_orders.py::test_list_orders_pagination - AssertionError: assert 50 == 20"
    echo "!!!!!!!!!!!!!!!!!!!!!!!!!! stopping after 1 failures !!!!!!!!!!!!!!!!!!!!!!!!!!!"
    echo "1 failed, 211 passed, 4 skipped in 48.12s"
    exit 1
    ;;
esac
`
	traceback := "Traceback (most recent call last):\n" +
		"  File \"/srv/app/.venv/lib/python3.12/site-packages/uvicorn/protocols/http/httptools_impl.py\", line 409, in run_asgi\n" +
		"    result = await app(  # type: ignore[func-returns-value]\n" +
		"  File \"/srv/app/.venv/lib/python3.12/site-packages/fastapi/routing.py\", line 301, in app\n" +
		"    raw_response = await run_endpoint_function(\n" +
		"  File \"/srv/app/app/api/routes/orders.py\", line 14, in list_orders\n" +
		"    rows = (await session.execute(stmt)).scalars().all()\n" +
		"  File \"/srv/app/.venv/lib/python3.12/site-packages/sqlalchemy/ext/asyncio/session.py\", line 461, in execute\n" +
		"    result = await greenlet_spawn(\n" +
		"  File \"/srv/app/.venv/lib/python3.12/site-packages/sqlalchemy/engine/default.py\", line 951, in do_execute\n" +
		"    cursor.execute(statement, parameters)\n" +
		"sqlalchemy.exc.ProgrammingError: (psycopg.errors.UndefinedColumn) column orders.fulfilled_at does not exist\n" +
		"LINE 1: ...orders.status, orders.created_at, orders.fulfilled_at FROM orders...\n" +
		"                                              ^\n" +
		"[SQL: SELECT orders.id, orders.status, orders.created_at, orders.fulfilled_at FROM orders ORDER BY orders.created_at DESC LIMIT $1::INTEGER]\n"
	sub := "Find every place in app/ that reads or writes orders.fulfilled_at, and every alembic revision under migrations/versions that touches the orders table with its down_revision. Report file names and revision ids."
	return forTrigger(scenario{
		Name:  "blind8-fastapi-alembic",
		Shape: "held-out, blind8; FastAPI + alembic + pytest, auto; pasted traceback with a constraint said once after it, subagent code search, constraints over turns",
		Files: map[string]string{
			"app/api/routes/orders.py":    "from fastapi import APIRouter, Depends\nfrom sqlalchemy import select\n\nfrom app.db import get_session\nfrom app.models import Order\n\nrouter = APIRouter()\n\n\n@router.get(\"/v2/orders\")\nasync def list_orders(session=Depends(get_session), limit: int = 50):\n    stmt = select(Order).order_by(Order.created_at.desc()).limit(limit)\n    # fulfilled_at is new in c58a4f1e2b90\n    rows = (await session.execute(stmt)).scalars().all()\n    return {\"items\": rows}\n",
			"app/models.py":               "from sqlalchemy.orm import Mapped, mapped_column\n\nfrom app.db import Base\n\n\nclass Order(Base):\n    __tablename__ = \"orders\"\n    id: Mapped[int] = mapped_column(primary_key=True)\n    status: Mapped[str]\n    fulfilled_at: Mapped[datetime | None]\n",
			"app/services/fulfillment.py": "from datetime import datetime, timezone\n\n\nasync def mark_fulfilled(session, order):\n    order.status = \"fulfilled\"\n    order.fulfilled_at = datetime.now(timezone.utc)\n    await session.commit()\n",
			"migrations/versions/3b9d2c71aa04_orders_status_index.py": "revision = \"3b9d2c71aa04\"\ndown_revision = \"a1c0e9d8f7b6\"\n\n\ndef upgrade():\n    op.create_index(\"ix_orders_status\", \"orders\", [\"status\"])\n",
			"migrations/versions/7f1e5a0d9c33_add_order_notes.py":     "revision = \"7f1e5a0d9c33\"\ndown_revision = \"3b9d2c71aa04\"\n\n\ndef upgrade():\n    op.add_column(\"orders\", sa.Column(\"notes\", sa.Text(), nullable=True))\n",
			"migrations/versions/c58a4f1e2b90_add_fulfilled_at.py":    "revision = \"c58a4f1e2b90\"\ndown_revision = \"3b9d2c71aa04\"\n\n\ndef upgrade():\n    op.add_column(\"orders\", sa.Column(\"fulfilled_at\", sa.DateTime(timezone=True), nullable=True))\n",
			"tests/conftest.py": "import os\n\nfrom dotenv import load_dotenv\n\nload_dotenv(\".env.test\")\nTEST_DATABASE_URL = os.environ.get(\"TEST_DATABASE_URL\", \"postgresql+psycopg://app@127.0.0.1:5432/app_test\")\n",
			"alembic.ini":       "[alembic]\nscript_location = migrations\n",
		},
		Bins:           map[string]string{"alembic": alembic, "pytest": pytest},
		AllowedTools:   []string{"Bash"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			merge := "\"\"\"merge heads 7f1e5a0d9c33 and c58a4f1e2b90\n\nRevision ID: 9a0b1c2d3e4f\nRevises: 7f1e5a0d9c33, c58a4f1e2b90\n\"\"\"\n\nrevision = \"9a0b1c2d3e4f\"\ndown_revision = (\"7f1e5a0d9c33\", \"c58a4f1e2b90\")\n\n\ndef upgrade():\n    pass\n\n\ndef downgrade():\n    pass\n"
			testMig := "from alembic.config import Config\nfrom alembic.script import ScriptDirectory\n\n\ndef test_single_alembic_head():\n    heads = ScriptDirectory.from_config(Config(\"alembic.ini\")).get_heads()\n    assert len(heads) == 1, heads\n\n\ndef test_upgrade_head_adds_fulfilled_at(migrated_db):\n    assert \"fulfilled_at\" in migrated_db.columns(\"orders\")\n\n\ndef test_upgrade_is_idempotent(migrated_db):\n    migrated_db.upgrade(\"head\")\n"
			before = []turn{
				{
					Prompt: "Hey, getting this on staging since this morning's deploy, every call to the orders list blows up:\n\n```\n" + traceback + "```\n\n" +
						"I thought the fulfilled_at migration went out last week?? Ticket is SHIP-2207. Oh and whatever you do, don't run alembic downgrade against anything, the staging DB is shared with the data team's backfill job right now. Can you figure out what's going on and fix it properly? I'd rather understand it than just patch around it.",
					Replies: []fakeapi.Reply{
						reply("Let me see what alembic thinks.", 14000, bash("toolu_b8f_current", "alembic current", "Show the current alembic revision")),
						reply("", 15000, bash("toolu_b8f_heads", "alembic heads", "List alembic heads")),
						reply("Two heads. I'll have a subagent map out the column and the revisions while I look at the deploy side.", 16000,
							agentCall("toolu_b8f_agent", "general-purpose", "Map fulfilled_at and the alembic revisions", sub)),
						fakeapi.Reply{For: sub, Tools: []fakeapi.ToolUse{bash("toolu_b8f_sub_grep1", "grep -rn fulfilled_at app/", "Find fulfilled_at in the app")}, Usage: usageAt(3000)},
						fakeapi.Reply{For: sub, Tools: []fakeapi.ToolUse{bash("toolu_b8f_sub_grep2", "grep -n -e revision -e orders migrations/versions/*.py", "List revisions touching orders")}, Usage: usageAt(4000)},
						fakeapi.Reply{For: sub, Text: "fulfilled_at is read in app/api/routes/orders.py and app/models.py, and written in app/services/fulfillment.py (mark_fulfilled). It is added by migrations/versions/c58a4f1e2b90_add_fulfilled_at.py, whose down_revision is 3b9d2c71aa04 — the same parent as 7f1e5a0d9c33_add_order_notes.py. So the history forked at 3b9d2c71aa04: two heads, and staging sits on 7f1e5a0d9c33 without the column.", Usage: usageAt(5000)},
						reply("That explains it: the history forked at 3b9d2c71aa04, `alembic upgrade head` refuses to run with two heads, and staging stayed on 7f1e5a0d9c33 without the column. I'll add a merge revision rather than rebasing c58a4f1e2b90 onto 7f1e5a0d9c33, because c58a4f1e2b90 is already applied on two developers' databases and a rewritten revision would strand them.", 18000,
							write("toolu_b8f_merge", p("migrations/versions/9a0b1c2d3e4f_merge_heads.py"), merge)),
						reply("", 19000, bash("toolu_b8f_heads2", "alembic heads", "Check there is one head")),
						reply("One head now: 9a0b1c2d3e4f.", 19500),
					},
				},
				{
					Prompt: "ok nice, makes sense. add a regression test so this can't happen again. and use pytest -x -q, the full suite takes forever otherwise",
					Replies: []fakeapi.Reply{
						reply("", 21000, write("toolu_b8f_test", p("tests/test_migrations.py"), testMig)),
						reply("", 22000, bash("toolu_b8f_pt1", "pytest -x -q tests/test_migrations.py", "Run the migration tests")),
						reply("The test database isn't reachable: the tests connect to 127.0.0.1:5432 and there's no app_test database there. Where does your test Postgres run?", 23000),
					},
				},
				{
					Prompt: "oh right, the test db is on 5433, 5432 is my local postgres. user app, password Zq8vR2mL0pK7tWx4, db app_test",
					Replies: []fakeapi.Reply{
						reply("", 24000, write("toolu_b8f_env", p(".env.test"), "TEST_DATABASE_URL=postgresql+psycopg://app:Zq8vR2mL0pK7tWx4@127.0.0.1:5433/app_test\n")),
						reply("", 25000, bash("toolu_b8f_pt2", "pytest -x -q tests/test_migrations.py", "Rerun the migration tests")),
						reply("", 26500, bash("toolu_b8f_pt3", "pytest -x -q 2>&1 | tail -15", "Run the whole suite")),
						reply("Migration tests pass (3 passed) with the test DB on 5433. The full run stops on one failure: tests/api/test_orders.py::test_list_orders_pagination expects 20 items per page and gets 50. That one doesn't touch migrations.", 27500),
					},
				},
				{
					Prompt: "leave pagination alone, that's Priya's PR #8812. what's left?",
					Replies: []fakeapi.Reply{
						reply("What's left:\n1. Run `alembic upgrade head` on staging once you give the go\n2. Add a CI check that fails on multiple alembic heads\n3. Ping the data team about the merge revision before it reaches staging", 28500),
					},
				},
			}
			after = []turn{
				{Prompt: "do 2 first", Replies: []fakeapi.Reply{reply("On it.", 6000)}},
				{Prompt: "cool", Replies: []fakeapi.Reply{reply("Done with that part.", 6500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "SHIP-2207"),
			lit("constraint: never alembic downgrade (said once, after the traceback)", "don't run alembic downgrade"),
			lit("constraint: pytest -x -q", "use pytest -x -q"),
			lit("constraint: test DB on 5433, not 5432", "5432 is my local postgres"),
			lit("constraint: leave pagination alone", "leave pagination alone"),
			lit("finding: the error, orders.fulfilled_at does not exist", "orders.fulfilled_at does not exist"),
			rx("subagent finding: history forked at 3b9d2c71aa04", `3b9d2c71aa04`, `c58a4f1e2b90`, `7f1e5a0d9c33`),
			lit("subagent finding: written in app/services/fulfillment.py", "app/services/fulfillment.py"),
			lit("file created: the merge revision", "9a0b1c2d3e4f_merge_heads.py"),
			lit("decision: merge revision rather than rebasing", "merge revision rather than rebasing c58a4f1e2b90"),
			lit("decision's reason: applied on developers' databases", "already applied on two developers' databases"),
			rx("failed command: pytest migrations, exit 1", blind8Exit(`pytest -x -q tests/test_migrations\.py`, 1)),
			rx("failure fixed: migration tests pass on 5433",
				`(?i)(fix(ed)?|resolved|now pass|3 passed)[^\n]{0,100}test_migrations|test_migrations[^\n]{0,160}(fixed|resolved|now pass|3 passed|exit 0)`),
			pipedFailed("piped command: full pytest run printed a failure", `pytest -x -q 2>&1`,
				`(?i)test_list_orders_pagination|1 failed, 211 passed`),
			lit("next step 1", "Run `alembic upgrade head` on staging once you give the go"),
			lit("next step 2", "CI check that fails on multiple alembic heads"),
			lit("next step 3", "Ping the data team about the merge revision"),
		},
		Secrets: []secret{{"Postgres password (user prompt, written .env.test)", "Zq8vR2mL0pK7tWx4"}},
	}, "auto")
}

// blind8FlutterAnswers: a chatty user on a Flutter app; the agent asks five
// numbered questions and the user answers them over several turns, one
// word at a time, then takes one answer back; codegen fails and is fixed;
// a manual /compact with instructions; then more constraints, a test that
// fails and is fixed, a todo list, and an automatic compaction.
func blind8FlutterAnswers() scenario {
	flutter := `#!/bin/sh
# stand-in for flutter
case "$1" in
  --version)
    echo "Flutter 3.38.1 • channel stable • https://github.com/flutter/flutter.git"
    echo "Framework • revision 8f4e2c19ab (3 weeks ago) • 2026-10-29 17:02:11 -0700"
    echo "Engine • revision 1d2b7e4f60"
    echo "Tools • Dart 3.10.0 • DevTools 2.51.0"
    ;;
  pub)
    echo "Resolving dependencies..."
    echo "Downloading packages..."
    echo "+ drift 2.29.0"
    echo "+ drift_dev 2.29.0"
    echo "+ sqlite3_flutter_libs 0.5.40"
    echo "+ build_runner 2.7.1"
    echo "  path_provider 2.1.5 (2.1.6 available)"
    echo "Changed 9 dependencies!"
    ;;
  test)
    if grep -q 'conflictCopy' lib/data/sync/note_sync_service.dart 2>/dev/null; then
      echo "00:02 +5: All tests passed!"
      exit 0
    fi
    echo "00:01 +0: loading test/data/sync_test.dart"
    echo "00:02 +3: NoteSyncService keeps both copies when a note changed on two devices"
    echo "00:02 +3 -1: NoteSyncService keeps both copies when a note changed on two devices [E]"
    echo "  Expected: <2>"
    echo "    Actual: <1>"
    echo "  Which: the local edit was overwritten by the server copy"
    echo "  package:matcher                 expect"
    echo "  test/data/sync_test.dart 58:7   main.<fn>.<fn>"
    echo "00:03 +4 -1: Some tests failed."
    exit 1
    ;;
esac
`
	dart := `#!/bin/sh
# stand-in for dart run build_runner
if grep -q 'TagsConverter' lib/data/local/notes_db.dart 2>/dev/null; then
  echo "[INFO] Generating build script completed, took 412ms"
  echo "[INFO] Running build completed, took 6.2s"
  echo "[INFO] Succeeded after 6.3s with 3 outputs (7 actions)"
  exit 0
fi
echo "[INFO] Generating build script completed, took 398ms"
echo "[SEVERE] drift_dev on lib/data/local/notes_db.dart:"
echo ""
echo "Column tags has type List<String>, which drift cannot store. Add a TypeConverter with .map(...) on the column."
echo "package:trailhead/data/local/notes_db.dart:14:38"
echo "   ╷"
echo "14 │   TextColumn get tags => text()();"
echo "   ╵"
echo "[SEVERE] Failed after 3.1s"
exit 1
`
	repo := "import 'package:http/http.dart' as http;\n\nclass NotesRepository {\n  NotesRepository(this._client);\n  final http.Client _client;\n\n  Future<void> saveNote(Note note) async {\n    await _client.post(Uri.parse('$apiBase/notes'), body: note.toJson());\n  }\n}\n"
	pubspec := "name: trailhead\nenvironment:\n  sdk: ^3.10.0\n  flutter: \">=3.38.0\"\ndependencies:\n  flutter:\n    sdk: flutter\n  http: ^1.2.2\n  path_provider: ^2.1.5\ndev_dependencies:\n  flutter_test:\n    sdk: flutter\n"
	sc := scenario{
		Name:        "blind8-flutter-answers",
		Shape:       "held-out, blind8; Flutter/Dart offline sync, manual with instructions then auto; chatty user answers five questions one word at a time and takes one back",
		Compactions: []string{"manual", "auto"},
		Files: map[string]string{
			"pubspec.yaml":                   pubspec,
			"lib/data/notes_repository.dart": repo,
			"lib/ui/note_editor.dart":        "import '../data/notes_repository.dart';\n\n// NoteEditor calls repo.saveNote(note) on every change.\n",
			"test/data/sync_test.dart":       "import 'package:flutter_test/flutter_test.dart';\n\nvoid main() {}\n",
		},
		Bins:           map[string]string{"flutter": flutter, "dart": dart},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			db := "import 'package:drift/drift.dart';\n\npart 'notes_db.g.dart';\n\nclass NoteEntries extends Table {\n  TextColumn get id => text()();\n  TextColumn get body => text()();\n  DateTimeColumn get updatedAt => dateTime()();\n  BoolColumn get dirty => boolean().withDefault(const Constant(true))();\n  TextColumn get tags => text()();\n}\n\n@DriftDatabase(tables: [NoteEntries])\nclass NotesDb extends _$NotesDb {\n  NotesDb(super.e);\n  @override\n  int get schemaVersion => 1;\n}\n"
			syncSvc := "import '../local/notes_db.dart';\n\nclass NoteSyncService {\n  NoteSyncService(this._db, this._api);\n  final NotesDb _db;\n  final NotesApi _api;\n\n  Future<void> syncDirty() async {\n    for (final n in await _db.dirtyNotes()) {\n      final remote = await _api.fetch(n.id);\n      if (remote != null && remote.updatedAt.isAfter(n.updatedAt)) {\n        await _db.replace(remote);\n        continue;\n      }\n      await _api.push(n);\n    }\n  }\n}\n"
			before = []turn{
				{
					Prompt: "Hiya! So I'm finally getting round to offline mode for the Trailhead app (FLT-952 on the board). People keep losing their trail notes when they're out of signal, which, for a hiking app, is kind of the entire point lol. Could you have a look at how notes get saved right now and tell me what you'd need from me before building anything?",
					Replies: []fakeapi.Reply{
						reply("", 12000, bash("toolu_b8d_ver", "flutter --version", "Check the Flutter version")),
						reply("", 13000, bash("toolu_b8d_grep", "grep -rn \"saveNote\" lib/", "Find where notes are saved")),
						reply("", 14000, read("toolu_b8d_read", p("lib/data/notes_repository.dart"))),
						reply("Right now NotesRepository.saveNote posts straight to the API and keeps no local copy, and the editor calls it on every change, so anything typed offline is simply dropped. Before I build anything, a few questions:\n1. Local storage: drift (SQLite) or hive?\n2. When the same note changed on two devices: last-write-wins, or keep both copies?\n3. Should sync run in the background (workmanager), or only while the app is open?\n4. Minimum Android API level: still 23?\n5. Do photos attached to notes need to work offline too?", 15000),
					},
				},
				{
					Prompt:  "drift",
					Replies: []fakeapi.Reply{reply("Drift it is for local storage. And 2?", 15500)},
				},
				{
					Prompt:  "ooh, tough one. keep both I think? hikers hate losing stuff, they'd rather tidy up a duplicate",
					Replies: []fakeapi.Reply{reply("Keep both on conflict, noted. 3?", 16000)},
				},
				{
					Prompt:  "background",
					Replies: []fakeapi.Reply{reply("Background sync with workmanager. 4 and 5?", 16500)},
				},
				{
					Prompt:  "24 now, we bumped it in march. photos no, text only for now, photos are phase 2",
					Replies: []fakeapi.Reply{reply("minSdk 24, and photos stay out of this ticket (phase 2).", 17000)},
				},
				{
					Prompt: "actually wait, scratch what I said for 3. iOS background fetch is a nightmare and QA will murder me. only while the app is open, kick it off on resume. sorry!! ok go for it",
					Replies: []fakeapi.Reply{
						reply("No problem: sync runs only while the app is open, triggered on resume, so no workmanager. Starting with the local database.", 18000,
							edit("toolu_b8d_pub", p("pubspec.yaml"), "  path_provider: ^2.1.5\n", "  path_provider: ^2.1.5\n  drift: ^2.29.0\n  sqlite3_flutter_libs: ^0.5.40\n")),
						reply("", 19000, edit("toolu_b8d_pub2", p("pubspec.yaml"), "  flutter_test:\n    sdk: flutter\n", "  flutter_test:\n    sdk: flutter\n  drift_dev: ^2.29.0\n  build_runner: ^2.7.1\n")),
						reply("", 20000, bash("toolu_b8d_pubget", "flutter pub get", "Fetch the new packages")),
						reply("", 21000, write("toolu_b8d_db", p("lib/data/local/notes_db.dart"), db)),
						reply("", 22500, bash("toolu_b8d_br1", "dart run build_runner build --delete-conflicting-outputs", "Generate the drift code")),
						reply("drift can't store List<String> directly. I'll store tags as JSON text through a TypeConverter rather than a separate tags table, since we never query notes by tag.", 23500,
							edit("toolu_b8d_db_fix", p("lib/data/local/notes_db.dart"), "  TextColumn get tags => text()();", "  TextColumn get tags => text().map(const TagsConverter())();")),
						reply("", 24500, bash("toolu_b8d_br2", "dart run build_runner build --delete-conflicting-outputs", "Regenerate the drift code")),
						reply("Codegen succeeds now; the drift schema for offline notes is in place.", 25500),
					},
				},
				{Prompt: "/compact focus on the sync design answers and the codegen error"},
				{
					Prompt: "ok I'm back, coffee acquired ☕ next bit: the actual sync service. oh and please don't bump any package majors, the release branch freezes Friday and I don't want surprises",
					Replies: []fakeapi.Reply{
						reply("", 7000, write("toolu_b8d_sync", p("lib/data/sync/note_sync_service.dart"), syncSvc)),
						reply("", 8000, bash("toolu_b8d_t1", "flutter test test/data/sync_test.dart", "Run the sync tests")),
						reply("The conflict test fails: the service replaces the local note with the newer server copy, which is last-write-wins, not keep-both. Fixing it to save the local edit as a conflict copy.", 9000,
							edit("toolu_b8d_sync_fix", p("lib/data/sync/note_sync_service.dart"), "        await _db.replace(remote);\n", "        await _db.insert(n.conflictCopy());\n        await _db.replace(remote);\n")),
						reply("", 10000, bash("toolu_b8d_t2", "flutter test test/data/sync_test.dart", "Rerun the sync tests")),
						reply("", 11000, todoWrite("toolu_b8d_todo",
							[2]string{"Drift schema for offline notes", "completed"},
							[2]string{"NoteSyncService with keep-both conflicts", "completed"},
							[2]string{"Trigger sync on AppLifecycleState.resumed", "pending"},
							[2]string{"Widget test for the offline banner", "pending"})),
						full("Sync service done and its tests pass (5/5). Next up is wiring it to app resume."),
					},
				},
			}
			after = []turn{
				{Prompt: "amazing, what's next then?", Replies: []fakeapi.Reply{reply("The resume hook.", 6000)}},
				{Prompt: "👍", Replies: []fakeapi.Reply{reply("On it.", 6500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "FLT-952"),
			rx("decision: answer 1, drift for local storage", `(?i)drift it is|(chose|chosen|picked|answer(ed)?|use|using|with)[^\n]{0,30}\bdrift\b|\bdrift\b[^\n]{0,40}(local storage|for storage)|\b1[^\w\n]{1,4}drift\b`).
				notRx(`(?i)storage[^\n]{0,15}(:|=|→|->)\s*\W?hive\b`).
				notRx(blind8Paired(`drift \(SQLite\) or hive\?`, `keep both`, `background`, `24 now`, `photos no`)),
			rx("decision: answer 2, keep both on conflict", `(?i)conflict[^\n]{0,80}keep both|keep both[^\n]{0,80}conflict|keep-both`).
				notRx(`(?i)conflict[^\n]{0,30}(:|=|→|->)\s*\W?last-write-wins`).
				notRx(blind8Paired(`keep both copies\?`, `drift`, `background`, `24 now`, `photos no`)),
			rx("decision: answer 3 taken back, sync only while the app is open", `(?i)\bon resume\b|no workmanager|\bnot? (in the )?background`).
				notRx(`(?i)\bsync\b[^\n]{0,20}(:|=|→|->)\s*\W?(in the )?background`, `(?i)(3\.|3\)|q3)\s*\W?(background|workmanager)`).
				notRx(blind8Paired(`only while the app is open\?`, `keep both`, `drift`, `24 now`, `photos no`)),
			rx("decision: answer 4, minSdk 24", `(?i)(minSdk|api( level)?|android)[^\n]{0,30}\b24\b`).
				notRx(`(?i)(minSdk|api( level)?)[^\n]{0,15}(:|=|→|->)\s*\W?23\b`).
				notRx(blind8Paired(`still 23\?`, `keep both`, `drift`, `background`)),
			rx("decision: answer 5, photos are phase 2", `(?i)photos[^\n]{0,80}phase 2|phase 2[^\n]{0,80}photos`).
				notRx(blind8Paired(`work offline too\?`, `keep both`, `drift`, `background`)),
			lit("file edited: pubspec.yaml", "pubspec.yaml"),
			lit("file created: lib/data/local/notes_db.dart", "lib/data/local/notes_db.dart"),
			rx("failed command: build_runner, exit 1", blind8Exit(`build_runner`, 1)),
			rx("failure fixed: tags through a TypeConverter", `(?i)TypeConverter|TagsConverter`).
				notRx(`(?i)(still|unresolved)[^\n]{0,60}(build_runner|TypeConverter|codegen)`),
			lit("decision's reason: no tags table, never queried by tag", "since we never query notes by tag"),
			lit("constraint: no package majors", "don't bump any package majors").from(2),
			lit("constraint's reason: release branch freezes Friday", "release branch freezes Friday").from(2),
			lit("file created: lib/data/sync/note_sync_service.dart", "lib/data/sync/note_sync_service.dart").from(2),
			rx("failure fixed: flutter sync test passes after the conflict-copy fix",
				`(?i)flutter test test/data/sync_test\.dart`,
				`(?i)(fix(ed)?|resolved|now pass|all tests passed|5/5)[^\n]{0,100}(sync_test|sync service|conflict)|(sync_test|sync service|conflict)[^\n]{0,160}(fixed|resolved|now pass|all tests passed|5/5)`).from(2),
			lit("open todo: sync on resume", "Trigger sync on AppLifecycleState.resumed").from(2),
			lit("open todo: offline banner test", "Widget test for the offline banner").from(2),
		},
	}
	return sc
}

// blind8EdgeIncident: an on-call incident on an nginx edge with a Redis
// cache and a CDN: an env dump with a Redis password and a CDN token, long
// logs, a ticket named once at the start, a prod change allowed, a config
// change taken back for a reason, a config typo that fails validation and
// is fixed, a CDN purge, a status posted to a chat webhook pasted by the
// user, next steps as a list, then an automatic compaction.
func blind8EdgeIncident() scenario {
	const (
		redisPass  = "rP4x9QmZ2vLk8sTwN3"
		cdnToken   = "Xk3vB8nQ2pL7rT4wY9zC1mD6fG0hJ5sA"
		slackHook  = "https://hooks.slack.com/services/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"
		slackToken = "q8Zk2mVn4RtY7uP1sXw9LbEc"
	)
	redis := `#!/bin/sh
# stand-in for redis-cli against the edge cache
mark="$(dirname "$0")/.allkeys"
case "$*" in
  *"CONFIG SET maxmemory-policy allkeys-lru"*)
    touch "$mark"; echo "OK" ;;
  *"CONFIG GET maxmemory"*)
    echo "maxmemory"; echo "8589934592"; echo "maxmemory-policy"
    if [ -f "$mark" ]; then echo "allkeys-lru"; else echo "volatile-lru"; fi ;;
  *"INFO memory"*)
    echo "# Memory"
    echo "used_memory:8381264880"
    echo "used_memory_human:7.81G"
    echo "maxmemory_human:8.00G"
    echo "mem_fragmentation_ratio:1.07" ;;
  *"INFO stats"*)
    if [ -f "$mark" ]; then
      echo "instantaneous_ops_per_sec:38211"; echo "evicted_keys:4902117"; echo "evicted_keys_per_sec:140"
      echo "keyspace_hits:912233401"; echo "keyspace_misses:120381992"; echo "hit_ratio_last_60s:0.93"
    else
      echo "instantaneous_ops_per_sec:61874"; echo "evicted_keys:4819233"; echo "evicted_keys_per_sec:12408"
      echo "keyspace_hits:910201118"; echo "keyspace_misses:119020611"; echo "hit_ratio_last_60s:0.41"
    fi ;;
  *) echo "(error) ERR unknown command" ; exit 1 ;;
esac
`
	nginx := `#!/bin/sh
# stand-in for nginx -t
if grep -q 'proxy_read_timout' nginx/conf.d/checkout.conf; then
  line=$(grep -n 'proxy_read_timout' nginx/conf.d/checkout.conf | cut -d: -f1)
  echo "nginx: [emerg] unknown directive \"proxy_read_timout\" in nginx/conf.d/checkout.conf:$line" >&2
  echo "nginx: configuration file nginx/nginx.conf test failed" >&2
  exit 1
fi
echo "nginx: the configuration file nginx/nginx.conf syntax is ok" >&2
echo "nginx: configuration file nginx/nginx.conf test is successful" >&2
exit 0
`
	curl := `#!/bin/sh
# stand-in for curl to the CDN API and the chat webhook
case "$*" in
  *api.fastly.com*purge*) echo '{"status":"ok","id":"108-1764039312-4417"}' ;;
  *hooks.slack.com*) echo 'ok' ;;
  *) echo "curl: (6) Could not resolve host" >&2; exit 6 ;;
esac
`
	var errLog, accessLog strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&errLog, "2026/11/25 02:%02d:%02d [error] 2817#2817: *%d upstream timed out (110: Connection timed out) while reading response header from upstream, client: 203.0.113.%d, server: api.shop.example, request: \"POST /v2/checkout HTTP/1.1\", upstream: \"http://10.4.2.%d:8080/v2/checkout\", host: \"api.shop.example\"\n",
			11+i/6, (i*7)%60, 88410231+i*17, 10+i, 17+i%3)
	}
	codes := []int{200, 200, 200, 200, 200, 502, 200, 200, 504, 200, 200, 502, 200, 200, 200, 200, 499, 200, 502, 200}
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&accessLog, "198.51.100.%d - - [25/Nov/2026:02:%02d:%02d +0000] \"POST /v2/checkout HTTP/1.1\" %d 512 \"-\" \"Mozilla/5.0\" rt=%d.%03d uct=0.001 urt=%d.%03d\n",
			i%250, 20+i/20, (i*3)%60, codes[i%len(codes)], 1+i%4, (i*37)%1000, 1+i%4, (i*31)%1000)
	}
	conf := "upstream checkout_app {\n  server 10.4.2.17:8080;\n  server 10.4.2.18:8080;\n  server 10.4.2.19:8080;\n  keepalive 64;\n}\n\nserver {\n  listen 8443 ssl;\n  server_name api.shop.example;\n\n  location /v2/checkout {\n    proxy_pass http://checkout_app;\n    proxy_connect_timeout 2s;\n    proxy_read_timeout 10s;\n    proxy_next_upstream error timeout;\n  }\n}\n"
	return forTrigger(scenario{
		Name:  "blind8-edge-incident",
		Shape: "held-out, blind8; SRE incident on nginx + Redis + CDN, auto; env dump with a Redis password and a CDN token, long logs, webhook pasted by the user, a config change taken back",
		Files: map[string]string{
			"nginx/nginx.conf":           "worker_processes auto;\nevents { worker_connections 4096; }\nhttp {\n  include conf.d/*.conf;\n}\n",
			"nginx/conf.d/checkout.conf": conf,
			"incident/edge-3/error.log":  errLog.String(),
			"incident/edge-3/access.log": accessLog.String(),
			"runbooks/cache.md":          "# Edge cache\n\nRedis 7.2 on cache-primary, 16G box, maxmemory 8gb.\n",
		},
		Bins: map[string]string{"redis-cli": redis, "nginx": nginx, "curl": curl},
		Env: []string{
			"REDIS_URL=redis://default:" + redisPass + "@cache-primary.internal:6379/0",
			"FASTLY_API_TOKEN=" + cdnToken,
			"FASTLY_SERVICE_ID=SU1Z0isxPaozGVKXdv0eY",
			"NGINX_EDGE_HOST=edge-3.fra.shop.example",
			"UPSTREAM_POOL=checkout_app",
		},
		AllowedTools:   []string{"Bash"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{
					Prompt: "INC-60413. checkout p95 went to ~4s about 40 min ago and the CDN is throwing 502s. I'm on the bridge. edge-3 logs are pulled into ./incident, creds are in your env. read-only on prod unless I say so.",
					Replies: []fakeapi.Reply{
						reply("", 14000, bash("toolu_b8e_env", "env | sort | grep -Ei 'redis|fastly|nginx|upstream'", "See which endpoints and credentials are configured")),
						reply("", 16000, bash("toolu_b8e_err", "tail -n 40 incident/edge-3/error.log", "Read the end of the nginx error log")),
						reply("", 18000, bash("toolu_b8e_codes", "tail -n 200 incident/edge-3/access.log | awk '{print $9}' | sort | uniq -c | sort -rn", "Count status codes in the access log")),
						reply("", 19000, bash("toolu_b8e_mem", "redis-cli -u \"$REDIS_URL\" INFO memory", "Redis memory")),
						reply("", 20000, bash("toolu_b8e_stats", "redis-cli -u \"$REDIS_URL\" INFO stats | grep -E 'evicted|keyspace|hit_ratio|ops_per_sec'", "Redis eviction and hit stats")),
						reply("", 21000, bash("toolu_b8e_policy", "redis-cli -u \"$REDIS_URL\" CONFIG GET maxmemory*", "Redis eviction policy")),
						reply("Picture so far: Redis is at maxmemory (7.81G of 8G) and evicting about 12k keys/s under volatile-lru, so only keys with a TTL go, and those are exactly the cart and price keys; hit ratio is down to 41%. The app falls back to Postgres on every miss, checkout requests exceed nginx's 10s proxy_read_timeout, and the CDN turns those into 502s. Proposal: switch maxmemory-policy to allkeys-lru, and raise maxmemory to 12gb.", 22000),
					},
				},
				{
					Prompt: "do the policy change, that's approved. not the maxmemory bump though, the box only has 16G and the AOF rewrite needs headroom",
					Replies: []fakeapi.Reply{
						reply("", 23000, bash("toolu_b8e_set", "redis-cli -u \"$REDIS_URL\" CONFIG SET maxmemory-policy allkeys-lru", "Switch the eviction policy")),
						reply("Policy is allkeys-lru. While the cache refills I'll raise proxy_read_timeout on /v2/checkout from 10s to 30s so in-flight checkouts stop failing.", 24000,
							edit("toolu_b8e_edit1", p("nginx/conf.d/checkout.conf"), "    proxy_read_timeout 10s;", "    proxy_read_timout 30s;")),
						reply("", 25000, bash("toolu_b8e_t1", "nginx -t -p . -c nginx/nginx.conf", "Validate the nginx config")),
						reply("Typo on my side, the directive is misspelt. Fixing.", 26000,
							edit("toolu_b8e_edit2", p("nginx/conf.d/checkout.conf"), "    proxy_read_timout 30s;", "    proxy_read_timeout 30s;")),
						reply("", 27000, bash("toolu_b8e_t2", "nginx -t -p . -c nginx/nginx.conf", "Validate again")),
						reply("Config validates. Not reloaded yet.", 28000),
					},
				},
				{
					Prompt: "hold on, don't ship the timeout bump. the CDN origin timeout is 15s, so anything over that just becomes 504s at the edge instead of 502s. put it back to 10s. purge the checkout assets on the CDN instead, the stale JS bundle is still calling the old price endpoint",
					Replies: []fakeapi.Reply{
						reply("", 29000, edit("toolu_b8e_edit3", p("nginx/conf.d/checkout.conf"), "    proxy_read_timeout 30s;", "    proxy_read_timeout 10s;")),
						reply("", 30000, bash("toolu_b8e_t3", "nginx -t -p . -c nginx/nginx.conf", "Validate the reverted config")),
						reply("", 31000, bash("toolu_b8e_purge", "curl -sS -X POST -H \"Fastly-Key: $FASTLY_API_TOKEN\" \"https://api.fastly.com/service/$FASTLY_SERVICE_ID/purge/checkout-assets\"", "Purge the checkout assets surrogate key")),
						reply("", 32000, bash("toolu_b8e_stats2", "redis-cli -u \"$REDIS_URL\" INFO stats | grep -E 'evicted|keyspace|hit_ratio|ops_per_sec'", "Redis stats after the policy change")),
						reply("proxy_read_timeout is back to 10s, config validates. The checkout-assets purge went through. Evictions are down to 140/s and the hit ratio is back at 93%.", 33000),
					},
				},
				{
					Prompt: "p95 back to 380ms on the dashboard. post a status to the incident channel, webhook is " + slackHook + " . then tell me what's left",
					Replies: []fakeapi.Reply{
						reply("", 34000, bash("toolu_b8e_post", "curl -sS -X POST -H 'Content-type: application/json' --data '{\"text\":\"Checkout latency mitigated: Redis eviction policy switched to allkeys-lru, CDN checkout assets purged. p95 back to 380ms. Monitoring.\"}' "+slackHook, "Post the status update")),
						reply("Posted. What's left:\n- Make the maxmemory-policy change persistent in redis.conf (CONFIG SET is lost on restart)\n- Add TTLs to session:* keys so they stop crowding out the cart keys\n- Alert on evicted_keys rate above 1k/s\n- Write the postmortem", 35000),
					},
				},
			}
			after = []turn{
				{Prompt: "start with the first", Replies: []fakeapi.Reply{reply("Looking at redis.conf.", 6000)}},
				{Prompt: "and?", Replies: []fakeapi.Reply{reply("Working on it.", 6500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket (named once, at the start)", "INC-60413"),
			lit("constraint: read-only on prod unless told", "read-only on prod unless I say so"),
			lit("constraint: no maxmemory bump", "not the maxmemory bump"),
			lit("finding: evicting 12k keys/s under volatile-lru", "12k keys/s"),
			rx("decision: maxmemory-policy allkeys-lru (approved, applied)", `(?i)allkeys-lru`),
			rx("decision taken back: proxy_read_timeout stays 10s", `(?i)(back to|revert\w*|put it back|stays?( at)?|keep\w*)[^\n]{0,40}\b10s\b|proxy_read_timeout[^\n]{0,40}(back to|revert\w*|stays?)`).
				notRx(`(?im)proxy_read_timeout[^\n]{0,40}\b30s[.;]?\s*$`),
			lit("decision's reason: CDN origin timeout is 15s", "CDN origin timeout is 15s"),
			lit("file edited: nginx/conf.d/checkout.conf", "nginx/conf.d/checkout.conf"),
			rx("failed command: nginx -t, exit 1", blind8Exit(`nginx -t`, 1)),
			rx("failure fixed: the misspelt directive",
				`(?i)(fix(ed)?|typo|misspel\w*|resolved)[^\n]{0,100}(proxy_read_timout|unknown directive|nginx -t)|(proxy_read_timout|unknown directive|nginx -t)[^\n]{0,160}(fixed|typo|resolved|syntax is ok|validates|successful)`).
				notRx(`(?i)(still|unresolved)[^\n]{0,60}(unknown directive|proxy_read_timout)`),
			rx("command: CDN purge of checkout-assets", `(?i)purge[^\n]{0,100}checkout-assets|checkout-assets[^\n]{0,100}purge`),
			lit("finding: p95 back to 380ms", "380ms"),
			lit("next step 1", "persistent in redis.conf"),
			lit("next step 2", "TTLs to session:* keys"),
			lit("next step 3", "Alert on evicted_keys rate"),
			rx("next step 4", `(?i)postmortem`),
		},
		Secrets: []secret{
			{"Redis password (env dump, command output)", redisPass},
			{"CDN API token (env dump)", cdnToken},
			{"Slack webhook token (user prompt, command argument)", slackToken},
		},
	}, "auto")
}
