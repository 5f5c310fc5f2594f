package transcript

import (
	"path/filepath"
	"strings"

	"github.com/cairn-agent/cairn/internal/jsonscan"
)

// toolUse fills c from the tool's input and records its effects on files and
// todos. cwd resolves relative paths. With full, a todo it completes is
// told to the ledger.
func (s *Session) toolUse(c *ToolCall, in *toolInput, cwd string, sub *jsonscan.Scanner, lineNo int, full bool) {
	if full && (c.Name == "TodoWrite" || c.Name == "TaskUpdate") {
		done := s.completedTodos()
		defer func() {
			for _, t := range s.Todos {
				if t.Status == "completed" && !done[t.Content] {
					s.Ledger.TodoCompleted(s.NumTurns(), lineNo, t.Content)
				}
			}
		}()
	}
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
		s.todoWrite(in.todos, sub)
	case "TaskCreate":
		s.Todos = append(s.Todos, Todo{
			ID:         "pending:" + c.ID,
			Content:    keep(jsonscan.Unescape(in.subject), maxNoteBytes),
			Status:     "pending",
			ActiveForm: keep(jsonscan.Unescape(in.activeForm), maxNoteBytes),
		})
		s.index().todoByID["pending:"+c.ID] = len(s.Todos) - 1
	case "TaskUpdate":
		s.taskUpdate(in)
	}
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

// todoWrite replaces the todo list with TodoWrite's input (or a list of
// the same shape: Codex's plan, Gemini CLI's todos).
func (s *Session) todoWrite(raw []byte, sc *jsonscan.Scanner) {
	if len(raw) == 0 {
		return
	}
	sc.Reset(raw)
	var todos []Todo
	if sc.Peek() != '[' {
		return
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
		return
	}
	s.Todos = todos
	x := s.index()
	clear(x.todoByID)
	for i, t := range s.Todos {
		if t.ID != "" {
			x.todoByID[t.ID] = i
		}
	}
}

func (s *Session) assignTaskID(callID, id string) {
	x := s.index()
	i, ok := x.todoByID["pending:"+callID]
	if !ok {
		return
	}
	delete(x.todoByID, "pending:"+callID)
	s.Todos[i].ID = id
	x.todoByID[id] = i
}

func (s *Session) taskUpdate(in *toolInput) {
	id := strings.Trim(jsonscan.Unescape(in.taskID), `"`)
	x := s.index()
	i, ok := x.todoByID[id]
	if !ok {
		return
	}
	t := &s.Todos[i]
	if st := jsonscan.Unescape(in.status); st != "" {
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
	if v := jsonscan.Unescape(in.subject); v != "" {
		t.Content = keep(v, maxNoteBytes)
	}
	if v := jsonscan.Unescape(in.activeForm); v != "" {
		t.ActiveForm = keep(v, maxNoteBytes)
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
