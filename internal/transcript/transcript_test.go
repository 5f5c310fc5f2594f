package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// feed parses lines as one transcript.
func feed(t *testing.T, lines ...string) *Session {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := New(path)
	var p Parser
	if _, err := s.Update(&p); err != nil {
		t.Fatal(err)
	}
	return s
}

const ts = `"timestamp":"2026-02-10T21:12:01.117Z"`

func asst(id, model string, in, cc, cr int, content string) string {
	return fmt.Sprintf(`{"isSidechain":false,"cwd":"/p","sessionId":"S","gitBranch":"main","message":{"model":%q,"id":%q,"type":"message","role":"assistant","content":[%s],"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":5}},"type":"assistant",%s}`,
		model, id, content, in, cc, cr, ts)
}

func userText(text string, extra string) string {
	b, _ := json.Marshal(text)
	return fmt.Sprintf(`{"isSidechain":false,"cwd":"/p","type":"user","message":{"role":"user","content":%s}%s,%s}`, b, extra, ts)
}

func toolUse(id, name, input string) string {
	return fmt.Sprintf(`{"type":"tool_use","id":%q,"name":%q,"input":%s}`, id, name, input)
}

func toolResult(id string, isErr bool, content string) string {
	b, _ := json.Marshal(content)
	return fmt.Sprintf(`{"isSidechain":false,"cwd":"/p","type":"user","message":{"role":"user","content":[{"type":"tool_result","content":%s,"is_error":%v,"tool_use_id":%q}]},%s,"toolUseResult":{"stdout":"x"}}`, b, isErr, id, ts)
}

func TestTurnsDeduplicatedAndMainChainOnly(t *testing.T) {
	s := feed(t,
		asst("m1", "claude-opus-4-6", 3, 100, 1000, `{"type":"thinking","thinking":"hm"}`),
		asst("m1", "claude-opus-4-6", 3, 100, 1000, `{"type":"text","text":"hi"}`),
		// A sidechain reply and a synthetic one never count.
		strings.Replace(asst("m2", "claude-opus-4-6", 1, 1, 1, `{"type":"text","text":"x"}`), `"isSidechain":false`, `"isSidechain":true`, 1),
		asst("m3", "<synthetic>", 0, 0, 0, `{"type":"text","text":"No response requested."}`),
		asst("m4", "claude-opus-4-6", 5, 0, 2000, `{"type":"text","text":"ok"}`),
	)
	if got := len(s.Turns); got != 2 {
		t.Fatalf("turns = %d, want 2", got)
	}
	if got := s.Turns[0].Usage.Context(); got != 1103 {
		t.Errorf("first context = %d, want 1103", got)
	}
	if got := s.Turns[1].Usage.Context(); got != 2005 {
		t.Errorf("last context = %d, want 2005", got)
	}
	if s.Model != "claude-opus-4-6" || s.CWD != "/p" || s.GitBranch != "main" || s.SessionID != "S" {
		t.Errorf("metadata = %q %q %q %q", s.Model, s.CWD, s.GitBranch, s.SessionID)
	}
}

