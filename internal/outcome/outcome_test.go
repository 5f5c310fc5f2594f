package outcome

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func code(n int) *int { return &n }

// judgeCase is one command with what Judge must say about it. Errors
// lists lines that must be among Outcome.Errors, in that order; first,
// when set, is the line that must come first, and notErr a line that
// must not be among them.
type judgeCase struct {
	name    string
	command string
	output  string
	exit    *int
	status  Status
	source  string
	tool    string
	counts  string
	errors  []string
	first   string
	notErr  string
	hidden  string
}

func runJudgeCases(t *testing.T, cases []judgeCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Judge(c.command, c.output, c.exit)
			if o.Status != c.status {
				t.Errorf("status %v, want %v (%s; errors %q)", o.Status, c.status, o.Line(), o.Errors)
			}
			if c.source != "" && o.Source != c.source {
				t.Errorf("source %q, want %q", o.Source, c.source)
			}
			if c.tool != "" && o.Tool != c.tool {
				t.Errorf("tool %q, want %q", o.Tool, c.tool)
			}
			if c.counts != "" && o.Counts != c.counts {
				t.Errorf("counts %q, want %q", o.Counts, c.counts)
			}
			if c.hidden != "" && o.Hidden != c.hidden {
				t.Errorf("hidden %q, want %q", o.Hidden, c.hidden)
			}
			at := 0
			for _, want := range c.errors {
				i := slices.Index(o.Errors[min(at, len(o.Errors)):], want)
				if i < 0 {
					t.Errorf("errors %q: want %q (in this order)", o.Errors, c.errors)
					break
				}
				at += i + 1
			}
			if c.first != "" && (len(o.Errors) == 0 || o.Errors[0] != c.first) {
				t.Errorf("errors %q: want %q first", o.Errors, c.first)
			}
			if c.notErr != "" && slices.ContainsFunc(o.Errors, func(e string) bool { return strings.Contains(e, c.notErr) }) {
				t.Errorf("errors %q: want none with %q", o.Errors, c.notErr)
			}
			if o.Status != Failed && len(o.Errors) > 0 {
				t.Errorf("errors %q on a run that did not fail", o.Errors)
			}
		})
	}
}

func TestGo(t *testing.T) {
	runJudgeCases(t, []judgeCase{
		{
			name:    "packages pass",
			command: "go test ./... 2>&1 | tail -20",
			output:  "ok  \texample.com/shop/cart\t0.012s\n?   \texample.com/shop/cmd/shop\t[no test files]\nok  \texample.com/shop/price\t(cached)\n",
			exit:    code(0), status: Passed, source: SourceOutput, tool: "go test", hidden: HiddenPipe,
		},
		{
			name:    "a test fails behind tail",
			command: "cd shop && go test ./... 2>&1 | tail -30",
			output: `--- FAIL: TestSplitQuoted (0.00s)
    csv_test.go:31: got ["a" "b,c"], want ["a,b" "c"]
    csv_test.go:38: trailing field lost
--- FAIL: TestEmptyHeader (0.00s)
    csv_test.go:52: header row missing for an empty export
FAIL
FAIL	example.com/shop/csv	0.006s
ok  	example.com/shop/price	0.010s
FAIL`,
			exit: code(0), status: Failed, source: SourceOutput, tool: "go test",
			errors: []string{`TestSplitQuoted: csv_test.go:31: got ["a" "b,c"], want ["a,b" "c"]`, "csv_test.go:38: trailing field lost", "TestEmptyHeader: csv_test.go:52: header row missing for an empty export"},
		},
		{
			name:    "a test named TestFailure passes",
			command: "go test -v -run 'TestFailure|TestErrors' ./internal/report",
			output: `=== RUN   TestFailure
    report_test.go:14: rendering the failure banner
--- PASS: TestFailure (0.00s)
=== RUN   TestErrorsAreWrapped
--- PASS: TestErrorsAreWrapped (0.00s)
PASS
ok  	example.com/app/internal/report	0.003s`,
			exit: code(0), status: Passed, source: SourceBoth,
		},
		{
			name:    "build failed",
			command: "go test ./internal/export",
			output: `# example.com/app/internal/export [example.com/app/internal/export.test]
internal/export/csv_test.go:12:2: undefined: parseLine
internal/export/csv.go:40:9: cannot use n (variable of type int) as string value in return statement
FAIL	example.com/app/internal/export [build failed]
FAIL`,
			exit: code(1), status: Failed, source: SourceBoth,
			errors: []string{"internal/export/csv_test.go:12:2: undefined: parseLine", "internal/export/csv.go:40:9: cannot use n (variable of type int) as string value in return statement"},
		},
		{
			name:    "panic in a test",
			command: "go test ./... | head -20",
			output: `--- FAIL: TestIndex (0.00s)
panic: runtime error: index out of range [3] with length 3 [recovered]
	panic: runtime error: index out of range [3] with length 3

goroutine 7 [running]:
testing.tRunner.func1.2({0x5f2a40, 0xc0000a4018})
	/usr/local/go/src/testing/testing.go:1632 +0x230
example.com/app/idx.TestIndex(0xc000007860)
	/home/u/app/idx/idx_test.go:9 +0x1d
FAIL	example.com/app/idx	0.005s`,
			exit: code(0), status: Failed, source: SourceOutput,
			errors: []string{"panic: runtime error: index out of range [3] with length 3 [recovered]"},
		},
		{
			name:    "go vet finds a bad format",
			command: "go vet ./... 2>&1 | head -20",
			output:  "# example.com/app/cmd\n./main.go:14:2: fmt.Printf format %d has arg name of wrong type string\n",
			exit:    code(0), status: Failed, source: SourceOutput, tool: "go vet",
			errors: []string{"./main.go:14:2: fmt.Printf format %d has arg name of wrong type string"},
		},
		{
			name:    "go build prints nothing",
			command: "go build ./... 2>&1 | tail -5",
			output:  "",
			exit:    code(0), status: Passed, source: SourceOutput, tool: "go build",
		},
		{
			name:    "go build prints nothing but grep chose the lines",
			command: "go build ./... 2>&1 | grep -v warning",
			output:  "",
			exit:    code(0), status: Unknown,
		},
		{
			name:    "grep found no FAIL line",
			command: "go test ./... 2>&1 | grep FAIL",
			output:  "",
			exit:    code(1), status: Unknown, hidden: HiddenPipe,
		},
	})
}

func TestPytest(t *testing.T) {
	runJudgeCases(t, []judgeCase{
		{
			name:    "two failures behind tail",
			command: "python -m pytest -q 2>&1 | tail -15",
			output: `..F.......                                                               [ 76%]
..F                                                                      [100%]
=================================== FAILURES ===================================
_______________________________ test_create_user _______________________________

    def test_create_user():
>       assert create_user("bob").id == 2
E       AssertionError: assert 1 == 2

tests/test_api.py:14: AssertionError
=========================== short test summary info ============================
FAILED tests/test_api.py::test_create_user - AssertionError: assert 1 == 2
FAILED tests/test_db.py::test_rollback - sqlite3.OperationalError: no such table: users
========================= 2 failed, 11 passed in 0.42s =========================`,
			exit: code(0), status: Failed, source: SourceOutput, tool: "pytest", counts: "2 failed, 11 passed",
			errors: []string{"tests/test_api.py:14: AssertionError", "tests/test_api.py::test_create_user - AssertionError: assert 1 == 2", "tests/test_db.py::test_rollback - sqlite3.OperationalError: no such table: users"},
		},
		{
			name:    "quiet pass",
			command: "pytest -q tests/ | tail -3",
			output:  "........................................                                 [100%]\n40 passed in 0.87s\n",
			exit:    code(0), status: Passed, source: SourceOutput, counts: "40 passed",
		},
		{
			name:    "pass with warnings, xfailed and deselected",
			command: "uv run pytest -k 'not slow' 2>&1 | tail -2",
			output:  "-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html\n===== 31 passed, 1 xfailed, 3 deselected, 2 warnings in 1.02s =====\n",
			exit:    code(0), status: Passed, tool: "pytest", counts: "31 passed, 1 xfailed, 3 deselected, 2 warnings",
		},
		{
			name:    "collection error",
			command: "pytest 2>&1 | tail -12",
			output: `==================================== ERRORS ====================================
_____________________ ERROR collecting tests/test_fetch.py _____________________
ImportError while importing test module '/home/u/p/tests/test_fetch.py'.
E   ModuleNotFoundError: No module named 'requests'
=========================== short test summary info ============================
ERROR tests/test_fetch.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
=============================== 1 error in 0.12s ===============================`,
			exit: code(0), status: Failed, counts: "1 error", errors: []string{"tests/test_fetch.py"},
		},
		{
			name:    "verbose pass of tests named after failures",
			command: "pytest -v tests/test_errors.py 2>&1 | tail -4",
			output: `tests/test_errors.py::test_failure_is_reported PASSED                      [ 50%]
tests/test_errors.py::test_error_count_is_zero PASSED                     [100%]

============================== 2 passed in 0.01s ===============================`,
			exit: code(0), status: Passed,
		},
		{
			name:    "verbose failure line",
			command: "pytest -v 2>&1 | head -3",
			output:  "tests/test_a.py::test_one PASSED    [ 33%]\ntests/test_a.py::test_two FAILED    [ 66%]\ntests/test_a.py::test_three PASSED  [100%]",
			exit:    code(0), status: Failed,
		},
		{
			name:    "a logged traceback in a passing run",
			command: "pytest -s tests/test_retry.py | tail -12",
			output: `Traceback (most recent call last):
  File "/home/u/p/app/retry.py", line 20, in call
    return fn()
ConnectionError: refused
retrying in 0.1s
.
============================== 1 passed in 0.30s ===============================`,
			exit: code(0), status: Passed,
		},
		{
			name:    "unittest",
			command: "python3 -m unittest discover -s tests 2>&1 | tail -5",
			output:  "..F\n======================================================================\nFAIL: test_total (test_cart.CartTest.test_total)\n----------------------------------------------------------------------\nRan 3 tests in 0.001s\n\nFAILED (failures=1)",
			exit:    code(0), status: Failed,
		},
		{
			name:    "unittest ok",
			command: "python3 -m unittest 2>&1 | tail -3",
			output:  "Ran 12 tests in 0.020s\n\nOK (skipped=1)",
			exit:    code(0), status: Passed,
		},
	})
}

