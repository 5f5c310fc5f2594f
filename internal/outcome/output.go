package outcome

import (
	"slices"
	"strings"

	"github.com/cairn-agent/cairn/internal/text"
)

// reading is what one pass over an output found.
//
// Markers come in three strengths. A strong marker is a tool's own verdict
// on the whole run: a summary with counts, "FAIL\tpkg", "BUILD FAILED",
// "make: *** ... Error 2", a compiler's "file:3:5: error:". A weak failure
// marker is something that usually means failure but also shows up in the
// logs of runs that pass: a Python traceback, a panic, an indented
// "error:", an exception line. Silence is the weakest pass: a compiler or
// linter whose whole output was seen and holds no diagnostic. A strong
// failure beats everything, a strong pass beats a weak failure (a passing
// test suite that logs a traceback passed), and a weak failure beats
// silence.
type reading struct {
	cmd   command
	key   string // the main work's key
	quiet bool   // the main work is a check: silence is success

	tool                   string
	failStrong, failWeak   bool
	passStrong             bool
	failCounts, passCounts string

	out  string // the output read, for the last resort of errors
	errs []string
	// wraps are the error lines of a build tool's wrapper ("Execution
	// failed for task ':x'", "make: *** [all] Error 1"), which come after
	// the lines that say what failed: a reader needs the compiler's line,
	// and the wrapper prints first as often as not.
	wraps []string
	maven []string // [ERROR] lines, kept when Maven failed
	// causes are the "Caused by:" lines of a JVM stack trace (ScalaTest
	// writes "Cause:"): the last is the innermost, the error that set
	// off the others, and comes first.
	causes []string
	last   string // the last non-blank line that is not a summary

	lines, bytes int
	truncated    bool // the output says part of it is missing
	// afterSummary counts the non-blank lines after the last count
	// summary (-1 before any): a run's summary comes last.
	afterSummary int

	// Multi-line state.
	pend      pending
	goHeader  bool   // "# pkg" seen: go build errors follow
	goFail    bool   // inside a "--- FAIL:" block
	goTest    string // the innermost failing test's name in that block
	tb        bool   // inside a Python traceback
	tbLoc     string // its last "File ..., line N"
	wentWrong bool   // gradle's "* What went wrong:" seen
	ranTests  bool   // unittest's "Ran N tests" seen
	mavenFail bool
	npmLines  int    // npm error lines kept
	lintFile  string // eslint's current file header
}

// pending is an error line waiting for its location, which compilers
// print after the message ("error[E0308]: ..." then " --> src/a.rs:4:5").
type pending struct {
	msg  string
	kind int
	ttl  int // lines left to wait
	loc  string
	// details counts the lines added to msg (pendDetail).
	details int
}

const (
	pendNone = iota
	pendDiag
	pendExUnit
	pendCredo
	pendPanic
	pendMessage
	pendTestMessage
	pendException
	pendDetail
	pendBox
)

func read(out string, cmd command) reading {
	r := reading{cmd: cmd, out: out, bytes: len(out), afterSummary: -1}
	if cmd.main >= 0 {
		w := cmd.works[cmd.main]
		r.key, r.quiet = w.key, w.kind == checks
	}
	for len(out) > 0 {
		var l string
		if i := strings.IndexByte(out, '\n'); i >= 0 {
			l, out = out[:i], out[i+1:]
		} else {
			l, out = out, ""
		}
		r.lines++
		r.line(l)
	}
	r.flush()
	// Maven's [ERROR] lines when it failed; "mvn -q" prints no "BUILD
	// FAILURE", only them.
	if r.mavenFail || strings.HasPrefix(r.key, "mvn") {
		for _, e := range r.maven {
			r.addErr(e)
		}
	}
	return r
}

// verdict is what the output says, and whether it says it strongly:
// only a strong failure overrides an exit status of 0.
func (r *reading) verdict() (Status, bool) {
	switch {
	case r.failStrong:
		return Failed, true
	case r.passStrong:
		return Passed, true
	case r.failWeak:
		return Failed, false
	case r.quiet && r.complete():
		return Passed, false
	}
	return Unknown, false
}

// complete says whether the output is all the work printed: nothing cut
// it, and the filters after the work (head, tail) let it all through.
func (r *reading) complete() bool {
	if r.truncated {
		return false
	}
	switch r.cmd.shown {
	case shownAll:
		return true
	case shownLines:
		return r.lines < r.cmd.limit
	case shownBytes:
		return r.bytes < r.cmd.limit
	}
	return false
}

// errors returns the error lines of a failed run: those recognised, else
// the lines that mention an error, else the last line, but none when a
// test tool's summary already says what failed (a summary of pairs, as
// Ansible's recap, says how many failed, not what: the lines that
// mention an error still come).
func (r *reading) errors() []string {
	if len(r.errs) > 0 {
		return r.kept()
	}
	if r.failCounts != "" && r.tool != "" {
		return r.kept() // a test tool's summary: its counts say it
	}
	// The last resort reads the output again, which is rare enough (a
	// failure no rule explains) to keep it off the common path.
	out, n := r.out, 0
	for out != "" && n < 3 {
		var l string
		l, out = plainLine(out)
		l = withoutStep(withoutClock(l))
		if t := strings.TrimSpace(l); zeroCount(t) || passMarked(t) || infoLabel(t) {
			continue // "Errors : 0", "✓ build", "I: ... spelling-error-in-description": no failure
		}
		if r.failCounts != "" {
			// Behind a summary of pairs: the lines that say what failed
			// ("Failure in test x"), not the summary again.
			if _, _, ok := countsLine(strings.TrimSpace(l)); ok || !mentionsError(l) && !containsFold(l, "fail") && !failMarked(strings.TrimSpace(l)) {
				continue
			}
		} else if t := strings.TrimSpace(l); !mentionsError(l) && !failMarked(t) && !errorLabel(t) {
			continue // "E: ..." before "I: ...": the error, not the last line
		}
		r.addErr(l)
		n++
	}
	if len(r.errs) == 0 && len(r.wraps) == 0 && r.last != "" && r.failCounts == "" {
		r.addErr(r.last)
	}
	return r.kept()
}

