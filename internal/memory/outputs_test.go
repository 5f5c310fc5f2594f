package memory

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/sqlite"
)

// What the tools said becomes observations: a command's output in short,
// each item of a list it printed (left open when nothing later named it),
// a page fetched, a web search; secrets and private spans never stored.
func TestSessionOutputs(t *testing.T) {
	s := session(t, t.TempDir(), []step{
		{user: "What is ready?"},
		{tool: "Bash", input: map[string]any{"command": "bd ready"}},
		{result: "📋 Ready work (3 issues with no blockers):\n\n1. [● P1] [epic] shop-a1b: Export invoices as CSV\n" +
			"2. [● P2] [task] shop-c2d: Fix rounding of totals\n3. [● P2] [task] shop-e3f: Add the CSV header row"},
		{tool: "Bash", input: map[string]any{"command": "bd update shop-a1b --status in_progress"}},
		{result: "✓ Updated issue: shop-a1b"},
		{tool: "Bash", input: map[string]any{"command": "git log --oneline -3"}},
		{result: "64f1b9a feat: export invoices\n1c2d3e4 fix: open the file once\n9a8b7c6 chore: sync"},
		{tool: "Bash", input: map[string]any{"command": "git commit -m 'feat: export'", "description": "Commit the export"}},
		{result: "[main 5e6f7a8] feat: export\n 2 files changed, 40 insertions(+)\n\x1b[32mremote key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\x1b[0m\n" +
			"note <private>hunter2-deploy</private> kept"},
		// A secret store's read prints the secret alone: no observation.
		{tool: "Bash", input: map[string]any{"command": "vault kv get -field=password kv/dev/db"}},
		{result: "Tr0ub4dor9x"},
		{tool: "WebFetch", input: map[string]any{"url": "https://github.com/acme/csv/issues/1343", "prompt": "How is quoting handled?"}},
		{result: "Quoting follows RFC 4180."},
		{tool: "WebSearch", input: map[string]any{"query": "go encoding/csv bom"}},
		{result: "Web search results for query: \"go encoding/csv bom\"\n\nLinks: [{\"title\":\"csv: BOM handling\",\"url\":\"https://go.dev/issue/33887\"}]\n\nA BOM is not stripped."},
	})
	base := Observation{Project: "/work/shop", SessionID: "sess-1"}
	obs := sessionOutputs(base, s, tailOf(s, maxEditScan))
	tests := []struct {
		name, kind, title string
		body              []string
	}{
		{"a list's output", KindOutput, "`bd ready` printed: 📋 Ready work (3 issues with no blockers):", []string{"shop-c2d: Fix rounding"}},
		{"an update", KindOutput, "`bd update shop-a1b --status in_progress` printed: ✓ Updated issue: shop-a1b", nil},
		{"a log", KindOutput, "`git log --oneline -3` printed: 64f1b9a feat: export invoices", nil},
		{"a commit", KindOutput, "Commit the export: `git commit -m 'feat: export'` printed: [main 5e6f7a8] feat: export", []string{"(Commit the export)", "2 files changed", "remote key"}},
		{"a fetch", KindOutput, "Fetched https://github.com/acme/csv/issues/1343: How is quoting handled?", []string{"RFC 4180"}},
		{"a search", KindOutput, "Searched the web: go encoding/csv bom", []string{"csv: BOM handling https://go.dev/issue/33887", "A BOM is not stripped."}},
		{"taken up", KindOpenItem, "Listed by `bd ready`, then taken up: 1. [● P1] [epic] shop-a1b: Export invoices as CSV", []string{"Named later by: bd update shop-a1b"}},
		{"left open", KindOpenItem, "Left open, listed by `bd ready` and not taken up: 2. [● P2] [task] shop-c2d: Fix rounding of totals",
			[]string{"Listed under: 📋 Ready work (3 issues with no blockers):", "named shop-c2d"}},
		{"left open too", KindOpenItem, "Left open, listed by `bd ready` and not taken up: 3. [● P2] [task] shop-e3f: Add the CSV header row", nil},
		// A commit log is a list, not work to do: listed, never left open.
		{"a commit listed", KindOutput, "Listed by `git log --oneline -3`: 64f1b9a feat: export invoices", nil},
		{"another", KindOutput, "Listed by `git log --oneline -3`: 1c2d3e4 fix: open the file once", nil},
		{"the third", KindOutput, "Listed by `git log --oneline -3`: 9a8b7c6 chore: sync", nil},
	}
	if len(obs) != len(tests) {
		t.Fatalf("%d observations, want %d:\n%s", len(obs), len(tests), render(obs))
	}
	st, _ := openStore(t)
	ctx := context.Background()
	ids, err := st.Add(ctx, obs...)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.Get(ctx, ids...)
	if err != nil || len(stored) != len(tests) {
		t.Fatalf("%d stored of %d: %v", len(stored), len(tests), err)
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := stored[i]
			if o.Kind != tt.kind || o.Title != tt.title || o.Time.IsZero() {
				t.Errorf("%s %q at %v, want %s %q", o.Kind, o.Title, o.Time, tt.kind, tt.title)
			}
			for _, b := range tt.body {
				if !strings.Contains(o.Body, b) {
					t.Errorf("no %q in %q", b, o.Body)
				}
			}
			for _, never := range []string{"hunter2", "sk-ant-api03-AAAA", "\x1b[", "Tr0ub4dor9x"} {
				if strings.Contains(o.Title+o.Body, never) {
					t.Errorf("%q stored in %q", never, o.Title+"\n"+o.Body)
				}
			}
		})
	}
	// Derived again (the next checkpoint): nothing new is stored.
	again, err := st.Add(ctx, sessionOutputs(base, s, tailOf(s, maxEditScan))...)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(again, func(id int64) bool { return id != 0 }) {
		t.Errorf("derived again, stored again: %v", again)
	}
	// Without the transcript's text there is no output to keep.
	if got := sessionOutputs(base, s, func(int) []byte { return nil }); len(got) != 0 {
		t.Errorf("without the transcript: %s", render(got))
	}
}

