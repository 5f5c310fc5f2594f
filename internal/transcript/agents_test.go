package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/google/go-cmp/cmp"
)

// The samples under testdata are the project's own captures of the real
// clients (Codex CLI 0.169.0, Gemini CLI 0.61.0) driven offline by a fake
// API on loopback; testdata/README.md says how each was made.
const (
	codexAuto   = "testdata/codex/auto-compaction.jsonl"
	codexTools  = "testdata/codex/tools-compactions.jsonl"
	geminiComp  = "testdata/gemini/compress.jsonl"
	geminiTools = "testdata/gemini/tools-compress.jsonl"
)

var agentSamples = []string{codexAuto, codexTools, geminiComp, geminiTools}

// read derives a session from a whole file, the client told by its first
// line.
func read(t *testing.T, path string) *Session {
	t.Helper()
	s := New(path)
	var p Parser
	if _, err := s.Update(&p); err != nil {
		t.Fatal(err)
	}
	return s
}

// feedClient reads lines as one transcript of client.
func feedClient(t *testing.T, client string, lines ...string) *Session {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := NewFor(path, client)
	var p Parser
	if _, err := s.Update(&p); err != nil {
		t.Fatal(err)
	}
	return s
}

func contexts(s *Session) []int64 {
	var out []int64
	for _, t := range s.Turns {
		out = append(out, t.Usage.Context())
	}
	return out
}

func prompts(s *Session) []string {
	var out []string
	for _, p := range s.Prompts {
		out = append(out, p.Text)
	}
	return out
}

// callSummary is what a test checks of a tool call.
type callSummary struct {
	Name, Command, File string
	Paths               []string
	Done, IsError       bool
	Exit                int // -1: none
	Outcome             string
}

func calls(s *Session) []callSummary {
	var out []callSummary
	for _, c := range s.ToolCalls {
		cs := callSummary{Name: c.Name, Command: c.Command, File: c.FilePath, Paths: c.Paths, Done: c.Done, IsError: c.IsError, Exit: -1}
		if c.ExitCode != nil {
			cs.Exit = *c.ExitCode
		}
		if c.Outcome != nil {
			cs.Outcome = c.Outcome.Status.String()
		}
		out = append(out, cs)
	}
	return out
}