// kept is the error lines that say what failed, then the wrappers' lines,
// at most MaxErrors.
func (r *reading) kept() []string {
	if len(r.wraps) == 0 && len(r.causes) == 0 {
		return r.errs
	}
	var out []string
	if len(r.causes) > 0 {
		out = append(out, r.causes[len(r.causes)-1])
	}
	for _, e := range append(r.errs[:len(r.errs):len(r.errs)], r.wraps...) {
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out[:min(len(out), MaxErrors)]
}

func (r *reading) addErr(s string) {
	s = strings.TrimSpace(s)
	to := &r.errs
	if wrapperLine(s) {
		to = &r.wraps
	}
	s = text.GistError(s, MaxErrorBytes) // the cause, not the preamble
	if s == "" || len(*to) >= MaxErrors {
		return
	}
	for _, e := range *to {
		if e == s {
			return
		}
	}
	*to = append(*to, s)
}

// addErrOrAwait adds an error line, or, when the line ends in an
// exception's bare name (Pest's "FAILED  Tests\X > it works
// SignatureVerificationException"), waits one line for its message: the
// class says what kind of failure, the message says which.
func (r *reading) addErrOrAwait(s string) {
	i := strings.LastIndexAny(s, " \t")
	if i < 0 || !isException(s[i+1:]) || strings.HasSuffix(s, ":") {
		r.addErr(s)
		return
	}
	r.startPending(pendMessage, s, 1)
}

func (r *reading) fail(strong bool, tool string) {
	if strong {
		r.failStrong = true
	} else {
		r.failWeak = true
	}
	if r.tool == "" {
		r.tool = tool
	}
}

func (r *reading) pass(tool string) {
	r.passStrong = true
	if r.tool == "" {
		r.tool = tool
	}
}

// flush emits the pending error, with its location if one came.
func (r *reading) flush() {
	p := r.pend
	r.pend = pending{}
	if p.kind == pendNone || p.msg == "" && p.loc == "" {
		return
	}
	switch {
	case p.loc != "" && p.msg != "":
		r.addErr(p.loc + ": " + p.msg)
	case p.msg != "":
		r.addErr(p.msg)
	}
}

// line reads one line of output.
func (r *reading) line(l string) {
	if i := strings.LastIndexByte(l, '\r'); i >= 0 {
		// A progress line rewritten in place: keep what was shown last.
		if i == len(l)-1 {
			l = l[:i]
		}
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			l = l[j+1:]
		}
	}
	if strings.IndexByte(l, 0x1b) >= 0 {
		l = stripANSI(l)
	}
	l = withoutStep(withoutClock(l))
	for _, level := range []string{"[info] ", "[warn] "} {
		// sbt prefixes what the tools it runs print with its log level:
		// "[info] - should x *** FAILED ***", "[info]   Cause: ...".
		if rest, ok := strings.CutPrefix(l, level); ok {
			l = rest
			break
		}
	}
	t := strings.TrimSpace(l)
	if rest, ok := strings.CutPrefix(t, "│"); ok && (r.pend.kind == pendBox || strings.HasPrefix(strings.TrimSpace(rest), "Error: ")) {
		// Terraform and OpenTofu draw a box around a diagnostic: "│
		// Error: Unsupported argument", "│   on main.tf line 14, in ...:",
		// "│ An argument named ... is not expected here.".
		t = strings.TrimSpace(rest)
		if t == "" {
			return
		}
		if r.pend.kind != pendBox && strings.HasPrefix(t, "Error: ") {
			r.fail(true, "")
			r.startPending(pendBox, t, 12)
			return
		}
	}
	if t == "╵" && r.pend.kind == pendBox {
		r.flush()
		return
	}
	if t == "" {
		if r.pend.kind == pendExUnit || r.pend.kind == pendPanic {
			r.flush()
		}
		return
	}
	col0 := l[0] != ' ' && l[0] != '\t'
	if r.afterSummary >= 0 {
		r.afterSummary++
	}
	if strings.HasPrefix(t, "... [") && strings.HasSuffix(t, "] ...") || strings.HasPrefix(t, "<persisted-output>") || strings.HasPrefix(t, "[Output truncated") {
		r.truncated = true
		return
	}
	if strings.ContainsAny(t, "0123456789") {
		if norm, failed, ok := countsLine(t); ok {
			r.flush()
			r.afterSummary = 0
			if failed {
				r.fail(true, "")
				r.failCounts = norm
			} else {
				r.pass("")
				r.passCounts = norm
			}
			r.familyOfSummary(t)
			return
		}
	}
	if r.pending(t) {
		return
	}
	if !passMarked(t) {
		r.last = t
	}
	r.marker(l, t, col0)
}

// pending feeds a line to the error waiting for its location or message,
// and says whether the line was used up: a location line is, a message
// line is not.
func (r *reading) pending(t string) bool {
	p := &r.pend
	if p.kind == pendNone {
		return false
	}
	p.ttl--
	switch p.kind {
	case pendDiag:
		// "└─ lib/a.ex:3:14: Foo.f/0" (Elixir), "--> src/a.rs:4:5" (Rust).
		for _, arrow := range []string{"└─ ", "--> ", "┌─ "} {
			if rest, ok := strings.CutPrefix(t, arrow); ok {
				if loc, _, ok := fileLine(rest); ok {
					p.loc = loc
					r.flush()
					return true
				}
			}
		}
	case pendExUnit:
		// "  1) test name (Module)", then "test/a_test.exs:12", then the
		// message.
		if p.loc == "" {
			if loc, rest, ok := fileLine(t); ok && rest == "" {
				p.loc = loc
				return true
			}
		} else if !strings.HasPrefix(t, "code:") && !strings.HasPrefix(t, "stacktrace:") {
			// The message is read, not used up: it may be a marker too.
			p.msg += ": " + t
			r.flush()
			return false
		}
	case pendCredo:
		// "┃ [R] ↘ message" then "┃       lib/a.ex:91:5 #(Mod.fun)".
		if rest, ok := strings.CutPrefix(t, "┃"); ok {
			if loc, _, ok := fileLine(strings.TrimSpace(rest)); ok {
				p.loc = loc
				r.flush()
				return true
			}
		}
	case pendPanic:
		// Rust since 1.73: "thread 'x' panicked at src/lib.rs:10:9:" and
		// the message on the next line.
		p.msg = t
		r.flush()
		return false
	case pendTestMessage:
		// A failing test's message, on the line after its name, unless
		// the next line is the next test's.
		if !plenaryResult(t) {
			p.msg += ": " + t
		}
		r.flush()
		return false
	case pendException:
		// The exception a failed test threw, with its message, if the
		// next line is one.
		if isException(t) && strings.Contains(t, ": ") {
			p.msg += ": " + t
		}
		r.flush()
		return false
	case pendDetail:
		// What a failure found against what it wanted, on the lines
		// below it: Dart's "Expected: <2>" and "Actual: <1>", Scala 3's
		// "Found: BigDecimal" and "Required: Money", after "[error] |".
		d := strings.TrimSpace(strings.TrimLeft(strings.TrimPrefix(t, "[error]"), " \t|"))
		for _, w := range []string{"Expected:", "Actual:", "Found:", "Required:", "Which:"} {
			if strings.HasPrefix(d, w) {
				sep := ", "
				if p.details == 0 {
					sep = ": "
				}
				p.msg += sep + strings.Join(strings.Fields(d), " ")
				p.details++
				if p.ttl <= 0 {
					r.flush()
				}
				return true
			}
		}
	case pendBox:
		// "on ../modules/db/main.tf line 14, in resource ...:" is where;
		// the first line of prose after the quoted code says why.
		if strings.HasPrefix(t, "Error: ") {
			r.startPending(pendBox, t, 12) // the next diagnostic
			return true
		}
		if p.ttl <= 0 {
			r.flush()
			return false
		}
		if rest, ok := strings.CutPrefix(t, "on "); ok && p.loc == "" {
			if f, n, ok := strings.Cut(rest, " line "); ok {
				n, _, _ = strings.Cut(n, ",")
				n = strings.TrimSuffix(n, ":")
				if isDigits(n) {
					p.loc = f + ":" + n
					return true
				}
			}
		}
		if i := strings.IndexByte(t, ':'); i > 0 && isDigits(t[:i]) || strings.HasPrefix(t, "with ") || strings.HasPrefix(t, "├") || strings.HasPrefix(t, "│") {
			return true // the quoted code, its values
		}
		if p.details == 0 {
			p.msg += ": " + t
			p.details++
		}
		return true
	case pendMessage:
		// An exception named without its message ("... > it works
		// SignatureVerificationException"): the message is the next line,
		// unless that line is where it was thrown or another marker.
		if !strings.HasPrefix(t, "at ") && !strings.HasPrefix(t, "FAIL") {
			if _, _, ok := fileLine(t); !ok {
				p.msg += ": " + t
			}
		}
		r.flush()
		return false
	}
	if p.ttl <= 0 {
		r.flush()
	}
	return false
}

