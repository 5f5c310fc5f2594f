package faults

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/redact"
)

// The checks must be able to fail: each case gives a made-up sequence of
// runs with one kind of violation and the counts it must produce.

func restoreOut(event string, p phase) string {
	text := fmt.Sprintf("%s\n\nThis session was just compacted (%s).\n\n## Task\n- Ticket: %s\n\n## User constraints\n- “%s”\n\n## Open todos\n- [in_progress] %s\n\n## Files changed\n- %s (created)\n\n## Last commands\n- `%s` → exit %d\n",
		restoreHeader, p.Trigger, p.Ticket, p.Constraint, p.Todo, p.File, p.Command, p.Exit)
	return string(marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event, "additionalContext": text}})) + "\n"
}

func steerOut(p phase) string {
	return "When you write the summary, keep these specifics (cairn):\n- Task: Ticket: " + p.Ticket + "\n"
}

func TestCheck(t *testing.T) {
	good := func(sid string) []*run {
		var runs []*run
		for _, p := range phases {
			runs = append(runs,
				&run{Event: event{Name: "PreCompact", Compaction: p.N}, Window: p.N - 1, Stdout: steerOut(p)},
				&run{Event: event{Name: "SessionStart", Payload: map[string]any{"source": "compact"}}, Window: p.N, Stdout: restoreOut("SessionStart", p)},
				&run{Event: event{Name: "UserPromptSubmit"}, Window: p.N},
			)
		}
		return runs
	}
	logAt := func(sid, event string) string {
		return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Format(time.RFC3339) + " hook " + event + " session=" + sid + ": it broke"
	}
	for _, tc := range []struct {
		name   string
		change func(sid string, runs []*run) []*run
		want   tally
	}{
		{"good", func(sid string, runs []*run) []*run { return runs }, tally{}},
		{"lost", func(sid string, runs []*run) []*run {
			runs[1].Stdout, runs[1].Logs = "", []string{logAt(sid, "SessionStart")}
			return runs
		}, tally{Lost: 1}},
		{"killed output does not count", func(sid string, runs []*run) []*run {
			runs[1].Killed, runs[1].Exit, runs[1].Signal = true, -1, "killed"
			return runs
		}, tally{Lost: 1}},
		{"fallback delivers", func(sid string, runs []*run) []*run {
			runs[1].Killed, runs[1].Exit = true, -1
			runs[2].Stdout = restoreOut("UserPromptSubmit", phases[0])
			return runs
		}, tally{}},
		{"duplicated", func(sid string, runs []*run) []*run {
			runs[2].Stdout = restoreOut("UserPromptSubmit", phases[0])
			return runs
		}, tally{Duplicated: 1}},
		{"stale", func(sid string, runs []*run) []*run {
			runs[4].Stdout = restoreOut("SessionStart", phases[0]) // compaction 2 shows compaction 1's work
			return runs
		}, tally{Stale: 1, Lost: 1}},
		{"incomplete", func(sid string, runs []*run) []*run {
			runs[7].Stdout = strings.Replace(restoreOut("SessionStart", phases[2]), phases[2].Todo, "something else", 1)
			return runs
		}, tally{Incomplete: 1}},
		{"no steering, logged", func(sid string, runs []*run) []*run {
			runs[3].Stdout, runs[3].Logs = "", []string{logAt(sid, "PreCompact")}
			return runs
		}, tally{SteeringMissing: 1}},
		{"no steering, not logged", func(sid string, runs []*run) []*run {
			runs[3].Stdout = ""
			return runs
		}, tally{SteeringMissing: 1, MissingLogs: 1}},
		{"steering of another compaction", func(sid string, runs []*run) []*run {
			runs[3].Stdout, runs[3].Logs = steerOut(phases[0]), []string{logAt(sid, "PreCompact")}
			return runs
		}, tally{SteeringMissing: 1}},
		{"killed PreCompact may print nothing", func(sid string, runs []*run) []*run {
			runs[3].Stdout, runs[3].Killed, runs[3].Exit = "", true, -1
			return runs
		}, tally{}},
		{"SIGPIPE", func(sid string, runs []*run) []*run {
			runs[2].Exit, runs[2].Signal, runs[2].StdoutClosed = -1, "broken pipe", true
			return runs
		}, tally{BadExits: 1, MissingLogs: 1}},
		{"overrun", func(sid string, runs []*run) []*run {
			runs[2].Took, runs[2].Logs = 7*time.Second, []string{logAt(sid, "UserPromptSubmit")}
			return runs
		}, tally{Overruns: 1}},
		{"client timeout", func(sid string, runs []*run) []*run {
			runs[1].Killed, runs[1].TimedOut, runs[1].Exit = true, true, -1
			runs[2].Stdout = restoreOut("UserPromptSubmit", phases[0])
			return runs
		}, tally{Overruns: 1}},
		{"bad output", func(sid string, runs []*run) []*run {
			runs[2].Stdout, runs[2].Logs = `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x"}}`, []string{logAt(sid, "UserPromptSubmit")}
			return runs
		}, tally{BadOutput: 1}},
		{"log line without the session", func(sid string, runs []*run) []*run {
			runs[1].Stdout, runs[1].Logs = "", []string{logAt("-", "SessionStart")}
			runs[2].Stdout = restoreOut("UserPromptSubmit", phases[0])
			return runs
		}, tally{BadLogs: 1}},
		{"log line of another form", func(sid string, runs []*run) []*run {
			runs[2].Logs = []string{"cairn: something"}
			return runs
		}, tally{BadLogs: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, rand.New(rand.NewPCG(1, 2)), nil)
			runs := tc.change(w.sid, good(w.sid))
			for i, r := range runs {
				r.Seq, r.Group = i+1, i+1
			}
			w.runs = runs
			got, problems := w.check()
			got.Sequences, got.Runs, got.Delivered = 0, 0, 0
			if got != tc.want {
				t.Errorf("got %+v\nwant %+v\nproblems: %q", got, tc.want, problems)
			}
		})
	}
}