func TestJestVitest(t *testing.T) {
	runJudgeCases(t, []judgeCase{
		{
			name:    "jest failure",
			command: "npx jest 2>&1 | tail -40",
			output: ` PASS  src/utils.test.js
 FAIL  src/api.test.js
  ● API client › retries on 503

    expect(received).toBe(expected) // Object.is equality

    Expected: 3
    Received: 1

      12 |     await client.get('/x');
    > 13 |     expect(fetch).toHaveBeenCalledTimes(3);
         |                   ^

      at Object.<anonymous> (src/api.test.js:13:19)

Test Suites: 1 failed, 1 passed, 2 total
Tests:       1 failed, 14 passed, 15 total
Snapshots:   0 total
Time:        1.234 s
Ran all test suites.`,
			exit: code(0), status: Failed, source: SourceOutput, tool: "jest", counts: "1 failed, 14 passed, 15 total",
			errors: []string{"API client › retries on 503"},
		},
		{
			name:    "npm test passes",
			command: "npm test 2>&1 | tail -8",
			output:  "Test Suites: 3 passed, 3 total\nTests:       27 passed, 27 total\nSnapshots:   2 passed, 2 total\nTime:        2.1 s\nRan all test suites.\n",
			exit:    code(0), status: Passed, tool: "npm test",
		},
		{
			name:    "vitest failure in colour",
			command: "npx vitest run 2>&1 | tail -25",
			output: " \x1b[32m✓\x1b[39m src/math.test.ts \x1b[2m(3 tests)\x1b[22m 2ms\n" +
				" \x1b[33m❯\x1b[39m src/date.test.ts \x1b[2m(2 tests | \x1b[22m\x1b[31m1 failed\x1b[39m\x1b[2m)\x1b[22m 5ms\n" +
				"   \x1b[31m×\x1b[39m formatDate > pads the month 3ms\n" +
				"\n\x1b[31m⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯\x1b[39m\n\n" +
				"\x1b[41m\x1b[1m FAIL \x1b[22m\x1b[49m src/date.test.ts\x1b[2m > \x1b[22mformatDate\x1b[2m > \x1b[22mpads the month\n" +
				"\x1b[31mAssertionError: expected '2024-1-05' to be '2024-01-05' // Object.is equality\x1b[39m\n" +
				" \x1b[36m❯\x1b[39m src/date.test.ts:8:25\n\n" +
				"\x1b[2m Test Files \x1b[22m \x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m\x1b[2m | \x1b[22m\x1b[1m\x1b[32m1 passed\x1b[39m\x1b[22m\x1b[90m (2)\x1b[39m\n" +
				"\x1b[2m      Tests \x1b[22m \x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m\x1b[2m | \x1b[22m\x1b[1m\x1b[32m4 passed\x1b[39m\x1b[22m\x1b[90m (5)\x1b[39m\n" +
				"\x1b[2m   Start at \x1b[22m 10:12:01\n" +
				"\x1b[2m   Duration \x1b[22m 412ms\x1b[2m (transform 60ms, setup 0ms, collect 80ms, tests 9ms)\x1b[22m\n",
			exit: code(0), status: Failed, tool: "vitest", counts: "1 failed, 4 passed",
			errors: []string{"src/date.test.ts > formatDate > pads the month"},
		},
		{
			name:    "vitest passes",
			command: "pnpm vitest run | tail -4",
			output:  " Test Files  2 passed (2)\n      Tests  5 passed (5)\n   Start at  10:12:01\n   Duration  301ms\n",
			exit:    code(0), status: Passed, counts: "5 passed",
		},
		{
			name:    "mocha",
			command: "npx mocha 2>&1 | tail -12",
			output:  "  31 passing (2s)\n  1 pending\n  2 failing\n\n  1) Cart\n       totals:\n     AssertionError [ERR_ASSERTION]: 3 == 4\n",
			exit:    code(0), status: Failed,
		},
	})
}

func TestRuby(t *testing.T) {
	runJudgeCases(t, []judgeCase{
		{
			name:    "rspec failure",
			command: "bundle exec rspec 2>&1 | tail -20",
			output: `Failures:

  1) User#name returns the full name
     Failure/Error: expect(user.name).to eq("Ada Lovelace")

       expected: "Ada Lovelace"
            got: "Ada"

       (compared using ==)
     # ./spec/models/user_spec.rb:12:in ` + "`block (3 levels) in <top (required)>'" + `

Finished in 0.01234 seconds (files took 0.1 seconds to load)
12 examples, 1 failure

Failed examples:

rspec ./spec/models/user_spec.rb:10 # User#name returns the full name`,
			exit: code(0), status: Failed, tool: "rspec", counts: "12 examples, 1 failure",
			errors: []string{"./spec/models/user_spec.rb:10 # User#name returns the full name"},
		},
		{
			name:    "rspec pending",
			command: "rspec | tail -3",
			output:  "Finished in 0.2 seconds (files took 0.3 seconds to load)\n12 examples, 0 failures, 2 pending\n",
			exit:    code(0), status: Passed, counts: "12 examples, 0 failures, 2 pending",
		},
		{
			name:    "minitest",
			command: "bin/rails test 2>&1 | tail -3",
			output:  "Finished in 0.5s, 10.0 runs/s, 20.0 assertions/s.\n5 runs, 10 assertions, 1 failures, 0 errors, 0 skips\n",
			exit:    code(0), status: Failed, counts: "5 runs, 10 assertions, 1 failures, 0 errors, 0 skips",
		},
	})
}

func TestCargo(t *testing.T) {
	runJudgeCases(t, []judgeCase{
		{
			name:    "a test panics",
			command: "cargo test 2>&1 | tail -25",
			output: `running 2 tests
test tests::adds ... ok
test tests::splits ... FAILED

failures:

---- tests::splits stdout ----
thread 'tests::splits' panicked at src/lib.rs:10:9:
assertion ` + "`left == right`" + ` failed
  left: 1
 right: 2
note: run with ` + "`RUST_BACKTRACE=1`" + ` environment variable to display a backtrace


failures:
    tests::splits

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

error: test failed, to rerun pass ` + "`--lib`",
			exit: code(0), status: Failed, tool: "cargo test", counts: "1 passed, 1 failed, 0 ignored, 0 measured, 0 filtered out",
			errors: []string{"test tests::splits ... FAILED", "src/lib.rs:10:9: assertion `left == right` failed"},
		},
		{
			name:    "mismatched types",
			command: "cargo build 2>&1 | head -30",
			output: `   Compiling shop v0.1.0 (/home/u/shop)
error[E0308]: mismatched types
 --> src/main.rs:4:18
  |
4 |     let n: i32 = "a";
  |            ---   ^^^ expected ` + "`i32`, found `&str`" + `
  |            |
  |            expected due to this

For more information about this error, try ` + "`rustc --explain E0308`" + `.
error: could not compile ` + "`shop` (bin \"shop\")" + ` due to 1 previous error`,
			exit: code(0), status: Failed, source: SourceOutput,
			errors: []string{"src/main.rs:4:18: error[E0308]: mismatched types", "error: could not compile `shop` (bin \"shop\") due to 1 previous error"},
		},
		{
			name:    "build finished",
			command: "cargo build --release 2>&1 | tail -3",
			output:  "   Compiling shop v0.1.0 (/home/u/shop)\n    Finished `release` profile [optimized] target(s) in 3.52s\n",
			exit:    code(0), status: Passed, source: SourceOutput,
		},
		{
			name:    "tests pass",
			command: "cargo test -q 2>&1 | tail -6",
			output:  "\nrunning 3 tests\n...\ntest result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n",
			exit:    code(0), status: Passed, counts: "3 passed, 0 failed, 0 ignored, 0 measured, 0 filtered out",
		},
		{
			name:    "tests not reached in the head",
			command: "cargo test 2>&1 | head -3",
			output:  "   Compiling shop v0.1.0 (/home/u/shop)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.91s\n     Running unittests src/lib.rs (target/debug/deps/shop-1a2b3c)\n",
			exit:    code(0), status: Unknown,
		},
	})
}

func TestMix(t *testing.T) {
	runJudgeCases(t, []judgeCase{
		{
			name:    "failures behind tail",
			command: "mix test --seed 0 2>&1 | tail -12",
			output: `  11) test commit_event records the span (SpotterWeb.HooksControllerTest)
     test/spotter_web/controllers/hooks_controller_test.exs:198
     ** (FunctionClauseError) no function clause matching in SpotterWeb.OtelTraceHelpers.with_span/3
     stacktrace:
       lib/spotter_web/controllers/otel_trace_helpers.ex:12: SpotterWeb.OtelTraceHelpers.with_span/3

....................................................
Finished in 1.9 seconds (0.4s async, 1.5s sync)
14 doctests, 297 tests, 11 failures`,
			exit: code(0), status: Failed, source: SourceOutput, tool: "mix test", counts: "14 doctests, 297 tests, 11 failures",
			errors: []string{"test/spotter_web/controllers/hooks_controller_test.exs:198: test commit_event records the span: ** (FunctionClauseError) no function clause matching in SpotterWeb.OtelTraceHelpers.with_span/3"},
		},
		{
			name:    "pass with excluded tests and logged errors",
			command: "mix test 2>&1 | tail -6",
			output: `12:00:01.123 [error] Task #PID<0.512.0> started from #PID<0.500.0> terminating
** (RuntimeError) boom
    (app 0.1.0) lib/app/worker.ex:9: App.Worker.run/0
.....
Finished in 0.2 seconds (0.1s async, 0.1s sync)
1 property, 42 tests, 0 failures (3 excluded)`,
			exit: code(0), status: Passed, source: SourceOutput, counts: "1 property, 42 tests, 0 failures, 3 excluded",
		},
		{
			name:    "invalid tests fail",
			command: "mix test test/app_test.exs | tail -3",
			output:  "Finished in 0.02 seconds\n5 tests, 0 failures, 5 invalid\n",
			exit:    code(0), status: Failed,
		},
		{
			name:    "compile error in Elixir 1.17's format",
			command: "mix compile 2>&1 | tail -15",
			output: `Compiling 2 files (.ex)
    error: undefined variable "totl"
    │
 12 │     totl + tax
    │     ^^^^
    │
    └─ lib/shop/cart.ex:12:5: Shop.Cart.total/1


== Compilation error in file lib/shop/cart.ex ==
** (CompileError) lib/shop/cart.ex: cannot compile module Shop.Cart (errors have been logged)`,
			exit: code(0), status: Failed, source: SourceOutput, tool: "mix compile",
			errors: []string{`lib/shop/cart.ex:12:5: error: undefined variable "totl"`, "** (CompileError) lib/shop/cart.ex: cannot compile module Shop.Cart (errors have been logged)"},
		},
		{
			name:    "warnings as errors",
			command: "mix compile --warnings-as-errors 2>&1 | tail -10",
			output: `Compiling 1 file (.ex)
    warning: variable "opts" is unused (if the variable is not meant to be used, prefix it with an underscore)
    │
  3 │   def run(opts), do: :ok
    │           ~~~~
    │
    └─ lib/shop/task.ex:3:11: Shop.Task.run/1

Compilation failed due to warnings while using the --warnings-as-errors option`,
			exit: code(0), status: Failed,
			errors: []string{"Compilation failed due to warnings while using the --warnings-as-errors option"},
		},
		{
			name:    "compile with warnings passes",
			command: "mix compile 2>&1 | tail -10",
			output:  "Compiling 1 file (.ex)\n    warning: unused alias Repo\n    │\n  2 │   alias Shop.Repo\n    │   ~\n    │\n    └─ lib/shop/x.ex:2:3\n\nGenerated shop app\n",
			exit:    code(0), status: Passed, source: SourceOutput,
		},
		{
			name:    "mix cannot start the app",
			command: "mix test 2>&1 | tail -4",
			output:  "Running setup for AshSqlite.DataLayer...\n** (Mix) Could not start application opentelemetry: exited in: :opentelemetry_app.start(:normal, [])\n    ** (EXIT) an exception was raised:\n        ** (BadMapError) expected a map, got:",
			exit:    code(0), status: Failed,
			errors: []string{"** (Mix) Could not start application opentelemetry: exited in: :opentelemetry_app.start(:normal, [])"},
		},
		{
			name:    "a doctest fails",
			command: "mix test test/shop_test.exs | head -8",
			output: `  1) doctest Shop.Cart.total/1 (1) (Shop.CartTest)
     test/shop/cart_test.exs:3
     Doctest failed
     doctest:
       iex> Shop.Cart.total([])
       1
     code:  Shop.Cart.total([]) === 1
     left:  0`,
			exit: code(0), status: Failed, errors: []string{"test/shop/cart_test.exs:3: doctest Shop.Cart.total/1 (1): Doctest failed"},
		},
		{
			name:    "format check fails",
			command: "mix format --check-formatted",
			output:  "** (Mix) mix format failed due to --check-formatted.\nThe following files are not formatted:\n\n  * lib/shop/cart.ex\n",
			exit:    code(1), status: Failed, source: SourceBoth, tool: "mix format",
		},
	})
}