// marker reads the lines that are not count summaries, and says whether
// it recognised the line.
func (r *reading) marker(l, t string, col0 bool) bool {
	// Go.
	switch {
	case t == "FAIL" || strings.HasPrefix(l, "FAIL\t"):
		r.fail(true, "go test")
		r.goFail = false
		return true
	case t == "PASS":
		r.pass("go test")
		r.goFail = false
		return true
	case strings.HasPrefix(t, "--- FAIL: "):
		r.fail(true, "go test")
		r.goFail = true
		// "--- FAIL: TestX/case (0.01s)": the innermost test is the one
		// whose lines follow.
		name := strings.TrimPrefix(t, "--- FAIL: ")
		if i := strings.LastIndex(name, " ("); i > 0 {
			name = name[:i]
		}
		r.goTest = name
		return true
	case strings.HasPrefix(t, "--- PASS: ") || strings.HasPrefix(t, "--- SKIP: ") || strings.HasPrefix(t, "=== "):
		r.goFail = false
		return true
	case col0 && goOK(l):
		r.pass("go test")
		r.goFail = false
		return true
	case col0 && goHeader(t):
		// "# example.com/pkg" or "# example.com/pkg [example.com/pkg.test]":
		// go build's header before its errors.
		r.goHeader = true
		return true
	}
	if r.goFail && !col0 {
		if loc, _, ok := fileLine(t); ok && strings.Contains(loc, ".go:") {
			if r.goTest != "" {
				// Which test, then where and what; once per test.
				t, r.goTest = r.goTest+": "+t, ""
			}
			r.addErr(t)
			return true
		}
	}
	if col0 && (r.goHeader || r.quiet) {
		if _, rest, ok := fileLine(t); ok && !isNote(rest) {
			// go build and vet, and any checker's "file:line: message".
			r.fail(true, "")
			r.addErr(t)
			return true
		}
	}

	// The linker's own lines say what failed to link ("ld: region
	// `FLASH' overflowed by 1184 bytes"); the compiler driver's
	// "collect2: error: ld returned 1 exit status" after them only says
	// that it did, and is kept only when nothing else is.
	if msg, ok := linkerMessage(t); ok {
		r.fail(false, "")
		r.addErr("ld: " + msg)
		return true
	}
	if col0 && objectLocation(t) {
		// "main.c:(.text+0x1a): undefined reference to `bar'".
		r.fail(false, "")
		r.addErr(t)
		return true
	}
	// Compilers: "file:3:5: error: ...", "file(3,5): error TS2322: ...".
	if loc, rest, ok := fileLine(t); ok {
		if strings.HasPrefix(rest, "error") || strings.HasPrefix(rest, "fatal error") || strings.HasPrefix(rest, "Error:") {
			r.fail(true, "")
			r.addErr(t)
			return true
		}
		if col0 && isException(rest) { // pytest's "tests/a.py:12: AssertionError"
			r.addErr(loc + ": " + rest)
			return true
		}
		if strings.HasPrefix(rest, "runtime error: ") {
			// UBSan: "src/a.cpp:88:31: runtime error: signed integer overflow".
			r.fail(false, "")
			r.addErr(t)
			return true
		}
	}
	if rest, ok := strings.CutPrefix(t, "SUMMARY: "); ok && strings.Contains(rest, "Sanitizer: ") {
		// "SUMMARY: AddressSanitizer: heap-use-after-free src/a.cpp:214:27
		// in f": the sanitizer's one-line verdict on its report above.
		r.fail(false, "")
		r.addErr(rest)
		return true
	}
	if name, ok := ctestFailed(t); ok {
		r.fail(true, "ctest")
		r.addErr(name)
		return true
	}
	if col0 && strings.HasPrefix(t, "e: ") {
		// kotlinc: "e: file:///p/Money.kt:12:5 Serializer for class
		// 'Currency' is not found." (2.x), "e: /p/Money.kt: (12, 5): ..."
		// (1.x); Gradle prints its own wrapper around it.
		if d, ok := kotlinDiag(t[len("e: "):]); ok {
			r.fail(true, "")
			r.addErr(d)
			return true
		}
	}
	if rest, ok := strings.CutPrefix(t, "[error] "); ok {
		// sbt: "[error] /p/Foo.scala:3:5: not found: value x", then the
		// wrapper's "[error] (Compile / compileIncremental) Compilation
		// failed".
		rest = strings.TrimSpace(rest)
		if kind, loc, ok := scala3Error(rest); ok {
			// Scala 3: "-- [E007] Type Mismatch Error: /p/Routes.scala:88:42",
			// then the code and "Found: X", "Required: Y".
			r.fail(true, "")
			r.startPending(pendDetail, loc+": "+kind, 8)
			return true
		}
		if loc, msg, ok := fileLine(rest); ok && msg != "" && !isNote(msg) {
			r.fail(true, "")
			r.addErr(loc + ": " + msg)
			return true
		}
		if wrapperLine(rest) {
			r.fail(true, "")
			r.addErr(rest)
			return true
		}
	}
	if i := strings.Index(t, "error TS"); i >= 0 && i+8 < len(t) && t[i+8] >= '0' && t[i+8] <= '9' {
		r.fail(true, "tsc")
		r.addErr(t)
		return true
	}
	if strings.HasPrefix(t, "error[E") || col0 && strings.HasPrefix(t, "error: ") {
		// rustc and cargo, clang's driver, ld: the location follows.
		r.fail(true, "")
		r.startPending(pendDiag, t, 4)
		return true
	}
	if strings.HasPrefix(t, "error: ") {
		// Elixir's diagnostics, indented, with "└─ file:line" below.
		r.fail(false, "")
		r.startPending(pendDiag, t, 12)
		return true
	}

	// Build tools.
	switch {
	case strings.HasPrefix(t, "BUILD SUCCESSFUL"):
		r.pass("gradle")
		return true
	case t == "[INFO] BUILD SUCCESS":
		r.pass("mvn")
		return true
	case strings.HasPrefix(t, "BUILD FAILED") || strings.HasPrefix(t, "FAILURE: Build failed") || strings.HasPrefix(t, "Execution failed for task"):
		r.fail(true, "gradle")
		if strings.HasPrefix(t, "Execution failed") {
			r.addErr(t)
		}
		return true
	case t == "[INFO] BUILD FAILURE":
		r.fail(true, "mvn")
		r.mavenFail = true
		return true
	case strings.HasPrefix(t, "[ERROR] "):
		if e := strings.TrimSpace(t[len("[ERROR] "):]); e != "" && !mavenNoise(e) {
			r.maven = append(r.maven, e)
		}
		return true
	case t == "* What went wrong:":
		r.wentWrong = true
		return true
	case r.wentWrong:
		r.wentWrong = false
		r.addErr(t)
		return true
	case col0 && makeError(t):
		r.fail(true, "make")
		r.addErr(t)
		return true
	case col0 && (strings.HasPrefix(t, "npm ERR!") || strings.HasPrefix(t, "npm error")):
		r.fail(true, "npm")
		e := strings.TrimPrefix(strings.TrimPrefix(t, "npm ERR!"), "npm error")
		if e = strings.TrimSpace(e); e != "" && !npmNoise(e) && r.npmLines < 2 {
			// npm's first lines say what went wrong; the rest is advice.
			r.npmLines++
			r.addErr(e)
		}
		return true
	case strings.HasPrefix(t, "ninja: build stopped"):
		r.fail(true, "ninja")
		return true
	case strings.HasPrefix(t, "✘ [ERROR] "):
		r.fail(true, "esbuild")
		r.addErr(t[len("✘ [ERROR] "):])
		return true
	case strings.HasPrefix(t, "Finished ") && strings.Contains(t, "target(s) in") && r.quiet && strings.HasPrefix(r.key, "cargo "):
		r.pass("cargo")
		return true
	}

	// Test runners.
	if rest, ok := dartProgress(t); ok {
		// dart and flutter test: "00:02 +3 -1: name [E]", the expectation
		// below it; "00:03 +4 -1: Some tests failed.".
		switch {
		case strings.HasSuffix(rest, " [E]"):
			r.fail(true, "dart test")
			r.startPending(pendDetail, strings.TrimSuffix(rest, " [E]"), 4)
		case rest == "Some tests failed.":
			r.fail(true, "dart test")
		case rest == "All tests passed!":
			r.pass("dart test")
		}
		return true
	}
	switch {
	case exunitFailure(t):
		r.fail(true, "mix test")
		r.flush()
		name := t[strings.IndexByte(t, ')')+2:]
		if i := strings.LastIndex(name, " ("); i > 0 {
			name = name[:i]
		}
		r.pend = pending{kind: pendExUnit, msg: name, ttl: 6}
		return true
	case strings.HasPrefix(t, "FAILED ") || t == "FAILED":
		r.fail(true, "pytest")
		if !strings.HasPrefix(t, "FAILED (") && len(t) > 7 {
			r.addErrOrAwait(strings.TrimSpace(t[len("FAILED "):]))
		}
		return true
	case strings.HasPrefix(t, "ERROR ") && (strings.Contains(t, "::") || strings.Contains(t, ".py")):
		r.fail(true, "pytest")
		r.addErr(t[len("ERROR "):])
		return true
	case failFile(t):
		// jest's "FAIL src/a.test.js", vitest's "FAIL  src/a.test.ts > suite > name".
		r.fail(true, "")
		if strings.Contains(t, " > ") {
			r.addErr(strings.TrimSpace(t[len("FAIL "):]))
		}
		return true
	case failedSuffix(t):
		// pytest -v, cargo test's "test x ... FAILED", gradle's "T > t FAILED".
		r.fail(true, "")
		if strings.Contains(t, " > ") && !strings.HasPrefix(t, "> Task :") {
			// Gradle prints the assertion's message indented below:
			// "    org.opentest4j.AssertionFailedError: expected: <1> but
			// was: <2>".
			r.startPending(pendException, t, 1)
			return true
		}
		r.addErr(t)
		return true
	case strings.Contains(t, "<<< FAILURE!") || strings.Contains(t, "<<< ERROR!"):
		r.fail(true, "mvn")
		r.mavenFail = true
	case strings.HasPrefix(t, "rspec ./") && strings.Contains(t, " # "):
		// rspec's "rspec ./spec/a_spec.rb:10 # User#name returns the name"
		r.fail(true, "rspec")
		r.addErr(t[len("rspec "):])
		return true
	case plenaryFail(t) != "":
		// plenary.nvim's busted: "Fail\t||\tsuite name", its message
		// indented on the next line; its summary's "Errors : 0" says
		// nothing failed.
		r.fail(true, "plenary")
		r.startPending(pendTestMessage, plenaryFail(t), 1)
		return true
	case col0 && strings.HasPrefix(t, "not ok ") && !containsFold(t, "# todo") && !containsFold(t, "# skip"):
		// TAP (node --test, prove, bats): "not ok 3 - parses dates".
		r.fail(true, "")
		name := strings.TrimLeft(t[len("not ok "):], "0123456789")
		r.addErr(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), "- ")))
		return true
	case dotnetFailed(t):
		// dotnet test: "  Failed Shop.Tests.CartTests.AppliesDiscount [12 ms]".
		r.fail(true, "dotnet test")
		r.addErr(t[len("Failed "):])
		return true
	case strings.HasPrefix(t, "● ") && strings.Contains(t, " › "):
		r.addErr(t[len("● "):])
		return true
	case strings.HasPrefix(t, "Ran ") && strings.Contains(t, " test") && strings.Contains(t, " in "):
		r.ranTests = true
		return true
	case r.ranTests && (t == "OK" || strings.HasPrefix(t, "OK (")):
		r.pass("unittest")
		return true
	case strings.HasPrefix(t, "OK (") && strings.HasSuffix(t, ")") && strings.Contains(t, " test"):
		// PHPUnit's "OK (214 tests, 533 assertions)".
		r.pass("phpunit")
		r.passCounts = t[len("OK (") : len(t)-1]
		return true
	}

	// Linters and checkers.
	switch {
	case strings.Contains(t, "mods/funs, found "):
		what := strings.TrimRight(strings.TrimSpace(t[strings.Index(t, "found ")+len("found "):]), ".")
		if what == "no issues" {
			r.pass("credo")
			r.passCounts = what
		} else {
			r.fail(true, "credo")
			r.failCounts = what
		}
		return true
	case strings.HasPrefix(t, "┃ [") && len(t) > 6 && t[len("┃ [")+1] == ']':
		if strings.HasPrefix(r.key, "mix credo") {
			r.fail(true, "credo")
		}
		msg := strings.TrimSpace(t[len("┃ "):])
		for _, a := range []string{"↘", "↗", "→", "↑", "↓"} {
			msg = strings.Replace(msg, "] "+a+" ", "] ", 1)
		}
		r.startPending(pendCredo, msg, 3)
		return true
	case t == "done (passed successfully)":
		r.pass("dialyzer")
		return true
	case t == "done (warnings were emitted)":
		r.fail(true, "dialyzer")
		return true
	case strings.HasPrefix(t, "Halting VM with exit status "):
		if t != "Halting VM with exit status 0" {
			r.fail(true, "")
		}
		return true
	case strings.HasPrefix(t, "Success: no issues found"), t == "All checks passed!", strings.HasPrefix(t, "All matched files use Prettier"):
		r.pass("")
		return true
	case col0 && strings.HasPrefix(t, "Diff in ") && (strings.HasSuffix(t, ":") || strings.Contains(t, " at line ")):
		// rustfmt --check and stylua --check: "Diff in src/a.rs at line
		// 3:", "Diff in lua/a.lua:", then the diff, whose lines say less
		// than which file.
		r.fail(true, "")
		r.addErr(strings.TrimSuffix(t, ":"))
		return true
	case strings.HasPrefix(t, "Would reformat: "):
		// ruff format --check.
		r.fail(true, "")
		r.addErr(t)
		return true
	case strings.HasPrefix(t, "would reformat ") || strings.HasPrefix(t, "Oh no! ") || strings.HasPrefix(t, "[warn] Code style issues"):
		r.fail(true, "")
		r.addErr(t)
		return true
	case r.quiet && strings.Contains(t, "syntax error"):
		r.fail(true, "")
		r.addErr(t)
		return true
	case lintError(t):
		r.fail(true, "eslint")
		r.addErr(r.lintFile + ":" + lintLocation(t))
		return true
	case col0 && looksLikeSourcePath(t):
		r.lintFile = t
	}

	// Elixir and Mix.
	switch {
	case col0 && strings.HasPrefix(t, "** ("):
		strong := false
		for _, p := range []string{"** (Mix)", "** (CompileError)", "** (SyntaxError)", "** (TokenMissingError)", "** (MismatchedDelimiterError)"} {
			strong = strong || strings.HasPrefix(t, p)
		}
		r.fail(strong, "")
		r.addErr(t)
		return true
	case strings.HasPrefix(t, "== Compilation error in file"):
		r.fail(true, "")
		return true
	case col0 && strings.HasPrefix(t, "Compilation failed"):
		r.fail(true, "")
		r.addErr(t)
		return true
	}

	// ScalaTest: "- should x *** FAILED ***", then the exception and its
	// "Cause:"; "All tests passed." when none failed.
	switch {
	case strings.HasSuffix(t, "*** FAILED ***"):
		r.fail(true, "scalatest")
		r.addErr(strings.TrimSpace(strings.TrimPrefix(strings.TrimSuffix(t, "*** FAILED ***"), "- ")))
		return true
	case t == "All tests passed.":
		r.pass("scalatest")
		return true
	}

	// Crashes, in any language.
	switch {
	case strings.HasPrefix(t, "Caused by: ") || strings.HasPrefix(t, "Cause: "):
		// A JVM stack trace's chain, outermost first: the last cause is
		// the error itself ("Caused by: org.postgresql.util.PSQLException:
		// ERROR: column x does not exist"), the lines above it wrappers.
		_, ex, _ := strings.Cut(t, ": ")
		if isException(ex) {
			r.fail(false, "")
			if e := text.GistError(shortException(ex), MaxErrorBytes); e != "" && !slices.Contains(r.causes, e) {
				r.causes = append(r.causes, e)
			}
		}
		return true
	case strings.HasPrefix(t, "Traceback (most recent call last):"):
		r.fail(false, "")
		r.tb, r.tbLoc = true, ""
		return true
	case r.tb && strings.HasPrefix(t, "File \""):
		// File "a.py", line 12, in f
		rest := t[len("File \""):]
		if q := strings.IndexByte(rest, '"'); q > 0 && (r.tbLoc == "" || !libraryPath(rest[:q])) {
			// The last frame in the project's own code says where; a
			// library's frames below it (site-packages) say only how.
			if ln, ok := strings.CutPrefix(rest[q+1:], ", line "); ok {
				n := 0
				for n < len(ln) && ln[n] >= '0' && ln[n] <= '9' {
					n++
				}
				r.tbLoc = rest[:q] + ":" + ln[:n]
			}
		}
		return true
	case r.tb && col0 && !strings.HasPrefix(t, "During handling") && !strings.HasPrefix(t, "The above exception"):
		r.tb = false
		if r.tbLoc != "" {
			r.addErr(r.tbLoc + ": " + t)
		} else {
			r.addErr(t)
		}
		return true
	case col0 && strings.HasPrefix(t, "Exception in thread \""):
		// The JVM's uncaught exception: `Exception in thread "main"
		// java.lang.IllegalStateException: msg`; its causes follow.
		r.fail(false, "")
		if _, ex, ok := strings.Cut(t[len("Exception in thread \""):], "\" "); ok {
			r.addErr(ex)
		} else {
			r.addErr(t)
		}
		return true
	case col0 && strings.HasPrefix(t, "panic: "):
		r.fail(false, "")
		r.addErr(t)
		return true
	case strings.HasPrefix(t, "thread '") && strings.Contains(t, "' panicked at "):
		r.fail(false, "")
		at := t[strings.Index(t, "' panicked at ")+len("' panicked at "):]
		if strings.HasSuffix(at, ":") {
			r.flush()
			r.pend = pending{kind: pendPanic, loc: strings.TrimSuffix(at, ":"), ttl: 1}
		} else {
			r.addErr(t)
		}
		return true
	case col0 && isException(t):
		// "TypeError: x is not a function", "Error: Build failed with 1 error:"
		r.fail(false, "")
		r.addErr(t)
		return true
	case strings.Contains(t, "Segmentation fault") || strings.Contains(t, "core dumped"):
		r.fail(false, "")
		r.addErr(t)
		return true
	}
	return false
}

