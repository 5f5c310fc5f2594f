package e2e

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// TestToolCalls makes the model write, edit and read a file, run one
// succeeding and one failing shell command and keep a todo list, then checks
// cairn's report sees each call, its file or command, its outcome and the
// error.
func TestToolCalls(t *testing.T) {
	t.Parallel()
	b := newBench(t, fakeapi.Options{})
	b.s.PermissionMode = "acceptEdits"
	b.s.AllowedTools = []string{"Bash(echo:*)", "Bash(bash -c:*)"}
	// 2.1.328 offers no todo tool to claude-opus-5-5 in -p mode unless
	// asked; with tasks disabled it offers TodoWrite rather than TaskCreate.
	b.s.Env = append(b.s.Env, "CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0")

	file := filepath.Join(b.s.ProjectDir, "notes.txt")
	const (
		okCmd   = "echo hi"
		failCmd = "bash -c 'echo oops >&2; exit 3'"
	)
	todos := []map[string]any{
		{"content": "write the notes", "status": "completed", "activeForm": "Writing the notes"},
		{"content": "run the checks", "status": "in_progress", "activeForm": "Running the checks"},
	}
	u := func(n int) fakeapi.Usage {
		return fakeapi.Usage{InputTokens: 3000 + 100*n, CacheReadInputTokens: 1000, OutputTokens: 20}
	}
	script := []fakeapi.ToolUse{
		{ID: "toolu_write", Name: "Write", Input: map[string]any{"file_path": file, "content": "alpha\nbeta\n"}},
		{ID: "toolu_edit", Name: "Edit", Input: map[string]any{"file_path": file, "old_string": "beta", "new_string": "gamma"}},
		{ID: "toolu_read", Name: "Read", Input: map[string]any{"file_path": file}},
		{ID: "toolu_ok", Name: "Bash", Input: map[string]any{"command": okCmd, "description": "Say hi"}},
		{ID: "toolu_fail", Name: "Bash", Input: map[string]any{"command": failCmd, "description": "Fail on purpose"}},
		{ID: "toolu_todo", Name: "TodoWrite", Input: map[string]any{"todos": todos}},
	}
	for i, call := range script {
		b.fake.Enqueue(fakeapi.Reply{Tools: []fakeapi.ToolUse{call}, Usage: u(i)})
	}
	b.fake.Enqueue(fakeapi.Reply{Text: "all done", Usage: u(len(script))})
	const prompt = "write the notes and run the checks"
	b.s.MustTurn(t, prompt)
	b.checkScriptUsed(t)
	path := b.s.MustTranscript(t)
	checkRawReplies(t, path, answers(b.fake))

	// What the client reported back to the model for each call, seen in the
	// request that followed it.
	results := sentToolResults(b.fake)
	for _, call := range script {
		tr, ok := results[call.ID]
		if !ok {
			t.Errorf("no tool_result came back for %s (%s)", call.Name, call.ID)
			continue
		}
		if wantErr := call.ID == "toolu_fail"; tr.IsError != wantErr {
			t.Errorf("%s (%s): tool_result is_error %v, want %v: %q", call.Name, call.ID, tr.IsError, wantErr, tr.Text)
		}
	}
	if got := results["toolu_fail"].Text; !strings.HasPrefix(got, "Exit code 3") {
		t.Errorf("failing Bash result %q, want it to start with %q", got, "Exit code 3")
	}
	if got, err := os.ReadFile(file); err != nil || string(got) != "alpha\ngamma\n" {
		t.Errorf("%s holds %q (%v), want the written and edited text", file, got, err)
	}

	r, ok := report(t, b.s, path)
	if !ok {
		return
	}
	wantTools := map[string]int{"Write": 1, "Edit": 1, "Read": 1, "Bash": 2, "TodoWrite": 1}
	if !maps.Equal(r.Tools, wantTools) {
		t.Errorf("report tools %v, want %v", r.Tools, wantTools)
	}
	calls := map[string]toolCallJSON{}
	for _, c := range r.ToolCalls {
		calls[c.ID] = c
	}
	if len(r.ToolCalls) != len(script) {
		t.Errorf("report has %d tool_calls, want %d: %+v", len(r.ToolCalls), len(script), r.ToolCalls)
	}
	for _, want := range script {
		c, ok := calls[want.ID]
		if !ok {
			t.Errorf("report tool_calls lacks %s (%s)", want.Name, want.ID)
			continue
		}
		if c.Name != want.Name || c.Sidechain || c.IsError != (want.ID == "toolu_fail") {
			t.Errorf("tool_call %s = %+v; want name %s, sidechain false, is_error %v", want.ID, c, want.Name, want.ID == "toolu_fail")
		}
		switch want.Name {
		case "Write", "Edit", "Read":
			if c.FilePath != file {
				t.Errorf("tool_call %s file_path %q, want %q", want.ID, c.FilePath, file)
			}
		case "Bash":
			wantCmd, wantExit := okCmd, 0
			if want.ID == "toolu_fail" {
				wantCmd, wantExit = failCmd, 3
			}
			if c.Command != wantCmd || c.ExitCode == nil || *c.ExitCode != wantExit {
				t.Errorf("tool_call %s command %q exit %v, want %q exit %d", want.ID, c.Command, intOrNil(c.ExitCode), wantCmd, wantExit)
			}
		}
	}

	if len(r.Files) != 1 || r.Files[0].Path != file || r.Files[0].Read != 1 || r.Files[0].Write != 1 || r.Files[0].Edit != 1 {
		t.Errorf("report files %+v, want only %s with read 1, write 1, edit 1", r.Files, file)
	}

	if len(r.Commands) != 2 {
		t.Errorf("report commands %+v, want 2", r.Commands)
	} else {
		c0, c1 := r.Commands[0], r.Commands[1]
		if c0.Command != okCmd || c0.ExitCode == nil || *c0.ExitCode != 0 || c0.IsError {
			t.Errorf("commands[0] = %q exit %v error %v, want %q exit 0", c0.Command, intOrNil(c0.ExitCode), c0.IsError, okCmd)
		}
		if c1.Command != failCmd || c1.ExitCode == nil || *c1.ExitCode != 3 || !c1.IsError {
			t.Errorf("commands[1] = %q exit %v error %v, want %q exit 3, is_error", c1.Command, intOrNil(c1.ExitCode), c1.IsError, failCmd)
		}
	}

	if len(r.Errors) != 1 || r.Errors[0].Tool != "Bash" || r.Errors[0].ToolUseID != "toolu_fail" || !strings.Contains(r.Errors[0].Message, "Exit code 3") {
		t.Errorf("report errors %+v, want one Bash error for toolu_fail mentioning Exit code 3", r.Errors)
	}
	if len(r.Todos) != len(todos) {
		t.Errorf("report todos %+v, want %v", r.Todos, todos)
	} else {
		for i, want := range todos {
			if r.Todos[i].Content != want["content"] || r.Todos[i].Status != want["status"] {
				t.Errorf("todos[%d] = %+v, want %v", i, r.Todos[i], want)
			}
		}
	}
	if len(r.Prompts) != 1 || r.Prompts[0] != prompt {
		t.Errorf("report prompts %q, want [%q]", r.Prompts, prompt)
	}
	if len(r.Subagents) != 0 {
		t.Errorf("report subagents %+v, want none", r.Subagents)
	}
}

