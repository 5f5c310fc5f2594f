// Package outcome judges how a shell command ended, from its command line,
// its output and its exit status, so that cairn never tells an agent that
// a failed build or test run passed.
//
// The exit status alone misleads. Agents pipe their builds and tests
// through filters ("mix test 2>&1 | tail -30"), and a pipeline's status
// is the last command's: tail's 0, whatever the tests did. So Judge reads
// the command line to know whether the status is the work's (a pipe into
// a filter without pipefail, a "; echo" or a "|| true" hide it) and reads
// the output for the verdict of the tool that did the work: the summary
// lines of test runners ("297 tests, 11 failures", "== 3 failed, 10 passed
// in 1.2s =="), build tools ("BUILD FAILED", "make: *** [all] Error 2"),
// compilers and linters ("main.c:3:5: error: ...", "error TS2322",
// "✖ 5 problems (3 errors, 2 warnings)"), with the first error lines.
// A run is called Passed only when the exit status is the work's and
// says so, or when the output says so; a hidden status with an output
// that does not tell is Unknown.
//
// Judge is pure and bounded: it reads at most the first HeadBytes and the
// last TailBytes of the output (Cut), in one pass of hand-written
// scanners, because it runs in hooks with a time budget on every Bash
// result of a session.
package outcome

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-agent/cairn/internal/text"
)

// Status is the verdict on a command.
type Status uint8

const (
	// Unknown: neither the exit status nor the output tells.
	Unknown Status = iota
	Passed
	Failed
)

func (s Status) String() string {
	switch s {
	case Passed:
		return "passed"
	case Failed:
		return "failed"
	}
	return "unknown"
}

// MarshalText writes the status as a word, so that stored state reads
// "failed", not 2.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads what MarshalText writes; another word is Unknown.
func (s *Status) UnmarshalText(b []byte) error {
	switch string(b) {
	case "passed":
		*s = Passed
	case "failed":
		*s = Failed
	default:
		*s = Unknown
	}
	return nil
}

// What hid the exit status of the work (Outcome.Hidden).
const (
	// HiddenPipe: the work pipes into a filter (| tail, | grep) and
	// pipefail is not set, so the status is the filter's.
	HiddenPipe = "pipe"
	// HiddenList: a later command in a list ("; echo done", "&") sets
	// the status.
	HiddenList = "list"
	// HiddenOr: "|| true", "|| echo failed": a failure is turned into the
	// fallback's status.
	HiddenOr = "or"
)

// What decided the status (Outcome.Source).
const (
	SourceExit       = "exit"
	SourceOutput     = "output"
	SourceBoth       = "exit+output"
	SourceBackground = "background" // Claude Code ran it in the background: no outcome yet
)

// Outcome is the verdict on one command. It is small and plain, to be
// stored with each Bash call in the session state.
type Outcome struct {
	Status Status `json:"status"`
	// Source says what decided Status: SourceExit, SourceOutput,
	// SourceBoth, SourceBackground, or "" for Unknown.
	Source string `json:"source,omitempty"`
	// Exit is the exit status as reported, nil when unknown.
	Exit *int `json:"exit,omitempty"`
	// Hidden says what kept the exit status from being the work's:
	// HiddenPipe, HiddenList, HiddenOr, or "".
	Hidden string `json:"hidden,omitempty"`
	// Tool names the build or test tool, from the command line ("go
	// test", "mix test", "npm run build") or else from its output
	// ("pytest", "jest"); "" when none was recognised.
	Tool string `json:"tool,omitempty"`
	// Counts is the tool's summary when it gives one, normalised: "3
	// failed, 10 passed", "14 doctests, 297 tests, 11 failures",
	// "no issues".
	Counts string `json:"counts,omitempty"`
	// Errors are the first error lines of a failed run (at most
	// MaxErrors, each at most MaxErrorBytes), in order, without
	// duplicates, with file:line in front where the output gives it:
	// "csv_test.go:31: got 2, want 3", "src/a.ts(3,5): error TS2322: ...".
	Errors []string `json:"errors,omitempty"`
}

// Limits on Outcome.Errors.
const (
	MaxErrors     = 5
	MaxErrorBytes = 200
)

