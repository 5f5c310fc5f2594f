package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// restoreHeader starts every restore cairn gives the model.
const restoreHeader = "# Restored working state (cairn)"

// tally counts what sequences did and what went wrong; every counter
// after Delivered is a violation of the contract.
type tally struct {
	Sequences int
	Runs      int // hook processes started
	Faults    int // faults injected: runs under a lock, kills that landed, corruptions, ...
	Delivered int // restores that reached the model

	Lost            int // compactions with no restore of their own by the end
	Stale           int // restores without the latest compaction's work
	Duplicated      int // a compaction's restore delivered more than once
	Incomplete      int // a compaction's restore missing some of its planted facts
	SteeringMissing int // PreCompact runs that printed no steering with the planted facts
	BadExits        int // runs that did not exit 0 (a fault's kill aside)
	Overruns        int // runs over budget + 2 s, or killed at the client's timeout
	BadOutput       int // stdout neither empty nor valid protocol output
	MissingLogs     int // failures with no log line
	BadLogs         int // log lines not of the form `<RFC3339> hook <Event> session=<id>: <message>`
	Leaks           int // (file, secret) pairs found in files cairn wrote
}

func (t *tally) add(o tally) {
	t.Sequences += o.Sequences
	t.Runs += o.Runs
	t.Faults += o.Faults
	t.Delivered += o.Delivered
	t.Lost += o.Lost
	t.Stale += o.Stale
	t.Duplicated += o.Duplicated
	t.Incomplete += o.Incomplete
	t.SteeringMissing += o.SteeringMissing
	t.BadExits += o.BadExits
	t.Overruns += o.Overruns
	t.BadOutput += o.BadOutput
	t.MissingLogs += o.MissingLogs
	t.BadLogs += o.BadLogs
	t.Leaks += o.Leaks
}

func (t tally) violations() int {
	return t.Lost + t.Stale + t.Duplicated + t.Incomplete + t.SteeringMissing + t.BadExits + t.Overruns +
		t.BadOutput + t.MissingLogs + t.BadLogs + t.Leaks
}

// logLine is the form of a line in cairn.log.
var logLine = regexp.MustCompile(`^(\S+) (hook|job) (\S+) session=(\S+): (.+)$`)

