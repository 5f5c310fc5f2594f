package transcript

import (
	"path/filepath"
	"strings"

	"github.com/cairn-agent/cairn/internal/jsonscan"
)

// toolUse fills c from the tool's input and records its effects on files.
// cwd resolves relative paths. A todo tool's change is held on c until its
// result says it succeeded (applyTodo).
func (s *Session) toolUse(c *ToolCall, in *toolInput, cwd string, sub *jsonscan.Scanner, lineNo int, full bool) {
	switch c.Name {
	case "Read":
		c.FilePath = absPath(cwd, jsonscan.Unescape(in.filePath))
		s.fileOp(c.FilePath, opRead)
	case "Write":
		c.FilePath = absPath(cwd, jsonscan.Unescape(in.filePath))
		s.fileOp(c.FilePath, opWrite)
	case "Edit", "MultiEdit":
		c.FilePath = absPath(cwd, jsonscan.Unescape(in.filePath))
		s.fileOp(c.FilePath, opEdit)
	case "NotebookEdit":
		c.FilePath = absPath(cwd, jsonscan.Unescape(in.notebookPath))
		s.fileOp(c.FilePath, opEdit)
	case "Task", "Agent":
		c.Description = keep(jsonscan.Unescape(in.description), maxNoteBytes)
	case "Bash":
		cmd := jsonscan.Unescape(in.command)
		c.Command = keep(cmd, maxCommandBytes)
		c.Description = keep(jsonscan.Unescape(in.description), maxNoteBytes)
		for _, op := range bashFileOps(cmd) {
			s.fileOp(absPath(cwd, op.path), op.kind)
		}
	case "TodoWrite":
		if list, ok := todoList(in.todos, sub); ok {
			c.Todo = &TodoChange{List: list}
		}
	case "TaskCreate":
		c.Todo = &TodoChange{
			Subject:    keep(jsonscan.Unescape(in.subject), maxNoteBytes),
			ActiveForm: keep(jsonscan.Unescape(in.activeForm), maxNoteBytes),
		}
	case "TaskUpdate":
		c.Todo = &TodoChange{
			TaskID:     strings.Trim(jsonscan.Unescape(in.taskID), `"`),
			Status:     jsonscan.Unescape(in.status),
			Subject:    keep(jsonscan.Unescape(in.subject), maxNoteBytes),
			ActiveForm: keep(jsonscan.Unescape(in.activeForm), maxNoteBytes),
		}
	}
}

// applyTodo applies the todo change c held since its call, now that its
// result (res, JSON-escaped) is in: a call that failed ("No such tool
// available", a rejected input) changed nothing. With full, a todo it
// completes is told to the ledger.
func (s *Session) applyTodo(c *ToolCall, failed bool, res []byte, lineNo int, full bool) {
	ch := c.Todo
	c.Todo = nil
	if ch == nil || failed {
		return
	}
	var done map[string]bool
	if full {
		done = s.completedTodos()
	}
	switch c.Name {
	case "TodoWrite":
		s.setTodos(ch.List)
	case "TaskCreate":
		t := Todo{Content: ch.Subject, Status: "pending", ActiveForm: ch.ActiveForm}
		// The id is assigned by the tool: "Task #3 created successfully: ...".
		if id := taskNumber(unescapePrefix(res, 200)); id != "" {
			t.ID = id
			s.index().todoByID[id] = len(s.Todos)
		}
		s.Todos = append(s.Todos, t)
	case "TaskUpdate":
		s.taskUpdate(ch)
	}
	if !full {
		return
	}
	for _, t := range s.Todos {
		if t.Status == "completed" && !done[t.Content] {
			s.Ledger.TodoCompleted(s.NumTurns(), lineNo, t.Content)
		}
	}
}

// taskNumber is the number after the first '#' of a TaskCreate result,
// "" when there is none.
func taskNumber(res string) string {
	i := strings.Index(res, "#")
	if i < 0 {
		return ""
	}
	j := i + 1
	for j < len(res) && res[j] >= '0' && res[j] <= '9' {
		j++
	}
	return res[i+1 : j]
}

func (s *Session) completedTodos() map[string]bool {
	done := make(map[string]bool)
	for _, t := range s.Todos {
		if t.Status == "completed" {
			done[t.Content] = true
		}
	}
	return done
}

func absPath(cwd, p string) string {
	if p == "" || filepath.IsAbs(p) || cwd == "" {
		return p
	}
	return filepath.Join(cwd, p)
}

type opKind int

const (
	opRead opKind = iota
	opWrite
	opEdit
	opDelete
)

func (s *Session) fileOp(path string, k opKind) {
	if path == "" {
		return
	}
	x := s.index()
	i, ok := x.fileByPath[path]
	if !ok {
		i = len(s.Files)
		x.fileByPath[path] = i
		s.Files = append(s.Files, FileStat{Path: path})
	}
	f := &s.Files[i]
	switch k {
	case opRead:
		f.Read++
	case opWrite:
		if f.Read == 0 && f.Edit == 0 && f.Write == 0 {
			f.Created = true
		}
		f.Write++
		f.Gone = false
	case opEdit:
		f.Edit++
		f.Gone = false
	case opDelete:
		f.Delete++
		f.Gone = true
	}
}

// todoList reads TodoWrite's input (or a list of the same shape: Codex's
// plan, Gemini CLI's todos), false when it cannot be read.
func todoList(raw []byte, sc *jsonscan.Scanner) ([]Todo, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	sc.Reset(raw)
	var todos []Todo
	if sc.Peek() != '[' {
		return nil, false
	}
	for sc.Array(); sc.More(); {
		if sc.Peek() != '{' {
			sc.Skip()
			continue
		}
		var t Todo
		sc.Object()
		for k := sc.Key(); k != nil; k = sc.Key() {
			if !sc.IsString() {
				sc.Skip()
				continue
			}
			switch string(k) {
			case "content", "step", "description":
				// Claude Code's content, Codex's plan step, Gemini
				// CLI's todo description.
				t.Content = keep(sc.Str(), maxNoteBytes)
			case "status":
				t.Status = sc.Str()
			case "activeForm":
				t.ActiveForm = keep(sc.Str(), maxNoteBytes)
			case "id":
				t.ID = sc.Str()
			default:
				sc.Skip()
			}
		}
		todos = append(todos, t)
	}
	if sc.Failed() {
		return nil, false
	}
	return todos, true
}

// setTodos replaces the todo list.
func (s *Session) setTodos(todos []Todo) {
	s.Todos = todos
	x := s.index()
	clear(x.todoByID)
	for i, t := range s.Todos {
		if t.ID != "" {
			x.todoByID[t.ID] = i
		}
	}
}

func (s *Session) taskUpdate(ch *TodoChange) {
	id := ch.TaskID
	x := s.index()
	i, ok := x.todoByID[id]
	if !ok {
		return
	}
	t := &s.Todos[i]
	if st := ch.Status; st != "" {
		if st == "deleted" {
			s.Todos = append(s.Todos[:i], s.Todos[i+1:]...)
			clear(x.todoByID)
			for j, t := range s.Todos {
				if t.ID != "" {
					x.todoByID[t.ID] = j
				}
			}
			return
		}
		t.Status = st
	}
	if ch.Subject != "" {
		t.Content = ch.Subject
	}
	if ch.ActiveForm != "" {
		t.ActiveForm = ch.ActiveForm
	}
}

// stripTagged removes every <tag>...</tag> span.
func stripTagged(s, tag string) string {
	open, end := "<"+tag+">", "</"+tag+">"
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], end)
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len(end):]
	}
}
