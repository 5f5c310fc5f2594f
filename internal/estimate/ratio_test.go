package estimate

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// fixtureTask is one task of the real sessions: the issues closed together,
// their specs and the context the work consumed.
type fixtureTask struct {
	session    string
	issues     []string
	spec       string
	from, to   int // transcript lines: the task started, it was closed
	specTokens int64
	consumed   int64
}

func (t fixtureTask) ratio() float64 { return float64(t.consumed) / float64(t.specTokens) }

// fixtureTasks finds the tasks in the five long fixtures. Each session
// works through the subtasks of one issue of the "bd" tracker: the agent
// reads a subtask's spec with `bd show ID`, marks it `bd update ID
// --status in_progress`, does the work and runs `bd close ID`. A task is
// what one `bd close` closes: its spec is the text `bd show` printed for
// those subtasks, and it consumed FromSession from the `bd update` turn
// (the spec already in context) to the `bd close` turn. Epics (ids with no
// dot) are the sessions' overall goals, not tasks, and are left out.
func fixtureTasks(t *testing.T) []fixtureTask {
	t.Helper()
	dir, err := fixtures.Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var tasks []fixtureTask
	for _, c := range fixtures.Compactions {
		path := filepath.Join(dir, c.Session+".jsonl")
		s := transcript.New(path)
		var p transcript.Parser
		if _, err := s.Update(&p); err != nil {
			t.Fatal(err)
		}
		results := toolResults(t, path)
		specs := map[string]string{}
		started := map[string]int{}
		for _, call := range s.ToolCalls {
			if call.Sidechain || call.Name != "Bash" {
				continue
			}
			for _, cmd := range bdCommands(call.Command) {
				switch {
				case cmd[0] == "show":
					for _, block := range strings.Split(results[call.ID], "\n===\n") {
						if f := strings.Fields(block); len(f) > 1 {
							specs[f[1]] = strings.TrimSpace(block) + "\n"
						}
					}
				case cmd[0] == "update" && strings.Contains(strings.Join(cmd, " "), "in_progress"):
					for _, id := range subtasks(cmd[1:]) {
						if _, ok := started[id]; !ok {
							started[id] = call.Line
						}
					}
				case cmd[0] == "close":
					ids := subtasks(cmd[1:])
					if len(ids) == 0 {
						continue
					}
					task := fixtureTask{session: c.Session[:8], issues: ids, from: math.MaxInt, to: call.Line}
					for _, id := range ids {
						if l, ok := started[id]; ok {
							task.from = min(task.from, l)
						}
						if specs[id] == "" {
							t.Fatalf("%s: %s closed without its spec shown", c.Session, id)
						}
						task.spec += specs[id]
					}
					if task.from == math.MaxInt {
						t.Fatalf("%s: %v closed but never started", c.Session, ids)
					}
					task.specTokens = Tokens(task.spec)
					task.consumed = FromSession(s, task.specTokens, task.from, task.to)
					tasks = append(tasks, task)
				}
			}
		}
	}
	return tasks
}

// bdCommands picks the bd invocations out of a shell command line: each
// is its subcommand and arguments, up to the next shell operator.
func bdCommands(line string) [][]string {
	var out [][]string
	words := strings.Fields(line)
	for i := 0; i+1 < len(words); i++ {
		if words[i] != "bd" {
			continue
		}
		cmd := []string{words[i+1]}
		for _, w := range words[i+2:] {
			if w == "&&" || w == ";" || w == "|" || w == "||" || strings.HasPrefix(w, "2>") {
				break
			}
			cmd = append(cmd, strings.TrimSuffix(w, ";"))
			if strings.HasSuffix(w, ";") {
				break
			}
		}
		out = append(out, cmd)
	}
	return out
}

// subtasks are the arguments that name subtasks (epic.N), not flags or
// epics.
func subtasks(args []string) []string {
	var ids []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			break
		}
		if strings.Contains(a, ".") {
			ids = append(ids, a)
		}
	}
	return ids
}

