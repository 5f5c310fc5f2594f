package handoff

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// nameParts reads the names Write gives handoffs,
// `^(\d{4}-\d{2}-\d{2}-\d{4})(?:-(\d+))?\.md$`: the date and time, and
// the -N Write adds ("" for none). It is matched by hand: every cairn
// process, every hook, links this package, and with regexp linked its
// parser's Unicode tables are built at start-up (docs/benchmarks.md,
// issue 15).
func nameParts(name string) (stamp, n string, ok bool) {
	rest, ok := strings.CutSuffix(name, ".md")
	if !ok || len(rest) < 15 {
		return "", "", false
	}
	stamp, rest = rest[:15], rest[15:]
	for i := 0; i < len(stamp); i++ {
		sep := i == 4 || i == 7 || i == 10
		if sep && stamp[i] != '-' || !sep && (stamp[i] < '0' || stamp[i] > '9') {
			return "", "", false
		}
	}
	if rest == "" {
		return stamp, "", true
	}
	if rest[0] != '-' || len(rest) == 1 {
		return "", "", false
	}
	for i := 1; i < len(rest); i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return "", "", false
		}
	}
	return stamp, rest[1:], true
}

type entry struct {
	path  string
	stamp string
	n     int
}

// list returns the project's handoffs, newest first: by the date and time
// in the name, then by the -N that Write adds.
func list(project string) ([]entry, error) {
	dir := filepath.Join(project, filepath.FromSlash(Dir))
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list handoffs: %w", err)
	}
	var out []entry
	for _, de := range des {
		stamp, num, ok := nameParts(de.Name())
		if !ok || !de.Type().IsRegular() {
			continue
		}
		n := 1
		if num != "" {
			n, _ = strconv.Atoi(num)
		}
		out = append(out, entry{path: filepath.Join(dir, de.Name()), stamp: stamp, n: n})
	}
	slices.SortFunc(out, func(a, b entry) int {
		if c := strings.Compare(b.stamp, a.stamp); c != 0 {
			return c
		}
		return b.n - a.n
	})
	return out, nil
}

// Newest is the path of the project's newest handoff.
func Newest(project string) (string, bool) {
	hs, err := list(project)
	if err != nil || len(hs) == 0 {
		return "", false
	}
	return hs[0].path, true
}

// Unseen returns the project's newest handoff when this session has not
// been shown it yet, and records it as shown: a session is pointed at a
// handoff once. Handoffs the session wrote itself are passed over, and
// when the newest other handoff was shown already there is nothing to show
// (an older one is not worth pointing at). What was shown is kept in
// <stateDir>/handoffs-seen/<session>.
func Unseen(project, stateDir, sessionID string) (string, bool, error) {
	if project == "" || sessionID == "" {
		return "", false, nil
	}
	hs, err := list(project)
	if err != nil || len(hs) == 0 {
		return "", false, err
	}
	file := seenFile(stateDir, sessionID)
	seen, err := readSeen(file)
	if err != nil {
		return "", false, err
	}
	for _, h := range hs {
		if writtenBy(h.path) == sessionID {
			continue
		}
		if slices.Contains(seen, h.path) {
			return "", false, nil
		}
		if err := writeSeen(file, append(seen, h.path)); err != nil {
			return "", false, err
		}
		return h.path, true, nil
	}
	return "", false, nil
}

// MarkSeen records that the session has been shown the handoff at path,
// or has no need to be.
func MarkSeen(stateDir, sessionID, path string) error {
	file := seenFile(stateDir, sessionID)
	seen, err := readSeen(file)
	if err != nil || slices.Contains(seen, path) {
		return err
	}
	return writeSeen(file, append(seen, path))
}

// maxSeen bounds the file: a session is shown a handful of handoffs.
const maxSeen = 100

func seenFile(stateDir, sessionID string) string {
	name := sessionID
	if !safeName(name) {
		sum := sha256.Sum256([]byte(sessionID))
		name = hex.EncodeToString(sum[:12])
	}
	return filepath.Join(stateDir, "handoffs-seen", name)
}

func safeName(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func readSeen(file string) ([]string, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read handoffs seen: %w", err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

func writeSeen(file string, paths []string) error {
	if len(paths) > maxSeen {
		paths = paths[len(paths)-maxSeen:]
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("record handoff seen: %w", err)
	}
	return state.WriteAtomic(file, []byte(strings.Join(paths, "\n")+"\n"), false)
}

// frontMatter reads the handoff's front matter fields; it stops at the
// closing --- or after a few KiB.
func frontMatter(path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 16<<10)
	out := map[string]string{}
	for i := 0; sc.Scan() && i < 40; i++ {
		line := sc.Text()
		if i == 0 {
			if line != "---" {
				return out
			}
			continue
		}
		if line == "---" {
			break
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if strings.HasPrefix(v, `"`) {
			if u, err := strconv.Unquote(v); err == nil {
				v = u
			}
		}
		out[strings.TrimSpace(k)] = v
	}
	return out
}

func writtenBy(path string) string { return frontMatter(path)["session_id"] }

// Origin is the session that wrote the handoff at path, and the client it
// ran in (transcript.Session's Client); client is "" for a handoff written
// before cairn recorded it.
func Origin(path string) (client, session string) {
	fm := frontMatter(path)
	return fm["client"], fm["session_id"]
}

// title is the document's first level-one heading, without "Session
// Handoff: ".
func title(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 64<<10)
	for i := 0; sc.Scan() && i < 60; i++ {
		if t, ok := strings.CutPrefix(sc.Text(), "# "); ok {
			t = strings.TrimSpace(t)
			t = strings.TrimPrefix(t, "Session Handoff")
			return strings.TrimSpace(strings.TrimPrefix(t, ":"))
		}
	}
	return ""
}

// PointerText is the short note that points a session at the handoff at
// path: when it was written and in which client, what about, where it is,
// and to read it before continuing, with resume, the command that prints
// it for the client the session runs in ("cairn resume --agent codex").
func PointerText(project, path, resume string) string {
	rel := path
	if r, err := filepath.Rel(project, path); err == nil && !strings.HasPrefix(r, "..") {
		rel = filepath.ToSlash(r)
	}
	var b strings.Builder
	fm := frontMatter(path)
	b.WriteString("cairn: a handoff from an earlier ")
	if c := fm["client"]; c != "" {
		b.WriteString(transcript.ClientTitle(c) + " ")
	}
	b.WriteString("session")
	if d := fm["session_date"]; d != "" {
		when := d
		if t := fm["session_time"]; t != "" {
			when += " " + t
		}
		fmt.Fprintf(&b, " (%s)", when)
	}
	fmt.Fprintf(&b, " is at %s", rel)
	if t := title(path); t != "" {
		fmt.Fprintf(&b, "; it is about: %s", text.ClipLine(t, 160))
	}
	fmt.Fprintf(&b, ". If this session continues that work, read it before continuing: `%s` prints it.", resume)
	return b.String()
}