func TestLinters(t *testing.T) {
	runJudgeCases(t, []judgeCase{
		{
			name:    "credo finds issues",
			command: "mix credo --strict 2>&1 | tail -12",
			output: `  Consistency
┃
┃ [C] ↗ File is using unix line endings while most of the files use windows line endings.
┃       lib/shop/cart.ex:1 #(Shop.Cart)

  Warnings - please take a look
┃
┃ [W] ↗ IO.inspect/1 calls should only be used during debugging.
┃       lib/shop/cart.ex:22:5 #(Shop.Cart.total)

Analysis took 0.2 seconds (0.02s to load, 0.2s running 55 checks on 31 files)
233 mods/funs, found 1 consistency issue, 1 warning.`,
			exit: code(0), status: Failed, source: SourceOutput, tool: "mix credo", counts: "1 consistency issue, 1 warning",
			errors: []string{"lib/shop/cart.ex:1: [C] File is using unix line endings while most of the files use windows line endings.", "lib/shop/cart.ex:22:5: [W] IO.inspect/1 calls should only be used during debugging."},
		},
		{
			name:    "credo finds nothing",
			command: "mix credo 2>&1 | tail -3",
			output:  "Analysis took 0.1 seconds (0.01s to load, 0.1s running 55 checks on 31 files)\n233 mods/funs, found no issues.\n\nShowing priority issues: ↑ ↗ →  (use `mix credo explain` to explain issues, `mix credo --help` for options).",
			exit:    code(0), status: Passed, counts: "no issues",
		},
		{
			name:    "tsc errors",
			command: "npx tsc --noEmit 2>&1 | head -20",
			output:  "src/api.ts(14,7): error TS2322: Type 'string' is not assignable to type 'number'.\nsrc/api.ts(20,3): error TS2554: Expected 1 arguments, but got 2.\n",
			exit:    code(0), status: Failed, source: SourceOutput, tool: "tsc",
			errors: []string{"src/api.ts(14,7): error TS2322: Type 'string' is not assignable to type 'number'.", "src/api.ts(20,3): error TS2554: Expected 1 arguments, but got 2."},
		},
		{
			name:    "tsc pretty",
			command: "pnpm exec tsc -p . | tail -8",
			output:  "src/api.ts:14:7 - error TS2322: Type 'string' is not assignable to type 'number'.\n\n14   const n: number = 'a';\n         ~\n\n\nFound 1 error in src/api.ts:14\n",
			exit:    code(0), status: Failed, counts: "1 error",
		},
		{
			name:    "tsc is quiet",
			command: "npx tsc --noEmit 2>&1 | tail -5",
			output:  "",
			exit:    code(0), status: Passed, source: SourceOutput,
		},
		{
			name:    "eslint error",
			command: "npx eslint src 2>&1 | tail -20",
			output: `/home/u/p/src/app.js
   3:10  error    'unused' is defined but never used  no-unused-vars
  12:5   warning  Unexpected console statement       no-console

✖ 2 problems (1 error, 1 warning)
  1 error and 0 warnings potentially fixable with the ` + "`--fix`" + ` option.`,
			exit: code(0), status: Failed, tool: "eslint", counts: "2 problems, 1 error, 1 warning",
			errors: []string{"/home/u/p/src/app.js:3:10: 'unused' is defined but never used  no-unused-vars"},
		},
		{
			name:    "eslint warnings only",
			command: "npx eslint . | tail -4",
			output:  "/home/u/p/src/app.js\n  12:5  warning  Unexpected console statement  no-console\n\n✖ 1 problem (0 errors, 1 warning)\n",
			exit:    code(0), status: Passed,
		},
		{
			name:    "dialyzer",
			command: "mix dialyzer 2>&1 | tail -8",
			output:  "Total errors: 1, Skipped: 0, Unnecessary Skips: 0\ndone in 0m12.7s\nlib/shop/cart.ex:94:7:pattern_match_cov\nThe pattern\n:variable_\n\ncan never match.\n________________________________________________________________________________\ndone (warnings were emitted)\nHalting VM with exit status 2",
			exit:    code(0), status: Failed, errors: []string{"lib/shop/cart.ex:94:7:pattern_match_cov"},
		},
		{
			name:    "mypy",
			command: "mypy src | tail -3",
			output:  "src/shop/cart.py:12: error: Incompatible return value type (got \"str\", expected \"int\")  [return-value]\nFound 1 error in 1 file (checked 14 source files)\n",
			exit:    code(0), status: Failed, counts: "1 error",
			errors: []string{`src/shop/cart.py:12: error: Incompatible return value type (got "str", expected "int")  [return-value]`},
		},
		{
			name:    "mypy clean",
			command: "mypy src | tail -3",
			output:  "Success: no issues found in 14 source files\n",
			exit:    code(0), status: Passed,
		},
		{
			name:    "ruff",
			command: "ruff check . | tail -5",
			output:  "src/a.py:1:8: F401 [*] `os` imported but unused\nFound 1 error.\n[*] 1 fixable with the `--fix` option.\n",
			exit:    code(0), status: Failed,
		},
		{
			name:    "golangci-lint",
			command: "golangci-lint run ./... | tail -5",
			output:  "internal/a/a.go:12:2: Error return value of `f.Close` is not checked (errcheck)\n\tf.Close()\n\t^\n1 issues:\n* errcheck: 1\n",
			exit:    code(0), status: Failed, errors: []string{"internal/a/a.go:12:2: Error return value of `f.Close` is not checked (errcheck)"},
		},
		{
			name:    "golangci-lint clean",
			command: "golangci-lint run ./... | tail -5",
			output:  "0 issues.\n",
			exit:    code(0), status: Passed,
		},
		{
			name:    "gofmt -l lists files but exits 0: its output is not read",
			command: "gofmt -l . | head",
			output:  "internal/a/a.go\n",
			exit:    code(0), status: Unknown,
		},
		{
			name:    "bash -n",
			command: "bash -n deploy.sh 2>&1 | head",
			output:  "deploy.sh: line 12: syntax error near unexpected token `fi'\ndeploy.sh: line 12: `fi'\n",
			exit:    code(0), status: Failed, tool: "bash -n",
		},
	})
}