// check runs every check on a finished sequence and returns the counts
// with a line for each problem found.
func (w *world) check() (tally, []string) {
	var t tally
	var problems []string
	bad := func(counter *int, format string, args ...any) {
		*counter++
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	t.Sequences = 1
	t.Runs = len(w.runs)
	slices.SortFunc(w.runs, func(a, b *run) int { return a.Seq - b.Seq })
	if os.Getenv("CAIRN_FAULTS_TRACE") != "" {
		w.trace()
	}

	fresh := map[int]int{} // compaction -> restores of its own delivered
	for _, r := range w.runs {
		name := fmt.Sprintf("run %d %s", r.Seq, r.Event.target())
		if r.Fault != "" {
			name += " [" + r.Fault + "]"
		}
		faultKill := r.Killed && !r.TimedOut
		switch {
		case r.TimedOut:
			bad(&t.Overruns, "%s: still running at the client's %v timeout, killed", name, clientTimeouts[r.Event.Name])
		case faultKill:
		case r.Exit != 0:
			bad(&t.BadExits, "%s: exit %d %s (stderr %q)", name, r.Exit, r.Signal, clip(r.Stderr))
		case r.Took > budgets[r.Event.Name]+overrunSlack:
			bad(&t.Overruns, "%s: took %v, budget %v", name, r.Took.Round(time.Millisecond), budgets[r.Event.Name])
		}
		if !r.Killed && !r.StdoutClosed {
			if err := validOutput(r.Event.Name, r.Stdout); err != nil {
				bad(&t.BadOutput, "%s: %v: %q", name, err, clip(r.Stdout))
			}
		}
		if r.Event.Name == "PreCompact" && !faultKill && !r.StdoutClosed {
			if why := steeringProblem(r); why != "" {
				bad(&t.SteeringMissing, "%s (compaction %d): %s", name, r.Event.Compaction, why)
			}
		}
		if !r.delivered() {
			continue
		}
		for _, text := range restores(r) {
			t.Delivered++
			n := r.Window
			if n == 0 {
				bad(&t.Stale, "%s: a restore before any compaction", name)
				continue
			}
			p := phases[n-1]
			if !strings.Contains(text, p.Ticket) {
				bad(&t.Stale, "%s: restore without compaction %d's work (%s):\n%s", name, n, p.Ticket, clip(text))
				continue
			}
			fresh[n]++
			var missing []string
			for _, f := range p.facts() {
				if !f.Re.MatchString(text) {
					missing = append(missing, f.Name)
				}
			}
			if len(missing) > 0 {
				bad(&t.Incomplete, "%s: compaction %d's restore lacks its %s:\n%s", name, n, strings.Join(missing, ", "), clip(text))
			}
		}
	}
	for _, p := range phases {
		switch n := fresh[p.N]; {
		case n == 0:
			bad(&t.Lost, "compaction %d (%s): no restore of its own reached the model", p.N, p.Trigger)
		case n > 1:
			t.Duplicated += n - 1
			problems = append(problems, fmt.Sprintf("compaction %d (%s): its restore reached the model %d times", p.N, p.Trigger, n))
		}
	}
	w.checkLogs(&t, bad)
	w.scanSecrets(&t, bad)
	return t, problems
}

// restores are the restore texts in a run's answer.
func restores(r *run) []string {
	switch r.Event.Name {
	case "SessionStart", "UserPromptSubmit", "PostToolUse":
	default:
		return nil
	}
	ctx := additionalContext(r.Stdout)
	if i := strings.Index(ctx, restoreHeader); i >= 0 {
		return []string{ctx[i:]}
	}
	return nil
}

func additionalContext(stdout string) string {
	var v struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if json.Unmarshal([]byte(stdout), &v) != nil {
		return ""
	}
	return v.HookSpecificOutput.AdditionalContext
}

// validOutput checks stdout against what the event's protocol allows:
// nothing, or one JSON object (hookSpecificOutput naming the event) for
// the context events, plain text for PreCompact.
func validOutput(event, stdout string) error {
	if stdout == "" {
		return nil
	}
	if !utf8.ValidString(stdout) {
		return fmt.Errorf("not UTF-8")
	}
	if event == "PreCompact" {
		if strings.HasPrefix(strings.TrimSpace(stdout), "{") {
			return fmt.Errorf("JSON where the summariser wants plain text")
		}
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	var v map[string]json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value")
	}
	if raw, ok := v["hookSpecificOutput"]; ok {
		var h struct {
			HookEventName     string  `json:"hookEventName"`
			AdditionalContext *string `json:"additionalContext"`
		}
		if err := json.Unmarshal(raw, &h); err != nil {
			return fmt.Errorf("hookSpecificOutput: %v", err)
		}
		if h.HookEventName != event {
			return fmt.Errorf("hookSpecificOutput names %q", h.HookEventName)
		}
		if h.AdditionalContext == nil || *h.AdditionalContext == "" {
			return fmt.Errorf("hookSpecificOutput without additionalContext")
		}
	}
	return nil
}

// steeringProblem says what is wrong with a PreCompact run's steering,
// "" when it is there with the compaction's facts.
func steeringProblem(r *run) string {
	out := strings.TrimSpace(r.Stdout)
	if out == "" {
		return "no steering printed"
	}
	p := phases[r.Event.Compaction-1]
	for _, f := range p.steerFacts() {
		if f.Re.MatchString(out) {
			return ""
		}
	}
	return fmt.Sprintf("steering without %s or %s: %q", p.Ticket, p.File, clip(out))
}

// group is the runs of one hook call (two for a duplicated event).
type group struct {
	runs []*run
}

// checkLogs checks the form of every log line and that every failure
// left one: a run that exited badly, overran, printed bad output or no
// steering, could not print (stdout closed) what it had to, a
// SessionStart(compact) that restored nothing while a restore was due,
// and what the fault itself makes fail (mustLog).
func (w *world) checkLogs(t *tally, bad func(*int, string, ...any)) {
	var groups []group
	index := map[int]int{}
	for _, r := range w.runs {
		i, ok := index[r.Group]
		if !ok {
			i = len(groups)
			index[r.Group] = i
			groups = append(groups, group{})
		}
		groups[i].runs = append(groups[i].runs, r)
	}
	restored := map[int]bool{} // compactions with a restore delivered so far
	for _, g := range groups {
		lines := g.runs[0].Logs
		good := 0
		for _, l := range lines {
			// A line of the wrong form is counted once, as a bad line;
			// it still tells the user of the failure.
			m := logLine.FindStringSubmatch(l)
			if m == nil {
				bad(&t.BadLogs, "log line not of the form `<time> hook <Event> session=<id>: <message>` (or `job <kind>` for a hook's detached job): %q", l)
				continue
			}
			if m[4] != w.sid {
				bad(&t.BadLogs, "log line without the session id %s: %q", w.sid, l)
			} else if _, err := time.Parse(time.RFC3339, m[1]); err != nil {
				bad(&t.BadLogs, "log line time is not RFC 3339: %q", l)
			}
			// A job's line is its hook's: the hook handed the work that
			// failed to the job it started.
			if m[3] == g.runs[0].Event.Name || m[2] == "job" {
				good++
			}
		}
		need := 0
		var why []string
		delivered := false
		for _, r := range g.runs {
			if len(restores(r)) > 0 && r.delivered() {
				delivered = true
			}
			if reason := w.mustLog(r); reason != "" {
				need++
				why = append(why, fmt.Sprintf("run %d: %s", r.Seq, reason))
			}
		}
		e := g.runs[0].Event
		if e.target() == "SessionStart(compact)" && !restored[g.runs[0].Window] && !delivered && need == 0 {
			killed := false // a killed run cannot log; an overrun is counted apart
			for _, r := range g.runs {
				killed = killed || r.Killed
			}
			if !killed {
				need++
				why = append(why, "SessionStart(compact) gave no restore for a new compaction")
			}
		}
		if delivered {
			restored[g.runs[0].Window] = true
		}
		if good < need {
			t.MissingLogs += need - good
			bad(new(int), "%s [%s]: %d failure(s), %d log line(s) (%s); lines: %q", e.target(), g.runs[0].Fault, need, good, strings.Join(why, "; "), lines)
		}
	}
}

// mustLog says why a run had to log, "" when it need not have.
func (w *world) mustLog(r *run) string {
	if r.Killed || r.TimedOut {
		return "" // a killed process cannot log; an overrun is counted apart
	}
	switch {
	case r.Exit != 0:
		return fmt.Sprintf("exit %d %s", r.Exit, r.Signal)
	case r.Took > budgets[r.Event.Name]+overrunSlack:
		return "overran its budget"
	case !r.StdoutClosed && validOutput(r.Event.Name, r.Stdout) != nil:
		return "bad output"
	case r.Event.Name == "PreCompact" && !r.StdoutClosed && steeringProblem(r) != "":
		return "no steering"
	case r.Event.Name == "PreCompact" && r.StdoutClosed:
		return "steering could not be written (stdout closed)"
	case r.Fault != "" && r.Fault != "db-locked" && w.fault != nil && w.fault.DB && r.Event.Name == "PreCompact":
		// A lock held only while the hook runs is waited out by the job
		// the hook hands the database work to: nothing fails, nothing
		// to log (and nothing lost, which is checked apart).
		return "the checkpoint cannot be stored (" + r.Fault + ")"
	}
	return ""
}

// scanSecrets looks for every planted secret in every file under the
// world's root (home, XDG directories, TMPDIR, project) but the
// transcript, which is the client's.
func (w *world) scanSecrets(t *tally, bad func(*int, string, ...any)) {
	filepath.WalkDir(w.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() || path == w.transcript {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			bad(&t.Leaks, "cannot read %s to look for secrets: %v", path, err)
			return nil
		}
		rel, _ := filepath.Rel(w.root, path)
		for _, s := range secrets {
			if bytes.Contains(data, []byte(s.Needle)) {
				bad(&t.Leaks, "%s in %s", s.Family, rel)
			}
		}
		return nil
	})
}

// trace logs every run (CAIRN_FAULTS_TRACE=1).
func (w *world) trace() {
	for _, r := range w.runs {
		w.t.Logf("run %d %s window %d fault %q exit %d %s killed %v timeout %v took %v\nstdout: %s\nlogs: %q",
			r.Seq, r.Event.target(), r.Window, r.Fault, r.Exit, r.Signal, r.Killed, r.TimedOut, r.Took.Round(time.Millisecond), r.Stdout, r.Logs)
	}
}

func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}