func (r *reading) startPending(kind int, msg string, ttl int) {
	r.flush()
	r.pend = pending{kind: kind, msg: msg, ttl: ttl}
}

// familyOfSummary names the tool from the shape of its summary line.
func (r *reading) familyOfSummary(t string) {
	if r.tool != "" {
		return
	}
	switch {
	case strings.HasPrefix(t, "test result:"):
		r.tool = "cargo test"
	case strings.HasPrefix(t, "Tests:") || strings.HasPrefix(t, "Test Suites:"):
		r.tool = "jest"
	case strings.HasPrefix(strings.TrimSpace(t), "Test Files"):
		r.tool = "vitest"
	case strings.HasPrefix(t, "=") && strings.Contains(t, " in ") && (strings.Contains(t, "passed") || strings.Contains(t, "failed") || strings.Contains(t, "error")):
		r.tool = "pytest"
	case strings.HasPrefix(t, "Found "):
		r.tool = "tsc"
	case strings.HasPrefix(t, "✖"):
		r.tool = "eslint"
	case strings.Contains(t, " examples, "):
		r.tool = "rspec"
	case strings.Contains(t, " tests, ") && strings.Contains(t, " failure"):
		r.tool = "ExUnit"
	}
}

// goOK reads go test's "ok  \texample.com/pkg\t0.012s", with "(cached)"
// or "[no tests to run]" in place of the time.
func goOK(l string) bool {
	rest, ok := strings.CutPrefix(l, "ok")
	if !ok || rest == "" || rest[0] != ' ' && rest[0] != '\t' {
		return false
	}
	f := strings.Fields(rest)
	if len(f) < 2 {
		return false
	}
	d := f[1]
	return d == "(cached)" || d == "[no" || isDuration(d)
}