func TestAgentSamples(t *testing.T) {
	type compaction struct {
		Pre, Post    int64
		Summary      string
		ContextChars int
		TurnsBefore  int
	}
	tests := []struct {
		path                   string
		client, id, model, cwd string
		version                string
		window                 int64
		contexts               []int64
		prompts                []string
		compactions            []compaction
		calls                  []callSummary
		files                  []FileStat
		decisions              int
	}{
		{
			path: codexAuto, client: Codex, id: "01a20c9d-f649-7071-a73a-d6745c8c97c0", model: "gpt-5.1-codex",
			cwd: "/home/user/proj", version: "0.169.0", window: 190000,
			// The compaction call's own 3,020 is not a turn.
			contexts:    []int64{1020, 60020, 3020},
			prompts:     []string{"Say hello again", "Turn two, big usage", "Turn three after compaction?"},
			compactions: []compaction{{Pre: 60020, Post: 6072, Summary: "SUMMARY-4: the user asked things; keep WORD=pelican.", TurnsBefore: 2}},
		},
		{
			path: codexTools, client: Codex, id: "01a20dfb-c9bd-76d0-aa9b-d3c96d62aea2", model: "gpt-5.5",
			cwd: "/tmp/probe/cx/proj", version: "0.169.0", window: 190000,
			contexts: []int64{1020, 1020, 4020, 4020, 9020, 9020, 60020, 3020, 60020, 7020, 8020},
			prompts: []string{"Run the build and tell me what fails", "Write notes.txt with x=1", "Add hello.py and set x=2 in notes.txt",
				"Turn four, big usage", "Turn five after compaction?", "Turn six: list files (mid-turn compaction)"},
			compactions: []compaction{
				{Pre: 60020, Post: 6888, Summary: "SUMMARY-8: the user asked things; keep WORD=pelican.", TurnsBefore: 7},
				// Mid-turn, after a tool result.
				{Pre: 60020, Post: 6907, Summary: "SUMMARY-11: the user asked things; keep WORD=pelican.", TurnsBefore: 9},
			},
			calls: []callSummary{
				{Name: "Bash", Command: "echo building; echo FAIL: TestParse >&2; exit 3", Done: true, IsError: true, Exit: 3, Outcome: "failed"},
				{Name: "Bash", Command: `printf "x=1\n" > notes.txt && cat notes.txt`, Done: true, Exit: 0, Outcome: "passed"},
				{Name: "apply_patch", File: "/tmp/probe/cx/proj/hello.py", Paths: []string{"/tmp/probe/cx/proj/notes.txt"}, Done: true, Exit: -1},
				{Name: "Bash", Command: "ls", Done: true, Exit: 0, Outcome: "passed"},
				{Name: "Bash", Command: "ls", Done: true, Exit: 0, Outcome: "passed"},
			},
			files: []FileStat{
				{Path: "/tmp/probe/cx/proj/notes.txt", Write: 1, Edit: 1, Created: true},
				{Path: "/tmp/probe/cx/proj/hello.py", Write: 1, Created: true},
			},
			decisions: 1,
		},
		{
			path: geminiComp, client: Gemini, id: "718d5760-9adb-49cc-b597-b06eb3564c43", model: "gemini-2.5-pro",
			cwd:      "/home/user/proj",
			contexts: []int64{1000, 1000, 1000, 50000, 2000},
			// Hook context stripped; /compress was typed in -p mode, where
			// it is a prompt like any other.
			prompts:     []string{"SS first", "SS second", "/compress", "hello big", "after compress"},
			compactions: []compaction{{Pre: 50000, Summary: "SUMMARY-17: keep WORD=pelican.", ContextChars: 891, TurnsBefore: 4}},
		},
		{
			path: geminiTools, client: Gemini, id: "f4240f47-aa1e-4d14-a779-e89b5838b8e7", model: "gemini-2.5-pro",
			cwd:      "/tmp/probe/gm/proj",
			contexts: []int64{1000, 1200, 2000, 2500, 3000, 3500, 90000, 5000, 7000},
			prompts: []string{"Run the build and tell me what fails", "Write notes.txt with x=1", "Set x=2 in notes.txt",
				"Big turn: list the files", "After compression, what is WORD?"},
			compactions: []compaction{{Pre: 90000, Summary: "SUMMARY-9: keep WORD=pelican.", ContextChars: 748, TurnsBefore: 7}},
			calls: []callSummary{
				{Name: "Bash", Command: "echo building; echo FAIL: TestParse >&2; exit 3", Done: true, IsError: true, Exit: 3, Outcome: "failed"},
				{Name: "Write", File: "/tmp/probe/gm/proj/notes.txt", Done: true, Exit: -1},
				{Name: "Edit", File: "/tmp/probe/gm/proj/notes.txt", Done: true, Exit: -1},
				{Name: "Bash", Command: "ls", Done: true, Exit: 0, Outcome: "passed"},
			},
			files:     []FileStat{{Path: "/tmp/probe/gm/proj/notes.txt", Write: 1, Edit: 1, Created: true}},
			decisions: 1,
		},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			s := read(t, tt.path)
			if s.Client != tt.client || s.SessionID != tt.id || s.Model != tt.model || s.CWD != tt.cwd ||
				s.ClientVersion != tt.version || s.ContextWindow != tt.window {
				t.Errorf("client %q id %q model %q cwd %q version %q window %d", s.Client, s.SessionID, s.Model, s.CWD, s.ClientVersion, s.ContextWindow)
			}
			if s.BadCount != 0 {
				t.Errorf("bad lines: %+v", s.BadLines)
			}
			if d := cmp.Diff(tt.contexts, contexts(s)); d != "" {
				t.Errorf("turn contexts (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.prompts, prompts(s)); d != "" {
				t.Errorf("prompts (-want +got):\n%s", d)
			}
			var got []compaction
			for _, c := range s.Compactions {
				got = append(got, compaction{c.PreTokens, c.PostTokens, c.Summary, c.ContextChars, c.TurnsBefore})
			}
			if d := cmp.Diff(tt.compactions, got); d != "" {
				t.Errorf("compactions (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.calls, calls(s)); d != "" {
				t.Errorf("tool calls (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.files, s.Files); d != "" {
				t.Errorf("files (-want +got):\n%s", d)
			}
			if len(s.Decisions) != tt.decisions {
				t.Errorf("decisions = %+v, want %d", s.Decisions, tt.decisions)
			}
			for _, n := range s.LastTexts {
				if strings.Contains(n.Text, "SUMMARY-") || strings.HasPrefix(n.Text, "Got it.") {
					t.Errorf("a compaction's output read as the assistant's text: %q", n.Text)
				}
			}
		})
	}
}

// Reading a sample in many small appends, each in a "new process" (the
// state through JSON), gives what one read gives: what a decoder carries
// between lines is saved with the session.
func TestAgentIncrementalEqualsCold(t *testing.T) {
	for _, sample := range agentSamples {
		t.Run(filepath.Base(sample), func(t *testing.T) {
			src, err := os.ReadFile(sample)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "grow.jsonl")
			os.WriteFile(path, src, 0o600)
			cold := read(t, path)

			os.WriteFile(path, nil, 0o600)
			warm := New(path)
			f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
			defer f.Close()
			for i := 0; i < len(src); {
				n := min(len(src)-i, 97+i%3001) // uneven steps that cut lines anywhere
				f.Write(src[i : i+n])
				i += n
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
				t.Errorf("incremental state differs from a cold read:\n%s", cmp.Diff(string(a), string(b)))
			}
		})
	}
}

