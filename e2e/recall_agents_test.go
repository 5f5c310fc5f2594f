package e2e

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
)

// The Codex CLI and Gemini CLI recall benches share their table: each
// turns its scenarios and runs into these client-neutral views.

// agentRecallCase is one scenario as a client bench's table shows it.
type agentRecallCase struct {
	Name, Shape string
	Facts       []fact
	Secrets     []secret
	sc          scenario
}

// agentOutcome is what the first request after one compaction carried.
type agentOutcome struct {
	N                     int
	Trigger               string
	Restore, Other        string
	Size                  int // bytes of all the text the model read
	Present, Contradicted map[string]bool
}

// agentRun is one run of a scenario, with cairn or without.
type agentRun struct {
	outcomes []agentOutcome
	leaks    leaks
	took     time.Duration
}

// worst is the run's compaction with the smallest share of facts kept.
func (r agentRun) worst(sc scenario) (agentOutcome, float64) {
	var w agentOutcome
	share := 2.0
	for _, o := range r.outcomes {
		if s := ratio(count(sc, o.Present), len(o.Present)); s < share {
			w, share = o, s
		}
	}
	return w, share
}

// writeAgentRecallTable writes a client bench's table, the goal's verdict,
// the facts lost and where planted secrets went. word names the client's
// compaction ("compaction", "compression"), alone its column without
// cairn ("Codex alone").
func writeAgentRecallTable(b *strings.Builder, word, alone string, cases []agentRecallCase, with, without []agentRun, took time.Duration) {
	fmt.Fprintf(b, "| scenario | shape | facts | with cairn, each %s | with cairn, worst | %s, worst | cairn's text, tokens (restore + other) | 1st request, with - without, tokens | secrets | leaked to cairn's files | leaked in cairn's text | carried by the client |\n", word, alone)
	fmt.Fprintf(b, "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var checked, kept, keptAlone, maxTok, leakFiles, leakText int
	met := true
	worstAll := 2.0
	type loss struct{ class, scenario, fact, how string }
	var lost []loss
	var leakLines []string
	for i, cs := range cases {
		sc := cs.sc
		w, wo := with[i], without[i]
		var each []string
		tok, restoreTok, otherTok := -1, 0, 0
		for _, o := range w.outcomes {
			n, of := count(sc, o.Present), len(o.Present)
			checked += of
			kept += n
			cell := fmt.Sprintf("%s: %d/%d", o.Trigger, n, of)
			if len(w.outcomes) > 1 {
				cell = fmt.Sprintf("c%d %s", o.N, cell)
			}
			each = append(each, cell)
			for _, f := range sc.checkedAt(o.N) {
				if o.Present[f.Name] {
					continue
				}
				how := ""
				if len(w.outcomes) > 1 {
					how = fmt.Sprintf("after %s %d", word, o.N)
				}
				if o.Contradicted[f.Name] {
					how = strings.TrimSpace(how + " contradicted")
				}
				lost = append(lost, loss{factClass(f.Name), cs.Name, f.Name, how})
			}
			if t := checkpoint.Tokens(o.Restore + o.Other); t > tok {
				tok, restoreTok, otherTok = t, checkpoint.Tokens(o.Restore), checkpoint.Tokens(o.Other)
			}
		}
		for _, o := range wo.outcomes {
			keptAlone += count(sc, o.Present)
		}
		wOut, wShare := w.worst(sc)
		_, aShare := wo.worst(sc)
		worstAll = min(worstAll, wShare)
		maxTok = max(maxTok, tok)
		delta := math.Inf(-1)
		for j, o := range w.outcomes {
			if j < len(wo.outcomes) {
				delta = max(delta, float64(o.Size-wo.outcomes[j].Size)/3.5)
			}
		}
		if wShare < recallGoal || tok > maxRestoreTokens {
			met = false
		}
		secrets, files, text, client, lines := leakCells(cs.Name, cs.Secrets, w.leaks)
		leakLines = append(leakLines, lines...)
		if len(cs.Secrets) > 0 {
			leakFiles += len(w.leaks.Files)
			leakText += len(w.leaks.Cairn)
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %.0f%% | %d (%d + %d) | %+d | %s | %s | %s | %s |\n",
			cs.Name, cs.Shape, len(cs.Facts), strings.Join(each, "; "),
			fmt.Sprintf("%d/%d (%.0f%%)", count(sc, wOut.Present), len(wOut.Present), 100*wShare),
			100*aShare, tok, restoreTok, otherTok, int(math.Round(delta)), secrets, files, text, client)
	}
	fmt.Fprintf(b, "| **all** | | | **%d/%d (%.1f%%)** | worst %.0f%% | %d/%d (%.1f%%) | max %d | | | %d | %d | |\n\n",
		kept, checked, 100*ratio(kept, checked), 100*min(worstAll, 1), keptAlone, checked, 100*ratio(keptAlone, checked), maxTok, leakFiles, leakText)
	verdict := "met"
	if !met {
		verdict = "NOT met"
	}
	fmt.Fprintf(b, "Goal (at least %.0f%% of the planted facts in the first request after every %s of every scenario, at most %d tokens added): **%s**.\n",
		100*recallGoal, word, maxRestoreTokens, verdict)
	leakVerdict := "none"
	if leakFiles+leakText > 0 {
		leakVerdict = fmt.Sprintf("**%d in cairn's files, %d in cairn's text**", leakFiles, leakText)
	}
	fmt.Fprintf(b, "Secrets leaked by cairn: %s.\n", leakVerdict)
	if len(lost) > 0 {
		slices.SortStableFunc(lost, func(a, b loss) int { return strings.Compare(a.class, b.class) })
		fmt.Fprintf(b, "\nFacts missing from the first request after a %s with cairn installed, by class:\n\n", word)
		fmt.Fprintf(b, "| class | scenario | fact | |\n|---|---|---|---|\n")
		for _, l := range lost {
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", l.class, l.scenario, l.fact, l.how)
		}
	}
	if len(leakLines) > 0 {
		fmt.Fprintf(b, "\nWhere planted secrets went:\n")
		for _, l := range leakLines {
			fmt.Fprintf(b, "- %s\n", l)
		}
	}
	var slowest time.Duration
	for i := range cases {
		slowest = max(slowest, with[i].took, without[i].took)
	}
	fmt.Fprintf(b, "\n%d runs in %s (the slowest %s).\n", 2*len(cases), took.Round(time.Second), slowest.Round(time.Second))
}

// playWithAndWithout plays every scenario twice in parallel subtests of
// a "runs" subtest, with cairn installed and without, and returns the
// runs in the scenarios' order; it fails t when a run failed.
func playWithAndWithout[S, R any](t *testing.T, scs []S, name func(S) string, play func(*testing.T, S, bool) R) (with, without []R) {
	var mu sync.Mutex
	with, without = make([]R, len(scs)), make([]R, len(scs))
	t.Run("runs", func(t *testing.T) {
		for i, sc := range scs {
			for _, installed := range []bool{true, false} {
				n := name(sc) + "/without-cairn"
				if installed {
					n = name(sc) + "/with-cairn"
				}
				t.Run(n, func(t *testing.T) {
					t.Parallel()
					r := play(t, sc, installed)
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
	if t.Failed() {
		t.Fatal("a run failed: no report")
	}
	return with, without
}
