package checkpoint

import (
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// A statement a section above already shows is not said again: the
// user's answer under what was settled and again among what the user
// said, a constraint that is a sentence of the first prompt, a finding
// that is an open item. Short texts (a path inside a prompt) and the
// sections that are not statements (files, commands) are kept.
func TestDedupe(t *testing.T) {
	tests := []struct {
		name string
		secs []section
		want [][]string
	}{
		{
			name: "answer quoted twice",
			secs: []section{
				{title: "Settled", items: []string{"“Which line gets the cent?” → the user: “the priciest one, please”"}, repeats: true},
				{title: "Also said", items: []string{"“the priciest one, please”", "“and keep the old API”"}, repeats: true},
			},
			want: [][]string{{"“Which line gets the cent?” → the user: “the priciest one, please”"}, {"“and keep the old API”"}},
		},
		{
			name: "constraint inside a clipped prompt, open item label",
			secs: []section{
				{title: "Task", items: []string{"Asked first: “Fix the export. Never touch the migrations folder. Use pnpm…”"}},
				{title: "Constraints", items: []string{"“Never touch the migrations folder.”", "“Use pnpm, not npm.”"}, repeats: true},
				{title: "Open", items: []string{"(to do) fix the export, never touch the migrations folder"}, repeats: true},
			},
			want: [][]string{{"Asked first: “Fix the export. Never touch the migrations folder. Use pnpm…”"}, {"“Use pnpm, not npm.”"}, {"(to do) fix the export, never touch the migrations folder"}},
		},
		{
			name: "short texts and other sections stay",
			secs: []section{
				{title: "Task", items: []string{"Asked first: “edit internal/export/csv.go so that quoting works”"}},
				{title: "Files", items: []string{"internal/export/csv.go"}},
				{title: "Findings", items: []string{"csv.go (1 edit)"}, repeats: true},
			},
			want: [][]string{{"Asked first: “edit internal/export/csv.go so that quoting works”"}, {"internal/export/csv.go"}, {"csv.go (1 edit)"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dedupe("# head", tt.secs)
			for i, s := range tt.secs {
				if strings.Join(s.items, "|") != strings.Join(tt.want[i], "|") {
					t.Errorf("%s: got %q, want %q", s.title, s.items, tt.want[i])
				}
			}
		})
	}
}

// Under a short budget a finding goes by what it alone tells, not by its
// age: the measurement only it gives and the denial stay, a restatement
// of the command line above and a recap go first.
func TestLeastNews(t *testing.T) {
	tests := []struct {
		name     string
		findings []string
		rest     string
		want     string // the first to go
	}{
		{
			name: "the old measurement stays, the restated pass goes",
			findings: []string{
				"Each share rounds to 8.33, and 3 × 8.33 = 24.99, so one cent stays on the card.",
				"The spec passes now: 7 examples, 0 failures.",
			},
			rest: "`rspec spec/card_spec.rb` → exit 0; 7 examples, 0 failures",
			want: "The spec passes now: 7 examples, 0 failures.",
		},
		{
			name: "a denial beats a plain statement of as much news",
			findings: []string{
				"Version 12 no longer reads the doc-comment annotations at all.",
				"Version 10 added the attribute form of the annotations.",
			},
			rest: "Ticket: LAR-1",
			want: "Version 10 added the attribute form of the annotations.",
		},
		{
			name: "a recap of the open items goes",
			findings: []string{
				"So for today: the PR against develop, and the bucket stays with infra.",
				"The staging disk resolves to the bucket ledger-prod in eu-central-1.",
			},
			rest: "(to do) open the PR against develop\n(put off) the bucket stays with infra for today",
			want: "So for today: the PR against develop, and the bucket stays with infra.",
		},
		{
			name:     "equals: the oldest goes",
			findings: []string{"alpha beta gamma delta", "epsilon zeta theta iota"},
			want:     "alpha beta gamma delta",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secs := []section{{title: "Rest", items: []string{tt.rest}}, {title: "Findings", items: tt.findings, byNews: true}}
			if got := secs[1].items[(&newsIndex{ws: make(wordSets)}).leastNews("# head", secs, 1)]; got != tt.want {
				t.Errorf("dropped %q first, want %q", got, tt.want)
			}
		})
	}
}

// leastNews counts words rather than build the rest's words for each
// item, and keeps the counts as items go: on real sessions' sections,
// item by item as fit drops them, it picks what the definition picks (the words of the head, the other
// sections and the section's other items are what is known).
func TestLeastNewsAsDefined(t *testing.T) {
	defined := func(head string, secs []section, i int) int {
		var rest strings.Builder
		rest.WriteString(head)
		for k, s := range secs {
			if k != i {
				for _, it := range s.items {
					rest.WriteString("\n" + it)
				}
			}
		}
		known := words(rest.String())
		best, low := 0, math.Inf(1)
		for j, it := range secs[i].items {
			others := maps.Clone(known)
			for k, o := range secs[i].items {
				if k != j {
					maps.Copy(others, words(o))
				}
			}
			t := &textWords{words: slices.Collect(maps.Keys(words(it))), negates: negates(it)}
			if n := news(t, func(w string) bool { return others[w] }); n < low {
				best, low = j, n
			}
		}
		return best
	}
	dir, err := fixtures.Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, fx := range fixtures.Compactions {
		s := transcript.New(filepath.Join(dir, fx.Session+".jsonl"))
		var p transcript.Parser
		if _, err := s.Update(&p); err != nil {
			t.Fatal(err)
		}
		c := Build(s, Input{Project: "/p", Trigger: "precompact-auto", Now: time.Now()})
		for _, forRestore := range []bool{false, true} {
			secs := c.sections(forRestore)
			// A repeated item: its words are known from its twin.
			secs[0].items = append(secs[0].items, secs[0].items...)
			for i := range secs {
				if !secs[i].byNews {
					continue
				}
				t.Run(fx.Session[:8]+"/"+secs[i].title, func(t *testing.T) {
					// As fit asks: the counts kept as items go, from
					// this section and from the first (the task).
					news := newsIndex{ws: make(wordSets)}
					for len(secs[i].items) > 0 {
						want := defined("# head", secs, i)
						if got := news.leastNews("# head", secs, i); got != want {
							t.Fatalf("leastNews = %d (%q), the definition %d (%q)", got, secs[i].items[got], want, secs[i].items[want])
						}
						news.dropped(secs[i].items[want])
						secs[i].items = slices.Delete(secs[i].items, want, want+1)
						if len(secs[0].items) > 0 {
							news.dropped(secs[0].items[0])
							secs[0].items = secs[0].items[1:]
						}
					}
				})
			}
		}
	}
}

func TestNegates(t *testing.T) {
	for s, want := range map[string]bool{
		"PHPUnit 12 no longer reads doc-comments.":        true,
		"The formatter doesn't read the locale.":          true,
		"It resolves to the prod bucket, not staging.":    true,
		"It runs without the cache.":                      true,
		"The annotation has existed since PHPUnit 10.":    false,
		"Notes on the nothingness of knots are elsewhere": false,
	} {
		if got := negates(s); got != want {
			t.Errorf("negates(%q) = %v, want %v", s, got, want)
		}
	}
}

// Over budget, the findings and the user's words shrink by news, the
// long statements are clipped before whole ones go, and a fixed error
// goes before a finding.
func TestRestoreKeepsNewsUnderBudget(t *testing.T) {
	c := Build(planted(t), input())
	c.Findings = []string{
		"Each share rounds to 8.33, and 3 × 8.33 = 24.99, so one cent stays on the card after checkout.",
		"The staging disk does not point at staging: it resolves to the bucket ledger-prod in eu-central-1.",
	}
	for i := 0; i < 12; i++ {
		c.Findings = append(c.Findings, "The export test passes again, as the command above says, and the export is written.")
		c.Errors = append(c.Errors, Error{Tool: "Bash", Subject: "go test ./internal/export/...", Message: strings.Repeat("csv_test.go:31: got \"a,b\" want \"\\\"a,b\\\"\" ", 5), Resolved: true})
	}
	c.Decisions = append(c.Decisions, strings.Repeat("I'd keep encoding/csv because it quotes embedded newlines, and the hand-written quoting did not. ", 4))
	r := c.Restore(Compaction{Trigger: "auto"}, 900)
	if Tokens(r) > 900 {
		t.Fatalf("restore is %d tokens", Tokens(r))
	}
	for _, want := range []string{"24.99", "ledger-prod", "I'd keep encoding/csv"} {
		if !strings.Contains(r, want) {
			t.Errorf("restore lacks %q:\n%s", want, r)
		}
	}
	if strings.Count(r, "The export test passes again") > 1 {
		t.Errorf("a repeated finding is shown more than once:\n%s", r)
	}
}