// toolResults maps tool_use ids to their results' text, read with
// encoding/json: the engine keeps no result bodies.
func toolResults(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var e struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Type != "user" || len(e.Message.Content) == 0 || e.Message.Content[0] != '[' {
			continue
		}
		var blocks []struct {
			Type    string          `json:"type"`
			ToolID  string          `json:"tool_use_id"`
			Content json.RawMessage `json:"content"`
		}
		json.Unmarshal(e.Message.Content, &blocks)
		for _, b := range blocks {
			if b.Type != "tool_result" {
				continue
			}
			var text string
			if json.Unmarshal(b.Content, &text) != nil {
				var parts []struct {
					Text string `json:"text"`
				}
				json.Unmarshal(b.Content, &parts)
				for _, p := range parts {
					text += p.Text
				}
			}
			out[b.ToolID] = text
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDefaultRatioFromFixtures derives the default model from the real
// sessions and checks it against the constants. Run it with -v for the
// table of tasks.
func TestDefaultRatioFromFixtures(t *testing.T) {
	tasks := fixtureTasks(t)
	var ratios []float64
	t.Logf("%-8s %-28s %6s %6s %8s %6s  %s", "session", "issues", "from", "to", "spec", "ratio", "signals")
	for _, k := range tasks {
		ratios = append(ratios, k.ratio())
		sig := CountSignals(k.spec)
		t.Logf("%-8s %-28s %6d %6d %8d %6.1f  paths %d, code %d, checklist %d, items %d, consumed %d",
			k.session, strings.Join(k.issues, ","), k.from, k.to, k.specTokens, k.ratio(), sig.Paths, sig.CodeBlocks, sig.Checklist, sig.ListItems, k.consumed)
	}
	got := FromRatios(ratios, "default")
	t.Logf("median %.1f, p10 %.1f, p90 %.1f over %d tasks", got.Ratio, got.Low, got.High, got.Samples)
	want := Default()
	if got.Ratio != want.Ratio || got.Low != want.Low || got.High != want.High || got.Samples != want.Samples {
		t.Errorf("fixtures give ratio %.1f (%.1f-%.1f) over %d tasks; the constants say %.1f (%.1f-%.1f) over %d: update DefaultRatio, DefaultLow, DefaultHigh and DefaultSamples",
			got.Ratio, got.Low, got.High, got.Samples, want.Ratio, want.Low, want.High, want.Samples)
	}
}

// TestSignalsDoNotPredictRatio is why Signals do not weigh on the
// estimate: over the fixtures' tasks, the rank correlation between a
// signal's density and the ratio is weak. Should a signal come to predict
// it (|rho| >= 0.5), this fails, and the estimate may use it.
func TestSignalsDoNotPredictRatio(t *testing.T) {
	tasks := fixtureTasks(t)
	signals := map[string]func(Signals) int{
		"paths":      func(s Signals) int { return s.Paths },
		"code":       func(s Signals) int { return s.CodeBlocks },
		"checklist":  func(s Signals) int { return s.Checklist },
		"list items": func(s Signals) int { return s.ListItems },
	}
	names := make([]string, 0, len(signals))
	for n := range signals {
		names = append(names, n)
	}
	sort.Strings(names)
	var ratios []float64
	for _, k := range tasks {
		ratios = append(ratios, k.ratio())
	}
	for _, n := range names {
		var density []float64
		for _, k := range tasks {
			density = append(density, 1000*float64(signals[n](CountSignals(k.spec)))/float64(k.specTokens))
		}
		rho := spearman(density, ratios)
		t.Logf("%-10s per 1K spec tokens vs ratio: Spearman rho %+.2f", n, rho)
		if math.Abs(rho) >= 0.5 {
			t.Errorf("%s predicts the ratio (rho %+.2f): consider weighing it in the estimate", n, rho)
		}
	}
}

// spearman is the rank correlation of xs and ys (ties take their mean rank).
func spearman(xs, ys []float64) float64 {
	rx, ry := ranks(xs), ranks(ys)
	var mx, my float64
	for i := range rx {
		mx += rx[i]
		my += ry[i]
	}
	mx /= float64(len(rx))
	my /= float64(len(ry))
	var sxy, sxx, syy float64
	for i := range rx {
		sxy += (rx[i] - mx) * (ry[i] - my)
		sxx += (rx[i] - mx) * (rx[i] - mx)
		syy += (ry[i] - my) * (ry[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	r := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			r[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return r
}