// TestScanSecrets: a secret in any file under the world is found, in the
// transcript it is not.
func TestScanSecrets(t *testing.T) {
	w := newWorld(t, rand.New(rand.NewPCG(1, 2)), nil)
	os.MkdirAll(w.stateDir(), 0o700)
	os.WriteFile(filepath.Join(w.stateDir(), "x.body"), []byte("token "+secretValue("github-token")), 0o600)
	os.WriteFile(w.transcript, []byte(secretValue("anthropic-key")), 0o600)
	var tl tally
	var problems []string
	w.scanSecrets(&tl, func(n *int, format string, args ...any) {
		*n++
		problems = append(problems, fmt.Sprintf(format, args...))
	})
	if tl.Leaks != 1 || !strings.Contains(problems[0], "github-token") {
		t.Errorf("leaks %d: %q", tl.Leaks, problems)
	}
}

// TestPlantedSecrets: every planted secret is of a family cairn's
// redaction knows, so a leak is cairn's doing and not the suite's.
func TestPlantedSecrets(t *testing.T) {
	for _, s := range secrets {
		t.Run(s.Family, func(t *testing.T) {
			for _, text := range []string{s.Value, "before " + s.Value + " after", `{"content":"` + strings.ReplaceAll(s.Value, "\n", `\n`) + `"}`} {
				if got := redact.String(text); strings.Contains(got, s.Needle) {
					t.Errorf("redact.String keeps %s in %q: %q", s.Needle, text, got)
				}
			}
		})
	}
}

func TestValidOutput(t *testing.T) {
	for _, tc := range []struct {
		event, out string
		ok         bool
	}{
		{"SessionStart", "", true},
		{"SessionStart", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x"}}` + "\n", true},
		{"SessionStart", `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"x"}}`, false},
		{"UserPromptSubmit", `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit"}}`, false},
		{"UserPromptSubmit", `{"a":1}{"b":2}`, false},
		{"PostToolUse", "plain text", false},
		{"PostToolUse", "{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"x\"}", false},
		{"PreCompact", "keep these\n", true},
		{"PreCompact", `{"systemMessage":"x"}`, false},
		{"PreCompact", "\xff", false},
		{"PostCompact", "", true},
	} {
		if err := validOutput(tc.event, tc.out); (err == nil) != tc.ok {
			t.Errorf("validOutput(%s, %q) = %v, want ok %v", tc.event, tc.out, err, tc.ok)
		}
	}
}
