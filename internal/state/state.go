// Package state keeps cairn's per-session engine state on disk, so that a
// short-lived process (a hook, a status line, a command) continues reading a
// transcript where the previous one stopped instead of starting again.
//
// A state file holds two lines: a small header (what the context meter
// needs, in a compact format of its own, header.go) and the full derived
// session as JSON. Reading only the header keeps
// `cairn status` on a large, unchanged transcript close to the cost of
// starting a process. Files are written atomically (temp file, fsync,
// rename) and readable by the user only. Nothing in a state file is trusted:
// a file that does not decode, is of another version or describes another
// transcript is discarded and the session rebuilt from the transcript.
//
// Concurrent writers need no lock: each writes a complete file derived from
// the same append-only transcript, and whichever rename lands last is a valid
// state; a behind one only makes the next reader read a little more.
package state

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
}

// File is where the state of the transcript at path lives. The name carries
// the session id for people and a hash of the absolute path so that two
// copies of one transcript never share a state.
func (st Store) File(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	sum := sha256.Sum256([]byte(abs))
	base := strings.TrimSuffix(filepath.Base(abs), ".jsonl")
	return filepath.Join(st.Dir, "sessions", base+"-"+hex.EncodeToString(sum[:6])+".state")
}

// body is the second line of a state file.
type body struct {
	Kind string `json:"kind"`
	*transcript.Session
}

const bodyKind = "cairn-session-state"

// LoadHeader returns the light session saved in the header (recent turns
// only, no tool calls, prompts but the first, files or subagents), or nil
// when there is no usable state.
func (st Store) LoadHeader(path string) *transcript.Session {
	f, err := os.Open(st.File(path))
	if err != nil {
		return nil
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 16<<10)
	line, err := r.ReadString('\n')
	if err != nil {
		return nil
	}
	s, err := decodeHeader(line)
	if err != nil || !usable(s, path) {
		return nil
	}
	return s
}

// Load returns the full saved session, or nil when there is no usable state.
func (st Store) Load(path string) *transcript.Session {
	data, err := os.ReadFile(st.File(path))
	if err != nil {
		return nil
	}
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		return nil
	}
	b := body{Session: new(transcript.Session)}
	if err := json.Unmarshal(bytes.TrimSpace(data[i+1:]), &b); err != nil || b.Kind != bodyKind || !usable(b.Session, path) {
		return nil
	}
	return b.Session
}

func usable(s *transcript.Session, path string) bool {
	return s.Version == transcript.StateVersion && s.Path == path && s.Offset >= 0
}

// Save writes the session's state atomically.
func (st Store) Save(s *transcript.Session) error {
	file := st.File(s.Path)
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create state directory: %w", err)
	}
	var buf bytes.Buffer
	buf.Write(encodeHeader(Lite(s)))
	if err := json.NewEncoder(&buf).Encode(body{Kind: bodyKind, Session: s}); err != nil {
		return err
	}
	return WriteAtomic(file, buf.Bytes())
}

// WriteAtomic replaces file with data: a reader sees the old file or the new
// one, never a part; a full disk leaves the old file in place.
func WriteAtomic(file string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*")
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("write state: %w", err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		return fail(err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("write state: %w", err)
	}
	if err := os.Rename(name, file); err != nil {
		os.Remove(name)
		return fmt.Errorf("write state: %w", err)
	}
	return nil
}

// Lite is the part of a session the header keeps: the meter's inputs and
// the first prompt, which names the session in listings.
func Lite(s *transcript.Session) *transcript.Session {
	l := &transcript.Session{
		Version: s.Version, Path: s.Path, Offset: s.Offset, Lines: s.Lines, Tail: s.Tail, Head: s.Head,
		IsSubagent: s.IsSubagent, SessionID: s.SessionID, Model: s.Model, CWD: s.CWD,
		GitBranch: s.GitBranch, ClientVersion: s.ClientVersion, FirstTime: s.FirstTime,
		LastTime: s.LastTime, BadCount: s.BadCount, Skipped: s.Skipped,
		EarlierTurns: s.EarlierTurns,
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
