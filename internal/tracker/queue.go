package tracker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/filelock"
	"github.com/cairn-agent/cairn/internal/state"
)

// errBusy is tryLock's answer when another drainer holds the queue.
var errBusy = errors.New("another drainer is sending the queue")

// ErrBusy is Drain's answer when another drainer is already at work: the
// updates are in its hands.
var ErrBusy = errBusy

// tryLock takes an exclusive lock on f without waiting: errBusy when
// another drainer holds one.
func tryLock(f *os.File) error {
	if err := filelock.TryExclusive(f); !errors.Is(err, filelock.ErrLocked) {
		return err
	}
	return errBusy
}

// Queue is the durable queue: a directory of one file per update.
//
//	pending/<key>.json   waiting to be sent (or to be retried, at NextAt)
//	done/<key>           sent; kept so that the same key is never queued again
//	failed/<key>.json    refused for good by the tracker, with the reason
//
// Files are written whole (a temporary file renamed), so a crash or a
// full disk leaves either the old file or the new one, never half of one.
type Queue struct {
	Dir string
	Now func() time.Time
}

// Backoff bounds: the first retry after MinBackoff, doubling, at most
// MaxBackoff apart; a tracker's own Retry-After is honoured when longer.
const (
	MinBackoff = 30 * time.Second
	MaxBackoff = time.Hour
)

func (q Queue) now() time.Time {
	if q.Now != nil {
		return q.Now()
	}
	return time.Now()
}

func (q Queue) file(dir, key, ext string) string { return filepath.Join(q.Dir, dir, key+ext) }

// validKey keeps a key a file name.
func validKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// Add queues u. It returns false, and queues nothing, when an update with
// the same key is already queued, sent or set aside.
func (q Queue) Add(u Update) (bool, error) {
	if !validKey(u.Key) {
		return false, fmt.Errorf("update key %q: want lower-case letters and digits", u.Key)
	}
	for _, f := range []string{q.file("pending", u.Key, ".json"), q.file("done", u.Key, ""), q.file("failed", u.Key, ".json")} {
		if _, err := os.Lstat(f); err == nil {
			return false, nil
		}
	}
	if u.Created.IsZero() {
		u.Created = q.now()
	}
	if err := os.MkdirAll(filepath.Join(q.Dir, "pending"), 0o700); err != nil {
		return false, err
	}
	data, err := json.Marshal(u)
	if err != nil {
		return false, err
	}
	// O_EXCL: of two hooks queuing the same update at once, one wins.
	f, err := os.OpenFile(q.file("pending", u.Key, ".json"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return false, err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return false, err
	}
	return true, nil
}

// List reads the updates in one of the queue's directories ("pending",
// "failed"), oldest first. Unreadable files are reported, not dropped.
func (q Queue) List(dir string) ([]Update, []error) {
	ents, err := os.ReadDir(filepath.Join(q.Dir, dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{err}
	}
	var out []Update
	var errs []error
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(q.Dir, dir, e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var u Update
		if err := json.Unmarshal(data, &u); err != nil || !validKey(u.Key) {
			errs = append(errs, fmt.Errorf("%s: not a queued update (%v); left where it is", p, err))
			continue
		}
		out = append(out, u)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].Seq < out[j].Seq
	})
	return out, errs
}

// Report is what one Drain did.
type Report struct {
	Sent, Retry, Failed, Waiting int
	// Errors are the failures met, one line each.
	Errors []string
}

