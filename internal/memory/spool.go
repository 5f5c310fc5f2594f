package memory

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cairn-agent/cairn/internal/filelock"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/state"
)

// Spool keeps the observations a process could not store in time (a
// database locked or busy past a hook's bounded wait), for a process with
// time to store them: a job, a command. It is a file beside the database,
// one observation per line, cleaned (redacted, private spans gone) before
// it is written, so that the spool holds nothing the database would not.
type Spool struct {
	// Path is the spool's file.
	Path string
	// Now stamps observations without a time of their own (time.Now when
	// nil): the time they were made, not the time they are stored.
	Now func() time.Time
}

// SpoolFor is the spool of the database at dbPath.
func SpoolFor(dbPath string) Spool { return Spool{Path: dbPath + ".spool"} }

// staleClaim is how old a drain's claim must be before another drain
// takes it over: the drain that made it ended without storing it
// (killed), since a drain is bounded far below this.
const staleClaim = 5 * time.Minute

// Put appends the observations to the spool. Appends from several
// processes do not mix: each holds the file's lock for its write.
func (sp Spool) Put(obs ...Observation) error {
	now := time.Now
	if sp.Now != nil {
		now = sp.Now
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, o := range obs {
		o = clean(o)
		if o.Title == "" && o.Body == "" {
			continue
		}
		if o.Time.IsZero() {
			o.Time = now()
		}
		if err := enc.Encode(record(o)); err != nil {
			return fmt.Errorf("spool observations: %w", err)
		}
	}
	if buf.Len() == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(sp.Path), 0o700); err != nil {
		return fmt.Errorf("spool observations: %w", err)
	}
	if err := sp.appendLocked(buf.Bytes()); err != nil {
		return fmt.Errorf("spool observations: %w", err)
	}
	return nil
}

// appendLocked writes data at the end of the spool, under its lock.
func (sp Spool) appendLocked(data []byte) error {
	f, err := os.OpenFile(sp.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := lockWithin(f, lockWait); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Sync()
}

// Drain stores what the spool holds in s and empties it, returning how
// many observations it stored (those stored already count too: adding is
// idempotent). A line a crash left half-written is skipped. When storing
// fails, what was taken goes back to the spool for the next drain.
func (sp Spool) Drain(ctx context.Context, s *Store) (int, error) {
	claims, err := sp.claim()
	if err != nil || len(claims) == 0 {
		return 0, err
	}
	var recs []sqlite.Observation
	var data [][]byte
	for _, c := range claims {
		b, err := os.ReadFile(c)
		if err != nil {
			return 0, fmt.Errorf("drain the spool: %w", err)
		}
		data = append(data, b)
		recs = append(recs, decodeSpool(b)...)
	}
	if _, err := s.db.AddObservations(ctx, recs); err != nil {
		// Back to the spool (what Put appended meanwhile stays too);
		// the claims go only once their content is back.
		if perr := sp.appendLocked(bytes.Join(data, nil)); perr != nil {
			return 0, errors.Join(err, perr)
		}
		for _, c := range claims {
			os.Remove(c)
		}
		return 0, err
	}
	for _, c := range claims {
		os.Remove(c)
	}
	return len(recs), nil
}

// claim moves what the spool holds to a file of this drain's, under the
// spool's lock (a writer's append is whole on one side or the other), and
// takes over the claims of drains that ended without storing theirs; it
// returns the files to store.
func (sp Spool) claim() ([]string, error) {
	var claims []string
	old, _ := filepath.Glob(sp.Path + ".*.draining")
	for i, c := range old {
		if fi, err := os.Stat(c); err == nil && time.Since(fi.ModTime()) > staleClaim {
			mine := fmt.Sprintf("%s.%d-%d.draining", sp.Path, os.Getpid(), i)
			if os.Rename(c, mine) == nil {
				claims = append(claims, mine)
			}
		}
	}
	f, err := os.OpenFile(sp.Path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return claims, nil
	}
	if err != nil {
		return claims, fmt.Errorf("drain the spool: %w", err)
	}
	defer f.Close()
	if err := lockWithin(f, lockWait); err != nil {
		return claims, fmt.Errorf("drain the spool: %w", err)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(f); err != nil || b.Len() == 0 {
		return claims, err
	}
	mine := sp.Path + "." + strconv.Itoa(os.Getpid()) + ".draining"
	if err := state.WriteAtomic(mine, b.Bytes(), true); err != nil {
		return claims, fmt.Errorf("drain the spool: %w", err)
	}
	if err := f.Truncate(0); err != nil {
		os.Remove(mine)
		return claims, fmt.Errorf("drain the spool: %w", err)
	}
	return append(claims, mine), nil
}

// lockWait bounds a wait for the spool's lock, which a writer holds for
// one write and a drain for one read.
const lockWait = time.Second

// lockWithin takes f's exclusive lock, waiting at most d.
func lockWithin(f *os.File, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		err := filelock.TryExclusive(f)
		if !errors.Is(err, filelock.ErrLocked) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// spooled is an observation as the spool holds it.
type spooled struct {
	Project   string    `json:"project"`
	SessionID string    `json:"session,omitempty"`
	Time      time.Time `json:"time"`
	Kind      string    `json:"kind"`
	Title     string    `json:"title,omitempty"`
	Body      string    `json:"body,omitempty"`
	Files     []string  `json:"files,omitempty"`
	Source    string    `json:"source,omitempty"`
	Key       string    `json:"key,omitempty"`
	Replace   bool      `json:"replace,omitempty"`
}

func record(o Observation) spooled {
	return spooled{Project: o.Project, SessionID: o.SessionID, Time: o.Time, Kind: o.Kind, Title: o.Title,
		Body: o.Body, Files: o.Files, Source: o.Source, Key: o.key, Replace: o.replace}
}

// decodeSpool reads a spool's lines, leaving out those that are not a
// whole observation.
func decodeSpool(data []byte) []sqlite.Observation {
	var recs []sqlite.Observation
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var r spooled
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Kind == "" {
			continue
		}
		recs = append(recs, sqlite.Observation{Project: r.Project, SessionID: r.SessionID, CreatedAt: r.Time,
			Kind: r.Kind, Title: r.Title, Body: r.Body, Files: r.Files, Source: r.Source, Key: r.Key, Replace: r.Replace})
	}
	return recs
}
