package ledger

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// TestLabelledBaseline scores what the checkpoint keeps today of the open
// thread, with the same labels and the same matching rule as TestLabelled,
// at the compaction point: its "Next steps" (read from the last assistant
// texts only) and the prompts its Task section quotes (the first and the
// latest three). The figure the ledger is meant to improve on.
func TestLabelledBaseline(t *testing.T) {
	var all score
	var b strings.Builder
	b.WriteString("| session | labels (text) | next steps and quoted prompts | correct | precision | recall |\n|---|---:|---:|---:|---:|---:|\n")
	for _, c := range fixtures.Compactions {
		path := fixturePath(t, c.Session)
		cut := beforeCompaction(t, path)
		s := transcript.New(cut)
		var p transcript.Parser
		if err := s.ReadSerial(&p); err != nil {
			t.Fatal(err)
		}
		cp := checkpoint.Build(s, checkpoint.Input{Now: time.Now()})
		// The steps come from the newest text that has any: give each
		// the line of the text it is in.
		var items []Item
		for _, step := range cp.NextSteps {
			it := Item{Text: step, By: ByAssistant}
			for _, n := range s.LastTexts {
				if strings.Contains(n.Text, strings.TrimSuffix(step, "…")) {
					it.Line = n.Line
				}
			}
			items = append(items, it)
		}
		for _, pr := range s.Prompts {
			quoted := strings.HasPrefix(pr.Text, strings.TrimSuffix(cp.Task.First, "…"))
			for _, l := range cp.Task.Latest {
				quoted = quoted || strings.HasPrefix(pr.Text, strings.TrimSuffix(l, "…"))
			}
			if quoted && cp.Task.First != "" || quoted && len(cp.Task.Latest) > 0 {
				items = append(items, Item{Text: pr.Text, By: ByUser, Line: pr.Line})
			}
		}
		var text []label
		for _, lb := range readLabels(t, "labels", c.Session) {
			if lb.speaker != "tool" {
				text = append(text, lb)
			}
		}
		claimed := make([]bool, len(text))
		correct := 0
		for _, it := range items {
			for i, lb := range text {
				if !claimed[i] && labelMatches(it, lb) {
					claimed[i] = true
					correct++
					break
				}
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %s |\n", c.Session[:8], len(text), len(items), correct, pct(correct, len(items)), pct(correct, len(text)))
		all.labels += len(text)
		all.items += len(items)
		all.correct += correct
	}
	fmt.Fprintf(&b, "| **all** | %d | %d | %d | **%s** | **%s** |\n", all.labels, all.items, all.correct, pct(all.correct, all.items), pct(all.correct, all.labels))
	t.Log("\n" + b.String())
}

// beforeCompaction writes the lines of a transcript before its first
// compact_boundary to a file of their own and returns its path.
func beforeCompaction(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"subtype":"compact_boundary"`) {
			break
		}
		out.WriteString(sc.Text())
		out.WriteByte('\n')
	}
	cut := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(cut, []byte(out.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return cut
}
