package checkpoint

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
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
			dedupe("# head", tt.secs, nil)
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
	for _, fc := range fixtureCheckpoints(t) {
		fx, c := fc.fx, fc.c
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

// An answered question clipped for the budget keeps the answer whole and
// loses its question's tail; other items lose their own tail.
func TestClipItem(t *testing.T) {
	question := "“" + strings.Repeat("I don't think that comes from this change, the function is untouched. ", 4) + "Do you want me to look into it?”"
	answer := "“no, that one has been red since March, Priya owns it, leave it”"
	tests := []struct {
		name, item string
		n          int
		keep       []string
		drop       []string
	}{
		{name: "answer kept", item: question + answered + answer, n: 240, keep: []string{answer, "“I don't think", answered}, drop: []string{"look into it"}},
		{name: "short enough", item: "“Linear or log?”" + answered + "“log”", n: 240, keep: []string{"“Linear or log?” → the user: “log”"}},
		{name: "long answer clipped too", item: "“Which?”" + answered + "“" + strings.Repeat("the second one, ", 30) + "”", n: 120, keep: []string{"“Which?”", answered, "…"}},
		{name: "plain item", item: strings.Repeat("a finding ", 40), n: 100, keep: []string{"a finding", "…"}},
		{name: "what was found kept", item: "the user asked “… does anything under services/ still call the deprecated EncodeLegacy()? And could we finally drop the MSVC workaround?”" + found + "“… the only caller left under services/ is services/tiler/legacy_routes.cc,…”",
			n: 160, keep: []string{found, "legacy_routes.cc"}},
		{name: "a label before a quote kept", item: "Asked first: “" + strings.Repeat("Some context about the team, sorry it is long. ", 10) + "”", n: 120, keep: []string{"Asked first: “"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := clipItem(tt.item, tt.n)
			if len(got) > tt.n+len("…") {
				t.Errorf("%d bytes, want at most about %d: %q", len(got), tt.n, got)
			}
			for _, k := range tt.keep {
				if !strings.Contains(got, k) {
					t.Errorf("lacks %q: %q", k, got)
				}
			}
			for _, d := range tt.drop {
				if strings.Contains(got, d) {
					t.Errorf("keeps %q: %q", d, got)
				}
			}
		})
	}
}

// A number, a version, a ticket count as numbers for news; a name with
// digits in it does not.
func TestNumeric(t *testing.T) {
	for w, want := range map[string]bool{
		"48,213": true, "9.4.8": true, "v0.7.0": true, "crm-2318": true, "10442": true, "x86_64": true,
		"0014_customer_first_last_name.py": false, "test_v2.py": false, "utf-8": false, "ipv6": false, "migrate": false,
	} {
		if got := numeric(w); got != want {
			t.Errorf("numeric(%q) = %v, want %v", w, got, want)
		}
	}
}

// After a /compact the model reads the steering too (Steered): the
// restore leaves out the statements it shows whole (a decision) and says
// so; the task, the files, the todos and what the steering only clipped
// stay, since the restore must hold the working state on its own.
func TestRestoreAfterSteering(t *testing.T) {
	c := Build(planted(t), input())
	long := "The encoder quotes a field when it holds the separator, a quote or a newline, and doubles the quotes inside it; " +
		"the header row is written before the first record, so an empty export still has one line, which the importer expects."
	c.Findings = append(c.Findings, long)
	steer := c.Steer()
	plain := c.Restore(Compaction{Trigger: "manual"}, 1500)
	steered := c.Restore(Compaction{Trigger: "manual", Steered: true}, 1500)
	if !strings.Contains(steered, "not repeated here") || strings.Contains(plain, "not repeated here") {
		t.Errorf("the steered restore does not say what it leaves out, or the plain one does:\n%s", steered)
	}
	decision := "I'll use encoding/csv rather than hand-written quoting because it handles embedded newlines"
	if !strings.Contains(steer, decision) {
		t.Fatalf("the steering lacks %q:\n%s", decision, steer)
	}
	if strings.Contains(steered, "## Decisions\n- "+decision) || !strings.Contains(plain, "## Decisions\n- "+decision) {
		t.Errorf("the decision is repeated after the steering, or missing without it:\n%s", steered)
	}
	for _, kept := range []string{"Ticket: BILL-482", "Asked first:", "- internal/export/csv.go (created, 1 edit)", "[in_progress] Add export tests", long} {
		if !strings.Contains(steered, kept) {
			t.Errorf("the steered restore lacks %q:\n%s", kept, steered)
		}
	}
	if Tokens(steered) >= Tokens(plain) {
		t.Errorf("the steered restore (%d tokens) is not shorter than the plain one (%d)", Tokens(steered), Tokens(plain))
	}
}

// TestQuotesLoseWordsFirst: short of room, the long quotes (the first
// ask, what the user also said, the last messages) lose words before a
// decision or a finding goes whole, and every long item loses words
// before a section loses its last items; a label before a quote stays.
func TestQuotesLoseWordsFirst(t *testing.T) {
	long := strings.Repeat("Some context about the team and the history of this library, sorry it is long. ", 8)
	c := Checkpoint{
		Task: Task{First: long + "Please fix the build.", Latest: []string{long + "And keep it green.", "Super, the sanitizer config next."}},
		Decisions: []string{
			"Done: Encode() now rejects levels above 23 with absl::InvalidArgumentError instead of clamping (a clamped request would get the wrong tile without anyone noticing), the handler answers that with HTTP 400, and the tile tests pass.",
			"Next I'll make DecodeTile() stop at the end of the quadkey string instead of reading one character past it, then rerun the asan config.",
		},
		Findings: []string{
			"The fix belongs in geo/tiles/BUILD.bazel, not in the source file.",
			"Encode takes 41.7 ns per call at level 18 (52.3 ns at level 23), against the 63.2 ns in the last release notes.",
		},
		LastReplies: []string{long + "ASan stops the tile tests.", long + "Next I'll bound DecodeTile()."},
	}
	for _, budget := range []int{700, 500, 400, 350, 300} {
		r := c.Restore(Compaction{Trigger: "auto"}, budget)
		if Tokens(r) > budget {
			t.Errorf("budget %d: %d tokens", budget, Tokens(r))
		}
		for _, want := range []string{"rejects levels above 23 with absl::InvalidArgumentError", "Encode takes 41.7 ns per call at level 18", "- Asked first: “"} {
			if !strings.Contains(r, want) {
				t.Errorf("budget %d: %q went:\n%s", budget, want, r)
			}
		}
		if strings.Contains(r, long) {
			t.Errorf("budget %d: the long quote kept whole:\n%s", budget, r)
		}
	}
}

func TestWithoutAsides(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"rejects it instead of clamping (a clamped request would get the wrong tile without anyone noticing), and passes.", "rejects it instead of clamping, and passes."},
		{"Encode takes 41.7 ns (52.3 ns at level 23 and more words here to be long), fine.", "Encode takes 41.7 ns (52.3 ns at level 23 and more words here to be long), fine."},
		{"ASan stops the tests (exit code 3).", "ASan stops the tests (exit code 3)."},
		{"unclosed (aside that never ends and is long enough to count", "unclosed (aside that never ends and is long enough to count"},
	} {
		if got := withoutAsides(tt.in); got != tt.want {
			t.Errorf("withoutAsides(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
