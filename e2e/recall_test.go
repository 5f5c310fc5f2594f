package e2e

import (
	"fmt"
	"math"
	"os"
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

// TestRecallReport is the recall benchmark (bench/recall.sh): every
// scenario of recallScenarios with cairn installed and without, and a
// Markdown table, written to $CAIRN_RECALL_REPORT, of the planted facts
// the first request after the compaction carries and what cairn added to
// it. It runs only when CAIRN_RECALL_REPORT is set; it fails when a run
// breaks, not when the goal is missed (the table says so).
func TestRecallReport(t *testing.T) {
	out := os.Getenv("CAIRN_RECALL_REPORT")
	if out == "" {
		t.Skip("set CAIRN_RECALL_REPORT=FILE to run the recall benchmark (bench/recall.sh)")
	}
	scs := recallScenarios()
	type result struct {
		o    outcome
		ok   bool
		took time.Duration
	}
	var mu sync.Mutex
	with := make([]result, len(scs))
	without := make([]result, len(scs))
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
					began := time.Now()
					s := newProject(t, sc.Files)
					if installed {
						installCairn(t, s)
					}
					p := newPlay(t, sc, s)
					p.mustRun(t)
					checkBoundary(t, p)
					r := result{o: p.outcome(t), ok: true, took: time.Since(began)}
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

	var b strings.Builder
	fmt.Fprintf(&b, "# cairn recall benchmark\n\n")
	fmt.Fprintf(&b, "Real Claude Code %s against the scripted fake API; the compaction summary is deliberately poor:\n`%s`.\n", claudecode.Version, strings.ReplaceAll(poorSummary, "\n", `\n`))
	fmt.Fprintf(&b, "A fact counts when the text of the messages of the request (system prompt excluded) matches it.\n")
	fmt.Fprintf(&b, "Tokens are cairn's estimate, ceil(bytes / 3.5) (checkpoint.Tokens).\n\n")
	fmt.Fprintf(&b, "| scenario | facts | with cairn, 1st request after compaction | without cairn | restore arrived in | with cairn, in the request carrying the restore | restore, tokens | cairn text in 1st request (restore + steering echo), tokens | 1st request size, with - without, tokens |\n")
	fmt.Fprintf(&b, "|---|---:|---:|---:|---|---:|---:|---:|---:|\n")
	var totFacts, totWith, totWithout, totArrived, maxTokens, maxArrived int
	var missed []string
	for i, sc := range scs {
		w, wo := with[i], without[i]
		if !w.ok || !wo.ok {
			fmt.Fprintf(&b, "| %s | %d | run failed | run failed | | | | | |\n", sc.Name, len(sc.Facts))
			continue
		}
		n := len(sc.Facts)
		nw, nwo := count(sc, w.o.Present), count(sc, wo.o.Present)
		arrived, nArr := "never", 0
		if w.o.ArrivedAt > 0 {
			arrived = fmt.Sprintf("request %d after (%s)", w.o.ArrivedAt, w.o.ArrivedVia)
			nArr = count(sc, w.o.ArrivedPresent)
		}
		tok := checkpoint.Tokens(w.o.CairnText())
		delta := float64(w.o.First.Size-wo.o.First.Size) / 3.5
		fmt.Fprintf(&b, "| %s | %d | %d (%.0f%%) | %d (%.0f%%) | %s | %d (%.0f%%) | %d | %d (%d + %d) | %+d |\n",
			sc.Name, n, nw, pct(nw, n), nwo, pct(nwo, n), arrived, nArr, pct(nArr, n), checkpoint.Tokens(w.o.ArrivedRestore),
			tok, checkpoint.Tokens(w.o.Restore), checkpoint.Tokens(w.o.Steer), int(math.Round(delta)))
		totFacts += n
		totWith += nw
		totWithout += nwo
		totArrived += nArr
		maxTokens = max(maxTokens, tok)
		maxArrived = max(maxArrived, checkpoint.Tokens(w.o.ArrivedRestore))
		for _, f := range sc.Facts {
			if !w.o.Present[f.Name] {
				missed = append(missed, sc.Name+": "+f.Name)
			}
		}
	}
	fmt.Fprintf(&b, "| **all** | %d | **%d (%.1f%%)** | %d (%.1f%%) | | %d (%.1f%%) | max %d | max %d | |\n\n",
		totFacts, totWith, pct(totWith, totFacts), totWithout, pct(totWithout, totFacts), totArrived, pct(totArrived, totFacts), maxArrived, maxTokens)
	met := "met"
	if pct(totWith, totFacts) < 100*recallGoal || maxTokens > maxRestoreTokens {
		met = "NOT met"
	}
	fmt.Fprintf(&b, "Goal (at least %.0f%% of planted facts in the first request after the compaction, at most %d tokens added): **%s**.\n",
		100*recallGoal, maxRestoreTokens, met)
	if len(missed) > 0 {
		fmt.Fprintf(&b, "\nFacts missing from the first request after the compaction with cairn installed:\n")
		for _, m := range missed {
			fmt.Fprintf(&b, "- %s\n", m)
		}
	}
	fmt.Fprintf(&b, "\n%d runs in %s.\n", 2*len(scs), time.Since(start).Round(time.Second))
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recall report written to %s:\n%s", out, b.String())
}

func pct(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}
