package transcript

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/fixtures"
)

// fixturePath is the path of a real transcript, extracted once per test
// binary.
func fixturePath(t testing.TB, name string) string {
	t.Helper()
	p, err := fixtures.Path(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMain(m *testing.M) {
	code := m.Run()
	fixtures.Remove()
	os.Exit(code)
}

// reference derives the same figures with encoding/json and none of the
// engine's code, as an independent check.
type reference struct {
	turns       int
	lastContext int64
	compactions []Compaction
	toolCalls   int
	errors      int
	bashExit    map[string]bool // tool id -> failed
}

func referenceOf(t *testing.T, path string) reference {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := reference{bashExit: map[string]bool{}}
	seen := map[string]bool{}
	calls := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var e struct {
			Type        string `json:"type"`
			Subtype     string `json:"subtype"`
			IsSidechain bool   `json:"isSidechain"`
			Message     struct {
				ID      string          `json:"id"`
				Model   string          `json:"model"`
				Content json.RawMessage `json:"content"`
				Usage   *struct {
					In int64 `json:"input_tokens"`
					CC int64 `json:"cache_creation_input_tokens"`
					CR int64 `json:"cache_read_input_tokens"`
				} `json:"usage"`
			} `json:"message"`
			Meta struct {
				Trigger string `json:"trigger"`
				Pre     int64  `json:"preTokens"`
				Post    int64  `json:"postTokens"`
			} `json:"compactMetadata"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("fixture line does not decode: %v", err)
		}
		if e.Type == "system" && e.Subtype == "compact_boundary" {
			r.compactions = append(r.compactions, Compaction{Trigger: e.Meta.Trigger, PreTokens: e.Meta.Pre, PostTokens: e.Meta.Post})
		}
		var blocks []struct {
			Type    string `json:"type"`
			ID      string `json:"id"`
			ToolID  string `json:"tool_use_id"`
			IsError bool   `json:"is_error"`
		}
		if len(e.Message.Content) > 0 && e.Message.Content[0] == '[' {
			json.Unmarshal(e.Message.Content, &blocks)
		}
		for _, b := range blocks {
			if b.Type == "tool_use" && !calls[b.ID] {
				calls[b.ID] = true
				r.toolCalls++
			}
			if b.Type == "tool_result" && b.IsError && calls[b.ToolID] {
				r.errors++
			}
		}
		if e.Type != "assistant" || e.IsSidechain || e.Message.Model == "<synthetic>" || e.Message.Usage == nil {
			continue
		}
		u := e.Message.Usage
		if !seen[e.Message.ID] {
			seen[e.Message.ID] = true
			r.turns++
		}
		r.lastContext = u.In + u.CC + u.CR
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRealTranscripts(t *testing.T) {
	names := fixtures.Small
	for _, c := range fixtures.Compactions {
		names = append(names, c.Session)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path := fixturePath(t, name)
			want := referenceOf(t, path)
			s := New(path)
			var p Parser
			if _, err := s.Update(&p); err != nil {
				t.Fatal(err)
			}
			if err := s.UpdateSubagents(&p); err != nil {
				t.Fatal(err)
			}
			errs := 0
			for _, c := range s.ToolCalls {
				if c.IsError {
					errs++
				}
			}
			if s.BadCount != 0 {
				t.Errorf("bad lines: %+v", s.BadLines)
			}
			if len(s.Turns) != want.turns || s.Turns[len(s.Turns)-1].Usage.Context() != want.lastContext {
				t.Errorf("turns = %d (last %d), reference %d (last %d)", len(s.Turns), s.Turns[len(s.Turns)-1].Usage.Context(), want.turns, want.lastContext)
			}
			if len(s.ToolCalls) != want.toolCalls || errs != want.errors {
				t.Errorf("tool calls = %d with %d errors, reference %d with %d", len(s.ToolCalls), errs, want.toolCalls, want.errors)
			}
			if len(s.Compactions) != len(want.compactions) {
				t.Fatalf("compactions = %d, reference %d", len(s.Compactions), len(want.compactions))
			}
			for i, c := range s.Compactions {
				w := want.compactions[i]
				if c.Trigger != w.Trigger || c.PreTokens != w.PreTokens || c.PostTokens != w.PostTokens {
					t.Errorf("compaction %d = %s %d/%d, reference %s %d/%d", i, c.Trigger, c.PreTokens, c.PostTokens, w.Trigger, w.PreTokens, w.PostTokens)
				}
				if !strings.HasPrefix(c.Summary, "This session is being continued") {
					t.Errorf("compaction %d summary = %.60q", i, c.Summary)
				}
			}
			if len(s.Prompts) == 0 {
				t.Error("no prompts")
			}
			for _, a := range s.Subagents {
				if a.Session.NumTurns() == 0 || a.Session.BadCount != 0 {
					t.Errorf("subagent %s: %d turns, %d bad lines", a.ID, a.Session.NumTurns(), a.Session.BadCount)
				}
			}
		})
	}
}

// The five fixtures with a compaction each report exactly one, with the
// preTokens their boundary recorded.
func TestRealCompactions(t *testing.T) {
	for _, want := range fixtures.Compactions {
		t.Run(want.Session[:8], func(t *testing.T) {
			s := New(fixturePath(t, want.Session))
			var p Parser
			if _, err := s.Update(&p); err != nil {
				t.Fatal(err)
			}
			if err := s.UpdateSubagents(&p); err != nil {
				t.Fatal(err)
			}
			if len(s.Compactions) != 1 {
				t.Fatalf("compactions = %d, want 1", len(s.Compactions))
			}
			c := s.Compactions[0]
			if c.Trigger != want.Trigger || c.PreTokens != want.PreTokens {
				t.Errorf("got %s %d, want %s %d", c.Trigger, c.PreTokens, want.Trigger, want.PreTokens)
			}
			compact := 0
			for _, a := range s.Subagents {
				if a.Compact {
					compact++
				}
			}
			if compact != 1 {
				t.Errorf("compaction summariser transcripts = %d, want 1", compact)
			}
		})
	}
}

// Reading a transcript in many small appends gives what one read gives.
func TestIncrementalEqualsCold(t *testing.T) {
	src, err := os.ReadFile(fixturePath(t, fixtures.Compactions[0].Session))
	if err != nil {
		t.Fatal(err)
	}
	cold := New("x")
	path := filepath.Join(t.TempDir(), "grow.jsonl")
	os.WriteFile(path, src, 0o600)
	cold.Path = path
	var p Parser
	cold.Update(&p)

	os.WriteFile(path, nil, 0o600)
	warm := New(path)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	defer f.Close()
	for i := 0; i < len(src); {
		n := min(len(src)-i, 7919+i%104729) // uneven steps that cut lines anywhere
		f.Write(src[i : i+n])
		i += n
		// Each step in a "new process": state through JSON.
		data, err := json.Marshal(warm)
		if err != nil {
			t.Fatal(err)
		}
		warm = new(Session)
		if err := json.Unmarshal(data, warm); err != nil {
			t.Fatal(err)
		}
		var p Parser
		if _, err := warm.Update(&p); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := json.Marshal(cold)
	b, _ := json.Marshal(warm)
	if string(a) != string(b) {
		t.Errorf("incremental state differs from a cold read (%d vs %d bytes)", len(b), len(a))
	}
}
