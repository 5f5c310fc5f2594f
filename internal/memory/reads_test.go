package memory

import (
	"fmt"
	"strings"
	"testing"
)

// A file read is kept as the lines that set or describe something, one
// observation per file from its latest read, secrets redacted.
func TestSessionReads(t *testing.T) {
	numbered := func(lines ...string) string {
		var b strings.Builder
		for i, l := range lines {
			fmt.Fprintf(&b, "%6d→%s\n", i+1, l)
		}
		return b.String()
	}
	s := session(t, t.TempDir(), []step{
		{user: "How long do review sessions live?"},
		{tool: "Read", input: map[string]any{"file_path": "/w/lib/review_registry.ex"}},
		{result: numbered("defmodule Shop.ReviewRegistry do", `  @moduledoc """`, "  Tracks review sessions and expires them.", `  """`,
			"  @ttl 30", "", "  def start_link(opts) do", "    GenServer.start_link(__MODULE__, opts)", "  end", "end")},
		{tool: "Read", input: map[string]any{"file_path": "/w/config/dev.exs"}},
		{result: numbered("config :shop, Shop.Repo,", `  password: "hunter2hunter2",`, "  pool_size: 10", "# a comment: not kept")},
		// Read again: the latest read stands for the file.
		{tool: "Read", input: map[string]any{"file_path": "/w/lib/review_registry.ex"}},
		{result: numbered("defmodule Shop.ReviewRegistry do", "  @ttl 45", "end")},
		// Nothing set or declared: no observation.
		{tool: "Read", input: map[string]any{"file_path": "/w/README.md"}},
		{result: numbered("Shop", "", "A shop.")},
	})
	base := Observation{Project: "/w", SessionID: "sess-1"}
	var reads []Observation
	for _, o := range sessionOutputs(base, s, tailOf(s, maxEditScan)) {
		if o.Kind == KindRead {
			reads = append(reads, o)
		}
	}
	tests := []struct {
		name, title string
		body, not   []string
	}{
		{"config", "Read dev.exs: config :shop, Shop.Repo,", []string{"Read /w/config/dev.exs", "password: \"[REDACTED", "pool_size: 10"}, []string{"hunter2", "a comment"}},
		{"latest read", "Read review_registry.ex: @ttl 45", []string{"defmodule Shop.ReviewRegistry do"}, []string{"@ttl 30"}},
	}
	if len(reads) != len(tests) {
		t.Fatalf("%d reads, want %d:\n%s", len(reads), len(tests), render(reads))
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := reads[i]
			if o.Title != tt.title || len(o.Files) != 1 || o.Time.IsZero() {
				t.Errorf("%q %v at %v, want %q", o.Title, o.Files, o.Time, tt.title)
			}
			for _, b := range tt.body {
				if !strings.Contains(o.Body, b) {
					t.Errorf("no %q in %q", b, o.Body)
				}
			}
			for _, b := range tt.not {
				if strings.Contains(o.Body, b) {
					t.Errorf("%q in %q", b, o.Body)
				}
			}
		})
	}
}

func TestSettingLines(t *testing.T) {
	tests := []struct {
		name, text string
		limit      int
		want       []string
	}{
		{"values, then docs, then declarations", "defmodule A do\n  @moduledoc \"\"\"\n  Does a thing.\n  \"\"\"\n  @limit 50\n  def run(x), do: x\nend",
			1000, []string{"@limit 50", "Does a thing.", "defmodule A do", "def run(x), do: x"}},
		{"a key and a value", "new Terminal({\n  scrollback: 10000,\n  theme: {\n})", 1000, []string{"scrollback: 10000,"}},
		{"an assignment", "const port = 4000;\nlet x;\nwatchers = [\n", 1000, []string{"const port = 4000;", "let x;"}},
		{"comments set nothing", "# max = 3\n// y = 4\n-- z = 5", 1000, nil},
		{"Read's line numbers", "     1→@ttl 30\n     2→", 1000, []string{"@ttl 30"}},
		{"a JSDoc", "/**\n * Highlights code blocks.\n */\nexport function highlight(el) {", 1000, []string{"Highlights code blocks.", "export function highlight(el) {"}},
		{"within the limit", "a = 1\nb = 2\nc = 3", 12, []string{"a = 1", "b = 2"}},
		{"a comparison or a path is no setting", "if x == 3 do\nFoo::Bar.baz()", 1000, nil},
		{"once each", "a = 1\na = 1", 1000, []string{"a = 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := settingLines(tt.text, tt.limit)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
