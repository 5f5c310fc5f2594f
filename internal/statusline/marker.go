package statusline

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/state"
)

// Two marker files live under cairn's state directory, each one line, so
// that the status line reads them in microseconds instead of opening the
// database (which costs milliseconds):
//
//	projects/<hash of the project path>.last
//	    cairn-last 1 <unix-nanos> <checkpoint-id> <ticket, Go-quoted> <project, Go-quoted>
//	sessions/<session id>.pressure
//	    <percent> L<level> <base>        e.g. "82 L2 threshold"
//
// Both are caches: a missing or unreadable one only leaves its part of the
// line out.

const lastMagic = "cairn-last 1"

// Checkpoint is what the project's marker says about its latest checkpoint.
type Checkpoint struct {
	ID     int64
	Ticket string // "" when the checkpoint named none
	At     time.Time
}

// lastFile is the project's checkpoint marker. The name hashes the cleaned
// path; the file repeats the path, so that a collision reads as no marker.
func lastFile(stateDir, project string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(project)))
	return filepath.Join(stateDir, "projects", hex.EncodeToString(sum[:8])+".last")
}

// RecordCheckpoint notes the project's latest checkpoint for the status
// line. continuity.Keeper.Capture calls it after storing a checkpoint. A
// marker already newer than at is kept: a slow capture that finishes late
// must not hide a later one. Nothing is recorded without a project.
func RecordCheckpoint(stateDir, project string, id int64, ticket string, at time.Time) error {
	if project == "" {
		return nil
	}
	file := lastFile(stateDir, project)
	if c, ok := LastCheckpoint(stateDir, project); ok && c.At.After(at) {
		return nil
	}
	line := formatLast(Checkpoint{ID: id, Ticket: ticket, At: at}, filepath.Clean(project))
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("record checkpoint for the status line: %w", err)
	}
	if err := state.WriteAtomic(file, []byte(line), false); err != nil {
		return fmt.Errorf("record checkpoint for the status line: %w", err)
	}
	return nil
}

// LastCheckpoint reads the project's marker; ok is false when there is
// none, or it does not decode, or it is another project's.
func LastCheckpoint(stateDir, project string) (Checkpoint, bool) {
	if project == "" {
		return Checkpoint{}, false
	}
	data, err := os.ReadFile(lastFile(stateDir, project))
	if err != nil {
		return Checkpoint{}, false
	}
	c, path, err := parseLast(string(data))
	if err != nil || path != filepath.Clean(project) {
		return Checkpoint{}, false
	}
	return c, true
}

func formatLast(c Checkpoint, project string) string {
	return fmt.Sprintf("%s %d %d %s %s\n", lastMagic, c.At.UnixNano(), c.ID, strconv.Quote(cleanTicket(c.Ticket)), strconv.Quote(project))
}

// parseLast decodes a checkpoint marker.
func parseLast(s string) (c Checkpoint, project string, err error) {
	bad := errors.New("not a checkpoint marker")
	rest, ok := strings.CutPrefix(s, lastMagic+" ")
	if !ok {
		return c, "", bad
	}
	field := func() string {
		f, r, _ := strings.Cut(rest, " ")
		rest = r
		return f
	}
	quoted := func() (string, bool) {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return "", false
		}
		rest = strings.TrimPrefix(rest[len(q):], " ")
		v, err := strconv.Unquote(q)
		return v, err == nil
	}
	nanos, err1 := strconv.ParseInt(field(), 10, 64)
	id, err2 := strconv.ParseInt(field(), 10, 64)
	ticket, ok1 := quoted()
	project, ok2 := quoted()
	if err1 != nil || err2 != nil || !ok1 || !ok2 || nanos <= 0 || strings.TrimRight(rest, "\n") != "" {
		return Checkpoint{}, "", bad
	}
	return Checkpoint{ID: id, Ticket: cleanTicket(ticket), At: time.Unix(0, nanos)}, project, nil
}

// maxTicket bounds a ticket on the line, in characters.
const maxTicket = 32

// cleanTicket keeps a ticket fit for a terminal line: no spaces, no
// control characters (no escape sequences), at most maxTicket characters.
func cleanTicket(t string) string {
	var b strings.Builder
	n := 0
	for _, r := range t {
		if r == unicode.ReplacementChar || !unicode.IsPrint(r) || unicode.IsSpace(r) {
			continue
		}
		if n++; n > maxTicket {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Pressure is what a session's pressure marker says.
type Pressure struct {
	Percent int // on Base, cut down to a whole number as the line shows it
	Level   int // 0 to 3
	Base    pressure.Base
}

func (p Pressure) String() string {
	return fmt.Sprintf("%d %s %s\n", p.Percent, pressure.Name(p.Level), p.Base)
}

// pressureFile is the session's pressure marker, or "" for a session id
// that cannot be a file name: the id comes from stdin.
func pressureFile(stateDir, session string) string {
	if session == "" || len(session) > 128 || session[0] == '.' {
		return ""
	}
	for _, c := range session {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return ""
		}
	}
	return filepath.Join(stateDir, "sessions", session+".pressure")
}

// RecordPressure writes the session's pressure marker when what it says
// changed: the status line runs after every reply, and most replies move
// the context by less than a percent. An input without a context figure
// writes nothing. It reports whether it wrote.
func RecordPressure(stateDir, session string, in Input) (bool, error) {
	file := pressureFile(stateDir, session)
	if file == "" || !in.Known() {
		return false, nil
	}
	p := Pressure{Percent: in.Percent(), Level: in.Pressure.Level(in.Reading), Base: in.Pressure.Base}
	data := p.String()
	if old, err := os.ReadFile(file); err == nil && string(old) == data {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return false, fmt.Errorf("record pressure: %w", err)
	}
	if err := state.WriteAtomic(file, []byte(data), false); err != nil {
		return false, fmt.Errorf("record pressure: %w", err)
	}
	return true, nil
}

// ReadPressure reads the session's pressure marker; ok is false when there
// is none or it does not decode.
func ReadPressure(stateDir, session string) (Pressure, bool) {
	file := pressureFile(stateDir, session)
	if file == "" {
		return Pressure{}, false
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return Pressure{}, false
	}
	return parsePressure(string(data))
}

func parsePressure(s string) (Pressure, bool) {
	f := strings.Fields(s)
	if len(f) != 3 || len(f[1]) != 2 || f[1][0] != 'L' || f[1][1] < '0' || f[1][1] > '3' {
		return Pressure{}, false
	}
	pct, err := strconv.Atoi(f[0])
	if err != nil || pct < 0 {
		return Pressure{}, false
	}
	base := pressure.Base(f[2])
	if base != pressure.OfThreshold && base != pressure.OfWindow {
		return Pressure{}, false
	}
	return Pressure{Percent: pct, Level: int(f[1][1] - '0'), Base: base}, true
}
