package outcome

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-agent/cairn/internal/fixtures"
)

// bashCall is a Bash tool call of a real transcript with its result, read
// the way Claude Code writes it: the result's text is the output, and an
// error result starts with "Exit code N".
type bashCall struct {
	Session string // file name without .jsonl, "<session>/subagents/agent-x" for a subagent
	ID      string
	Command string
	Output  string
	IsError bool
	Exit    *int
}

var (
	fixtureOnce  sync.Once
	fixtureCalls []bashCall
	fixtureErr   error
)

// bashCalls returns every Bash call with a result in the embedded
// fixtures, main transcripts and subagents, in file order.
func bashCalls(t testing.TB) []bashCall {
	t.Helper()
	fixtureOnce.Do(func() {
		dir, err := os.MkdirTemp("", "outcome-fixtures")
		if err != nil {
			fixtureErr = err
			return
		}
		defer os.RemoveAll(dir)
		if _, err := fixtures.Extract(dir); err != nil {
			fixtureErr = err
			return
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		subs, _ := filepath.Glob(filepath.Join(dir, "*", "subagents", "*.jsonl"))
		for _, f := range append(files, subs...) {
			rel, _ := filepath.Rel(dir, f)
			calls, err := readBashCalls(f, strings.TrimSuffix(filepath.ToSlash(rel), ".jsonl"))
			if err != nil {
				fixtureErr = err
				return
			}
			fixtureCalls = append(fixtureCalls, calls...)
		}
	})
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	if len(fixtureCalls) < 400 {
		t.Fatalf("found %d Bash calls in the fixtures", len(fixtureCalls))
	}
	return fixtureCalls
}

func readBashCalls(path, session string) ([]bashCall, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	type block struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
		IsError   bool            `json:"is_error"`
	}
	var line struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	commands := map[string]string{}
	var out []bashCall
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line.Message.Content = nil
		if json.Unmarshal(sc.Bytes(), &line) != nil || len(line.Message.Content) == 0 || line.Message.Content[0] != '[' {
			continue
		}
		var blocks []block
		if json.Unmarshal(line.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			switch {
			case b.Type == "tool_use" && b.Name == "Bash":
				var in struct {
					Command string `json:"command"`
				}
				if err := json.Unmarshal(b.Input, &in); err != nil {
					return nil, fmt.Errorf("%s: %s: %w", session, b.ID, err)
				}
				commands[b.ID] = in.Command
			case b.Type == "tool_result":
				cmd, ok := commands[b.ToolUseID]
				if !ok {
					continue
				}
				c := bashCall{Session: session, ID: b.ToolUseID, Command: cmd, Output: resultText(b.Content), IsError: b.IsError}
				if !b.IsError {
					c.Exit = new(int)
				} else if rest, ok := strings.CutPrefix(c.Output, "Exit code "); ok {
					n, _, _ := strings.Cut(rest, "\n")
					if code, err := strconv.Atoi(n); err == nil {
						c.Exit = &code
					}
				}
				out = append(out, c)
			}
		}
	}
	return out, sc.Err()
}

// resultText is a tool_result's content: a string, or the text of its
// text blocks.
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

type label struct {
	session, id, label, reason string
}

func readLabels(t *testing.T) []label {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "labels.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var out []label
	for n, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) != 4 || f[2] != "passed" && f[2] != "failed" && f[2] != "unknown" || f[3] == "" {
			t.Fatalf("labels.tsv:%d: want session, tool_use_id, passed|failed|unknown, reason: %q", n+1, l)
		}
		out = append(out, label{f[0], f[1], f[2], f[3]})
	}
	return out
}

// exitOnly is the outcome the exit status alone gives, what cairn showed
// before this package: 0 passed, anything else failed.
func exitOnly(exit *int) string {
	switch {
	case exit == nil:
		return "unknown"
	case *exit == 0:
		return "passed"
	}
	return "failed"
}

// tally counts one classifier's answers against the labels, per class.
type tally struct {
	predicted, correct, labelled map[string]int
}

func newTally() tally {
	return tally{map[string]int{}, map[string]int{}, map[string]int{}}
}

func (t tally) add(label, got string) {
	t.labelled[label]++
	t.predicted[got]++
	if got == label {
		t.correct[label]++
	}
}

func pct(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%% (%d/%d)", 100*float64(n)/float64(d), n, d)
}