// A list left open and later taken up: the next checkpoint's observation
// replaces what the earlier one said.
func TestListedThenTakenUp(t *testing.T) {
	steps := []step{
		{tool: "Bash", input: map[string]any{"command": "bd list --status=open"}},
		{result: "○ shop-a1b [● P1] [epic] - Export invoices\n○ shop-c2d [● P2] [task] - Fix rounding\n○ shop-e3f [● P2] [task] - CSV header"},
	}
	dir := t.TempDir()
	base := Observation{Project: "/work/shop", SessionID: "sess-1"}
	st, _ := openStore(t)
	ctx := context.Background()
	first := session(t, dir, steps)
	if _, err := st.Add(ctx, sessionOutputs(base, first, tailOf(first, maxEditScan))...); err != nil {
		t.Fatal(err)
	}
	steps = append(steps, step{tool: "Bash", input: map[string]any{"command": "bd update shop-c2d --status in_progress"}}, step{result: "✓ Updated"})
	later := session(t, dir, steps)
	if _, err := st.Add(ctx, sessionOutputs(base, later, tailOf(later, maxEditScan))...); err != nil {
		t.Fatal(err)
	}
	all, err := st.db.SearchObservations(ctx, sqlite.ObservationQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, h := range all {
		if h.Kind == KindOpenItem && strings.Contains(h.Title, "shop-c2d") {
			said = append(said, h.Title)
		}
	}
	if len(said) != 1 || !strings.HasPrefix(said[0], "Listed by `bd list --status=open`, then taken up: ○ shop-c2d") {
		t.Errorf("shop-c2d: %q", said)
	}
}

func TestListShapes(t *testing.T) {
	tests := []struct {
		name   string
		output string
		ids    []string // the items' ids, in order; nil: not a list
	}{
		{"numbered", "Ready (3):\n1. [P1] web-a0y: one\n2. [P2] web-a0y.3: two\n3. [P3] web-pr1: three", []string{"web-a0y", "web-a0y.3", "web-pr1"}},
		{"glyphs", "○ web-obz [● P1] - one\n◐ web-y5l.4 [● P2] - two\n✓ web-gqc [● P2] - three", []string{"web-obz", "web-y5l.4", "web-gqc"}},
		{"hashes", "4ac3489 chore: a\n8e5ed59 fix: b\n28a4080 feat: c (web-0fc)", []string{"4ac3489", "8e5ed59", "28a4080"}},
		{"issues", "#12\tOPEN\tcrash on start\n#13\tOPEN\tslow\n#14\tOPEN\tdocs", []string{"#12", "#13", "#14"}},
		{"two items", "1. web-a0y one\n2. web-b1z two", nil},
		{"bullets in prose", "- keep the side-effect free path\n- per-row classes\n- line-height 1.5", nil},
		{"a few items in a long log", "started\nlistening\n1. web-a0y\n2. web-b1z\n3. web-c2x\nstopping\nstopped\ndone\nbye", nil},
		{"dependencies, one word a line", "jason\nplug\nphoenix\necto", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ids []string
			for _, it := range listOf(outputLines(tt.output)) {
				ids = append(ids, itemID(it.text))
			}
			if !slices.Equal(ids, tt.ids) {
				t.Errorf("ids %q, want %q", ids, tt.ids)
			}
		})
	}
}

func TestContainsWord(t *testing.T) {
	tests := []struct {
		s, w string
		want bool
	}{
		{"bd update web-obz --status done", "web-obz", true},
		{"bd show web-obz.1", "web-obz", false},
		{"work on web-obz.", "web-obz", true},
		{"bd show xweb-obz", "web-obz", false},
		{"git show 64f1b9a", "64f1b9a", true},
	}
	for _, tt := range tests {
		if got := containsWord(tt.s, tt.w); got != tt.want {
			t.Errorf("containsWord(%q, %q) = %v, want %v", tt.s, tt.w, got, tt.want)
		}
	}
}

// A long output is read at its start and its end, cut at lines' ends.
func TestBoundOutput(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n"
	long := "first line\n" + strings.Repeat(line, 400) + "the key sk-ant-api03-" + strings.Repeat("A", 80) + "\nlast line\n"
	got := boundOutput(long)
	if len(got) > outputScan+outputScanTail+1 || !strings.HasPrefix(got, "first line\n") || !strings.HasSuffix(got, "last line\n") {
		t.Errorf("%d bytes, starting %q, ending %q", len(got), got[:20], got[len(got)-20:])
	}
	for _, l := range strings.Split(got, "\n") {
		if l != "" && l != "first line" && l != "last line" && l != line[:99] && !strings.HasPrefix(l, "the key sk-ant-api03-") {
			t.Errorf("a line cut: %q", l)
		}
	}
	if short := "a\nb\n"; boundOutput(short) != short {
		t.Errorf("a short output changed: %q", boundOutput(short))
	}
}
