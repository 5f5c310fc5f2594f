package codex

// Where Codex keeps its sessions (observed on 0.169.0): one rollout file
// per thread, $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<thread
// id>.jsonl, appended to when the thread is resumed. A rollout's first
// line is its session_meta, with the thread's id and the directory Codex
// ran in before the (often large) base instructions; that is all cairn
// reads to find a project's sessions.

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/jsonscan"
)

// SessionFile is one rollout file.
type SessionFile struct {
	// ID is the thread's id, the hooks' session_id.
	ID      string
	Path    string
	CWD     string
	ModTime time.Time
}

// metaHead is how much of a rollout's first line is read for its id and
// cwd, which come before the base instructions.
const metaHead = 16 << 10

// Sessions lists the rollouts under home whose session ran in root or in
// a directory inside it, newest first. A home without sessions has none.
func Sessions(home, root string) ([]SessionFile, error) {
	root = filepath.Clean(root)
	var out []SessionFile
	err := filepath.WalkDir(filepath.Join(home, "sessions"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == filepath.Join(home, "sessions") && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipAll
			}
			return nil // an unreadable day is skipped, not fatal
		}
		name := d.Name()
		if d.IsDir() || !strings.HasPrefix(name, "rollout-") || !strings.HasSuffix(name, ".jsonl") {
			return nil
		}
		id, cwd, ok := readMeta(p)
		if !ok || !within(cwd, root) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		out = append(out, SessionFile{ID: id, Path: p, CWD: cwd, ModTime: fi.ModTime()})
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		if !out[i].ModTime.Equal(out[j].ModTime) {
			return out[i].ModTime.After(out[j].ModTime)
		}
		return out[i].ID < out[j].ID
	})
	return out, err
}

// within says whether dir is root or inside it.
func within(dir, root string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(root, filepath.Clean(dir))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// readMeta reads the thread id and cwd of the rollout at path from its
// session_meta line.
func readMeta(path string) (id, cwd string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", false
	}
	defer f.Close()
	buf := make([]byte, metaHead)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", "", false
	}
	return ParseMeta(buf[:n])
}

// ParseMeta reads the thread id and cwd from the start of a rollout's
// first line, which may be cut short after them; ok is false when the
// line is no session_meta (its type comes first, as Codex writes it) or
// they are not both there.
func ParseMeta(line []byte) (id, cwd string, ok bool) {
	var sc jsonscan.Scanner
	sc.Reset(line)
	if !sc.Object() {
		return "", "", false
	}
	meta := false
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "type":
			meta = sc.Str() == "session_meta"
		case "payload":
			if !sc.Object() {
				return "", "", false
			}
			for k := sc.Key(); k != nil; k = sc.Key() {
				switch string(k) {
				case "id":
					id = sc.Str()
				case "cwd":
					cwd = sc.Str()
				default:
					sc.Skip()
				}
				if id != "" && cwd != "" && meta {
					return id, cwd, true
				}
			}
			return "", "", false
		default:
			sc.Skip()
		}
		if sc.Failed() {
			return "", "", false
		}
	}
	return "", "", false
}

// Projects are the directories the rollouts under home ran in, each once,
// in no particular order: where `cairn web` looks for Codex's sessions.
func Projects(home string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	err := filepath.WalkDir(filepath.Join(home, "sessions"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == filepath.Join(home, "sessions") && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipAll
			}
			return nil
		}
		name := d.Name()
		if d.IsDir() || !strings.HasPrefix(name, "rollout-") || !strings.HasSuffix(name, ".jsonl") {
			return nil
		}
		if _, cwd, ok := readMeta(p); ok && !seen[filepath.Clean(cwd)] {
			seen[filepath.Clean(cwd)] = true
			out = append(out, filepath.Clean(cwd))
		}
		return nil
	})
	return out, err
}
