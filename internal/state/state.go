// Package state keeps cairn's per-session engine state on disk, so that a
// short-lived process (a hook, a status line, a command) continues reading a
// transcript where the previous one stopped instead of starting again.
//
// Each transcript has two files. The head holds the light session (what the
// context meter and compaction detection need) in a compact format of its
// own (header.go), with its own offset; hooks on the hot path read it,
// bring it up to date with the few lines appended since, and write it back,
// never touching the full session. The body holds the full derived session
// in a binary form of its own (codec.go) with its offset, which may lag
// behind the head's: it is brought up to date when the whole picture is
// needed (a checkpoint, a report).
//
// State is a cache of what the transcript says, which stays the source of
// truth: files are replaced atomically (temp file, rename) but not fsynced,
// and are readable by the user only. Nothing in them is trusted: a file that
// does not decode, is of another version or describes another transcript is
// ignored and the session rebuilt from the transcript. Concurrent writers
// need no lock: each writes a complete file derived from the same
// append-only transcript, and whichever rename lands last is a valid state;
// a behind one only makes the next reader read a little more.
package state

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/cairn-agent/cairn/internal/transcript"
)

// recentTurns is how many of the latest turns the header keeps: enough for
// the meter's trend.
const recentTurns = 12

// Dir returns cairn's state directory: $XDG_STATE_HOME/cairn, else
// ~/.local/state/cairn.
func Dir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "cairn"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("neither XDG_STATE_HOME nor HOME is set")
	}
	return filepath.Join(home, ".local", "state", "cairn"), nil
}

// Store reads and writes session state files under one directory.
type Store struct {
	Dir string
	// Warn is told what went wrong but did not stop a load (a state file
	// that could not be written: the next run reads more of the
	// transcript). Nil drops it.
	Warn func(error)
	// ColdHead lets a light load of a large transcript without any state
	// read it for the head only (load.go): for a caller that needs no
	// more of the session (`cairn status`). A caller that may go on to a
	// full load leaves it unset: it would read the transcript twice.
	ColdHead bool
}

// File is where the state of the transcript at path lives, without its
// extension. The name carries the session id for people and a hash of the
// absolute path so that two copies of one transcript never share a state.
func (st Store) File(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	sum := sha256.Sum256([]byte(abs))
	base := strings.TrimSuffix(filepath.Base(abs), ".jsonl")
	return filepath.Join(st.Dir, "sessions", base+"-"+hex.EncodeToString(sum[:6]))
}

func (st Store) headFile(path string) string { return st.File(path) + ".head" }
func (st Store) bodyFile(path string) string { return st.File(path) + ".body" }

// body is the content of a body file.
type body struct {
	Kind string `json:"kind"`
	*transcript.Session
}

const bodyKind = "cairn-session-state"

// LoadHeader returns the light session saved in the header (recent turns
// only, no tool calls, prompts but the first, files or subagents), or nil
// when there is no usable state.
func (st Store) LoadHeader(path string) *transcript.Session {
	data, err := ReadFile(st.headFile(path))
	if err != nil {
		return nil
	}
	s, err := decodeHeader(string(data))
	if err != nil || !usable(s, path) {
		return nil
	}
	return s
}

// LoadBody returns the full saved session, or nil when there is no usable state.
func (st Store) LoadBody(path string) *transcript.Session {
	data, err := os.ReadFile(st.bodyFile(path))
	if err != nil {
		return nil
	}
	if rest, ok := bytes.CutPrefix(data, []byte(bodyKind+" ")); ok {
		s, err := decodeBody(rest)
		if err != nil || !usable(s, path) {
			return nil
		}
		return s
	}
	// A body of a cairn before the binary form.
	b := body{Session: new(transcript.Session)}
	if err := json.Unmarshal(data, &b); err != nil || b.Kind != bodyKind || !usable(b.Session, path) {
		return nil
	}
	return b.Session
}

// bodyShape is the shape of the session's types (codec.go), computed once.
var bodyShape = sync.OnceValues(func() (string, error) { return shapeOf(reflect.TypeFor[transcript.Session]()) })

// encodeBody writes s in the body's binary form, after its kind and shape.
func encodeBody(s *transcript.Session) ([]byte, error) {
	shape, err := bodyShape()
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, 64<<10)
	b = append(b, bodyKind+" "+shape+"\n"...)
	var e encoder
	return e.value(b, reflect.ValueOf(s).Elem()), nil
}

