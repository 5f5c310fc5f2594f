package ledger

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/fixtures"
)

// label is one hand-labelled open item (testdata/labels/README.md).
type label struct {
	lines   []int
	speaker string
	kind    string
	text    string
}

func readLabels(t *testing.T, dir, session string) []label {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", dir, session[:8]+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []label
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		s := sc.Text()
		if strings.TrimSpace(s) == "" || strings.HasPrefix(s, "#") {
			continue
		}
		parts := strings.SplitN(s, "\t", 4)
		if len(parts) != 4 {
			t.Fatalf("%s: bad label line %q", session[:8], s)
		}
		var l label
		for _, n := range strings.Split(parts[0], ",") {
			v, err := strconv.Atoi(strings.TrimSpace(n))
			if err != nil {
				t.Fatalf("%s: bad line number in %q", session[:8], s)
			}
			l.lines = append(l.lines, v)
		}
		l.speaker, l.kind, l.text = parts[1], parts[2], parts[3]
		out = append(out, l)
	}
	return out
}

// evalWords are the words of ≥ 4 letters of a text, lowered, minus a few
// that every item here shares. The evaluation's own, deliberately simple
// tokeniser: it shares no code with the ledger's matching.
func evalWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		switch w {
		case "spotter", "still", "with", "that", "this", "from", "into", "them", "they", "work", "bead":
			continue
		}
		if len(w) >= 4 {
			out[w] = true
		}
	}
	return out
}

// labelMatches is the matching rule of the measurement: an open item
// matches a label when the same speaker stated it on one of the lines the
// label gives (its first statement or a restatement) and the two texts
// share at least one word of four letters or more (which tells apart the
// items of one list, all stated on the same line).
func labelMatches(it Item, l label) bool {
	if it.By != l.speaker {
		return false
	}
	onLine := false
	for _, n := range l.lines {
		onLine = onLine || n == it.Line || n == it.FirstLine
	}
	if !onLine {
		return false
	}
	a, b := evalWords(it.Text), evalWords(l.text)
	for w := range a {
		if b[w] {
			return true
		}
	}
	return false
}

type score struct {
	session                   string
	labels, toolLabels, items int
	correct, recalled, dupes  int
	missed                    []label
	wrong                     []Item
	closed                    []Item
}

func shared(a, b map[string]bool) int {
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return n
}

func (s score) precision() float64 { return ratio(s.correct, s.items) }
func (s score) recall() float64    { return ratio(s.recalled, s.labels) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// scoreSession feeds a fixture up to its compaction and compares the
// ledger's open items with the labels. An item is correct when it matches
// a label no earlier item matched (a duplicate counts as wrong); a label
// is recalled when some item matches it. Labels only a tool call shows
// (speaker "tool") are counted apart: the ledger reads texts.
func scoreSession(t *testing.T, session string, atCompaction bool) score {
	dir := "labels"
	if !atCompaction {
		dir = filepath.Join("labels", "end")
	}
	labels := readLabels(t, dir, session)
	var l Ledger
	feed(&l, readEvents(t, fixturePath(t, session)), atCompaction)
	s := score{session: session[:8]}
	var text []label
	for _, lb := range labels {
		if lb.speaker == "tool" {
			s.toolLabels++
			continue
		}
		text = append(text, lb)
	}
	s.labels = len(text)
	claimed := make([]bool, len(text))
	for _, it := range l.Open() {
		s.items++
		// The item claims the unclaimed label it shares most words with.
		best, bestN, any := -1, 0, false
		for i, lb := range text {
			if !labelMatches(it, lb) {
				continue
			}
			any = true
			if n := shared(evalWords(it.Text), evalWords(lb.text)); !claimed[i] && n > bestN {
				best, bestN = i, n
			}
		}
		switch {
		case best >= 0:
			claimed[best] = true
			s.correct++
		case any:
			s.dupes++
			s.wrong = append(s.wrong, it)
		default:
			s.wrong = append(s.wrong, it)
		}
	}
	s.closed = l.Closed()
	for i, c := range claimed {
		if c {
			s.recalled++
		} else {
			s.missed = append(s.missed, text[i])
		}
	}
	return s
}

// Figures reported in docs/recall.md ("Open-items ledger"). The test fails
// when the ledger does worse than these by more than the margin.
var reported = map[string]struct{ precision, recall float64 }{
	"compaction": {1.00, 0.80},
	"end":        {1.00, 0.50},
}

const margin = 0.05

// TestLabelled measures the ledger against the hand labels of the five
// real sessions, just before their compaction and at the end of the
// transcript (across the compaction), and prints the tables of
// docs/recall.md with -v.
func TestLabelled(t *testing.T) {
	for _, point := range []string{"compaction", "end"} {
		t.Run(point, func(t *testing.T) {
			var all score
			var b strings.Builder
			b.WriteString("| session | labels (text) | labels (tool only) | open items | correct | duplicates | precision | recall |\n")
			b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|\n")
			for _, c := range fixtures.Compactions {
				s := scoreSession(t, c.Session, point == "compaction")
				fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %s | %s |\n", s.session, s.labels, s.toolLabels, s.items, s.correct, s.dupes, pct(s.correct, s.items), pct(s.recalled, s.labels))
				all.labels += s.labels
				all.toolLabels += s.toolLabels
				all.items += s.items
				all.correct += s.correct
				all.dupes += s.dupes
				all.recalled += s.recalled
				for _, m := range s.missed {
					t.Logf("%s missed: %v %s %s", s.session, m.lines, m.speaker, m.text)
				}
				if testing.Verbose() && os.Getenv("LEDGER_DEBUG") != "" {
					for _, c := range s.closed {
						t.Logf("%s closed: line %d %s %s: %s  <= %s line %d: %s", s.session, c.Line, c.By, c.Kind, c.Text, c.Closed.By, c.Closed.Line, c.Closed.Evidence)
					}
				}
				for _, w := range s.wrong {
					t.Logf("%s not labelled: line %d (first %d) %s %s: %s", s.session, w.Line, w.FirstLine, w.By, w.Kind, w.Text)
				}
			}
			fmt.Fprintf(&b, "| **all** | %d | %d | %d | %d | %d | **%s** | **%s** |\n", all.labels, all.toolLabels, all.items, all.correct, all.dupes, pct(all.correct, all.items), pct(all.recalled, all.labels))
			t.Log("\n" + b.String())
			want := reported[point]
			if all.precision() < want.precision-margin || all.recall() < want.recall-margin {
				t.Errorf("precision %.2f, recall %.2f: below the reported %.2f and %.2f (margin %.2f)", all.precision(), all.recall(), want.precision, want.recall, margin)
			}
		})
	}
}

func pct(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%% (%d/%d)", 100*float64(a)/float64(b), a, b)
}