// Judge says how a command ended. command is the command line as the agent
// wrote it, output what it printed (stdout and stderr as the agent saw
// them; a leading "Exit code N" line, as Claude Code writes it, is
// skipped), and exit its exit status, nil when unknown. Output of any size
// is accepted, but only its first HeadBytes and last TailBytes are read:
// callers that keep outputs should keep Cut(output).
//
// The rules, in order:
//   - Claude Code's "Command running in background" is Unknown
//     (SourceBackground): the command has not ended.
//   - An exit status other than 0 is Failed, whatever the output says,
//     unless it is grep's 1 ("no line matched") at the end of a pipe.
//   - An output in which the tool says the run failed (a summary with
//     failures, "FAIL\tpkg", a compiler's "file:3:5: error:") is Failed,
//     even with exit 0. Signs that also turn up in the logs of runs that
//     pass (a traceback, an exception line, an indented "error:") count
//     only when the exit status is hidden or unknown.
//   - With the exit status hidden, an output whose last lines report a
//     non-zero status of what it ran ("gave return code 1", "exited with
//     non-zero exit status: 100") is Failed, unless the tool said it
//     passed in so many words.
//   - Exit 0 is Passed only when it is the work's status (not Hidden).
//   - Otherwise an output in which the tool says the run passed is
//     Passed, and so is the complete, diagnostic-free output of a
//     compiler or a linter (head and tail showed all of it); anything
//     else is Unknown.
//
// The output gives a verdict only for commands that build, test, check or
// run project code: the output of git, ls, cat or curl is data, and a
// "FAILED" in it says nothing about the command. Their error lines still
// come from it when the exit status says they failed.
func Judge(command, output string, exit *int) Outcome {
	cmd := parseCommand(command)
	o := Outcome{Exit: exit, Hidden: cmd.hidden}
	if cmd.main >= 0 {
		o.Tool = cmd.works[cmd.main].tool
	}
	output = skipExitLine(Cut(output))
	if strings.HasPrefix(output, "Command running in background with ID:") {
		o.Source = SourceBackground
		return o
	}
	if cmd.echoed {
		// "go test ./... | tail -5; echo exit=${PIPESTATUS[0]}": the
		// command printed the work's own status.
		if code, ok := cmd.echoedStatus(output); ok {
			exit, cmd.hidden = &code, ""
			o.Exit, o.Hidden = exit, ""
		}
	}
	exitSays := Unknown
	if exit != nil {
		switch {
		case *exit != 0 && !(*exit == 1 && cmd.grepLast && cmd.hidden == HiddenPipe):
			exitSays = Failed
		case *exit == 0 && cmd.hidden == "":
			exitSays = Passed
		}
	}
	// The output of a build, a test or a script is read for its verdict;
	// that of any other command only for its error lines when it failed,
	// which is the rare case: most calls (git, ls, cat...) are not read
	// at all, and reading is most of what Judge costs.
	analysed := cmd.main >= 0 && cmd.works[cmd.main].kind != other
	if !analysed && exitSays == Unknown && cmd.hidden == HiddenPipe {
		// Whatever the program, a count summary with failures at the end
		// of what the pipe let through ("Errors: 1", "3 failed") says the
		// run failed; the exit status shown is the filter's.
		if r := read(output, cmd); r.failCounts != "" && r.afterSummary >= 0 && r.afterSummary <= summaryTail {
			o.Status, o.Source, o.Counts = Failed, SourceOutput, r.failCounts
			o.Errors = r.errors()
			return o
		}
		if line, ok := reportsFailedStatus(output); ok {
			// The program said in its last lines that what it ran
			// failed ("pdflatex: Command for 'pdflatex' gave return code
			// 1", "Command failed with exit code 2").
			o.Status, o.Source = Failed, SourceOutput
			if o.Errors = labelledErrors(output); len(o.Errors) == 0 {
				o.Errors = []string{text.ClipLine(strings.TrimSpace(line), MaxErrorBytes)}
			}
			return o
		}
	}
	if !analysed && exitSays != Failed {
		if exitSays == Passed {
			o.Status, o.Source = Passed, SourceExit
		}
		return o
	}
	r := read(output, cmd)
	outSays, strong := Unknown, false
	var statusLine string
	if analysed {
		outSays, strong = r.verdict()
		if o.Tool == "" {
			o.Tool = r.tool
		}
		if exitSays == Unknown && (outSays == Unknown || outSays == Passed && !strong) {
			// A script's runner that told no verdict of a tool, or a
			// tool whose pass is only its silence, but said what it ran
			// ended badly ("Command failed with exit code 2", "Script
			// exited with non-zero exit status: 100").
			if l, ok := reportsFailedStatus(output); ok {
				outSays, strong, statusLine = Failed, true, l
			}
		}
	}
	switch {
	case exitSays == Failed:
		o.Status, o.Source = Failed, SourceExit
		if outSays == Failed {
			o.Source = SourceBoth
		}
	case outSays == Failed && (strong || exitSays == Unknown):
		// A traceback or an "error:" in the log of a command whose own
		// exit status says 0 is not enough to call it failed.
		o.Status, o.Source = Failed, SourceOutput
	case exitSays == Passed:
		o.Status, o.Source = Passed, SourceExit
		if outSays == Passed && strong {
			o.Source = SourceBoth
		}
	case outSays == Passed:
		o.Status, o.Source = Passed, SourceOutput
	}
	switch {
	case o.Status == Failed:
		if analysed {
			o.Counts = r.failCounts
			if o.Counts == "" {
				o.Counts = r.passCounts
			}
		}
		o.Errors = r.errors()
		if len(o.Errors) == 0 && statusLine != "" {
			o.Errors = []string{text.ClipLine(strings.TrimSpace(statusLine), MaxErrorBytes)}
		}
	case analysed:
		o.Counts = r.passCounts
		if o.Status == Unknown && o.Hidden != "" {
			// The status is hidden and the output gives no verdict: its
			// error lines are all a reader has ("ERROR: canceling
			// statement due to lock timeout" before "| tee log").
			o.Errors = labelledErrors(output)
		}
	}
	return o
}