// TestLabelled measures Judge against the hand labels of every build and
// test command in the real transcripts, beside the exit status alone, and
// fails if a labelled failure, or a run whose output does not tell, is
// reported as passed. With -v it prints the Markdown table that
// docs/recall.md quotes.
func TestLabelled(t *testing.T) {
	calls := bashCalls(t)
	byID := map[string]bashCall{}
	for _, c := range calls {
		byID[c.Session+"\t"+c.ID] = c
	}
	labels := readLabels(t)
	if len(labels) < 100 {
		t.Fatalf("only %d labels", len(labels))
	}
	rows := []struct {
		name  string
		piped bool
		all   bool
	}{{"all build and test commands", false, true}, {"piped into a filter", true, false}, {"not piped", false, false}}
	type result struct{ exit, cairn tally }
	results := make([]result, len(rows))
	for i := range results {
		results[i] = result{newTally(), newTally()}
	}
	seen := map[string]bool{}
	falsePass := map[string]int{}
	for _, l := range labels {
		key := l.session + "\t" + l.id
		if seen[key] {
			t.Errorf("%s %s: labelled twice", l.session, l.id)
		}
		seen[key] = true
		c, ok := byID[key]
		if !ok {
			t.Errorf("%s %s: no such Bash call in the fixtures", l.session, l.id)
			continue
		}
		o := Judge(c.Command, c.Output, c.Exit)
		got, base := o.Status.String(), exitOnly(c.Exit)
		piped := parseCommand(c.Command).hidden == HiddenPipe
		for i, r := range rows {
			if r.all || r.piped == piped {
				results[i].exit.add(l.label, base)
				results[i].cairn.add(l.label, got)
			}
		}
		if base == "passed" && l.label != "passed" {
			falsePass["exit"]++
		}
		if got == "passed" && l.label != "passed" {
			falsePass["cairn"]++
			t.Errorf("%s %s: labelled %s (%s), reported %s: %q → %s", l.session[:8], l.id, l.label, l.reason, got, c.Command, o.Line())
		}
		if got == "failed" && l.label == "passed" {
			t.Logf("%s %s: labelled passed (%s), reported failed: %q → %s %q", l.session[:8], l.id, l.reason, c.Command, o.Line(), o.Errors)
		}
	}
	for i, r := range rows {
		ex, ca := results[i].exit, results[i].cairn
		if ca.correct["failed"] < ex.correct["failed"] {
			t.Errorf("%s: cairn finds %d failures, the exit status %d", r.name, ca.correct["failed"], ex.correct["failed"])
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "| commands | class | labelled | exit status only: precision | recall | cairn: precision | recall |\n")
	fmt.Fprintf(&b, "|---|---|---:|---:|---:|---:|---:|\n")
	for i, r := range rows {
		ex, ca := results[i].exit, results[i].cairn
		for _, class := range []string{"failed", "passed"} {
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s |\n", r.name, class, ca.labelled[class],
				pct(ex.correct[class], ex.predicted[class]), pct(ex.correct[class], ex.labelled[class]),
				pct(ca.correct[class], ca.predicted[class]), pct(ca.correct[class], ca.labelled[class]))
		}
	}
	fmt.Fprintf(&b, "\nCalls reported as passed that are labelled failed or unknown: exit status only %d, cairn %d.\n", falsePass["exit"], falsePass["cairn"])
	main, mainPiped, piped := 0, 0, 0
	for _, c := range calls {
		p := pipesInto(c.Command)
		if !strings.Contains(c.Session, "/") {
			main++
			if p {
				mainPiped++
			}
		}
		if p {
			piped++
		}
	}
	all := results[0].cairn.labelled
	fmt.Fprintf(&b, "Bash calls with a result: %d in the main transcripts, %d of them piped into tail, head or grep; %d and %d with the subagents'.\n", main, mainPiped, len(calls), piped)
	fmt.Fprintf(&b, "Labelled build and test commands: %d (%d failed, %d passed, %d unknown), %d of them piped.\n",
		len(labels), all["failed"], all["passed"], all["unknown"], results[1].cairn.labelled["failed"]+results[1].cairn.labelled["passed"]+results[1].cairn.labelled["unknown"])
	if testing.Verbose() {
		fmt.Println(b.String())
	}
}

// pipesInto says whether a command line pipes into tail, head or grep
// anywhere, the count the issue gives.
func pipesInto(cmd string) bool {
	cmds := splitShell(cmd)
	for i := 1; i < len(cmds); i++ {
		if cmds[i-1].op != "|" {
			continue
		}
		if w := programWords(cmds[i].words); len(w) > 0 && (w[0] == "tail" || w[0] == "head" || w[0] == "grep") {
			return true
		}
	}
	return false
}