// fileLine reads "path:line", "path:line:col" or "path(line,col)" at the
// start of s and returns it as "path:line[:col]" with what follows the
// location's ": " (or ":"). The path has no spaces and holds a "." or a
// "/": "lib/a.ex:3", "main.c:3:5", "src/a.ts(3,5)".
func fileLine(s string) (loc, rest string, ok bool) {
	end := strings.IndexAny(s, " \t")
	word := s
	if end >= 0 {
		word = s[:end]
	}
	// path(line,col): msbuild, tsc.
	if p := strings.IndexByte(word, '('); p > 0 {
		if q := strings.IndexByte(word[p:], ')'); q > 0 {
			inner := word[p+1 : p+q]
			ln, col, _ := strings.Cut(inner, ",")
			if isDigits(ln) && (col == "" || isDigits(col)) && pathLike(word[:p]) {
				loc = word[:p] + ":" + ln
				if col != "" {
					loc += ":" + col
				}
				rest = strings.TrimPrefix(s[p+q+1:], ":")
				return loc, strings.TrimSpace(rest), true
			}
		}
	}
	for i := 0; i < len(word); i++ {
		if word[i] != ':' {
			continue
		}
		j := i + 1
		for j < len(word) && word[j] >= '0' && word[j] <= '9' {
			j++
		}
		if j == i+1 {
			if i+2 < len(word) && word[i+1] == '/' && word[i+2] == '/' {
				return "", "", false // a URL
			}
			continue
		}
		if !pathLike(word[:i]) {
			return "", "", false
		}
		// An optional column.
		k := j
		if k+1 < len(word) && word[k] == ':' && word[k+1] >= '0' && word[k+1] <= '9' {
			k++
			for k < len(word) && word[k] >= '0' && word[k] <= '9' {
				k++
			}
		}
		if k < len(word) && word[k] != ':' {
			return "", "", false // "a.go:12abc"
		}
		loc = word[:k]
		rest = s[k:]
		rest = strings.TrimPrefix(rest, ":")
		return loc, strings.TrimSpace(rest), true
	}
	return "", "", false
}