// Analysed says whether Judge reads the output of the command line's main
// work for a verdict: a build, a test, a check, a script of the project's;
// not git, ls or curl, whose output is data and whose exit status is all
// there is to say.
func Analysed(command string) bool {
	c := parseCommand(command)
	return c.main >= 0 && c.works[c.main].kind != other
}

// StatusHidden says whether the exit status a command reports is not its
// work's: a pipe into a filter, a later command in a list or a "||"
// fallback set it, and the work is not one of the standard programs that
// show data (ls, git, find: see utilities), whose failures say so in their
// output. "numdiff -a 1e-10 a.dat b.dat | tail -2" reports tail's 0 whatever
// numdiff found; "ls -la | head -3" reports as good as ls's.
func StatusHidden(command string) bool {
	c := parseCommand(command)
	if c.hidden == "" || c.main < 0 {
		return false
	}
	prog, _, _ := strings.Cut(c.works[c.main].key, " ")
	return !slices.Contains(utilities, prog)
}

// utilities are the standard programs that list or show data: their exit
// status is rarely what a reader needs and, when they fail, their output
// says so ("ls: cannot access"), so a filter's status after them is as good
// as theirs. Not diff or cmp, whose status is their verdict.
var utilities = []string{"ls", "git", "find", "cat", "echo", "printf", "ps", "du", "df", "env", "printenv", "which",
	"type", "stat", "file", "date", "uname", "id", "pwd", "tree", "whoami", "hostname", "history", "realpath",
	"readlink", "basename", "dirname", "seq", "fd", "locate", "lsof", "netstat", "ss", "ip", "top",
	"free", "uptime", "journalctl", "dmesg", "man"}