// Drain sends the pending updates that are due, oldest first, each with
// the tracker open returns for it (opened once per tracker and project).
// An update whose tracker cannot be opened (no key in the environment)
// waits. A
// transient failure is retried later (backoff); a permanent one is set
// aside in failed/. Only one drainer runs at a time: another gets
// ErrBusy.
func (q Queue) Drain(ctx context.Context, open func(Update) (Tracker, error)) (Report, error) {
	var r Report
	if err := os.MkdirAll(q.Dir, 0o700); err != nil {
		return r, err
	}
	lock, err := os.OpenFile(filepath.Join(q.Dir, "drain.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return r, err
	}
	defer lock.Close()
	if err := tryLock(lock); err != nil {
		return r, err
	}
	// Once a tracker failed transiently in this run, its later updates
	// wait too: they would meet the same outage, and order matters (the
	// status before the comment that explains it).
	down := map[string]bool{}
	opened := map[string]Tracker{}
	// Updates queued while this drainer runs are its too: the drainer
	// their queuer started found the lock taken and left. So the queue is
	// read again until a pass finds nothing new.
	handled := map[string]bool{}
	for first := true; ; first = false {
		all, errs := q.List("pending")
		if first {
			for _, e := range errs {
				r.Errors = append(r.Errors, e.Error())
			}
		}
		var pending []Update
		for _, u := range all {
			if !handled[u.Key] {
				handled[u.Key] = true
				pending = append(pending, u)
			}
		}
		if len(pending) == 0 {
			break
		}
		q.pass(ctx, pending, open, down, opened, &r)
	}
	return r, nil
}

// pass sends the updates of one reading of the queue.
func (q Queue) pass(ctx context.Context, pending []Update, open func(Update) (Tracker, error), down map[string]bool, opened map[string]Tracker, r *Report) {
	for _, u := range pending {
		if ctx.Err() != nil {
			r.Waiting++
			continue
		}
		which := u.Tracker + "\x00" + u.Project + "\x00" + u.Repo
		t, seen := opened[which]
		if !seen {
			var err error
			if t, err = open(u); err != nil {
				r.Errors = append(r.Errors, fmt.Sprintf("%s for %s: %v", u.Tracker, u.Issue, err))
				t = nil
			}
			opened[which] = t
		}
		if t == nil || down[which] || u.NextAt.After(q.now()) {
			// An update waiting for its retry holds back the later ones
			// of its tracker.
			down[which] = true
			r.Waiting++
			continue
		}
		send, err := u, error(nil)
		if u.Ref != "" {
			// The issue acted on is one a SubIssue update created: the
			// update waits for it, and without it (set aside) it cannot
			// be made until that creation is retried.
			id, rerr := q.resolve(u.Ref)
			if errors.Is(rerr, errNotYet) {
				down[which] = true
				r.Waiting++
				continue
			}
			send.Issue, err = id, rerr
		}
		if err == nil {
			err = q.apply(ctx, t, send)
		}
		switch {
		case err == nil:
			if err := q.finish(u); err != nil {
				r.Errors = append(r.Errors, err.Error())
			}
			r.Sent++
		case IsTransient(err) || ctx.Err() != nil:
			down[which] = true
			u.Attempts++
			u.LastError = oneLine(err.Error())
			u.NextAt = q.now().Add(backoff(u.Attempts, err))
			if werr := q.write("pending", u); werr != nil {
				r.Errors = append(r.Errors, werr.Error())
			}
			r.Retry++
			r.Errors = append(r.Errors, fmt.Sprintf("%s %s on %s: %s (retry in %s)", u.Tracker, u.Kind, u.Issue, u.LastError, u.NextAt.Sub(q.now()).Round(time.Second)))
		default:
			u.Attempts++
			u.LastError = oneLine(err.Error())
			if werr := q.write("failed", u); werr != nil {
				r.Errors = append(r.Errors, werr.Error())
				continue
			}
			os.Remove(q.file("pending", u.Key, ".json"))
			r.Failed++
			r.Errors = append(r.Errors, fmt.Sprintf("%s %s on %s refused: %s (kept: cairn tracker retry)", u.Tracker, u.Kind, u.Issue, u.LastError))
		}
	}
}

// errNotYet is resolve's answer for a sub-issue still queued.
var errNotYet = errors.New("the sub-issue is not created yet")

// apply makes one update; a SubIssue's new issue is recorded under its
// key before the update is marked sent.
func (q Queue) apply(ctx context.Context, t Tracker, u Update) error {
	if u.Kind != SubIssue {
		return t.Apply(ctx, u)
	}
	s, ok := t.(SubIssues)
	if !ok {
		return fmt.Errorf("%s: cannot create sub-issues", t.Name())
	}
	is, err := s.CreateSubIssue(ctx, u)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(q.Dir, "created"), 0o700); err != nil {
		return err
	}
	return state.WriteFile(q.file("created", u.Key, ""), []byte(is.ID+"\n"), 0o600, true)
}