func pathLike(p string) bool {
	if p == "" || len(p) > 300 {
		return false
	}
	if !strings.ContainsAny(p, "./") {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '"' || c == '\'' || c == '(' || c == ')' || c == '[' || c == ']' || c == '<' || c == '>' || c == '=' || c == ',' || c == '{' || c == '}' {
			return false
		}
	}
	return true
}

// isNote says whether a diagnostic is not an error.
func isNote(rest string) bool {
	for _, p := range []string{"warning", "Warning", "note", "info", "hint", "In function", "In member function", "At top level"} {
		if strings.HasPrefix(rest, p) {
			return true
		}
	}
	return rest == ""
}

// dartProgress reads the progress prefix of dart's and flutter's test
// runner, "00:02 +3 ~1 -1: ", and returns what follows it.
func dartProgress(t string) (string, bool) {
	if len(t) < 9 || t[2] != ':' || t[5] != ' ' || t[6] != '+' || !isDigits(t[:2]) || !isDigits(t[3:5]) {
		return "", false
	}
	_, rest, ok := strings.Cut(t[6:], ": ")
	return rest, ok
}

// scala3Error reads Scala 3's "-- [E007] Type Mismatch Error: /p/a.scala:88:42"
// (with trailing dashes) as its kind and location.
func scala3Error(t string) (kind, loc string, ok bool) {
	rest, ok := strings.CutPrefix(t, "-- ")
	if !ok {
		return "", "", false
	}
	i := strings.LastIndex(rest, ": ")
	if i < 0 || !strings.HasSuffix(rest[:i], "Error") {
		return "", "", false
	}
	where, _, _ := strings.Cut(strings.TrimSpace(rest[i+2:]), " ")
	l, _, ok := fileLine(where)
	if !ok {
		return "", "", false
	}
	return rest[:i], l, true
}

// ctestFailed reads ctest's "36/37 Test #36: predicates.orient2d_large
// ....***Failed    0.02 sec" (also "***Exception", "***Timeout", "Not
// Run") and returns the test's name.
func ctestFailed(t string) (string, bool) {
	i := strings.Index(t, "Test #")
	if i < 0 {
		return "", false
	}
	rest := t[i+len("Test #"):]
	_, rest, ok := strings.Cut(rest, ": ")
	if !ok {
		return "", false
	}
	for _, m := range []string{"***Failed", "***Exception", "***Timeout", "***Not Run", "Not Run"} {
		if j := strings.Index(rest, m); j > 0 {
			return strings.TrimRight(strings.TrimSpace(rest[:j]), ". "), true
		}
	}
	return "", false
}

// libraryPath says whether a traceback's file is an installed library's,
// not the project's: the frames that matter are the project's.
func libraryPath(p string) bool {
	for _, d := range []string{"site-packages/", "dist-packages/", "/lib/python", "<frozen "} {
		if strings.Contains(p, d) {
			return true
		}
	}
	return false
}

// shortException drops the package from an exception's class name, which
// says where the class lives, not what went wrong:
// "com.typesafe.config.ConfigException$Missing: msg" is
// "ConfigException$Missing: msg".
func shortException(t string) string {
	name, msg, ok := strings.Cut(t, ":")
	if !ok {
		return t
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return name + ":" + msg
}

// isException reads "ValueError: msg", "TypeError: msg", "Error: msg",
// "java.lang.IllegalStateException: msg", "AssertionError".
func isException(t string) bool {
	name, _, found := strings.Cut(t, ":")
	if name == "" || !found && strings.ContainsAny(t, " \t") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '$') {
			return false
		}
	}
	// A nested class names the kind: ConfigException$Missing.
	last := name[strings.LastIndexByte(name, '.')+1:]
	last, _, _ = strings.Cut(last, "$")
	if last == "" || last[0] < 'A' || last[0] > 'Z' {
		return false
	}
	return strings.HasSuffix(last, "Error") || strings.HasSuffix(last, "Exception")
}

// goHeader reads go build's "# example.com/pkg", maybe followed by
// " [example.com/pkg.test]".
func goHeader(t string) bool {
	rest, ok := strings.CutPrefix(t, "# ")
	if !ok || rest == "" {
		return false
	}
	pkg, after, _ := strings.Cut(rest, " ")
	return pkg != "" && (after == "" || strings.HasPrefix(after, "[") && strings.HasSuffix(after, "]"))
}

// failFile reads jest's "FAIL src/a.test.js" and vitest's
// "FAIL  src/a.test.ts > suite > name".
func failFile(t string) bool {
	rest, ok := strings.CutPrefix(t, "FAIL ")
	if !ok {
		return false
	}
	rest = strings.TrimSpace(rest)
	file, _, _ := strings.Cut(rest, " ")
	return strings.ContainsAny(file, "./")
}

// exunitFailure reads ExUnit's "  1) test name (Module)", and its doctest
// and property forms.
func exunitFailure(t string) bool {
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 || !strings.HasSuffix(t, ")") {
		return false
	}
	rest := t[i:]
	return strings.HasPrefix(rest, ") test ") || strings.HasPrefix(rest, ") doctest ") || strings.HasPrefix(rest, ") property ")
}