// reportsFailedStatus finds, among the last statusLines lines of out, one
// that reports a non-zero status of what the program ran: "return code
// 1", "exit code 2", "exit status 127", "exited with code 1" (a number
// right after "code" or "status" that follows "return", "exit" or
// "exited"). It returns that line.
func reportsFailedStatus(out string) (string, bool) {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > statusLines {
		lines = lines[len(lines)-statusLines:]
	}
	for _, l := range lines {
		ws := strings.Fields(strings.ToLower(stripANSI(l)))
		for i := range ws {
			ws[i] = strings.Trim(ws[i], ":;,.()[]")
		}
		for i := 1; i+1 < len(ws); i++ {
			if ws[i] != "code" && ws[i] != "status" {
				continue
			}
			lead := ws[i-1]
			if lead == "with" && i >= 2 {
				lead = ws[i-2]
			}
			if lead != "return" && lead != "exit" && lead != "exited" && lead != "returned" {
				continue
			}
			n, err := strconv.Atoi(ws[i+1])
			if err == nil && n > 0 && n < 256 {
				return l, true
			}
		}
	}
	return "", false
}

// statusLines is how many of the last lines of an output may report the
// status of what a program ran: a run ends with it.
const statusLines = 8

// labelledErrors are the first lines of out (at most MaxErrors) that a
// label opens as an error: "ERROR:", "error:", "Error ", "FATAL", "fatal:",
// "panic:", "[ERROR]", "E: ", after the program's own "name: " if any.
func labelledErrors(out string) []string {
	var r reading
	for out != "" && len(r.errs) < MaxErrors {
		var l string
		l, out = plainLine(out)
		t := strings.TrimSpace(l)
		if p, rest, ok := strings.Cut(t, ": "); ok && !strings.ContainsAny(p, " \t") {
			if errorLabel(rest) {
				t = rest
			}
		}
		if errorLabel(t) {
			r.addErr(t)
		}
	}
	return r.errs
}

// errorLabel says t opens with an error's label ("E: " too, as apt,
// lintian and the Debian tools mark an error beside "W: " and "I: ").
func errorLabel(t string) bool {
	if strings.HasPrefix(t, "E: ") && len(t) > 3 {
		return true
	}
	for _, w := range []string{"error", "fatal", "panic:", "[error]", "[fatal]"} {
		if len(t) > len(w) && strings.EqualFold(t[:len(w)], w) {
			switch c := t[len(w)]; {
			case strings.HasSuffix(w, ":") || strings.HasSuffix(w, "]"):
				return true
			case c == ':' || c == ' ' || c == '[' || c == '(':
				return true
			}
		}
	}
	return false
}

// summaryTail is how many lines may follow a count summary that decides
// the outcome of a command Judge does not know: a run ends with its
// summary, and a summary deep in the output is more likely data (a log,
// a commit message).
const summaryTail = 2

// skipExitLine drops Claude Code's "Exit code N" first line.
func skipExitLine(s string) string {
	if !strings.HasPrefix(s, "Exit code ") {
		return s
	}
	i := len("Exit code ")
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i || j < len(s) && s[j] != '\n' {
		return s
	}
	if j < len(s) {
		j++
	}
	return s[j:]
}

// Line is how a restore shows the outcome after the command, e.g.
// "exit 2; 5 tests, 5 failures", "exit 0; 31 passed",
// "exit status hidden by the pipe; output says 297 tests, 11 failures",
// "exit 0, but output says 3 failed, 10 passed", "exit status hidden by
// the pipe; output shows no failure" (a compiler that printed nothing).
func (o Outcome) Line() string {
	if o.Source == SourceBackground {
		return "started in the background; no outcome yet"
	}
	says := "output says " + o.Counts
	if o.Counts == "" {
		says = "output shows no failure"
		if o.Status == Failed {
			says = "output shows a failure"
		}
	}
	exit := "no exit code"
	if o.Exit != nil {
		exit = fmt.Sprintf("exit %d", *o.Exit)
	}
	if o.Hidden != "" && o.Source != SourceExit && o.Source != SourceBoth {
		h := "exit status hidden by " + map[string]string{HiddenPipe: "the pipe", HiddenList: "a later command", HiddenOr: "||"}[o.Hidden]
		if o.Source == SourceOutput {
			return h + "; " + says
		}
		if len(o.Errors) > 0 {
			return h + "; output shows an error: " + o.Errors[0]
		}
		return h + "; output does not say"
	}
	switch {
	case o.Source == SourceOutput && o.Status == Failed && o.Exit != nil:
		return exit + ", but " + says
	case o.Source == SourceOutput:
		return exit + "; " + says
	case o.Counts != "":
		return exit + "; " + o.Counts
	}
	return exit
}