// decodeBody reads what encodeBody wrote after the kind.
func decodeBody(data []byte) (*transcript.Session, error) {
	shape, err := bodyShape()
	if err != nil {
		return nil, err
	}
	rest, ok := bytes.CutPrefix(data, []byte(shape+"\n"))
	if !ok {
		return nil, fmt.Errorf("%w: written by a cairn of other types", errCodec)
	}
	s := new(transcript.Session)
	d := decoder{b: rest, src: string(rest)}
	d.value(reflect.ValueOf(s).Elem())
	if d.err == nil && len(d.b) != 0 {
		d.err = errCodec
	}
	return s, d.err
}

func usable(s *transcript.Session, path string) bool {
	return s.Version == transcript.StateVersion && s.Path == path && s.Offset >= 0
}

// Save writes the full session: its body and its head.
func (st Store) Save(s *transcript.Session) error {
	data, err := encodeBody(s)
	if err != nil {
		return err
	}
	if err := st.write(st.bodyFile(s.Path), data); err != nil {
		return err
	}
	return st.SaveHead(s)
}

// SaveHead writes only the head: the light part of s.
func (st Store) SaveHead(s *transcript.Session) error {
	return st.write(st.headFile(s.Path), encodeHeader(Lite(s)))
}

func (st Store) write(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("create state directory: %w", err)
	}
	return WriteAtomic(file, data, false)
}

// WriteAtomic replaces file with data, mode 0600: a reader sees the old
// file or the new one, never a part, and a full disk leaves the old file in
// place. With sync the data is on disk before the rename, so that a crash
// cannot leave an empty file either; caches can do without.
func WriteAtomic(file string, data []byte, sync bool) error {
	return WriteFile(file, data, 0o600, sync)
}

// WriteFile is WriteAtomic with the file's mode given: project files
// (handoffs, slash commands, learnings) are shared like the user's own.
func WriteFile(file string, data []byte, perm os.FileMode, sync bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+tempMark+"*")
	if err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("write %s: %w", file, err)
	}
	// os.CreateTemp makes the file 0600; Chmod is not subject to the umask.
	if perm != 0o600 {
		if err := tmp.Chmod(perm); err != nil {
			return fail(err)
		}
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", file, err)
	}
	if err := os.Rename(name, file); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", file, err)
	}
	return nil
}

// tempMark names the temporary files WriteFile renames into place: one
// left by a process killed midway is found by it (CleanTemps).
const tempMark = ".cairn-tmp-"

// CleanTemps removes the temporary files of writes that never finished in
// dir, those older than age, and returns how many it removed.
func CleanTemps(dir string, age time.Duration, now time.Time) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if !strings.Contains(e.Name(), tempMark) || !strings.HasPrefix(e.Name(), ".") || e.IsDir() {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > age && os.Remove(filepath.Join(dir, e.Name())) == nil {
			n++
		}
	}
	return n, nil
}

// Lite is the part of a session the header keeps: the meter's inputs and
// the first prompt, which names the session in listings.
func Lite(s *transcript.Session) *transcript.Session {
	l := &transcript.Session{
		Version: s.Version, Path: s.Path, Offset: s.Offset, Lines: s.Lines, TailSum: s.TailSum, TailLen: s.TailLen, Head: s.Head,
		IsSubagent: s.IsSubagent, SessionID: s.SessionID, Model: s.Model, CWD: s.CWD,
		GitBranch: s.GitBranch, ClientVersion: s.ClientVersion, FirstTime: s.FirstTime,
		LastTime: s.LastTime, BadCount: s.BadCount, Skipped: s.Skipped,
		EarlierTurns: s.EarlierTurns, HookAnswers: s.HookAnswers, RestoreLines: s.RestoreLines,
		Client: s.Client, ContextWindow: s.ContextWindow, Carry: s.Carry,
	}
	turns := s.Turns
	if len(turns) > recentTurns {
		l.EarlierTurns += len(turns) - recentTurns
		turns = turns[len(turns)-recentTurns:]
	}
	l.Turns = turns
	for _, c := range s.Compactions {
		c.Summary = ""
		l.Compactions = append(l.Compactions, c)
	}
	if len(s.Prompts) > 0 {
		l.Prompts = s.Prompts[:1]
	}
	return l
}

// HasBody says whether a whole session's state is saved for the
// transcript at path: without it a full load reads the whole transcript.
func (st Store) HasBody(path string) bool {
	_, err := os.Stat(st.bodyFile(path))
	return err == nil
}
