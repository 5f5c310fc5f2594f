package memory

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/sqlite"
)

// question is one line of testdata/questions.tsv.
type question struct {
	session, kind, text string
	answer              []string // lower-cased; all must be in what answers
}

func loadQuestions(t testing.TB, name string) []question {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var qs []question
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 4 {
			t.Fatalf("%s:%d: %d columns, want 4", name, n, len(cols))
		}
		q := question{session: cols[0], kind: cols[1], text: cols[2]}
		for _, a := range strings.Split(cols[3], "&&") {
			if a = strings.ToLower(strings.TrimSpace(a)); a != "" {
				q.answer = append(q.answer, a)
			}
		}
		if len(q.answer) == 0 {
			t.Fatalf("%s:%d: no answer", name, n)
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return qs
}

// answers says whether text holds every part of the answer.
func (q question) answers(text string) bool {
	text = strings.ToLower(text)
	for _, a := range q.answer {
		if !strings.Contains(text, a) {
			return false
		}
	}
	return true
}

// observationText is everything an observation says, as Get returns it.
func observationText(o Observation) string {
	return o.Title + "\n" + o.Body + "\n" + strings.Join(o.Files, "\n")
}

// rank is the position (1-based) of the first of the results that answers
// q, 0 when none does.
func rank(q question, texts []string) int {
	for i, s := range texts {
		if q.answers(s) {
			return i + 1
		}
	}
	return 0
}

// score counts questions answered at rank 1 and within the first 5.
type score struct{ at1, at5, n int }

func (s *score) add(r int) {
	s.n++
	if r == 1 {
		s.at1++
	}
	if r >= 1 && r <= 5 {
		s.at5++
	}
}

func (s score) String() string {
	return fmt.Sprintf("hit@1 %2d/%d (%5.1f%%)  hit@5 %2d/%d (%5.1f%%)", s.at1, s.n, pct(s.at1, s.n), s.at5, s.n, pct(s.at5, s.n))
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(b) }

// Floors under the figures measured (docs/benchmarks.md, "Memory" and
// "Retrieval, seventh round"), three below each: a change to the
// extraction or the ranking that loses answers fails here. The dev set
// (questions.tsv) answers 55 of 65 at rank 1 and 62 within the first 5;
// the held-out set (heldout.tsv) 27 of 37 and 34; the blind set
// (heldout2.tsv, written before the edits were observed) 20 of 30 and 27;
// the third blind set (heldout3.tsv, written by someone who had read
// neither this package's code nor its observations) 38 of 58 and 46; the
// fourth (heldout4.tsv, written the same way, with what was left open as
// a kind of its own) 41 of 80 and 63; the fifth (heldout5.tsv, written the
// same way) 45 of 81 and 62. All six were seen when the sixth round's
// finding prior was chosen, and the seventh round's weights were fitted on
// the dev set, the third and the fifth: none is blind any more. The sixth
// blind set (heldout6.tsv, written the same way after the sixth round, on
// main at f52bc5b) answered 37 of 86 and 62 on its first run, before the
// seventh round's weights, which never saw it. The eighth round's file
// reads ("Retrieval, eighth round") moved them to: dev 54 and 61, held
// out 27 and 34, blind 20 and 27, blind 3 38 and 47, blind 4 41 and 63,
// blind 5 47 and 63, blind 6 45 and 68.
// The seventh blind set (heldout7.tsv, written the same way after the
// seventh round, on main at 15ab9ac) answered 37 of 84 and 51 on its first
// run; on the eighth round's file reads, which never saw it, 38 and 53.
// The ninth round ("Retrieval, ninth round": a project the question names,
// numbers beside its words, the user's answers and findings asked for,
// a command line that holds its words, one place for a command and its
// output) moved them to: dev 56 and 61, held out 28 and 34, blind 21 and
// 28, blind 3 38 and 47, blind 4 44 and 65, blind 5 49 and 64, blind 6 46
// and 70, blind 7 41 and 56.
// The eighth blind set (heldout8.tsv, written the same way on 2026-11-25
// on main at b126c5a, before the next ranking change, leaning on fixes,
// decisions, commands and what was left open) answered 33 of 97 and 59 on
// its first run. The tenth round ("Retrieval, tenth round": a reason said
// before a command that changes something kept as a decision, and a
// decision said after an edit of the same file ranked above it; heldout8
// was read) moved them to: dev 56 and 61, held out 28 and 34, blind 22
// and 29, blind 3 38 and 47, blind 4 45 and 67, blind 5 50 and 65, blind
// 6 47 and 72, blind 7 43 and 58, blind 8 36 and 62.
// The ninth blind set (heldout9.tsv, written the same way on 2026-11-25 on
// main at d88bbaa, before the tenth round merged, leaning on fixes,
// decisions, commands, what was being done and what was left open)
// answered 40 of 101 and 70 on its first run.
// Each floor leaves room for ties that reorder.
const (
	minHitAt1 = 53
	minHitAt5 = 58

	minHeldoutAt1 = 25
	minHeldoutAt5 = 31

	minBlindAt1 = 19
	minBlindAt5 = 26

	minBlind3At1 = 35
	minBlind3At5 = 44

	minBlind4At1 = 42
	minBlind4At5 = 64

	minBlind5At1 = 47
	minBlind5At5 = 62

	minBlind6At1 = 44
	minBlind6At5 = 69

	minBlind7At1 = 40
	minBlind7At5 = 55

	minBlind8At1 = 33
	minBlind8At5 = 59

	minBlind9At1 = 37
	minBlind9At5 = 67
)

// TestRetrieval answers the labelled questions of testdata/questions.tsv
// from observations only (the real transcripts replayed through the
// engine, checkpoints and memory as the hooks would), with Search on each
// question's words, and beside it with a plain baseline over the raw
// transcripts (see grepBaseline). Run with -v for the figures and the
// misses.
func TestRetrieval(t *testing.T) {
	// The sets, each reported and held to its floors apart: what was
	// seen while choosing and what was not must not be added up.
	sets := []questionSet{
		{"", "questions.tsv", "the development set", 50, minHitAt1, minHitAt5, nil},
		{"held out", "heldout.tsv", "written before the ranking was tuned", 30, minHeldoutAt1, minHeldoutAt5, nil},
		{"blind", "heldout2.tsv", "written before this round and never used to choose", 20, minBlindAt1, minBlindAt5, nil},
		{"blind 3", "heldout3.tsv", "written without reading the memory code or its observations", 40, minBlind3At1, minBlind3At5, nil},
		{"blind 4", "heldout4.tsv", "written without reading the memory code or its observations", 50, minBlind4At1, minBlind4At5, nil},
		{"blind 5", "heldout5.tsv", "written without reading the memory code or its observations", 50, minBlind5At1, minBlind5At5, nil},
		{"blind 6", "heldout6.tsv", "written without reading the memory code or its observations", 50, minBlind6At1, minBlind6At5, nil},
		{"blind 7", "heldout7.tsv", "written without reading the memory code or its observations", 50, minBlind7At1, minBlind7At5, nil},
		{"blind 8", "heldout8.tsv", "written without reading the memory code or its observations", 50, minBlind8At1, minBlind8At5, nil},
		{"blind 9", "heldout9.tsv", "written without reading the memory code or its observations", 50, minBlind9At1, minBlind9At5, nil},
	}
	for k := range sets {
		set := &sets[k]
		if set.qs = loadQuestions(t, set.file); len(set.qs) < set.least {
			t.Fatalf("%d questions in %s; the set must have at least %d", len(set.qs), set.file, set.least)
		}
	}
	st, fx := fixtureMemory(t)
	ctx := context.Background()
	if src := os.Getenv("CAIRN_MEMORY_DISTRACTORS"); src != "" {
		// The same observations among many others (a database bench/mkmem
		// wrote, copied): how ranking holds up at scale.
		path := filepath.Join(t.TempDir(), "cairn.db")
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		st, fx = fixtureMemoryIn(t, path)
	}

	run := func(qs []question, plain bool) (score, map[string]score, []string) {
		st.plainRanking = plain
		defer func() { st.plainRanking = false }()
		var total score
		byKind := map[string]score{}
		var misses []string
		for _, q := range qs {
			hits, err := st.Search(ctx, Query{Text: q.text, Limit: 5})
			if err != nil {
				t.Fatalf("%q: %v", q.text, err)
			}
			ids := make([]int64, len(hits))
			for i, h := range hits {
				ids[i] = h.ID
			}
			obs, err := st.Get(ctx, ids...)
			if err != nil {
				t.Fatal(err)
			}
			texts := make([]string, len(obs))
			for i, o := range obs {
				texts[i] = observationText(o)
			}
			r := rank(q, texts)
			total.add(r)
			k := byKind[q.kind]
			k.add(r)
			byKind[q.kind] = k
			if r != 1 && os.Getenv("MEMORY_MISSES") != "" && !plain {
				for i, h := range hits {
					fmt.Fprintf(os.Stderr, "   %d %-11s %6.2f %s\n", i+1, h.Kind, h.Score, h.Title)
				}
				fmt.Fprintf(os.Stderr, "^^ rank %d %q want %q\n\n", r, q.text, q.answer)
			}
			if r != 1 {
				top := "nothing"
				if len(hits) > 0 {
					top = fmt.Sprintf("%s %q", hits[0].Kind, hits[0].Title)
				}
				misses = append(misses, fmt.Sprintf("rank %d  %s  %q (want %q); first: %s", r, q.session, q.text, strings.Join(q.answer, " && "), top))
			}
		}
		return total, byKind, misses
	}
	// What any observation holds: a question none answers is lost to
	// extraction, not to ranking.
	all, err := st.db.SearchObservations(ctx, sqlite.ObservationQuery{Limit: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	allIDs := make([]int64, len(all))
	for i, h := range all {
		allIDs[i] = h.ID
	}
	everything, err := st.Get(ctx, allIDs...)
	if err != nil {
		t.Fatal(err)
	}
	stored := func(qs []question) (held int, lost []string) {
		for _, q := range qs {
			if slices.ContainsFunc(everything, func(o Observation) bool { return q.answers(observationText(o)) }) {
				held++
			} else {
				lost = append(lost, fmt.Sprintf("%s %q", q.session, q.text))
			}
		}
		return held, lost
	}
	t.Logf("%d fixture transcripts, %d observations", len(fixtureNames()), len(everything))
	for _, set := range sets {
		held, lost := stored(set.qs)
		mem, byKind, misses := run(set.qs, false)
		plain, _, _ := run(set.qs, true)
		base := grepBaseline(t, fx, set.qs)
		name, prefix := "dev", ""
		if set.name != "" {
			name, prefix = set.name, set.name+" "
		}
		t.Logf("%s: %d questions (testdata/%s), %s; %d answered by some observation", name, len(set.qs), set.file, set.about, held)
		t.Logf("memory, Search (BM25 + kinds asked about)   %s", mem)
		t.Logf("memory, BM25 alone                          %s", plain)
		t.Logf("grep baseline, text lines, one line answers %s", base.strict)
		t.Logf("grep baseline, text lines, top 5 together   hit@5 %2d/%d (%5.1f%%)", base.lenient5, len(set.qs), pct(base.lenient5, len(set.qs)))
		t.Logf("grep baseline, raw JSONL lines              %s", base.raw)
		kinds := make([]string, 0, len(byKind))
		for k := range byKind {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		for _, k := range kinds {
			t.Logf("  %-9s %s", k, byKind[k])
		}
		for _, m := range misses {
			t.Logf("  %smiss: %s", prefix, m)
		}
		for _, l := range lost {
			t.Logf("  %sin no observation: %s", prefix, l)
		}
		if os.Getenv("CAIRN_MEMORY_DISTRACTORS") == "" && (mem.at5 < set.min5 || mem.at1 < set.min1) {
			t.Errorf("%s: hit@1 %d and hit@5 %d fell below the floors %d and %d", name, mem.at1, mem.at5, set.min1, set.min5)
		}
	}
}

// questionSet is one labelled set of questions and its floors.
type questionSet struct {
	name, file, about string // name "" for the development set
	least             int    // fewer questions than that is a broken file
	min1, min5        int    // the floors of hit@1 and hit@5
	qs                []question
}

// baseline is the grep baseline's figures.
type baseline struct {
	strict   score // a line among the first k holds the whole answer
	lenient5 int   // the first 5 lines together hold it
	raw      score // the same over raw JSONL lines
}

// grepBaseline answers the questions the way a person with grep would,
// without cairn: every line of text in the transcripts (main and
// subagent; each JSONL record's strings decoded, split at newlines), and
// separately every raw JSONL line, is scored by how many of the question's
// words (Search's terms: the same stop words out) it contains as a
// case-insensitive substring; ties go to the shorter line, then the
// earlier. A line answers when it holds the whole answer, as an
// observation must.
func grepBaseline(t *testing.T, fx string, qs []question) baseline {
	var text, raw []string
	err := filepath.WalkDir(fx, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line == "" {
				continue
			}
			raw = append(raw, strings.ToLower(line))
			var v any
			if json.Unmarshal([]byte(line), &v) != nil {
				continue
			}
			for _, s := range jsonStrings(v, nil) {
				for _, l := range strings.Split(s, "\n") {
					if l = strings.TrimSpace(l); l != "" {
						text = append(text, strings.ToLower(l))
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var b baseline
	for _, q := range qs {
		top := grepTop(text, terms(q.text), 5)
		b.strict.add(rank(q, top))
		if q.answers(strings.Join(top, "\n")) {
			b.lenient5++
		}
		b.raw.add(rank(q, grepTop(raw, terms(q.text), 5)))
	}
	return b
}

func jsonStrings(v any, out []string) []string {
	switch x := v.(type) {
	case string:
		out = append(out, x)
	case []any:
		for _, e := range x {
			out = jsonStrings(e, out)
		}
	case map[string]any:
		for _, e := range x {
			out = jsonStrings(e, out)
		}
	}
	return out
}

// grepTop is the k best lines for the words: most words contained, then
// shortest, then first.
func grepTop(lines, words []string, k int) []string {
	type cand struct{ n, i int }
	var best []cand
	better := func(a, b cand) bool {
		if a.n != b.n {
			return a.n > b.n
		}
		if len(lines[a.i]) != len(lines[b.i]) {
			return len(lines[a.i]) < len(lines[b.i])
		}
		return a.i < b.i
	}
	for i, l := range lines {
		n := 0
		for _, w := range words {
			if strings.Contains(l, w) {
				n++
			}
		}
		if n == 0 {
			continue
		}
		c := cand{n, i}
		if len(best) == k && !better(c, best[k-1]) {
			continue
		}
		best = append(best, c)
		slices.SortFunc(best, func(a, b cand) int {
			if better(a, b) {
				return -1
			}
			return 1
		})
		if len(best) > k {
			best = best[:k]
		}
	}
	out := make([]string, len(best))
	for i, c := range best {
		out[i] = lines[c.i]
	}
	return out
}