func TestBuildTools(t *testing.T) {
	runJudgeCases(t, []judgeCase{
		{
			name:    "make and gcc",
			command: "make 2>&1 | tail -20",
			output: `cc -Wall -c -o main.o main.c
main.c: In function 'main':
main.c:5:3: error: 'x' undeclared (first use in this function)
    5 |   x = 1;
      |   ^
main.c:5:3: note: each undeclared identifier is reported only once for each function it appears in
make: *** [<builtin>: main.o] Error 1`,
			exit: code(0), status: Failed, source: SourceOutput, tool: "make",
			errors: []string{"main.c:5:3: error: 'x' undeclared (first use in this function)", "make: *** [<builtin>: main.o] Error 1"},
		},
		{
			name:    "make in a subdirectory",
			command: "make -C build test 2>&1 | tail -3",
			output:  "make[1]: Entering directory '/home/u/p/build'\nmake[1]: *** [Makefile:30: test] Error 2\nmake[1]: Leaving directory '/home/u/p/build'\n",
			exit:    code(0), status: Failed, tool: "make test",
		},
		{
			name:    "clang",
			command: "clang -o app src/app.c",
			output:  "src/app.c:3:12: error: use of undeclared identifier 'y'\n    3 |     return y;\n      |            ^\n1 error generated.\n",
			exit:    code(1), status: Failed, source: SourceBoth, errors: []string{"src/app.c:3:12: error: use of undeclared identifier 'y'"},
		},
		{
			name:    "ninja",
			command: "cmake --build build 2>&1 | tail -6",
			output:  "[1/3] Building C object CMakeFiles/app.dir/src/a.c.o\nFAILED: CMakeFiles/app.dir/src/a.c.o\n/usr/bin/cc -o CMakeFiles/app.dir/src/a.c.o -c /home/u/p/src/a.c\n/home/u/p/src/a.c:3:12: error: use of undeclared identifier 'y'\n1 error generated.\nninja: build stopped: subcommand failed.\n",
			exit:    code(0), status: Failed, errors: []string{"/home/u/p/src/a.c:3:12: error: use of undeclared identifier 'y'"},
		},
		{
			name:    "gradle test failure",
			command: "./gradlew test 2>&1 | tail -30",
			output: `> Task :app:test FAILED

AppTest > testGreeting() FAILED
    org.opentest4j.AssertionFailedError at AppTest.java:12

2 tests completed, 1 failed

FAILURE: Build failed with an exception.

* What went wrong:
Execution failed for task ':app:test'.
> There were failing tests. See the report at: file:///home/u/p/app/build/reports/tests/test/index.html

* Try:
> Run with --scan to get full insights.

BUILD FAILED in 3s`,
			exit: code(0), status: Failed, tool: "gradle test", counts: "2 tests completed, 1 failed",
			errors: []string{"AppTest > testGreeting() FAILED", "Execution failed for task ':app:test'."},
		},
		{
			name:    "gradle build passes",
			command: "./gradlew build | tail -3",
			output:  "BUILD SUCCESSFUL in 5s\n7 actionable tasks: 7 executed\n",
			exit:    code(0), status: Passed,
		},
		{
			name:    "maven test failure",
			command: "mvn -q test 2>&1 | tail -40",
			output: `[INFO] Running com.example.AppTest
[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.021 s <<< FAILURE! - in com.example.AppTest
[ERROR] com.example.AppTest.shouldAdd  Time elapsed: 0.005 s  <<< FAILURE!
org.opentest4j.AssertionFailedError: expected: <4> but was: <5>
	at com.example.AppTest.shouldAdd(AppTest.java:14)

[INFO]
[INFO] Results:
[INFO]
[ERROR] Failures:
[ERROR]   AppTest.shouldAdd:14 expected: <4> but was: <5>
[INFO]
[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0
[INFO]
[INFO] ------------------------------------------------------------------------
[INFO] BUILD FAILURE
[INFO] ------------------------------------------------------------------------
[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.2:test (default-test) on project app: There are test failures.
[ERROR] -> [Help 1]`,
			exit: code(0), status: Failed, tool: "mvn test", counts: "3 tests run, 1 failures, 0 errors, 0 skipped",
			errors: []string{"org.opentest4j.AssertionFailedError: expected: <4> but was: <5>", "AppTest.shouldAdd:14 expected: <4> but was: <5>"},
		},
		{
			name:    "maven passes",
			command: "mvn test | tail -5",
			output:  "[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0\n[INFO]\n[INFO] ------------------------------------------------------------------------\n[INFO] BUILD SUCCESS\n[INFO] ------------------------------------------------------------------------\n",
			exit:    code(0), status: Passed,
		},
		{
			name:    "npm script fails, old npm",
			command: "npm run build 2>&1 | tail -10",
			output: `> app@1.0.0 build /home/u/app
> webpack --mode production

npm ERR! code ELIFECYCLE
npm ERR! errno 1
npm ERR! app@1.0.0 build: ` + "`webpack --mode production`" + `
npm ERR! Exit status 1
npm ERR!
npm ERR! Failed at the app@1.0.0 build script.`,
			exit: code(0), status: Failed, tool: "npm run build", errors: []string{"app@1.0.0 build: `webpack --mode production`"},
		},
		{
			name:    "npm script missing, new npm",
			command: "npm run tset 2>&1 | tail",
			output:  "npm error Missing script: \"tset\"\nnpm error\nnpm error Did you mean this?\nnpm error   npm test # Test the package\nnpm error\nnpm error To see a list of scripts, run:\nnpm error   npm run\nnpm error A complete log of this run can be found in: /root/.npm/_logs/2024-01-01T00_00_00_000Z-debug-0.log\n",
			exit:    code(0), status: Failed, errors: []string{`Missing script: "tset"`},
		},
		{
			name:    "esbuild",
			command: "node assets/build.js 2>&1",
			output:  "Exit code 1\n✘ [ERROR] Could not resolve \"js/app.js\"\n\n1 error\n",
			exit:    code(1), status: Failed, source: SourceBoth, errors: []string{`Could not resolve "js/app.js"`},
		},
	})
}

func TestGeneric(t *testing.T) {
	runJudgeCases(t, []judgeCase{
		{
			// rackunit's summary puts the failures over the total.
			name:    "a fraction of test failures behind a pipe",
			command: "raco test -p mylib 2>&1 | tail -8",
			output:  "--------------------\nFAILURE\nname:       check-equal?\nlocation:   mylib/tests/parse.rkt:88:2\n--------------------\n3/40 test failures\n",
			exit:    code(0), status: Failed, source: SourceOutput, counts: "3 test failures",
		},
		{
			name:    "no failures over the total",
			command: "raco test -p mylib 2>&1 | tail -3",
			output:  "raco test: (submod \"mylib/tests/parse.rkt\" test)\n0/40 test failures\n",
			exit:    code(0), status: Passed,
		},
		{
			// Labelled lines: the "E:" one is the error, not a later
			// "I:" one whose tag says "error".
			name:    "an E: line before W: and I: lines",
			command: "debcheck --strict ../pkg_1.0-1_amd64.changes",
			output:  "E: pkg: binary-without-manpage usr/bin/pkgtool\nW: pkg: description-starts-with-package-name\nI: pkg-doc: typo-error-in-copyright teh the\n",
			exit:    code(2), status: Failed,
			first: "E: pkg: binary-without-manpage usr/bin/pkgtool", notErr: "typo-error",
		},
		{
			name:    "info and notes only are no errors",
			command: "./tools/audit.sh",
			output:  "info: scanned 214 files\nnote: error-prone pattern list is empty\nFAILED: 2 files unreadable\n",
			exit:    code(1), status: Failed,
			notErr: "error-prone",
		},
		{
			name:    "python script traceback behind tail",
			command: "python3 scripts/migrate.py 2>&1 | tail -20",
			output: `Traceback (most recent call last):
  File "/home/u/p/scripts/migrate.py", line 42, in <module>
    main()
  File "/home/u/p/scripts/migrate.py", line 38, in main
    conn.execute(SQL)
sqlite3.OperationalError: no such table: users`,
			exit: code(0), status: Failed, source: SourceOutput,
			errors: []string{"/home/u/p/scripts/migrate.py:38: sqlite3.OperationalError: no such table: users"},
		},
		{
			name:    "a script prints a summary",
			command: "./scripts/check.sh | tail -3",
			output:  "checking links...\nSummary: 3 failed, 12 passed\n",
			exit:    code(0), status: Failed, counts: "3 failed, 12 passed",
		},
		{
			name:    "zero failures in many spellings",
			command: "./scripts/ci.sh 2>&1 | tail -5",
			output:  "0 failed\nTests run: 12, Failures: 0, Errors: 0\nno errors\n12 examples, 0 failures\n",
			exit:    code(0), status: Passed,
		},
		{
			// The recap is a summary of pairs: none failed, and it
			// ends the output, so the run passed.
			name:    "ansible's failed=0 is not a failure",
			command: "./deploy.sh 2>&1 | tail -3",
			output:  "PLAY RECAP *********************************************************************\nweb1                       : ok=12   changed=3    unreachable=0    failed=0    skipped=2    rescued=0    ignored=0\n",
			exit:    code(0), status: Passed, hidden: HiddenPipe,
		},
		{
			name:    "ansible's recap with failed=1 behind a pipe",
			command: "ansible-playbook site.yml 2>&1 | tail -3",
			output:  "fatal: [web1]: FAILED! => {\"msg\": \"Bad configuration option: KexAlgorithm\"}\nPLAY RECAP *********************************************************************\nweb1                       : ok=2   changed=0    unreachable=0    failed=1    skipped=0    rescued=0    ignored=0\n",
			exit:    code(0), status: Failed, hidden: HiddenPipe,
			errors: []string{`fatal: [web1]: FAILED! => {"msg": "Bad configuration option: KexAlgorithm"}`},
		},
		{
			name:    "dbt's timestamped summary of pairs behind tee and tail",
			command: "dbt test --select fct_revenue --target dev 2>&1 | tee logs/t.log | tail -n 5",
			output:  "20:11:56  Completed with 1 error and 0 warnings:\n20:11:56  Failure in test not_null_fct_revenue_order_total (models/marts/_marts.yml)\n20:11:56    Got 214 results, configured to fail if != 0\n20:11:56  Done. PASS=3 WARN=0 ERROR=1 SKIP=0 TOTAL=4\n",
			exit:    code(0), status: Failed, hidden: HiddenPipe, counts: "3 pass, 0 warn, 1 error, 0 skip, 4 total",
			errors: []string{"Completed with 1 error and 0 warnings:", "Failure in test not_null_fct_revenue_order_total (models/marts/_marts.yml)", "Got 214 results, configured to fail if != 0"},
		},
		{
			name:    "dbt's passing summary of pairs behind a pipe",
			command: "dbt build --target dev | tail -n 2",
			output:  "20:31:07  Completed successfully\n20:31:07  Done. PASS=4 WARN=0 ERROR=0 SKIP=0 TOTAL=4\n",
			exit:    code(0), status: Passed, hidden: HiddenPipe,
		},
		{
			name:    "a key=value line in a log is not a summary",
			command: "./run.sh | tail -2",
			output:  "12:00:01 request id=42 retries=0 status=200 took 3ms\n12:00:01 shutting down\n",
			exit:    code(0), status: Unknown, hidden: HiddenPipe,
		},
		{
			name:    "an error line in a script that exited 0",
			command: "node scripts/sync.js",
			output:  "Error: connect ECONNREFUSED 127.0.0.1:5432\nretrying in 1s\nsynced 42 rows\n",
			exit:    code(0), status: Passed, source: SourceExit,
		},
		{
			name:    "the same error line behind a pipe",
			command: "node scripts/sync.js | tail -3",
			output:  "Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)\n",
			exit:    code(0), status: Failed, source: SourceOutput,
		},
		{
			name:    "any program's failing summary behind a pipe",
			command: "helm template app charts/app | kubeconform -strict -summary 2>&1 | tail -5",
			output:  "stdin - PodDisruptionBudget app failed validation: could not find schema for PodDisruptionBudget (policy/v1beta1)\nSummary: 14 resources found parsing stdin - Valid: 13, Invalid: 0, Errors: 1, Skipped: 0\n",
			exit:    code(0), status: Failed, source: SourceOutput, hidden: HiddenPipe,
			counts: "13 valid, 0 invalid, 1 errors, 0 skipped",
		},
		{
			name:    "any program's clean summary behind a pipe says nothing",
			command: "helm template app charts/app | kubeconform -summary | tail -1",
			output:  "Summary: 14 resources found parsing stdin - Valid: 14, Invalid: 0, Errors: 0, Skipped: 0\n",
			exit:    code(0), status: Unknown, hidden: HiddenPipe,
		},
		{
			name:    "a failing summary deep in piped data is data",
			command: "git log -5 | head -40",
			output:  "commit abc\n\n    Tests: 3 failed, 10 passed\n\ncommit def\n\n    bump\n\ncommit 123\n",
			exit:    code(0), status: Unknown, hidden: HiddenPipe,
		},
		{
			name:    "git output is data",
			command: "git log --oneline | grep -i fail",
			output:  "abc1234 Fix FAILED test in parser\ndef5678 make: *** [all] Error 2 when CC unset\n",
			exit:    code(0), status: Unknown,
		},
		{
			name:    "cat of a log is data",
			command: "cat /tmp/test.log",
			output:  "--- FAIL: TestX (0.00s)\nFAIL\texample.com/x\t0.01s\n",
			exit:    code(0), status: Passed, source: SourceExit,
		},
		{
			name:    "a failing git command keeps its error line",
			command: "git push 2>&1",
			output:  "Exit code 128\nfatal: The current branch spotter-gqc has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin spotter-gqc\n",
			exit:    code(128), status: Failed, source: SourceExit,
			errors: []string{"fatal: The current branch spotter-gqc has no upstream branch."},
		},
		{
			name:    "pipefail makes the status the work's",
			command: "set -o pipefail; go test ./... 2>&1 | tail -3",
			output:  "ok  \texample.com/a\t0.1s\n",
			exit:    code(0), status: Passed, source: SourceBoth,
		},
		{
			name:    "set -euo pipefail",
			command: "set -euo pipefail\nmake test | tail -1",
			output:  "all good\n",
			exit:    code(0), status: Passed, source: SourceExit,
		},
		{
			name:    "a later echo hides the status",
			command: "mix test; echo done",
			output:  "Finished in 0.1 seconds\n3 tests, 1 failure\ndone\n",
			exit:    code(0), status: Failed, source: SourceOutput, hidden: HiddenList,
		},
		{
			name:    "|| true hides the status",
			command: "make test || true",
			output:  "running...\n",
			exit:    code(0), status: Unknown, hidden: HiddenOr,
		},
		{
			name:    "&& echo keeps the status",
			command: "go vet ./... && echo OK",
			output:  "OK\n",
			exit:    code(0), status: Passed, source: SourceExit,
		},
		{
			name:    "exit status beats an output that says it passed",
			command: "mix test",
			output:  "Exit code 2\n12 tests, 0 failures\n",
			exit:    code(2), status: Failed, source: SourceExit, counts: "12 tests, 0 failures",
		},
		{
			name:    "no exit status, output tells",
			command: "go test ./...",
			output:  "FAIL\texample.com/x\t0.1s\n",
			exit:    nil, status: Failed, source: SourceOutput,
		},
		{
			name:    "background",
			command: "mix test 2>&1",
			output:  "Command running in background with ID: b7636e2. Output is being written to: /tmp/claude-1000/x/tasks/b7636e2.output",
			exit:    code(0), status: Unknown, source: SourceBackground,
		},
		{
			name:    "rejected",
			command: "mix phx.server 2>&1 | head -80",
			output:  "The user doesn't want to proceed with this tool use. The tool use was rejected.",
			exit:    nil, status: Unknown,
		},
		{
			name:    "truncated output is not silence",
			command: "go build ./... 2>&1",
			output:  "... [5804 characters truncated] ...\n",
			exit:    nil, status: Unknown,
		},
	})
}

