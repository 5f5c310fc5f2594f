package e2e

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/e2e/claudecode"
	"github.com/cairn-agent/cairn/internal/checkpoint"
)

// recallGoal is the goal: this share of planted facts in the first
// request after a compaction, with at most maxRestoreTokens added.
const recallGoal = 0.95

// recallRun is one run of a scenario for the report.
type recallRun struct {
	ok       bool
	outcomes []outcome
	leaks    leaks
	took     time.Duration
}

// worst is the outcome with the smallest share of the facts checked after
// it, and that share.
func (r recallRun) worst(sc scenario) (outcome, float64) {
	var w outcome
	share := 2.0
	for _, o := range r.outcomes {
		if s := ratio(count(sc, o.Present), len(o.Present)); s < share {
			w, share = o, s
		}
	}
	return w, share
}

// maxTokens is the most cairn added to a first request after a compaction
// and the outcome where it did.
func (r recallRun) maxTokens() (int, outcome) {
	n, at := -1, outcome{}
	for _, o := range r.outcomes {
		if t := checkpoint.Tokens(o.CairnText()); t > n {
			n, at = t, o
		}
	}
	return n, at
}

// playRecall runs a scenario once, with cairn installed or not, and
// gathers what the report needs. It fails t when the run itself breaks.
func playRecall(t *testing.T, sc scenario, installed bool) recallRun {
	t.Helper()
	began := time.Now()
	s := newProject(t, sc.Files)
	if installed {
		installCairn(t, s)
	}
	p := newPlay(t, sc, s)
	p.mustRun(t)
	checkBoundary(t, p)
	r := recallRun{ok: true, outcomes: p.outcomes(t)}
	if installed {
		l, err := findLeaks(p, sc.Secrets, p.written())
		if err != nil {
			t.Fatal(err)
		}
		r.leaks = l
	}
	if dir := os.Getenv("CAIRN_E2E_DUMP"); dir != "" {
		dumpRecall(t, filepath.Join(dir, sc.Name+map[bool]string{true: "-with", false: "-without"}[installed]), r)
	}
	r.took = time.Since(began)
	return r
}

// dumpRecall writes the first request after each compaction, as text, with
// which facts it carried, for reading what reached the model.
func dumpRecall(t *testing.T, dir string, r recallRun) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Log(err)
		return
	}
	for _, o := range r.outcomes {
		var b strings.Builder
		for _, name := range slices.Sorted(maps.Keys(o.Present)) {
			fmt.Fprintf(&b, "%v\t%s\n", o.Present[name], name)
		}
		fmt.Fprintf(&b, "\ncairn's text: %d tokens\n\n%s\n", checkpoint.Tokens(o.CairnText()), o.FirstText)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("c%d.txt", o.N)), []byte(b.String()), 0o644); err != nil {
			t.Log(err)
		}
	}
}

// recallReportScenarios are the recall bench's scenarios (TestRecallReport,
// TestRecallReplay): recallScenarios, the held-out ones, then the blind
// sets in the order they were written. A new set is added here.
func recallReportScenarios() []scenario {
	scs := append(append(append(recallScenarios(), heldOutScenarios()...), blindScenarios()...), blind3Scenarios()...)
	for _, more := range []func() []scenario{blind4Scenarios, blind5Scenarios, blind6Scenarios, blind7Scenarios,
		blind8Scenarios, blind9Scenarios, blind10Scenarios, blind11Scenarios, blind12Scenarios, blind13Scenarios,
		blind14Scenarios, blind15Scenarios, blind16Scenarios, blind17Scenarios, blind18Scenarios, blind19Scenarios} {
		scs = append(scs, more()...)
	}
	return scs
}

// TestRecallReport is the recall benchmark (bench/recall.sh): every
// scenario of recallScenarios, then the held-out ones (heldOutScenarios,
// recall_heldout_test.go; blindScenarios, recall_blind_test.go), with
// cairn installed and without, and a
// Markdown table, written to $CAIRN_RECALL_REPORT, of the planted facts
// the first request after each compaction carries, what cairn added to
// it, and where planted secrets went. It runs only when
// CAIRN_RECALL_REPORT is set; it fails when a run breaks, not when the
// goal is missed (the table says so).
func TestRecallReport(t *testing.T) {
	out := os.Getenv("CAIRN_RECALL_REPORT")
	if out == "" {
		t.Skip("set CAIRN_RECALL_REPORT=FILE to run the recall benchmark (bench/recall.sh)")
	}
	scs := recallReportScenarios()
	var mu sync.Mutex
	with := make([]recallRun, len(scs))
	without := make([]recallRun, len(scs))
	start := time.Now()
	t.Run("runs", func(t *testing.T) {
		for i, sc := range scs {
			for _, installed := range []bool{true, false} {
				name := sc.Name + "/without-cairn"
				if installed {
					name = sc.Name + "/with-cairn"
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					r := playRecall(t, sc, installed)
					mu.Lock()
					defer mu.Unlock()
					if installed {
						with[i] = r
					} else {
						without[i] = r
					}
				})
			}
		}
	})
	report := recallMarkdown(scs, with, without, time.Since(start))
	if err := os.WriteFile(out, []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recall report written to %s:\n%s", out, report)
}