// TestTaskTools checks the task tools 2.1.328 offers by default when todo
// tools are on (TaskCreate, TaskUpdate) are reported as tool calls.
func TestTaskTools(t *testing.T) {
	t.Parallel()
	b := newBench(t, fakeapi.Options{})
	b.s.Env = append(b.s.Env, "CLAUDE_CODE_ENABLE_TODO_TOOLS=1")
	u := fakeapi.Usage{InputTokens: 2000, OutputTokens: 10}
	b.fake.Enqueue(
		fakeapi.Reply{Tools: []fakeapi.ToolUse{{ID: "toolu_create", Name: "TaskCreate", Input: map[string]any{"subject": "write the notes", "description": "Write notes.txt"}}}, Usage: u},
		fakeapi.Reply{Tools: []fakeapi.ToolUse{{ID: "toolu_update", Name: "TaskUpdate", Input: map[string]any{"taskId": "1", "status": "in_progress"}}}, Usage: u},
		fakeapi.Reply{Text: "tracked", Usage: u},
	)
	b.s.MustTurn(t, "track the work")
	b.checkScriptUsed(t)
	path := b.s.MustTranscript(t)
	checkRawReplies(t, path, answers(b.fake))
	results := sentToolResults(b.fake)
	for _, id := range []string{"toolu_create", "toolu_update"} {
		if tr, ok := results[id]; !ok || tr.IsError {
			t.Errorf("%s: tool_result %+v (found %v), want a success", id, tr, ok)
		}
	}

	r, ok := report(t, b.s, path)
	if !ok {
		return
	}
	if want := map[string]int{"TaskCreate": 1, "TaskUpdate": 1}; !maps.Equal(r.Tools, want) {
		t.Errorf("report tools %v, want %v", r.Tools, want)
	}
	if len(r.ToolCalls) != 2 || r.ToolCalls[0].ID != "toolu_create" || r.ToolCalls[1].ID != "toolu_update" || r.ToolCalls[0].IsError || r.ToolCalls[1].IsError {
		t.Errorf("report tool_calls %+v, want toolu_create then toolu_update, no errors", r.ToolCalls)
	}
}

func intOrNil(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// sentToolResults collects, by tool use id, the tool results the client
// sent back to the model in its requests.
func sentToolResults(fake *fakeapi.Server) map[string]fakeapi.ToolResult {
	results := map[string]fakeapi.ToolResult{}
	for _, r := range answers(fake) {
		for _, tr := range fakeapi.ToolResults(r.Body) {
			results[tr.ToolUseID] = tr
		}
	}
	return results
}