func TestLine(t *testing.T) {
	tests := []struct {
		command, output string
		exit            *int
		want            string
	}{
		{"mix test --seed 0 2>&1 | tail -30", "Finished in 1.9 seconds\n14 doctests, 297 tests, 11 failures\n", code(0), "exit status hidden by the pipe; output says 14 doctests, 297 tests, 11 failures"},
		{"pytest -q", "31 passed in 0.2s\n", code(0), "exit 0; 31 passed"},
		{"make lint", "make: *** [lint] Error 2\n", code(2), "exit 2"},
		{"go test ./x", "--- FAIL: TestA (0.00s)\nFAIL\n", code(0), "exit 0, but output shows a failure"},
		{"mix test 2>&1 | tail -5", "Compiling 3 files (.ex)\n", code(0), "exit status hidden by the pipe; output does not say"},
		{"mix compile 2>&1 | tail -5", "", code(0), "exit status hidden by the pipe; output shows no failure"},
		{"mix test", "Command running in background with ID: x.", code(0), "started in the background; no outcome yet"},
		{"git status", "rejected", nil, "no exit code"},
		{"go test ./... || true", "FAIL\tx\t0.1s\n", code(0), "exit status hidden by ||; output shows a failure"},
		// A script whose status a pipe hides, and whose output gives no
		// verdict but an error's label: that line, not the filter's exit 0.
		{"./ops/migrate.sh --dry-run 0087 2>&1 | tee logs/dry.log", "migrate: BEGIN (dry run)\nERROR:  canceling statement due to lock timeout\nmigrate: dry run aborted\n", code(0),
			"exit status hidden by the pipe; output shows an error: ERROR:  canceling statement due to lock timeout"},
		{"scripts/sync.sh | tail -3", "sync: fatal: remote end hung up\n", code(0), "exit status hidden by the pipe; output shows an error: fatal: remote end hung up"},
		{"scripts/sync.sh | tail -3", "synced 3 files, 0 errors\nthe error_log is empty\n", code(0), "exit status hidden by the pipe; output does not say"},
		// A runner Judge does not know, its totals a table, one count to a
		// line, under a tail: the failing row says it failed.
		{"godot --headless -s addons/gut/gut_cmdln.gd -gexit 2>&1 | tail -n 20", "* test_a\n    [Failed]:  fell through\n\nTotals\nScripts           1\nTests             5\nPassing           2\nFailing           3\nTime              4.812s\n", code(0),
			"exit status hidden by the pipe; output says 3 failing"},
		{"./run_checks | tail -n 4", "Totals\nChecks\t\t12\nPassing\t\t12\nFailing\t\t0\n", code(0), "exit status hidden by the pipe; output shows no failure"},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			if got := Judge(tt.command, tt.output, tt.exit).Line(); got != tt.want {
				t.Errorf("Line() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOutcomeJSON(t *testing.T) {
	o := Judge("go test ./... | tail", "--- FAIL: TestA (0.00s)\n    a_test.go:3: no\nFAIL\n", code(0))
	data, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"status":"failed"`) || !strings.Contains(string(data), `"hidden":"pipe"`) {
		t.Errorf("JSON %s", data)
	}
	var back Outcome
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Status != Failed || back.Line() != o.Line() || !slices.Equal(back.Errors, o.Errors) {
		t.Errorf("round trip: %+v, want %+v", back, o)
	}
}

func TestErrorsBounded(t *testing.T) {
	var b strings.Builder
	for i := range 50 {
		b.WriteString("src/a.c:")
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString(":1: error: ")
		b.WriteString(strings.Repeat("é", 300))
		b.WriteString("\n")
	}
	o := Judge("make", b.String(), code(2))
	if len(o.Errors) != MaxErrors {
		t.Fatalf("%d errors, want %d", len(o.Errors), MaxErrors)
	}
	for _, e := range o.Errors {
		if len(e) > MaxErrorBytes || !strings.HasSuffix(e, "…") {
			t.Errorf("error of %d bytes: %q", len(e), e)
		}
	}
}

// Runners found by their subcommand and summaries of other families
// (held-out recall scenarios: PHP/phpunit, Haskell/cabal).
func TestOtherRunners(t *testing.T) {
	runJudgeCases(t, []judgeCase{
		{
			name:    "phpunit ok",
			command: "./vendor/bin/phpunit --testsuite unit 2>&1 | tail -30",
			output:  "Time: 00:02.311, Memory: 48.00 MB\n\nOK (214 tests, 533 assertions)\n",
			exit:    code(0), status: Passed, counts: "214 tests, 533 assertions",
		},
		{
			name:    "phpunit errors",
			command: "./vendor/bin/phpunit 2>&1 | tail -30",
			output:  "There were 3 errors:\n\n1) Tests\\Unit\\FooTest::testBar\nArgumentCountError: Too few arguments\n\n/app/tests/Unit/FooTest.php:31\n\nERRORS!\nTests: 214, Assertions: 530, Errors: 3.\n",
			exit:    code(0), status: Failed,
		},
		{
			// Pest (Collision) names the exception on the FAILED line and
			// its message on the next: the message says which failure.
			name:    "pest, the exception's message on the next line",
			command: "php artisan test --filter=StripeWebhookTest",
			output: "\n   FAIL  Tests\\Feature\\StripeWebhookTest\n  ⨯ it ignores a recorded event   0.09s\n  ───────\n" +
				"   FAILED  Tests\\Feature\\StripeWebhookTest > it ignores a recorded event   SignatureVerificationException\n" +
				"  No signatures found matching the expected signature for payload\n\n  at vendor/stripe/stripe-php/lib/WebhookSignature.php:51\n\n" +
				"  Tests:    2 failed (0 assertions)\n  Duration: 0.21s\n",
			exit: code(1), status: Failed,
			errors: []string{"Tests\\Feature\\StripeWebhookTest > it ignores a recorded event   SignatureVerificationException: No signatures found matching the expected signature for payload"},
		},
		{
			// A pytest summary's next line is another failure, not a message.
			name:    "pytest summary, a bare exception then the next failure",
			command: "pytest -q",
			output:  "FAILED tests/a.py::test_b - AssertionError\nFAILED tests/a.py::test_c - KeyError: 'x'\n2 failed, 3 passed in 0.12s\n",
			exit:    code(1), status: Failed,
			errors: []string{"tests/a.py::test_b - AssertionError", "tests/a.py::test_c - KeyError: 'x'"},
		},
		{
			// GNU ld says what failed; collect2's line after it only that
			// the link did.
			name:    "ld, a region overflowed",
			command: "cmake --build --preset stm32-release",
			output: "[2/4] Linking C executable fw.elf\nFAILED: fw.elf \n" +
				"/opt/gcc/bin/../arm-none-eabi/bin/ld: fw.elf section `.text' will not fit in region `FLASH'\n" +
				"/opt/gcc/bin/../arm-none-eabi/bin/ld: region `FLASH' overflowed by 1184 bytes\n" +
				"Memory region         Used Size  Region Size  %age Used\n           FLASH:      132256 B       128 KB    100.90%\n" +
				"collect2: error: ld returned 1 exit status\nninja: build stopped: subcommand failed.\n",
			exit: code(1), status: Failed,
			errors: []string{"ld: fw.elf section `.text' will not fit in region `FLASH'", "ld: region `FLASH' overflowed by 1184 bytes"},
		},
		{
			name:    "ld, its context line and a warning are not errors",
			command: "make",
			output: "/usr/bin/ld: warning: libfoo.so.1, needed by libbar.so, not found\n" +
				"/usr/bin/ld: main.o: in function `main':\n" +
				"main.c:(.text+0x1a): undefined reference to `bar'\n" +
				"collect2: error: ld returned 1 exit status\n",
			exit: code(2), status: Failed,
			errors: []string{"main.c:(.text+0x1a): undefined reference to `bar'"},
		},
		{
			name:    "cabal test, hspec",
			command: "cabal test 2>&1 | tail -14",
			output:  "Failures:\n\n  test/ParseSpec.hs:41:7:\n  1) Parse.parseRecord handles jumbo frames\n\n47 examples, 1 failure\nTest suite spec: FAIL\n",
			exit:    code(0), status: Failed, counts: "47 examples, 1 failure",
		},
		{
			name:    "stack build",
			command: "stack build 2>&1 | tail -5",
			output:  "src/Lib.hs:12:5: error:\n    • Couldn't match expected type ‘Int’ with actual type ‘String’\n",
			exit:    code(0), status: Failed,
		},
	})
}