// recallMarkdown renders the report.
func recallMarkdown(scs []scenario, with, without []recallRun, took time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# cairn recall benchmark\n\n")
	if c := os.Getenv("CAIRN_RECALL_COMMIT"); c != "" {
		fmt.Fprintf(&b, "Produced by `bench/recall.sh` on commit %s.\n\n", c)
	}
	fmt.Fprintf(&b, "Real Claude Code %s against the scripted fake API; the compaction summary is deliberately poor:\n`%s`.\n", claudecode.Version, strings.ReplaceAll(poorSummary, "\n", `\n`))
	fmt.Fprintf(&b, "Each scenario runs twice, with cairn installed and without (Claude Code alone). Its facts are planted before a compaction;\n")
	fmt.Fprintf(&b, "each is checked in the first request after that compaction and after every later one (unless it stopped being true).\n")
	fmt.Fprintf(&b, "A fact counts when the text of that request's messages (system prompt excluded) matches it and makes no claim that\n")
	fmt.Fprintf(&b, "contradicts it (a piped test run that printed failures reported as exit 0 counts as lost).\n")
	fmt.Fprintf(&b, "\"cairn's text\" is what cairn's hooks added to that request: the restore, and other (advisories, notes, the steering\n")
	fmt.Fprintf(&b, "echoed after /compact); the largest over the scenario's compactions, in cairn's estimate, ceil(bytes / 3.5) (checkpoint.Tokens).\n")
	fmt.Fprintf(&b, "Secrets are counted once each: found in cairn's files (its state and data dirs, HOME, and the project but for .git and\n")
	fmt.Fprintf(&b, "the files the test or the agent wrote), found in cairn's text in any request, and, not cairn's doing, carried by the\n")
	fmt.Fprintf(&b, "client itself after the compaction (its preserved messages and re-read files).\n\n")
	fmt.Fprintf(&b, "| scenario | shape | facts | with cairn, each compaction | with cairn, worst | Claude Code alone, worst | cairn's text, tokens (restore + other) | 1st request, with - without, tokens | secrets | leaked to cairn's files | leaked in cairn's text | carried by the client |\n")
	fmt.Fprintf(&b, "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var checked, kept, keptAlone, maxTok, leakFiles, leakText int
	met := true
	worstAll := 2.0
	type loss struct{ class, scenario, fact, how string }
	var lost []loss
	var contradictions []string
	var leakLines []string
	for i, sc := range scs {
		w, wo := with[i], without[i]
		if !w.ok || !wo.ok {
			fmt.Fprintf(&b, "| %s | %s | %d | run failed | | | | | | | | |\n", sc.Name, sc.Shape, len(sc.Facts))
			met = false
			continue
		}
		var each []string
		for _, o := range w.outcomes {
			n, of := count(sc, o.Present), len(o.Present)
			checked += of
			kept += n
			cell := fmt.Sprintf("%d/%d", n, of)
			if len(w.outcomes) > 1 {
				cell = fmt.Sprintf("c%d %s: %s", o.N, o.Trigger, cell)
			} else {
				cell = o.Trigger + ": " + cell
			}
			if o.FirstCopies != 1 {
				where := "never"
				if o.ArrivedAt > 0 {
					where = fmt.Sprintf("in request %d (%s)", o.ArrivedAt, o.ArrivedVia)
				}
				cell += fmt.Sprintf(" (restore %s)", where)
			}
			each = append(each, cell)
			for _, f := range sc.checkedAt(o.N) {
				if o.Present[f.Name] {
					continue
				}
				how := ""
				if len(w.outcomes) > 1 {
					how = fmt.Sprintf("after compaction %d", o.N)
				}
				if o.Contradicted[f.Name] {
					how = strings.TrimSpace(how + " contradicted")
				}
				lost = append(lost, loss{factClass(f.Name), sc.Name, f.Name, how})
			}
			for name := range o.Contradicted {
				contradictions = append(contradictions, fmt.Sprintf("%s, compaction %d, with cairn: %s", sc.Name, o.N, name))
			}
		}
		for _, o := range wo.outcomes {
			keptAlone += count(sc, o.Present)
			for name := range o.Contradicted {
				contradictions = append(contradictions, fmt.Sprintf("%s, compaction %d, Claude Code alone: %s", sc.Name, o.N, name))
			}
		}
		wOut, wShare := w.worst(sc)
		_, aShare := wo.worst(sc)
		worstAll = min(worstAll, wShare)
		tok, at := w.maxTokens()
		maxTok = max(maxTok, tok)
		delta := math.Inf(-1)
		for j, o := range w.outcomes {
			if j < len(wo.outcomes) {
				delta = max(delta, float64(o.First.Size-wo.outcomes[j].First.Size)/3.5)
			}
		}
		if wShare < recallGoal || tok > maxRestoreTokens {
			met = false
		}
		secrets, files, text, client, lines := leakCells(sc.Name, sc.Secrets, w.leaks)
		leakLines = append(leakLines, lines...)
		if len(sc.Secrets) > 0 {
			leakFiles += len(w.leaks.Files)
			leakText += len(w.leaks.Cairn)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %.0f%% | %d (%d + %d) | %+d | %s | %s | %s | %s |\n",
			sc.Name, sc.Shape, len(sc.Facts), strings.Join(each, "; "),
			fmt.Sprintf("%d/%d (%.0f%%)", count(sc, wOut.Present), len(wOut.Present), 100*wShare),
			100*aShare, tok, checkpoint.Tokens(at.Restore), checkpoint.Tokens(at.Steer+at.Hooks),
			int(math.Round(delta)), secrets, files, text, client)
	}
	fmt.Fprintf(&b, "| **all** | | | **%d/%d (%.1f%%)** | worst %.0f%% | %d/%d (%.1f%%) | max %d | | | %d | %d | |\n\n",
		kept, checked, 100*ratio(kept, checked), 100*min(worstAll, 1), keptAlone, checked, 100*ratio(keptAlone, checked), maxTok, leakFiles, leakText)
	verdict := "met"
	if !met {
		verdict = "NOT met"
	}
	fmt.Fprintf(&b, "Goal (at least %.0f%% of the planted facts in the first request after every compaction of every scenario, at most %d tokens added): **%s**.\n",
		100*recallGoal, maxRestoreTokens, verdict)
	leakVerdict := "none"
	if leakFiles+leakText > 0 {
		leakVerdict = fmt.Sprintf("**%d in cairn's files, %d in cairn's text**", leakFiles, leakText)
	}
	fmt.Fprintf(&b, "Secrets leaked by cairn: %s.\n", leakVerdict)

	if len(lost) > 0 {
		slices.SortStableFunc(lost, func(a, b loss) int { return strings.Compare(a.class, b.class) })
		fmt.Fprintf(&b, "\nFacts missing from the first request after a compaction with cairn installed, by class:\n\n")
		fmt.Fprintf(&b, "| class | scenario | fact | |\n|---|---|---|---|\n")
		for _, l := range lost {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", l.class, l.scenario, l.fact, l.how)
		}
	}
	if len(contradictions) > 0 {
		slices.Sort(contradictions)
		fmt.Fprintf(&b, "\nContradicted facts (the request claims the opposite):\n")
		for _, c := range contradictions {
			fmt.Fprintf(&b, "- %s\n", c)
		}
	}
	if len(leakLines) > 0 {
		fmt.Fprintf(&b, "\nWhere planted secrets went:\n")
		for _, l := range leakLines {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	var runs int
	var slowest time.Duration
	for i := range scs {
		runs += 2
		slowest = max(slowest, with[i].took, without[i].took)
	}
	fmt.Fprintf(&b, "\n%d runs in %s (the slowest %s).\n", runs, took.Round(time.Second), slowest.Round(time.Second))
	return b.String()
}

// factClass groups facts by what kind of working state they are, from
// their names, so the report can say which kinds a restore loses.
func factClass(name string) string {
	for _, c := range []struct{ has, class string }{
		{"subagent's piped", "piped test outcome"},
		{"piped command", "piped test outcome"},
		{"subagent", "subagent finding"},
		{"open thread", "open thread"},
		{"next step", "open thread"},
		{"open todo", "todo"},
		{"open task", "todo"},
		{"key file", "key file read"},
		{"finding", "finding"},
		{"constraint", "constraint"},
		{"ticket", "task"},
		{"decision", "decision"},
		{"command", "command outcome"},
		{"failure", "command outcome"},
		{"failing", "command outcome"},
		{"file", "file changed"},
	} {
		if strings.Contains(name, c.has) {
			return c.class
		}
	}
	return "other"
}

func ratio(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// leakCells are a report row's secret cells (planted, in cairn's files, in
// cairn's text, carried by the client; "–" each when none was planted) and
// the lines saying where each planted secret went.
func leakCells(name string, secrets []secret, l leaks) (planted, files, text, client string, lines []string) {
	if len(secrets) == 0 {
		return "–", "–", "–", "–", nil
	}
	for _, sec := range secrets {
		if fs := l.Files[sec.Value]; len(fs) > 0 {
			lines = append(lines, fmt.Sprintf("%s: %s in cairn's files: %s", name, sec.Family, strings.Join(fs, ", ")))
		}
		if rs := l.Cairn[sec.Value]; len(rs) > 0 {
			lines = append(lines, fmt.Sprintf("%s: %s in cairn's text in requests %s", name, sec.Family, strings.Join(rs, ", ")))
		}
		if rs := l.Client[sec.Value]; len(rs) > 0 {
			lines = append(lines, fmt.Sprintf("%s: %s carried by the client itself (not cairn's) in requests %s", name, sec.Family, strings.Join(rs, ", ")))
		}
	}
	return fmt.Sprint(len(secrets)), fmt.Sprint(len(l.Files)), fmt.Sprint(len(l.Cairn)), fmt.Sprint(len(l.Client)), lines
}
