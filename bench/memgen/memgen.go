// Package memgen makes synthetic observations for the memory benchmarks:
// as many as asked, with the mix of kinds, the lengths and the vocabulary
// of the observations cairn derives from the real sessions in
// internal/fixtures (words drawn by their frequency there, Zipf-like, with
// made-up identifiers and paths for the long tail), spread over projects,
// sessions and a year. The same seed makes the same observations.
package memgen

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/cairn-agent/cairn/internal/memory"
)

// Vocabulary is the words of the transcripts under dir, most frequent
// first, at most max of them.
func Vocabulary(dir string, max int) ([]string, error) {
	counts := map[string]int{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
		for sc.Scan() {
			var v any
			if json.Unmarshal(sc.Bytes(), &v) != nil {
				continue
			}
			walk(v, func(s string) {
				for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
					if len(w) >= 2 && len(w) <= 30 {
						counts[strings.ToLower(w)]++
					}
				}
			})
		}
		return sc.Err()
	})
	if err != nil {
		return nil, err
	}
	words := make([]string, 0, len(counts))
	for w := range counts {
		words = append(words, w)
	}
	slices.SortFunc(words, func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(a, b)
	})
	return words[:min(max, len(words))], nil
}

func walk(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case []any:
		for _, e := range x {
			walk(e, f)
		}
	case map[string]any:
		for _, e := range x {
			walk(e, f)
		}
	}
}

// kind is one kind of observation as the replayed fixtures have them:
// its share, and the mean length of its title and body in bytes and the
// mean number of files.
type kind struct {
	name        string
	share       float64
	title, body int
	files       float64
}

var kinds = []kind{
	{memory.KindFinding, 0.446, 71, 72, 0.26},
	{memory.KindCommand, 0.310, 100, 187, 1.13},
	{memory.KindErrorFix, 0.066, 124, 546, 1.05},
	{memory.KindReply, 0.050, 128, 385, 0.61},
	{memory.KindClosedItem, 0.042, 70, 193, 0.89},
	{memory.KindOpenItem, 0.037, 79, 70, 0.10},
	{memory.KindCheckpoint, 0.033, 120, 1221, 11.7},
	{memory.KindSubagent, 0.008, 40, 365, 0.71},
	{memory.KindCompaction, 0.006, 33, 2047, 0},
	{memory.KindDecision, 0.002, 90, 150, 0.5},
}

// Generator makes observations.
type Generator struct {
	Vocab    []string
	Projects int
	Sessions int
	Start    time.Time
	r        *rand.Rand
	zipf     *rand.Zipf
}

// New is a generator over vocab with a seed.
func New(vocab []string, seed uint64) *Generator {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &Generator{Vocab: vocab, Projects: 50, Sessions: 5000, Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), r: r,
		zipf: rand.NewZipf(r, 1.07, 2, uint64(len(vocab)-1))}
}

// Word is a word of the vocabulary by its frequency, or now and then a
// made-up identifier (two words joined) for the long tail that names in
// code give.
func (g *Generator) Word() string {
	w := g.Vocab[g.zipf.Uint64()]
	if g.r.Float64() < 0.08 {
		return w + "_" + g.Vocab[g.zipf.Uint64()] + fmt.Sprint(g.r.IntN(100))
	}
	return w
}

// text is words up to about n bytes.
func (g *Generator) text(n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			if g.r.Float64() < 0.07 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(g.Word())
	}
	return b.String()
}

var exts = []string{"go", "ex", "exs", "ts", "js", "py", "md", "json", "sql", "rs"}

func (g *Generator) path() string {
	return fmt.Sprintf("%s/%s/%s.%s", g.Word(), g.Word(), g.Word(), exts[g.r.IntN(len(exts))])
}

// length draws a length around mean (log-normal, as text lengths are).
func (g *Generator) length(mean int) int {
	return max(8, int(float64(mean)*math.Exp(g.r.NormFloat64()*0.6-0.18)))
}

// Observation is one synthetic observation.
func (g *Generator) Observation() memory.Observation {
	x := g.r.Float64()
	k := kinds[len(kinds)-1]
	for _, c := range kinds {
		if x < c.share {
			k = c
			break
		}
		x -= c.share
	}
	o := memory.Observation{
		Project:   fmt.Sprintf("/home/dev/projects/project-%02d", g.r.IntN(g.Projects)),
		SessionID: fmt.Sprintf("session-%05d", g.r.IntN(g.Sessions)),
		Time:      g.Start.Add(time.Duration(g.r.Int64N(int64(365 * 24 * time.Hour)))),
		Kind:      k.name,
		Title:     g.text(g.length(k.title)),
		Body:      g.text(g.length(k.body)),
	}
	for n := int(k.files + g.r.Float64()); n > 0; n-- {
		o.Files = append(o.Files, g.path())
	}
	return o
}

// Fill adds n observations to st in batches (one transaction each),
// telling progress how many are in after each.
func (g *Generator) Fill(ctx context.Context, st *memory.Store, n int, progress func(int)) error {
	const batch = 1000
	obs := make([]memory.Observation, 0, batch)
	for done := 0; done < n; {
		obs = obs[:0]
		for range min(batch, n-done) {
			obs = append(obs, g.Observation())
		}
		if _, err := st.Add(ctx, obs...); err != nil {
			return err
		}
		done += len(obs)
		if progress != nil {
			progress(done)
		}
	}
	return nil
}

// Queries are n searches of two to five words drawn from the vocabulary
// beyond its 200 commonest (which the stop words and the common verbs of
// code sessions are), as someone would ask for something specific.
func (g *Generator) Queries(n int) []string {
	var out []string
	for range n {
		k := 2 + g.r.IntN(4)
		var ws []string
		for range k {
			i := int(g.zipf.Uint64())
			for i < 200 {
				i = int(g.zipf.Uint64())
			}
			ws = append(ws, g.Vocab[i])
		}
		out = append(out, strings.Join(ws, " "))
	}
	return out
}