func TestLinkerMessage(t *testing.T) {
	for _, c := range []struct {
		line, msg string
		ok        bool
	}{
		{"/usr/bin/ld: cannot find -lfoo: No such file or directory", "cannot find -lfoo: No such file or directory", true},
		{"arm-none-eabi-ld: region `FLASH' overflowed by 8 bytes", "region `FLASH' overflowed by 8 bytes", true},
		{"ld.lld: error: undefined symbol: foo", "undefined symbol: foo", true},
		{"ld: warning: dylib was built for newer macOS", "", false},
		{"/usr/bin/ld: main.o: in function `main':", "", false},
		{"build: ld: not a linker", "", false},
		{"field: value", "", false},
	} {
		t.Run(c.line, func(t *testing.T) {
			msg, ok := linkerMessage(c.line)
			if msg != c.msg || ok != c.ok {
				t.Errorf("linkerMessage = %q, %v; want %q, %v", msg, ok, c.msg, c.ok)
			}
		})
	}
}

// A build tool's wrapper ("Execution failed for task", "Failed to execute
// goal", "npm error Lifecycle script", "make: *** ... Error 1", sbt's
// "(Compile / compileIncremental) Compilation failed", cargo's "error:
// could not compile") comes after the compiler's own line, whichever the
// tool printed first: the restore keeps the first.
func TestWrappedFailures(t *testing.T) {
	runJudgeCases(t, []judgeCase{
		{
			name:    "gradle around kotlinc 2",
			command: "./gradlew :billing-core:compileKotlin",
			output: `Exit code 1
> Task :buildSrc:compileKotlin UP-TO-DATE
> Task :billing-core:processResources NO-SOURCE
> Task :billing-core:compileKotlin FAILED
e: file:///home/dev/billing-api/billing-core/src/main/kotlin/billing/core/Money.kt:12:5 Serializer for class 'Currency' is not found.
Please ensure that class is marked as '@Serializable' and that the serialization compiler plugin is applied.

FAILURE: Build failed with an exception.

* What went wrong:
Execution failed for task ':billing-core:compileKotlin'.
> A failure occurred while executing org.jetbrains.kotlin.compilerRunner.GradleCompilerRunnerWithWorkers$GradleKotlinCompilerWorkAction
   > Compilation error. See log for more details

* Try:
> Run with --stacktrace option to get the stack trace.

BUILD FAILED in 38s
5 actionable tasks: 2 executed, 3 up-to-date`,
			exit: code(1), status: Failed, source: SourceBoth,
			first:  "/home/dev/billing-api/billing-core/src/main/kotlin/billing/core/Money.kt:12:5: Serializer for class 'Currency' is not found.",
			errors: []string{"Execution failed for task ':billing-core:compileKotlin'."},
		},
		{
			name:    "gradle around kotlinc 1",
			command: "./gradlew build 2>&1 | tail -20",
			output: `> Task :app:compileKotlin FAILED
e: /home/u/app/src/main/kotlin/App.kt: (12, 5): Unresolved reference: fooBar
w: /home/u/app/src/main/kotlin/Util.kt: (3, 1): Parameter 'x' is never used

FAILURE: Build failed with an exception.

* What went wrong:
Execution failed for task ':app:compileKotlin'.
> Compilation error. See log for more details

BUILD FAILED in 4s`,
			exit: code(0), status: Failed, source: SourceOutput,
			first:  "/home/u/app/src/main/kotlin/App.kt:12:5: Unresolved reference: fooBar",
			notErr: "never used",
		},
		{
			name:    "maven quiet, compiler error",
			command: "mvn -q compile",
			output: `Exit code 1
[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile (default-compile) on project app: Compilation failure
[ERROR] /home/u/app/src/main/java/com/example/App.java:[12,9] cannot find symbol
[ERROR]   symbol:   variable count
[ERROR]   location: class com.example.App
[ERROR] -> [Help 1]
[ERROR] 
[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.`,
			exit: code(1), status: Failed,
			first: "/home/u/app/src/main/java/com/example/App.java:[12,9] cannot find symbol",
		},
		{
			name:    "npm 10 around tsc, stderr first",
			command: "npm run build",
			output: "Exit code 2\nnpm error Lifecycle script `build` failed with error:\nnpm error code 2\nnpm error path /home/u/web\nnpm error workspace web@1.0.0\nnpm error location /home/u/web\nnpm error command failed\nnpm error command sh -c tsc -p .\n\n> web@1.0.0 build\n> tsc -p .\n\n" +
				"src/api.ts(14,7): error TS2322: Type 'string' is not assignable to type 'number'.\n",
			exit: code(2), status: Failed, tool: "npm run build",
			first: "src/api.ts(14,7): error TS2322: Type 'string' is not assignable to type 'number'.",
		},
		{
			name:    "make first, gcc after",
			command: "make",
			output:  "Exit code 2\nmake: *** [Makefile:12: build/main.o] Error 1\ncc -Wall -c -o build/main.o src/main.c\nsrc/main.c:5:3: error: 'x' undeclared (first use in this function)\n    5 |   x = 1;\n      |   ^\n",
			exit:    code(2), status: Failed,
			first:  "src/main.c:5:3: error: 'x' undeclared (first use in this function)",
			errors: []string{"make: *** [Makefile:12: build/main.o] Error 1"},
		},
		{
			name:    "sbt",
			command: "sbt compile",
			output: `Exit code 1
[info] welcome to sbt 1.10.2 (Eclipse Adoptium Java 17.0.12)
[info] compiling 1 Scala source to /home/u/app/target/scala-2.13/classes ...
[error] /home/u/app/src/main/scala/Foo.scala:3:5: not found: value x
[error]     x
[error]     ^
[error] one error found
[error] (Compile / compileIncremental) Compilation failed
[error] Total time: 2 s, completed Nov 24, 2026, 10:00:00 PM`,
			exit: code(1), status: Failed,
			first:  "/home/u/app/src/main/scala/Foo.scala:3:5: not found: value x",
			errors: []string{"(Compile / compileIncremental) Compilation failed"},
		},
		{
			name:    "cargo",
			command: "cargo build",
			output: "Exit code 101\n   Compiling app v0.1.0 (/home/u/app)\nerror[E0308]: mismatched types\n --> src/main.rs:4:18\n  |\n4 |     let x: i32 = \"a\";\n  |            ---   ^^^ expected `i32`, found `&str`\n\n" +
				"For more information about this error, try `rustc --explain E0308`.\nerror: could not compile `app` (bin \"app\") due to 1 previous error\n",
			exit: code(101), status: Failed,
			first: "src/main.rs:4:18: error[E0308]: mismatched types",
		},
		{
			name:    "gradle test with the assertion's message",
			command: "./gradlew test --continue 2>&1 | tail -40",
			output: `> Task :billing-events:test FAILED

PaymentEventJsonTest > encodes refund without null fields() FAILED
    org.opentest4j.AssertionFailedError: expected: <{"id":"r_1","amount":500}> but was: <{"id":"r_1","amount":500,"reason":null}>
        at app//org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)

142 tests completed, 1 failed

FAILURE: Build failed with an exception.

* What went wrong:
Execution failed for task ':billing-events:test'.
> There were failing tests. See the report at: file:///home/dev/billing-api/billing-events/build/reports/tests/test/index.html

BUILD FAILED in 1m 12s`,
			exit: code(0), status: Failed, counts: "142 tests completed, 1 failed",
			first:  `PaymentEventJsonTest > encodes refund without null fields() FAILED: org.opentest4j.AssertionFailedError: expected: <{"id":"r_1","amount":500}> but was: <{"id":"r_1","amount":500,"reason":null}>`,
			errors: []string{"Execution failed for task ':billing-events:test'."},
		},
		{
			name:    "gradle's cause under its wrapper",
			command: "./gradlew assemble",
			output:  "Exit code 1\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task ':app:mergeDebugResources'.\n> Resource compilation failed.\n\nBUILD FAILED in 2s\n",
			exit:    code(1), status: Failed,
			first: "> Resource compilation failed.", errors: []string{"Execution failed for task ':app:mergeDebugResources'."},
		},
	})
}