func TestSniff(t *testing.T) {
	first := func(path string) string {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		sc.Scan()
		return sc.Text()
	}
	tests := []struct {
		name, line, want string
	}{
		{"codex rollout", first(codexAuto), Codex},
		{"gemini chat", first(geminiComp), Gemini},
		{"claude user line", userText("hello", ""), ClaudeCode},
		{"claude summary line", `{"type":"summary","summary":"x","leafUuid":"u"}`, ClaudeCode},
		{"claude line that quotes a gemini header", userText(`{"sessionId":"s","projectHash":"h"}`, ""), ClaudeCode},
		{"not JSON", "garbage", ClaudeCode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sniff([]byte(tt.line)); got != tt.want {
				t.Errorf("Sniff = %q, want %q", got, tt.want)
			}
		})
	}
	// A file's client is told at its first complete line and kept.
	path := filepath.Join(t.TempDir(), "c.jsonl")
	src, _ := os.ReadFile(codexAuto)
	os.WriteFile(path, src[:100], 0o600) // half of the first line
	s := New(path)
	var p Parser
	if _, err := s.Update(&p); err != nil || s.Client != "" || s.Offset != 0 {
		t.Fatalf("half a first line: client %q offset %d err %v", s.Client, s.Offset, err)
	}
	os.WriteFile(path, src, 0o600)
	if _, err := s.Update(&p); err != nil || s.Client != Codex || len(s.Turns) != 3 {
		t.Fatalf("whole file: client %q turns %d err %v", s.Client, len(s.Turns), err)
	}
}

// Codex records, one line each, as the rollout writes them.
func cx(typ, payload string, extra ...string) string {
	line := `{"timestamp":"2026-11-24T08:13:28.873Z","ordinal":1,"type":"` + typ + `","payload":` + payload
	for _, e := range extra {
		line += "," + e
	}
	return line + "}"
}

func cxUsage(cum, in, cached, out, total int) string {
	u := func(in, cached, out, total int) string {
		b, _ := json.Marshal(map[string]int{"input_tokens": in, "cached_input_tokens": cached, "cache_write_input_tokens": 0,
			"output_tokens": out, "reasoning_output_tokens": 0, "total_tokens": total})
		return string(b)
	}
	return cx("event_msg", `{"type":"token_count","info":{"total_token_usage":`+u(0, 0, 0, cum)+`,"last_token_usage":`+u(in, cached, out, total)+`,"model_context_window":190000}}`)
}

func cxRecord(id string) string {
	return cx("token_usage_record", `{"response_id":"`+id+`","usage":{}}`)
}