// makeError reads "make: *** [Makefile:3: all] Error 2" and
// "make[1]: *** No rule to make target 'x'.".
func makeError(t string) bool {
	for _, p := range []string{"make", "gmake"} {
		rest, ok := strings.CutPrefix(t, p)
		if !ok {
			continue
		}
		if strings.HasPrefix(rest, "[") {
			if i := strings.IndexByte(rest, ']'); i > 0 && isDigits(rest[1:i]) {
				rest = rest[i+1:]
			}
		}
		if strings.HasPrefix(rest, ": *** ") {
			return true
		}
	}
	return false
}

// infoLabel says t opens with a label that marks it information, not an
// error: "I: " and "N: " (lintian, apt), "info:", "note:", "[info]".
func infoLabel(t string) bool {
	if strings.HasPrefix(t, "I: ") || strings.HasPrefix(t, "N: ") {
		return true
	}
	for _, w := range []string{"info:", "note:", "[info]", "info "} {
		if len(t) > len(w) && strings.EqualFold(t[:len(w)], w) {
			return true
		}
	}
	return false
}

// lintError reads eslint's stylish "  3:5  error  'x' is not defined  no-undef".
func lintError(t string) bool {
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 || i == len(t) || t[i] != ':' {
		return false
	}
	j := i + 1
	for j < len(t) && t[j] >= '0' && t[j] <= '9' {
		j++
	}
	if j == i+1 {
		return false
	}
	rest := strings.TrimLeft(t[j:], " \t")
	return len(rest) < len(t[j:]) && strings.HasPrefix(rest, "error ")
}

// lintLocation turns "3:5  error  msg  rule" into "3:5: msg  rule".
func lintLocation(t string) string {
	loc, rest, _ := strings.Cut(t, " ")
	rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), "error"))
	return loc + ": " + rest
}

// looksLikeSourcePath reads a line that is only a file path, as eslint
// prints before a file's problems.
func looksLikeSourcePath(t string) bool {
	if strings.ContainsAny(t, " \t:") || !strings.Contains(t, "/") {
		return false
	}
	dot := strings.LastIndexByte(t, '.')
	return dot > strings.LastIndexByte(t, '/') && dot < len(t)-1
}

func mavenNoise(e string) bool {
	if strings.HasPrefix(e, "Tests run:") || strings.HasSuffix(e, ":") {
		return true // summaries (read as counts) and section headers
	}
	for _, p := range []string{"-> [Help", "To see the full stack trace", "Re-run Maven", "For more information about", "[Help 1]", "After correcting the problems", "mvn <args>"} {
		if strings.Contains(e, p) {
			return true
		}
	}
	return false
}

func npmNoise(e string) bool {
	for _, p := range []string{"A complete log of this run", "code ", "errno ", "path ", "workspace ", "location ", "syscall ", "command sh ", "Lifecycle script", "This is probably not a problem", "Failed at the", "Did you mean", "To see a list", "Exit status"} {
		if strings.HasPrefix(e, p) {
			return true
		}
	}
	return false
}

// failedSuffix reads a test line that ends in FAILED: pytest -v's
// "tests/a.py::test_b FAILED   [ 50%]", cargo's "test a::b ... FAILED",
// gradle's "AppTest > testX() FAILED".
func failedSuffix(t string) bool {
	i := strings.LastIndex(t, " FAILED")
	if i <= 0 {
		return false
	}
	rest := strings.TrimSpace(t[i+len(" FAILED"):])
	return rest == "" || rest[0] == '['
}

// linkerMessage reads a linker's diagnostic, "/usr/bin/ld: msg",
// "arm-none-eabi-ld: msg", "ld.lld: error: msg", and returns its message;
// not a warning, nor the context line that introduces the next one
// ("ld: a.o: in function `main':").
func linkerMessage(t string) (string, bool) {
	prog, msg, ok := strings.Cut(t, ": ")
	if !ok || prog == "" || strings.ContainsAny(prog, " \t") {
		return "", false
	}
	base := prog[strings.LastIndexByte(prog, '/')+1:]
	if base != "ld" && !strings.HasSuffix(base, "-ld") && !strings.HasPrefix(base, "ld.") && !strings.HasPrefix(base, "ld64") {
		return "", false
	}
	msg = strings.TrimSpace(msg)
	if msg == "" || strings.HasPrefix(msg, "warning") || strings.HasSuffix(msg, ":") {
		return "", false
	}
	return strings.TrimPrefix(msg, "error: "), true
}

// objectLocation reads a linker's diagnostic placed in an object's
// section, "main.c:(.text+0x1a): msg" or "a.c:77:(.text.f+0x3c): msg".
func objectLocation(t string) bool {
	i := strings.Index(t, ":(.")
	if i <= 0 || strings.ContainsAny(t[:i], " \t") {
		return false
	}
	j := strings.Index(t[i:], "): ")
	return j > 0 && !strings.ContainsAny(t[i:i+j], " \t")
}

// plainLine splits the first line off out, without its ANSI escapes.
func plainLine(out string) (line, rest string) {
	line, rest, _ = strings.Cut(out, "\n")
	if strings.IndexByte(line, 0x1b) >= 0 {
		line = stripANSI(line)
	}
	return line, rest
}

// mentionsError is the last resort for a failure nothing else explains.
func mentionsError(t string) bool {
	for _, w := range []string{"error", "fatal", "cannot", "not found", "no such file", "denied", "exception"} {
		if containsFold(t, w) {
			return true
		}
	}
	return false
}

// containsFold is strings.Contains ignoring ASCII case, for a lowercase
// needle, without allocating.
func containsFold(s, lower string) bool {
	n := len(lower)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for j < n {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[j] {
				break
			}
			j++
		}
		if j == n {
			return true
		}
	}
	return false
}

// stripANSI removes terminal escape sequences (colours, cursor moves).
func stripANSI(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		if i+1 < len(s) && s[i+1] == ']' { // OSC, to BEL or ST
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
			continue
		}
		i++ // a two-byte escape
	}
	return b.String()
}

// withoutClock drops the time of day a tool's log puts in front of each
// line ("20:11:56  Done. PASS=3 ...", "[12:00:01.5] FAIL ...", "2026-11-24
// 20:11:56,123 ERROR ..."): the line is read as the tool wrote it, its
// indentation after the time kept.
func withoutClock(l string) string {
	s := strings.TrimLeft(l, " \t")
	bracket := strings.HasPrefix(s, "[")
	if bracket {
		s = s[1:]
	}
	// A date first: "2026-11-24 " or "2026-11-24T".
	if len(s) > 11 && isDigits(s[:4]) && s[4] == '-' && isDigits(s[5:7]) && s[7] == '-' && isDigits(s[8:10]) && (s[10] == ' ' || s[10] == 'T') {
		s = s[11:]
	}
	if len(s) < 8 || !isDigits(s[:2]) || s[2] != ':' || !isDigits(s[3:5]) || s[5] != ':' || !isDigits(s[6:8]) {
		return l
	}
	i := 8
	for i < len(s) && (s[i] == '.' || s[i] == ',' || s[i] >= '0' && s[i] <= '9' || s[i] == 'Z') {
		i++
	}
	if bracket {
		if i >= len(s) || s[i] != ']' {
			return l
		}
		i++
	}
	if i >= len(s) || (s[i] != ' ' && s[i] != '\t') {
		return l
	}
	rest := s[i+1:]
	if strings.TrimSpace(rest) == "" {
		return l
	}
	return rest
}