// The failing test's name, not a summary's zero count nor a check that
// passed.
func TestFailingTests(t *testing.T) {
	runJudgeCases(t, []judgeCase{
		{
			name:    "plenary",
			command: `nvim --headless -c "PlenaryBustedDirectory tests/ {minimal_init = 'tests/minimal_init.lua'}"`,
			output: "Exit code 1\nStarting...Scheduling: tests/pinpoint_spec.lua\n\n========================================\nTesting: \t/home/u/pinpoint.nvim/tests/pinpoint_spec.lua\n" +
				"\x1b[32mSuccess\x1b[0m\t||\tpinpoint saves pins\n\x1b[31mFail\x1b[0m\t||\tpinpoint pins follow the git branch\n" +
				"            ...pinpoint.nvim/tests/pinpoint_spec.lua:38: Expected objects to not be the same.\n            Passed in:\n            (string) '/tmp/repo'\n" +
				"\x1b[32mSuccess\x1b[0m\t||\tpinpoint clear empties the list\n\n\x1b[32mSuccess: \x1b[0m\t2\n\x1b[31mFailed : \x1b[0m\t1\n\x1b[31mErrors : \x1b[0m\t0\n========================================\nTests Failed. Exit: 1\n",
			exit: code(1), status: Failed,
			first:  "pinpoint pins follow the git branch: ...pinpoint.nvim/tests/pinpoint_spec.lua:38: Expected objects to not be the same.",
			notErr: "Errors",
		},
		{
			name:    "a zero count is no error line",
			command: "./run-tests.sh",
			output:  "Exit code 1\nchecking fixtures\nErrors : 0\nWarnings: 0\n",
			exit:    code(1), status: Failed,
			notErr: "Errors",
		},
		{
			name:    "go test names the test",
			command: "go test ./internal/server/...",
			output:  "Exit code 1\n--- FAIL: TestUnaryDeadline (0.01s)\n    server_test.go:41: GetBalance after deadline: got code Unknown, want DeadlineExceeded\nFAIL\nFAIL\texample.com/ledgerd/internal/server\t0.388s\nFAIL\n",
			exit:    code(1), status: Failed,
			first: "TestUnaryDeadline: server_test.go:41: GetBalance after deadline: got code Unknown, want DeadlineExceeded",
		},
		{
			name:    "go subtest",
			command: "go test ./parse",
			output:  "Exit code 1\n--- FAIL: TestParse (0.00s)\n    --- FAIL: TestParse/empty_input (0.00s)\n        parse_test.go:22: got <nil>, want an error\nFAIL\nFAIL\texample.com/p/parse\t0.004s\nFAIL\n",
			exit:    code(1), status: Failed,
			first: "TestParse/empty_input: parse_test.go:22: got <nil>, want an error",
		},
		{
			name:    "gh pr checks, terminal marks",
			command: "gh pr checks 412",
			output: "Exit code 1\nSome checks were not successful\n0 cancelled, 1 failing, 3 successful, 0 skipped, and 0 pending checks\n\n   NAME                      DESCRIPTION  ELAPSED  URL\n" +
				"X  ci / lint (pull_request)                41s      https://github.com/acme/ledgerd/actions/runs/9182734412/job/25250077331\n" +
				"✓  ci / test (pull_request)                2m13s    https://github.com/acme/ledgerd/actions/runs/9182734412/job/25250077402\n" +
				"✓  buf / breaking (pull_request)           18s      https://github.com/acme/ledgerd/actions/runs/9182734399/job/25250076950\n",
			exit: code(1), status: Failed,
			first:  "X  ci / lint (pull_request)                41s      https://github.com/acme/ledgerd/actions/runs/9182734412/job/25250077331",
			notErr: "breaking",
		},
		{
			name:    "gh pr checks, piped: tab-separated",
			command: "gh pr checks 412",
			output:  "Exit code 1\nci / lint (pull_request)\tfail\t41s\thttps://github.com/acme/x/actions/runs/1/job/2\t\nci / test (pull_request)\tpass\t2m13s\thttps://github.com/acme/x/actions/runs/1/job/3\t\nbuf / breaking (pull_request)\tpass\t18s\thttps://github.com/acme/x/actions/runs/2/job/4\t\n",
			exit:    code(1), status: Failed,
			first:  "ci / lint (pull_request)\tfail\t41s\thttps://github.com/acme/x/actions/runs/1/job/2",
			notErr: "breaking",
		},
		{
			name:    "TAP from node --test",
			command: "node --test",
			output:  "Exit code 1\nTAP version 13\n# Subtest: parses dates\nnot ok 1 - parses dates\n  ---\n  duration_ms: 1.2\n  ...\n# Subtest: formats\nok 2 - formats\n1..2\n# tests 2\n# pass 1\n# fail 1\n",
			exit:    code(1), status: Failed,
			first: "parses dates",
		},
		{
			name:    "pytest names the test behind a pipe",
			command: "pytest -q 2>&1 | tail -5",
			output:  "FAILED tests/test_rates.py::test_rounding_half_even - AssertionError: assert Decimal('2.68') == Decimal('2.67')\n1 failed, 41 passed in 0.82s\n",
			exit:    code(0), status: Failed,
			first: "tests/test_rates.py::test_rounding_half_even - AssertionError: assert Decimal('2.68') == Decimal('2.67')",
		},
		{
			name:    "jest names the test",
			command: "npx jest",
			output:  "Exit code 1\nFAIL src/cart.test.ts\n  ● cart › applies the discount once\n\n    expect(received).toBe(expected) // Object.is equality\n\n    Expected: 90\n    Received: 81\n\nTests:       1 failed, 12 passed, 13 total\n",
			exit:    code(1), status: Failed,
			first: "cart › applies the discount once",
		},
		{
			name:    "rspec names the example",
			command: "bundle exec rspec",
			output:  "Exit code 1\n.F.\n\nFailed examples:\n\nrspec ./spec/models/user_spec.rb:12 # User#full_name joins the names\n\n3 examples, 1 failure\n",
			exit:    code(1), status: Failed,
			first: "./spec/models/user_spec.rb:12 # User#full_name joins the names",
		},
	})
}

// More runners and wrappers in their real shapes: dotnet test's failed
// test, a BuildKit step's compiler error under docker's "failed to solve".
func TestWrappedFailuresMore(t *testing.T) {
	runJudgeCases(t, []judgeCase{
		{
			name:    "dotnet test",
			command: "dotnet test",
			output: "Exit code 1\n  Determining projects to restore...\n  Shop.Tests -> /p/Shop.Tests/bin/Debug/net8.0/Shop.Tests.dll\n" +
				"  Failed Shop.Tests.CartTests.AppliesDiscountOnce [12 ms]\n  Error Message:\n   Assert.Equal() Failure: Values differ\nExpected: 90\nActual:   81\n" +
				"  Stack Trace:\n     at Shop.Tests.CartTests.AppliesDiscountOnce() in /p/Shop.Tests/CartTests.cs:line 21\n\nFailed!  - Failed:     1, Passed:    12, Skipped:     0, Total:    13, Duration: 48 ms - Shop.Tests.dll (net8.0)\n",
			exit: code(1), status: Failed,
			first: "Shop.Tests.CartTests.AppliesDiscountOnce [12 ms]",
		},
		{
			name:    "docker build around tsc",
			command: "docker build -t web .",
			output: "Exit code 1\n#0 building with \"default\" instance using docker driver\n#11 [build 5/6] RUN npm run build\n#11 0.412 \n#11 0.412 > web@1.0.0 build\n#11 0.412 > tsc -p .\n#11 0.412 \n" +
				"#11 3.981 src/api.ts(14,7): error TS2322: Type 'string' is not assignable to type 'number'.\n#11 ERROR: process \"/bin/sh -c npm run build\" did not complete successfully: exit code: 2\n" +
				"------\n > [build 5/6] RUN npm run build:\n------\nERROR: failed to solve: process \"/bin/sh -c npm run build\" did not complete successfully: exit code: 2\n",
			exit: code(1), status: Failed,
			first: "src/api.ts(14,7): error TS2322: Type 'string' is not assignable to type 'number'.",
		},
	})
}

// A formatter's check names the file to reformat, not a line of its diff.
func TestFormatterChecks(t *testing.T) {
	runJudgeCases(t, []judgeCase{
		{
			name:    "stylua",
			command: "stylua --check lua/",
			output:  "Exit code 1\nDiff in lua/pinpoint/commands.lua:\n1     |-vim.api.nvim_create_user_command(\"PinpointClear\", function()\n2     |-    require(\"pinpoint\").clear()\n      |+vim.api.nvim_create_user_command(\"PinpointClear\", function()\n      |+  require(\"pinpoint\").clear()\n",
			exit:    code(1), status: Failed,
			first: "Diff in lua/pinpoint/commands.lua",
		},
		{
			name:    "rustfmt",
			command: "cargo fmt --check",
			output:  "Exit code 1\nDiff in /home/u/app/src/main.rs at line 3:\n fn main() {\n-    let x=1;\n+    let x = 1;\n }\n",
			exit:    code(1), status: Failed,
			first: "Diff in /home/u/app/src/main.rs at line 3",
		},
		{
			name:    "ruff format",
			command: "ruff format --check .",
			output:  "Exit code 1\nWould reformat: src/app/models.py\n1 file would be reformatted, 12 files already formatted\n",
			exit:    code(1), status: Failed,
			first: "Would reformat: src/app/models.py",
		},
	})
}

// A wrapper's line longer than an error line may be is still a wrapper.
func TestLongWrapper(t *testing.T) {
	goal := "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile (default-compile) on project billing-ledger-service-with-a-long-name: Compilation failure: Compilation failure: see the compiler's output above for the details"
	o := Judge("mvn -q compile", "Exit code 1\n"+goal+"\n[ERROR] /home/u/app/src/main/java/App.java:[12,9] cannot find symbol\n", code(1))
	if len(o.Errors) == 0 || o.Errors[0] != "/home/u/app/src/main/java/App.java:[12,9] cannot find symbol" {
		t.Errorf("errors %q", o.Errors)
	}
}

