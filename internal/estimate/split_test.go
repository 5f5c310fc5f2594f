package estimate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// filler is prose of n bytes.
func filler(n int) string {
	s := strings.Repeat("Work to do here. ", n/17+1)
	return strings.TrimSpace(s[:n])
}

func TestSplitSpec(t *testing.T) {
	// A ratio of 1 makes an estimate equal its spec tokens: 350 bytes are
	// 100 tokens.
	m := Model{Ratio: 1}
	tests := []struct {
		name   string
		spec   string
		limit  int64
		by     string
		shards [][]string
		over   []bool
		reason string
	}{
		{
			name: "headings, grouped",
			spec: "# Title\n\nIntro.\n\n## A\n\n" + filler(300) + "\n\n## B\n\n" + filler(300) + "\n\n## C\n\n" + filler(300) + "\n\n## D\n\n" + filler(300) + "\n",
			// about 90 tokens a section: two sections a shard
			limit:  200,
			by:     "headings",
			shards: [][]string{{"Title (introduction)", "A", "B"}, {"C", "D"}},
		},
		{
			name:  "the shallowest level that divides",
			spec:  "# Only title\n\n### x\n" + filler(300) + "\n## A\n" + filler(300) + "\n### A.1\n" + filler(300) + "\n## B\n" + filler(300) + "\n",
			limit: 100,
			by:    "headings",
			// A is over the limit and divides along its one ###.
			shards: [][]string{{"Only title (introduction)"}, {"A"}, {"A › A.1"}, {"B"}},
		},
		{
			name:   "an oversized section divides along its subheadings",
			spec:   "## A\n" + filler(300) + "\n### A.1\n" + filler(300) + "\n### A.2\n" + filler(300) + "\n## B\n" + filler(20) + "\n",
			limit:  100,
			by:     "headings",
			shards: [][]string{{"A"}, {"A › A.1"}, {"A › A.2", "B"}},
		},
		{
			name:   "headings in code blocks do not count",
			spec:   "Intro\n\n```sh\n## not a heading\n## nor this\n```\n\n- one " + filler(300) + "\n- two " + filler(300) + "\n",
			limit:  100,
			by:     "list items",
			shards: [][]string{{"Introduction"}, {"one Work to do here. Work to do here. Work to do here. Work…"}, {"two Work to do here. Work to do here. Work to do here. Work…"}},
		},
		{
			name:  "only lists",
			spec:  "- [ ] first " + filler(200) + "\n  continued\n- [ ] second " + filler(200) + "\n1. third " + filler(200) + "\n",
			limit: 150,
			by:    "list items",
			// 65, 61 and 60 tokens: 65 | 61+60 evens them out better than
			// 65+61 | 60.
			shards: [][]string{{"first Work to do here. Work to do here. Work to do here. Wo…"}, {"second Work to do here. Work to do here. Work to do here. W…", "third Work to do here. Work to do here. Work to do here. Wo…"}},
		},
		{
			name:   "neither: paragraphs",
			spec:   "First " + filler(300) + "\n\nSecond " + filler(300) + "\n\nThird " + filler(300) + "\n",
			limit:  100,
			by:     "paragraphs",
			shards: [][]string{{"First Work to do here. Work to do here. Work to do here. Wo…"}, {"Second Work to do here. Work to do here. Work to do here. W…"}, {"Third Work to do here. Work to do here. Work to do here. Wo…"}},
		},
		{
			name:   "one block cannot be divided",
			spec:   filler(1000) + "\n",
			limit:  100,
			shards: [][]string{{"Work to do here. Work to do here. Work to do here. Work to…"}},
			over:   []bool{true},
			reason: "it has no headings, list items or paragraphs to divide along",
		},
		{
			name:   "a part with no structure stays over",
			spec:   "## A\n" + filler(1000) + "\n## B\n" + filler(100) + "\n## C\n" + filler(100) + "\n",
			limit:  100,
			by:     "headings",
			shards: [][]string{{"A"}, {"B", "C"}},
			over:   []bool{true, false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := SplitSpec(tt.spec, m, tt.limit)
			var got [][]string
			var over []bool
			anyOver := false
			for _, s := range sp.Shards {
				got = append(got, s.Parts)
				over = append(over, s.Over)
				anyOver = anyOver || s.Over
				if !s.Over && s.Tokens > tt.limit {
					t.Errorf("shard %v: %d tokens over %d but not marked", s.Parts, s.Tokens, tt.limit)
				}
			}
			if diff := cmp.Diff(tt.shards, got); diff != "" {
				t.Errorf("shards (-want +got):\n%s", diff)
			}
			if tt.over != nil {
				if diff := cmp.Diff(tt.over, over); diff != "" {
					t.Errorf("over (-want +got):\n%s", diff)
				}
			} else if anyOver {
				t.Errorf("a shard is over: %v", over)
			}
			if sp.By != tt.by || sp.Reason != tt.reason {
				t.Errorf("by %q, reason %q; want %q, %q", sp.By, sp.Reason, tt.by, tt.reason)
			}
			// Nothing of the spec is lost or counted twice.
			var total int64
			for _, s := range sp.Shards {
				total += s.SpecTokens
			}
			if whole := Tokens(tt.spec); total < whole || total > whole+int64(len(sp.Shards))+1 {
				t.Errorf("shards hold %d spec tokens, the spec %d", total, whole)
			}
		})
	}
}

// Balancing keeps the fewest shards but evens them out: seven parts of 100
// tokens under a limit of 300 need three shards, and get 3+2+2 parts in
// some order rather than the greedy 3+3+1.
func TestBalance(t *testing.T) {
	m := Model{Ratio: 1}
	var parts []part
	for i := 0; i < 7; i++ {
		parts = append(parts, part{title: string(rune('a' + i)), lines: []line{{text: strings.Repeat("x", 349)}}})
	}
	var sizes []int
	for _, g := range balance(parts, m, 300) {
		sizes = append(sizes, len(g))
	}
	if len(sizes) != 3 || min(sizes[0], sizes[1], sizes[2]) < 2 {
		t.Errorf("group sizes %v, want three groups of 2-3 parts", sizes)
	}
}

func FuzzSplitSpec(f *testing.F) {
	f.Add("# T\n\n## A\ntext\n## B\n- x\n- y\n```\n## z\n")
	f.Add("- a\n- b\n\npara\n\n~~~~\n~~~\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, spec string) {
		sp := SplitSpec(spec, Model{Ratio: 2}, 10)
		var total int64
		for _, s := range sp.Shards {
			total += s.SpecTokens
		}
		if whole := Tokens(spec); total < whole || total > whole+int64(len(sp.Shards))+1 {
			t.Errorf("shards hold %d spec tokens, the spec %d", total, whole)
		}
		CountSignals(spec)
	})
}
