package meter

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-agent/cairn/internal/transcript"
)

// The meter on Codex CLI and Gemini CLI transcripts captured from the real
// clients (internal/transcript/testdata), read a line at a time as the
// hooks would, against the usage the fake API reported for each response.

const samples = "../transcript/testdata/"

// fakeUsage is the context each turn's response reported, in order, from
// the fake's log: Codex counts input and output (total_tokens), Gemini CLI
// the prompt (promptTokenCount). The fake's compaction calls are left out:
// they are no turn.
func fakeUsage(t *testing.T, path string) []int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct {
			Kind  string `json:"kind"`
			Usage struct {
				Total  int64 `json:"total_tokens"`
				Prompt int64 `json:"promptTokenCount"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Kind == "turn" {
			out = append(out, r.Usage.Total+r.Usage.Prompt)
		}
	}
	return out
}

// codexRecorded is what Codex recorded of each response's usage in its
// token_usage_record lines (total_tokens), less the compaction calls the
// compacted records name: for the shared sample, whose run kept no log of
// the fake's.
func codexRecorded(t *testing.T, path string) []int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		Type    string `json:"type"`
		Payload struct {
			ResponseID           string `json:"response_id"`
			CompactionResponseID string `json:"compaction_response_id"`
			Usage                struct {
				Total int64 `json:"total_tokens"`
			} `json:"usage"`
		} `json:"payload"`
	}
	var recs []rec
	compaction := map[string]bool{}
	for _, l := range bytes.Split(data, []byte("\n")) {
		var r rec
		if len(l) == 0 || json.Unmarshal(l, &r) != nil {
			continue
		}
		recs = append(recs, r)
		if r.Type == "compacted" {
			compaction[r.Payload.CompactionResponseID] = true
		}
	}
	var out []int64
	for _, r := range recs {
		if r.Type == "token_usage_record" && !compaction[r.Payload.ResponseID] {
			out = append(out, r.Payload.Usage.Total)
		}
	}
	return out
}

// geminiRecorded is the prompt token count of each gemini record, once per
// message id: for the shared sample, whose run kept no log of the fake's.
func geminiRecorded(t *testing.T, path string) []int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []int64
	for _, l := range bytes.Split(data, []byte("\n")) {
		var r struct {
			ID     string `json:"id"`
			Type   string `json:"type"`
			Tokens *struct {
				Input int64 `json:"input"`
			} `json:"tokens"`
		}
		if len(l) == 0 || json.Unmarshal(l, &r) != nil || r.Type != "gemini" || r.Tokens == nil || seen[r.ID] {
			continue
		}
		seen[r.ID] = true
		out = append(out, r.Tokens.Input)
	}
	return out
}

// event is the meter's reading after a line that brought a turn, a
// compaction, or the client's count of the context a compaction left
// (Codex writes it a few lines after the compaction).
type event struct {
	line       int
	compaction bool
	post       bool
	reading    Reading
}

// readLines reads the transcript one complete line at a time, the state
// saved and loaded between lines as a hook's process would, and reads the
// meter after each line that brought a turn or a compaction.
func readLines(t *testing.T, path string, rules Rules) ([]event, *transcript.Session) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	grow := filepath.Join(t.TempDir(), "grow.jsonl")
	os.WriteFile(grow, nil, 0o600)
	f, err := os.OpenFile(grow, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := transcript.New(grow)
	var events []event
	for i, l := range bytes.SplitAfter(src, []byte("\n")) {
		f.Write(l)
		turns, comps, post := len(s.Turns), len(s.Compactions), lastPost(s)
		data, _ := json.Marshal(s)
		s = new(transcript.Session)
		if err := json.Unmarshal(data, s); err != nil {
			t.Fatal(err)
		}
		var p transcript.Parser
		if _, err := s.Update(&p); err != nil {
			t.Fatal(err)
		}
		if len(s.Turns) == turns && len(s.Compactions) == comps && lastPost(s) == post {
			continue
		}
		r, _ := Measure(s, rules)
		events = append(events, event{line: i + 1, compaction: len(s.Compactions) > comps,
			post: len(s.Turns) == turns && len(s.Compactions) == comps, reading: r})
	}
	return events, s
}

func lastPost(s *transcript.Session) int64 {
	if n := len(s.Compactions); n > 0 {
		return s.Compactions[n-1].PostTokens
	}
	return 0
}

func TestMeterOnAgentSamples(t *testing.T) {
	tests := []struct {
		name  string
		path  string
		rules Rules
		// want is each turn's context as the fake reported it (or, for a
		// shared sample, as the client recorded it).
		want              func(t *testing.T) []int64
		window, threshold int64
		windowFrom        string
		manual            bool  // the sample's compactions were asked for
		post              int64 // the reading after the first compaction
		postFrom          string
	}{
		{
			name: "codex, auto compaction (shared)", path: samples + "codex/auto-compaction.jsonl",
			// config.toml: model_context_window 200000, model_auto_compact_token_limit 50000.
			rules:  CodexRules{ConfigWindow: 200_000, AutoCompactLimit: 50_000},
			want:   func(t *testing.T) []int64 { return codexRecorded(t, samples+"codex/auto-compaction.jsonl") },
			window: 190_000, windowFrom: "transcript", threshold: 50_000,
			post: 6072, postFrom: "compact_boundary",
		},
		{
			name: "codex, tools and two compactions", path: samples + "codex/tools-compactions.jsonl",
			rules:  CodexRules{ConfigWindow: 200_000, AutoCompactLimit: 50_000},
			want:   func(t *testing.T) []int64 { return fakeUsage(t, samples+"codex/tools-compactions.usage.jsonl") },
			window: 190_000, windowFrom: "transcript", threshold: 50_000,
			post: 6888, postFrom: "compact_boundary",
		},
		{
			name: "gemini, manual /compress (shared)", path: samples + "gemini/compress.jsonl",
			// settings.json: model.compressionThreshold 0.1.
			rules:  GeminiRules{Threshold: 0.1},
			want:   func(t *testing.T) []int64 { return geminiRecorded(t, samples+"gemini/compress.jsonl") },
			window: 1_048_576, windowFrom: "model", threshold: 104_858,
			manual: true, post: 223, postFrom: "compact_estimate",
		},
		{
			name: "gemini, tools and a compression", path: samples + "gemini/tools-compress.jsonl",
			rules:  GeminiRules{Threshold: 0.075},
			want:   func(t *testing.T) []int64 { return fakeUsage(t, samples+"gemini/tools-compress.usage.jsonl") },
			window: 1_048_576, windowFrom: "model", threshold: 78_644,
			post: 187, postFrom: "compact_estimate",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want(t)
			events, _ := readLines(t, tt.path, tt.rules)
			var turns []int64
			for i, e := range events {
				r := e.reading
				if r.Window != tt.window || r.WindowSource != tt.windowFrom || r.Threshold != tt.threshold {
					t.Fatalf("line %d: window %d (%s) threshold %d, want %d (%s) %d",
						e.line, r.Window, r.WindowSource, r.Threshold, tt.window, tt.windowFrom, tt.threshold)
				}
				if e.post {
					continue
				}
				if !e.compaction {
					if r.Source != "usage" {
						t.Errorf("line %d: source %q after a turn", e.line, r.Source)
					}
					turns = append(turns, r.Tokens)
					continue
				}
				// The reading the client compacted on: over its threshold,
				// unless the user asked.
				if i == 0 || events[i-1].compaction || events[i-1].post {
					t.Fatalf("line %d: a compaction with no turn before it", e.line)
				}
				before := events[i-1].reading.Tokens
				if !tt.manual && before < tt.threshold {
					t.Errorf("line %d: compacted at %d, under the threshold %d", e.line, before, tt.threshold)
				}
			}
			if len(turns) != len(want) {
				t.Fatalf("%d turns read, the fake reported %d: %v vs %v", len(turns), len(want), turns, want)
			}
			for i := range want {
				if turns[i] != want[i] {
					t.Errorf("turn %d: meter %d, fake reported %d", i+1, turns[i], want[i])
				}
			}
			// Over the threshold, the client compacts before the next turn.
			for i, e := range events {
				if !e.compaction && !e.post && e.reading.Tokens >= tt.threshold && (i+1 == len(events) || !events[i+1].compaction) {
					t.Errorf("line %d: %d is over the threshold %d, yet no compaction followed", e.line, e.reading.Tokens, tt.threshold)
				}
			}
			// After the first compaction, before the next turn: the
			// client's own count (Codex) or the estimate from the history
			// it kept (Gemini CLI).
			for i, e := range events {
				if !e.compaction {
					continue
				}
				for i+1 < len(events) && events[i+1].post {
					i++
				}
				if r := events[i].reading; r.Tokens != tt.post || r.Source != tt.postFrom {
					t.Errorf("after the compaction: %d (%s), want %d (%s)", r.Tokens, r.Source, tt.post, tt.postFrom)
				}
				break
			}
		})
	}
}

func TestCodexRules(t *testing.T) {
	withWindow := &transcript.Session{ContextWindow: 190_000}
	bare := &transcript.Session{}
	tests := []struct {
		name       string
		rules      CodexRules
		s          *transcript.Session
		window     int64
		from       string
		threshold  int64
		autoCompac bool
	}{
		{"rollout window, configured limit", CodexRules{ConfigWindow: 200_000, AutoCompactLimit: 50_000}, withWindow, 190_000, "transcript", 50_000, true},
		{"limit unset: 90% of the whole window", CodexRules{ConfigWindow: 200_000}, withWindow, 190_000, "transcript", 180_000, true},
		{"limit never above 90%", CodexRules{ConfigWindow: 200_000, AutoCompactLimit: 500_000}, withWindow, 190_000, "transcript", 180_000, true},
		{"whole window from the rollout's", CodexRules{}, withWindow, 190_000, "transcript", 180_000, true},
		{"config only", CodexRules{ConfigWindow: 400_000}, bare, 380_000, "config", 360_000, true},
		{"nothing known", CodexRules{}, bare, 258_400, "default", 244_800, true},
		{"override", CodexRules{Window: 100_000, AutoCompactLimit: 80_000}, withWindow, 100_000, "override", 80_000, true},
		{"disabled", CodexRules{Disabled: true}, withWindow, 190_000, "transcript", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, from := tt.rules.ContextWindow(tt.s)
			if w != tt.window || from != tt.from || tt.rules.CompactAt(w) != tt.threshold || tt.rules.Compacts() != tt.autoCompac {
				t.Errorf("window %d (%s) threshold %d compacts %v", w, from, tt.rules.CompactAt(w), tt.rules.Compacts())
			}
		})
	}
}

func TestGeminiRules(t *testing.T) {
	tests := []struct {
		name      string
		rules     GeminiRules
		model     string
		window    int64
		from      string
		threshold int64
	}{
		{"default threshold", GeminiRules{}, "gemini-2.5-pro", 1_048_576, "model", 524_288},
		{"threshold 0.075", GeminiRules{Threshold: 0.075}, "gemini-2.5-flash", 1_048_576, "model", 78_644},
		{"1.5 pro", GeminiRules{}, "gemini-1.5-pro-002", 2_097_152, "model", 1_048_576},
		{"unknown model", GeminiRules{}, "gemini-9-ultra", 1_048_576, "default", 524_288},
		{"override", GeminiRules{Window: 200_000, Threshold: 0.7}, "gemini-2.5-pro", 200_000, "override", 140_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, from := tt.rules.ContextWindow(&transcript.Session{Model: tt.model})
			if w != tt.window || from != tt.from || tt.rules.CompactAt(w) != tt.threshold || !tt.rules.Compacts() {
				t.Errorf("window %d (%s) threshold %d", w, from, tt.rules.CompactAt(w))
			}
		})
	}
}

// Claude Code's rules read through the interface are the package
// functions' arithmetic.
func TestSettingsAreRules(t *testing.T) {
	for _, set := range []Settings{{}, {Window: 300_000}, {AutoCompactWindow: 100_000, PctOverride: 50}, {Disabled: true}} {
		s := &transcript.Session{Model: "claude-opus-5-5"}
		w, from := set.ContextWindow(s)
		ww, wfrom := Window(s, set)
		if w != ww || from != wfrom || set.CompactAt(w) != Threshold(w, set) || set.Compacts() == set.Disabled {
			t.Errorf("%+v: rules disagree with Window/Threshold", set)
		}
	}
}