// Created is the issue a SubIssue update created, once it is sent.
func (q Queue) Created(key string) (string, bool) {
	if !validKey(key) {
		return "", false
	}
	data, err := os.ReadFile(q.file("created", key, ""))
	id := strings.TrimSpace(string(data))
	return id, err == nil && id != ""
}

// resolve is the issue the SubIssue update key created: errNotYet while
// it is queued, an error when it was set aside or never queued.
func (q Queue) resolve(key string) (string, error) {
	if id, ok := q.Created(key); ok {
		return id, nil
	}
	if _, err := os.Lstat(q.file("pending", key, ".json")); err == nil {
		return "", errNotYet
	}
	return "", fmt.Errorf("its sub-issue (update %s) was not created: retry that one first (cairn tracker status)", key)
}

// finish records u as sent: done/ first, then out of pending/, so that a
// crash in between leaves it recorded as sent rather than sent again.
func (q Queue) finish(u Update) error {
	if err := os.MkdirAll(filepath.Join(q.Dir, "done"), 0o700); err != nil {
		return err
	}
	stamp := []byte(q.now().UTC().Format(time.RFC3339) + "\n")
	if err := state.WriteFile(q.file("done", u.Key, ""), stamp, 0o600, false); err != nil {
		return err
	}
	return os.Remove(q.file("pending", u.Key, ".json"))
}

func (q Queue) write(dir string, u Update) error {
	if err := os.MkdirAll(filepath.Join(q.Dir, dir), 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(u)
	if err != nil {
		return err
	}
	return state.WriteFile(q.file(dir, u.Key, ".json"), data, 0o600, true)
}

// Retry moves the set-aside updates back into the queue, due now; with
// keys, only those.
func (q Queue) Retry(keys ...string) (int, error) {
	failed, errs := q.List("failed")
	n := 0
	for _, u := range failed {
		if len(keys) > 0 && !contains(keys, u.Key) {
			continue
		}
		u.NextAt = time.Time{}
		if err := q.write("pending", u); err != nil {
			return n, err
		}
		if err := os.Remove(q.file("failed", u.Key, ".json")); err != nil {
			return n, err
		}
		n++
	}
	return n, errors.Join(errs...)
}

// Prune forgets the record of updates sent longer ago than age (their
// keys could then be queued again, which only an event that old would),
// and of sub-issues created as long ago, or with dry only counts them; it
// returns how many and their size.
func (q Queue) Prune(age time.Duration, dry bool) (int, int64, error) {
	n, size := 0, int64(0)
	for _, sub := range []string{"done", "created"} {
		dir := filepath.Join(q.Dir, sub)
		ents, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return n, size, err
		}
		for _, e := range ents {
			fi, err := e.Info()
			if err == nil && q.now().Sub(fi.ModTime()) > age {
				if dry || os.Remove(filepath.Join(dir, e.Name())) == nil {
					n++
					size += fi.Size()
				}
			}
		}
	}
	return n, size, nil
}

// backoff is the wait before attempt n+1.
func backoff(attempts int, err error) time.Duration {
	d := MinBackoff
	for i := 1; i < attempts && d < MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, MaxBackoff)
	var t *Transient
	if errors.As(err, &t) && t.After > d {
		d = min(t.After, MaxBackoff)
	}
	return d
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
