package claudecode

// Where Claude Code keeps things on disk: its configuration directory, the
// per-project folders of session transcripts and how a working directory
// maps to one.

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ConfigDir is $CLAUDE_CONFIG_DIR, else ~/.claude.
func ConfigDir(getenv func(string) string) (string, error) {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d, nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("neither CLAUDE_CONFIG_DIR nor HOME is set")
	}
	return filepath.Join(home, ".claude"), nil
}

// UserConfig is the file Claude Code keeps its own state in, the MCP
// servers of every project included: .claude.json in $CLAUDE_CONFIG_DIR,
// else in the home directory (not in ~/.claude).
func UserConfig(getenv func(string) string) (string, error) {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, ".claude.json"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("neither CLAUDE_CONFIG_DIR nor HOME is set")
	}
	return filepath.Join(home, ".claude.json"), nil
}

// ProjectKey is the folder name Claude Code uses for a working directory:
// every UTF-16 code unit that is not an ASCII letter or digit becomes '-'
// (so "é" gives one dash and an emoji two). Claude Code shortens keys over
// maxKey characters and adds a hash; ProjectDir finds those by prefix.
func ProjectKey(cwd string) string {
	var b strings.Builder
	for _, r := range cwd {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// maxKey is the longest project key Claude Code writes unshortened.
const maxKey = 200

// ProjectDir finds the transcript folder of the project that contains cwd:
// cwd's own, else the nearest parent's that exists (Claude Code names the
// folder after the directory it was started in, often the repository
// root). It also returns that directory, the project's root; when no
// folder exists it returns cwd's would-be folder, cwd and false.
func ProjectDir(configDir, cwd string) (folder, root string, ok bool) {
	projects := filepath.Join(configDir, "projects")
	for dir := filepath.Clean(cwd); ; {
		if p, ok := projectFolder(projects, ProjectKey(dir)); ok {
			return p, dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Join(projects, ProjectKey(filepath.Clean(cwd))), filepath.Clean(cwd), false
		}
		dir = parent
	}
}

func projectFolder(root, key string) (string, bool) {
	if len(key) <= maxKey {
		p := filepath.Join(root, key)
		fi, err := os.Stat(p)
		return p, err == nil && fi.IsDir()
	}
	// A shortened key: the first maxKey characters, a dash and a hash.
	m, _ := filepath.Glob(filepath.Join(root, globEscape(key[:maxKey])+"-*"))
	for _, p := range m {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p, true
		}
	}
	return "", false
}

// globEscape quotes the characters filepath.Match treats specially; a key
// holds only letters, digits and dashes, so this is belt and braces.
func globEscape(s string) string {
	return strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`).Replace(s)
}

// SessionFile is one transcript in a project folder.
type SessionFile struct {
	ID      string
	Path    string
	ModTime time.Time
	Size    int64
}

// Sessions lists a project folder's transcripts, newest first.
func Sessions(projectDir string) ([]SessionFile, error) {
	ents, err := os.ReadDir(projectDir)
	if err != nil {
		return nil, err
	}
	var out []SessionFile
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, SessionFile{
			ID: strings.TrimSuffix(name, ".jsonl"), Path: filepath.Join(projectDir, name),
			ModTime: fi.ModTime(), Size: fi.Size(),
		})
	}
	sortSessions(out)
	return out, nil
}

// ErrAmbiguous is returned when a session id prefix matches several sessions.
var ErrAmbiguous = errors.New("ambiguous session id")

// FindSession finds a transcript by session id or unique id prefix: in the
// project folder first, then in every project.
func FindSession(configDir, projectDir, id string) (SessionFile, error) {
	if id == "" || strings.ContainsAny(id, `/\`) {
		return SessionFile{}, os.ErrNotExist
	}
	search := func(dirs []string) ([]SessionFile, error) {
		var found []SessionFile
		for _, d := range dirs {
			ss, err := Sessions(d)
			if err != nil {
				continue
			}
			for _, s := range ss {
				if s.ID == id {
					return []SessionFile{s}, nil
				}
				if strings.HasPrefix(s.ID, id) {
					found = append(found, s)
				}
			}
		}
		return found, nil
	}
	found, _ := search([]string{projectDir})
	if len(found) == 0 {
		all, _ := filepath.Glob(filepath.Join(configDir, "projects", "*"))
		found, _ = search(all)
	}
	switch len(found) {
	case 0:
		return SessionFile{}, os.ErrNotExist
	case 1:
		return found[0], nil
	}
	return SessionFile{}, ErrAmbiguous
}