func TestCodexLines(t *testing.T) {
	meta := cx("session_meta", `{"id":"T","cwd":"/w","cli_version":"0.169.0","git":{"branch":"main"}}`)
	tests := []struct {
		name        string
		lines       []string
		contexts    []int64
		compactions int
		post        int64
		calls       []callSummary
		prompts     []string
		todos       []Todo
	}{
		{
			name: "a repeated token_count is no new response",
			lines: []string{meta, cxRecord("r1"), cxUsage(1020, 1000, 0, 20, 1020), cxUsage(1020, 1000, 0, 20, 1020),
				cxRecord("r2"), cxUsage(2040, 1000, 0, 20, 1020)},
			contexts: []int64{1020, 1020},
		},
		{
			name:     "cached input is part of the context, not on top of it",
			lines:    []string{meta, cxRecord("r1"), cxUsage(9020, 9000, 6000, 20, 9020)},
			contexts: []int64{9020},
		},
		{
			name: "the compaction call's usage, marked by compaction_output, is no turn; the zeroed count is its estimate",
			lines: []string{meta, cxRecord("r1"), cxUsage(60020, 60000, 0, 20, 60020),
				cx("response_item", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"SUMMARY"}]}`, `"metadata":{"compaction_output":true}`),
				cxRecord("r2"), cxUsage(63040, 3000, 0, 20, 3020),
				cx("compacted", `{"message":"Another language model ... use the information in this summary to assist with your own analysis:\nSUMMARY","compaction_response_id":"r2"}`),
				cxUsage(63040, 0, 0, 0, 6072),
				cx("event_msg", `{"type":"item_completed","item":{"type":"ContextCompaction","id":"c"}}`)},
			contexts: []int64{60020}, compactions: 1, post: 6072,
		},
		{
			name: "without the mark, the compacted record's response id takes the turn back",
			lines: []string{meta, cxRecord("r1"), cxUsage(60020, 60000, 0, 20, 60020),
				cxRecord("r2"), cxUsage(63040, 3000, 0, 20, 3020),
				cx("compacted", `{"message":"SUMMARY","compaction_response_id":"r2"}`)},
			contexts: []int64{60020}, compactions: 1,
		},
		{
			name: "a ContextCompaction item with no compacted record is a compaction",
			lines: []string{meta, cxRecord("r1"), cxUsage(60020, 60000, 0, 20, 60020),
				cx("event_msg", `{"type":"item_completed","item":{"type":"ContextCompaction","id":"c"}}`)},
			contexts: []int64{60020}, compactions: 1,
		},
		{
			name:     "older clients: no token_usage_record, no repeat merged",
			lines:    []string{meta, cxUsage(1020, 1000, 0, 20, 1020), cxUsage(2040, 1000, 0, 20, 1020)},
			contexts: []int64{1020, 1020},
		},
		{
			name:  "info null",
			lines: []string{meta, cx("event_msg", `{"type":"token_count","info":null}`)},
		},
		{
			name: "prompts: what Codex writes as the user's is not typed",
			lines: []string{meta,
				cx("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n<cwd>/w</cwd></environment_context>"}]}`),
				cx("response_item", `{"type":"message","role":"developer","content":[{"type":"input_text","text":"hook context"}]}`),
				cx("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"  fix the bug  "}]}`),
				cx("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"Another language model started to solve this problem and produced a summary"}]}`)},
			prompts: []string{"fix the bug"},
		},
		{
			name: "exec_command: exit code, output, workdir; still running has none",
			lines: []string{meta,
				cx("response_item", `{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go test ./... > out.txt\",\"workdir\":\"sub\"}","call_id":"c1"}`),
				cx("response_item", `{"type":"function_call_output","call_id":"c1","output":"Chunk ID: 1\nWall time: 1 seconds\nProcess exited with code 1\nOriginal token count: 3\nOutput:\nFAIL\tx\t0.1s\n"}`),
				cx("response_item", `{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"sleep 100\"}","call_id":"c2"}`),
				cx("response_item", `{"type":"function_call_output","call_id":"c2","output":"Chunk ID: 2\nWall time: 10 seconds\nProcess running with session ID 7\nOriginal token count: 0\nOutput:\n"}`)},
			calls: []callSummary{
				{Name: "Bash", Command: "go test ./... > out.txt", Done: true, IsError: true, Exit: 1, Outcome: "failed"},
				{Name: "Bash", Command: "sleep 100", Done: true, Exit: -1, Outcome: "unknown"},
			},
		},
		{
			name: "the older shell tool's argv",
			lines: []string{meta,
				cx("response_item", `{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"rm a.txt\"]}","call_id":"c1"}`),
				cx("response_item", `{"type":"function_call_output","call_id":"c1","output":"Exit code: 0\nWall time: 0 seconds\nOutput:\n"}`)},
			calls: []callSummary{{Name: "Bash", Command: "rm a.txt", Done: true, Exit: 0, Outcome: "passed"}},
		},
		{
			name: "older clients: the output a JSON object with the exit code in its metadata",
			lines: []string{meta,
				cx("response_item", `{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go vet ./...\"]}","call_id":"c1"}`),
				cx("response_item", `{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"vet: x.go:3: unreachable code\\n\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.4}}"}`)},
			calls: []callSummary{{Name: "Bash", Command: "go vet ./...", Done: true, IsError: true, Exit: 1, Outcome: "failed"}},
		},
		{
			name: "apply_patch as a function call, failing",
			lines: []string{meta,
				cx("response_item", `{"type":"function_call","name":"apply_patch","arguments":"{\"input\":\"*** Begin Patch\\n*** Delete File: old.go\\n*** Update File: a.go\\n*** Move to: b.go\\n*** End Patch\"}","call_id":"c1"}`),
				cx("response_item", `{"type":"custom_tool_call_output","call_id":"c1","output":"Exit code: 1\nWall time: 0 seconds\nOutput:\nverification failed\n"}`)},
			// The exit code is read, but kept for commands only.
			calls: []callSummary{{Name: "apply_patch", File: "/w/old.go", Paths: []string{"/w/a.go", "/w/b.go"}, Done: true, IsError: true, Exit: -1}},
		},
		{
			name: "update_plan is the todo list",
			lines: []string{meta,
				cx("response_item", `{"type":"function_call","name":"update_plan","arguments":"{\"plan\":[{\"step\":\"read\",\"status\":\"completed\"},{\"step\":\"write\",\"status\":\"in_progress\"}]}","call_id":"c1"}`),
				cx("response_item", `{"type":"function_call_output","call_id":"c1","output":"Plan updated"}`)},
			calls: []callSummary{{Name: "TodoWrite", Done: true, Exit: -1}},
			todos: []Todo{{Content: "read", Status: "completed"}, {Content: "write", Status: "in_progress"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := feedClient(t, Codex, tt.lines...)
			if s.BadCount != 0 {
				t.Fatalf("bad lines: %+v", s.BadLines)
			}
			if d := cmp.Diff(tt.contexts, contexts(s)); d != "" {
				t.Errorf("turn contexts (-want +got):\n%s", d)
			}
			if len(s.Compactions) != tt.compactions {
				t.Errorf("compactions = %+v, want %d", s.Compactions, tt.compactions)
			} else if tt.post > 0 && s.Compactions[0].PostTokens != tt.post {
				t.Errorf("post tokens = %d, want %d", s.Compactions[0].PostTokens, tt.post)
			}
			if d := cmp.Diff(tt.calls, calls(s)); d != "" {
				t.Errorf("tool calls (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.prompts, prompts(s)); d != "" {
				t.Errorf("prompts (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.todos, s.Todos); d != "" {
				t.Errorf("todos (-want +got):\n%s", d)
			}
		})
	}
}

func gm(fields string) string {
	return `{"id":"` + strings.SplitN(fields, "|", 2)[0] + `","timestamp":"2026-11-24T08:30:20.484Z",` + strings.SplitN(fields, "|", 2)[1] + `}`
}

func TestGeminiLines(t *testing.T) {
	header := `{"sessionId":"S","projectHash":"h","startTime":"2026-11-24T08:30:16.306Z","lastUpdated":"2026-11-24T08:30:16.306Z","kind":"main"}`
	ctx := `{"$set":{"messages":[{"id":"c","timestamp":"t","type":"user","content":[{"text":"<session_context>\n- **Workspace Directories:**\n  - /w\n- **Directory Structure:**"}]}]}}`
	reply := func(id string, in int, text string) string {
		return gm(id + `|"type":"gemini","content":"` + text + `","tokens":{"input":` + itoa(in) + `,"output":20,"cached":0,"thoughts":0,"tool":0,"total":0},"model":"gemini-2.5-pro"`)
	}
	tool := func(id, name, args, status, output string) string {
		return gm(id + `|"type":"gemini","content":"","tokens":{"input":100,"output":20,"cached":0},"model":"gemini-2.5-pro","toolCalls":[{"id":"` + id + name + `","name":"` + name + `","args":` + args + `,"result":[{"functionResponse":{"id":"` + id + name + `","name":"` + name + `","response":{"output":"` + output + `"}}}],"status":"` + status + `"}]`)
	}
	snapshot := func(id string) string {
		return `{"$set":{"messages":[{"id":"` + id + `","timestamp":"2026-11-24T08:33:26.540Z","type":"user","content":[{"text":"<state_snapshot>keep WORD=pelican</state_snapshot>"}]},{"id":"g","type":"gemini","content":[{"text":"Got it. Thanks for the additional context!"}]}]}}`
	}
	tests := []struct {
		name        string
		lines       []string
		contexts    []int64
		prompts     []string
		texts       []string
		compactions int
		calls       []callSummary
		cwd         string
		todos       []Todo
	}{
		{
			name:     "a record written again counts once",
			lines:    []string{header, ctx, reply("a", 1000, "hello"), reply("a", 1000, "hello"), reply("b", 1200, "more")},
			contexts: []int64{1000, 1200}, texts: []string{"hello", "more"}, cwd: "/w",
		},
		{
			name:     "cached tokens are part of the prompt count",
			lines:    []string{header, gm(`a|"type":"gemini","content":"x","tokens":{"input":5000,"output":20,"cached":4000}`)},
			contexts: []int64{5000}, texts: []string{"x"},
		},
		{
			name: "prompts: hook context and the client's own messages are not typed",
			lines: []string{header,
				gm(`u1|"type":"user","content":[{"text":"<hook_context>restore</hook_context>\n\nfix it"}]`),
				gm(`u2|"type":"user","content":[{"text":"go on"},{"text":"<hook_context>advice</hook_context>"}],"displayContent":[{"text":"go on"}]`),
				gm(`u3|"type":"user","content":[{"text":"<hook_context>only context</hook_context>"}]`),
				gm(`u4|"type":"user","content":[{"functionResponse":{"id":"x","name":"ls","response":{"output":"a"}}}]`),
				gm(`i1|"type":"info","content":"Hook system message"`)},
			prompts: []string{"fix it", "go on"},
		},
		{
			name:     "a compression is news once: a resumed history repeats its snapshot",
			lines:    []string{header, reply("a", 90000, "big"), snapshot("s1"), header, snapshot("s1"), reply("b", 5000, "small")},
			contexts: []int64{90000, 5000}, texts: []string{"big", "small"},
			compactions: 1,
		},
		{
			name:     "a second compression has a new snapshot",
			lines:    []string{header, reply("a", 90000, "big"), snapshot("s1"), reply("b", 90000, "big again"), snapshot("s2")},
			contexts: []int64{90000, 90000}, texts: []string{"big", "big again"},
			compactions: 2,
		},
		{
			name: "shell results: exit code line, none for success, errors",
			lines: []string{header,
				tool("t1", "run_shell_command", `{"command":"make","dir_path":"/w"}`, "success", `<untrusted_context>\nOutput: cc -c x.c\nExit Code: 2\nProcess Group PGID: 1\n</untrusted_context>`),
				tool("t2", "run_shell_command", `{"command":"echo hi > f.txt"}`, "success", `Command: echo hi\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: (none)\nSignal: (none)`),
				tool("t3", "run_shell_command", `{"command":"rm -rf /"}`, "error", `Tool execution denied`),
				tool("t4", "write_todos", `{"todos":[{"description":"read","status":"completed"},{"description":"write","status":"pending"}]}`, "success", `ok`),
				tool("t5", "read_file", `{"absolute_path":"/w/a.go"}`, "success", `package a`)},
			calls: []callSummary{
				{Name: "Bash", Command: "make", Done: true, IsError: true, Exit: 2, Outcome: "failed"},
				{Name: "Bash", Command: "echo hi > f.txt", Done: true, Exit: 0, Outcome: "passed"},
				{Name: "Bash", Command: "rm -rf /", Done: true, IsError: true, Exit: -1, Outcome: "unknown"},
				{Name: "TodoWrite", Done: true, Exit: -1},
				{Name: "Read", File: "/w/a.go", Done: true, Exit: -1},
			},
			contexts: []int64{100, 100, 100, 100, 100},
			todos:    []Todo{{Content: "read", Status: "completed"}, {Content: "write", Status: "pending"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := feedClient(t, Gemini, tt.lines...)
			if s.BadCount != 0 {
				t.Fatalf("bad lines: %+v", s.BadLines)
			}
			if d := cmp.Diff(tt.contexts, contexts(s)); d != "" {
				t.Errorf("turn contexts (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.prompts, prompts(s)); d != "" {
				t.Errorf("prompts (-want +got):\n%s", d)
			}
			var texts []string
			for _, n := range s.LastTexts {
				texts = append(texts, n.Text)
			}
			if tt.texts != nil {
				if d := cmp.Diff(tt.texts, texts); d != "" {
					t.Errorf("texts (-want +got):\n%s", d)
				}
			}
			if len(s.Compactions) != tt.compactions {
				t.Errorf("compactions = %+v, want %d", s.Compactions, tt.compactions)
			}
			if d := cmp.Diff(tt.calls, calls(s)); d != "" {
				t.Errorf("tool calls (-want +got):\n%s", d)
			}
			if s.CWD != tt.cwd {
				t.Errorf("cwd = %q, want %q", s.CWD, tt.cwd)
			}
			if d := cmp.Diff(tt.todos, s.Todos); d != "" {
				t.Errorf("todos (-want +got):\n%s", d)
			}
		})
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// Both clients record the hooks' context they use: a restore cairn
// delivered shows in the transcript, on the line the client wrote it.
func TestAgentRestoreLines(t *testing.T) {
	restore := strings.ReplaceAll(RestoreHeader, `"`, `\"`) + `\n\nGoal: ship it`
	tests := []struct {
		name   string
		client string
		lines  []string
		want   []int
	}{
		{"codex developer message", Codex, []string{
			cx("session_meta", `{"id":"T"}`),
			cx("response_item", `{"type":"message","role":"developer","content":[{"type":"input_text","text":"MARK other context"}]}`),
			cx("response_item", `{"type":"message","role":"developer","content":[{"type":"input_text","text":"`+restore+`"}]}`),
			cx("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"`+restore+`"}]}`),
		}, []int{3}},
		{"gemini hook context part", Gemini, []string{
			`{"sessionId":"S","projectHash":"h","startTime":"2026-11-24T08:30:16.306Z","kind":"main"}`,
			gm(`u1|"type":"user","content":[{"text":"go on"},{"text":"<hook_context>advice</hook_context>"}]`),
			gm(`u2|"type":"user","content":[{"text":"go on"},{"text":"<hook_context>` + restore + `</hook_context>"}],"displayContent":[{"text":"go on"}]`),
			gm(`g1|"type":"gemini","content":"` + restore + `"`),
		}, []int{3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := feedClient(t, tt.client, tt.lines...)
			if s.BadCount != 0 {
				t.Fatalf("bad lines: %+v", s.BadLines)
			}
			if !s.HookAnswers || !cmp.Equal(s.RestoreLines, tt.want) {
				t.Errorf("hook answers %v, restore lines %v, want %v", s.HookAnswers, s.RestoreLines, tt.want)
			}
		})
	}
}

// A light read with NoTexts derives what a light read does but the latest
// texts, on every client's transcripts, read whole and in appends.
func TestLightNoTextsLeavesOnlyTexts(t *testing.T) {
	samples := append([]string{}, agentSamples...)
	for _, name := range fixtures.Small {
		samples = append(samples, fixturePath(t, name))
	}
	for _, c := range fixtures.Compactions {
		samples = append(samples, fixturePath(t, c.Session))
	}
	for _, sample := range samples {
		t.Run(filepath.Base(sample), func(t *testing.T) {
			src, err := os.ReadFile(sample)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "grow.jsonl")
			half := bytes.LastIndexByte(src[:len(src)/2], '\n') + 1
			os.WriteFile(path, src[:half], 0o600)
			// One session each, read in two steps: the second is what a
			// hook reads after the saved state.
			with, bare := New(path), New(path)
			withP, bareP := Parser{Light: true}, Parser{Light: true, NoTexts: true}
			for step := range 2 {
				if step == 1 {
					os.WriteFile(path, src, 0o600)
				}
				if _, err := with.Update(&withP); err != nil {
					t.Fatal(err)
				}
				if _, err := bare.Update(&bareP); err != nil {
					t.Fatal(err)
				}
			}
			if len(with.LastTexts) == 0 {
				t.Fatal("the light read kept no texts: the sample tests nothing")
			}
			if len(bare.LastTexts) != 0 {
				t.Errorf("NoTexts kept %d texts", len(bare.LastTexts))
			}
			with.LastTexts = nil
			a, _ := json.Marshal(with)
			b, _ := json.Marshal(bare)
			if string(a) != string(b) {
				t.Errorf("NoTexts changed more than the texts:\n%s", cmp.Diff(string(a), string(b)))
			}
		})
	}
}
