package outcome

import (
	"strings"
	"testing"
)

// Lines that say a run failed, in the words of the tools themselves.
var failureMarkers = []string{
	"14 doctests, 297 tests, 11 failures",
	"FAIL\texample.com/x\t0.012s",
	"--- FAIL: TestExport (0.00s)",
	"=========== 2 failed, 11 passed in 0.42s ===========",
	"Tests:       1 failed, 14 passed, 15 total",
	"test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
	"make: *** [Makefile:12: test] Error 2",
	"BUILD FAILED in 3s",
	"src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.",
	"main.c:5:3: error: 'x' undeclared (first use in this function)",
	"233 mods/funs, found 1 consistency issue.",
	"✖ 2 problems (1 error, 1 warning)",
	"12 examples, 2 failures",
	"e: file:///p/src/main/kotlin/App.kt:12:5 Unresolved reference: fooBar",
	"[error] /p/src/main/scala/Foo.scala:3:5: not found: value x",
	"Fail\t||\tpins follow the git branch",
	"not ok 1 - parses dates",
	"Diff in src/main.rs at line 3:",
	"[info] Tests: succeeded 5, failed 1, canceled 0, ignored 0, pending 0",
	"[info] *** 1 TEST FAILED ***",
	"95% tests passed, 2 tests failed out of 37",
	"36/37 Test #36: predicates.orient2d_large ........***Failed    0.02 sec",
	"00:03 +4 -1: Some tests failed.",
	"[error] -- [E007] Type Mismatch Error: /p/Routes.scala:88:42",
	"│ Error: Unsupported argument",
}

var markerCommands = []string{"go test ./... 2>&1 | tail -5", "mix test", "make test 2>&1 | head -3", "npm test; echo done"}

// FuzzJudge checks that Judge never panics, keeps its output bounded, and
// never calls a run passed when the end of its output holds a tool's
// failure line. The seeds are every Bash call of the real transcripts.
func FuzzJudge(f *testing.F) {
	for _, c := range bashCalls(f) {
		exit, has := 0, c.Exit != nil
		if has {
			exit = *c.Exit
		}
		f.Add(c.Command, c.Output, exit, has)
	}
	f.Fuzz(func(t *testing.T, command, output string, exit int, has bool) {
		var e *int
		if has {
			e = &exit
		}
		o := Judge(command, output, e)
		if len(o.Errors) > MaxErrors {
			t.Fatalf("%d errors", len(o.Errors))
		}
		for _, s := range o.Errors {
			if len(s) > MaxErrorBytes {
				t.Fatalf("error of %d bytes", len(s))
			}
		}
		if len(o.Counts) > HeadBytes+TailBytes+64 || len(o.Tool) > len(command)+16 {
			t.Fatalf("counts of %d bytes, tool of %d", len(o.Counts), len(o.Tool))
		}
		if c := Cut(output); Cut(c) != c {
			t.Fatal("Cut is not idempotent")
		}
		_ = o.Line()
		// One marker and one command per input, chosen by the input, keep
		// each run at two calls of Judge.
		zero, k := 0, len(command)+len(output)+exit
		m := failureMarkers[(k%len(failureMarkers)+len(failureMarkers))%len(failureMarkers)]
		cmd := markerCommands[(k%len(markerCommands)+len(markerCommands))%len(markerCommands)]
		if o := Judge(cmd, output+"\n"+m+"\n", &zero); o.Status == Passed {
			t.Fatalf("%q ending in %q: passed (%s)", cmd, m, o.Line())
		}
	})
}

// TestFailureMarkers runs every marker under every command over the
// fixtures' outputs, which FuzzJudge only samples.
func TestFailureMarkers(t *testing.T) {
	zero := 0
	for _, c := range bashCalls(t) {
		for _, m := range failureMarkers {
			for _, cmd := range markerCommands {
				if o := Judge(cmd, c.Output+"\n"+m+"\n", &zero); o.Status == Passed {
					t.Errorf("%s %s: %q ending in %q: passed (%s)", c.Session, c.ID, cmd, m, o.Line())
				}
			}
		}
	}
}

// FuzzPasted checks that Pasted never panics, only shortens, and returns
// as errors lines of the text.
func FuzzPasted(f *testing.F) {
	f.Add("Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n    x()\nValueError: bad\n")
	f.Add("Exception in thread \"main\" java.lang.X: y\n\tat a.B.c(B.java:1)\nCaused by: java.lang.Z: w\n\t... 3 more")
	f.Add("TypeError: x\n    at f (a.js:1:2)\n")
	for _, c := range bashCalls(f)[:50] {
		f.Add(c.Output)
	}
	f.Fuzz(func(t *testing.T, s string) {
		short, errs := Pasted(s)
		if len(short) > len(s)+len("…\n")*strings.Count(s, "\n") {
			t.Fatalf("grew from %d to %d bytes", len(s), len(short))
		}
		for _, e := range errs {
			if !strings.Contains(s, e) {
				t.Fatalf("error %q is not in the text", e)
			}
		}
	})
}
