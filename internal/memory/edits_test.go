package memory

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// An edit becomes an observation with the names it defines, the sentence
// the assistant said before it and the start of its new text; a failed
// edit does not.
func TestSessionEdits(t *testing.T) {
	s := session(t, t.TempDir(), []step{
		{user: "Give the rows CSS classes."},
		{text: "I need to add the `transcript_row_classes/3` helper and remove the now-unused `type_color/1`."},
		{tool: "Edit", input: map[string]any{"file_path": "/work/shop/lib/session_live.ex",
			"old_string": "  defp type_color(kind), do: :gray\n",
			"new_string": "  defp transcript_row_classes(line, current, clicked) do\n    base = [\"transcript-row\"]\n  end\n"}},
		{result: "The file has been updated"},
		{text: "Now the registry."},
		{tool: "Write", input: map[string]any{"file_path": "/work/shop/lib/active_session_registry.ex",
			"content": "defmodule Spotter.Services.ActiveSessionRegistry do\n  use GenServer\n  @sweep_interval_ms 15_000\n  def touch(session_id, event), do: :ok\nend\n"}},
		{result: "File created successfully"},
		{tool: "Edit", input: map[string]any{"file_path": "/work/shop/lib/gone.ex", "old_string": "x", "new_string": "defp never_applied do"}},
		{result: "<tool_use_error>String to replace not found in file.</tool_use_error>", isError: true},
	})
	obs := sessionEdits(Observation{Project: "/work/shop", SessionID: "sess-1"}, s)
	if len(obs) != 2 {
		t.Fatalf("%d edit observations, want 2 (the failed edit left out):\n%s", len(obs), render(obs))
	}
	tests := []struct {
		name       string
		o          Observation
		title      string
		body, file []string
	}{
		{"edit", obs[0], "Edited session_live.ex: transcript_row_classes, transcript-row",
			[]string{"I need to add the `transcript_row_classes/3` helper", "Names: transcript_row_classes", "New text: defp transcript_row_classes(line"},
			[]string{"/work/shop/lib/session_live.ex"}},
		{"write", obs[1], "Wrote active_session_registry.ex: Spotter.Services.ActiveSessionRegistry, touch, GenServer, @sweep_interval_ms, session_id",
			[]string{"Now the registry.", "New text: defmodule Spotter.Services.ActiveSessionRegistry do use GenServer"},
			[]string{"/work/shop/lib/active_session_registry.ex"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.o.Kind != KindEdit || tt.o.Title != tt.title {
				t.Errorf("%s %q, want edit %q", tt.o.Kind, tt.o.Title, tt.title)
			}
			for _, b := range tt.body {
				if !strings.Contains(tt.o.Body, b) {
					t.Errorf("no %q in the body:\n%s", b, tt.o.Body)
				}
			}
			if !slices.Equal(tt.o.Files, tt.file) || !strings.HasPrefix(tt.o.key, "edit toolu_") || tt.o.Time.IsZero() {
				t.Errorf("files %v, key %q, time %v", tt.o.Files, tt.o.key, tt.o.Time)
			}
		})
	}
	if strings.Contains(obs[0].Title, "type_color") {
		t.Error("a name only the old text had is listed")
	}

	// Only the transcript's last bytes are read: an edit before them is
	// left out, the one within kept.
	size, err := os.Stat(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	tail := int64(len(strings.Join(lines[5:], ""))) // from the Write's line on
	if got := sessionEditsWithin(Observation{}, s, tail+3); len(got) != 1 || !strings.HasPrefix(got[0].Title, "Wrote ") {
		t.Errorf("within the last %d of %d bytes: %s", tail+3, size.Size(), render(got))
	}

	// A transcript gone since it was read: no edits, no error.
	gone := *s
	gone.Path = filepath.Join(t.TempDir(), "gone.jsonl")
	if got := sessionEdits(Observation{}, &gone); got != nil {
		t.Errorf("edits of a missing transcript: %s", render(got))
	}
	// Or cut shorter since: not the transcript the session knows.
	if err := os.WriteFile(gone.Path, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if got := sessionEdits(Observation{}, &gone); got != nil {
		t.Errorf("edits of a truncated transcript: %s", render(got))
	}
}

// The names an edit defines or brings in, in the shapes of a few
// languages; plain words and names the old text had are not names.
func TestEditNames(t *testing.T) {
	tests := []struct {
		name, old, new string
		want           []string
	}{
		{"elixir", "", "defmodule SpotterWeb.OtelTraceHelpers do\n  defmacro with_span(name, attrs, do: block) do\n  defp get_current_trace_id do", []string{"SpotterWeb.OtelTraceHelpers", "with_span", "get_current_trace_id"}},
		{"go", "", "func (s *Store) Search(ctx context.Context) error {\ntype editNames struct{}", []string{"Search", "editNames", "context.Context"}},
		{"javascript", "", "export function highlightTranscriptCode(el) {\nHooks.TranscriptHighlighter = {", []string{"highlightTranscriptCode", "Hooks.TranscriptHighlighter"}},
		{"css", "", ".transcript-debug-grid {\n  --transcript-bg: #fff;\n}", []string{"transcript-debug-grid", "--transcript-bg"}},
		{"new against old", "alias Spotter.Services.Tmux\nTmux.pane_exists?(pane_id)", "Spotter.Services.Tmux.pane_exists?(pane_id)\nrescue_pane_check", []string{"Spotter.Services.Tmux.pane_exists?", "rescue_pane_check"}},
		{"prose", "", "Just some words, e.g. this one: done.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := editNames(tt.old, tt.new); !slices.Equal(got, tt.want) {
				t.Errorf("editNames = %q, want %q", got, tt.want)
			}
		})
	}
}

