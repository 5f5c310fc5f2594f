package continuity

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/tracker"
)

// Nothing cairn keeps would stop growing by itself: about half a
// megabyte of state per long session, a checkpoint of 1 to 15 KB at every
// compaction, level and session end, a record per tracker update. GC
// removes what is old by config.Retention, never what a live session
// needs: the state of a session touched within the age (its head, body,
// .pending and .restored), an announcement whose checkpoint is not stored
// yet, the latest checkpoint of every session and the one a pending
// restore names. Observations are the user's knowledge and stay.

// liveFor is how recently a session's state must have been touched to be
// spared even by the size limit.
const liveFor = 24 * time.Hour

// gcEvery is how often a session's end runs GC by itself.
const gcEvery = 24 * time.Hour

// Collected is what GC removed, or would remove.
type Collected struct {
	States     int   // sessions whose state files went
	StateBytes int64 // their size
	sqlite.Pruned
	Tracker      int // records of sent tracker updates
	TrackerBytes int64
}

// Bytes is all that went.
func (c Collected) Bytes() int64 { return c.StateBytes + c.Pruned.Bytes + c.TrackerBytes }

// Space is what cairn uses on disk.
type Space struct {
	StateDir string
	State    int64 // the state directory, the database aside
	Sessions int   // sessions with state
	DB       sqlite.Usage
}

// stateSuffixes are the files of one session's state (state.Store.File
// plus one of them); the status line's marker is named by the session.
var stateSuffixes = []string{".head", ".body", ".pending", ".restored", ".settle", ".summaries", ".pressure", ".kept", ".keeping"}

// stateGroup is one session's state files.
type stateGroup struct {
	files   []string
	size    int64
	touched time.Time
	// held: an announcement whose checkpoint is not stored yet.
	held bool
	// restoring is the checkpoint its announcement names.
	restoring int64
}

// Space measures what cairn keeps.
func (k *Keeper) Space(ctx context.Context) (Space, error) {
	sp := Space{StateDir: k.State.Dir}
	groups, err := k.stateGroups()
	if err != nil {
		return sp, err
	}
	sp.Sessions = len(groups)
	sp.State = dirSize(k.State.Dir, k.DBPath)
	if k.DBPath != "" {
		if _, err := os.Stat(k.DBPath); err == nil {
			db, err := k.DB(ctx)
			if err != nil {
				return sp, err
			}
			if sp.DB, err = db.Usage(ctx); err != nil {
				return sp, err
			}
		}
	}
	return sp, nil
}

// GC removes what r says is old, or with dry only counts it.
func (k *Keeper) GC(ctx context.Context, r config.Retention, dry bool) (Collected, error) {
	now := k.Now()
	var c Collected
	groups, err := k.stateGroups()
	if err != nil {
		return c, err
	}
	// Oldest first: the size limit takes them in that order.
	keys := make([]string, 0, len(groups))
	for key := range groups {
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(a, b string) int { return groups[a].touched.Compare(groups[b].touched) })
	var except []int64
	gone := map[string]bool{}
	drop := func(key string) {
		g := groups[key]
		gone[key] = true
		c.States++
		c.StateBytes += g.size
		if !dry {
			for _, f := range g.files {
				os.Remove(f)
			}
		}
	}
	for _, key := range keys {
		g := groups[key]
		if !g.held && r.OlderThan > 0 && now.Sub(g.touched) > r.OlderThan {
			drop(key)
		}
	}
	if r.Tracker > 0 {
		q := tracker.Queue{Dir: filepath.Join(k.State.Dir, "tracker"), Now: k.Now}
		if c.Tracker, c.TrackerBytes, err = q.Prune(r.Tracker, dry); err != nil {
			return c, err
		}
	}
	// The size limit: more state, the least recently touched first, then
	// checkpoints, the oldest first.
	var excess int64
	if r.MaxSize > 0 {
		sp, err := k.Space(ctx)
		if err != nil {
			return c, err
		}
		if dry {
			sp.State -= c.StateBytes + c.TrackerBytes
		}
		excess = sp.State + sp.DB.Size - r.MaxSize
		for _, key := range keys {
			g := groups[key]
			if excess <= 0 {
				break
			}
			if gone[key] || g.held || now.Sub(g.touched) < liveFor {
				continue
			}
			drop(key)
			excess -= g.size
		}
	}
	for key, g := range groups {
		if !gone[key] && g.restoring != 0 {
			except = append(except, g.restoring)
		}
	}
	if k.DBPath == "" {
		return c, nil
	}
	if _, err := os.Stat(k.DBPath); errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	db, err := k.DB(ctx)
	if err != nil {
		return c, err
	}
	p := sqlite.Prune{Before: now.Add(-r.OlderThan), Keep: r.Keep, Except: except, Bytes: max(excess, 0), DryRun: dry}
	if r.OlderThan <= 0 {
		p.Before = time.Time{}
	}
	c.Pruned, err = db.Prune(ctx, p)
	return c, err
}

// AutoGC runs GC when a session ends, at most once every gcEvery, within
// the job that ends the session; the mark is set first, so that a GC that
// fails is not retried by every session's end.
func (k *Keeper) AutoGC(ctx context.Context, r config.Retention) (Collected, bool, error) {
	mark := filepath.Join(k.State.Dir, "collected")
	if fi, err := os.Stat(mark); err == nil && k.Now().Sub(fi.ModTime()) < gcEvery {
		return Collected{}, false, nil
	}
	if err := os.WriteFile(mark, nil, 0o600); err != nil {
		return Collected{}, false, err
	}
	os.Chtimes(mark, k.Now(), k.Now())
	c, err := k.GC(ctx, r, false)
	return c, true, err
}

// stateGroups reads the sessions' state files, grouped by session.
func (k *Keeper) stateGroups() (map[string]*stateGroup, error) {
	dir := filepath.Join(k.State.Dir, "sessions")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	groups := map[string]*stateGroup{}
	for _, e := range ents {
		name := e.Name()
		ext := filepath.Ext(name)
		if strings.HasPrefix(name, ".") || !slices.Contains(stateSuffixes, ext) || e.IsDir() {
			continue // an interrupted write's temporary file: Tidy's
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		key := strings.TrimSuffix(name, ext)
		g := groups[key]
		if g == nil {
			g = &stateGroup{}
			groups[key] = g
		}
		file := filepath.Join(dir, name)
		g.files = append(g.files, file)
		g.size += fi.Size()
		if fi.ModTime().After(g.touched) {
			g.touched = fi.ModTime()
		}
		if ext == ".pending" {
			if data, err := os.ReadFile(file); err == nil {
				if p := decodePending(data); p != nil && p.Checkpoint != nil {
					g.held = p.Checkpoint.ID == 0
					g.restoring = p.Checkpoint.ID
				}
			}
		}
	}
	return groups, nil
}

// dirSize adds up the sizes of the files under dir, but for the database
// and its companions (measured apart) when they are there.
func dirSize(dir, db string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (db != "" && strings.HasPrefix(p, db)) {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			n += fi.Size()
		}
		return nil
	})
	return n
}