func TestPrompts(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []string
	}{
		{"plain", userText("fix the bug in ABC-123", ""), []string{"fix the bug in ABC-123"}},
		{"blocks", `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","source":{}}]},` + ts + `}`, []string{"look"}},
		{"meta", userText("skill text", `,"isMeta":true`), nil},
		{"compact summary", userText("This session is being continued from a previous conversation that ran out of context.", `,"isCompactSummary":true`), nil},
		{"command", userText("<command-name>/model</command-name>", ""), nil},
		{"command output", userText("<local-command-stdout>ok</local-command-stdout>", ""), nil},
		{"interrupt", userText("[Request interrupted by user for tool use]", ""), nil},
		{"reminder only", userText("<system-reminder>be nice</system-reminder>", ""), nil},
		{"reminder stripped", userText("<system-reminder>x</system-reminder>do it", ""), []string{"do it"}},
		{"tool result", toolResult("t1", false, "output"), nil},
		{"sidechain", strings.Replace(userText("sub task", ""), `"isSidechain":false`, `"isSidechain":true`, 1), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := feed(t, tt.line)
			var got []string
			for _, p := range s.Prompts {
				got = append(got, p.Text)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("prompts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolCallsAndResults(t *testing.T) {
	s := feed(t,
		asst("m1", "claude-opus-4-6", 1, 1, 1, toolUse("t1", "Write", `{"file_path":"/p/a.go","content":"package a"}`)),
		toolResult("t1", false, "File created successfully"),
		asst("m2", "claude-opus-4-6", 1, 1, 1, toolUse("t2", "Edit", `{"file_path":"a.go","old_string":"a","new_string":"b"}`)),
		toolResult("t2", false, "ok"),
		asst("m3", "claude-opus-4-6", 1, 1, 1, toolUse("t3", "Bash", `{"command":"go test ./... \u0026\u0026 echo done","description":"test"}`)),
		toolResult("t3", true, "Exit code 3\nFAIL"),
		asst("m4", "claude-opus-4-6", 1, 1, 1, toolUse("t4", "Bash", `{"command":"echo hi > out.txt"}`)),
		toolResult("t4", false, "hi"),
		asst("m5", "claude-opus-4-6", 1, 1, 1, toolUse("t5", "Bash", `{"command":"rm -rf build"}`)),
		toolResult("t5", true, "The user doesn't want to proceed with this tool use."),
		asst("m6", "claude-opus-4-6", 1, 1, 1, toolUse("t6", "Read", `{"file_path":"/p/b.go"}`)),
		toolResult("t6", true, "<tool_use_error>File does not exist.</tool_use_error>"),
		asst("m7", "claude-opus-4-6", 1, 1, 1, toolUse("t7", "NotebookEdit", `{"notebook_path":"/p/n.ipynb","new_source":"x"}`)),
		asst("m8", "claude-opus-4-6", 1, 1, 1, toolUse("t8", "MultiEdit", `{"file_path":"/p/a.go","edits":[]}`)),
	)
	exit := func(n int) *int { return &n }
	want := []ToolCall{
		{ID: "t1", Name: "Write", FilePath: "/p/a.go", Done: true},
		{ID: "t2", Name: "Edit", FilePath: "/p/a.go", Done: true},
		{ID: "t3", Name: "Bash", Command: "go test ./... && echo done", Description: "test", Done: true, IsError: true, ExitCode: exit(3), ErrorText: "Exit code 3\nFAIL"},
		{ID: "t4", Name: "Bash", Command: "echo hi > out.txt", Done: true, ExitCode: exit(0)},
		{ID: "t5", Name: "Bash", Command: "rm -rf build", Done: true, IsError: true, ErrorText: "The user doesn't want to proceed with this tool use."},
		{ID: "t6", Name: "Read", FilePath: "/p/b.go", Done: true, IsError: true, ErrorText: "<tool_use_error>File does not exist.</tool_use_error>"},
		{ID: "t7", Name: "NotebookEdit", FilePath: "/p/n.ipynb"},
		{ID: "t8", Name: "MultiEdit", FilePath: "/p/a.go"},
	}
	if diff := cmp.Diff(want, s.ToolCalls, cmpopts.IgnoreFields(ToolCall{}, "Time", "Line", "Outcome")); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	wantFiles := []FileStat{
		{Path: "/p/a.go", Write: 1, Edit: 2, Created: true},
		{Path: "/p/out.txt", Write: 1, Created: true},
		{Path: "/p/build", Delete: 1, Gone: true},
		{Path: "/p/b.go", Read: 1},
		{Path: "/p/n.ipynb", Edit: 1},
	}
	if diff := cmp.Diff(wantFiles, s.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

func TestTodos(t *testing.T) {
	write := func(id, list string) string {
		return asst("m"+id, "x", 1, 1, 1, toolUse(id, "TodoWrite", `{"todos":`+list+`}`))
	}
	const noTool = "<tool_use_error>Error: No such tool available: TodoWrite</tool_use_error>"
	tests := []struct {
		name  string
		lines []string
		want  []Todo
	}{
		{
			name: "TodoWrite applied by its result",
			lines: []string{
				write("t1", `[{"content":"write tests","status":"in_progress","activeForm":"Writing tests"},{"content":"ship","status":"pending","activeForm":"Shipping"}]`),
				toolResult("t1", false, "Todos have been modified successfully."),
			},
			want: []Todo{{Content: "write tests", Status: "in_progress", ActiveForm: "Writing tests"}, {Content: "ship", Status: "pending", ActiveForm: "Shipping"}},
		},
		{
			name: "TaskCreate and TaskUpdate",
			lines: []string{
				asst("m1", "x", 1, 1, 1, toolUse("c1", "TaskCreate", `{"subject":"write tests","description":"d","activeForm":"Writing tests"}`)),
				toolResult("c1", false, "Task #1 created successfully: write tests"),
				asst("m2", "x", 1, 1, 1, toolUse("c2", "TaskCreate", `{"subject":"ship","description":"d"}`)),
				toolResult("c2", false, "Task #2 created successfully: ship"),
				asst("m3", "x", 1, 1, 1, toolUse("c3", "TaskCreate", `{"subject":"drop me"}`)),
				toolResult("c3", false, "Task #3 created successfully: drop me"),
				asst("m4", "x", 1, 1, 1, toolUse("u1", "TaskUpdate", `{"taskId":"1","status":"completed"}`)),
				toolResult("u1", false, "Updated task #1 status"),
				asst("m5", "x", 1, 1, 1, toolUse("u2", "TaskUpdate", `{"taskId":"2","status":"in_progress"}`)),
				toolResult("u2", false, "Updated task #2 status"),
				asst("m6", "x", 1, 1, 1, toolUse("u3", "TaskUpdate", `{"taskId":"3","status":"deleted"}`)),
				toolResult("u3", false, "Updated task #3 deleted"),
			},
			want: []Todo{{ID: "1", Content: "write tests", Status: "completed", ActiveForm: "Writing tests"}, {ID: "2", Content: "ship", Status: "in_progress"}},
		},
		{
			// The client in use had no such tool: the list the call
			// carried never existed.
			name: "a failed TodoWrite changes nothing",
			lines: []string{
				write("t1", `[{"content":"draft the schema","status":"completed"},{"content":"migrate rows","status":"in_progress"}]`),
				toolResult("t1", false, "Todos have been modified successfully."),
				write("t2", `[{"content":"draft the schema","status":"completed"},{"content":"migrate rows","status":"completed"},{"content":"drop the old table","status":"pending"}]`),
				toolResult("t2", true, noTool),
			},
			want: []Todo{{Content: "draft the schema", Status: "completed"}, {Content: "migrate rows", Status: "in_progress"}},
		},
		{
			name: "failed TaskCreate and TaskUpdate change nothing",
			lines: []string{
				asst("m1", "x", 1, 1, 1, toolUse("c1", "TaskCreate", `{"subject":"rotate the keys"}`)),
				toolResult("c1", false, "Task #1 created successfully: rotate the keys"),
				asst("m2", "x", 1, 1, 1, toolUse("c2", "TaskCreate", `{"subject":"audit the logs"}`)),
				toolResult("c2", true, "<tool_use_error>Error: No such tool available: TaskCreate</tool_use_error>"),
				asst("m3", "x", 1, 1, 1, toolUse("u1", "TaskUpdate", `{"taskId":"1","status":"completed"}`)),
				toolResult("u1", true, "<tool_use_error>InputValidationError: bad</tool_use_error>"),
			},
			want: []Todo{{ID: "1", Content: "rotate the keys", Status: "pending"}},
		},
		{
			// A hook reads the transcript between a call and its
			// result: the call waits for it.
			name:  "a call with no result yet is pending",
			lines: []string{write("t1", `[{"content":"index the corpus","status":"pending"}]`)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, feed(t, tt.lines...).Todos); diff != "" {
				t.Errorf("todos (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTodoPendingAcrossRuns reads a call in one run and its result in
// the next, the state between them through JSON as between two hooks.
func TestTodoPendingAcrossRuns(t *testing.T) {
	list := `[{"content":"index the corpus","status":"completed"},{"content":"rank the hits","status":"pending"}]`
	want := []Todo{{Content: "index the corpus", Status: "completed"}, {Content: "rank the hits", Status: "pending"}}
	for _, failed := range []bool{false, true} {
		t.Run(fmt.Sprint("failed=", failed), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			first := asst("m1", "x", 1, 1, 1, toolUse("t1", "TodoWrite", `{"todos":`+list+`}`)) + "\n"
			if err := os.WriteFile(path, []byte(first), 0o600); err != nil {
				t.Fatal(err)
			}
			s := New(path)
			var p Parser
			if _, err := s.Update(&p); err != nil {
				t.Fatal(err)
			}
			if len(s.Todos) != 0 {
				t.Fatalf("todos before the result = %+v, want none", s.Todos)
			}
			data, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			s = new(Session)
			if err := json.Unmarshal(data, s); err != nil {
				t.Fatal(err)
			}
			res := "Todos have been modified successfully."
			if failed {
				res = "<tool_use_error>Error: No such tool available: TodoWrite</tool_use_error>"
			}
			if err := os.WriteFile(path, []byte(first+toolResult("t1", failed, res)+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			var p2 Parser
			if _, err := s.Update(&p2); err != nil {
				t.Fatal(err)
			}
			w := want
			if failed {
				w = nil
			}
			if diff := cmp.Diff(w, s.Todos); diff != "" {
				t.Errorf("todos after the result (-want +got):\n%s", diff)
			}
			if c := s.ToolCalls[0]; c.Todo != nil {
				t.Errorf("call still holds its change after its result: %+v", c.Todo)
			}
		})
	}
}

func TestCompaction(t *testing.T) {
	s := feed(t,
		asst("m1", "x", 1, 1000, 150000, `{"type":"text","text":"a"}`),
		`{"type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":167094,"postTokens":9000},"timestamp":"2026-02-11T21:18:41.543Z"}`,
		userText("This session is being continued from a previous conversation that ran out of context. Summary: all good.", `,"isCompactSummary":true,"isVisibleInTranscriptOnly":true`),
	)
	if len(s.Compactions) != 1 {
		t.Fatalf("compactions = %d", len(s.Compactions))
	}
	c := s.Compactions[0]
	if c.Trigger != "auto" || c.PreTokens != 167094 || c.PostTokens != 9000 || c.TurnsBefore != 1 || c.Line != 2 {
		t.Errorf("compaction = %+v", c)
	}
	if !strings.Contains(c.Summary, "all good") || c.SummaryChars != len(c.Summary) {
		t.Errorf("summary = %q (%d chars)", c.Summary, c.SummaryChars)
	}
	if len(s.Prompts) != 0 {
		t.Errorf("the summary was taken for a prompt: %+v", s.Prompts)
	}
	if c.Time.IsZero() {
		t.Error("no time")
	}
}

func TestBadLines(t *testing.T) {
	s := feed(t,
		asst("m1", "x", 1, 1, 1, `{"type":"text","text":"a"}`),
		`{"type":"assistant","message":{"id":"m2"`,
		"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"bad \xff byte\"}}",
		`not json at all`,
		`{"type":"brand-new-kind","payload":{"x":[1,2,3]}}`,
		``,
		asst("m3", "x", 1, 1, 1, `{"type":"text","text":"b"}`),
	)
	want := []BadLine{{Line: 2, Reason: "invalid JSON"}, {Line: 3, Reason: "invalid UTF-8"}, {Line: 4, Reason: "invalid JSON"}}
	if diff := cmp.Diff(want, s.BadLines, cmpopts.IgnoreFields(BadLine{}, "Offset")); diff != "" {
		t.Errorf("bad lines (-want +got):\n%s", diff)
	}
	if s.BadCount != 3 || len(s.Turns) != 2 || s.Skipped != 1 || s.Lines != 7 {
		t.Errorf("bad=%d turns=%d skipped=%d lines=%d", s.BadCount, len(s.Turns), s.Skipped, s.Lines)
	}
	if s.BadLines[1].Offset == 0 {
		t.Error("offsets not recorded")
	}
}

func TestLongLine(t *testing.T) {
	big := strings.Repeat(`a \"quoted\" line\n`, 400_000) // about 8 MB
	s := feed(t,
		asst("m1", "x", 1, 1, 1, toolUse("t1", "Bash", `{"command":"cat big"}`)),
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"`+big+`","is_error":false,"tool_use_id":"t1"}]},`+ts+`}`,
		asst("m2", "x", 7, 0, 0, `{"type":"text","text":"done"}`),
	)
	if s.BadCount != 0 || len(s.Turns) != 2 || !s.ToolCalls[0].Done {
		t.Fatalf("bad=%d turns=%d call=%+v", s.BadCount, len(s.Turns), s.ToolCalls[0])
	}
}

func TestIncrementalHalfLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	l1 := asst("m1", "x", 1, 1, 100, `{"type":"text","text":"a"}`) + "\n"
	l2 := asst("m2", "x", 1, 1, 200, `{"type":"text","text":"b"}`) + "\n"
	write := func(s string) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	s := New(path)
	var p Parser
	write(l1 + l2[:40])
	r, err := s.Update(&p)
	if err != nil || r.Read != int64(len(l1)) || len(s.Turns) != 1 || s.BadCount != 0 {
		t.Fatalf("after half line: read=%d err=%v turns=%d bad=%d", r.Read, err, len(s.Turns), s.BadCount)
	}
	write(l2[40:])
	r, err = s.Update(&p)
	if err != nil || r.Read != int64(len(l2)) || len(s.Turns) != 2 || s.Turns[1].Usage.Context() != 202 {
		t.Fatalf("after rest: read=%d err=%v turns=%+v", r.Read, err, s.Turns)
	}
	if r, _ := s.Update(&p); r.Read != 0 || !s.UpToDate() {
		t.Errorf("nothing new: read=%d up-to-date=%v", r.Read, s.UpToDate())
	}
}

func TestRebuildWhenFileReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	a := asst("m1", "x", 1, 1, 100, `{"type":"text","text":"a"}`) + "\n"
	os.WriteFile(path, []byte(a+a), 0o600)
	s := New(path)
	var p Parser
	s.Update(&p)
	// Same size, other content: must not be trusted.
	b := asst("m9", "x", 1, 1, 900, `{"type":"text","text":"a"}`) + "\n"
	os.WriteFile(path, []byte(b+b+b), 0o600)
	r, err := s.Update(&p)
	if err != nil || !r.Rebuilt || len(s.Turns) != 1 || s.Turns[0].MessageID != "m9" {
		t.Fatalf("rebuilt=%v err=%v turns=%+v", r.Rebuilt, err, s.Turns)
	}
	// Truncated.
	os.WriteFile(path, []byte(a), 0o600)
	if r, _ := s.Update(&p); !r.Rebuilt || s.Turns[0].MessageID != "m1" {
		t.Fatalf("after truncation rebuilt=%v turns=%+v", r.Rebuilt, s.Turns)
	}
}

func TestMissingFile(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "nope.jsonl"))
	var p Parser
	if _, err := s.Update(&p); !os.IsNotExist(err) {
		t.Errorf("err = %v, want not-exist", err)
	}
}

func TestBashFileOps(t *testing.T) {
	tests := []struct {
		cmd  string
		want []bashOp
	}{
		{"ls -la", nil},
		{"echo x > a.txt", []bashOp{{"a.txt", opWrite}}},
		{"echo x >> log.txt 2>/dev/null", []bashOp{{"log.txt", opWrite}}},
		{"cmd >/dev/null 2>&1", nil},
		{"rm -f a b", []bashOp{{"a", opDelete}, {"b", opDelete}}},
		{"mv old.go new.go", []bashOp{{"old.go", opDelete}, {"new.go", opWrite}}},
		{"cp -r src dst && touch done", []bashOp{{"dst", opWrite}, {"done", opWrite}}},
		{"sed -i 's/a/b/' x.go y.go", []bashOp{{"x.go", opEdit}, {"y.go", opEdit}}},
		{"sed 's/a/b/' x.go", nil},
		{"echo hi | tee 'my file.txt'", []bashOp{{"my file.txt", opWrite}}},
		// A tee that copies a run's output keeps a log of it: no change.
		{"go test ./... 2>&1 | tee out/run.log | tail -20", nil},
		{"make check | tee -a build.log", nil},
		{"cat <<'EOF' | sudo tee /etc/app.conf", []bashOp{{"/etc/app.conf", opWrite}}},
		{"make || tee fallback.txt", []bashOp{{"fallback.txt", opWrite}}},
		{"npm run build > build.log && printf 'ok' | tee status.txt", []bashOp{{"build.log", opWrite}, {"status.txt", opWrite}}},
		{"rm $TMP/x *.o", nil},
		{`git commit -m "a > b"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, bashFileOps(tt.cmd), cmp.AllowUnexported(bashOp{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDeepNesting(t *testing.T) {
	deep := `{"type":"user","x":` + strings.Repeat("[", 2_000_000) + strings.Repeat("]", 2_000_000) + `}`
	s := feed(t, deep, userText("still here", ""))
	if s.BadCount != 1 || len(s.Prompts) != 1 {
		t.Errorf("bad=%d prompts=%d", s.BadCount, len(s.Prompts))
	}
}

func TestDecisionsAndLastTexts(t *testing.T) {
	text := func(s string) string { b, _ := json.Marshal(s); return `{"type":"text","text":` + string(b) + `}` }
	s := feed(t,
		asst("m1", "x", 1, 1, 1, text("Let me look at the code.\nI'll use SQLite because it needs no server. The tests pass.")),
		asst("m2", "x", 1, 1, 1, text("Decision: keep the parser hand-written.\n```go\nx := because()\n```")),
		asst("m3", "x", 1, 1, 1, text("Store times as UTC rather than local time. Done.")),
		asst("m4", "x", 1, 1, 1, text("Next steps:\n1. write the docs")),
		strings.Replace(asst("m5", "x", 1, 1, 1, text("I'll use a map because subagents decide too.")), `"isSidechain":false`, `"isSidechain":true`, 1),
	)
	var got []string
	for _, d := range s.Decisions {
		got = append(got, d.Text)
	}
	want := []string{
		"I'll use SQLite because it needs no server.",
		"Decision: keep the parser hand-written.",
		"Store times as UTC rather than local time.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	if len(s.LastTexts) != 3 || !strings.HasPrefix(s.LastTexts[2].Text, "Next steps:") {
		t.Errorf("last texts: %+v", s.LastTexts)
	}
}

// Issue 9: replies without a message id (older clients, exported or
// cleaned sessions) read as 0 tokens, source none. They are measured as
// they come; the lines of one split reply count once.
func TestRepliesWithoutMessageID(t *testing.T) {
	noID := func(in, cr int, content string) string {
		return strings.Replace(asst("", "claude-opus-4-6", in, 0, cr, content), `"id":"",`, "", 1)
	}
	s := feed(t,
		userText("start", ""),
		noID(10, 5000, `{"type":"thinking","thinking":"hm"}`),
		noID(10, 5000, `{"type":"text","text":"first"}`),
		userText("more", ""),
		noID(12, 9000, `{"type":"text","text":"second"}`),
	)
	if len(s.Turns) != 2 || s.Turns[1].Usage.Context() != 9012 {
		t.Fatalf("turns %+v", s.Turns)
	}
}

// Issue 16: a test run piped into tail exits 0 whatever the tests did; its
// outcome comes from its output, and what the output says is cleaned of
// secrets like everything kept.
func TestBashOutcome(t *testing.T) {
	s := feed(t,
		asst("m1", "claude-opus-4-6", 1, 1, 1, toolUse("t1", "Bash", `{"command":"mix test --seed 0 2>&1 | tail -30"}`)),
		toolResult("t1", false, "  test/a_test.exs:12\n  ** (RuntimeError) token ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5 rejected\n\nFinished in 2.1 seconds\n14 doctests, 297 tests, 11 failures"),
		asst("m2", "claude-opus-4-6", 1, 1, 1, toolUse("t2", "Bash", `{"command":"go test ./..."}`)),
		toolResult("t2", false, "ok  \tshop/x\t0.01s"),
	)
	o := s.ToolCalls[0].Outcome
	if o == nil || o.Status.String() != "failed" || o.Hidden != "pipe" || !strings.Contains(o.Counts, "11 failures") {
		t.Fatalf("piped run: %+v", o)
	}
	for _, e := range o.Errors {
		if strings.Contains(e, "ghp_") {
			t.Errorf("error line keeps a secret: %q", e)
		}
	}
	if o := s.ToolCalls[1].Outcome; o == nil || o.Status.String() != "passed" {
		t.Errorf("plain run: %+v", o)
	}
}

// Findings are declarative sentences with a datum; intentions, questions
// and sentences with nothing concrete in them are not.
func TestFindings(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"push_pop takes 415 ns per op now, up 6.1% from the 391 ns on main. Probably the extra branch.", []string{"push_pop takes 415 ns per op now, up 6.1% from the 391 ns on main."}},
		{"Let me run `go test ./...` to check.", nil},
		{"Should the retries stay at 3?", nil},
		{"The config looks fine to me and nothing stands out.", nil},
		{"ADR 0007 says orders are never hard-deleted, so no ON DELETE CASCADE.", []string{"ADR 0007 says orders are never hard-deleted, so no ON DELETE CASCADE."}},
		{"The handler in internal/api/orders.go swallows the error.", []string{"The handler in internal/api/orders.go swallows the error."}},
		{"```\nx := 42\n```", nil},
		// Without a datum: a thing that does not do or be what one would
		// expect, and a result against an expectation; not the speaker's
		// own doing, a conditional or a request.
		{"The staging disk does not point at the staging bucket.", []string{"The staging disk does not point at the staging bucket."}},
		{"So the exporter never flushes the last buffer.", []string{"So the exporter never flushes the last buffer."}},
		{"It turns out the cache is shared between tenants.", []string{"It turns out the cache is shared between tenants."}},
		{"I have not changed anything yet. If the token is not set, the client retries.", nil},
		{"Please don't restart the queue before five.", nil},
		{"So I don't need a manual handler after all.", nil},
		{"> - Credo may report issues in existing code, don't fix them here", nil},
		// A failure of something named in quotes (a test, a check) is
		// found: which one, and why; an unnamed one or the speaker's own
		// is not.
		{`"pins follow the git branch" fails: in the test repo HEAD is detached, so both checkouts share a key. Falling back to the commit hash.`,
			[]string{`"pins follow the git branch" fails: in the test repo HEAD is detached, so both checkouts share a key.`}},
		{"The “refund without null fields” case failed because encodeDefaults writes nulls now.",
			[]string{"The “refund without null fields” case failed because encodeDefaults writes nulls now."}},
		{"The build fails on the second module, as expected.", nil},
		{`I said "give it a try" and it failed again, oddly enough.`, nil},
		{`If "pins are saved" fails again, the fixture is stale.`, nil},
		// A short finding that leads into the next on its line is joined
		// to it.
		{"Here is the dump: 1,204 rows. 37 have no owner, 5 are duplicates. Odd.",
			[]string{"Here is the dump: 1,204 rows. 37 have no owner, 5 are duplicates."}},
		// A code span's "..." ends no sentence; a bullet is not kept.
		{"`make lint` fails: `api.go:41:30 ... at <.Config.auth>: nil pointer`. The rest is fine.",
			[]string{"`make lint` fails: `api.go:41:30 ... at <.Config.auth>: nil pointer`."}},
		{"- `tokens.css`: muted #8a8f98 → #5f6670 (5.9:1, was 3.2:1).", []string{"`tokens.css`: muted #8a8f98 → #5f6670 (5.9:1, was 3.2:1)."}},
		// A name written as code is a datum; a capitalised word is not.
		{"order_outbox is free on staging: only orders and order_items exist. And noted: Boot stays on 3.2.5.",
			[]string{"order_outbox is free on staging: only orders and order_items exist.", "And noted: Boot stays on 3.2.5."}},
		{"The PaymentListener still calls kafkaTemplate directly.", []string{"The PaymentListener still calls kafkaTemplate directly."}},
		{"The Staging team owns that part of the code, says Priya.", nil},
		{"Now update ProjectReviewLive with the new button:", nil},
		// An ellipsis between words leaves something out inside a sentence.
		{"It claims rows with SELECT ... FOR UPDATE SKIP LOCKED in 2 queries. Odd.", []string{"It claims rows with SELECT ... FOR UPDATE SKIP LOCKED in 2 queries."}},
		// Options keep their labels: the user picks one by its letter or
		// number.
		{"Pick one:\n\nA. Cache the lookup in `sync.Map`: 3 lines.\n\n**B.** Precompute the table at init, 40 KB of RAM.\n\n2. Drop `lookup()`: it has 1 caller.",
			[]string{"A. Cache the lookup in `sync.Map`: 3 lines.", "**B.** Precompute the table at init, 40 KB of RAM.", "Drop `lookup()`: it has 1 caller."}},
	}
	for _, tt := range tests {
		if got := Findings(tt.text); !cmp.Equal(got, tt.want, cmpopts.EquateEmpty()) {
			t.Errorf("Findings(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// Claude Code 2.1.x frames a subagent's report; the report is what is kept.
func TestSubagentReport(t *testing.T) {
	framed := "<tools-used-before-summary>Bash, Read</tools-used-before-summary>\n  \n[Subagent hand-back] The text below is the final report of a subagent. The report follows:\n  Findings:\n  - `toDayString()` returns the UTC day\n  - tomorrow() adds 86_400_000 ms"
	want := "Findings:\n- `toDayString()` returns the UTC day\n- tomorrow() adds 86_400_000 ms"
	if got := subagentReport(framed); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := subagentReport("plain report"); got != "plain report" {
		t.Errorf("unframed: %q", got)
	}
	// The bookkeeping Claude Code appends after the report is not the
	// subagent's to tell.
	trailer := "\nagentId: a690ba74afd7c2f0b (use SendMessage with to: 'a690ba74afd7c2f0b', summary: '<5-10 word recap>' to continue this agent)\n<usage>subagent_tokens: 4040\ntool_uses: 1\nduration_ms: 3043</usage>"
	if got := subagentReport(framed + trailer); got != want {
		t.Errorf("with the agent's trailer: got %q, want %q", got, want)
	}
	if got := subagentReport("the agentId: field is set by spawn()"); got != "the agentId: field is set by spawn()" {
		t.Errorf("agentId in a sentence: %q", got)
	}
}

// An alternative is a decision only when someone chose; a choice may give
// its reason in the next sentence (held-out recall scenario cabal).
func TestDecisionShapes(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"So the program reaches 1,214 MB, which is the classic picture of a thunk leak rather than of data that has to be kept.", nil},
		{"The lists are needed for the percentiles, so I would stop here rather than chase the last megabytes.", []string{"The lists are needed for the percentiles, so I would stop here rather than chase the last megabytes."}},
		{"The smaller change is to switch to Data.Map.Strict and foldl'. That keeps the module's interface as it is.", []string{"The smaller change is to switch to Data.Map.Strict and foldl'. That keeps the module's interface as it is."}},
		{"The bulk of requests is finally visible instead of being crushed into one bar.", nil},
		{"I'd do B, because raising the timeout only moves the cliff.", []string{"I'd do B, because raising the timeout only moves the cliff."}},
		{"Store times as UTC rather than local time.", []string{"Store times as UTC rather than local time."}},
		// An option weighed and turned down carries its reason, in the
		// same sentence or the next.
		{"We thought about caching the rates in Redis, but they change every second.", []string{"We thought about caching the rates in Redis, but they change every second."}},
		{"I considered moving the parser to a generator. However, the plugin API exposes its node types, so every plugin would break. The fix is small.",
			[]string{"I considered moving the parser to a generator. However, the plugin API exposes its node types, so every plugin would break."}},
		// A decision in the middle of a long reply, after a finding and
		// a code block, before the next step.
		{"Found it:\n\n```\ne: Serializer for class 'Currency' is not found.\n```\n\nThat's your serializer error: the 2.x plugin no longer falls back to a contextual serializer here. I'll annotate the field with @Serializable(with = CurrencyAsCodeSerializer::class) rather than registering it contextually, because Money is also decoded by the Kafka consumer. The other modules compile.\n\nNext I'll rerun the build.",
			[]string{"I'll annotate the field with @Serializable(with = CurrencyAsCodeSerializer::class) rather than registering it contextually, because Money is also decoded by the Kafka consumer."}},
		{"I considered the flaky test first. It passed twice.", nil},
		{"The options are parsed twice, but only the second parse counts.", nil},
		// A course committed to with its reason, whatever its verb; a
		// plan verb in its -ing form chooses like the imperative.
		{"I'll dedupe with an idempotency key per message, because the relay keeps no state we could query.", []string{"I'll dedupe with an idempotency key per message, because the relay keeps no state we could query."}},
		{"Switching webhook.ts to the vault instead of the environment, since the environment is logged.", []string{"Switching webhook.ts to the vault instead of the environment, since the environment is logged."}},
		{"I'll run the tests now.", nil},
		{"The parser is slow because it copies every line.", nil},
		// ", so" after a course says what it is for; after a fact it
		// is a consequence, not a choice.
		{"Keeping the otel span outermost and the timeout inside it, so the trace shows the time spent waiting on the deadline.",
			[]string{"Keeping the otel span outermost and the timeout inside it, so the trace shows the time spent waiting on the deadline."}},
		{"The cache was cold, so the first request took 2 s.", nil},
		// A course the speaker did not take, with its reason after a
		// colon or a "because"; not a report of what was not done.
		{"Bumped it to 2.4.1. I did not go to 3.x: from 3.0 the package needs Node 22, which CI does not have.",
			[]string{"I did not go to 3.x: from 3.0 the package needs Node 22, which CI does not have."}},
		{"We won't cache the rates, because they change every second.", []string{"We won't cache the rates, because they change every second."}},
		{"I did not change anything else.", nil},
		// Something the speaker leaves out, with its reason.
		{"I'm leaving the `--prune` flag out of the deploy script: the runners pin an old rsync that doesn't know it yet.",
			[]string{"I'm leaving the `--prune` flag out of the deploy script: the runners pin an old rsync that doesn't know it yet."}},
		{"We're skipping the arm64 image, because its base layer isn't published.", []string{"We're skipping the arm64 image, because its base layer isn't published."}},
		{"I'm leaving the flag for later: it needs a review.", nil},
		{"I'm not seeing the warning any more: the cache was stale.", nil},
		// The items of a list its lead-in calls decisions.
		{"Wrote the migration. Two decisions in it:\n\n- empty names stay NULL, so reports can tell them apart;\n- titles are kept in first_name.\n\nThe tests pass.",
			[]string{"empty names stay NULL, so reports can tell them apart;", "titles are kept in first_name."}},
		{"Changes:\n- titles are kept in first_name.", nil},
		// A course taken over one named after ", not a", with its
		// reason; a fact set against another is no course.
		{"The refactor dropped `currency` from `Price`. I'm putting it back as a required field, `currency: CurrencyCode`, not an optional one: optional would force a `?? \"EUR\"` fallback into 11 call sites across the apps.",
			[]string{"I'm putting it back as a required field, `currency: CurrencyCode`, not an optional one: optional would force a `?? \"EUR\"` fallback into 11 call sites across the apps."}},
		{"It is a bug in the parser, not a config issue: the config loads fine.", nil},
		{"I'm running the suite again, not a subset.", nil},
	}
	for _, tt := range tests {
		if got := Decisions(tt.text); !cmp.Equal(got, tt.want, cmpopts.EquateEmpty()) {
			t.Errorf("Decisions(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestFormAnswers(t *testing.T) {
	tests := []struct {
		name, res string
		want      [][2]string
	}{
		{"one", `User has answered your questions: "Which rig?"="No rig". You can now continue with the user's answers in mind.`,
			[][2]string{{"Which rig?", "No rig"}}},
		{"two", `User has answered your questions: "Which rig?"="No rig", "Which tools?"="Credo + Dialyxir". You can now continue.`,
			[][2]string{{"Which rig?", "No rig"}, {"Which tools?", "Credo + Dialyxir"}}},
		{"quotes inside", `User has answered your questions: "Use "a", "b"?"="yes, "a"". You can now continue.`,
			[][2]string{{`Use "a", "b"?`, `yes, "a"`}}},
		{"not a form answer", `The user doesn't want to proceed with this tool use.`, nil},
		{"cut short", `User has answered your questions: "Which rig?`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, formAnswers(tt.res)); diff != "" {
				t.Errorf("formAnswers (-want +got):\n%s", diff)
			}
		})
	}
}

// The user's choice in AskUserQuestion's form reaches no prompt: it is
// kept as the assistant's question, closed by the answer.
func TestAskUserQuestionAnswered(t *testing.T) {
	s := feed(t,
		asst("m1", "claude-opus-4-6", 1, 1, 1, toolUse("q1", "AskUserQuestion", `{"questions":[{"question":"Which rig?"}]}`)),
		toolResult("q1", false, `User has answered your questions: "Which rig?"="No rig". You can now continue with the user's answers in mind.`),
	)
	var got []string
	for _, it := range s.Ledger.Closed() {
		got = append(got, fmt.Sprintf("%s %s: %s -> %s (%s)", it.By, it.Kind, it.Text, it.Closed.Evidence, it.Closed.By))
	}
	want := []string{"assistant question: Which rig? -> No rig (answer)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("closed items (-want +got):\n%s", diff)
	}
}

// A reply's text beside a tool call is read as any other: the sentence
// that names the failure or the choice often comes with the Edit that
// acts on it, in one message or (as Claude Code writes it) one line per
// block under the same message id.
func TestTextBesideToolCall(t *testing.T) {
	finding := `"pins follow the git branch" fails: in the test repo HEAD is detached, so both checkouts share a key.`
	decision := "I'll key pins by branch with vim.fn.systemlist rather than vim.system, because vim.system needs nvim 0.10."
	text := func(s string) string { b, _ := json.Marshal(s); return `{"type":"text","text":` + string(b) + `}` }
	edit := func(id string) string {
		return toolUse(id, "Edit", `{"file_path":"/p/lua/config.lua","old_string":"a","new_string":"b"}`)
	}
	for _, tt := range []struct {
		name  string
		lines []string
	}{
		{"one message", []string{
			asst("m1", "claude-opus-4-6", 1, 1, 1, text(finding)+","+edit("t1")), toolResult("t1", false, "ok"),
			asst("m2", "claude-opus-4-6", 1, 1, 1, text(decision)+","+edit("t2")), toolResult("t2", false, "ok"),
		}},
		{"one line per block", []string{
			asst("m1", "claude-opus-4-6", 1, 1, 1, text(finding)), asst("m1", "claude-opus-4-6", 1, 1, 1, edit("t1")), toolResult("t1", false, "ok"),
			asst("m2", "claude-opus-4-6", 1, 1, 1, text(decision)), asst("m2", "claude-opus-4-6", 1, 1, 1, edit("t2")), toolResult("t2", false, "ok"),
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := feed(t, tt.lines...)
			if len(s.Findings) != 1 || s.Findings[0].Text != finding {
				t.Errorf("findings %+v, want %q", s.Findings, finding)
			}
			if len(s.Decisions) != 1 || s.Decisions[0].Text != decision {
				t.Errorf("decisions %+v, want %q", s.Decisions, decision)
			}
			if len(s.ToolCalls) != 2 {
				t.Errorf("tool calls %+v", s.ToolCalls)
			}
		})
	}
}

// TestPromptKept: a long prompt keeps the user's own words, the end
// included, where it pastes a log or a config before them.
func TestPromptKept(t *testing.T) {
	log := strings.Repeat("2026-11-24T18:02:14.551Z    Compiling proc-macro2 v1.0.89\n", 60)
	ask := "Can you figure out the root cause? And the gzipped .wasm stays under 300 KB."
	tests := []struct {
		name, prompt string
		want         []string
		not          []string
	}{
		{"a short prompt as it is", "fix the build", []string{"fix the build"}, nil},
		{"a pasted block gives way to a mark", "Here's the log:\n\n```\n" + log + "```\n\n" + ask,
			[]string{"Here's the log:", "[pasted: 60 lines]", ask}, []string{"proc-macro2"}},
		{"a long prompt without blocks keeps its head and its end", "Start here. " + strings.Repeat("word ", 800) + ask,
			[]string{"Start here.", " … ", ask}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := promptKept(tt.prompt, maxPromptBytes)
			if len(got) > maxPromptBytes {
				t.Errorf("%d bytes kept, more than %d", len(got), maxPromptBytes)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("kept %q, lacks %q", got, w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(got, w) {
					t.Errorf("kept %q, has %q", got, w)
				}
			}
		})
	}
}
