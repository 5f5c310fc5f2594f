package gemini

// Where Gemini CLI keeps its sessions (observed on 0.61.0): one chat file
// per session, <home>/tmp/<project's short name>/chats/session-<start
// time>-<first 8 of the session id>.jsonl, appended to on --resume. The
// short name is the project's, mapped from its absolute path in
// <home>/projects.json ({"projects": {path: name}}), and the directory
// names its project in a .project_root file. A chat's first line is its
// header, with the session's id. Resume can leave a stray two-line file
// with the same id: of the files of one session, the largest is its chat.

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// SessionFile is one chat file.
type SessionFile struct {
	// ID is the session's id, the hooks' session_id.
	ID      string
	Path    string
	ModTime time.Time
	size    int64
}

// Sessions lists the chats under Gemini CLI's home of the project at root
// and of the projects inside it (as Codex's are listed: "/" lists them
// all), newest first. A home without them has none.
func Sessions(home, root string) ([]SessionFile, error) {
	root = filepath.Clean(root)
	var files []string
	if dir, ok := projectDir(home, root); ok {
		files, _ = filepath.Glob(filepath.Join(dir, "chats", "session-*.jsonl"))
	}
	inside, err := Projects(home)
	for _, p := range inside {
		if p == root || !within(p, root) {
			continue
		}
		if dir, ok := projectDir(home, p); ok {
			more, _ := filepath.Glob(filepath.Join(dir, "chats", "session-*.jsonl"))
			files = append(files, more...)
		}
	}
	if len(files) == 0 {
		return nil, err
	}
	byID := map[string]SessionFile{}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			continue
		}
		id := headerID(f)
		if id == "" {
			continue
		}
		if old, ok := byID[id]; ok && old.size >= fi.Size() {
			continue
		}
		byID[id] = SessionFile{ID: id, Path: f, ModTime: fi.ModTime(), size: fi.Size()}
	}
	out := make([]SessionFile, 0, len(byID))
	for _, s := range byID {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].ModTime.Equal(out[j].ModTime) {
			return out[i].ModTime.After(out[j].ModTime)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// projectDir is the project's directory under home/tmp: the one
// projects.json maps root to, else the one named for root's base name
// whose .project_root says root.
func projectDir(home, root string) (string, bool) {
	var m struct {
		Projects map[string]string `json:"projects"`
	}
	if data, err := os.ReadFile(filepath.Join(home, "projects.json")); err == nil && json.Unmarshal(data, &m) == nil {
		if name := m.Projects[root]; name != "" && !strings.ContainsAny(name, `/\`) {
			return filepath.Join(home, "tmp", name), true
		}
	}
	dir := filepath.Join(home, "tmp", filepath.Base(root))
	data, err := os.ReadFile(filepath.Join(dir, ".project_root"))
	if err != nil || strings.TrimSpace(string(data)) != root {
		return "", false
	}
	return dir, true
}

// within says dir is root or a directory inside it.
func within(dir, root string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// headerID is the session id in a chat file's first line, "" when it has
// none.
func headerID(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 4096)
	line, err := r.ReadSlice('\n')
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) && len(line) == 0 {
		return ""
	}
	var h struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(line, &h) != nil {
		return ""
	}
	return h.SessionID
}

// Projects are the project directories Gemini CLI keeps chats for under
// home, each once, in no particular order: those projects.json maps, and
// those a directory's .project_root names.
func Projects(home string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(root string) {
		root = filepath.Clean(root)
		if !filepath.IsAbs(root) || seen[root] {
			return
		}
		if dir, ok := projectDir(home, root); ok {
			if chats, _ := filepath.Glob(filepath.Join(dir, "chats", "session-*.jsonl")); len(chats) > 0 {
				seen[root] = true
				out = append(out, root)
			}
		}
	}
	var m struct {
		Projects map[string]string `json:"projects"`
	}
	if data, err := os.ReadFile(filepath.Join(home, "projects.json")); err == nil && json.Unmarshal(data, &m) == nil {
		for root := range m.Projects {
			add(root)
		}
	}
	marks, err := filepath.Glob(filepath.Join(home, "tmp", "*", ".project_root"))
	for _, mark := range marks {
		if data, err := os.ReadFile(mark); err == nil {
			add(strings.TrimSpace(string(data)))
		}
	}
	return out, err
}