// BenchmarkSessionEdits is what a checkpoint of a real session spends on
// its edits: reading the transcript's end back and decoding the edits.
func BenchmarkSessionEdits(b *testing.B) {
	dir, err := fixtures.Extract(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	s := transcript.New(filepath.Join(dir, fixtures.Compactions[0].Session+".jsonl"))
	var p transcript.Parser
	if _, err := s.Update(&p); err != nil {
		b.Fatal(err)
	}
	n := 0
	for b.Loop() {
		n = len(sessionEdits(Observation{}, s))
	}
	b.ReportMetric(float64(n), "edits")
}

// A secret an edit wrote is redacted before the edit's text is cut or its
// names picked: neither a whole key nor the start of one that a cut made
// unrecognisable is kept.
func TestEditSecrets(t *testing.T) {
	key := "sk-ant-api03-" + strings.Repeat("A", 80)
	long := strings.Repeat("filler line\n", (maxNameScan-20)/12) + "ANTHROPIC_API_KEY=" + key + "\n"
	s := session(t, t.TempDir(), []step{
		{user: "Configure the client."},
		{tool: "Write", input: map[string]any{"file_path": "/work/shop/.env", "content": "ANTHROPIC_API_KEY=" + key + "\nmax_retries=3\n"}},
		{result: "File created successfully"},
		{tool: "Write", input: map[string]any{"file_path": "/work/shop/long.txt", "content": long}},
		{result: "File created successfully"},
	})
	obs := sessionEdits(Observation{}, s)
	if len(obs) != 2 {
		t.Fatalf("%d edit observations, want 2", len(obs))
	}
	got := render(obs)
	if strings.Contains(got, "sk-ant") || strings.Contains(got, "AAAAAAAA") {
		t.Errorf("a secret or its start was kept:\n%s", got)
	}
	if !strings.Contains(obs[0].Body, "[REDACTED:") || !strings.Contains(obs[0].Title, "max_retries") {
		t.Errorf("the key not marked or the rest lost:\n%s", got)
	}
}

func TestCutAtSpace(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"one line\nsecond line", 15, "one line"},
		{"words and words", 12, "words and"},
		{"averyveryverylongtoken", 5, ""},
	}
	for _, tt := range tests {
		t.Run(tt.s, func(t *testing.T) {
			if got := cutAtSpace(tt.s, tt.n); got != tt.want {
				t.Errorf("cutAtSpace(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
			}
		})
	}
}

// Codex's apply_patch and Gemini CLI's write_file and replace are edits
// too: one observation for each file a patch adds or updates, from the
// real clients' transcripts (internal/transcript/testdata).
func TestAgentEdits(t *testing.T) {
	tests := []struct {
		name, file string
		titles     []string
		files      []string
	}{
		{"codex", "codex/tools-compactions.jsonl", []string{"Wrote hello.py", "Edited notes.txt"},
			[]string{"/tmp/probe/cx/proj/hello.py", "/tmp/probe/cx/proj/notes.txt"}},
		{"gemini", "gemini/tools-compress.jsonl", []string{"Wrote notes.txt", "Edited notes.txt"},
			[]string{"/tmp/probe/gm/proj/notes.txt", "/tmp/probe/gm/proj/notes.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := transcript.New(filepath.Join("..", "transcript", "testdata", tt.file))
			var p transcript.Parser
			if _, err := s.Update(&p); err != nil {
				t.Fatal(err)
			}
			obs := sessionEdits(Observation{Project: "/p", SessionID: s.SessionID}, s)
			var titles, files []string
			for _, o := range obs {
				if o.Kind != KindEdit || o.Time.IsZero() || !strings.HasPrefix(o.key, "edit ") || !strings.Contains(o.Body, "New text: ") {
					t.Errorf("%s %q: key %q, time %v, body %q", o.Kind, o.Title, o.key, o.Time, o.Body)
				}
				titles, files = append(titles, o.Title), append(files, o.Files...)
			}
			if tt.name == "gemini" && !strings.HasPrefix(obs[len(obs)-1].Body, "set x to 2\n") {
				t.Errorf("the replace's instruction is not what it was for: %q", obs[len(obs)-1].Body)
			}
			if !slices.Equal(titles, tt.titles) || !slices.Equal(files, tt.files) {
				t.Errorf("titles %q, files %q; want %q, %q", titles, files, tt.titles, tt.files)
			}
		})
	}
}

// A patch's files, each with its added lines as the new text and its
// removed lines as the old; a deleted file has none and is left out.
func TestPatchFiles(t *testing.T) {
	got := patchFiles("*** Begin Patch\n*** Add File: a.go\n+package a\n+func New() {}\n*** Update File: b/c.ex\n@@ defmodule C\n-  def old_name, do: 1\n+  def new_name, do: 2\n   end\n*** Delete File: gone.txt\n*** End Patch\n")
	want := []patchFile{
		{"a.go", edit{write: true, new: "package a\nfunc New() {}"}},
		{"b/c.ex", edit{old: "  def old_name, do: 1", new: "  def new_name, do: 2"}},
	}
	if !slices.Equal(got, want) {
		t.Errorf("patchFiles:\n got %+v\nwant %+v", got, want)
	}
}