// Runs whose failure sits under a runner's own format, behind a pipe, or
// under the frames and wrappers of a stack trace: the outcome says what the
// output says, and the first error line is the error itself.
func TestTracesAndRunners(t *testing.T) {
	runJudgeCases(t, []judgeCase{
		{
			name:    "sbt testOnly of a scoped project behind tail",
			command: `sbt "core/testOnly *LedgerSpec" 2>&1 | tail -n 40`,
			output: `[info] LedgerSpec:
[info] - should post an entry *** FAILED ***
[info]   java.lang.ExceptionInInitializerError:
[info]   at ledger.Fx$.<clinit>(Fx.scala:11)
[info]   ...
[info]   Cause: com.typesafe.config.ConfigException$Missing: reference.conf: 1: No configuration setting found for key 'fx.mode'
[info]   at com.typesafe.config.impl.SimpleConfig.findKeyOrNull(SimpleConfig.java:157)
[info] - should net refunds
[info] Run completed in 2 seconds, 114 milliseconds.
[info] Total number of tests run: 2
[info] Suites: completed 1, aborted 0
[info] Tests: succeeded 1, failed 1, canceled 0, ignored 0, pending 0
[info] *** 1 TEST FAILED ***
[error] Failed tests:
[error] 	ledger.LedgerSpec
[error] (core / Test / testOnly) sbt.TestsFailedException: Tests unsuccessful
[error] Total time: 41 s, completed Nov 25, 2026, 3:12:08 AM`,
			exit: code(0), status: Failed, source: SourceOutput, hidden: HiddenPipe, tool: "sbt core/testOnly", counts: "1 test failed",
			first:  "ConfigException$Missing: reference.conf: 1: No configuration setting found for key 'fx.mode'",
			errors: []string{"should post an entry", "(core / Test / testOnly) sbt.TestsFailedException: Tests unsuccessful"},
		},
		{
			name:    "scalatest passes",
			command: "sbt test",
			output:  "[info] Tests: succeeded 6, failed 0, canceled 0, ignored 0, pending 0\n[info] All tests passed.\n[success] Total time: 23 s",
			exit:    code(0), status: Passed, counts: "6 succeeded, 0 failed, 0 canceled, 0 ignored, 0 pending",
		},
		{
			name:    "ctest behind tail",
			command: "ctest --preset ubsan 2>&1 | tail -15",
			output: `35/37 Test #35: suite.case_35 ...................   Passed    0.08 sec
src/geom/predicates.cpp:88:31: runtime error: signed integer overflow: 2147480000 * 46341 cannot be represented in type 'int'
36/37 Test #36: predicates.orient2d_large ........***Failed    0.02 sec
37/37 Test #37: triangulate.delaunay_grid ........***Failed    0.40 sec

95% tests passed, 2 tests failed out of 37

The following tests FAILED:
	 36 - predicates.orient2d_large (Failed)
	 37 - triangulate.delaunay_grid (Failed)
Errors while running CTest`,
			exit: code(0), status: Failed, source: SourceOutput, hidden: HiddenPipe, counts: "2 tests failed",
			errors: []string{"src/geom/predicates.cpp:88:31: runtime error: signed integer overflow: 2147480000 * 46341 cannot be represented in type 'int'", "predicates.orient2d_large", "triangulate.delaunay_grid"},
		},
		{
			name:    "ctest passes",
			command: "ctest --preset asan | tail -3",
			output:  "3/3 Test #14: halfedge.flip_and_split ...........   Passed    0.22 sec\n\n100% tests passed, 0 tests failed out of 3",
			exit:    code(0), status: Passed, source: SourceOutput,
		},
		{
			name:    "a sanitizer's summary",
			command: "ctest --preset asan --output-on-failure",
			output: `1/3 Test #12: halfedge.collapse_boundary ........***Failed    0.44 sec
==48213==ERROR: AddressSanitizer: heap-use-after-free on address 0x6080000003a8 at pc 0x55d1c2e4b1f0
    #0 0x55d1c2e4b1ef in tessel::HalfEdgeMesh::collapseEdge(unsigned int) src/mesh/halfedge.cpp:214:27
SUMMARY: AddressSanitizer: heap-use-after-free src/mesh/halfedge.cpp:214:27 in tessel::HalfEdgeMesh::collapseEdge(unsigned int)
==48213==ABORTING

67% tests passed, 1 tests failed out of 3
Errors while running CTest`,
			exit: code(8), status: Failed, source: SourceBoth,
			errors: []string{"halfedge.collapse_boundary", "AddressSanitizer: heap-use-after-free src/mesh/halfedge.cpp:214:27 in tessel::HalfEdgeMesh::collapseEdge(unsigned int)"},
			notErr: "Errors while running CTest",
		},
		{
			name:    "a Java chain: the innermost cause first",
			command: "mvn -q exec:java",
			output: `Exception in thread "main" java.lang.IllegalStateException: could not start the app
	at app.Main.main(Main.java:12)
Caused by: org.springframework.jdbc.BadSqlGrammarException: bad SQL grammar
	at org.springframework.jdbc.Foo.bar(Foo.java:1)
Caused by: org.postgresql.util.PSQLException: ERROR: column orders.fulfilled_at does not exist
	at org.postgresql.core.v3.QueryExecutorImpl.receiveErrorResponse(QueryExecutorImpl.java:2713)
	... 12 more`,
			exit: code(1), status: Failed,
			first:  "PSQLException: ERROR: column orders.fulfilled_at does not exist",
			errors: []string{"java.lang.IllegalStateException: could not start the app"},
		},
		{
			name:    "a Python traceback through libraries: the project's frame and the exception",
			command: "python -m app.main",
			output: `Traceback (most recent call last):
  File "/srv/app/app/api/routes/orders.py", line 14, in list_orders
    rows = (await session.execute(stmt)).scalars().all()
  File "/srv/app/.venv/lib/python3.12/site-packages/sqlalchemy/engine/default.py", line 951, in do_execute
    cursor.execute(statement, parameters)
sqlalchemy.exc.ProgrammingError: (psycopg.errors.UndefinedColumn) column orders.fulfilled_at does not exist
LINE 1: ...orders.status, orders.created_at, orders.fulfilled_at FROM orders...`,
			exit: code(1), status: Failed,
			first: "/srv/app/app/api/routes/orders.py:14: sqlalchemy.exc.ProgrammingError: (psycopg.errors.UndefinedColumn) column orders.fulfilled_at does not exist",
		},
		{
			name:    "Scala 3's diagnostic with what it found and wanted",
			command: "sbt api/compile",
			output: `[info] compiling 14 Scala sources to /src/api/target/scala-3.3.3/classes ...
[error] -- [E007] Type Mismatch Error: /src/api/src/main/scala/api/Routes.scala:88:42 --------
[error] 88 |      complete(StatusCodes.OK, converter.convert(amount, to))
[error]    |                                          ^^^^^^^^^^^^^^^^^^^^^^^^^
[error]    |                                          Found:    BigDecimal
[error]    |                                          Required: core.Money
[error]    |
[error] one error found
[error] (api / Compile / compileIncremental) Compilation failed
[error] Total time: 12 s, completed Nov 25, 2026, 3:31:02 AM`,
			exit: code(1), status: Failed, source: SourceBoth,
			first:  "/src/api/src/main/scala/api/Routes.scala:88:42: [E007] Type Mismatch Error: Found: BigDecimal, Required: core.Money",
			errors: []string{"(api / Compile / compileIncremental) Compilation failed"},
		},
		{
			name:    "flutter test: the failing test and its expectation",
			command: "flutter test test/sync_test.dart 2>&1 | tail -20",
			output: `00:01 +0: loading test/sync_test.dart
00:02 +3 -1: Sync keeps both copies [E]
  Expected: <2>
    Actual: <1>
  package:matcher                 expect
  test/sync_test.dart 58:7   main.<fn>.<fn>
00:03 +4 -1: Some tests failed.`,
			exit: code(0), status: Failed, source: SourceOutput, hidden: HiddenPipe, tool: "flutter test",
			first: "Sync keeps both copies: Expected: <2>, Actual: <1>",
		},
		{
			name:    "flutter test passes",
			command: "flutter test | tail -3",
			output:  "00:02 +5: All tests passed!",
			exit:    code(0), status: Passed, source: SourceOutput,
		},
		{
			name:    "terraform's boxed diagnostics: where and why",
			command: "terraform plan -out tf.plan",
			output: "╷\n│ Error: Unsupported argument\n│\n│   on ../../modules/db/main.tf line 14, in resource \"aws_db_instance\" \"payments\":\n│   14:   manage_master_user_password = true\n│\n" +
				"│ An argument named \"manage_master_user_password\" is not expected here.\n╵\n╷\n│ Error: Missing required argument\n│\n│   with module.db,\n│   on main.tf line 3, in module \"db\":\n│    3: module \"db\" {\n│\n│ The argument \"engine\" is required, but no definition was found.\n╵",
			exit: code(1), status: Failed, source: SourceExit,
			errors: []string{
				`../../modules/db/main.tf:14: Error: Unsupported argument: An argument named "manage_master_user_password" is not expected here.`,
				`main.tf:3: Error: Missing required argument: The argument "engine" is required, but no definition was found.`,
			},
		},
		{
			name:    "PIPESTATUS echoed: the work's status",
			command: "go test ./... 2>&1 | tail -5; echo exit=${PIPESTATUS[0]}",
			output:  "--- FAIL: TestX (0.00s)\n    x_test.go:12: got 1, want 2\nFAIL\nFAIL\texample.com/x\t0.01s\nexit=1\n",
			exit:    code(0), status: Failed, source: SourceBoth,
		},
		{
			name:    "$? echoed after a pipe is the filter's",
			command: `make test | tail -5; echo "status: $?"`,
			output:  "ok\nstatus: 0\n",
			exit:    code(0), status: Unknown, hidden: HiddenPipe,
		},
		{
			name:    "$? echoed after the work",
			command: `./run-checks.sh > log.txt 2>&1; echo "status: $?"`,
			output:  "status: 3\n",
			exit:    code(0), status: Failed, source: SourceExit,
		},
		{
			name:    "PIPESTATUS of every command",
			command: "npm test | tee out.log; echo ${PIPESTATUS[@]}",
			output:  "Tests: 2 passed, 2 total\n0 0\n",
			exit:    code(0), status: Passed,
		},
		{
			name:    "|| true still hides a failing summary's status, but not what it says",
			command: "pytest -q || true",
			output:  "FAILED tests/test_a.py::test_b - AssertionError\n1 failed, 3 passed in 0.1s\n",
			exit:    code(0), status: Failed, source: SourceOutput, hidden: HiddenOr, counts: "1 failed, 3 passed",
		},
	})
}

// A program Judge does not know, piped into a filter, that says in its
// last lines that what it ran ended with a non-zero status, failed; the
// same words with status 0, or deep in a long log, do not decide.
func TestPipedReportedStatus(t *testing.T) {
	zero := 0
	for _, tt := range []struct {
		command, output string
		want            Status
	}{
		{"latexmk -pdf report.tex 2>&1 | tail -n 5", "chapters/two.tex:88: Undefined control sequence.\nLatexmk: Errors, so I did not complete making targets\n  lualatex: Command for 'lualatex' gave return code 1\n", Failed},
		{"./tools/render-site --all 2>&1 | tail -3", "rendering 41 pages\nCommand failed with exit code 2.\n", Failed},
		{"./tools/render-site --all 2>&1 | tail -3", "rendering 41 pages\nworker exited with code 0\n", Unknown},
		{"packer build -var-file=ci.pkrvars.hcl . 2>&1 | tail -n 5", "==> virtualbox-iso.ubuntu: Provisioning with shell script: scripts/base.sh\nBuild 'virtualbox-iso.ubuntu' errored after 4 minutes 37 seconds: Script exited with non-zero exit status: 100\n", Failed},
		{"sphinx-build docs out | tail -2", "build succeeded.\n", Unknown},
	} {
		o := Judge(tt.command, tt.output, &zero)
		if o.Status != tt.want {
			t.Errorf("%s with %q: %v, want %v (%+v)", tt.command, tt.output, o.Status, tt.want, o)
		}
		if tt.want == Failed && len(o.Errors) == 0 {
			t.Errorf("%s: a failure without its error line: %+v", tt.command, o)
		}
	}
}
