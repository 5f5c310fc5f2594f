package memory

import (
	"slices"
	"testing"
	"time"
)

// A term counts as named when it is a part of a compound name (snake,
// camel, kebab, dotted), not when the text merely says it.
func TestNamed(t *testing.T) {
	tests := []struct {
		text  string
		terms []string
		want  float64
	}{
		{"defp compute_expand_groups(lines)", []string{"expand", "groups", "function"}, 2.0 / 3},
		{"Spotter.Services.TranscriptTailSupervisor stops it", []string{"supervisor", "tail", "stop"}, 2.0 / 3},
		{"the supervisor stops the tail worker", []string{"supervisor", "tail"}, 0},
		{".transcript-debug-grid { display: grid }", []string{"debug", "grid"}, 1},
		{"newHTTPServer", []string{"http", "server"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := named(tt.text, tt.terms); got != tt.want {
				t.Errorf("named(%q, %q) = %v, want %v", tt.text, tt.terms, got, tt.want)
			}
		})
	}
}

func TestCamelParts(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"TranscriptTailSupervisor", []string{"Transcript", "Tail", "Supervisor"}},
		{"HTTPServer", []string{"HTTP", "Server"}},
		{"getHTTP2Response", []string{"get", "HTTP2", "Response"}},
		{"plain", []string{"plain"}},
		{"ÉtéCafé", []string{"Été", "Café"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := camelParts(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("camelParts(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// A question names a project by a word of its directory's name, or of the
// directory above it (a worktree's subdirectory).
func TestInProject(t *testing.T) {
	tests := []struct {
		project string
		terms   []string
		want    float64
	}{
		{"/home/u/projects/spotter-worktrees/spotter-dov", []string{"happened", "dov", "work"}, 1},
		{"/home/u/projects/spotter-worktrees/spotter-fum/assets", []string{"fum", "tests"}, 1},
		{"/home/u/projects/spotter-worktrees/spotter-fum", []string{"dov", "commit"}, 0},
		{"/home/u/projects/spotter", []string{"spot"}, 0},
		{"", []string{"home"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.project, func(t *testing.T) {
			if got := inProject(tt.project, tt.terms); got != tt.want {
				t.Errorf("inProject(%q, %q) = %v, want %v", tt.project, tt.terms, got, tt.want)
			}
		})
	}
}

// A number counts beside a term only next to it, in either order; the
// question's own numbers are not looked for.
func TestValueBeside(t *testing.T) {
	tests := []struct {
		text  string
		terms []string
		want  float64
	}{
		{"0.3s running 69 checks on 49 files", []string{"credo", "checks", "files"}, 2.0 / 3},
		{"Upgraded: lazy_html 0.1.10", []string{"version", "lazy", "html"}, 1.0 / 3},
		{"checks ran on the files in 2 batches", []string{"checks", "files"}, 0},
		{"12 tests, 0 failures", []string{"12", "tests"}, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := valueBeside(words(tt.text), tt.terms); got != tt.want {
				t.Errorf("valueBeside(%q, %q) = %v, want %v", tt.text, tt.terms, got, tt.want)
			}
		})
	}
}

func TestAsksValue(t *testing.T) {
	tests := []struct {
		q    string
		want bool
	}{
		{"how many checks over how many files?", true},
		{"what version of lazy_html got resolved", true},
		{"how long did the suite take", true},
		{"which file fixed the error", false},
	}
	for _, tt := range tests {
		if got := asksValue(tt.q); got != tt.want {
			t.Errorf("asksValue(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

// What the user said is asked with the user (or I) and a verb of saying;
// a tool that "said" something asks for no answer of the user's. A reason
// is asked for of decisions and findings.
func TestIntents(t *testing.T) {
	tests := []struct {
		q    string
		want []string
	}{
		{"How did the user reply when asked whether to bypass the hook?", []string{KindAnswer}},
		{"What did I tell the agent after the first push?", []string{KindAnswer}},
		{"credo said the code was too complex - which file?", nil},
		{"Why did I delete the handler?", []string{KindDecision, KindFinding}},
		{"which command runs the tests", []string{KindCommand}},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			if got := intents(tt.q); !slices.Equal(got, tt.want) {
				t.Errorf("intents(%q) = %q, want %q", tt.q, got, tt.want)
			}
		})
	}
}

// A command's hit goes when a better one says what the same run printed
// or how it ended; a command of another moment or session stays, and so
// does one ranked above its output.
func TestRanOnce(t *testing.T) {
	at := time.Date(2026, 2, 11, 20, 58, 13, 0, time.UTC)
	hits := []Hit{
		{ID: 1, Kind: KindOutput, SessionID: "a", Time: at},
		{ID: 2, Kind: KindEdit, SessionID: "a", Time: at.Add(time.Second)},
		{ID: 3, Kind: KindCommand, SessionID: "a", Time: at},
		{ID: 4, Kind: KindCommand, SessionID: "b", Time: at},
		{ID: 5, Kind: KindCommand, SessionID: "a", Time: at.Add(time.Second)},
		{ID: 6, Kind: KindCommand, SessionID: "c", Time: at},
		{ID: 7, Kind: KindCount, SessionID: "c", Time: at},
	}
	var got []int64
	for _, h := range ranOnce(hits) {
		got = append(got, h.ID)
	}
	if want := []int64{1, 2, 4, 5, 6, 7}; !slices.Equal(got, want) {
		t.Errorf("ranOnce kept %v, want %v", got, want)
	}
}

// The command line is the text's first span between backquotes; words
// elsewhere in the text do not count.
func TestInCommand(t *testing.T) {
	tests := []struct {
		text  string
		terms []string
		want  float64
	}{
		{"Install highlight.js: `cd assets && npm install highlight.js` exit 0", []string{"installed", "highlight", "assets"}, 1},
		{"Show fum.3: `bd show spotter-fum.3` printed: Integrate highlight.js", []string{"highlight", "show"}, 0.5},
		{"Edited app.js: highlightTranscriptCode, highlight.js", []string{"highlight"}, 0},
		{"an unclosed `quote with highlight", []string{"highlight"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := inCommand(tt.text, tt.terms); got != tt.want {
				t.Errorf("inCommand(%q, %q) = %v, want %v", tt.text, tt.terms, got, tt.want)
			}
		})
	}
}

// A decision said after an edit of the same file, in the same session,
// goes just above that edit; one said before it, one of another session
// or about another file stays where it ranked.
func TestLaterWord(t *testing.T) {
	at := time.Date(2026, 2, 12, 15, 54, 27, 0, time.UTC)
	mig := "/w/priv/repo/migrations/2026_add_index.exs"
	tests := []struct {
		name string
		hits []Hit
		want []int64
	}{
		{"after, same file", []Hit{
			{ID: 1, Kind: KindOutput, SessionID: "a", Time: at},
			{ID: 2, Kind: KindEdit, SessionID: "a", Time: at, Files: []string{mig}},
			{ID: 3, Kind: KindRead, SessionID: "a", Time: at},
			{ID: 4, Kind: KindDecision, SessionID: "a", Time: at.Add(time.Minute), Files: []string{mig}},
		}, []int64{1, 4, 2, 3}},
		{"before the edit", []Hit{
			{ID: 2, Kind: KindEdit, SessionID: "a", Time: at, Files: []string{mig}},
			{ID: 4, Kind: KindDecision, SessionID: "a", Time: at.Add(-time.Minute), Files: []string{mig}},
		}, []int64{2, 4}},
		{"another session", []Hit{
			{ID: 2, Kind: KindEdit, SessionID: "a", Time: at, Files: []string{mig}},
			{ID: 4, Kind: KindDecision, SessionID: "b", Time: at.Add(time.Minute), Files: []string{mig}},
		}, []int64{2, 4}},
		{"another file", []Hit{
			{ID: 2, Kind: KindEdit, SessionID: "a", Time: at, Files: []string{mig}},
			{ID: 4, Kind: KindDecision, SessionID: "a", Time: at.Add(time.Minute), Files: []string{"/w/mix.exs"}},
		}, []int64{2, 4}},
		{"not an edit above", []Hit{
			{ID: 2, Kind: KindCommand, SessionID: "a", Time: at, Files: []string{mig}},
			{ID: 4, Kind: KindDecision, SessionID: "a", Time: at.Add(time.Minute), Files: []string{mig}},
		}, []int64{2, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int64
			for _, h := range laterWord(tt.hits) {
				got = append(got, h.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("laterWord gave %v, want %v", got, tt.want)
			}
		})
	}
}