// kotlinDiag reads what follows kotlinc's "e: ": "file:///p/a.kt:12:5 msg"
// (Kotlin 2) or "/p/a.kt: (12, 5): msg" (Kotlin 1), as "/p/a.kt:12:5: msg".
func kotlinDiag(s string) (string, bool) {
	s = strings.TrimPrefix(s, "file://")
	if loc, msg, ok := fileLine(s); ok && msg != "" {
		return loc + ": " + msg, true
	}
	path, rest, ok := strings.Cut(s, ": (")
	if !ok || !pathLike(path) || strings.ContainsAny(path, " \t") {
		return "", false
	}
	pos, msg, ok := strings.Cut(rest, "): ")
	ln, col, _ := strings.Cut(pos, ", ")
	if !ok || !isDigits(ln) || col != "" && !isDigits(col) || msg == "" {
		return "", false
	}
	loc := path + ":" + ln
	if col != "" {
		loc += ":" + col
	}
	return loc + ": " + msg, true
}

// plenaryFail reads plenary's "Fail\t||\tname" (print(FAIL, "||", name))
// and returns the test's name.
func plenaryFail(t string) string {
	rest, ok := strings.CutPrefix(t, "Fail")
	if !ok || rest == "" || !strings.ContainsRune(":. \t|", rune(rest[0])) {
		return "" // "Failed : 1", "Failure"
	}
	rest = strings.TrimSpace(strings.TrimLeft(rest, ":."))
	rest, bar := strings.CutPrefix(rest, "||")
	rest = strings.TrimSpace(rest)
	if rest == "" || isDigits(rest) || !bar && !strings.HasPrefix(t, "Fail:") && !strings.HasPrefix(t, "Fail\t") {
		return ""
	}
	return rest
}

// plenaryResult says whether t is plenary's line for a test or a count.
func plenaryResult(t string) bool {
	for _, p := range []string{"Success", "Fail", "Pending", "Errors", "====="} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// wrapperLine says whether an error line is a build tool's wrapper around
// the failure rather than the failure: the task, goal, script or target
// that failed ("Execution failed for task ':app:compileKotlin'.",
// "[ERROR] Failed to execute goal ...", "npm error Lifecycle script
// `build` failed", "make: *** [all] Error 1", "(Compile /
// compileIncremental) Compilation failed", cargo's "error: could not
// compile `app`"). It names where, not what.
func wrapperLine(s string) bool {
	if strings.HasPrefix(s, "> Task :") || makeError(s) {
		return true
	}
	for _, p := range []string{
		"Execution failed for task", "> A failure occurred while executing", "A failure occurred while executing",
		"> Compilation error. See log", "Compilation error. See log", "> Compilation failed; see the compiler",
		"Compilation failed; see the compiler", "> There were failing tests", "There were failing tests",
		"Failed to execute goal", "Lifecycle script", "command failed", "ELIFECYCLE", "error Command failed with exit code",
		"error: could not compile", "error: aborting due to", "error: build failed", "ninja: build stopped",
		"collect2: error: ld returned", "##[error]Process completed with exit code", "Error: Process completed with exit code",
		"Tests Failed. Exit:", "Errors while running CTest", "ERROR: failed to solve:", "ERROR: command finished with error", "ERROR  run failed:",
	} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	// sbt's "(Compile / compileIncremental) Compilation failed",
	// "(app / Test / test) sbt.TestsFailedException: Tests unsuccessful".
	return strings.HasPrefix(s, "(") && strings.Contains(s, " / ") && (containsFold(s, "failed") || containsFold(s, "unsuccessful"))
}

// zeroCount reads a count of nothing, "Errors : 0", "0 failures": a
// summary's zero is no error line.
func zeroCount(t string) bool {
	f := strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == '\t' || r == ':' || r == '=' })
	if len(f) != 2 {
		return false
	}
	word := func(w string) bool { return strings.IndexFunc(w, func(r rune) bool { return r < 'A' || r > 'z' }) < 0 }
	return f[0] == "0" && word(f[1]) || f[1] == "0" && word(f[0])
}

// passMarked says whether a line reports something that passed: "✓ ci /
// build", "PASS src/a.test.ts", "Success\t||\tname", gh's "lint\tpass\t...".
func passMarked(t string) bool {
	first, _, _ := strings.Cut(t, " ")
	first, _, _ = strings.Cut(first, "\t")
	switch first {
	case "✓", "✔", "√", "✅", "PASS", "PASSED", "[PASS]", "[OK]", "ok", "Success", "Success:":
		return true
	}
	return tabField(t, "pass")
}

// failMarked says whether a line reports something that failed: "X  ci /
// lint", "✗ build", "FAIL x", TAP's "not ok 3 - name", gh's "lint\tfail\t...".
func failMarked(t string) bool {
	first, _, _ := strings.Cut(t, " ")
	first, _, _ = strings.Cut(first, "\t")
	switch first {
	case "X", "✗", "✘", "×", "❌", "✖", "FAIL", "FAILED", "FAIL:", "[FAIL]", "[FAILED]", "Fail", "Fail:":
		return true
	}
	return strings.HasPrefix(t, "not ok ") || tabField(t, "fail")
}

// tabField says whether a tab-separated line has a field that is word.
func tabField(t, word string) bool {
	if strings.IndexByte(t, '\t') < 0 {
		return false
	}
	for _, f := range strings.Split(t, "\t") {
		if strings.TrimSpace(f) == word {
			return true
		}
	}
	return false
}

// withoutStep drops the step and the time BuildKit's plain progress puts
// in front of what a build step printed ("#12 3.456 src/a.ts(3,5): error
// TS2322: ..."), so the step's own lines read as the tool wrote them.
func withoutStep(l string) string {
	if len(l) < 4 || l[0] != '#' {
		return l
	}
	i := 1
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i == 1 || i >= len(l) || l[i] != ' ' {
		return l
	}
	j := i + 1
	for j < len(l) && (l[j] >= '0' && l[j] <= '9' || l[j] == '.') {
		j++
	}
	if j == i+1 || j >= len(l) || l[j] != ' ' || !strings.Contains(l[i+1:j], ".") {
		return l // "#12 [build 5/6] RUN ...", "#12 DONE 0.3s": BuildKit's own
	}
	return l[j+1:]
}

// dotnetFailed reads dotnet test's "Failed Name [12 ms]" ("[< 1 ms]",
// "[2 s]").
func dotnetFailed(t string) bool {
	rest, ok := strings.CutPrefix(t, "Failed ")
	if !ok || !strings.HasSuffix(rest, "]") {
		return false
	}
	i := strings.LastIndex(rest, " [")
	if i <= 0 || strings.ContainsAny(rest[:i], " \t") {
		return false
	}
	d := rest[i+2 : len(rest)-1]
	return strings.HasSuffix(d, " ms") || strings.HasSuffix(d, " s") || strings.HasSuffix(d, " m")
}
